#!/usr/bin/env python
"""Train a model on a gem-ts env with oat 0.2 multi-turn PPO and the gem_ts_oat adapter.

oat's actor plays gem-ts episodes (one vector env, --num-envs at a time) and returns per-turn
transitions with dense turn rewards; the learner computes turn-level GAE (critic) or discounted
returns (--gamma, no critic). All of oat's PPO flags work (tyro), plus --env-id, --num-envs,
--wrappers, --env-seed, --system-prompt.

  python examples/train_oat.py --pretrain Qwen/Qwen3-1.7B --gpus 1 --collocate --vllm-sleep \
      --train-batch-size-per-device 1 --num-gpus-per-actor 1 --gamma 1.0 --env-id game:GuessTheNumber-v0-easy
  python examples/train_oat.py --dry-run      # CPU: the collector with scripted replies

Needs: Python 3.10 with oat-llm==0.2.4 and its GPU stack (vLLM, DeepSpeed, launchpad), and
pip install -e core/python -e adapters/kit -e adapters/oat (`npm run setup -- --adapter oat` builds that
venv in adapters/oat/.venv; the gem-ts wheel may stand in for core/python). --dry-run needs only oat.types.
"""
from __future__ import annotations

import argparse
import sys


def dry_run(argv) -> int:
    p = argparse.ArgumentParser(description="dry run of " + __doc__.splitlines()[0])
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--env-id", default="game:GuessTheNumber-v0-easy")
    args = p.parse_args(argv)
    from types import SimpleNamespace

    from gem_ts_adapter_kit.testing import ScriptedReplies, guesses, tiny_chat_tokenizer
    from gem_ts_oat import GemTsCollector, GemTsEnvConfig

    tokenizer = tiny_chat_tokenizer()
    replies = ScriptedReplies(tokenizer, guesses([1, 2, 3, 4]))

    def generate(prompts, sampling_params):  # stands in for oat's vLLM-backed ActorBase.generate
        outs = []
        for prompt in prompts:
            ids = tokenizer.encode(prompt, add_special_tokens=False)
            r = replies.generate(ids)
            logprobs = [{t: SimpleNamespace(logprob=lp)} for t, lp in zip(r.token_ids, r.logprobs)]
            sample = SimpleNamespace(text=tokenizer.decode(r.token_ids, skip_special_tokens=True), token_ids=r.token_ids,
                                     logprobs=logprobs, finish_reason=r.finish_reason)
            outs.append(SimpleNamespace(prompt_token_ids=ids, outputs=[sample]))
        return outs

    collector = GemTsCollector(GemTsEnvConfig(env_id=args.env_id, num_envs=2, min_transitions=1), tokenizer)
    episodes, info = collector.collect(generate, None)
    collector.close()
    env_steps = sum(len(e) for e in episodes)  # one Transition per env step
    if env_steps < 1:
        print("dry run FAILED: the env was never stepped", file=sys.stderr)
        return 1
    print(f"dry run ok: {len(episodes)} episodes as oat Transitions, {env_steps} env steps, turns {[len(e) for e in episodes]}, "
          f"turn rewards {[[t.rewards for t in e] for e in episodes]}")
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--dry-run" in argv:
        return dry_run(argv)
    if "-h" in argv or "--help" in argv:
        try:
            import tyro
            from gem_ts_oat.oat_classes import GemTsArgs
        except ImportError as err:  # oat's GPU stack is missing: say what this file does anyway
            print(__doc__)
            print(f"(oat's full flag list needs oat's install: {err})")
            return 0
        tyro.cli(GemTsArgs, args=["--help"], description=__doc__)
    import launchpad as lp
    import tyro
    from gem_ts_oat.oat_classes import GemTsActor, GemTsArgs, GemTsLearner
    from oat.interface import get_program

    args = tyro.cli(GemTsArgs, args=argv, description=__doc__)
    args.algo, args.oracle, args.prompt_data = "PPO", "", ""
    program, resources = get_program(args, learner_cls=GemTsLearner, actor_cls=GemTsActor)
    lp.launch(program, launch_type=args.launch_type, local_resources=resources, terminal="current_terminal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
