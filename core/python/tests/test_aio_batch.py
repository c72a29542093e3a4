"""gem_ts.aio's cross-handle batches (issue 26): one request per event-loop tick for the steps and
resets of every env a client's coroutines hold, answered row by row. Each test sends something bad
among good rows and checks that only its own coroutine fails, with an error naming its env."""

from __future__ import annotations

import asyncio
from typing import Any, List

import gem_ts as gem
from aio_requests import count_requests

from gem_ts import aio
from gem_ts.session import Handle

EASY = "game:GuessTheNumber-v0-easy"
OUT_OF_RANGE = "\\boxed{1000}"  # a valid guess that never ends an episode


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def _own_envs(c: aio.AsyncClient, n: int) -> List[aio.AsyncSubEnv]:
    envs = [await c.make(EASY, max_turns=100) for _ in range(n)]
    await asyncio.gather(*[e.reset(seed=i) for i, e in enumerate(envs)])
    return envs


def _stepped(results: List[Any], bad: int) -> None:
    for i, r in enumerate(results):
        if i != bad:
            assert not isinstance(r, BaseException), f"env {i} failed with {r!r}"
            assert isinstance(r[0], str) and type(r[1]) is float


def test_an_unknown_handle_in_a_batch_fails_only_its_coroutine(server) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            envs = await _own_envs(c, 6)
            ghost = aio.AsyncSubEnv(c, c.session.handle(987654, 1), 0, EASY)
            sent = count_requests(c)
            results = await asyncio.gather(
                *[e.step(OUT_OF_RANGE) for e in envs[:3]],
                ghost.step(OUT_OF_RANGE),
                *[e.step(OUT_OF_RANGE) for e in envs[3:]],
                return_exceptions=True,
            )
            assert sent == ["batch"]
            err = results[3]
            assert isinstance(err, gem.UnknownHandleError), repr(err)
            assert "env 0 of handle 987654" in str(err) and err.data == {"handle": 987654, "index": 0}
            _stepped(results, 3)

    run(main())


def test_a_closed_env_fails_only_its_own_steps(server) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            envs = await _own_envs(c, 5)
            # The close is queued before the steps of the same tick: the server runs it first.
            closing = asyncio.ensure_future(envs[2].close())
            await asyncio.sleep(0)
            results = await asyncio.gather(*[e.step(OUT_OF_RANGE) for e in envs], return_exceptions=True)
            await closing
            err = results[2]
            assert isinstance(err, gem.UnknownHandleError) and f"handle {int(envs[2].handle)}" in str(err), repr(err)
            _stepped(results, 2)
            # The others keep going, batched as before.
            again = await asyncio.gather(*[e.step(OUT_OF_RANGE) for i, e in enumerate(envs) if i != 2])
            assert all("turn 2," in r[0] for r in again)

    run(main())


def test_a_row_that_needs_a_reset_or_a_wrong_action_type_fails_alone(server) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            envs = await _own_envs(c, 4)
            fresh = await c.make(EASY)  # never reset: autoreset is disabled for a make'd env
            results = await asyncio.gather(
                envs[0].step(OUT_OF_RANGE),
                fresh.step(OUT_OF_RANGE),
                envs[1].step(42),  # type: ignore[arg-type]
                *[e.step(OUT_OF_RANGE) for e in envs[2:]],
                return_exceptions=True,
            )
            assert isinstance(results[1], gem.ResetNeededError) and "needs a reset" in str(results[1]), repr(results[1])
            assert results[1].data["index"] == 0 and results[1].data["handle"] == int(fresh.handle)
            assert isinstance(results[2], TypeError) and "env 0" in str(results[2])
            for r in (results[0], *results[3:]):
                assert "turn 1," in r[0]

    run(main())


