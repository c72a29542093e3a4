"""The gem-ts client for synchronous code: one connection to a server, and the ops of protocol v1.

``Client()`` connects to ``endpoint``, else ``GEM_TS_ENDPOINT``, else starts a local server (the Node
CLI) that it stops on ``close()`` or at exit. ``default_client()`` is the one ``gem_ts.make`` and
friends use; it is created on first use and again in a forked child. The protocol itself is
``session.Session``'s and every op is a ``calls`` function; this class runs them over a blocking
socket, as ``aio.AsyncClient`` runs the same ones over asyncio.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Dict, List, Optional, Sequence, TypeVar, Union

from . import calls, protocol
from ._contract import MakeReply, SpecReply
from .calls import Plan, Seed
from .errors import UnknownHandleError
from .local_server import LocalServer
from .python_envs import PythonEnvHost, PythonEnvSpec
from .session import Call, Session, SessionView, reregister
from .transport import BlockingTransport

T = TypeVar("T")
Ids = Union[str, Sequence[str]]


class Client(SessionView):
    def __init__(
        self,
        endpoint: Optional[str] = None,
        *,
        timeout: Optional[float] = None,
        liveness_timeout: Optional[float] = None,
        token: Optional[str] = None,
        server_args: Sequence[str] = (),
        heartbeat: bool = True,
    ):
        endpoint = endpoint or os.environ.get("GEM_TS_ENDPOINT") or None
        self.local_server: Optional[LocalServer] = None
        if endpoint is None:
            self.local_server = LocalServer(server_args)
            endpoint = self.local_server.endpoint
        self.endpoint = endpoint
        self.python_envs = PythonEnvHost()
        self.session = Session(
            endpoint,
            timeout=timeout,
            liveness_timeout=liveness_timeout,
            token=token,
            local_problem=self._local_server_problem if self.local_server else None,
            env_call_handler=self.python_envs.handle,
        )
        self.session.on_new_boot = reregister(self.python_envs)
        self._transport = BlockingTransport(self.session, heartbeat=heartbeat)
        try:
            self._transport.start()
        except BaseException:
            self.session.closed = True
            self._transport.close()
            if self.local_server:
                self.local_server.stop()
            raise

    def _local_server_problem(self) -> Optional[str]:
        srv = self.local_server
        if srv is None or srv.alive():
            return None
        return f"the local gem-ts server exited with code {srv.proc.returncode}\n{srv.stderr_tail()}"

    # ── running calls ─────────────────────────────────────────────────────────────────────────────

    def run(self, call: Call[T]) -> T:
        """Sends one request and returns its decoded reply (or raises its error)."""
        return self._transport.run(call)

    def drive(self, plan: Plan) -> Any:
        """Runs a plan of several requests (see ``calls``) to its result."""
        return calls.run_plan(plan, self._transport.run)

    # ── ops ───────────────────────────────────────────────────────────────────────────────────────

    def ping(self) -> float:
        return self.run(calls.ping())

    def list_envs(self, filter: Optional[str] = None, verbose: bool = False) -> List[Any]:
        return self.run(calls.list_envs(filter, verbose))

    def spec(self, env_id: Optional[str] = None, handle: Optional[int] = None) -> SpecReply:
        return self.run(calls.spec(env_id, handle))

    def make(self, env_ids: Ids, **fields: Any) -> MakeReply:
        """The raw make op (``num_envs``, ``options``, ``wrappers``, …); ``gem_ts.make_vec`` wraps it."""
        return self.run(calls.make(self.session, env_ids, **fields))

    def reset(
        self,
        handle: int,
        *,
        seed: Seed = None,
        options: Union[None, Dict[str, Any], Sequence[Dict[str, Any]]] = None,
        indices: Optional[Sequence[int]] = None,
    ) -> protocol.Rows:
        return self.run(calls.reset(handle, seed=seed, options=options, indices=indices))

    def step(self, handle: int, indices: Sequence[int], actions: Sequence[str]) -> protocol.Rows:
        return self.run(calls.step(handle, indices, actions, self.session.inline_max_rows))

    def sample(self, handle: int, indices: Optional[Sequence[int]] = None) -> List[str]:
        return self.run(calls.sample(handle, indices))

    def close_handle(self, handle: int) -> None:
        if self.session.closed or self.session.is_stale(handle):
            return  # nothing left to close: the envs went with the server (or the client)
        try:
            self.run(calls.close(handle))
        except UnknownHandleError:
            if not self.session.is_stale(handle):
                raise

    def register_dataset(self, name: str, arrow_stream: bytes) -> Dict[str, Any]:
        return self.run(calls.register_dataset(name, arrow_stream))

    def register_env(self, env_id: str, description: Optional[str] = None, defaults: Optional[Dict[str, Any]] = None) -> None:
        self.run(calls.register_env(env_id, description, defaults))

    def register(self, env_id: str, entry_point: Any, *, description: Optional[str] = None, **kwargs: Any) -> None:
        """An env defined in Python, served from this process (see ``gem_ts.register``)."""
        self.python_envs.add(PythonEnvSpec(env_id, entry_point, dict(kwargs), description))
        self.run(calls.register_env(env_id, description))

    def stats(self) -> Dict[str, Any]:
        return self.run(calls.stats())

    # ── lifecycle ─────────────────────────────────────────────────────────────────────────────────

    def close(self) -> None:
        """Frees this client's envs, closes the connection and stops a server it started."""
        try:
            if not self.session.closed and os.getpid() == self.session.pid:
                try:
                    self.run(calls.close(timeout=2.0))
                except Exception:
                    pass  # best effort: the server frees an idle client's envs anyway
            self.session.closed = True
            self._transport.close()
        finally:
            if self.local_server:
                self.local_server.stop()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_default: Optional[Client] = None
