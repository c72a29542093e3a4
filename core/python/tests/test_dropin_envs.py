"""GEM's env classes constructed directly, GEM entry-point strings in register(), make(verbose=...)."""

import pytest

import gem_ts as gem
from gem_ts.envs import game_env
from gem_ts.envs.code_env import CodeEnv
from gem_ts.envs.game_env.crosswords import CrosswordsEnv
from gem_ts.envs.game_env.fifteen_puzzle import FifteenPuzzleEnv
from gem_ts.envs.game_env.guess_the_number import GuessTheNumberEnv
from gem_ts.envs.game_env.sokoban.sokoban import SokobanEnv
from gem_ts.envs.math_env import MathEnv
from gem_ts.envs.qa_env import QaEnv
from gem_ts.envs.reasoning_gym import ReasoningGymEnv

MATH = [{"problem": "1+1?", "answer": "2"}, {"problem": "2+3?", "answer": "5"}]


@pytest.mark.parametrize("name", game_env.__all__)
def test_every_game_class_constructs_with_gem_defaults_and_random(client, name):
    cls = getattr(game_env, name)
    env = cls()
    obs, _ = env.reset(seed=0)
    assert isinstance(obs, str) and obs and env.max_turns == dict(cls.GEM_PARAMS)["max_turns"]
    assert isinstance(env, gem.Env) and isinstance(env.sample_random_action(), str)
    env.close()
    random_variant = cls(**{k: None for k in cls.RANDOM_WHEN_NONE})
    assert random_variant.random is True
    random_variant.close()


def test_game_keyword_and_positional_arguments(client):
    env = GuessTheNumberEnv(1, 5, max_turns=3, seed=9)  # GEM ignores a game's seed argument; so do we
    assert (env.min_number, env.max_number, env.max_turns) == (1, 5, 3)
    env.reset(seed=1)
    rewards = [env.step(f"\\boxed{{{g}}}")[1] for g in (1, 2)]
    assert len(rewards) == 2
    with pytest.raises(TypeError, match="at most 3 positional"):
        GuessTheNumberEnv(1, 2, 3, 4)
    with pytest.raises(gem.InvalidOptionsError):
        GuessTheNumberEnv(min_number="one")
    assert isinstance(FifteenPuzzleEnv(num_rows=3), gem.ServerEnv)
    assert CrosswordsEnv().env_id.startswith("game:Crosswords") and SokobanEnv().env_id.startswith("game:Sokoban")


def test_dataset_classes_take_gem_kwargs(client):
    env = MathEnv(dataset=MATH, question_key="problem", answer_key="answer", seed=0, use_mp=False, dataset_name="")
    obs, _ = env.reset(idx=1)
    assert obs == "2+3?" and env.step("\\boxed{5}")[1] == 1.0
    qa = QaEnv(dataset=[{"q": "Capital of France?", "a": "Paris"}], question_key="q", answer_key="a")
    qa.reset()
    assert qa.step("<answer>Paris</answer>")[1] == 1.0
    code = CodeEnv(dataset=[{"problem": "echo", "tests": {"inputs": ["3\n"], "outputs": ["3\n"]}}], max_tests=4)
    code.reset()
    assert code.step("```python\nprint(input())\n```")[1] == 1.0
    with pytest.raises(TypeError, match="reasoning-gym task name"):
        ReasoningGymEnv("")


def test_seed_argument_seeds_a_dataset_env(client):
    rows = [{"problem": f"p{i}", "answer": str(i)} for i in range(20)]
    first = [MathEnv(dataset=rows, seed=s).reset()[0] for s in (1, 1, 2)]
    assert first[0] == first[1]  # the same seed shuffles the same way


def test_register_with_gem_entry_points(client):
    gem.register("test:dropin-guess", "gem.envs.game_env.guess_the_number:GuessTheNumberEnv", min_number=1, max_number=4, max_turns=2)
    env = gem.make("test:dropin-guess")
    assert (env.max_number, env.max_turns) == (4, 2) and env.env_id == "game:GuessTheNumber-v0"
    vec = gem.make_vec(["test:dropin-guess", "game:GuessTheNumber-v0"], vec_kwargs=[{"max_turns": 5}, {}])
    assert vec.get_attr("max_turns") == (5, 10)
    gem.register("test:dropin-math", "gem.envs.math_env:MathEnv", dataset=MATH)
    m = gem.make("test:dropin-math")
    m.reset(idx=0)
    assert m.step("\\boxed{2}")[1] == 1.0
    with pytest.raises(ValueError, match="no gem-ts counterpart"):
        gem.register("test:dropin-nope", "gem.envs.mcpmark:MCPMarkEnv")
    with pytest.raises(gem.InvalidOptionsError):
        gem.register("test:dropin-bad", "gem.envs.game_env.guess_the_number:GuessTheNumberEnv", max_turns="x")
        gem.make("test:dropin-bad")


def test_make_verbose_logs_each_step(client, caplog):
    caplog.set_level("INFO", logger="gem_ts.env")
    env = gem.make("game:GuessTheNumber-v0", verbose=True)
    env.reset(seed=0)
    env.step("\\boxed{7}")
    logged = [r.getMessage() for r in caplog.records if r.name == "gem_ts.env"]
    assert len(logged) == 1 and "[game:GuessTheNumber-v0] action='\\\\boxed{7}'" in logged[0] and "reward=" in logged[0]
    quiet = gem.make("game:GuessTheNumber-v0")
    quiet.reset()
    quiet.step("\\boxed{7}")
    assert len([r for r in caplog.records if r.name == "gem_ts.env"]) == 1


def test_verbose_prints_when_logging_is_not_set_up():
    import subprocess
    import sys

    code = "import gem_ts as gem\ne = gem.make('game:GuessTheNumber-v0', verbose=True)\ne.reset()\ne.step('\\\\boxed{3}')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "[game:GuessTheNumber-v0] action=" in out.stdout, out.stderr[-2000:]
