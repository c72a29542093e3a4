"""verl: the per-sample agent loop vs the batch-level hook, on one batch, in the same run.

Both trainers of verl 0.9, each with its real workers: v0 (classic: `AgentLoopWorker`, and
`GemTsBatchAgentLoopWorker` for the hook) and v1 (the default `main_ppo`: `AgentLoopWorkerTQ` and
`GemTsBatchAgentLoopWorkerTQ`, trajectories through a real TransferQueue), over the same parquet batch of GuessTheNumber episodes, with the LLM server stood in for by scripted
replies that each take a random 0..--gen-ms milliseconds (so the samples reach the env out of step,
as real generations do). For each: server requests for the batch (read from the server's own
`stats`), env steps per request, and wall time. Alternates the two for --rounds rounds. Writes
core/bench/results/verl_batch_hook.json. Needs the verl venv:

    adapters/verl/.venv/bin/python core/bench/verl_batch_hook.py [--episodes 256] [--gen-ms 20] [--rounds 3] [--trainers v0 v1]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import gem_ts
from gem_ts import LocalServer
from gem_ts_adapter_kit import seeded_rows
from gem_ts_adapter_kit.sessions import close_loop_leases
from gem_ts_adapter_kit.testing import guesses, tiny_chat_tokenizer
from gem_ts_verl import AGENT_LOOP_CONFIG, write_prompt_rows
from gem_ts_verl.batch import GemTsBatchAgentLoopWorker
from gem_ts_verl.testing import (ScriptedServerManager, run_worker, run_worker_tq, start_transfer_queue, stop_transfer_queue,
                                 verl_config, write_tiny_model_dir)

ENV = "game:GuessTheNumber-v0-easy"
RESULTS = Path(__file__).resolve().parent / "results" / "verl_batch_hook.json"


class TimedReplies(ScriptedServerManager):
    def __init__(self, tokenizer, replies, gen_ms: float, seed: int):
        super().__init__(tokenizer, replies)
        self.gen_s, self.rng = gen_ms / 1000, random.Random(seed)

    async def generate(self, request_id, **kwargs):
        await asyncio.sleep(self.rng.random() * self.gen_s)
        return await super().generate(request_id, **kwargs)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--episodes", type=int, default=256)
    p.add_argument("--gen-ms", type=float, default=20.0, help="each scripted generation takes U(0, gen-ms) ms")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--trainers", nargs="+", choices=["v0", "v1"], default=["v0", "v1"])
    args = p.parse_args()

    work = Path(tempfile.mkdtemp(prefix="gem-ts-verl-bench-"))
    tokenizer = tiny_chat_tokenizer()
    model = write_tiny_model_dir(work / "model", tokenizer)
    train = write_prompt_rows(work / "train.parquet", seeded_rows(ENV, args.episodes))
    cfg = verl_config(model, train, AGENT_LOOP_CONFIG, response_length=512, overrides=["actor_rollout_ref.rollout.n=1"])
    replies = guesses([1, 2, 3, 4])
    server = LocalServer(["--idle-timeout-ms", "600000"])
    os.environ["GEM_TS_ENDPOINT"] = server.endpoint
    stats = gem_ts.Client(server.endpoint, heartbeat=False)

    def requests() -> int:
        return int(stats.stats()["server"]["requests"])

    def env_steps_v0(out) -> int:
        return sum(len(t) for t in out.non_tensor_batch["turn_scores"])

    def env_steps_v1(out) -> int:
        trajectories, status, _ = out
        assert set(status.values()) == {"finished"}, status
        return sum((int(t["num_turns"]) - 1) // 2 for t in trajectories.values())  # num_turns = 2 x steps + 1

    kinds = {"v0": (run_worker, env_steps_v0, GemTsBatchAgentLoopWorker)}
    if "v1" in args.trainers:
        from gem_ts_verl.batch_tq import GemTsBatchAgentLoopWorkerTQ

        start_transfer_queue()
        kinds["v1"] = (run_worker_tq, env_steps_v1, GemTsBatchAgentLoopWorkerTQ)
    runs: dict = {f"{t}_{name}": [] for t in args.trainers for name in ("per_sample", "batch_hook")}
    try:
        for r in range(args.rounds):
            for trainer in args.trainers:
                run, env_steps, hook = kinds[trainer]
                for name, worker in (("per_sample", None), ("batch_hook", hook)):

                    async def go(run=run, worker=worker):
                        try:
                            return await run(cfg, TimedReplies(tokenizer, replies, args.gen_ms, r), worker)
                        finally:
                            await close_loop_leases()

                    before = requests()
                    t0 = time.perf_counter()
                    out = asyncio.run(go())
                    wall = time.perf_counter() - t0
                    used = requests() - before - 1  # minus this stats call's own request
                    steps = env_steps(out)
                    runs[f"{trainer}_{name}"].append({"requests": used, "env_steps": steps, "wall_s": wall})
                    print(f"round {r} {trainer} {name:10s}: {used:5d} requests for {steps} env steps "
                          f"({steps / used:6.1f} per request), {wall:.2f} s", flush=True)
    finally:
        stats.close()
        server.stop()
        if "v1" in args.trainers:
            stop_transfer_queue()

    summary = {
        name: {
            "requests": statistics.median(x["requests"] for x in xs),
            "env_steps": xs[0]["env_steps"],
            "steps_per_request": statistics.median(x["env_steps"] / x["requests"] for x in xs),
            "wall_s": statistics.median(x["wall_s"] for x in xs),
        }
        for name, xs in runs.items()
    }
    for t in args.trainers:
        a, b = summary[f"{t}_per_sample"], summary[f"{t}_batch_hook"]
        summary[f"{t}_ratio_requests_per_sample_over_hook"] = a["requests"] / b["requests"]
        summary[f"{t}_ratio_wall_hook_over_per_sample"] = b["wall_s"] / a["wall_s"]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"settings": vars(args), "load_average": os.getloadavg(), "runs": runs, "summary": summary}, indent=2))
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
