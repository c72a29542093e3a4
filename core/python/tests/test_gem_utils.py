"""gem_ts.utils: the helpers GEM user code imports (constants, parsing, debug printing)."""

import asyncio

import numpy as np
import pytest

import gem_ts as gem
from gem_ts.utils import constants, parsing
from gem_ts.utils.debug import (
    ppprint,
    run_and_print_episode,
    run_and_print_episode_async,
    run_and_print_episode_with_selective_step,
)


def test_constants():
    assert constants.TERMINAL_STATE == "<\uff5cTERMINAL_STATE\uff5c>" == gem.TERMINAL_STATE
    assert constants.LanguageGameReward.format_error_reward == -0.1
    assert constants.LanguageGameReward.success_reward == 1.0


@pytest.mark.parametrize(
    "text, answer",
    [
        ("so \\boxed{3} then \\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),
        ("nested \\boxed{\\{1, {2}\\}} end", "\\{1, {2}\\}"),
        ("unclosed \\boxed{3", None),
        ("none here", None),
        ("\\fbox{4}", None),  # found, but only \boxed{} is unwrapped (as in GEM)
        ("\\boxed{}", ""),
    ],
)
def test_extract_last_boxed_answer(text, answer):
    assert parsing.extract_last_boxed_answer(text) == answer


def test_last_boxed_only_string_and_remove_boxed():
    assert parsing.last_boxed_only_string("a \\fbox{4} b") == "\\fbox{4}"
    assert parsing.last_boxed_only_string("\\boxed{1} \\boxed{2}") == "\\boxed{2}"
    assert parsing.remove_boxed("\\boxed{x}") == "x"
    assert parsing.remove_boxed(None) is None
    assert parsing.remove_boxed("boxed{x}") is None


def test_code_and_tag_extraction():
    reply = "first\n```python\nprint(1)\n```\nthen\n```\nprint(2)\n```"
    assert parsing.extract_code_from_model(reply) == "print(2)"
    assert parsing.extract_code_from_model("```python print(1)```") is None  # no newline after the tag
    assert parsing.extract_last_tagged_answer("<answer> a </answer><answer>\nb\n</answer>") == "b"
    assert parsing.extract_last_tagged_answer("no tags") is None


class _Countdown(gem.Env):
    """A 3-step Python env, to drive the printers without a server."""

    def reset(self, seed=None, **kwargs):
        self.left = 3
        return "start", {}

    def step(self, action):
        self.left -= 1
        return f"left {self.left}", 1.0, self.left == 0, False, {}


def test_run_and_print_episode_prints_every_step(capsys):
    run_and_print_episode(_Countdown(), lambda obs: "go")
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if line.startswith("Step ")] == ["Step 1", "Step 2", "Step 3"]
    assert "'left 2'" in out and "----TIME:" in out


def test_run_and_print_episode_max_steps_and_ignore_done(capsys):
    run_and_print_episode(_Countdown(), lambda obs: "go", ignore_done=True, max_steps=5)
    assert capsys.readouterr().out.count("Step ") == 5


def test_async_printer_accepts_coroutines(capsys):
    env = _Countdown()

    async def policy(obs):
        return "go"

    asyncio.run(run_and_print_episode_async(env, policy))
    assert capsys.readouterr().out.count("Step ") == 3


def test_selective_step_on_a_real_vector_env(capsys):
    vec = gem.make_vec("game:GuessTheNumber-v0-easy", num_envs=4, wrappers=gem.wrappers.get_wrapper_fns("concat"))
    try:
        run_and_print_episode_with_selective_step(vec, lambda obs: ["\\boxed{5}"] * len(obs), max_steps=3)
    finally:
        vec.close()
    out = capsys.readouterr().out
    assert out.count("Step ") == 3
    assert "next_observation" in out


def test_ppprint_lists(capsys):
    ppprint(["a", "b"])
    ppprint(np.array([1.0]))
    out = capsys.readouterr().out
    assert "----- 1/2:" in out and "----- 2/2:" in out and "array([1.])" in out
