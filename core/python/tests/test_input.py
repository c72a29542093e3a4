"""Bad Python input gets a clear error naming what was wrong, and loses nothing: the env still works."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

import gem_ts as gem
from gem_ts import aio

EASY = "game:GuessTheNumber-v0-easy"


@pytest.fixture
def env(client):
    e = gem.make(EASY)
    yield e
    e.close()


@pytest.fixture
def vec(client):
    v = gem.make_vec(EASY, num_envs=4)
    yield v
    v.close()


def test_numpy_and_python_int_seeds_are_the_same_seed(env, vec) -> None:
    assert env.reset(seed=np.int64(3))[0] == env.reset(seed=3)[0]
    obs_np, _ = vec.reset(seed=np.int32(5))
    obs_py, _ = vec.reset(seed=5)
    assert obs_np == obs_py
    assert vec.reset(seed=np.array([1, 2, 3, 4]))[0] == vec.reset(seed=[1, 2, 3, 4])[0]
    assert vec.reset(seed=(np.int64(7),) * 4)[0] == vec.reset(seed=[7, 7, 7, 7])[0]
    assert len(vec.reset(seed=None)[0]) == 4


@pytest.mark.parametrize(
    "seed, error, words",
    [
        ("1234", TypeError, "not str"),  # used to become seeds [1, 2, 3, 4]
        (1.5, TypeError, "not float"),
        (np.float64(2.0), TypeError, "not float64"),
        (True, TypeError, "not bool"),
        ({"a": 1}, TypeError, "not dict"),
        (2**64, ValueError, "out of range"),
        ([1, "2", 3, 4], TypeError, "not str"),
    ],
)
def test_bad_seeds_are_refused_naming_the_type(env, vec, seed, error, words) -> None:
    with pytest.raises(error, match=words):
        env.reset(seed=seed)
    with pytest.raises(error, match=words):
        vec.reset(seed=seed)
    assert env.reset(seed=0)[0]  # nothing was lost
    if not isinstance(seed, list):  # make_vec takes one base seed
        with pytest.raises(error, match=words):
            gem.make_vec(EASY, num_envs=2, seed=seed)


def test_a_string_where_a_list_of_actions_is_expected_is_an_error(vec) -> None:
    vec.reset(seed=0)
    with pytest.raises(TypeError, match="not str"):
        vec.step("abcd")  # used to send four one-letter actions
    with pytest.raises(TypeError, match="env 2 must be a string, not int"):
        vec.step(["a", "b", 3, "d"])
    with pytest.raises(TypeError, match="env 1 must be a string"):
        vec.step({0: "a", 1: None})
    obs, rewards, *_ = vec.step(["\\boxed{1}"] * 4)
    assert rewards.shape == (4,)


def test_a_non_string_env_id_says_ids_are_strings(client) -> None:
    with pytest.raises(TypeError, match="env id must be a string.*not int"):
        gem.make(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="env id must be a string"):
        gem.make_vec([EASY, 7])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="string or a list of strings"):
        gem.make_vec(None)  # type: ignore[arg-type]


def test_unknown_reset_options_are_rejected_like_unknown_make_options(env, vec) -> None:
    with pytest.raises(gem.InvalidOptionsError, match="'idx'") as e:
        env.reset(seed=0, idx=3)  # a game takes no reset options
    assert isinstance(e.value, ValueError) and e.value.code == "INVALID_OPTIONS"
    with pytest.raises(gem.InvalidOptionsError, match="'difficulty'"):
        vec.reset(seed=0, difficulty="hard")
    with pytest.raises(gem.InvalidOptionsError):
        gem.make(EASY, difficulty="hard")
    assert env.reset(seed=0)[0]


def test_one_bad_action_among_coalesced_steps_fails_only_its_coroutine(server) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            pool = await c.make_vec(EASY, num_envs=8, autoreset_mode="disabled")
            await pool.reset(seed=0)
            actions = ["\\boxed{3}"] * 8
            actions[5] = 12345  # type: ignore[call-overload]
            results = await asyncio.gather(*[pool.env(i).step(a) for i, a in enumerate(actions)], return_exceptions=True)
            bad = [i for i, r in enumerate(results) if isinstance(r, BaseException)]
            assert bad == [5], results
            assert isinstance(results[5], TypeError) and "env 5" in str(results[5])
            assert all(isinstance(r, tuple) and isinstance(r[1], float) for i, r in enumerate(results) if i != 5)

    asyncio.run(asyncio.wait_for(main(), 30))


def test_an_env_that_needs_a_reset_among_coalesced_steps_fails_only_its_coroutine(server) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            # strict_reset: an ended env's step is refused (by default it would be answered as over).
            pool = await c.make_vec(EASY, num_envs=6, autoreset_mode="disabled", strict_reset=True)
            await pool.reset(seed=0)
            # Env 4 plays to the end of its episode (4 turns), so it needs a reset; the others do not.
            done = False
            while not done:
                *_, terminated, truncated, _ = await pool.env(4).step("\\boxed{1}")
                done = terminated or truncated
            results = await asyncio.gather(*[pool.env(i).step("\\boxed{2}") for i in range(6)], return_exceptions=True)
            bad = [i for i, r in enumerate(results) if isinstance(r, BaseException)]
            assert bad == [4], results
            err = results[4]
            assert isinstance(err, gem.ResetNeededError) and "env 4" in str(err)

    asyncio.run(asyncio.wait_for(main(), 30))
