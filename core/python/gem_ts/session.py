"""The client's protocol state machine, without I/O: what both transports (blocking and asyncio) share.

A transport moves frames and keeps time; everything else happens here, once:
- framing requests (ids, the header codec) and matching replies to them;
- the server's identity: ``hello`` on connect and again after any disconnect or silence, and the
  ``boot_id`` it announces. Every handle carries the boot it was made under, and a handle of an
  earlier boot raises ``UnknownHandleError`` before anything is sent, so it can never reach an env
  that a restarted server gave the same id;
- liveness: a disconnect during a request, a local server that exited, a connection lost for longer
  than the reconnect grace, or ``liveness_timeout`` seconds without any message fail the requests in
  flight with ``ServerUnavailableError``;
- env state after such a failure: the envs a lost step or reset was for are marked unknown, and the
  next step on them raises ``ResetNeededError`` until they are reset (the step may or may not have
  happened on the server; guessing would give wrong data).
"""

from __future__ import annotations

import itertools
import os
import re
import time
from typing import Any, Callable, Dict, Generic, List, Optional, Sequence, Set, Tuple, TypeVar, Union

from . import protocol
from ._contract import HelloReply, InvalidActionBatchError
from .errors import (
    GemError,
    InvalidRequestError,
    RequestTimeoutError,
    ResetNeededError,
    ServerUnavailableError,
    UnauthorizedError,
    UnknownHandleError,
    error_from_wire,
)
from .python_envs import env_return

T = TypeVar("T")
Header = Dict[str, Any]
Frames = List[bytes]
Decoder = Callable[[Header, Optional[bytes]], T]

DEFAULT_LIVENESS_TIMEOUT = float(os.environ.get("GEM_TS_LIVENESS_TIMEOUT", "20"))
#: A connection that dropped while nothing was in flight may come back (a restarted server) this long.
RECONNECT_GRACE_S = 2.0
#: The whole of a handle's envs (a lost request that named no indices).
ALL = -1


#: How long a client waits for a server on this machine that it did not start: one that is there
#: connects in milliseconds, so a wrong endpoint fails fast instead of after the liveness timeout.
LOCAL_CONNECT_S = float(os.environ.get("GEM_TS_CONNECT_TIMEOUT", "2"))
_ENDPOINT = re.compile(r"^(tcp|ipc|inproc|ws|wss|pgm|epgm|vmci|stream\+ipc|stream\+tcp)://\S+$")
_LOCAL_TCP = re.compile(r"^(stream\+)?tcp://(localhost|127(\.\d+){3}|\[?::1\]?|0\.0\.0\.0|\*)(:\d+)?$")


def _endpoint_source(endpoint: str) -> str:
    return "GEM_TS_ENDPOINT" if os.environ.get("GEM_TS_ENDPOINT") == endpoint else "endpoint"


def endpoint_arg(endpoint: Any) -> str:
    """A ZeroMQ endpoint (``tcp://host:port``, ``ipc:///path``) or a stream one (the same prefixed
    ``stream+``); anything else is a clear error, not ZeroMQ's ``Invalid argument``."""
    if isinstance(endpoint, str) and _ENDPOINT.match(endpoint.strip()):
        return endpoint.strip()
    source = _endpoint_source(endpoint) if isinstance(endpoint, str) else "endpoint"
    if isinstance(endpoint, str) and "://" not in endpoint and endpoint.strip():
        fix = f"write it with its transport, e.g. {('tcp://' + endpoint.strip())!r} (or ipc:///path/to/socket)"
    else:
        fix = "give one like 'tcp://127.0.0.1:5555' or 'ipc:///tmp/gem-ts.sock' (what `gem-ts serve` prints as GEM_TS_ENDPOINT=…)"
    unset = "; or unset GEM_TS_ENDPOINT and gem_ts starts a local server itself" if source == "GEM_TS_ENDPOINT" else ""
    raise InvalidRequestError("INVALID_REQUEST", f"{source}={endpoint!r} is not a gem-ts endpoint: {fix}{unset}", {"endpoint": str(endpoint)})


