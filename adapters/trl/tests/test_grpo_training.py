"""Real GRPO steps on CPU: TRL 1.16's GRPOTrainer, a tiny Qwen3 built from a config, the in-process
tokenizer, and a gem-ts game served by the real server. Nothing is stood in for but the model size."""
import random

import gem_ts
import torch
from gem_ts_adapter_kit import ChatGlue, seeded_rows
from gem_ts_trl import (
    GemTsEnvironment,
    GemTsRollout,
    env_return_reward,
    environment_dataset,
    environment_factory,
    rollout_dataset,
)
from gem_ts_trl.testing import teach, tiny_causal_lm
from trl import GRPOConfig, GRPOTrainer

ENV = "game:GuessTheNumber-v0-easy"
INSTRUCTION = "Play.\n\n"


def grpo_args(tmp_path, **kw):
    base = dict(
        output_dir=str(tmp_path),
        use_cpu=True,
        num_generations=4,
        per_device_train_batch_size=4,
        max_steps=2,
        learning_rate=5e-3,
        temperature=1.0,
        report_to=[],
        logging_steps=1,
        save_strategy="no",
        seed=0,
    )
    base.update(kw)
    return GRPOConfig(**base)


def snapshot(model):
    return {n: p.detach().clone() for n, p in model.named_parameters()}


def changed(model, before):
    return [n for n, p in model.named_parameters() if not torch.equal(before[n], p.detach())]


def first_observations(seeds):
    env = gem_ts.make(ENV)
    obs = [env.reset(seed=s)[0] for s in seeds]
    env.close()
    return obs


def test_rollout_func_trains_on_env_returns(tokenizer, tmp_path):
    model = tiny_causal_lm(tokenizer)
    rng = random.Random(0)
    glue = ChatGlue(tokenizer)
    # A few supervised steps on the answer format: enough that some sampled answers parse and some do
    # not, so returns differ within a group.
    prompts = [glue.first_prompt(o) for o in first_observations(range(4))] * 2
    teach(model, tokenizer, prompts, [f"\\boxed{{{rng.randint(1, 10)}}}" for _ in prompts], steps=40, lr=2e-2)

    rollout = GemTsRollout()
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=env_return_reward,
        args=grpo_args(tmp_path, max_steps=3, max_completion_length=160),
        train_dataset=rollout_dataset(seeded_rows(ENV, 4)),
        rollout_func=rollout,
    )
    before = snapshot(model)
    trainer.train()

    logs = [h for h in trainer.state.log_history if "reward" in h]
    assert len(logs) == 3
    assert rollout.episodes == 12 and rollout.env_steps >= 12  # every episode stepped the env
    assert any(h["reward_std"] > 0 for h in logs), "returns never differed within a group: nothing to learn"
    # completions/mean_length counts env_mask=1 tokens only; the env's turns add more than that.
    assert changed(model, before), "GRPO did not update the weights"


def test_environment_factory_plays_through_tool_calls(tmp_path):
    from gem_ts_adapter_kit.testing import tiny_chat_tokenizer
    from trl.chat_template_utils import qwen3_chat_template

    # TRL parses tool calls only from chat templates it knows; use its bundled Qwen3 one, and a
    # tokenizer trained on the prompts it renders (so they stay a few hundred tokens).
    probe = GemTsEnvironment(ENV)
    draft = tiny_chat_tokenizer()
    draft.chat_template = qwen3_chat_template

    def conversation(seed, guesses):
        """The chat TRL builds after the model called `step` with each guess in turn."""
        messages = [{"role": "user", "content": INSTRUCTION + probe.reset(env_id=ENV, seed=seed)}]
        for g in guesses:
            action = "\\boxed{%d}" % g
            reply = probe.step(action)
            call = {"type": "function", "function": {"name": "step", "arguments": {"action": action}}}
            messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
            messages.append({"role": "tool", "name": "step", "content": reply})
            if probe.episode_over_text in reply:
                break
        return messages

    def render(tok, messages):
        return tok.apply_chat_template(messages, tools=[probe.step], add_generation_prompt=True, tokenize=False)

    def call(k):
        return '<tool_call>\n{"name": "step", "arguments": {"action": "\\\\boxed{%d}"}}\n</tool_call>' % k

    tok = tiny_chat_tokenizer(2048, [render(draft, conversation(0, [5, 7]))] + [call(k) for k in range(1, 11)])
    tok.add_tokens(["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"])
    tok.chat_template = qwen3_chat_template
    model = tiny_causal_lm(tok)

    # Teach the tool-call format on the prompts TRL will render (first and later turns), with varied
    # guesses, so that episodes run to the turn limit and end with different rewards.
    rng = random.Random(1)
    prompts = [render(tok, conversation(seed, [10 - seed] * turns)) for seed in range(4) for turns in range(3)]
    loss = teach(model, tok, prompts, [call(rng.randint(1, 10)) for _ in prompts], steps=300, lr=2e-2, stop_below=0.05)
    assert loss < 0.05

    made = []

    def factory():
        env = environment_factory(ENV)()
        made.append(env)
        return env

    trainer = GRPOTrainer(
        model=model,
        processing_class=tok,
        args=grpo_args(tmp_path, max_steps=2, max_completion_length=192, max_tool_calling_iterations=4),
        train_dataset=environment_dataset(seeded_rows(ENV, 4), instruction=INSTRUCTION),
        environment_factory=factory,
    )
    before = snapshot(model)
    trainer.train()

    assert sum(e.steps_taken for e in made) >= 8, "the model's tool calls rarely reached the env"
    logs = [h for h in trainer.state.log_history if "reward" in h]
    assert logs[0]["tools/call_frequency"] > 0  # (a big update on a tiny model may break the format after)
    assert any(h["reward_std"] > 0 for h in logs), "returns never differed within a group: nothing to learn"
    assert changed(model, before)
