"""A gem-ts server with its OpenEnv front door, as a child of this process.

It runs ``gem-ts serve --openenv HOST:PORT --exit-with-stdin`` (the CLI gem_ts finds for its own local
server) and reads the two lines it prints once bound: ``GEM_TS_OPENENV_URL=…`` and
``GEM_TS_ENDPOINT=…``. Its stdin is a pipe from us, so it stops when this process ends, even on
SIGKILL; ``close()`` stops it at once. An auth token travels through an inherited pipe
(``--auth-token-file=/dev/fd/N``), never on the command line.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections import deque
from typing import Deque, Dict, Mapping, Optional, Sequence, Union
from urllib.parse import quote

from gem_ts.local_server import find_cli, server_env

URL_PREFIX = "GEM_TS_OPENENV_URL="
ENDPOINT_PREFIX = "GEM_TS_ENDPOINT="


class OpenEnvServer:
    """A running ``gem-ts serve --openenv``; ``url`` is its root, ``base_url(env_id)`` a client's base URL."""

    def __init__(
        self,
        env_id: Optional[str] = None,
        *,
        options: Optional[Mapping[str, object]] = None,
        wrappers: Union[str, Sequence[str], None] = None,
        host: str = "127.0.0.1",
        port: int = 0,
        auth_token: Optional[str] = None,
        max_sessions: Optional[int] = None,
        extra_args: Sequence[str] = (),
        startup_timeout: float = 60.0,
    ) -> None:
        if (options is not None or wrappers is not None) and env_id is None:
            raise ValueError("options and wrappers set the default env; give env_id too")
        bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        cmd = [*find_cli(), "serve", "--openenv", bind, "--exit-with-stdin"]
        if env_id is not None:
            cmd += ["--openenv-env", env_id]
        if options is not None:
            cmd += ["--openenv-options", json.dumps(dict(options))]
        if wrappers is not None:
            cmd += ["--openenv-wrappers", wrappers if isinstance(wrappers, str) else ",".join(wrappers)]
        if max_sessions is not None:
            cmd += ["--openenv-max-sessions", str(max_sessions)]
        pass_fds: tuple = ()
        if auth_token is not None:
            read_end, write_end = os.pipe()
            os.write(write_end, auth_token.encode("utf-8"))
            os.close(write_end)
            cmd.append(f"--auth-token-file=/dev/fd/{read_end}")
            pass_fds = (read_end,)
        cmd += list(extra_args)
        self.auth_token = auth_token
        self._stderr: Deque[str] = deque(maxlen=40)
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=server_env(),
            pass_fds=pass_fds,
        )
        for fd in pass_fds:
            os.close(fd)
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self.url, self.endpoint = self._read_addresses(startup_timeout)

    def _drain_stderr(self) -> None:
        for line in self.proc.stderr:  # type: ignore[union-attr]
            self._stderr.append(line.rstrip("\n"))

    def _read_addresses(self, timeout: float):
        found: Dict[str, str] = {}

        def read() -> None:
            for line in self.proc.stdout:  # type: ignore[union-attr]
                for key, prefix in (("url", URL_PREFIX), ("endpoint", ENDPOINT_PREFIX)):
                    if line.startswith(prefix):
                        found[key] = line[len(prefix) :].strip()
                if "endpoint" in found:
                    return

        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(timeout)
        if "url" not in found or "endpoint" not in found:
            self.close()
            tail = "\n".join(self._stderr)
            raise RuntimeError(f"gem-ts serve --openenv did not start within {timeout:.0f} s:\n{tail}")
        return found["url"], found["endpoint"]

    def base_url(self, env_id: Optional[str] = None) -> str:
        """The base URL an OpenEnv client is given: ``<url>/envs/<env id>``, or the root (the default env)."""
        return self.url if env_id is None else f"{self.url}/envs/{quote(env_id, safe=':/')}"

    @property
    def headers(self) -> Optional[Dict[str, str]]:
        """What an OpenEnv client passes as ``headers=`` when the server needs a token."""
        return None if self.auth_token is None else {"Authorization": f"Bearer {self.auth_token}"}

    def close(self, timeout: float = 5.0) -> None:
        if self.proc.poll() is not None:
            return
        try:
            self.proc.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> "OpenEnvServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve(env_id: Optional[str] = None, **kwargs) -> OpenEnvServer:
    """Starts ``gem-ts serve --openenv`` (see OpenEnvServer for the arguments); use it as a context manager."""
    return OpenEnvServer(env_id, **kwargs)