def is_local_endpoint(endpoint: str) -> bool:
    return endpoint.startswith(("ipc://", "inproc://", "stream+ipc://")) or bool(_LOCAL_TCP.match(endpoint))


def _no_body(header: Header, body: Optional[bytes]) -> Header:
    return header


class Handle(int):
    """A server handle id that remembers the server boot it belongs to (an ``int`` on the wire).

    It copies and pickles with its boot and size. It stays a name in the session that made it: the
    server answers ``UnknownHandleError`` to any other client (another process included) that sends
    it, exactly as for a closed handle, so unpickling one elsewhere reaches no env."""

    boot_id: str
    num_envs: int

    def __new__(cls, value: int, boot_id: str, num_envs: int) -> "Handle":
        h = super().__new__(cls, value)
        h.boot_id = boot_id
        h.num_envs = num_envs
        return h

    def __reduce__(self) -> Tuple[Any, Tuple[int, str, int]]:
        return (Handle, (int(self), self.boot_id, self.num_envs))


class Call(Generic[T]):
    """One request: its header (``v`` and ``id`` first, as the server reads them), body, and how its
    reply becomes a result. ``handle``/``indices`` say which envs it touches."""

    __slots__ = ("header", "body", "decode", "handle", "indices", "timeout", "rid", "sent_at", "screen")

    def __init__(
        self,
        op: str,
        fields: Optional[Header] = None,
        body: Optional[bytes] = None,
        decode: Decoder[T] = _no_body,  # type: ignore[assignment]
        *,
        handle: Optional[int] = None,
        indices: Optional[Sequence[int]] = None,
        timeout: Optional[float] = None,
    ):
        header: Header = {"v": protocol.PROTOCOL_VERSION, "id": 0, "op": op}
        if handle is not None:
            header["handle"] = handle
        if fields:
            header.update(fields)
        self.header = header
        self.body = body
        self.decode = decode
        self.handle = handle
        self.indices = indices
        self.timeout = timeout
        self.rid = 0
        self.sent_at = 0.0
        #: For a call of many envs' rows (``batch``): takes out, just before it is sent, the rows the
        #: session refuses (``Session.row_problem``), failing only those.
        self.screen: Optional[Callable[["Session"], None]] = None

    @property
    def op(self) -> str:
        return str(self.header["op"])


