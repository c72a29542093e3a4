"""gem_ts.ray across two hosts: two network namespaces joined by a veth pair (10.77.x.1 and
10.77.x.2), a Ray head in one and a Ray node in the other, each with its own IP and port space, so
every byte between them crosses a network interface, as between machines. Unlike the raylets of
ray.cluster_utils, which all share 127.0.0.1-reachable sockets, a server here is reachable from the
other host only at the IP it announces.

Needs root and iproute2 (CI has both). Every process runs in its own session and is killed by
group at the end; `ray stop` is never called, because it would stop every Ray on the machine."""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator, List

import pytest

pytestmark = [
    pytest.mark.timeout(400),
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None, reason="needs root and iproute2 (ip netns) for two virtual hosts"),
]

RAY = str(Path(sys.executable).parent / "ray")
DRIVER = str(Path(__file__).parent / "netns_driver.py")


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


@pytest.fixture(scope="module")
def two_hosts() -> Iterator[dict]:
    tag = f"g{os.getpid() % 100000}"
    subnet = f"10.77.{os.getpid() % 250}"
    head, node = f"{tag}h", f"{tag}n"
    hosts = {"head": head, "node": node, "head_ip": f"{subnet}.1", "node_ip": f"{subnet}.2"}
    procs: List[subprocess.Popen] = []
    temp = tempfile.mkdtemp(prefix="gtns-", dir="/tmp")  # short: Ray's socket paths must fit
    try:
        _ip("netns", "add", head)
        _ip("netns", "add", node)
        _ip("link", "add", f"{tag}a", "type", "veth", "peer", "name", f"{tag}b")
        for ns, dev, addr in ((head, f"{tag}a", hosts["head_ip"]), (node, f"{tag}b", hosts["node_ip"])):
            _ip("link", "set", dev, "netns", ns)
            _ip("-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
            _ip("-n", ns, "link", "set", dev, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
        # Token auth, as on a real cluster: every process of both hosts carries the cluster's token.
        env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
        address = f"{hosts['head_ip']}:6390"

        def start(ns: str, *args: str) -> None:
            log = open(Path(temp) / f"{ns}.log", "w")
            procs.append(subprocess.Popen(["ip", "netns", "exec", ns, RAY, "start", "--block", "--num-cpus=1", *args],
                                          stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True))

        start(head, "--head", f"--node-ip-address={hosts['head_ip']}", "--port=6390", "--include-dashboard=false",
              f"--temp-dir={temp}")
        time.sleep(3)
        start(node, f"--address={address}", f"--node-ip-address={hosts['node_ip']}")
        hosts.update(address=address, env=env, temp=temp)
        yield hosts
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        # Ray's daemons leave the group; they all carry the cluster's temp dir on their command line.
        subprocess.run(["pkill", "-9", "-f", temp], capture_output=True)
        for ns in (head, node):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        shutil.rmtree(temp, ignore_errors=True)


def test_a_pool_across_two_hosts_plays_over_the_wire_and_reports_a_killed_server(two_hosts: dict) -> None:
    run = subprocess.run(["ip", "netns", "exec", two_hosts["head"], sys.executable, DRIVER, two_hosts["address"]],
                         capture_output=True, text=True, timeout=300, env=two_hosts["env"])
    line = next((ln for ln in run.stdout.splitlines() if ln.startswith("NETNS-RESULT ")), None)
    logs = "".join(p.read_text()[-1500:] for p in Path(two_hosts["temp"]).glob("*.log"))
    assert line, f"rc {run.returncode}\n{run.stdout[-3000:]}\n{run.stderr[-5000:]}\n{logs}"
    out = json.loads(line.split(" ", 1)[1])
    head_ip, node_ip = two_hosts["head_ip"], two_hosts["node_ip"]

    assert out["node_ips"] == sorted([head_ip, node_ip]) and out["driver_ip"] == head_ip
    # One server per host, each announced at its own host's address (never loopback).
    assert [e.split("//")[1].split(":")[0] for e in out["endpoints"]] == sorted([head_ip, node_ip])
    cross = out["cross_host"]
    assert cross["endpoint"].startswith(f"tcp://{node_ip}:") and "guess" in cross["obs"].lower()
    worker = out["worker_on_other_host"]
    assert worker["ip"] == node_ip and worker["endpoint"] == cross["endpoint"] and worker["obs"] == cross["obs"]
    assert out["shard_endpoints"] == out["endpoints"]  # the sharded env spans both hosts
    lost = out["lost"]
    assert lost is not None and lost["indices"] == lost["held"] and lost["held"], out
    print(f"\ntwo hosts: killed server's envs reported lost after {lost['after_s']:.3f} s")
