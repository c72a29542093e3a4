#!/usr/bin/env python
"""Train a model on a gem-ts env with OpenRLHF 0.11 (agent executor) and the gem_ts_openrlhf adapter.

Writes the prompt rows (JSONL: the episode as the label) and launches OpenRLHF's Ray PPO trainer
with `--train.agent_func_path` pointing at the adapter's AgentExecutor: each sample plays one
episode, the env's replies are appended in the model's chat template (masked: only action_ranges
train), and the per-turn rewards sum into the sample's reward. Extra arguments after `--` go to
OpenRLHF unchanged.

  export GEM_TS_ENDPOINT=tcp://<host>:5555      # a running `gem-ts serve` reachable from every vLLM actor
  python examples/train_openrlhf.py --model Qwen/Qwen3-1.7B -- --actor.num_gpus_per_node 8
  python examples/train_openrlhf.py --dry-run   # CPU: OpenRLHF's real executor, scripted vLLM engine

Needs: openrlhf[vllm]==0.11.2 on GPUs, and pip install -e core/python -e adapters/kit -e adapters/openrlhf
(`npm run setup -- --adapter openrlhf` builds that venv in adapters/openrlhf/.venv).
"""
from __future__ import annotations

import argparse
import asyncio
import importlib.util
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
    p.add_argument("--data", default="runs/openrlhf-data/train.jsonl", help="where the JSONL prompt rows go")
    p.add_argument("--n-samples", type=int, default=8, help="episodes per seed")
    p.add_argument("--max-len", type=int, default=4096, help="token budget of a whole episode")
    p.add_argument("--dry-run", action="store_true", help="wire everything on CPU: two episodes through OpenRLHF's executor")
    p.add_argument("extra", nargs="*", help="arguments passed to openrlhf.cli.train_ppo_ray (after --)")
    args = p.parse_args(argv)
    if not args.dry_run and not args.model:
        p.error("--model is required (or use --dry-run)")
    return args


def dry_run(args) -> int:
    from gem_ts_adapter_kit import EnvRow
    from gem_ts_adapter_kit.sessions import close_loop_leases
    from gem_ts_adapter_kit.testing import guesses, tiny_chat_tokenizer
    from gem_ts_openrlhf import AGENT_FUNC_PATH
    from gem_ts_openrlhf.testing import ScriptedLLMEngine, StandInSamplingParams

    spec = importlib.util.spec_from_file_location("agent_module", AGENT_FUNC_PATH)  # as OpenRLHF loads it
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    executor = module.AgentExecutor()
    tokenizer = tiny_chat_tokenizer()
    engine = ScriptedLLMEngine(tokenizer, guesses([1, 2, 3, 4]))

    async def go():
        try:
            return await asyncio.gather(*(
                executor.execute("", EnvRow(args.env_id, s).to_json(), StandInSamplingParams(), 1024, tokenizer, engine)
                for s in range(2)
            ))
        finally:
            await close_loop_leases()

    outs = asyncio.run(go())
    env_steps = sum(len(o["action_ranges"]) for o in outs)  # each model action went to env.step
    if env_steps < 1:
        print("dry run FAILED: the env was never stepped", file=sys.stderr)
        return 1
    print(f"dry run ok: {len(outs)} episodes through OpenRLHF's MultiTurnAgentExecutor, {env_steps} env steps, "
          f"turns {[len(o['action_ranges']) for o in outs]}, rewards {[o['reward'] for o in outs]}")
    return 0


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.endpoint:
        os.environ["GEM_TS_ENDPOINT"] = args.endpoint
    if args.dry_run:
        return dry_run(args)
    from gem_ts_adapter_kit import seeded_rows
    from gem_ts_openrlhf import AGENT_FUNC_PATH, write_prompt_rows

    data = write_prompt_rows(Path(args.data), seeded_rows(args.env_id, args.episodes))
    command = [
        sys.executable, "-m", "openrlhf.cli.train_ppo_ray",
        "--actor.model_name_or_path", args.model,
        "--train.agent_func_path", str(AGENT_FUNC_PATH),
        "--data.prompt_dataset", str(data), "--data.input_key", "prompt", "--data.label_key", "label",
        "--data.apply_chat_template", "--data.max_len", str(args.max_len),
        "--rollout.n_samples_per_prompt", str(args.n_samples),
        "--algo.advantage.estimator", "reinforce_baseline",
        *args.extra,
    ]
    print("+", " ".join(command), flush=True)
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main())