class Session:
    def __init__(
        self,
        endpoint: str,
        *,
        timeout: Optional[float] = None,
        liveness_timeout: Optional[float] = None,
        token: Optional[str] = None,
        client_info: Optional[Dict[str, Any]] = None,
        local_problem: Optional[Callable[[], Optional[str]]] = None,
        env_call_handler: Optional[Callable[[Header], Any]] = None,
    ):
        self.endpoint = endpoint_arg(endpoint)
        raw = os.environ.get("GEM_TS_TIMEOUT")
        self.timeout = timeout if timeout is not None else (float(raw) if raw else None)
        self.liveness_timeout = DEFAULT_LIVENESS_TIMEOUT if liveness_timeout is None else float(liveness_timeout)
        self.token = token if token is not None else (os.environ.get("GEM_TS_TOKEN") or None)
        self.client_info = {"name": "gem_ts", "pid": os.getpid(), **(client_info or {})}
        self.local_problem = local_problem
        #: How long to wait for the first connection (a server on this machine we did not start: 2 s).
        self.connect_timeout = (
            min(LOCAL_CONNECT_S, self.liveness_timeout) if local_problem is None and is_local_endpoint(self.endpoint) else self.liveness_timeout
        )
        self.ever_connected = False
        self.env_call_handler = env_call_handler
        #: Requests to send again to a restarted server (the Python envs this client registered).
        self.on_new_boot: Optional[Callable[[], List["Call[Any]"]]] = None
        self.replays: List[Call[Any]] = []
        self.pid = os.getpid()
        self._ids = itertools.count(1)
        self.pending: Dict[int, Call[Any]] = {}
        self._pings: Set[int] = set()
        self.boot_id = ""
        #: The secret the server gave this session in hello: a later connection presents it (with the
        #: token) to get the same session, and so its handles, back.
        self.resume: Optional[str] = None
        #: The connection dropped since the last hello: the server unbound this session from it.
        self.reconnecting = False
        self.server_info: Dict[str, Any] = {}
        self.limits: Dict[str, Any] = {}
        self.heartbeat_s = 1.0
        self.inline_max_rows = 64
        self.needs_hello = True
        self.closed = False
        self.started_at = time.monotonic()
        self.connected = False
        self.lost_at: Optional[float] = None
        #: When a connection last ended; kept after a reconnect, since a request sent on the connection
        #: that ended is never answered, whatever connection came after it.
        self.last_loss_at: Optional[float] = None
        self.last_rx = self.last_tx = self.started_at
        #: handle id → env indices whose state is unknown (ALL: every env of the handle)
        self.unknown_state: Dict[int, Set[int]] = {}

    # ── identity ──────────────────────────────────────────────────────────────────────────────────

    def hello_call(self) -> Call[HelloReply]:
        fields: Header = {"client": self.client_info}
        if self.token:
            fields["token"] = self.token
        if self.resume:
            fields["resume"] = self.resume
        timeout = self.liveness_timeout if self.timeout is None else min(self.timeout, self.liveness_timeout)
        return Call("hello", fields, decode=self._on_hello, timeout=timeout)

    def _on_hello(self, header: Header, body: Optional[bytes]) -> HelloReply:
        boot = str(header.get("boot_id") or "")
        if boot != self.boot_id:
            self.unknown_state.clear()  # every handle of the old boot is stale anyway
            if self.boot_id and self.on_new_boot is not None:
                self.replays = self.on_new_boot()
        self.boot_id = boot
        resume = header.get("resume")
        self.resume = resume if isinstance(resume, str) else None
        self.reconnecting = False
        self.server_info = header["server"]
        self.limits = header["limits"]
        self.heartbeat_s = max(0.05, self.limits.get("heartbeat_ms", 5000) / 1000.0)
        self.inline_max_rows = int(self.limits.get("inline_max_rows", 64))
        self.needs_hello = False
        return header  # type: ignore[return-value]

    def hello_again(self, call: Call[Any], err: BaseException) -> bool:
        """Whether a refused call should go again after a new hello: the server let this client in
        before, and now answers UNAUTHORIZED, so the connection changed under us (auth is bound to the
        connection) before the socket monitor said so. UNAUTHORIZED means the server did nothing."""
        if not isinstance(err, UnauthorizedError) or call.op == "hello" or self.resume is None:
            return False
        self.needs_hello = True
        return True

    @property
    def wants_hello(self) -> bool:
        """A connection came back after this client had a session: say hello (token and resume secret)
        before the idle timeout frees the session, even while the caller is busy elsewhere. Only after
        a disconnect: a server that stopped answering on a live connection gets its hello from the
        caller's next request, as before."""
        return self.reconnecting and self.needs_hello and self.connected and self.resume is not None and not self.closed

    def handle(self, value: int, num_envs: int) -> Handle:
        return Handle(value, self.boot_id, num_envs)

    def is_stale(self, handle: int) -> bool:
        """A handle of a server process that is gone (its envs went with it)."""
        boot = getattr(handle, "boot_id", None)
        return boot is not None and not self.needs_hello and boot != self.boot_id

    # ── before a request leaves ───────────────────────────────────────────────────────────────────

    def admit(self, call: Call[Any]) -> None:
        """Raises instead of sending a call that cannot be answered truthfully."""
        if self.closed:
            raise ServerUnavailableError(
                "SERVER_UNAVAILABLE", "this gem_ts client is closed (its close() was called); make a new one with gem_ts.connect()"
            )
        if os.getpid() != self.pid:
            raise ServerUnavailableError(
                "SERVER_UNAVAILABLE", "a gem_ts client cannot be used across fork(); connect again in the child process"
            )
        if call.screen is not None:
            call.screen(self)
        h = call.handle
        if h is None:
            return
        stale = self._stale(call.op, h)
        if stale is not None:
            raise stale
        unknown = self.unknown_state.get(int(h))
        if unknown and call.op in ("step", "sample"):
            touched = range(getattr(h, "num_envs", 1)) if call.indices is None else call.indices
            bad = [int(i) for i in touched if ALL in unknown or int(i) in unknown]
            if bad:
                raise _state_unknown(call.op, bad[0], int(h))

    def row_problem(self, op: str, handle: int, index: int) -> Optional[GemError]:
        """Why one env's row of a many-env call must not be sent (its handle is of an earlier server, or,
        for a step, its state is unknown), or None: what ``admit`` checks for a call of one handle."""
        stale = self._stale(op, handle)
        if stale is not None:
            return stale
        if op == "step" and self.unknown_state:
            unknown = self.unknown_state.get(int(handle))
            if unknown and (ALL in unknown or index in unknown):
                return _state_unknown(op, index, int(handle))
        return None

    def _stale(self, op: str, h: int) -> Optional[UnknownHandleError]:
        boot = getattr(h, "boot_id", None)
        if boot is None or boot == self.boot_id:
            return None
        return UnknownHandleError(
            "UNKNOWN_HANDLE",
            f"{op}: handle {int(h)} was made on a server that has restarted; make the env again",
            {"handle": int(h), "boot_id": boot, "server_boot_id": self.boot_id},
        )

    def frame(self, call: Call[Any], now: float) -> Frames:
        rid = call.rid = next(self._ids)
        call.header["id"] = rid
        packed = _pack(call)  # before it is pending: a request that cannot be packed is never sent
        call.sent_at = now
        self.pending[rid] = call
        self.last_tx = now
        return [packed] if call.body is None else [packed, call.body]

    def send_deadline(self) -> float:
        """Until when a transport may wait for a connection before a request fails as unavailable."""
        if self.lost_at is not None:
            return self.lost_at + RECONNECT_GRACE_S
        return self.started_at + self.connect_timeout if not self.connected else float("inf")

    def unsent(self, call: Call[Any]) -> ServerUnavailableError:
        self.pending.pop(call.rid, None)
        self.needs_hello = True
        why = self.local_problem() if self.local_problem else None
        return ServerUnavailableError("SERVER_UNAVAILABLE", f"{call.op}: {why or self._nobody_there()}", {"endpoint": self.endpoint})

    def _nobody_there(self) -> str:
        if self.ever_connected:
            return f"no gem-ts server is connected at {self.endpoint}"
        waited = f"{self.connect_timeout:g} s"
        fixes = [f"start one there with `gem-ts serve --endpoint {self.endpoint}`"]
        if _endpoint_source(self.endpoint) == "GEM_TS_ENDPOINT":
            fixes.append("unset GEM_TS_ENDPOINT and gem_ts starts a local server itself")
        return f"no gem-ts server answered at {self.endpoint} ({_endpoint_source(self.endpoint)}) within {waited}: " + ", or ".join(fixes)

    # ── replies ───────────────────────────────────────────────────────────────────────────────────

    def receive(self, frames: Frames, now: float) -> Union[None, Header, Tuple[Call[Any], Header, Optional[bytes]]]:
        """What an incoming message is: a (call, header, body) reply, an env_call header, or None."""
        self.last_rx = now
        try:
            header = protocol.unpack(frames[0])
        except Exception:
            return None  # the server never sends these; nothing to answer
        if not isinstance(header, dict):
            return None
        if header.get("op") == "env_call":
            return header  # the server's own id space: never a reply, whatever its id
        rid = header.get("id")
        call = self.pending.pop(rid, None) if isinstance(rid, int) else None
        if call is not None:
            return call, header, frames[1] if len(frames) > 1 else None
        if rid is None and not header.get("ok", True) and self.pending:
            # The server could not read a request's id (never for well-formed requests): the error is
            # the oldest request's.
            oldest = min(self.pending.values(), key=lambda c: c.rid)
            del self.pending[oldest.rid]
            return oldest, header, None
        if isinstance(rid, int):
            self._pings.discard(rid)
        return None  # a ping's reply, or a late reply to a request that already failed

    def finish(self, call: Call[T], header: Header, body: Optional[bytes]) -> T:
        if not header.get("ok", False):
            raise error_from_wire(header.get("error") or {}, call.op)
        if self.unknown_state:
            op = call.header["op"]
            if call.handle is not None and op == "reset":
                self._forget_unknown(int(call.handle), call.indices)
            elif op == "batch":
                rows = call.header["rows"]
                failed = {e.get("row") for e in header.get("errors") or ()}
                for k, (h, i, action) in enumerate(zip(rows["handle"], rows["env_index"], rows["action"])):
                    if action is None and k not in failed:
                        self._forget_unknown(int(h), [i])
        return call.decode(header, body)

    def env_return(self, call: Header) -> bytes:
        handler = self.env_call_handler

        def serve(c: Header) -> Any:
            if handler is None:
                raise GemError("NOT_SUPPORTED", "this client serves no Python-defined envs")
            return handler(c)

        return env_return(serve, call)

    # ── liveness ──────────────────────────────────────────────────────────────────────────────────

    def on_connected(self, now: float) -> None:
        self.connected = True
        self.ever_connected = True
        self.lost_at = None

    def on_disconnected(self, now: float) -> None:
        self.connected = False
        self.reconnecting = True
        self.lost_at = self.last_loss_at = now
        self.needs_hello = True  # whoever answers next may be another server process

    def check(self, now: float) -> Optional[str]:
        """Why the requests in flight will not be answered, or None while they still may be."""
        if not self.pending:
            return None
        if self.local_problem is not None:
            dead = self.local_problem()
            if dead:
                return dead
        oldest = min(c.sent_at for c in self.pending.values())
        lost_since_sent = self.last_loss_at is not None and self.last_loss_at >= oldest - 1e-3
        if lost_since_sent or (self.lost_at is not None and now - self.lost_at > RECONNECT_GRACE_S):
            return f"the server at {self.endpoint} closed the connection and is not answering"
        quiet = now - max(self.last_rx, oldest)
        if quiet > self.liveness_timeout:
            return f"no message from the server at {self.endpoint} for {quiet:.1f} s (liveness timeout)"
        return None

    def overdue(self, now: float) -> List[Call[Any]]:
        """Calls past their own timeout (``timeout=`` / ``GEM_TS_TIMEOUT``)."""
        out = []
        for c in self.pending.values():
            limit = c.timeout if c.timeout is not None else self.timeout
            if limit is not None and now - c.sent_at >= limit:
                out.append(c)
        return out

    def fail(self, why: str) -> Tuple[List[Call[Any]], ServerUnavailableError]:
        """Ends every call in flight: the server is gone or frozen. Their envs' state becomes unknown."""
        calls = list(self.pending.values())
        self.pending.clear()
        self.needs_hello = True
        for c in calls:
            self._mark_unknown(c)
        return calls, ServerUnavailableError("SERVER_UNAVAILABLE", why)

    def time_out(self, call: Call[Any]) -> RequestTimeoutError:
        self.pending.pop(call.rid, None)
        self._mark_unknown(call)
        limit = call.timeout if call.timeout is not None else self.timeout
        return RequestTimeoutError("TIMEOUT", f"{call.op}: no reply from {self.endpoint} within {limit:g} s")

    def wants_ping(self, now: float) -> bool:
        return now - self.last_tx >= self.heartbeat_s * 0.9

    def ping_frames(self, now: float) -> Frames:
        rid = next(self._ids)
        self._pings.add(rid)
        self.last_tx = now
        return [protocol.pack({"v": protocol.PROTOCOL_VERSION, "id": rid, "op": "ping"})]

    def _mark_unknown(self, call: Call[Any]) -> None:
        h = call.handle
        if call.header["op"] == "batch":
            rows = call.header["rows"]
            for h, i in zip(rows["handle"], rows["env_index"]):
                self.unknown_state.setdefault(int(h), set()).add(int(i))
            return
        if h is None or call.header["op"] not in ("step", "reset"):
            return
        marks = self.unknown_state.setdefault(int(h), set())
        if call.indices is not None:
            marks.update(int(i) for i in call.indices)
        elif isinstance(h, Handle):
            marks.update(range(h.num_envs))
        else:
            marks.add(ALL)

    def _forget_unknown(self, handle: int, indices: Optional[Sequence[int]]) -> None:
        marks = self.unknown_state.get(handle)
        if marks is None:
            return
        if indices is None:
            del self.unknown_state[handle]
            return
        marks.difference_update(int(i) for i in indices)
        if not marks:
            del self.unknown_state[handle]


