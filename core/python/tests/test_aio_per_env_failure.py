"""Issue 27 (build 5): in coalesced asyncio steps, an action that cannot be sent fails only its own
coroutine, with an error naming its env index; the coroutines sharing its batch get their results.

Caused for real against a server of 64 KiB messages (strict_server): a lone surrogate (not UTF-8
text) and an action larger than a whole message, each among many coroutines stepping in one tick;
and many actions that each fit but together do not, which must go as several messages.
"""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List

import gem_ts as gem
from gem_ts import aio

EASY = "game:GuessTheNumber-v0-easy"
N = 12
GUESS = "\\boxed{5}"


async def _step_all(endpoint: str, actions: Dict[int, str]) -> List[Any]:
    """Every env of one handle resets, then steps its action from ``actions`` (else GUESS) in one tick."""
    async with await aio.connect(endpoint) as c:
        pool = await c.make_vec(EASY, num_envs=N, autoreset_mode="disabled")
        await asyncio.gather(*[pool.env(i).reset(seed=i) for i in range(N)])
        out = await asyncio.gather(*[pool.env(i).step(actions.get(i, GUESS)) for i in range(N)], return_exceptions=True)
        await pool.close()
        return out


def _others_stepped(results: List[Any], bad: int) -> None:
    for i, r in enumerate(results):
        if i != bad:
            assert not isinstance(r, BaseException), f"env {i} failed with {r!r}"
            obs, reward, terminated, truncated, info = r
            assert isinstance(obs, str) and type(reward) is float


def test_a_lone_surrogate_fails_only_its_coroutine(strict_server) -> None:
    results = asyncio.run(_step_all(strict_server.endpoint, {3: "\\boxed{\ud800}"}))
    err = results[3]
    assert isinstance(err, gem.InvalidRequestError), repr(err)
    assert err.data["index"] == 3 and "env 3" in str(err)
    _others_stepped(results, 3)


def test_an_action_larger_than_a_message_fails_only_its_coroutine(strict_server) -> None:
    results = asyncio.run(_step_all(strict_server.endpoint, {5: "x" * 100_000}))
    err = results[5]
    assert isinstance(err, gem.LimitExceededError) and err.code == "MESSAGE_TOO_LARGE", repr(err)
    assert err.data["index"] == 5 and "env 5" in str(err)
    assert err.data["max"] == strict_server_limit(strict_server)
    _others_stepped(results, 5)


def test_actions_that_fit_alone_but_not_together_all_step(strict_server) -> None:
    big = {i: "y" * 20_000 for i in range(N)}  # 12 × 20 kB > 64 KiB: several messages
    results = asyncio.run(_step_all(strict_server.endpoint, big))
    _others_stepped(results, -1)


def test_reset_options_that_cannot_be_sent_fail_only_their_coroutine(strict_server) -> None:
    async def main() -> List[Any]:
        async with await aio.connect(strict_server.endpoint) as c:
            pool = await c.make_vec(EASY, num_envs=N, autoreset_mode="disabled")
            out = await asyncio.gather(
                *[pool.env(i).reset(seed=i, options={"note": "\udfff"} if i == 2 else None) for i in range(N)],
                return_exceptions=True,
            )
            await pool.close()
            return out

    results = asyncio.run(main())
    err = results[2]
    assert isinstance(err, gem.InvalidRequestError) and err.data["index"] == 2 and "env 2" in str(err), repr(err)
    assert all(isinstance(r[0], str) for i, r in enumerate(results) if i != 2)


def strict_server_limit(srv: Any) -> int:
    with gem.Client(srv.endpoint, heartbeat=False) as c:
        return int(c.session.limits["max_message_bytes"])


def test_the_blocking_vector_env_names_the_env_of_a_lone_surrogate(strict_server) -> None:
    # One caller owns the whole batch here, so the call fails, but it says which env and stays usable.
    with gem.Client(strict_server.endpoint, heartbeat=False) as c:
        vec = gem.make_vec(EASY, num_envs=4, autoreset_mode="disabled", client=c)
        vec.reset(seed=0)
        try:
            actions = [GUESS, GUESS, "\ud800", GUESS]
            try:
                vec.step(actions)
                raise AssertionError("the step should fail")
            except gem.InvalidRequestError as e:
                assert e.data["index"] == 2 and "env 2" in str(e)
            assert len(vec.step([GUESS] * 4)[0]) == 4
        finally:
            vec.close()
