"""A gem-ts server with its OpenEnv front door, as a child of this process.

gem_ts's own LocalServer starts it (``gem-ts serve --exit-with-stdin`` plus ``--openenv HOST:PORT``):
the same CLI lookup, token by inherited pipe, and stop when this process ends. The server prints
``GEM_TS_OPENENV_URL=…`` on the line after ``GEM_TS_ENDPOINT=…``; we read it there. It reads no
server-side files (no ``--data-dir``): OpenEnv clients may reach it over TCP, so datasets come inline.
"""

from __future__ import annotations

import json
import threading
from typing import Dict, List, Mapping, Optional, Sequence, Union
from urllib.parse import quote

from gem_ts.local_server import LocalServer

URL_PREFIX = "GEM_TS_OPENENV_URL="


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
        args = ["--openenv", f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
        if env_id is not None:
            args += ["--openenv-env", env_id]
        if options is not None:
            args += ["--openenv-options", json.dumps(dict(options))]
        if wrappers is not None:
            args += ["--openenv-wrappers", wrappers if isinstance(wrappers, str) else ",".join(wrappers)]
        if max_sessions is not None:
            args += ["--openenv-max-sessions", str(max_sessions)]
        self.auth_token = auth_token
        self.local = LocalServer([*args, *extra_args], startup_timeout, auth_token=auth_token, data_dirs=[])
        self.endpoint = self.local.endpoint
        self.url = self._read_url(startup_timeout)

    def _read_url(self, timeout: float) -> str:
        found: List[str] = []

        def read() -> None:
            assert self.local.proc.stdout is not None
            line = self.local.proc.stdout.readline()
            if line.startswith(URL_PREFIX):
                found.append(line[len(URL_PREFIX) :].strip())

        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(timeout)
        if not found:
            self.close()
            raise RuntimeError(f"gem-ts serve printed no {URL_PREFIX} line:\n{self.local.stderr_tail()}")
        return found[0]

    def base_url(self, env_id: Optional[str] = None) -> str:
        """The base URL an OpenEnv client is given: ``<url>/envs/<env id>``, or the root (the default env)."""
        return self.url if env_id is None else f"{self.url}/envs/{quote(env_id, safe=':/')}"

    @property
    def headers(self) -> Optional[Dict[str, str]]:
        """What an OpenEnv client passes as ``headers=`` when the server needs a token."""
        return None if self.auth_token is None else {"Authorization": f"Bearer {self.auth_token}"}

    def close(self) -> None:
        self.local.stop()

    def __enter__(self) -> "OpenEnvServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve(env_id: Optional[str] = None, **kwargs) -> OpenEnvServer:
    """Starts ``gem-ts serve --openenv`` (see OpenEnvServer for the arguments); use it as a context manager."""
    return OpenEnvServer(env_id, **kwargs)
