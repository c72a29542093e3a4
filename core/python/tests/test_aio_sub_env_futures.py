"""gem_ts.aio's AsyncSubEnv.step and reset return the row's asyncio.Future, not a coroutine (issue 26:
a coroutine around each step cost a fifth of a coroutine's step). What users write with either still
works (await, gather, wait_for, ensure_future); the row joins its tick when the call is made; a bad
argument fails the future, is raised where it is awaited, and sends nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from aio_requests import count_requests

from gem_ts import aio

EASY = "game:GuessTheNumber-v0-easy"


def test_step_and_reset_return_futures_that_every_usual_await_takes(server) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            envs = [await c.make(EASY, max_turns=100) for _ in range(3)]
            resets = [e.reset(seed=i) for i, e in enumerate(envs)]
            assert all(isinstance(r, asyncio.Future) for r in resets)
            for obs, info in await asyncio.gather(*resets):
                assert obs.startswith("You are playing") and isinstance(info, dict)
            step = envs[0].step("\\boxed{1000}")
            assert isinstance(step, asyncio.Future) and asyncio.ensure_future(step) is step
            assert (await step)[1] == 0.0
            obs, reward, terminated, truncated, _ = await asyncio.wait_for(envs[1].step("\\boxed{1000}"), 30)
            assert isinstance(obs, str) and reward == 0.0 and not terminated and not truncated

            async def wrapped() -> Any:  # what create_task needs: a coroutine around the call
                return await envs[2].step("\\boxed{1000}")

            assert (await asyncio.create_task(wrapped()))[1] == 0.0

    asyncio.run(main())


def test_a_row_joins_its_tick_when_the_call_is_made(server) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            envs = [await c.make(EASY, max_turns=100) for _ in range(3)]
            await asyncio.gather(*[e.reset(seed=i) for i, e in enumerate(envs)])
            sent = count_requests(c)
            first = envs[0].step("\\boxed{1000}")  # asked, not awaited yet
            await asyncio.sleep(0)  # the tick's flush runs: the row leaves without anyone awaiting it
            assert sent == ["batch"]
            later = [e.step("\\boxed{1000}") for e in envs[1:]]
            results = [await first, *(await asyncio.gather(*later))]
            assert sent == ["batch", "batch"] and [r[1] for r in results] == [0.0, 0.0, 0.0]

    asyncio.run(main())


def test_bad_arguments_fail_the_future_and_send_nothing(server) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            env = await c.make(EASY)
            await env.reset(seed=0)
            sent = count_requests(c)
            bad_options = env.reset(options=["not", "a", "dict"])  # no raise at the call
            with pytest.raises(TypeError, match="options must be a dict"):
                await bad_options
            with pytest.raises(ValueError, match="given both"):
                await env.reset(idx=1, options={"idx": 2})
            with pytest.raises(TypeError):
                await env.step(42)  # type: ignore[arg-type]
            await asyncio.sleep(0)
            assert sent == []
            # The env is untouched and goes on.
            assert isinstance((await env.step("\\boxed{5}"))[0], str) and sent == ["batch"]

    asyncio.run(main())