def test_an_env_that_fails_while_stepping_fails_only_its_coroutine(server) -> None:
    class Fragile(gem.Env):
        def reset(self, seed=None, **kwargs):
            return "ready", {}

        def step(self, action):
            if action == "boom":
                raise RuntimeError("the env broke")
            return f"ok {action}", 1.0, False, False, {}

    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            await c.register("py:AioFragile-v0", Fragile)
            pool = await c.make_vec("py:AioFragile-v0", num_envs=4, autoreset_mode="disabled")
            await pool.reset()
            own = await c.make("py:AioFragile-v0")
            await own.reset()
            subs = [pool.env(i) for i in range(4)]
            results = await asyncio.gather(
                subs[0].step("a"), subs[1].step("boom"), own.step("c"), subs[2].step("d"), subs[3].step("e"), return_exceptions=True
            )
            err = results[1]
            assert isinstance(err, gem.GemError) and "env 1 of handle" in str(err) and "the env broke" in str(err), repr(err)
            assert [r[0] for i, r in enumerate(results) if i != 1] == ["ok a", "ok c", "ok d", "ok e"]

    run(main())


def test_one_oversized_action_among_good_ones_fails_alone(strict_server) -> None:
    async def main() -> None:
        async with await aio.connect(strict_server.endpoint) as c:  # two handles at most there
            pool = await c.make_vec(EASY, num_envs=4, autoreset_mode="disabled", max_turns=100)
            envs = [*await _own_envs(c, 1), *(pool.env(i) for i in range(4))]
            await asyncio.gather(*[e.reset(seed=0) for e in envs[1:]])
            sent = count_requests(c)
            results = await asyncio.gather(
                *[e.step("x" * 200_000 if i == 1 else OUT_OF_RANGE) for i, e in enumerate(envs)], return_exceptions=True
            )
            err = results[1]
            assert isinstance(err, gem.LimitExceededError) and err.code == "MESSAGE_TOO_LARGE" and "env 0" in str(err), repr(err)
            _stepped(results, 1)
            assert sent == ["batch"]

    run(main())


def test_rows_the_client_refuses_never_leave_and_the_rest_do(server) -> None:
    """A handle of an earlier server process, or an env whose state is unknown after a lost request, is
    refused row by row as the batch leaves; a reset of that env clears it."""

    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            envs = await _own_envs(c, 3)
            h = envs[0].handle
            stale = aio.AsyncSubEnv(c, Handle(int(envs[1].handle), "an-earlier-boot", 1), 0, EASY)
            c.session.unknown_state[int(h)] = {0}
            results = await asyncio.gather(
                envs[0].step(OUT_OF_RANGE), stale.step(OUT_OF_RANGE), envs[2].step(OUT_OF_RANGE), return_exceptions=True
            )
            assert isinstance(results[0], gem.ResetNeededError) and "unknown" in str(results[0]), repr(results[0])
            assert isinstance(results[1], gem.UnknownHandleError) and "restarted" in str(results[1]), repr(results[1])
            assert "turn 1," in results[2][0]
            await envs[0].reset(seed=0)
            assert int(h) not in c.session.unknown_state
            assert "turn 1," in (await envs[0].step(OUT_OF_RANGE))[0]

    run(main())


def test_a_killed_server_fails_every_waiting_coroutine_and_marks_their_envs() -> None:
    async def main() -> None:
        c = await aio.connect(liveness_timeout=5.0)
        envs = await _own_envs(c, 4)
        c.local_server.proc.kill()
        results = await asyncio.wait_for(asyncio.gather(*[e.step(OUT_OF_RANGE) for e in envs], return_exceptions=True), 15)
        assert all(isinstance(r, gem.ServerUnavailableError) for r in results), results
        # Each step may or may not have run: every env's state is unknown now, row by row.
        assert all(c.session.unknown_state.get(int(e.handle)) == {0} for e in envs), c.session.unknown_state
        await c.close(goodbye=False)

    run(main())


def test_a_tick_larger_than_one_message_goes_as_several(strict_server) -> None:
    async def main() -> None:
        async with await aio.connect(strict_server.endpoint) as c:  # 64 KiB messages, 2 handles of 16 envs
            pools = [await c.make_vec(EASY, num_envs=16, autoreset_mode="disabled", max_turns=100) for _ in range(2)]
            await asyncio.gather(*[p.reset(seed=0) for p in pools])
            sent = count_requests(c)
            action = OUT_OF_RANGE + " " * 4000  # 32 × ~4 kB > 64 KiB
            results = await asyncio.gather(*[p.env(i).step(action) for p in pools for i in range(16)])
            assert all("turn 1," in r[0] for r in results)
            assert set(sent) == {"batch"} and 2 <= len(sent) <= 3, sent

    run(main())
