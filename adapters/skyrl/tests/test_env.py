"""gem-ts envs played through skyrl_gym 0.4's own make / init / step / close, as SkyRL's generator calls them."""
import json
import re

import gem_ts
import pytest
import skyrl_gym
from conftest import GAME, MATH, ROWS
from gem_ts_adapter_kit import RowError
from gem_ts_adapter_kit.testing import play_directly

SYSTEM = {"role": "system", "content": "Answer in \\boxed{}."}


def play(env_class, extras, policy, prompt=(SYSTEM,), env_config=None):
    """One trajectory the way SkyRL's generator runs it: make, init(prompt), step until done, close."""
    env = skyrl_gym.make(env_class, env_config=env_config or {}, extras=dict(extras))
    chat, _ = env.init([dict(m) for m in prompt])
    actions, rewards, outputs = [], [], []
    done = False
    while not done:
        action = policy(chat)
        out = env.step(action)
        actions.append(action)
        rewards.append(out["reward"])
        outputs.append(out)
        chat = chat + [{"role": "assistant", "content": action}] + out["observations"]
        done = out["done"]
    metrics = env.get_metrics()
    env.close()
    return chat, actions, rewards, outputs, metrics


def bisect(chat):
    """Guesses by halving the range the env's replies leave open."""
    lo, hi = 1, 10
    for m in chat:
        if m["role"] != "user":
            continue
        said = re.search(r"guessed (\d+), and the target number is (higher|lower)", m["content"])
        if said:
            guess = int(said.group(1))
            lo, hi = (max(lo, guess + 1), hi) if said.group(2) == "higher" else (lo, min(hi, guess - 1))
    return f"\\boxed{{{(lo + hi) // 2}}}"


def test_registered_ids_are_skyrl_specs(registered):
    assert registered == [f"gem_ts/{GAME}", f"gem_ts/{MATH}"]
    spec = skyrl_gym.spec(f"gem_ts/{GAME}")
    assert json.loads(spec.to_json())["kwargs"] == {"env_id": GAME}
    assert "gem_ts" in skyrl_gym.registry
    # Registering again is a no-op, not skyrl_gym's duplicate-name error.
    import gem_ts_skyrl

    assert gem_ts_skyrl.register_envs([GAME]) == [f"gem_ts/{GAME}"]


def test_game_played_to_a_win(registered):
    seed = 3
    chat, actions, rewards, outputs, metrics = play(f"gem_ts/{GAME}", {"seed": seed, "max_turns": 10}, bisect)
    first, direct_rewards, direct_obs = play_directly(GAME, seed, actions)
    assert chat[0] == SYSTEM and chat[1] == {"role": "user", "content": first}
    assert rewards == direct_rewards and rewards[-1] == 1.0 and sum(rewards) == 1.0
    assert outputs[-1]["observations"] == [] and outputs[-1]["metadata"]["terminated"]
    assert outputs[-1]["metadata"]["observation"] == direct_obs[-1]
    # Every reply before the last came back as the next user message, verbatim.
    assert [o["observations"] for o in outputs[:-1]] == [[{"role": "user", "content": t}] for t in direct_obs[:-1]]
    assert metrics == {"steps": len(actions), "return": 1.0, "terminated": 1}
    assert 1 < len(actions) <= 4


def test_game_played_to_a_loss(registered):
    seed = 3  # the target is 7 (won above), so always guessing 1 loses at the turn limit
    _, actions, rewards, outputs, metrics = play(f"gem_ts/{GAME}", {"seed": seed, "max_turns": 10}, lambda chat: "\\boxed{1}")
    _, direct_rewards, _ = play_directly(GAME, seed, actions)
    assert rewards == direct_rewards and 1.0 not in rewards
    assert len(actions) == 4 and outputs[-1]["metadata"]["truncated"]
    assert metrics["steps"] == 4 and metrics["return"] == pytest.approx(sum(direct_rewards))


def answer(chat, off_by=0):
    """The right answer to the question in the first user message (plus `off_by`)."""
    question = next(m["content"] for m in chat if m["role"] == "user")
    gold = next(int(r["answer"]) for r in ROWS if question.startswith(r["problem"]))
    return f"\\boxed{{{gold + off_by}}}"


def test_math_right_and_wrong_through_the_generic_class(registered):
    options = json.dumps({"dataset": ROWS})
    results = {}
    for off_by in (0, 1):
        extras = {"env_id": MATH, "seed": 0, "options": options, "max_turns": 1}
        chat, actions, rewards, outputs, _ = play("gem_ts", extras, lambda chat, k=off_by: answer(chat, k))
        results[off_by] = (rewards, outputs[-1]["metadata"]["correct"])
        assert chat[1]["content"] == play_directly(MATH, 0, [], dataset=ROWS)[0] and len(actions) == 1
    assert results == {0: ([1.0], True), 1: ([0.0], False)}


