#!/usr/bin/env python3
"""One env, one coroutine: ``gem_ts.aio`` against OpenEnv's own async client and server (issue 26).

Same game (GuessTheNumber 1–10, four turns), same run, rounds alternating between the two sides:

- gem-ts: a local server on tcp (``LocalServer(endpoint="stream+tcp://127.0.0.1:0")``, the stream
  transport; ``--transport zmq`` for ZeroMQ's ``tcp://``), one ``make``'d env stepped by one coroutine
  through ``gem_ts.aio`` (the client runs in this repo's venv).
- OpenEnv: its own server (``create_app`` under uvicorn, the environment of ``openenv_peer.py``, with
  ``step_async``) and its own async client, ``GenericEnvClient`` (``async with``, ``await step``), in
  the OpenEnv venv ``core/bench/.venv-openenv`` (made on first run by ``openenv_peer.py``'s helper).

Each client loops step (a guess from a seeded random sequence, the same for both) → on done, reset;
only the step round trips are timed (a warm-up first). Reported per round and as the median of the
rounds: step p50/p99 (µs) and steps/s, and the ratio gem-ts / OpenEnv (issue 26 aims at ≥ 1.5× and a
gem-ts p99 ≤ 500 µs). Each client is its own process, started before its window; the idle server
waits on its socket meanwhile.

    .venv/bin/python core/bench/aio_one_env_peer.py            # 5 rounds of 3 s per side
    .venv/bin/python core/bench/aio_one_env_peer.py --quick    # smoke test: 2 rounds of 0.5 s
    .venv/bin/python core/bench/aio_one_env_peer.py --transport zmq  # gem-ts over ZeroMQ's tcp

Results: core/bench/results/aio_one_env_peer.json (with the load average before and after; on a
shared machine compare the two sides of one run, not absolute figures).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Awaitable, Callable, Dict, List

from openenv_peer import PINS, VENV, start_openenv
from peer_venv import ensure_peer_venv

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "aio_one_env_peer.json"
GAME = "game:GuessTheNumber-v0-easy"
WARMUP_STEPS = 300


def _guesses(seed: int) -> List[str]:
    rng = random.Random(seed)
    return [f"\\boxed{{{rng.randint(1, 10)}}}" for _ in range(4096)]


def _summary(samples: List[float]) -> Dict[str, float]:
    s = sorted(samples)
    return {
        "p50_us": s[len(s) // 2] * 1e6,
        "p99_us": s[min(len(s) - 1, int(len(s) * 0.99))] * 1e6,
        "steps_per_s": len(s) / sum(s),
        "steps": len(s),
    }


async def _timed_steps(step: Callable[[int], Awaitable[bool]], reset: Callable[[int], Awaitable[Any]], seconds: float) -> Dict[str, float]:
    """Steps (``step(k)`` says whether the episode ended; then ``reset(k)``), timing each step after
    the warm-up for ``seconds``."""
    samples: List[float] = []
    k, stop_at = 0, None
    while stop_at is None or time.perf_counter() < stop_at:
        t0 = time.perf_counter()
        done = await step(k)
        dt = time.perf_counter() - t0
        k += 1
        if k == WARMUP_STEPS:
            stop_at = time.perf_counter() + seconds
        elif k > WARMUP_STEPS:
            samples.append(dt)
        if done:
            await reset(k)
    return _summary(samples)


async def _gem_ts_client(endpoint: str, seconds: float, seed: int) -> Dict[str, float]:
    from gem_ts import aio

    guesses = _guesses(seed)
    async with await aio.connect(endpoint) as client:
        env = await client.make(GAME)
        await env.reset(seed=seed)

        async def step(k: int) -> bool:
            _, _, terminated, truncated, _ = await env.step(guesses[k % len(guesses)])
            return terminated or truncated

        out = await _timed_steps(step, lambda k: env.reset(seed=seed + k), seconds)
        await env.close()
    return out


async def _openenv_client(base_url: str, seconds: float, seed: int) -> Dict[str, float]:
    from openenv.core.generic_client import GenericEnvClient

    guesses = _guesses(seed)
    async with GenericEnvClient(base_url=base_url) as env:
        await env.reset(seed=seed)

        async def step(k: int) -> bool:
            return bool((await env.step({"message": guesses[k % len(guesses)]})).done)

        return await _timed_steps(step, lambda k: env.reset(seed=seed + k), seconds)


def _client(python: str, side: str, target: str, seconds: float, seed: int) -> Dict[str, float]:
    out = subprocess.run(
        [python, __file__, "--client", side, target, str(seconds), str(seed)],
        capture_output=True,
        text=True,
        timeout=seconds + 120,
    )
    if out.returncode != 0:
        raise SystemExit(f"{side} client failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5, help="alternating gem-ts / OpenEnv rounds")
    ap.add_argument("--seconds", type=float, default=3.0, help="timed window per side and round")
    ap.add_argument("--quick", action="store_true", help="smoke test: 2 rounds of 0.5 s")
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument("--transport", choices=["stream", "zmq"], default="stream", help="gem-ts's stream transport (default) or ZeroMQ")
    ap.add_argument("--client", nargs=4, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.client:
        side, target, seconds, seed = a.client
        run = _gem_ts_client if side == "gem-ts" else _openenv_client
        print(json.dumps(asyncio.run(run(target, float(seconds), int(seed)))))
        return
    if a.quick:
        a.rounds, a.seconds = 2, 0.5

    from gem_ts import LocalServer

    peer_py = str(ensure_peer_venv(VENV, PINS))
    load_before = os.getloadavg()
    rounds: List[Dict[str, Any]] = []
    openenv = start_openenv(Path(peer_py), 4)
    try:
        base_url = openenv.ws_url.replace("ws://", "http://").rsplit("/ws", 1)[0]
        with LocalServer(endpoint=("stream+" if a.transport == "stream" else "") + "tcp://127.0.0.1:0") as gem:
            for r in range(a.rounds):
                # Alternate which side goes first, so neither always gets the quieter half of a round.
                order = ["gem-ts", "openenv"] if r % 2 == 0 else ["openenv", "gem-ts"]
                row: Dict[str, Any] = {}
                for side in order:
                    if side == "gem-ts":
                        row[side] = _client(sys.executable, side, gem.endpoint, a.seconds, r)
                    else:
                        row[side] = _client(peer_py, side, base_url, a.seconds, r)
                rounds.append(row)
                g, o = row["gem-ts"], row["openenv"]
                print(
                    f"round {r + 1}/{a.rounds}: gem_ts.aio p50 {g['p50_us']:.0f} µs p99 {g['p99_us']:.0f} µs {g['steps_per_s']:.0f}/s | "
                    f"OpenEnv p50 {o['p50_us']:.0f} µs p99 {o['p99_us']:.0f} µs {o['steps_per_s']:.0f}/s",
                    file=sys.stderr,
                )
    finally:
        openenv.close()

    def median(side: str, key: str) -> float:
        return statistics.median(row[side][key] for row in rounds)

    table = {side: {k: median(side, k) for k in ("p50_us", "p99_us", "steps_per_s")} for side in ("gem-ts", "openenv")}
    ratio = table["gem-ts"]["steps_per_s"] / table["openenv"]["steps_per_s"]
    result = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "command": " ".join(["python", "core/bench/aio_one_env_peer.py", *sys.argv[1:]]),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "seconds": a.seconds,
        "transport": a.transport,
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "median_of_rounds": table,
        "ratio_steps_per_s": ratio,
        "rounds": rounds,
    }
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(result, indent=2) + "\n")

    print(f"\none env, one coroutine, tcp; median of {a.rounds} alternating rounds of {a.seconds:g} s per side")
    print(f"load average before {load_before[0]:.2f}, after {result['load_after'][0]:.2f} ({os.cpu_count()} CPUs)")
    print(f"{'':28} | {'step p50 µs':>11} | {'step p99 µs':>11} | {'steps/s':>8}")
    for side, name in (("gem-ts", f"gem_ts.aio → gem-ts ({a.transport})"), ("openenv", "OpenEnv async client → own")):
        t = table[side]
        print(f"{name:28} | {t['p50_us']:>11.0f} | {t['p99_us']:>11.0f} | {t['steps_per_s']:>8.0f}")
    print(f"gem-ts / OpenEnv steps/s: {ratio:.2f}× (aim ≥ 1.5×); gem-ts p99 {table['gem-ts']['p99_us']:.0f} µs (aim ≤ 500 µs)")
    print(f"results: {a.out}")


if __name__ == "__main__":
    main()
