"""gem_ts.ray scale-out benchmark on a real local Ray cluster (ray.cluster_utils.Cluster, 3 raylets).

One sharded client (``pool.make_vec``) steps ``--envs`` envs over 1, 2 and 3 servers of one pool, in
the same run, rounds interleaved; for each: env-steps/s (wall) and env-steps per CPU-second (server
Node processes + this client, from /proc), and the bytes a step moves per env (server counters are not
needed: the client's ZeroMQ traffic is estimated from the reply rows). Then failover: ``--kills``
times, a kill -9 of one server's Node process during the rollout, timing the lost report and the
first new episode on a live server (autoreset mode: the same step). Writes
core/bench/results/ray_scale.json.

    nice -n 10 .venv/bin/python core/bench/ray_scale.py [--envs 384,1536] [--seconds 4] [--rounds 2] [--kills 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import time
from pathlib import Path
from typing import Any, Dict, List

from gem_ts.ray import EnvServerPool
from gem_ts.ray.testing import start_local_cluster, stop_local_cluster

ENV = "game:GuessTheNumber-v0-easy"
RESULTS = Path(__file__).resolve().parent / "results" / "ray_scale.json"
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """utime + stime of a process (its own, not its children's), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def own_cpu_s() -> float:
    t = os.times()
    return t.user + t.system


def actions(n: int, rng: random.Random) -> List[str]:
    return [f"\\boxed{{{rng.randint(1, 10)}}}" for _ in range(n)]


def measure(pool: EnvServerPool, servers: int, envs: int, seconds: float, rng: random.Random) -> Dict[str, Any]:
    with pool.make_vec(ENV, num_envs=envs, shards=servers) as vec:
        vec.reset(seed=rng.randint(0, 10_000))
        pids = sorted({s.server["pid"] for s in vec.shards})
        vec.step(actions(envs, rng))  # warm: first step of each shard
        client0, server0 = own_cpu_s(), sum(cpu_s(p) for p in pids)
        t0 = time.perf_counter()
        steps = 0
        obs_chars = 0
        while time.perf_counter() - t0 < seconds:
            obs, *_ = vec.step(actions(envs, rng))
            steps += envs
            obs_chars += sum(len(o) for o in obs)
        wall = time.perf_counter() - t0
        client_cpu, server_cpu = own_cpu_s() - client0, sum(cpu_s(p) for p in pids) - server0
        cpu = client_cpu + server_cpu
    return {
        "servers": servers,
        "env_steps": steps,
        "wall_s": wall,
        "cpu_s": cpu,
        "client_cpu_s": client_cpu,
        "server_cpu_s": server_cpu,
        "messages_per_s": steps / envs * servers / wall,
        "env_steps_per_server_cpu_s": steps / server_cpu,
        "env_steps_per_s": steps / wall,
        "env_steps_per_cpu_s": steps / cpu,
        "obs_chars_per_env_step": obs_chars / max(steps, 1),
    }


def failover(pool: EnvServerPool, envs: int, rng: random.Random) -> Dict[str, float]:
    pool.wait_ready(count=3, timeout=120)
    with pool.make_vec(ENV, num_envs=envs, on_lost="autoreset") as vec:
        vec.reset(seed=1)
        for _ in range(3):
            vec.step(actions(envs, rng))
        victim = vec.shards[-1]
        held = set(victim.indices)
        os.kill(victim.server["pid"], signal.SIGKILL)
        killed = time.monotonic()
        while True:
            obs, _, _, _, infos = vec.step(actions(envs, rng))
            if any(i.get("env_lost") for i in infos):
                break
        done = time.monotonic()
        lost_report = vec.lost_log[0]["t"] - killed
        assert {g for g, i in enumerate(infos) if i.get("env_lost")} == held
        assert all(obs[g] for g in held)  # the new episodes' first observations, from a live server
    node, boot = victim.server["node_id"], victim.server["boot_id"]
    while not any(s["node_id"] == node and s["boot_id"] != boot for s in pool.servers()):
        time.sleep(0.1)  # the actor restarts the Node process: measured, and awaited before the next kill
    return {"lost_report_s": lost_report, "first_new_episode_s": done - killed, "server_restarted_s": time.monotonic() - killed}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--envs", default="384,1536", help="comma-separated sizes of the one sharded vector env")
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--kills", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(0)
    cluster, _ = start_local_cluster(nodes=3, num_cpus=1)
    pool = EnvServerPool("bench", num_cpus=1, server_args=["--idle-timeout-ms", "120000"], health_interval_s=0.3)
    try:
        pool.wait_ready(count=3, timeout=300)
        sizes = [int(x) for x in args.envs.split(",")]
        runs: Dict[str, List[Dict[str, Any]]] = {f"{e}x{n}": [] for e in sizes for n in (1, 2, 3)}
        for _ in range(args.rounds):
            for e in sizes:
                for n in (1, 2, 3):
                    runs[f"{e}x{n}"].append({"envs": e, **measure(pool, n, e, args.seconds, rng)})
        best = {k: max(r, key=lambda x: x["env_steps_per_cpu_s"]) for k, r in runs.items()}
        kills = [failover(pool, sizes[0], rng) for _ in range(args.kills)]
        out = {
            "env": ENV,
            "envs": sizes,
            "seconds": args.seconds,
            "rounds": args.rounds,
            "load_average": os.getloadavg(),
            "cpus": os.cpu_count(),
            "runs": runs,
            "best": best,
            "failover": kills,
            "failover_max": {k: max(x[k] for x in kills) for k in ("lost_report_s", "first_new_episode_s", "server_restarted_s")},
        }
    finally:
        pool.shutdown()
        stop_local_cluster(cluster)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    for k, b in best.items():
        print(
            f"{b['envs']} envs over {b['servers']} server(s): {b['env_steps_per_s']:,.0f} env-steps/s, {b['env_steps_per_cpu_s']:,.0f} per CPU-second "
            f"({b['env_steps_per_server_cpu_s']:,.0f} per server CPU-second; client {b['client_cpu_s']:.2f} s, servers {b['server_cpu_s']:.2f} s)"
        )
    print("failover:", out["failover_max"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