def test_row_fields_inside_extra_info_and_defaults_from_env_config(registered):
    # SkyRL datasets usually carry per-row data under extra_info; options may come from skyrl_gym.<env_class>.
    questions = set()
    for seed in range(6):
        extras = {"extra_info": {"seed": seed}, "max_turns": 1}
        chat, _, rewards, _, _ = play(f"gem_ts/{MATH}", extras, answer, env_config={"options": {"dataset": ROWS}})
        assert chat[1]["content"] == play_directly(MATH, seed, [], dataset=ROWS)[0] and rewards == [1.0]
        questions.add(chat[1]["content"])
    assert len(questions) == 2  # the seed picks the row: both rows come up


def test_python_tool_call_answered_then_the_final_answer(registered):
    replies = iter(["<python>print(6*7)</python>", "\\boxed{42}"])
    # One-row dataset: the question is 6*7 whatever the seed.
    extras = {"seed": 0, "options": {"dataset": ROWS[:1]}, "wrappers": ["python_tool"], "max_turns": 5}
    chat, actions, rewards, outputs, metrics = play(f"gem_ts/{MATH}", extras, lambda chat: next(replies))
    assert len(actions) == 2
    tool_reply = outputs[0]["observations"]
    assert len(tool_reply) == 1 and tool_reply[0]["role"] == "user" and "Code execution result: 42" in tool_reply[0]["content"]
    assert not outputs[0]["done"] and outputs[0]["metadata"]["tool_success_counter"] == 1
    assert outputs[1]["done"] and outputs[1]["metadata"]["correct"]
    direct = gem_ts.make(MATH, dataset=ROWS[:1]).with_wrappers(gem_ts.wrappers.get_wrapper_fns("python_tool"))
    direct.reset(seed=0)
    expected = [direct.step(a)[1] for a in actions]
    direct.close()
    assert rewards == pytest.approx(expected) and rewards[-1] == 1.0 and rewards[0] > 0
    assert metrics["return"] == pytest.approx(sum(expected))


def test_generator_max_turns_cuts_the_episode(registered):
    _, actions, _, outputs, _ = play(f"gem_ts/{GAME}", {"seed": 3, "max_turns": 2}, lambda chat: "\\boxed{1}")
    assert len(actions) == 2 and outputs[-1]["done"]
    assert outputs[-1]["metadata"]["truncated"] and not outputs[-1]["metadata"]["terminated"]


def test_bad_input_is_a_clear_error(registered):
    import gem_ts_skyrl

    with pytest.raises(ValueError, match=r"not gem-ts env ids: 'game:GuessTheNumbr-v0' \(did you mean: game:GuessTheNumber-v0"):
        gem_ts_skyrl.register_envs(["game:GuessTheNumbr-v0"])
    with pytest.raises(TypeError, match="not one string"):
        gem_ts_skyrl.register_envs(GAME)
    with pytest.raises(gem_ts.UnknownEnvError, match="'game:Nope-v0' is not registered"):
        skyrl_gym.make("gem_ts", extras={"env_id": "game:Nope-v0", "seed": 0})
    with pytest.raises(gem_ts.InvalidOptionsError, match="unknown option 'bogus'"):
        skyrl_gym.make(f"gem_ts/{GAME}", extras={"seed": 0, "options": {"bogus": 1}})
    with pytest.raises(RowError, match="has no seed column"):
        skyrl_gym.make(f"gem_ts/{GAME}", extras={})
    with pytest.raises(RowError, match="options must be a JSON object"):
        skyrl_gym.make(f"gem_ts/{GAME}", extras={"seed": 0, "options": "{not json"})
    with pytest.raises(RowError, match="plays 'game:GuessTheNumber-v0-easy' but the row asks for env_id"):
        skyrl_gym.make(f"gem_ts/{GAME}", extras={"env_id": MATH, "seed": 0})
    with pytest.raises(RowError, match="no gem-ts env id"):
        skyrl_gym.make("gem_ts", extras={"seed": 0})
    with pytest.raises(skyrl_gym.error.Error, match="No registered env with id: gem_ts/game:Nope"):
        skyrl_gym.make("gem_ts/game:Nope-v0", extras={"seed": 0})
    env = skyrl_gym.make(f"gem_ts/{GAME}", extras={"seed": 3, "max_turns": 1})
    env.init([])
    assert env.step("\\boxed{1}")["done"]
    with pytest.raises(RuntimeError, match="episode .* is over"):
        env.step("\\boxed{2}")
    env.close()
