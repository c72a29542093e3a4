#!/usr/bin/env python3
"""Round trip of one small message through each transport, with no gem-ts work on either side.

The server end is the real server transport (``transportEcho.ts``: ZeroMQ's ROUTER or the stream
transport, echoing every message); the client end is the real client link (``zmq_link.ZmqLink`` or
``stream_link.StreamLink``). A message is two frames (a 100-byte header, a 200-byte body), as a
one-env step's request is about. Rounds alternate the transports; each round is ``--count`` round
trips after a warm-up; reported: p50/p99 per transport (median over rounds) and the ratio of p50s.

    .venv/bin/python core/bench/transport_rtt.py               # 5 rounds of 20,000, ipc and tcp
    .venv/bin/python core/bench/transport_rtt.py --count 2000 --rounds 2   # quick look

Results: core/bench/results/transport_rtt.json (with the load before and after).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "core" / "python"))

from gem_ts.stream_link import StreamLink  # noqa: E402
from gem_ts.zmq_link import ZmqLink  # noqa: E402

RESULTS = HERE / "results" / "transport_rtt.json"
ENDPOINTS = {
    "zmq ipc": "ipc:///tmp/gem-ts-rtt-{pid}-z.sock",
    "stream ipc": "stream+ipc:///tmp/gem-ts-rtt-{pid}-s.sock",
    "zmq tcp": "tcp://127.0.0.1:0",
    "stream tcp": "stream+tcp://127.0.0.1:0",
}
MESSAGE = [b"h" * 100, b"b" * 200]


class _Session:
    """What a link tells the session: only that the connection came and went."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.connected = False

    def on_connected(self, now: float) -> None:
        self.connected = True

    def on_disconnected(self, now: float) -> None:
        self.connected = False


def start_echo(endpoint: str) -> "tuple[subprocess.Popen[str], str]":
    proc = subprocess.Popen(
        ["node", "--import", "tsx", str(HERE / "transportEcho.ts"), endpoint],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("ECHO="):
        proc.kill()
        raise SystemExit(f"the echo server for {endpoint} did not start: {line!r}")
    return proc, line[len("ECHO="):]


def round_trips(link: Any, count: int) -> Dict[str, float]:
    for _ in range(1000):  # warm-up, and the connection up
        while not link.try_send(MESSAGE):
            link.maintain(0.05)
        while link.recv(1.0) is None:
            pass
    samples: List[float] = []
    for _ in range(count):
        t = time.perf_counter()
        link.try_send(MESSAGE)
        got = link.recv(5.0)
        samples.append(time.perf_counter() - t)
        assert got is not None and len(got) == 2 and len(got[1]) == 200, got
    samples.sort()
    return {"p50_us": samples[len(samples) // 2] * 1e6, "p99_us": samples[int(len(samples) * 0.99)] * 1e6}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--count", type=int, default=20_000)
    ap.add_argument("--out", default=str(RESULTS))
    a = ap.parse_args()
    load_before = os.getloadavg()
    servers = {name: start_echo(ep.format(pid=os.getpid())) for name, ep in ENDPOINTS.items()}
    rounds: List[Dict[str, Dict[str, float]]] = []
    try:
        links = {}
        for name, (_, bound) in servers.items():
            links[name] = StreamLink(_Session(bound)) if bound.startswith("stream+") else ZmqLink(_Session(bound), b"rtt-", 0.05)
        for r in range(a.rounds):
            names = list(links) if r % 2 == 0 else list(reversed(links))
            rounds.append({name: round_trips(links[name], a.count) for name in names})
            print(f"round {r + 1}/{a.rounds}: " + ", ".join(f"{n} p50 {v['p50_us']:.0f} µs p99 {v['p99_us']:.0f} µs" for n, v in rounds[-1].items()), file=sys.stderr)
        for link in links.values():
            link.close()
    finally:
        for proc, _ in servers.values():
            proc.kill()
    table = {n: {k: statistics.median(row[n][k] for row in rounds) for k in ("p50_us", "p99_us")} for n in ENDPOINTS}
    result = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "command": " ".join(["python", "core/bench/transport_rtt.py", *sys.argv[1:]]),
        "cpus": os.cpu_count(),
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "median_of_rounds": table,
        "zmq_over_stream_p50": {kind: table[f"zmq {kind}"]["p50_us"] / table[f"stream {kind}"]["p50_us"] for kind in ("ipc", "tcp")},
        "rounds": rounds,
    }
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nround trip of a 2-frame, 300-byte message, median of {a.rounds} rounds × {a.count:,}; load {load_before[0]:.2f} → {result['load_after'][0]:.2f}")
    for n, v in table.items():
        print(f"{n:>11}: p50 {v['p50_us']:6.0f} µs  p99 {v['p99_us']:6.0f} µs")
    print("ZeroMQ / stream p50: " + ", ".join(f"{k} {v:.2f}×" for k, v in result["zmq_over_stream_p50"].items()))
    print(f"results: {a.out}")


if __name__ == "__main__":
    main()
