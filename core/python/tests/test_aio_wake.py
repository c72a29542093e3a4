"""gem_ts.aio hands each row's outcome to its coroutine in the turn the reply is read (issue 26): the
waiting task is woken there, not a loop turn later; a reply read inside a task still wakes everyone
the usual way; a done-callback someone else added still runs, and one that raises reaches the loop's
exception handler without stopping the other rows; a delivered batch is freed at once, not by the
garbage collector."""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any, Dict, List

from gem_ts import aio

EASY = "game:GuessTheNumber-v0-easy"


async def _reset_envs(c: aio.AsyncClient, n: int) -> List[aio.AsyncSubEnv]:
    """n made envs (long games: a step of `\\boxed{1000}` never ends one), each reset."""
    envs = [await c.make(EASY, max_turns=100) for _ in range(n)]
    await asyncio.gather(*[e.reset(seed=i) for i, e in enumerate(envs)])
    return envs


def test_coroutines_wake_in_the_turn_their_reply_is_read(server) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            envs = await _reset_envs(c, 4)
            order: List[str] = []
            inside: List[List[str]] = []

            async def agent(k: int) -> None:
                await envs[k].step("\\boxed{1000}")
                order.append(f"agent {k}")

            readable = c._transport._readable

            def reading() -> None:
                before = len(order)
                readable()
                inside.append(order[before:])

            c._transport._readable = reading  # type: ignore[method-assign]
            c._transport.link.attach(asyncio.get_running_loop(), reading)
            await asyncio.gather(*[agent(k) for k in range(4)])
            # Every agent ran on within the reader's call that read its reply.
            assert [f"agent {k}" for k in range(4)] in inside, inside

    asyncio.run(main())


def test_a_reply_read_inside_a_task_wakes_its_coroutines_too(server) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            envs = await _reset_envs(c, 3)
            tasks_ran: List[int] = []
            run = c._transport.run

            async def through_a_task(call: Any) -> Any:
                tasks_ran.append(1)
                return await run(call)  # the reply is decoded inside this task

            c._transport.send_now = lambda call, on_reply: False  # type: ignore[method-assign,assignment]
            c._transport.run = through_a_task  # type: ignore[method-assign]
            for _ in range(3):
                results = await asyncio.wait_for(asyncio.gather(*[e.step("\\boxed{1000}") for e in envs]), 30)
                assert [r[1] for r in results] == [0.0, 0.0, 0.0]
            assert len(tasks_ran) == 3

    asyncio.run(main())


def test_other_done_callbacks_run_and_one_that_raises_stops_no_row(server) -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        reported: List[Dict[str, Any]] = []
        loop.set_exception_handler(lambda _loop, context: reported.append(context))
        async with await aio.connect(server.endpoint) as c:
            envs = await _reset_envs(c, 3)
            seen: List[float] = []

            def bad(fut: "asyncio.Future[Any]") -> None:
                raise RuntimeError("a callback that fails")

            futs = [c.step_one(e.handle, e.index, "\\boxed{1000}") for e in envs]
            futs[0].add_done_callback(lambda f: seen.append(f.result()[1]))
            futs[1].add_done_callback(bad)
            # The third is awaited by a task, as a coroutine's step is.
            third = await asyncio.wait_for(futs[2], 30)
            await asyncio.sleep(0)
            assert third[1] == 0.0 and seen == [0.0]
            assert futs[1].result()[1] == 0.0
            assert [type(r.get("exception")) for r in reported] == [RuntimeError]

    asyncio.run(main())


def test_a_cancelled_coroutine_leaves_the_others_their_results(server) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            envs = await _reset_envs(c, 3)
            tasks = [asyncio.ensure_future(e.step("\\boxed{1000}")) for e in envs]
            await asyncio.sleep(0)  # each task is waiting on its row
            tasks[1].cancel()
            done = await asyncio.gather(*tasks, return_exceptions=True)
            assert isinstance(done[1], asyncio.CancelledError)
            assert done[0][1] == 0.0 and done[2][1] == 0.0
            assert (await envs[1].step("\\boxed{1000}"))[1] == 0.0  # its env goes on

    asyncio.run(main())


def test_a_delivered_batch_is_freed_without_the_garbage_collector(server) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            pool = await c.make_vec(EASY, num_envs=8, seed=0)
            await pool.reset(seed=0)
            gc.collect()
            gc.disable()
            try:
                futs = [c.step_one(pool.handle, i, "\\boxed{3}") for i in range(8)]
                results = await asyncio.gather(*futs)
                assert len(results) == 8
                refs = [weakref.ref(f) for f in futs]
                del futs
                await asyncio.sleep(0)  # this coroutine ran on inside the reader's call: let that return
                # Its rows held these futures; with no reference loop left, they go with the batch.
                assert [r() for r in refs] == [None] * 8
            finally:
                gc.enable()
            await pool.close()

    asyncio.run(main())
