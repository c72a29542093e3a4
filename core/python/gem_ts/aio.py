"""The asyncio client, for trainers that run many agent coroutines in one event loop.

    client = await gem_ts.aio.connect()                  # or AsyncClient.create(endpoint)
    pool = await client.make_vec("game:GuessTheNumber-v0-easy", num_envs=256)
    env = pool.env(7)                                     # one sub-env, for one agent coroutine
    obs, info = await env.reset(seed=7)
    obs, reward, terminated, truncated, info = await env.step(action)

``env.step`` and ``env.reset`` return an ``asyncio.Future`` (see ``AsyncSubEnv``).

Steps (and resets) of single envs issued by many coroutines are coalesced across handles: every such
call of one event-loop tick joins one ``batch`` request, whichever ``make``'d env or ``make_vec``
sub-env it is for, so 256 agents stepping together cost one message, not 256 round trips. With many
rows out, a tick's rows leave in two parts as they fill, so the server steps one while this process
runs the coroutines of the other. The server runs each row through its handle's in-order queue and
answers each row on its own: a bad action, a closed env or an unknown handle fails only the
coroutine that asked, naming its env. The requests and their replies are the same ``calls`` the
synchronous ``Client`` runs, over ``transport.AsyncTransport`` instead of a blocking socket: one
protocol implementation (``session.Session``) for both.
"""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List, Optional, Sequence, Tuple, TypeVar, Union

from . import calls, protocol
from ._contract import MessageTooLargeError
from .calls import Plan, ResetOne, StepOne
from .errors import GemError, error_from_wire
from .local_server import LocalServer
from .ops import Awaiting, AwaitingOps, open_session
from .ops import goodbye as _goodbye
from .python_envs import PythonEnvHost
from .session import Call, Session, _no_body, not_text_error
from .transport import AsyncTransport
from .vector import VectorPlumbing

T = TypeVar("T")
Ids = Union[str, Sequence[str]]

__all__ = ["AsyncClient", "AsyncSubEnv", "AsyncVectorEnv", "connect"]


