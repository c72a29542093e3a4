"""One trainer batch's episodes, reset together and stepped together: one server call per env config
per turn (an Arrow batch once it is large), whatever order the samples' coroutines reach the env in.

The per-sample path (`sessions.Episode` on leased sub-envs) coalesces whatever steps happen to land in
the same event-loop tick. A batch-level hook (verl's `agent_loop_manager_class`, the path NeMo Gym
takes) knows the whole batch up front, so it can do better: every live episode of the batch waits at a
barrier, and the turn's actions go to the server in one call per env config. The cost is lockstep: a
turn starts only when the batch's slowest generation of the previous turn has finished.

A sample that fails anywhere must `abort` the batch, so that its siblings raise instead of waiting
for it at the barrier forever.
"""
from __future__ import annotations

import asyncio
import contextvars
from collections import Counter
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .rows import EnvRow
from .sessions import EpisodeRecord, env_config, make_row_vec


class BatchAborted(RuntimeError):
    """Another episode of the same lockstep batch failed; this one cannot go on without it."""


class LockstepEpisode(EpisodeRecord):
    """One sample's episode in a `LockstepBatch`: the same surface as `sessions.Episode`."""

    def __init__(self, batch: "LockstepBatch", slot: int, row: EnvRow):
        self.batch, self.slot, self.row = batch, slot, row
        self.rewards: List[float] = []
        self.done = False
        self.last_info: Dict[str, Any] = {}

    async def _send(self, action: str) -> Any:
        return await self.batch._step(self.slot, action)  # answered once every live episode has sent

    def finish(self) -> None:
        """Leaves the batch (idempotent): the others stop waiting for this episode's actions."""
        if not self.done:
            self.done = True
            self.batch._leave(self.slot)


