"""The asyncio client, for trainers that run many agent coroutines in one event loop.

    client = await gem_ts.aio.connect()                  # or AsyncClient.create(endpoint)
    pool = await client.make_vec("game:GuessTheNumber-v0-easy", num_envs=256)
    env = pool.env(7)                                     # one sub-env, for one agent coroutine
    obs, info = await env.reset(seed=7)
    obs, reward, terminated, truncated, info = await env.step(action)

Steps (and resets) of single sub-envs issued by many coroutines are coalesced: each call joins a
per-handle batch that is sent once per event-loop tick, so 256 agents stepping together cost one
message, not 256 round trips. A bad action fails only the coroutine that sent it. The requests and
their replies are the same ``calls`` the synchronous ``Client`` runs, over ``transport.AsyncTransport``
instead of a blocking socket: one protocol implementation (``session.Session``) for both.
"""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List, Optional, Sequence, Tuple, TypeVar, Union

from . import calls, protocol
from ._contract import MessageTooLargeError
from .calls import Plan, ResetOne, StepOne
from .errors import GemError
from .local_server import LocalServer
from .ops import Awaiting, AwaitingOps, open_session
from .ops import goodbye as _goodbye
from .python_envs import PythonEnvHost
from .session import Call, Session, not_text_error
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
        self._batches: Dict[Tuple[int, Optional[str]], _Coalescer] = {}

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
        """Steps one sub-env; calls made in the same event-loop tick travel as one batch."""
        return self._coalescer(handle).add("step", index, action)

    def reset_one(
        self, handle: int, index: int, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> "asyncio.Future[ResetOne]":
        return self._coalescer(handle).add("reset", index, (seed, options))

    def _coalescer(self, handle: int) -> "_Coalescer":
        # Keyed by boot too: a restarted server hands out the same ids again.
        key = (int(handle), getattr(handle, "boot_id", None))
        c = self._batches.get(key)
        if c is None:
            c = self._batches[key] = _Coalescer(self, handle)
        return c

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


_Item = Tuple[int, Any, "asyncio.Future[Any]"]

#: Bytes a message's own fields take beyond its actions (header, ids, msgpack or Arrow framing), and
#: each action beyond its text; generous, so a batch that is counted to fit does fit.
_MESSAGE_OVERHEAD = 1024
_PER_ACTION = 32


def _wire_bytes(kind: str, index: int, payload: Any) -> int:
    """What one env's step action or reset options add to a message, packed alone, so that a value
    that cannot be sent fails its own coroutine (naming its env) before it joins a batch."""
    try:
        if kind == "step":
            text: str = payload
            return (len(text) if text.isascii() else len(text.encode("utf-8"))) + _PER_ACTION
        return len(protocol.pack({"seed": payload[0], "options": payload[1]})) + _PER_ACTION
    except UnicodeEncodeError as e:
        raise not_text_error(kind, "action" if kind == "step" else "reset options", index, e) from None
    except TypeError as e:
        raise TypeError(f"{kind}: the options for env {index} cannot be sent: {e}") from None


def _too_large(kind: str, index: int, size: int, limit: int) -> MessageTooLargeError:
    return MessageTooLargeError(
        "MESSAGE_TOO_LARGE",
        f"{kind}: the {'action' if kind == 'step' else 'reset options'} for env {index} takes {size} bytes, more than one "
        f"message may hold on this server ({limit}, max_message_bytes; `gem-ts serve --max-message-bytes N` raises it)",
        {"index": index, "limit": "max_message_bytes", "value": size, "max": limit},
    )


class _Coalescer:
    """Collects single-env resets/steps of one handle and sends them once per loop tick."""

    def __init__(self, client: AsyncClient, handle: int):
        self.client = client
        self.handle = handle
        self.pending: List[Tuple[str, int, Any, "asyncio.Future[Any]", int]] = []
        self.scheduled = False

    def add(self, kind: str, index: int, payload: Any) -> "asyncio.Future[Any]":
        loop = asyncio.get_running_loop()
        fut: "asyncio.Future[Any]" = loop.create_future()
        try:
            if kind == "step":
                payload = calls.action_arg(payload, index)
            else:
                payload = (calls.seed_arg(payload[0]), payload[1])
                if isinstance(payload[0], list):
                    raise TypeError(f"reset: one env takes one seed, not {len(payload[0])}")
            size = _wire_bytes(kind, int(index), payload)
            limit = self._budget()
            if size > limit:
                raise _too_large(kind, int(index), size, limit + _MESSAGE_OVERHEAD)
        except (TypeError, ValueError, GemError) as e:
            fut.set_exception(e)  # only this coroutine's call was wrong
            return fut
        self.pending.append((kind, int(index), payload, fut, size))
        if not self.scheduled:
            self.scheduled = True
            loop.call_soon(self._flush)
        return fut

    def _budget(self) -> int:
        """The bytes of actions one message may carry (unbounded before the server said its limit)."""
        limit = self.client.session.limits.get("max_message_bytes") if self.client.session.limits else None
        return int(limit) - _MESSAGE_OVERHEAD if isinstance(limit, (int, float)) else 1 << 62

    def _flush(self) -> None:
        self.scheduled = False
        items, self.pending = self.pending, []
        budget = self._budget()
        # One batch per kind (and, for resets, seeded or not) as long as it fits in one message; an env
        # asked twice in one tick goes into a later batch (the server runs batches that share an env in
        # the order sent).
        batches: List[Tuple[Tuple[str, bool], List[_Item], List[int]]] = []
        for kind, index, payload, fut, size in items:
            key = (kind, kind == "reset" and payload[0] is not None)
            for k, batch, used in batches:
                if k == key and used[0] + size <= budget and all(b[0] != index for b in batch):
                    batch.append((index, payload, fut))
                    used[0] += size
                    break
            else:
                batches.append((key, [(index, payload, fut)], [size]))
        for (kind, _), batch, _used in batches:
            asyncio.ensure_future(self._send(kind, batch))

    def _call(self, kind: str, batch: List[_Item]) -> Call[Any]:
        indices = [b[0] for b in batch]
        if kind == "step":
            return calls.step(self.handle, indices, [b[1] for b in batch], self.client.session.inline_max_rows, calls.step_each)
        seeds = [b[1][0] for b in batch]
        options = [b[1][1] or {} for b in batch]
        return calls.reset(
            self.handle,
            seed=None if seeds[0] is None else seeds,
            options=options if any(options) else None,
            indices=indices,
            decode=calls.reset_each,
        )

    async def _send(self, kind: str, batch: List[_Item]) -> None:
        while batch:
            try:
                results = await self.client.run(self._call(kind, batch))
            except GemError as e:
                # A problem of one env (a bad action, a needed reset) fails that env's coroutine; the
                # server checked the whole batch before running any of it, so the rest go again.
                index = e.data.get("index") if isinstance(e.data, dict) else None
                culprit = [b for b in batch if b[0] == index] if len(batch) > 1 else []
                if not culprit:
                    _fail(batch, e)
                    return
                _fail(culprit, e)
                batch = [b for b in batch if b[0] != index]
                continue
            except BaseException as e:
                _fail(batch, e)
                return
            for (_, _, fut), result in zip(batch, results):
                if not fut.done():
                    fut.set_result(result)
            return


def _fail(batch: List[_Item], err: BaseException) -> None:
    for _, _, fut in batch:
        if not fut.done():
            fut.set_exception(err)


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
    """One sub-env with GEM's single-env API, awaited; steps coalesce with its siblings'."""

    def __init__(self, client: AsyncClient, handle: int, index: int, env_id: str, owns_handle: bool = False):
        self.client, self.handle, self.index, self.env_id = client, handle, index, env_id
        self._owns_handle = owns_handle

    async def reset(self, seed: Optional[int] = None, **kwargs: Any) -> ResetOne:
        return await self.client.reset_one(self.handle, self.index, seed, calls.reset_kwargs(kwargs) or None)

    async def step(self, action: str) -> StepOne:
        return await self.client.step_one(self.handle, self.index, action)

    async def sample_random_action(self) -> str:
        return (await self.client.sample(self.handle, [self.index]))[0]

    async def close(self) -> None:
        if self._owns_handle:
            await self.client.close_handle(self.handle)


async def connect(endpoint: Optional[str] = None, **kwargs: Any) -> AsyncClient:
    """``await gem_ts.aio.connect()``: an AsyncClient (local server when no endpoint is given)."""
    return await AsyncClient.create(endpoint, **kwargs)
