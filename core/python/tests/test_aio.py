"""gem_ts.aio: many agent coroutines in one event loop, their single-env steps coalesced per tick."""

from __future__ import annotations

import asyncio
import random

import numpy as np
import pytest

import gem_ts as gem
from aio_requests import count_requests

from gem_ts import aio

EASY = "game:GuessTheNumber-v0-easy"


def run(coro):
    return asyncio.run(coro)


def test_agents_in_one_loop_share_batches(server) -> None:
    async def main():
        async with await aio.connect(server.endpoint) as c:
            pool = await c.make_vec(EASY, num_envs=32, autoreset_mode="disabled")
            sent = count_requests(c)

            async def agent(i: int) -> float:
                env = pool.env(i)
                obs, info = await env.reset(seed=i)
                assert obs.startswith("You are playing") and info["suffix"]
                rng = random.Random(i)
                for _ in range(4):
                    obs, reward, terminated, truncated, info = await env.step(f"\\boxed{{{rng.randint(1, 10)}}}")
                    assert type(reward) is float and type(terminated) is bool
                    if terminated or truncated:
                        return reward
                return 0.0

            rewards = await asyncio.gather(*[agent(i) for i in range(32)])
            assert len(rewards) == 32
            # 32 agents: one reset tick and at most 4 step ticks, one message each.
            assert sent[0] == "batch" and set(sent) == {"batch"} and 2 <= len(sent) <= 5, sent
            await pool.close()

    run(main())


def test_coroutines_of_many_handles_share_one_request_per_tick(server) -> None:
    """Each coroutine holds its own make'd env (its own handle), or a sub-env of a make_vec: every
    reset and every step round of all of them is one request, counted as it leaves the client."""

    async def main():
        async with await aio.connect(server.endpoint) as c:
            own = [await c.make(EASY, max_turns=100) for _ in range(24)]
            pool = await c.make_vec(EASY, num_envs=8, autoreset_mode="disabled", max_turns=100)
            envs = own + [pool.env(i) for i in range(8)]
            before = (await c.stats())["client"]["requests"]
            sent = count_requests(c)
            resets = await asyncio.gather(*[e.reset(seed=i) for i, e in enumerate(envs)])
            assert sent == ["batch"] and all(obs.startswith("You are playing") for obs, _ in resets)
            for turn in range(3):  # guesses out of range: no episode ends
                steps = await asyncio.gather(*[e.step(f"\\boxed{{{1000 + turn}}}") for e in envs])
                assert all(f"turn {turn + 1}," in r[0] and not r[2] for r in steps), steps
            assert sent == ["batch"] * 4, sent
            # The server counted the same: 4 requests for 32 envs × 4 calls, and this stats request.
            assert (await c.stats())["client"]["requests"] - before == 5
            # Same results as each env alone.
            alone = await c.make(EASY, max_turns=100)
            obs, _ = await alone.reset(seed=3)
            assert obs == resets[3][0]
            for e in [*own, alone]:
                await e.close()
            await pool.close()

    run(main())


def test_a_tick_of_many_rows_leaves_in_two_parts_once_rows_are_out(server) -> None:
    """With rows out, a tick's rows leave in parts of half as they fill, so the server steps one part
    while the client runs the coroutines of the other; each row still gets its own answer, in order."""

    async def main():
        async with await aio.connect(server.endpoint) as c:
            pool = await c.make_vec(EASY, num_envs=128, autoreset_mode="disabled", max_turns=100)
            await pool.reset(seed=0)
            sent = count_requests(c)
            parts: list = []
            send = c._transport.send_now
            c._transport.send_now = lambda call, cb: parts.append(len(call.header["rows"]["handle"])) or send(call, cb)
            first = await asyncio.gather(*[pool.env(i).step("\\boxed{1000}") for i in range(128)])
            assert c._tick.part_rows == 64 and c._tick.in_flight == 0
            second = await asyncio.gather(*[pool.env(i).step("\\boxed{1001}") for i in range(128)])
            assert sent == ["batch"] * 3 and parts == [128, 64, 64], (sent, parts)
            assert all("turn 1," in r[0] for r in first) and all("turn 2," in r[0] for r in second)
            # The same as one env at a time.
            alone = await c.make_vec(EASY, num_envs=128, autoreset_mode="disabled", max_turns=100)
            await alone.reset(seed=0)
            for i in (0, 63, 64, 127):
                await alone.env(i).step("\\boxed{1000}")
                assert (await alone.env(i).step("\\boxed{1001}")) == second[i]
            # A few coroutines never split: a part is 32 rows at least.
            c._tick.in_flight = 0
            parts.clear()
            await asyncio.gather(*[pool.env(i).step("\\boxed{1002}") for i in range(20)])
            await asyncio.gather(*[pool.env(i).step("\\boxed{1003}") for i in range(20)])
            assert parts == [20, 20] and c._tick.in_flight == 0

    run(main())


