#!/usr/bin/env python
"""Train a model on a gem-ts env with verl 0.9 (AgentLoop) and the gem_ts_verl adapter.

Writes the prompt rows (one parquet row per episode: env id + seed) and launches verl's PPO entry
point with the gem-ts agent loop registered: every sample plays one episode turn by turn through
verl's LLM server, observation tokens are masked out (response_mask 0) and the episode's summed
reward is the trajectory's reward_score. Extra arguments after `--` go to verl as Hydra overrides.

  python examples/train_verl.py --model Qwen/Qwen3-1.7B --gpus 8 -- trainer.total_epochs=3
  python examples/train_verl.py --dry-run     # CPU: verl's real AgentLoopWorker, scripted LLM server
  python examples/train_verl.py --dry-run --batch-hook   # the same through the batch-level hook's worker

Needs: pip install -e core/python -e adapters/kit -e adapters/verl (plus vllm or sglang on GPUs);
`npm run setup -- --adapter verl` builds that venv in adapters/verl/.venv.
The gem-ts server: --endpoint / $GEM_TS_ENDPOINT reachable from every Ray worker, else one local
server per agent-loop worker; or --ray-pool NAME: one server per Ray node (gem_ts.ray), each worker
on its own node's (docs/scale.md).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", help="model path or hub id (not needed with --dry-run)")
    p.add_argument("--env-id", default="game:GuessTheNumber-v0-easy", help="gem-ts env id")
    p.add_argument("--episodes", type=int, default=4096, help="training episodes (seeds 0..N-1)")
    p.add_argument("--val-episodes", type=int, default=128, help="validation episodes (seeds after the training ones)")
    p.add_argument("--endpoint", help="gem-ts server endpoint (default: $GEM_TS_ENDPOINT, else a local server per worker)")
    p.add_argument("--ray-pool", metavar="NAME", help="start gem_ts.ray.EnvServerPool NAME on the Ray cluster ($RAY_ADDRESS, else auto): each agent-loop worker plays on its own node's server")
    p.add_argument("--env-cpus", type=float, default=2, help="CPUs each node's gem-ts server reserves (with --ray-pool)")
    p.add_argument("--batch-hook", action="store_true", help="verl's batch-level hook: each agent-loop worker resets and steps its whole chunk of the batch together, one gem-ts call per env config per turn (gem_ts_verl.batch.GemTsAgentLoopManager)")
    p.add_argument("--data-dir", default="runs/verl-data", help="where the parquet prompt rows go")
    p.add_argument("--gpus", type=int, default=8, help="GPUs per node")
    p.add_argument("--rollout", default="vllm", choices=["vllm", "sglang"], help="verl rollout backend")
    p.add_argument("--n", type=int, default=8, help="episodes per seed (GRPO group size)")
    p.add_argument("--response-length", type=int, default=2048, help="token budget of a whole episode")
    p.add_argument("--dry-run", action="store_true", help="wire everything on CPU: one batch through verl's AgentLoopWorker")
    p.add_argument("overrides", nargs="*", help="Hydra overrides passed to verl (after --)")
    args = p.parse_args(argv)
    if not args.dry_run and not args.model:
        p.error("--model is required (or use --dry-run)")
    if args.ray_pool and (args.dry_run or args.endpoint):
        p.error("--ray-pool needs a Ray cluster and replaces --endpoint; its CPU check is adapters/verl/tests/test_ray_pool_loop.py")
    return args


def dry_run(args) -> int:
    from gem_ts_adapter_kit import seeded_rows
    from gem_ts_adapter_kit.sessions import close_loop_leases
    from gem_ts_adapter_kit.testing import guesses, tiny_chat_tokenizer
    from gem_ts_verl import AGENT_LOOP_CONFIG, write_prompt_rows
    from gem_ts_verl.testing import ScriptedServerManager, run_worker, verl_config, write_tiny_model_dir

    worker_class = None
    if args.batch_hook:
        from gem_ts_verl.batch import GemTsBatchAgentLoopWorker as worker_class

    work = Path(tempfile.mkdtemp(prefix="gem-ts-verl-"))
    tokenizer = tiny_chat_tokenizer()
    model = write_tiny_model_dir(work / "model", tokenizer)
    train = write_prompt_rows(work / "train.parquet", seeded_rows(args.env_id, 2))
    cfg = verl_config(model, train, AGENT_LOOP_CONFIG, response_length=256, overrides=args.overrides)

    async def go():
        try:
            return await run_worker(cfg, ScriptedServerManager(tokenizer, guesses([1, 2, 3, 4])), worker_class)
        finally:
            await close_loop_leases()

    out = asyncio.run(go())
    scores = out.batch["rm_scores"].sum(-1).tolist()
    turns = [len(t) for t in out.non_tensor_batch["turn_scores"]]  # one score per env step
    env_steps = sum(turns)
    if env_steps < 1:
        print("dry run FAILED: the env was never stepped", file=sys.stderr)
        return 1
    worker = "GemTsBatchAgentLoopWorker (lockstep)" if args.batch_hook else "AgentLoopWorker"
    calls = f", gem-ts calls {out.meta_info['gem_ts_calls']}" if args.batch_hook else ""
    print(f"dry run ok: {len(scores)} episodes through verl's {worker}, {env_steps} env steps, turns {turns}, rewards {scores}{calls}")
    return 0


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.endpoint:
        os.environ["GEM_TS_ENDPOINT"] = args.endpoint
    if args.dry_run:
        return dry_run(args)
    from gem_ts_adapter_kit import seeded_rows
    from gem_ts_verl import AGENT_LOOP_CONFIG, write_prompt_rows

    data = Path(args.data_dir)
    train = write_prompt_rows(data / "train.parquet", seeded_rows(args.env_id, args.episodes))
    val = write_prompt_rows(data / "val.parquet", seeded_rows(args.env_id, args.val_episodes, first_seed=args.episodes))
    loops, env = AGENT_LOOP_CONFIG, dict(os.environ)
    if args.ray_pool:
        import ray
        from gem_ts.ray import EnvServerPool
        from gem_ts_verl import pool_agent_loop_config

        ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
        pool = EnvServerPool(args.ray_pool, num_cpus=args.env_cpus)  # lives while this launcher waits on verl
        print(f"gem-ts pool {args.ray_pool!r}: {len(pool.wait_ready())} servers", flush=True)
        loops = pool_agent_loop_config(data / "agent_loops.yaml", args.ray_pool)
        env["RAY_ADDRESS"] = ray.get_runtime_context().gcs_address  # verl's ray.init joins this cluster
    command = [
        sys.executable, "-m", "verl.trainer.main_ppo",
        "algorithm.adv_estimator=grpo",
        f"data.train_files={train}", f"data.val_files={val}",
        f"actor_rollout_ref.model.path={args.model}",
        f"actor_rollout_ref.rollout.name={args.rollout}",
        f"actor_rollout_ref.rollout.n={args.n}",
        f"actor_rollout_ref.rollout.response_length={args.response_length}",
        "actor_rollout_ref.rollout.calculate_log_probs=True",
        f"actor_rollout_ref.rollout.agent.agent_loop_config_path={loops}",
        "actor_rollout_ref.rollout.agent.default_agent_loop=gem_ts",
        *(["actor_rollout_ref.rollout.agent.agent_loop_manager_class=gem_ts_verl.batch.GemTsAgentLoopManager"] if args.batch_hook else []),
        f"trainer.n_gpus_per_node={args.gpus}",
        *args.overrides,
    ]
    print("+", " ".join(command), flush=True)
    return subprocess.call(command, env=env)


if __name__ == "__main__":
    sys.exit(main())