class LockstepBatch:
    """The episodes of `rows` (one per sample, in any order of arrival): `start` each one, `step`
    them, `finish` them; `close` frees the server handles. `calls` counts server calls by op."""

    def __init__(self, rows: Sequence[Any], tokenizer: Any = None):
        self.rows = [EnvRow.from_value(r) for r in rows]
        if not self.rows:
            raise ValueError("a lockstep batch needs at least one row")
        self.tokenizer = tokenizer
        self.calls: Counter = Counter()
        self.client: Any = None
        self._joined: Dict[int, asyncio.Future] = {}  # slot -> its reset result
        self._unclaimed = list(range(len(self.rows)))
        self._live: set = set()
        self._actions: Dict[int, Tuple[str, asyncio.Future]] = {}
        self._slot_env: Dict[int, Tuple[Any, int]] = {}  # slot -> (vector env, index in it)
        self._vecs: List[Any] = []
        self._error: Optional[BaseException] = None
        self._flushing = False

    # ── samples ───────────────────────────────────────────────────────────────────────────────────

    async def start(self, row: Any, client: Any) -> Tuple[LockstepEpisode, str]:
        """Joins the batch with one of its rows; returns once the whole batch has been reset."""
        self._raise_if_aborted()
        row = EnvRow.from_value(row)
        slot = next((s for s in self._unclaimed if self.rows[s] == row), None)
        if slot is None:
            raise ValueError(f"row {row.to_json()} is not one of this batch's rows (or every copy of it has started)")
        self._unclaimed.remove(slot)
        if self.client is None:
            self.client = client
        elif client is not self.client:
            raise ValueError("every episode of a lockstep batch must use the same client")
        future = asyncio.get_running_loop().create_future()
        self._joined[slot] = future
        self._live.add(slot)
        if not self._unclaimed:
            self._spawn(self._reset_all())
        observation, info = await future
        episode = LockstepEpisode(self, slot, row)
        episode.last_info = info
        return episode, observation

    @property
    def unstarted(self) -> int:
        """Rows no episode has started on yet (the batch resets once this is 0)."""
        return len(self._unclaimed)

    def abort(self, error: BaseException) -> None:
        """Fails every waiting and later call of the batch with `BatchAborted` (idempotent)."""
        if self._error is not None:
            return
        self._error = error
        failure = self._aborted()
        for future in self._joined.values():
            if not future.done():
                future.set_exception(failure)
        for _, future in self._actions.values():
            if not future.done():
                future.set_exception(failure)
        self._actions.clear()

    async def close(self) -> None:
        for vec in self._vecs:
            try:
                await vec.close()
            except Exception:  # the server may be gone; the handles die with it
                pass
        self._vecs.clear()

    # ── the barrier ───────────────────────────────────────────────────────────────────────────────

    async def _step(self, slot: int, action: str) -> Any:
        self._raise_if_aborted()
        future = asyncio.get_running_loop().create_future()
        self._actions[slot] = (action, future)
        self._maybe_flush()
        return await future

    def _leave(self, slot: int) -> None:
        self._live.discard(slot)
        self._maybe_flush()

    def _maybe_flush(self) -> None:
        if self._error is None and not self._flushing and self._actions and set(self._actions) >= self._live:
            batch, self._actions = self._actions, {}
            self._spawn(self._step_all(batch))

    def _spawn(self, work: Any) -> None:
        def failed(task: "asyncio.Future[Any]") -> None:
            error = None if task.cancelled() else task.exception()
            if error is not None:
                self.abort(error)

        asyncio.ensure_future(work).add_done_callback(failed)

    def _aborted(self) -> BatchAborted:
        return BatchAborted(f"another episode of this batch failed: {type(self._error).__name__}: {self._error}")

    def _raise_if_aborted(self) -> None:
        if self._error is not None:
            raise self._aborted()

    async def _reset_all(self) -> None:
        groups: Dict[Any, List[int]] = {}
        for slot in sorted(self._joined):
            groups.setdefault(env_config(self.rows[slot]), []).append(slot)
        for slots in groups.values():
            vec = await make_row_vec(self.client, self.rows[slots[0]], len(slots), self.tokenizer)
            self._vecs.append(vec)
            self.calls["make_vec"] += 1
            observations, infos = await vec.reset(seed=[self.rows[s].seed for s in slots])
            self.calls["reset"] += 1
            for index, slot in enumerate(slots):
                self._slot_env[slot] = (vec, index)
                future = self._joined[slot]
                if not future.done():
                    future.set_result((observations[index], infos[index]))

    async def _step_all(self, batch: Dict[int, Tuple[str, asyncio.Future]]) -> None:
        self._flushing = True
        try:
            by_vec: Dict[int, Tuple[Any, Dict[int, int]]] = {}
            for slot in batch:
                vec, index = self._slot_env[slot]
                by_vec.setdefault(id(vec), (vec, {}))[1][index] = slot
            for vec, slots_by_index in by_vec.values():
                order = sorted(slots_by_index)  # rows come back in the order the actions were sent
                actions = {index: batch[slots_by_index[index]][0] for index in order}
                try:
                    observations, rewards, terminated, truncated, infos = await vec.step(actions)
                except BaseException:
                    self._actions.update(batch)  # so that abort fails these waiters too
                    raise
                self.calls["step"] += 1
                for k, index in enumerate(order):
                    future = batch[slots_by_index[index]][1]
                    if not future.done():
                        future.set_result(
                            (observations[k], rewards[k], bool(terminated[k]), bool(truncated[k]), infos[k])
                        )
        finally:
            self._flushing = False
        # Episodes that finished on this turn may have left while the step was in flight.
        self._maybe_flush()


#: The lockstep batch of the running trainer batch, if a batch-level hook opened one; asyncio tasks
#: the hook creates inherit it, so a per-sample agent loop can find its batch without being told.
current_batch: "contextvars.ContextVar[Optional[LockstepBatch]]" = contextvars.ContextVar("gem_ts_lockstep_batch", default=None)
