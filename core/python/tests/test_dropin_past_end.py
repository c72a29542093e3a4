"""A GEM user's loop that keeps stepping after the episode ended (as GEM's own tool test does with a
ToolEnvWrapper game after max_turns): the step is not played, terminated stays true, reward 0, and one
UserWarning per env; make(..., strict_reset=True) raises ResetNeededError instead."""

import warnings

import pytest

import gem_ts as gem
from gem_ts.errors import ResetNeededError
from gem_ts.tools import PythonCodeTool, ToolEnvWrapper

OVER = "This episode is over"


def _play_out(env):
    env.reset(seed=3)
    while True:
        _, _, terminated, truncated, _ = env.step("\\boxed{0}")  # out of range: a turn spent, never a win
        if terminated or truncated:
            return


def test_a_tool_game_stepped_past_max_turns_answers_without_paying():
    env = ToolEnvWrapper(gem.make("game:GuessTheNumber-v0-easy", max_turns=2), tools=[PythonCodeTool(timeout=2)])
    _play_out(env)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = [env.step(a) for a in ["<python>print(1)</python>", "\\boxed{5}", *[f"\\boxed{{{n}}}" for n in range(1, 11)]]]
    assert all(obs.startswith(OVER) for obs, *_ in rows)
    assert [(r, t, tr) for _, r, t, tr, _ in rows] == [(0.0, True, False)] * len(rows)  # even the right guess pays 0
    assert all(info.get("episode_over") is True for *_, info in rows)
    past_end = [w for w in caught if "stepped after its episode ended" in str(w.message)]
    assert len(past_end) == 1 and past_end[0].category is UserWarning
    # A reset starts a real episode again.
    obs, _ = env.reset(seed=4)
    assert not obs.startswith(OVER)
    assert not env.step("\\boxed{0}")[0].startswith(OVER)
    env.close()


def test_each_env_warns_once():
    a, b = gem.make("game:GuessTheNumber-v0-easy", max_turns=1), gem.make("game:GuessTheNumber-v0-easy", max_turns=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for env in (a, b):
            _play_out(env)
            env.step("\\boxed{1}")
            env.step("\\boxed{2}")
    assert sum("stepped after its episode ended" in str(w.message) for w in caught) == 2
    a.close()
    b.close()


def test_strict_reset_raises_as_before():
    env = gem.make("game:GuessTheNumber-v0-easy", max_turns=1, strict_reset=True)
    _play_out(env)
    with pytest.raises(ResetNeededError):
        env.step("\\boxed{1}")
    env.reset()
    env.step("\\boxed{1}")  # a new episode steps again
    env.close()


def test_strict_reset_must_be_a_boolean():
    with pytest.raises(ValueError, match="strict_reset.*true or false"):
        gem.make("game:GuessTheNumber-v0-easy", strict_reset="yes")