def test_rows_out_are_counted_back_whatever_ends_them(server) -> None:
    """The part size comes from the rows out: failed, refused and cancelled rows are counted back."""

    async def main():
        async with await aio.connect(server.endpoint) as c:
            pool = await c.make_vec(EASY, num_envs=4, autoreset_mode="disabled", max_turns=100)
            await pool.reset(seed=0)
            ghost = aio.AsyncSubEnv(c, c.session.handle(987654, 1), 0, EASY)
            results = await asyncio.gather(
                ghost.step("\\boxed{1}"), pool.env(0).step(7), pool.env(1).step("\\boxed{1}"), return_exceptions=True
            )
            assert isinstance(results[0], gem.UnknownHandleError) and isinstance(results[1], TypeError), results
            assert c._tick.in_flight == 0
            task = asyncio.ensure_future(pool.env(2).step("\\boxed{1}"))
            await asyncio.sleep(0)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            assert "turn 2," in (await pool.env(2).step("\\boxed{1}"))[0]  # the cancelled step ran: in order
            assert c._tick.in_flight == 0
            c.session.unknown_state[int(pool.handle)] = {3}  # refused as it leaves: never sent
            with pytest.raises(gem.ResetNeededError):
                await pool.env(3).step("\\boxed{1}")
            assert c._tick.in_flight == 0

    run(main())


def test_a_handle_of_another_server_process_is_refused_alone(server) -> None:
    """A handle that carries another boot (made before a restart, or unpickled from a client of another
    server) never reaches this server, where its id could name another env; its siblings step."""
    from gem_ts.session import Handle

    async def main():
        async with await aio.connect(server.endpoint) as c:
            pool = await c.make_vec(EASY, num_envs=2, autoreset_mode="disabled", max_turns=100)
            await pool.reset(seed=0)
            foreign = aio.AsyncSubEnv(c, Handle(int(pool.handle), "another-boot", 2), 1, EASY)
            assert not c.session.unknown_state
            ok, refused = await asyncio.gather(pool.env(0).step("\\boxed{1000}"), foreign.step("\\boxed{1000}"), return_exceptions=True)
            assert "turn 1," in ok[0]
            assert isinstance(refused, gem.UnknownHandleError) and "restarted" in str(refused), refused
            assert "turn 1," in (await pool.env(1).step("\\boxed{1000}"))[0]  # env 1 was never stepped by it

    run(main())


def test_coalesced_results_match_one_by_one_results(server) -> None:
    async def main():
        async with await aio.connect(server.endpoint) as c:
            a = await c.make_vec(EASY, num_envs=8, autoreset_mode="disabled")
            b = await c.make_vec(EASY, num_envs=8, autoreset_mode="disabled")
            together = await asyncio.gather(*[a.env(i).reset(seed=100 + i) for i in range(8)])
            one_by_one = [await b.env(i).reset(seed=100 + i) for i in range(8)]
            assert together == one_by_one
            s1 = await asyncio.gather(*[a.env(i).step("\\boxed{5}") for i in range(8)])
            s2 = [await b.env(i).step("\\boxed{5}") for i in range(8)]
            assert s1 == s2

    run(main())


def test_the_same_env_twice_in_one_tick_runs_in_order(server) -> None:
    async def main():
        async with await aio.connect(server.endpoint) as c:
            pool = await c.make_vec(EASY, num_envs=1, autoreset_mode="disabled", max_turns=5)
            env = pool.env(0)
            await env.reset(seed=3)
            first, second = await asyncio.gather(env.step("\\boxed{1}"), env.step("\\boxed{2}"))
            assert "turn 1" in first[0] and "turn 2" in second[0]

    run(main())


