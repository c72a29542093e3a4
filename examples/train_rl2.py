#!/usr/bin/env python
"""Train a model on a gem-ts env with RL2 and the gem_ts_rl2 adapter.

Writes the prompt rows (JSONL: the episode in extra_info) and launches RL2's PPO trainer with
`rollout.env_path` pointing at the adapter's env module: the released contract (PyPI rl-square
0.0.2, reset/step) by default, or RL2 main's generate/env_step with --main. Each turn's reward is
placed on that turn's last action token; the env's text is appended as observation tokens
(action_mask 0). Extra arguments after `--` go to RL2 as Hydra overrides.

  export GEM_TS_ENDPOINT=tcp://<host>:5555      # a running `gem-ts serve` reachable from rank 0
  python examples/train_rl2.py --model Qwen/Qwen3-1.7B --gpus 8 -- adv.estimator=reinforce
  python examples/train_rl2.py --dry-run        # CPU: the env module's reset/step with scripted replies

Needs: RL2 (rl-square==0.0.2, or main with --main) on GPUs, and
pip install -e core/python -e adapters/kit -e adapters/rl2 (`npm run setup -- --adapter rl2` builds that
venv in adapters/rl2/.venv).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
from pathlib import Path


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", help="model path or hub id (not needed with --dry-run)")
    p.add_argument("--env-id", default="game:GuessTheNumber-v0-easy", help="gem-ts env id")
    p.add_argument("--episodes", type=int, default=4096, help="training episodes (seeds 0..N-1)")
    p.add_argument("--endpoint", help="gem-ts server endpoint (default: $GEM_TS_ENDPOINT)")
    p.add_argument("--data", default="runs/rl2-data/train.jsonl", help="where the JSONL prompt rows go")
    p.add_argument("--gpus", type=int, default=8, help="processes for torchrun")
    p.add_argument("--max-turns", type=int, default=8, help="RL2 0.0.2's rollout.max_turns (its default is 1)")
    p.add_argument("--responses-per-prompt", type=int, default=8)
    p.add_argument("--main", action="store_true", help="target RL2's main branch (generate/env_step) instead of 0.0.2")
    p.add_argument("--dry-run", action="store_true", help="wire everything on CPU: two episodes through the env module")
    p.add_argument("overrides", nargs="*", help="Hydra overrides passed to RL2 (after --)")
    args = p.parse_args(argv)
    if not args.dry_run and not args.model:
        p.error("--model is required (or use --dry-run)")
    return args


def dry_run(args) -> int:
    import gem_ts_rl2
    from gem_ts_adapter_kit import EnvRow
    from gem_ts_adapter_kit.sessions import close_loop_leases
    from gem_ts_adapter_kit.testing import ScriptedReplies, guesses, tiny_chat_tokenizer
    from gem_ts_rl2 import env_v002

    tokenizer = tiny_chat_tokenizer()
    gem_ts_rl2.configure(tokenizer)
    replies = ScriptedReplies(tokenizer, guesses([1, 2, 3, 4]))

    async def episode(seed):
        # RL2 0.0.2's side of the contract: reset, then step with the model's text until done.
        state, extra_info = await env_v002.reset({"gem_ts": EnvRow(args.env_id, seed).to_json()})
        rewards = []
        for _ in range(args.max_turns):
            action = replies.generate(tokenizer.encode(state, add_special_tokens=False)).text
            out = await env_v002.step(state, action, extra_info)
            rewards.append(out["reward"])
            state, extra_info = out["next_state"], out["extra_info"]
            if out["done"]:
                break
        return rewards

    async def go():
        try:
            return await asyncio.gather(*(episode(s) for s in range(2)))
        finally:
            await close_loop_leases()

    results = asyncio.run(go())
    env_steps = sum(len(r) for r in results)  # one reward per env_v002.step
    if env_steps < 1:
        print("dry run FAILED: the env was never stepped", file=sys.stderr)
        return 1
    print(f"dry run ok: {len(results)} episodes through gem_ts_rl2.env_v002, {env_steps} env steps, per-turn rewards {results}")
    return 0


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.endpoint:
        os.environ["GEM_TS_ENDPOINT"] = args.endpoint
    if args.dry_run:
        return dry_run(args)
    import gem_ts_rl2
    from gem_ts_adapter_kit import seeded_rows

    data = gem_ts_rl2.write_prompt_rows(Path(args.data), seeded_rows(args.env_id, args.episodes), main=args.main)
    os.environ.setdefault("GEM_TS_TOKENIZER", args.model)
    os.environ.setdefault("GEM_TS_MAX_TURNS", str(args.max_turns))
    if args.main:
        settings = [f"rollout.train.path={data}", f"rollout.train.responses_per_prompt={args.responses_per_prompt}",
                    f"rollout.env_path={gem_ts_rl2.ENV_PATH_MAIN}"]
    else:
        settings = [f"train_data.path={data}", f"train_data.responses_per_prompt={args.responses_per_prompt}",
                    f"rollout.env_path={gem_ts_rl2.ENV_PATH_V002}", f"rollout.max_turns={args.max_turns}",
                    "+rollout.train_sampling_params.skip_special_tokens=false"]
    command = ["torchrun", f"--nproc_per_node={args.gpus}", "-m", "RL2.trainer.ppo",
               f"actor.model_name={args.model}", *settings, *args.overrides]
    print("+", " ".join(command), flush=True)
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main())
