"""Per-sample env episodes for async trainers (verl, OpenRLHF, RL2), sharing vector handles.

These trainers run one coroutine per sample, hundreds at once in one event loop. Making a server
handle per sample would cost a round trip each and send every step alone; instead each coroutine
leases one sub-env of a shared vector handle (one per env config, grown in blocks), so the gem_ts
asyncio client coalesces the steps of all samples of a tick into one message.
"""
from __future__ import annotations

import asyncio
import json
import os
import weakref
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import gem_ts
import gem_ts.aio
from gem_ts.wrappers import get_wrapper_fns

from .rows import EnvRow

_Config = Tuple[str, str, Tuple[str, ...]]


def env_config(row: EnvRow) -> _Config:
    """The rows that can share one vector env: same env id, options and wrappers (seeds may differ)."""
    return (row.env_id, json.dumps(row.options, sort_keys=True), tuple(row.wrappers))


async def make_row_vec(client: Any, row: EnvRow, num_envs: int, tokenizer: Any = None) -> Any:
    """A vector env of `num_envs` copies of `row`'s env config, autoreset off (the trainer resets)."""
    wrappers = get_wrapper_fns(",".join(row.wrappers), tokenizer=tokenizer) if row.wrappers else None
    return await client.make_vec(row.env_id, wrappers=wrappers, num_envs=num_envs, autoreset_mode="disabled", **row.options)


class _Block:
    def __init__(self, vec: Any):
        self.vec = vec
        self.free = list(range(vec.num_envs - 1, -1, -1))


class EnvLeases:
    """Leases sub-envs of shared vector handles; one instance per event loop (see `for_loop`)."""

    def __init__(self, client: Any, block_size: int = 64, tokenizer: Any = None):
        if block_size < 1:
            raise ValueError(f"block_size must be >= 1, got {block_size}")
        self.client = client
        self.block_size = block_size
        self.tokenizer = tokenizer
        self._blocks: Dict[_Config, List[_Block]] = {}
        self._lock = asyncio.Lock()

    async def acquire(self, row: EnvRow) -> Tuple[_Block, int]:
        key = env_config(row)
        async with self._lock:
            blocks = self._blocks.setdefault(key, [])
            for block in blocks:
                if block.free:
                    return block, block.free.pop()
            block = _Block(await make_row_vec(self.client, row, self.block_size, self.tokenizer))
            blocks.append(block)
            return block, block.free.pop()

    @staticmethod
    def release(block: _Block, index: int) -> None:
        block.free.append(index)

    async def close(self) -> None:
        for blocks in self._blocks.values():
            for block in blocks:
                await block.vec.close()
        self._blocks.clear()


_per_loop: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Future]" = weakref.WeakKeyDictionary()


#: The name of a `gem_ts.ray.EnvServerPool` whose node-local server the trainer's workers use.
RAY_POOL_VAR = "GEM_TS_RAY_POOL"


def node_local_server(pool_name: str) -> Tuple[str, str]:
    """`(endpoint, token)` of `pool_name`'s server on this Ray node (another live one if it has none)."""
    from gem_ts.ray import EnvServerPool

    pool = EnvServerPool.get(pool_name)
    return str(pool.pick()["endpoint"]), pool.token


async def leases_for_loop(
    endpoint: Optional[str] = None, block_size: int = 64, tokenizer: Any = None, *, ray_pool: Optional[str] = None
) -> EnvLeases:
    """The `EnvLeases` of the running event loop, connecting on first use: to `endpoint`, else to the
    node-local server of the Ray pool `ray_pool` (or GEM_TS_RAY_POOL), else GEM_TS_ENDPOINT, else a
    local server. A trainer worker keeps one loop, so this is one client per worker."""
    if ray_pool and endpoint:
        raise ValueError(f"give either endpoint ({endpoint}) or ray_pool ({ray_pool}), not both")
    loop = asyncio.get_running_loop()
    fut = _per_loop.get(loop)
    if fut is None:
        fut = _per_loop[loop] = loop.create_future()
        try:
            token = None
            pool_name = ray_pool or (None if endpoint else os.environ.get(RAY_POOL_VAR))
            if pool_name:
                endpoint, token = await loop.run_in_executor(None, node_local_server, pool_name)
            client = await gem_ts.aio.connect(endpoint, token=token)
        except BaseException as err:
            _per_loop.pop(loop, None)
            fut.set_exception(err)
            raise
        fut.set_result(EnvLeases(client, block_size, tokenizer))
    return await asyncio.shield(fut)


async def close_loop_leases() -> None:
    """Closes the running loop's client and handles (tests and dry runs call this before the loop ends)."""
    fut = _per_loop.pop(asyncio.get_running_loop(), None)
    if fut is not None and fut.done() and not fut.exception():
        leases: EnvLeases = fut.result()
        await leases.close()
        await leases.client.close()


class EpisodeRecord:
    """What every kind of episode keeps (the rewards so far, done, the last info) and its step rule;
    a kind says how an action reaches the env (`_send`) and how it lets go of it (`finish`)."""

    rewards: List[float]
    done: bool
    last_info: Dict[str, Any]

    async def _send(self, action: str) -> Any:
        raise NotImplementedError

    def finish(self) -> None:
        raise NotImplementedError

    async def step(self, action: str) -> Tuple[str, float, bool]:
        """(observation, reward, done) for one action; done = terminated or truncated."""
        if self.done:
            raise RuntimeError("step() on a finished episode")
        observation, reward, terminated, truncated, info = await self._send(action)
        self.rewards.append(float(reward))
        self.last_info = info
        if terminated or truncated:
            self.finish()
        return observation, float(reward), bool(terminated or truncated)

    @property
    def total_reward(self) -> float:
        return float(sum(self.rewards))

    @property
    def turns(self) -> int:
        return len(self.rewards)


@dataclass
class Episode(EpisodeRecord):
    """One sample's episode on a leased sub-env: reset, step with the model's text, the rewards so far."""

    row: EnvRow
    leases: EnvLeases
    rewards: List[float] = field(default_factory=list)
    done: bool = False
    last_info: Dict[str, Any] = field(default_factory=dict)
    _block: Any = None
    _index: int = -1

    @classmethod
    async def start(cls, row: Any, leases: Optional[EnvLeases] = None) -> Tuple["Episode", str]:
        """Leases an env, resets it with the row's seed, returns the episode and first observation."""
        row = EnvRow.from_value(row)
        leases = leases or await leases_for_loop()
        block, index = await leases.acquire(row)
        episode = cls(row, leases, _block=block, _index=index)
        try:
            observation, info = await leases.client.reset_one(block.vec.handle, index, row.seed)
        except BaseException:
            episode.finish()
            raise
        episode.last_info = info
        return episode, observation

    async def _send(self, action: str) -> Any:
        return await self.leases.client.step_one(self._block.vec.handle, self._index, action)

    def finish(self) -> None:
        """Gives the env back (idempotent). Call it when a trainer stops an episode early too."""
        self.done = True
        if self._block is not None:
            self.leases.release(self._block, self._index)
            self._block = None
