"""Methods written once for a blocking and an asyncio owner: each op is a ``calls`` builder, bound here.

An ``op`` attribute turns a builder of one ``Call`` (or a ``plan_op`` one of a plan) into a method that
hands what it built to its owner's runner: ``run``/``drive`` of a ``Client``, which return the result,
or of an ``aio.AsyncClient``, which return an awaitable of it. The method body is the same for both;
only its type differs, and the ``Blocking``/``Awaiting`` marker of the owner says which it has. So the
clients and the two vector envs declare no op of their own.
"""

from __future__ import annotations

import os
from typing import (
    TYPE_CHECKING,
    Any,
    Awaitable,
    Callable,
    Concatenate,
    Dict,
    Generator,
    Generic,
    List,
    Optional,
    ParamSpec,
    Sequence,
    Tuple,
    TypeVar,
    Union,
    overload,
)

from . import calls, protocol
from ._contract import MakeReply
from .calls import Seed
from .local_server import LocalServer
from .python_envs import PythonEnvHost, PythonEnvSpec
from .session import Call, Session, SessionView, reregister

if TYPE_CHECKING:
    from .calls import Plan

P = ParamSpec("P")
T = TypeVar("T")
Steps = Generator[Call[Any], Any, T]
Ids = Union[str, Sequence[str]]


class Blocking:
    """Owners whose ops return their results (``runner`` runs a call, or drives a plan, to its end)."""


class Awaiting:
    """Owners whose ops return awaitables of their results."""


class _Bound(Generic[P, T]):
    def __init__(self, build: Callable[..., Any], owner: bool, plan: bool, doc: Optional[str]):
        self.build = build
        self.owner = owner  # build takes the owner first
        self.plan = plan
        self.__doc__ = doc
        self.name = ""

    def __set_name__(self, owner: Any, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: Any) -> "_Bound[P, T]": ...
    @overload
    def __get__(self, obj: Blocking, owner: Any) -> Callable[P, T]: ...
    @overload
    def __get__(self, obj: Awaiting, owner: Any) -> Callable[P, Awaitable[T]]: ...

    def __get__(self, obj: Any, owner: Any) -> Any:
        if obj is None:
            return self
        build, runner = self.build, obj._runner
        go = runner.drive if self.plan else runner.run
        if self.owner:
            method = lambda *args, **kwargs: go(build(obj, *args, **kwargs))  # noqa: E731
        else:
            method = lambda *args, **kwargs: go(build(*args, **kwargs))  # noqa: E731
        # Bound once per owner: later look-ups find it in the instance (this is a non-data descriptor).
        obj.__dict__[self.name] = method
        return method


def op(build: Callable[P, Call[T]]) -> _Bound[P, T]:
    """A method that sends the one request ``build`` makes from its arguments."""
    return _Bound(build, False, False, build.__doc__)


def owner_op(build: Callable[Concatenate[Any, P], Call[T]]) -> _Bound[P, T]:
    """Like ``op``, for a builder that reads its owner (the session's limits, a vector env's handle)."""
    return _Bound(build, True, False, build.__doc__)


def plan_op(build: Callable[Concatenate[Any, P], Steps[T]]) -> _Bound[P, T]:
    """A method that drives the plan ``build`` makes from its owner and arguments."""
    return _Bound(build, True, True, build.__doc__)


# ── the client ops ──────────────────────────────────────────────────────────────────────────────


def _make(client: Any, env_ids: Ids, **fields: Any) -> Call[MakeReply]:
    """The raw make op (``num_envs``, ``options``, ``wrappers``, …): the reply, its ``handle`` a ``Handle``."""
    return calls.make(client.session, env_ids, **fields)


def _reset(
    handle: int,
    *,
    seed: Seed = None,
    options: Union[None, Dict[str, Any], Sequence[Dict[str, Any]]] = None,
    indices: Optional[Sequence[int]] = None,
) -> Call[protocol.Rows]:
    rows: Call[protocol.Rows] = calls.reset(handle, seed=seed, options=options, indices=indices)
    return rows


def _step(client: Any, handle: int, indices: Sequence[int], actions: Sequence[str]) -> Call[protocol.Rows]:
    rows: Call[protocol.Rows] = calls.step(handle, indices, actions, client.session.inline_max_rows)
    return rows