def test_whole_batch_api_and_errors(server) -> None:
    async def main():
        async with await aio.connect(server.endpoint) as c:
            venv = await c.make_vec([EASY, "game:GuessTheNumber-v0-hard"], wrappers=gem.wrappers.get_wrapper_fns("episode_tracking"))
            obs, infos = await venv.reset(seed=1)
            assert len(obs) == 2 and infos[0]["step_counter"] == 0
            obs, rewards, terminated, truncated, infos = await venv.step({1: "\\boxed{25}"})
            assert isinstance(rewards, np.ndarray) and rewards.shape == (1,)
            with pytest.raises(gem.GemError) as e:
                await c.make_vec("game:Nope-v0")
            assert e.value.code == "UNKNOWN_ENV"
            with pytest.raises(gem.GemError) as e:
                await c.step(venv.handle, [5], ["x"])
            assert e.value.code == "INDEX_OUT_OF_RANGE"
            single = await c.make(EASY)
            obs, info = await single.reset(seed=2)
            assert (await single.sample_random_action()).startswith("\\boxed{")
            await single.close()

    run(main())


def test_python_envs_are_served_from_the_event_loop(server) -> None:
    class Count(gem.Env):
        def __init__(self, **kwargs):
            self.n = 0

        def reset(self, seed=None, **kwargs):
            self.n = 0
            return "0", {}

        def step(self, action):
            self.n += int(action)
            return str(self.n), 0.0, self.n >= 10, False, {}

    async def main():
        async with await aio.connect(server.endpoint) as c:
            await c.register("py:AioCount-v0", Count)
            pool = await c.make_vec("py:AioCount-v0", num_envs=4, autoreset_mode="disabled")
            await pool.reset()
            results = await asyncio.gather(*[pool.env(i).step(str(i + 1)) for i in range(4)])
            assert [r[0] for r in results] == ["1", "2", "3", "4"]

    run(main())


def test_a_dead_server_fails_waiting_coroutines() -> None:
    async def main():
        c = await aio.connect(liveness_timeout=5.0)
        pool = await c.make_vec(EASY, num_envs=2)
        await pool.reset()
        c.local_server.proc.kill()
        with pytest.raises(gem.ServerUnavailableError):
            await asyncio.wait_for(asyncio.gather(pool.env(0).step("\\boxed{1}"), pool.env(1).step("\\boxed{2}")), 10)
        await c.close()

    run(main())


def test_make_pushes_an_inline_dataset(server) -> None:
    # GEM's make(id, dataset=<loaded table>) through the asyncio client: the table is pushed once.
    import pyarrow as pa

    table = pa.table({"problem": ["What is 2+3?"], "answer": ["5"]})

    async def main():
        async with await aio.connect(server.endpoint) as c:
            env = await c.make("math:Math12K", dataset=table)
            obs, _ = await env.reset()
            assert obs == "What is 2+3?"
            _, reward, terminated, _, _ = await env.step("\\boxed{5}")
            assert (reward, terminated) == (1.0, True)
            await env.close()

    asyncio.run(main())


def test_runs_on_uvloop_as_on_asyncio(server) -> None:
    """vLLM's and SGLang's servers run on uvloop, and so may a trainer's agent loop: the same
    coroutines (own envs, sub-envs of a handle big enough to split a tick in parts) give the same
    answers on uvloop as on stock asyncio, every call coalesced into batch requests on both."""
    import uvloop  # the test extra installs it

    async def play() -> tuple:
        async with await aio.connect(server.endpoint) as c:
            own = [await c.make(EASY, max_turns=100) for _ in range(8)]
            pool = await c.make_vec(EASY, num_envs=128, autoreset_mode="disabled", max_turns=100)
            envs = own + [pool.env(i) for i in range(128)]
            sent = count_requests(c)
            answers = [await asyncio.gather(*[e.reset(seed=i) for i, e in enumerate(envs)])]
            for turn in range(3):  # guesses out of range: no episode ends, each reply names its turn
                answers.append(await asyncio.gather(*[e.step(f"\\boxed{{{1000 + i + turn}}}") for i, e in enumerate(envs)]))
            requests = list(sent)
            for e in own:
                await e.close()
            await pool.close()
            return type(asyncio.get_running_loop()).__module__, answers, requests

    on_asyncio = asyncio.run(play())
    on_uvloop = uvloop.run(play())
    assert on_asyncio[0].startswith("asyncio") and on_uvloop[0].startswith("uvloop")
    assert on_uvloop[1] == on_asyncio[1]
    assert len(on_uvloop[1]) == 4 and all(len(a) == 136 for a in on_uvloop[1])
    assert all(f"turn {t}," in obs for t in (1, 2, 3) for obs, *_ in on_uvloop[1][t])
    # 4 ticks of 136 calls each coalesced: a tick leaves in parts of 32 rows at least (how many depends
    # on the rows still out as it fills, so on timing), never a request per call
    for _, _, requests in (on_asyncio, on_uvloop):
        assert set(requests) == {"batch"} and 4 <= len(requests) <= 4 * 5, requests