_default_pid: Optional[int] = None
_default_lock = threading.Lock()


def default_client(token: Optional[str] = None) -> Client:
    """The shared client (created on first use; a forked child gets its own). A ``token`` given here
    is presented to the server from the next request on."""
    global _default, _default_pid
    with _default_lock:
        if _default is not None and _default_pid != os.getpid():
            # A forked child: connect to the parent's server (its sockets cannot cross the fork).
            _default, _default_pid = Client(_default.endpoint, token=token or _default.session.token), os.getpid()
        elif _default is None or _default.closed:
            _default, _default_pid = Client(token=token), os.getpid()
        elif token is not None and token != _default.session.token:
            _default.session.token = token
            _default.session.needs_hello = True
        return _default


def connect(endpoint: Any = None, **kwargs: Any) -> Client:
    """Connects (or starts a local server) and makes that the default client. ``endpoint`` may be a
    ``gem_ts.ray.EnvServerPool``: the client then talks to the server on its own Ray node.

    The previous default stays open: envs made through it keep working until it is closed (its local
    server, if it started one, stops at exit). Close it yourself when you are done with it.
    """
    global _default, _default_pid
    # An object that knows how to connect to itself (gem_ts.ray.EnvServerPool: its node-local server)
    # does so; the client layer never imports the Ray layer above it.
    connect_to_self = getattr(endpoint, "__gem_ts_connect__", None)
    if connect_to_self is not None and not isinstance(endpoint, str):
        client: Client = connect_to_self(**kwargs)
        return client
    client = Client(endpoint, **kwargs)
    with _default_lock:
        _default, _default_pid = client, os.getpid()
    return client


def set_default_client(client: Optional[Client]) -> None:
    global _default, _default_pid
    with _default_lock:
        _default, _default_pid = client, os.getpid() if client else None


def register_dataset(name: str, data: Any, *, client: Optional[Client] = None) -> Dict[str, Any]:
    """Sends ``data`` (a pyarrow Table, HF ``datasets.Dataset``, pandas frame, dict of columns or list
    of row dicts) to the server under ``name``; returns ``{name, rows, columns}``."""
    result: Dict[str, Any] = (client or default_client()).run(calls.register_table(name, data))
    return result