def _close_handle(client: Any, handle: int) -> Steps[None]:
    return calls.close_handle(client.session, handle)


def _register_env(env_id: str, description: Optional[str] = None, defaults: Optional[Dict[str, Any]] = None) -> Call[None]:
    return calls.register_env(env_id, description, defaults, decode=lambda h, b: None)


def _register(client: Any, env_id: str, entry_point: Any, *, description: Optional[str] = None, **kwargs: Any) -> Steps[None]:
    """An env defined in Python, served from this process (see ``gem_ts.register``)."""
    client.python_envs.add(PythonEnvSpec(env_id, entry_point, dict(kwargs), description))
    yield calls.register_env(env_id, description)


class ClientOps(SessionView):
    """The ops of protocol v1, the same for ``Client`` and ``aio.AsyncClient``."""

    python_envs: PythonEnvHost

    @property
    def _runner(self) -> Any:
        return self

    ping = op(calls.ping)
    list_envs = op(calls.list_envs)
    spec = op(calls.spec)
    make_handle = owner_op(_make)
    reset = op(_reset)
    step = owner_op(_step)
    sample = op(calls.sample)
    close_handle = plan_op(_close_handle)
    #: ``name`` and a pyarrow Table, HF ``datasets.Dataset``, pandas frame, dict of columns, list of
    #: row dicts or an Arrow IPC stream (bytes); returns ``{name, rows, columns}``.
    register_dataset = op(calls.register_table)
    register_env = op(_register_env)
    register = plan_op(_register)
    stats = op(calls.stats)


class BlockingOps(ClientOps, Blocking):
    """A client whose ops block (``Client``): what the sync env objects are written against."""

    def run(self, call: Call[T]) -> T:
        raise NotImplementedError

    def drive(self, plan: "Plan") -> Any:
        raise NotImplementedError


class AwaitingOps(ClientOps, Awaiting):
    """A client whose ops are awaited (``aio.AsyncClient``)."""

    async def run(self, call: Call[T]) -> T:
        raise NotImplementedError

    async def drive(self, plan: "Plan") -> Any:
        raise NotImplementedError


# ── starting and ending ─────────────────────────────────────────────────────────────────────────


def open_session(
    endpoint: Optional[str],
    *,
    timeout: Optional[float] = None,
    liveness_timeout: Optional[float] = None,
    token: Optional[str] = None,
    server_args: Sequence[str] = (),
    client_info: Optional[Dict[str, Any]] = None,
) -> Tuple[Session, Optional[LocalServer], PythonEnvHost]:
    """A client's session: to ``endpoint``, else ``GEM_TS_ENDPOINT``, else to a local server started
    here (blocking: it waits for the server to listen). Nothing is connected yet."""
    endpoint = endpoint or os.environ.get("GEM_TS_ENDPOINT") or None
    local: Optional[LocalServer] = None
    if endpoint is None:
        local = LocalServer(tuple(server_args))
        endpoint = local.endpoint
    python_envs = PythonEnvHost()

    def local_problem() -> Optional[str]:
        if local is None or local.alive():
            return None
        return f"the local gem-ts server exited with code {local.proc.returncode}\n{local.stderr_tail()}"

    try:
        session = Session(
            endpoint,
            timeout=timeout,
            liveness_timeout=liveness_timeout,
            token=token,
            client_info=client_info,
            local_problem=local_problem if local else None,
            env_call_handler=python_envs.handle,
        )
    except BaseException:
        if local is not None:
            local.stop()
        raise
    session.on_new_boot = reregister(python_envs)
    return session, local, python_envs


def goodbye(session: Session) -> "Plan":
    """Frees the client's envs on the server, best effort (it frees an idle client's envs anyway); a
    forked child says nothing for its parent's session."""
    if session.closed or os.getpid() != session.pid:
        return None
    try:
        yield calls.close(timeout=2.0)
    except Exception:  # noqa: BLE001  (the connection may be gone already)
        pass
    return None


def shared_names() -> List[str]:
    """The op names both clients take from ``ClientOps`` (what the tests check neither redefines)."""
    return [k for k, v in vars(ClientOps).items() if isinstance(v, _Bound)]
