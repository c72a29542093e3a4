#!/usr/bin/env python
"""Train a model on a gem-ts env with TRL's GRPOTrainer (TRL 1.16) and the gem_ts_trl adapter.

Each training prompt is one episode (env id + seed). The adapter's rollout_func plays the episode
turn by turn with the trainer's own generation backend (vLLM with --use-vllm, else transformers),
masks the env's tokens out of the loss (env_mask) and passes the episode's return to the reward
function. With --tools, TRL's environment_factory path is used instead: the model plays through a
`step` tool call (needs a chat template TRL parses tool calls from, e.g. Qwen3).

  python examples/train_trl.py --model Qwen/Qwen3-1.7B --env-id game:GuessTheNumber-v0-easy --use-vllm
  python examples/train_trl.py --dry-run      # CPU: tiny model built from a config, one GRPO step
  python examples/train_trl.py --dry-run --tools   # the same through environment_factory (tool calls)

A dry run's tiny random model never ends an action within its token budget, so the moves are
scripted (guesses): the env is stepped through the adapter and GRPO trains on those episodes. It
fails when the env was never stepped.

Needs: pip install -e core/python -e adapters/kit -e adapters/trl (and vllm==0.33.0 for --use-vllm: docs/training.md);
`npm run setup -- --adapter trl` builds that venv in adapters/trl/.venv.
The gem-ts server starts locally unless GEM_TS_ENDPOINT (or --endpoint) names a running one.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", help="model path or hub id (not needed with --dry-run)")
    p.add_argument("--env-id", default="game:GuessTheNumber-v0-easy", help="gem-ts env id")
    p.add_argument("--episodes", type=int, default=2048, help="training episodes (seeds 0..N-1)")
    p.add_argument("--endpoint", help="gem-ts server endpoint (default: $GEM_TS_ENDPOINT, else a local server)")
    p.add_argument("--output-dir", default="runs/trl", help="checkpoints and logs")
    p.add_argument("--num-generations", type=int, default=8, help="episodes per seed (GRPO group size)")
    p.add_argument("--batch-size", type=int, default=8, help="per-device train batch size")
    p.add_argument("--max-completion-length", type=int, default=1024, help="token budget of a whole episode")
    p.add_argument("--learning-rate", type=float, default=1e-6)
    p.add_argument("--max-steps", type=int, default=-1)
    p.add_argument("--use-vllm", action="store_true", help="generate with vLLM (colocate mode); vllm==0.33.0 resolves with trl 1.16.0 (docs/training.md)")
    p.add_argument("--tools", action="store_true", help="use environment_factory (tool calls) instead of rollout_func")
    p.add_argument("--dry-run", action="store_true", help="wire everything on CPU with a tiny model and one GRPO step")
    args = p.parse_args(argv)
    if not args.dry_run and not args.model:
        p.error("--model is required (or use --dry-run)")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.endpoint:
        os.environ["GEM_TS_ENDPOINT"] = args.endpoint
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from gem_ts_adapter_kit import seeded_rows
    from gem_ts_trl import GemTsRollout, env_return_reward, environment_dataset, environment_factory, rollout_dataset
    from trl import GRPOConfig, GRPOTrainer

    if args.dry_run:
        from gem_ts_adapter_kit.testing import tiny_chat_tokenizer
        from gem_ts_trl.testing import tiny_causal_lm

        tokenizer = tiny_chat_tokenizer()
        if args.tools:
            tokenizer = tool_call_tokenizer(tokenizer)
        model = tiny_causal_lm(tokenizer)
        config = GRPOConfig(
            output_dir=tempfile.mkdtemp(prefix="gem-ts-trl-"), use_cpu=True, num_generations=2,
            per_device_train_batch_size=2, max_steps=1, max_completion_length=48, report_to=[], save_strategy="no",
        )
        rows = seeded_rows(args.env_id, 2)
    else:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(args.model)
        model = args.model
        config = GRPOConfig(
            output_dir=args.output_dir, num_generations=args.num_generations,
            per_device_train_batch_size=args.batch_size, max_completion_length=args.max_completion_length,
            learning_rate=args.learning_rate, max_steps=args.max_steps, use_vllm=args.use_vllm,
            vllm_mode="colocate", bf16=True, logging_steps=1,
        )
        rows = seeded_rows(args.env_id, args.episodes)

    made = []  # the environment_factory instances TRL created (--tools)

    def factory():
        made.append(environment_factory(args.env_id)())
        return made[-1]

    if args.tools:
        trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=config,
                              train_dataset=environment_dataset(rows), environment_factory=factory)
        if args.dry_run:
            force_tool_calls(trainer, tokenizer)
    else:
        rollout = GemTsRollout(engine=scripted_engine(tokenizer) if args.dry_run else None)
        trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=config, train_dataset=rollout_dataset(rows),
                              reward_funcs=env_return_reward, rollout_func=rollout)
    trainer.train()
    if args.dry_run:
        if args.tools:
            steps, path = sum(e.steps_taken for e in made), f"environment_factory ({len(made)} envs)"
        else:
            steps, path = rollout.env_steps, f"rollout_func ({rollout.episodes} episodes)"
        if steps < 1:
            print(f"dry run FAILED: the {path} path never stepped {args.env_id}", file=sys.stderr)
            return 1
        print(f"dry run ok: 1 GRPO step through {path}, {steps} env steps on {args.env_id}")
    return 0


GUESSES = [1, 2, 3, 4]


def scripted_engine(tokenizer):
    """Dry run: a rollout_func engine that answers with scripted guesses, ended with eos."""
    from gem_ts_adapter_kit.testing import ScriptedReplies, guesses

    replies = ScriptedReplies(tokenizer, guesses(GUESSES))
    return lambda prompts: ([replies.generate(p).token_ids for p in prompts], None)


def tool_call_tokenizer(tokenizer):
    """Dry run with --tools: TRL parses tool calls only from chat templates it knows (Qwen3's)."""
    from trl.chat_template_utils import qwen3_chat_template

    tokenizer.add_tokens(["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"])
    tokenizer.chat_template = qwen3_chat_template
    return tokenizer


def force_tool_calls(trainer, tokenizer):
    """Dry run with --tools: the trainer's generation answers every turn with a `step` tool call
    (a scripted guess), so TRL's own tool loop parses it and calls the env."""
    from itertools import count

    turn = count()

    def generate(prompt_ids, *rest, **kwargs):  # TRL 1.16: -> (completion id lists, logprobs or None)
        guess = GUESSES[next(turn) % len(GUESSES)]
        call = '<tool_call>\n{"name": "step", "arguments": {"action": "\\\\boxed{%d}"}}\n</tool_call>' % guess
        ids = tokenizer.encode(call, add_special_tokens=False) + [tokenizer.eos_token_id]
        return [list(ids) for _ in prompt_ids], None

    trainer._generate_single_turn = generate


if __name__ == "__main__":
    sys.exit(main())
