"""gem_ts.aio, one coroutine alone (issue 26): its step leaves in the very next event-loop turn, with
no timer or batching window before it and no task or executor hop around it, while the rows asked in
one turn still travel as one request. Counted in loop turns and requests, never in time."""

from __future__ import annotations

import asyncio
from typing import Any, List

from gem_ts import aio

EASY = "game:GuessTheNumber-v0-easy"


def _count(c: aio.AsyncClient) -> List[str]:
    """Every request the client frames from now on, and ``run`` (the task path) as 'run'."""
    seen: List[str] = []
    frame, run = c.session.frame, c._transport.run

    def counting_frame(call: Any, now: float) -> Any:
        seen.append(call.op)
        return frame(call, now)

    async def counting_run(call: Any) -> Any:
        seen.append("run")
        return await run(call)

    c.session.frame = counting_frame  # type: ignore[method-assign]
    c._transport.run = counting_run  # type: ignore[method-assign]
    return seen


def test_a_lone_step_leaves_in_the_next_loop_turn_without_a_task(server) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            env = await c.make(EASY, max_turns=100)
            await env.reset(seed=0)
            seen = _count(c)
            fut = c.step_one(env.handle, env.index, "\\boxed{1000}")
            assert seen == []  # gathered for this turn, not sent from inside the call
            await asyncio.sleep(0)  # one loop turn: the flush scheduled by the step has run
            assert seen == ["batch"]
            obs, reward, terminated, truncated, _ = await fut
            assert isinstance(obs, str) and reward == 0.0 and not terminated and not truncated
            assert seen == ["batch"]  # answered by the reader's callback: no task ran the call

    asyncio.run(main())


def test_steps_asked_in_one_turn_still_travel_as_one_request(server) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            envs = [await c.make(EASY, max_turns=100) for _ in range(3)]
            await asyncio.gather(*[e.reset(seed=i) for i, e in enumerate(envs)])
            seen = _count(c)
            results = await asyncio.gather(*[e.step("\\boxed{1000}") for e in envs])
            assert seen == ["batch"]
            assert all(r[1] == 0.0 for r in results)

    asyncio.run(main())
