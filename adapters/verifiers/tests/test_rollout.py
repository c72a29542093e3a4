"""verifiers 0.4's own Env.run_episode plays gem-ts episodes against a scripted model over real HTTP."""
import asyncio
import os
import re

import gem_ts
import pytest
import verifiers.v1 as vf
from gem_ts_adapter_kit.testing import play_directly
from gem_ts_verifiers import GemTsEnv, GemTsTaskset, load_environment
from stub_model import StubModel

GAME = "game:GuessTheNumber-v0-easy"
os.environ.setdefault("STUB_MODEL_KEY", "unused")


def bisect(messages):
    lo, hi = 1, 10
    for m in messages:
        said = re.search(r"guessed (\d+), and the target number is (higher|lower)", str(m.get("content", "")))
        if m.get("role") == "user" and said:
            g = int(said.group(1))
            lo, hi = (max(lo, g + 1), hi) if said.group(2) == "higher" else (lo, min(hi, g - 1))
    return f"\\boxed{{{(lo + hi) // 2}}}"


def run_all(env, stub):
    ctx = vf.ModelContext(model="stub", client=vf.EvalClientConfig(base_url=stub.base_url, api_key_var="STUB_MODEL_KEY"))

    async def main():
        async with env.serving():
            return [await env.run_episode(task, ctx) for task in env.taskset]

    return asyncio.run(main())


@pytest.mark.parametrize("policy,won", [(bisect, True), (lambda messages: "\\boxed{1}", False)])
def test_episodes_rewards_and_steps_match_direct_play(policy, won):
    stub = StubModel(policy)
    try:
        env = load_environment(GAME, first_seed=3, num_tasks=2)
        assert isinstance(env, GemTsEnv) and isinstance(env.taskset, GemTsTaskset)
        episodes = run_all(env, stub)
    finally:
        stub.close()
    assert len(episodes) == 2 and all(ep.ok and not ep.errors for ep in episodes)
    total_steps = 0
    for seed, ep in zip((3, 4), episodes):
        (trace,) = ep.traces
        rewards = trace.info["gem_ts_rewards"]
        replies = [m["content"] for m in trace_messages(stub, seed)]
        first, direct, _ = play_directly(GAME, seed, replies)
        assert ep.task.data.prompt == first
        assert rewards == direct and trace.rewards["gem_ts_return"].score == pytest.approx(sum(direct))
        assert trace.info["gem_ts_steps"] == len(direct)
        assert (1.0 in rewards) is won
        total_steps += len(direct)
    # One model call per env step: the observation went back as the next user turn each time.
    assert len(stub.requests) == total_steps


def trace_messages(stub, seed):
    """The model's replies in the episode of `seed`, read back from what the stub was asked."""
    first, _ = gem_ts.make(GAME).reset(seed=seed)
    asked = [r["messages"] for r in stub.requests if r["messages"][0]["content"] == first]
    return [{"content": stub.reply(m)} for m in asked]


def test_bad_input_is_a_clear_error():
    with pytest.raises(gem_ts.UnknownEnvError, match="'game:Nope-v0' is not registered"):
        load_environment("game:Nope-v0")
    with pytest.raises(gem_ts.InvalidOptionsError, match="unknown option 'bogus'"):
        load_environment(GAME, bogus=1)
    with pytest.raises(ValueError, match="num_tasks must be >= 0"):
        load_environment(GAME, num_tasks=-1)


def test_python_tool_env_runs_the_models_code_then_grades_its_answer():
    import shutil

    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: gem-ts's python_tool refuses to run code")
    dataset = [{"problem": "What is 123 * 45?", "answer": "5535"}]

    def policy(messages):  # a tool call first; once its output is back, the answer
        return "\\boxed{5535}" if "5535" in str(messages[-1].get("content", "")) else "<python>print(123 * 45)</python>"

    stub = StubModel(policy)
    try:
        env = load_environment("math:GSM8K", num_tasks=1, wrappers=["python_tool"], dataset=dataset)
        (episode,) = run_all(env, stub)
    finally:
        stub.close()
    (trace,) = episode.traces
    assert episode.ok and trace.info["gem_ts_steps"] == 2 == len(stub.requests)
    # The tool's output was the model's next user turn, and the rewards are those of direct play.
    assert "5535" in str(stub.requests[1]["messages"][-1]["content"])
    direct = gem_ts.make("math:GSM8K", dataset=dataset).with_wrappers(gem_ts.wrappers.get_wrapper_fns("python_tool"))
    direct.reset(seed=0)
    expected = [direct.step(a)[1] for a in ("<python>print(123 * 45)</python>", "\\boxed{5535}")]
    direct.close()
    assert trace.info["gem_ts_rewards"] == pytest.approx(expected) and expected[-1] == 1.0
    assert trace.rewards["gem_ts_return"].score == pytest.approx(sum(expected))