class AsyncClient(AwaitingOps):
    """One connection used from one event loop. Create it with ``await AsyncClient.create()``.

    Its ops (``ping``, ``reset``, ``step``, …) are ``ops.ClientOps``', shared with ``Client``; awaited here."""

    def __init__(self, session: Session, transport: AsyncTransport, local_server: Optional[LocalServer], python_envs: PythonEnvHost):
        self.session = session
        self.endpoint = session.endpoint
        self.local_server = local_server
        self.python_envs = python_envs
        self._transport = transport
        self._tick = _Tick(self)

    @classmethod
    async def create(
        cls,
        endpoint: Optional[str] = None,
        *,
        timeout: Optional[float] = None,
        liveness_timeout: Optional[float] = None,
        token: Optional[str] = None,
        server_args: Sequence[str] = (),
    ) -> "AsyncClient":
        # A local server takes a while to listen: wait for it off the event loop.
        session, local, python_envs = await asyncio.get_running_loop().run_in_executor(
            None,
            lambda: open_session(
                endpoint,
                timeout=timeout,
                liveness_timeout=liveness_timeout,
                token=token,
                server_args=server_args,
                client_info={"name": "gem_ts.aio"},
            ),
        )
        transport = AsyncTransport(session)
        try:
            await transport.start()
        except BaseException:
            session.closed = True
            await transport.close()
            if local is not None:
                local.stop()
            raise
        return cls(session, transport, local, python_envs)

    # ── running calls ─────────────────────────────────────────────────────────────────────────────

    async def run(self, call: Call[T]) -> T:
        return await self._transport.run(call)

    async def drive(self, plan: Plan) -> Any:
        """``calls.run_plan`` with awaits: results are sent into the plan, errors thrown into it."""
        p = calls.PlanRun(plan)
        while not p.done:
            p.send(*(await self._outcome(p.call)))
        return p.value

    async def _outcome(self, call: Any) -> Tuple[Any, Optional[BaseException]]:
        try:
            return await self._transport.run(call), None
        except Exception as e:
            return None, e

    # ── envs ──────────────────────────────────────────────────────────────────────────────────────

    async def make_vec(
        self,
        env_ids: Ids,
        wrappers: Optional[Sequence[Any]] = None,
        vec_kwargs: Optional[Sequence[Dict[str, Any]]] = None,
        async_mode: bool = False,
        seed: int = 0,
        *,
        num_envs: Optional[int] = None,
        autoreset_mode: Optional[str] = None,
        **kwargs: Any,
    ) -> "AsyncVectorEnv":
        """``gem_ts.make_vec``'s signature, awaited."""
        plan = calls.make_vec(self.session, env_ids, wrappers, vec_kwargs, async_mode, seed, num_envs, autoreset_mode, kwargs)
        return AsyncVectorEnv(self, await self.drive(plan))

    async def make(self, env_id: str, **kwargs: Any) -> "AsyncSubEnv":
        """One env (a handle of one, autoreset disabled), like ``gem_ts.make``."""
        info = await self.drive(calls.make_one(self.session, env_id, kwargs))
        return AsyncVectorEnv(self, info).env(0, owns_handle=True)

    # ── coalescing ────────────────────────────────────────────────────────────────────────────────

    def step_one(self, handle: int, index: int, action: str) -> "asyncio.Future[StepOne]":
        """Steps one env of any handle; the calls of one event-loop tick travel as one request."""
        return self._tick.add(handle, index, action)

    def reset_one(
        self, handle: int, index: int, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> "asyncio.Future[ResetOne]":
        return self._tick.add(handle, index, None, seed, options)

    # ── lifecycle ─────────────────────────────────────────────────────────────────────────────────

    async def close(self, goodbye: bool = True) -> None:
        if self.session.closed:
            return
        if goodbye:
            await self.drive(_goodbye(self.session))
        self.session.closed = True
        await self._transport.close()
        if self.local_server is not None:
            self.local_server.stop()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


#: Bytes a message's own fields take beyond its rows (header, framing), and each row beyond its action
#: text (handle, index, msgpack framing); generous, so a batch that is counted to fit does fit.
_MESSAGE_OVERHEAD = 1024
_PER_ROW = 48
#: Rows per batch message at most: the server answers a message in one go, so a huge tick travels as
#: several messages and other clients' requests get their turns between them.
_MAX_ROWS = 1024
#: A tick's rows leave in parts of half the rows its coroutines have out, at least this many (see ``_Tick``).
_MIN_PART_ROWS = 32
#: Actions shorter than this (and plain ASCII) are counted by their length alone.
_SHORT = 4096
_Future = asyncio.Future
_current_task = asyncio.current_task
#: Whether a future's done-callbacks can be read (``_callbacks``: CPython's C and Python futures), so
#: that a reply's reader may wake each waiting task itself (see ``_Batch._deliver``).
_WAKE_IN_TURN = hasattr(asyncio.Future, "_callbacks")


def _too_large(kind: str, index: int, size: int, limit: int) -> MessageTooLargeError:
    return MessageTooLargeError(
        "MESSAGE_TOO_LARGE",
        f"{kind}: the {'action' if kind == 'step' else 'reset options'} for env {index} takes {size} bytes, more than one "
        f"message may hold on this server ({limit}, max_message_bytes; `gem-ts serve --max-message-bytes N` raises it)",
        {"index": index, "limit": "max_message_bytes", "value": size, "max": limit},
    )


class _Rows:
    """Rows of one message (a row: one env's step, or its reset when its action is None), each as
    (handle, env index, action, the future of the coroutine that asked); a reset's seed and options
    aside, by row, since they are rare."""

    __slots__ = ("items", "reset_args", "used")

    def __init__(self) -> None:
        self.items: List[Tuple[int, int, Optional[str], "asyncio.Future[Any]"]] = []
        self.reset_args: Optional[Dict[int, Tuple[Any, Any]]] = None
        self.used = 0

    def call(self) -> Call[List[Any]]:
        handles, indices, actions, _ = zip(*self.items)
        seeds: Optional[List[Optional[int]]] = None
        options: Optional[List[Optional[Dict[str, Any]]]] = None
        if self.reset_args:
            n = len(self.items)
            if any(seed is not None for seed, _ in self.reset_args.values()):
                seeds = [None] * n
                for k, (seed, _) in self.reset_args.items():
                    seeds[k] = seed
            if any(opts for _, opts in self.reset_args.values()):
                options = [None] * n
                for k, (_, opts) in self.reset_args.items():
                    options[k] = opts
        return calls.batch(list(handles), list(indices), list(actions), seeds, options)

    def keep(self, keep: List[int]) -> "_Rows":
        out = _Rows()
        out.items = [self.items[k] for k in keep]
        if self.reset_args:
            out.reset_args = {j: self.reset_args[k] for j, k in enumerate(keep) if k in self.reset_args}
        return out


class _Tick:
    """The single-env steps and resets that a client's coroutines ask for, of any of its handles: sent
    as one ``batch`` request per event-loop tick, answered row by row, each row's outcome to the
    coroutine that asked. A tick of many rows leaves in parts as they fill (``part_rows``: half the
    rows out, so two parts take turns), so the server steps one part while this process runs the
    coroutines of the other: two cores at work, not one after the other. A tick whose rows do not fit
    in one message goes in several."""

    def __init__(self, client: AsyncClient):
        self.client = client
        self.rows = _Rows()
        #: Rows of this tick that filled a message already.
        self.full: List[_Rows] = []
        self.scheduled = False
        #: The server's limits the budget below was read from (they change only with a new hello).
        self._limits: Optional[Dict[str, Any]] = None
        self._budget = 1 << 62
        #: Rows sent and not answered yet, and the size of a part (set each tick from the rows out).
        self.in_flight = 0
        self.part_rows = 1 << 62

    def add(self, handle: int, index: int, action: Optional[str], seed: Any = None, options: Any = None) -> "asyncio.Future[Any]":
        """A row for the next message, and the future of its outcome; a row that cannot be sent gets a
        failed future at once."""
        if not self.scheduled:
            self.scheduled = True
            self.budget()  # read once a tick: the limits change only with a new hello
            asyncio.get_running_loop().call_soon(self.flush)
        if type(action) is str and len(action) < _SHORT and action.isascii():
            size = len(action) + _PER_ROW  # the common case: a short plain-text action
        elif action is None and seed is None and not options:
            size = _PER_ROW  # a reset with nothing to say
        else:
            try:
                if action is None:
                    seed = calls.seed_arg(seed)
                    if isinstance(seed, list):
                        raise TypeError(f"reset: one env takes one seed, not {len(seed)}")
                size = self._size(int(index), action, options)
            except (TypeError, ValueError, GemError) as e:
                return _failed(e)
        rows = self.rows
        items = rows.items
        if items and (rows.used + size > self._budget or len(items) >= _MAX_ROWS):
            self.full.append(rows)
            rows = self.rows = _Rows()
            items = rows.items
        rows.used += size
        if action is None and (seed is not None or options):
            if rows.reset_args is None:
                rows.reset_args = {}
            rows.reset_args[len(items)] = (seed, options)
        fut: "asyncio.Future[Any]" = _Future()
        items.append((handle, index, action, fut))
        if len(items) >= self.part_rows and not self.full:
            self.rows = _Rows()
            _Batch(self.client, rows).send()
        return fut

    def _size(self, index: int, action: Optional[str], options: Any) -> int:
        """What one env's row adds to a message (its action text, or its reset options packed alone)."""
        try:
            if action is not None:
                if type(action) is not str:
                    calls.action_arg(action, index)
                size = (len(action) if action.isascii() else len(action.encode("utf-8"))) + _PER_ROW
            else:
                size = (len(protocol.pack(options)) if options else 0) + _PER_ROW
        except UnicodeEncodeError as e:
            kind, what = ("step", "action") if action is not None else ("reset", "reset options")
            raise not_text_error(kind, what, index, e) from None
        except TypeError as e:
            if action is not None:
                raise
            raise TypeError(f"reset: the options for env {index} cannot be sent: {e}") from None
        budget = self.budget()
        if size > budget:
            raise _too_large("step" if action is not None else "reset", index, size, budget + _MESSAGE_OVERHEAD)
        return size

    def budget(self) -> int:
        """The bytes of rows one message may carry (unbounded before the server said its limit)."""
        limits = self.client.session.limits
        if limits is not self._limits:
            self._limits = limits
            limit = limits.get("max_message_bytes") if limits else None
            self._budget = int(limit) - _MESSAGE_OVERHEAD if isinstance(limit, (int, float)) else 1 << 62
        return self._budget

    def flush(self) -> None:
        self.scheduled = False
        full, rows = self.full, self.rows
        self.full, self.rows = [], _Rows()
        for r in full:
            _Batch(self.client, r).send()
        if rows.items:
            _Batch(self.client, rows).send()
        self.part_rows = max(_MIN_PART_ROWS, self.in_flight // 2)


class _Batch:
    """One ``batch`` request of a tick's rows, sent without a task when it can be (the fewest hops: the
    transport's reader hands the reply to the coroutines in the turn it reads it)."""

    __slots__ = ("client", "rows", "call", "out")

    def __init__(self, client: AsyncClient, rows: _Rows):
        self.client = client
        self.rows = rows
        #: Rows counted in the tick's ``in_flight`` until this batch ends.
        self.out = len(rows.items)
        client._tick.in_flight += self.out
        call: Call[Any] = rows.call()
        call.screen = self.screen
        # The reply goes straight to the coroutines, row by row (no list of outcomes in between).
        call.decode = self._deliver
        self.call = call

    def screen(self, session: Session) -> None:
        """Fails the rows the session will not send (a handle of a restarted server, an env whose state
        is unknown); the others go. Called by ``Session.admit`` just before the request leaves."""
        rows = self.rows
        if not session.unknown_state:
            boot = session.boot_id
            if {getattr(h, "boot_id", boot) for h in self.call.header["rows"]["handle"]} == {boot}:
                return  # the common case: every handle is of this server process, no env state unknown
        keep: List[int] = []
        for k, (h, i, action, fut) in enumerate(rows.items):
            problem = session.row_problem("step" if action is not None else "reset", h, i)
            if problem is None:
                keep.append(k)
            elif not fut.done():
                fut.set_exception(problem)
        if len(keep) == len(rows.items):
            return
        if not keep:
            raise _NothingToSend()
        self.rows = rows.keep(keep)
        self.call.header["rows"] = self.rows.call().header["rows"]

    def send(self) -> None:
        try:
            if self.client._transport.send_now(self.call, self._answered):
                return
        except _NothingToSend:
            self._ended()
            return
        except BaseException as e:
            self._fail(e)
            return
        asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        try:
            await self.client.run(self.call)
        except _NothingToSend:
            self._ended()
            return
        except BaseException as e:
            self._fail(e)

    def _ended(self) -> None:
        self.client._tick.in_flight -= self.out
        self.out = 0
        # The call points back here (decode, screen): with that loop cut, this batch, its rows and their
        # futures go as soon as they are delivered, not at the garbage collector's next pass over a
        # generation they were promoted to while in flight (a quarter of the client's time at 256 rows).
        self.call.decode = _no_body
        self.call.screen = None

    def _answered(self, reply: Optional[Tuple[Dict[str, Any], Optional[bytes]]], err: Optional[BaseException]) -> None:
        """The transport's reader (or watchdog) with the reply or the error that ended the request."""
        if reply is None:
            self._fail(err or RuntimeError("no reply"))
            return
        try:
            self.client.session.finish(self.call, *reply)
        except GemError as e:
            if self.client.session.hello_again(self.call, e):
                asyncio.ensure_future(self._run())  # says hello again first, then sends the rows again
            else:
                self._fail(e)
        except BaseException as e:
            self._fail(e)

    def _deliver(self, header: Dict[str, Any], body: Optional[bytes]) -> None:
        """The reply's decoder: each row's outcome to the coroutine that asked (GEM's step tuple, the
        reset pair, or the row's own error, naming its env)."""
        self._ended()
        r = header["rows"]
        errors = header.get("errors")
        if errors:
            for e in errors:
                fut = self.rows.items[int(e["row"])][3]
                if not fut.done():
                    fut.set_exception(error_from_wire(e))
        # Read by the socket's callback (no task running), each coroutine is woken here, in this turn
        # (the task's one done-callback taken off and run here: ``set_result`` would ``call_soon`` it).
        in_turn = _WAKE_IN_TURN and _current_task() is None
        for (_, _, action, fut), obs, reward, terminated, truncated, info in zip(
            self.rows.items, r["observation"], r["reward"], r["terminated"], r["truncated"], r["info"]
        ):
            if "past_end_warning" in info:
                calls.warn_past_end(info)
            value = (obs, info) if action is None else (obs, float(reward), terminated, truncated, info)
            callbacks = fut._callbacks if in_turn else None  # none left once done (cancelled, or failed above)
            if callbacks is not None and len(callbacks) == 1:
                callback, context = callbacks[0]
                fut.remove_done_callback(callback)
                fut.set_result(value)
                try:
                    context.run(callback, fut)
                except Exception as e:
                    _wake_failed(fut, e)
            elif not fut.done():
                fut.set_result(value)

    def _fail(self, err: BaseException) -> None:
        self._ended()
        for *_, fut in self.rows.items:
            if not fut.done():
                fut.set_exception(err)


def _failed(e: BaseException) -> "asyncio.Future[Any]":
    fut: "asyncio.Future[Any]" = _Future()
    fut.set_exception(e)
    return fut


def _wake_failed(fut: "asyncio.Future[Any]", e: Exception) -> None:
    # A task's wake-up never raises; a done-callback someone added may.
    fut.get_loop().call_exception_handler({"message": "a done-callback of a gem_ts.aio future failed", "exception": e, "future": fut})


class _NothingToSend(Exception):
    """Every row of a batch was refused before it left; each coroutine has its own error already."""


class AsyncVectorEnv(VectorPlumbing, Awaiting):
    """A vector env for asyncio code: whole-batch ``reset``/``step`` (awaited, as are the other
    ``VectorEnv`` ops) and per-env views (``env(i)``) whose steps coalesce."""

    client: AsyncClient

    def env(self, index: int, owns_handle: bool = False) -> "AsyncSubEnv":
        if not 0 <= index < self.num_envs:
            raise IndexError(f"env index {index} out of range for {self.num_envs} envs")
        return AsyncSubEnv(self.client, self.handle, index, self.env_ids[index], owns_handle)

    async def __aenter__(self) -> "AsyncVectorEnv":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class AsyncSubEnv:
    """One env with GEM's single-env API, awaited: a ``make``'d env or a sub-env of a vector env. Its
    steps and resets travel with those of every other env of the client asked in the same tick.

    ``step`` and ``reset`` return the row's ``asyncio.Future`` (as ``AsyncClient.step_one`` does), not a
    coroutine: the row joins the tick when the call is made, and ``await``, ``asyncio.gather``,
    ``asyncio.wait_for`` and ``asyncio.ensure_future`` take it as they take a coroutine.
    ``asyncio.create_task`` takes coroutines only: wrap the call (``async def``) or use ``ensure_future``.
    A coroutine around each step cost a fifth of a coroutine's whole step (issue 26)."""

    def __init__(self, client: AsyncClient, handle: int, index: int, env_id: str, owns_handle: bool = False):
        self.client, self.handle, self.index, self.env_id = client, handle, index, env_id
        self._owns_handle = owns_handle
        self._add = client._tick.add

    def reset(self, seed: Optional[int] = None, **kwargs: Any) -> "asyncio.Future[ResetOne]":
        """``(observation, info)``, awaited; options as GEM's envs take them (``reset(idx=i)``)."""
        try:
            options = calls.reset_kwargs(kwargs) or None if kwargs else None
        except (TypeError, ValueError) as e:
            return _failed(e)  # like every other bad argument: raised where the future is awaited
        return self._add(self.handle, self.index, None, seed, options)

    def step(self, action: str) -> "asyncio.Future[StepOne]":
        """``(observation, reward, terminated, truncated, info)``, awaited."""
        return self._add(self.handle, self.index, action)

    async def sample_random_action(self) -> str:
        return (await self.client.sample(self.handle, [self.index]))[0]

    async def close(self) -> None:
        if self._owns_handle:
            await self.client.close_handle(self.handle)


async def connect(endpoint: Optional[str] = None, **kwargs: Any) -> AsyncClient:
    """``await gem_ts.aio.connect()``: an AsyncClient (local server when no endpoint is given)."""
    return await AsyncClient.create(endpoint, **kwargs)
