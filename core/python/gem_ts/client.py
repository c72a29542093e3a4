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
from typing import Any, Dict, Optional, Sequence, TypeVar, Union

from . import calls
from .calls import Plan
from .env import make_env
from .ops import BlockingOps, goodbye, open_session
from .session import Call
from .transport import BlockingTransport
from .vector import make_vector

T = TypeVar("T")
Ids = Union[str, Sequence[str]]


class Client(BlockingOps):
    """Its ops (``ping``, ``reset``, ``step``, …) are ``ops.ClientOps``', shared with ``aio.AsyncClient``."""

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
        self.session, self.local_server, self.python_envs = open_session(
            endpoint, timeout=timeout, liveness_timeout=liveness_timeout, token=token, server_args=server_args
        )
        self.endpoint = self.session.endpoint
        self._transport = BlockingTransport(self.session, heartbeat=heartbeat)
        try:
            self._transport.start()
        except BaseException:
            self.session.closed = True
            self._transport.close()
            if self.local_server:
                self.local_server.stop()
            raise

    # ── running calls ─────────────────────────────────────────────────────────────────────────────

    def run(self, call: Call[T]) -> T:
        """Sends one request and returns its decoded reply (or raises its error)."""
        return self._transport.run(call)

    def drive(self, plan: Plan) -> Any:
        """Runs a plan of several requests (see ``calls``) to its result."""
        return calls.run_plan(plan, self._transport.run)

    # ── envs (GEM's make and make_vec, on this client) ────────────────────────────────────────────

    #: ``gem_ts.make(env_id, **kwargs)`` on this client (``make_handle`` is the raw make op).
    make = make_env
    #: ``gem_ts.make_vec(env_ids, ...)`` on this client.
    make_vec = make_vector

    # ── lifecycle ─────────────────────────────────────────────────────────────────────────────────

    def close(self) -> None:
        """Frees this client's envs, closes the connection and stops a server it started."""
        try:
            self.drive(goodbye(self.session))
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
