#!/usr/bin/env python
"""Train a model on a gem-ts env with verl 0.9 (AgentLoop) and the gem_ts_verl adapter.

Writes the prompt rows (one parquet row per episode: env id + seed) and launches verl's PPO entry
point with the gem-ts agent loop registered: every sample plays one episode turn by turn through
verl's LLM server, observation tokens are masked out (response_mask 0) and the episode's summed
reward is the trajectory's reward_score. Extra arguments after `--` go to verl as Hydra overrides.

  python examples/train_verl.py --model Qwen/Qwen3-1.7B --gpus 8 -- trainer.total_epochs=3
  python examples/train_verl.py --dry-run     # CPU: verl's real AgentLoopWorkerTQ and TransferQueue, scripted LLM server
  python examples/train_verl.py --dry-run --batch-hook   # the same through the batch-level hook's worker
  python examples/train_verl.py --dry-run --trainer v0   # verl's classic trainer (main_ppo_v0, AgentLoopWorker)

verl 0.9's `verl.trainer.main_ppo` is its TransferQueue trainer (v1): workers put each finished
trajectory into the queue. `--trainer v0` launches the classic `verl.trainer.main_ppo_v0`, whose
workers return the whole batch. The gem-ts loop runs in both; `--batch-hook` picks the matching
manager (gem_ts_verl.batch_tq.GemTsAgentLoopManagerTQ or gem_ts_verl.batch.GemTsAgentLoopManager).

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


#: --trainer -> (verl's entry point, the batch hook's manager class for it)
TRAINERS = {
    "v1": ("verl.trainer.main_ppo", "gem_ts_verl.batch_tq.GemTsAgentLoopManagerTQ"),
    "v0": ("verl.trainer.main_ppo_v0", "gem_ts_verl.batch.GemTsAgentLoopManager"),
}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", help="model path or hub id (not needed with --dry-run)")
    p.add_argument("--env-id", default="game:GuessTheNumber-v0-easy", help="gem-ts env id")
    p.add_argument("--episodes", type=int, default=4096, help="training episodes (seeds 0..N-1)")
    p.add_argument("--val-episodes", type=int, default=128, help="validation episodes (seeds after the training ones)")
    p.add_argument("--endpoint", help="gem-ts server endpoint (default: $GEM_TS_ENDPOINT, else a local server per worker)")
    p.add_argument("--ray-pool", metavar="NAME", help="start gem_ts.ray.EnvServerPool NAME on the Ray cluster ($RAY_ADDRESS, else auto): each agent-loop worker plays on its own node's server")
    p.add_argument("--env-cpus", type=float, default=2, help="CPUs each node's gem-ts server reserves (with --ray-pool)")
    p.add_argument("--batch-hook", action="store_true", help="verl's batch-level hook: each agent-loop worker resets and steps its whole chunk of the batch together, one gem-ts call per env config per turn (the manager matching --trainer)")
    p.add_argument("--trainer", choices=["v1", "v0"], default="v1", help="verl's trainer: v1 = verl.trainer.main_ppo (TransferQueue), v0 = verl.trainer.main_ppo_v0 (classic)")
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
    """One batch of 2 episodes through verl's real worker for --trainer (only the LLM is scripted)."""
    from gem_ts_adapter_kit import seeded_rows
    from gem_ts_adapter_kit.sessions import close_loop_leases
    from gem_ts_adapter_kit.testing import guesses, tiny_chat_tokenizer
    from gem_ts_verl import AGENT_LOOP_CONFIG, write_prompt_rows
    from gem_ts_verl.testing import ScriptedServerManager, verl_config, write_tiny_model_dir

    work = Path(tempfile.mkdtemp(prefix="gem-ts-verl-"))
    tokenizer = tiny_chat_tokenizer()
    model = write_tiny_model_dir(work / "model", tokenizer)
    train = write_prompt_rows(work / "train.parquet", seeded_rows(args.env_id, 2))
    overrides = ["actor_rollout_ref.rollout.n=1", *args.overrides]
    cfg = verl_config(model, train, AGENT_LOOP_CONFIG, response_length=256, overrides=overrides)
    server = ScriptedServerManager(tokenizer, guesses([1, 2, 3, 4]))

    async def go(run):
        try:
            return await run()
        finally:
            await close_loop_leases()

    if args.trainer == "v0":
        from gem_ts_verl.testing import run_worker

        worker_class = None
        if args.batch_hook:
            from gem_ts_verl.batch import GemTsBatchAgentLoopWorker as worker_class
        out = asyncio.run(go(lambda: run_worker(cfg, server, worker_class)))
        scores = out.batch["rm_scores"].sum(-1).tolist()
        turns = [len(t) for t in out.non_tensor_batch["turn_scores"]]  # one score per env step
        calls = out.meta_info.get("gem_ts_calls")
        worker = "GemTsBatchAgentLoopWorker (lockstep)" if args.batch_hook else "AgentLoopWorker"
    else:
        from gem_ts_verl.testing import run_worker_tq, start_transfer_queue, stop_transfer_queue

        worker_class = None
        if args.batch_hook:
            from gem_ts_verl.batch_tq import GemTsBatchAgentLoopWorkerTQ as worker_class
        start_transfer_queue()
        try:
            trajectories, status, tq_worker = asyncio.run(go(lambda: run_worker_tq(cfg, server, worker_class)))
        finally:
            stop_transfer_queue()
        if set(status.values()) != {"finished"}:
            print(f"dry run FAILED: prompt status in the TransferQueue {status}", file=sys.stderr)
            return 1
        ordered = [trajectories[k] for k in sorted(trajectories)]
        scores = [float(t["rm_scores"].sum()) for t in ordered]
        turns = [(int(t["num_turns"]) - 1) // 2 for t in ordered]  # num_turns = 2 x env steps + 1
        calls = getattr(tq_worker, "gem_ts_calls", None)
        worker = "GemTsBatchAgentLoopWorkerTQ (lockstep)" if args.batch_hook else "AgentLoopWorkerTQ"
        worker += " into a TransferQueue"
    env_steps = sum(turns)
    if env_steps < 1:
        print("dry run FAILED: the env was never stepped", file=sys.stderr)
        return 1
    calls_text = f", gem-ts calls {dict(calls)}" if args.batch_hook else ""
    print(f"dry run ok: {len(scores)} episodes through verl's {worker}, {env_steps} env steps, turns {turns}, rewards {scores}{calls_text}")
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
        sys.executable, "-m", TRAINERS[args.trainer][0],
        "algorithm.adv_estimator=grpo",
        f"data.train_files={train}", f"data.val_files={val}",
        f"actor_rollout_ref.model.path={args.model}",
        f"actor_rollout_ref.rollout.name={args.rollout}",
        f"actor_rollout_ref.rollout.n={args.n}",
        f"actor_rollout_ref.rollout.response_length={args.response_length}",
        "actor_rollout_ref.rollout.calculate_log_probs=True",
        f"actor_rollout_ref.rollout.agent.agent_loop_config_path={loops}",
        "actor_rollout_ref.rollout.agent.default_agent_loop=gem_ts",
        *([f"actor_rollout_ref.rollout.agent.agent_loop_manager_class={TRAINERS[args.trainer][1]}"] if args.batch_hook else []),
        f"trainer.n_gpus_per_node={args.gpus}",
        *args.overrides,
    ]
    print("+", " ".join(command), flush=True)
    return subprocess.call(command, env=env)


if __name__ == "__main__":
    sys.exit(main())