class SessionView:
    """What both clients tell about their session (the server's announcements, the connection)."""

    session: Session

    @property
    def limits(self) -> Dict[str, Any]:
        return self.session.limits

    @property
    def server_info(self) -> Dict[str, Any]:
        return self.session.server_info

    @property
    def boot_id(self) -> str:
        """The server process this client talks to (it changes when the server restarts)."""
        return self.session.boot_id

    @property
    def inline_max_rows(self) -> int:
        return self.session.inline_max_rows

    @property
    def closed(self) -> bool:
        return self.session.closed


def _state_unknown(op: str, index: int, handle: int) -> ResetNeededError:
    return ResetNeededError(
        "RESET_NEEDED",
        f"{op}: the state of env {index} is unknown (the server stopped answering during an "
        "earlier request on it, which may or may not have run); reset it first",
        {"index": index, "handle": handle},
    )


def reregister(host: Any) -> Callable[[], List[Call[Any]]]:
    """The ``on_new_boot`` of a client serving Python envs: announce them to the new server again."""

    def calls() -> List[Call[Any]]:
        host.forget_instances()
        out: List[Call[Any]] = []
        for spec in list(host.specs.values()):
            fields: Header = {"env_id": spec.env_id}
            if spec.description:
                fields["description"] = spec.description
            out.append(Call("register_env", fields))
        return out

    return calls


def _pack(call: Call[Any]) -> bytes:
    """The header packed; a step action that is not valid Unicode text is named by its env index."""
    try:
        return protocol.pack(call.header)
    except UnicodeEncodeError:
        rows = call.header.get("rows") if call.op == "step" else None
        for index, action in zip(rows["env_index"], rows["action"]) if isinstance(rows, dict) else ():
            if isinstance(action, str):
                try:
                    action.encode("utf-8")
                except UnicodeEncodeError as e:
                    raise not_text_error("step", "action", int(index), e) from None
        raise


def not_text_error(op: str, what: str, index: int, e: UnicodeEncodeError) -> InvalidActionBatchError:
    """One env's value holds text that UTF-8 cannot carry (a lone surrogate): its own error, naming it."""
    return InvalidActionBatchError(
        "INVALID_ACTION_BATCH",
        f"{op}: the {what} for env {index} cannot be sent: it is not valid Unicode text ({e.reason} at position {e.start})",
        {"index": index},
    )
