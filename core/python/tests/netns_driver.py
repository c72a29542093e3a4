"""The driver of test_ray_netns.py, run inside the head's network namespace: joins the two-host Ray
cluster at argv[1], starts a pool, plays across the virtual wire, kills one server, and prints one
JSON line of what it saw (the test asserts on it)."""
from __future__ import annotations

import json
import os
import signal
import sys
import time

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

import gem_ts
import gem_ts.ray
from gem_ts.ray import EnvLostError, EnvServerPool, current_node_id

EASY = "game:GuessTheNumber-v0-easy"
GUESS = "\\boxed{5}"


@ray.remote(num_cpus=0)
def play_on_this_node(pool_name: str) -> dict:
    client = gem_ts.ray.connect(pool_name)
    try:
        env = gem_ts.make(EASY, client=client)
        obs, _ = env.reset(seed=3)
        return {"node": current_node_id(), "endpoint": client.endpoint, "obs": obs, "ip": ray.util.get_node_ip_address()}
    finally:
        client.close()
        gem_ts.set_default_client(None)


def main() -> None:
    ray.init(address=sys.argv[1], log_to_driver=False)
    deadline = time.monotonic() + 120
    while len([n for n in ray.nodes() if n["Alive"]]) < 2:
        if time.monotonic() > deadline:
            raise SystemExit(f"the second host never joined: {ray.nodes()}")
        time.sleep(0.5)
    nodes = {n["NodeID"]: n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]}
    out: dict = {"node_ips": sorted(nodes.values()), "driver_ip": ray.util.get_node_ip_address()}
    pool = EnvServerPool("netns", num_cpus=1, server_args=["--idle-timeout-ms", "120000"], health_interval_s=0.3)
    try:
        servers = pool.wait_ready(count=2, timeout=120)
        out["endpoints"] = sorted(s["endpoint"] for s in servers)
        remote = next(s for s in servers if s["node_id"] != current_node_id())
        # The driver's host plays on the other host's server: ZeroMQ over the veth pair.
        with gem_ts.Client(remote["endpoint"], token=pool.token, heartbeat=False) as c:
            env = gem_ts.make(EASY, client=c)
            first, _ = env.reset(seed=3)
            out["cross_host"] = {"endpoint": remote["endpoint"], "obs": first, "step": list(env.step(GUESS)[1:3])}
        # A worker on the other host uses its own host's server.
        run = ray.get(play_on_this_node.options(scheduling_strategy=NodeAffinitySchedulingStrategy(remote["node_id"], soft=False)).remote("netns"))
        out["worker_on_other_host"] = run
        # A sharded env over both hosts; then the other host's server is killed mid-rollout.
        with pool.make_vec(EASY, num_envs=4) as sharded:
            sharded.reset(seed=9)
            out["shard_endpoints"] = sorted({sh.server["endpoint"] for sh in sharded.shards})
            held = [g for g, e in enumerate(sharded.servers) if e == remote["endpoint"]]
            os.kill(remote["pid"], signal.SIGKILL)  # one machine underneath: its pid is visible here
            killed = time.monotonic()
            try:
                for _ in range(50):
                    sharded.step([GUESS] * 4)
                out["lost"] = None
            except EnvLostError as e:
                out["lost"] = {"indices": list(e.indices), "held": held, "after_s": round(time.monotonic() - killed, 3)}
    finally:
        pool.shutdown()
    print("NETNS-RESULT " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
