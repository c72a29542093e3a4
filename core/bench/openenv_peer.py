#!/usr/bin/env python3
"""OpenEnv peer benchmark: gem-ts's OpenEnv front door against OpenEnv's own server, same game, one run.

Both servers speak OpenEnv 0.10's WebSocket protocol and serve GuessTheNumber (1–10, 4 turns):

- gem-ts: ``gem-ts serve --openenv 127.0.0.1:0`` playing ``game:GuessTheNumber-v0-easy``.
- OpenEnv: ``openenv.core.env_server.create_app`` (FastAPI under uvicorn, one process, web UI off)
  over a Python Environment written here with the same rules: the target from ``random.Random(seed)``,
  a ``\\boxed{n}`` guess per step, reward 1 and done on a hit, done after 4 turns. It implements
  ``reset_async``/``step_async``, OpenEnv's fastest path (no executor thread per call), and allows
  as many concurrent sessions as asked.

For each of 1, 16, 64 and 256 sessions: the sessions are spread over client processes (raw WebSocket
clients sending the JSON messages openenv's EnvClient sends, so client cost is the same for both
servers and small), each session loops step (a random guess) → on done, reset; after a warm-up, env
steps are counted for a window. Reported: env-steps/s, step round-trip p50/p99 (ms), and the server's
memory per 1,000 sessions (its RSS with 1,000 open, reset sessions minus its RSS with none). The
ratios gem-ts / OpenEnv are what issue 28 asks for (≥ 1× at 1 session, ≥ 3× at 64 and 256,
≤ 0.2× the memory per session).

    .venv/bin/python core/bench/openenv_peer.py                    # 3 s windows, JSON + table
    .venv/bin/python core/bench/openenv_peer.py --seconds 1 --sizes 1,16  # quicker, noisier

The OpenEnv side runs in this benchmark's own venv (core/bench/.venv-openenv, openenv==0.10.0 and
uvicorn, made on first run); the clients run there too. Results: core/bench/results/openenv_peer.json.
The clients share the machine with the server under test: on few cores, say so next to the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from peer_venv import ensure_peer_venv

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
VENV = HERE / ".venv-openenv"
PINS = ["openenv==0.10.0", "uvicorn", "websockets"]
RESULTS = HERE / "results" / "openenv_peer.json"
GAME = "game:GuessTheNumber-v0-easy"
SIZES = [1, 16, 64, 256]
MEMORY_SESSIONS = 1000


# ── OpenEnv's own server over the same game (runs in .venv-openenv) ─────────────────────────────


def serve_peer(port: int, max_sessions: int) -> None:
    import uvicorn
    from openenv.core.env_server.http_server import create_app
    from openenv.core.env_server.types import Action, Observation, State

    class GuessAction(Action):
        message: str

    class GuessObservation(Observation):
        text: str = ""

    from openenv.core.env_server.interfaces import Environment

    class Game(Environment):
        """Same rules as gem-ts's easy GuessTheNumber: 1..10, four turns, reward 1 on the hit."""

        SUPPORTS_CONCURRENT_SESSIONS = True

        def __init__(self) -> None:
            super().__init__()
            self._state = State()
            self.target = 0
            self.turn = 0

        def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kwargs: Any) -> GuessObservation:
            self.target = random.Random(seed).randint(1, 10)
            self.turn = 0
            self._state = State(episode_id=episode_id, step_count=0)
            return GuessObservation(text="I am thinking of a number between 1 and 10. You have 4 turns. Answer in \\boxed{}.")

        async def reset_async(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kwargs: Any) -> GuessObservation:
            return self.reset(seed, episode_id)

        def step(self, action: GuessAction, timeout_s: Optional[float] = None, **kwargs: Any) -> GuessObservation:  # type: ignore[override]
            self.turn += 1
            self._state.step_count += 1
            m = re.findall(r"\\boxed\{\s*(-?\d+)\s*\}", action.message)
            if not m:
                return GuessObservation(text="No guess in \\boxed{}.", reward=-0.1, done=True)
            g = int(m[-1])
            if g == self.target:
                return GuessObservation(text=f"Congratulations! You guessed {g}.", reward=1.0, done=True)
            hint = "higher" if g < self.target else "lower"
            return GuessObservation(text=f"At turn {self.turn}, you guessed {g}; the number is {hint}.", reward=0.0, done=self.turn >= 4)

        async def step_async(self, action: GuessAction, timeout_s: Optional[float] = None, **kwargs: Any) -> GuessObservation:  # type: ignore[override]
            return self.step(action)

        @property
        def state(self) -> State:
            return self._state

    app = create_app(Game, GuessAction, GuessObservation, env_name="guess_the_number", max_concurrent_envs=max_sessions)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=16 * 1024 * 1024)


# ── clients (run in .venv-openenv) ───────────────────────────────────────────────────────────────


async def _session(url: str, stop_at: float, warm_until: float, out: Dict[str, Any], seed: int) -> None:
    from websockets.asyncio.client import connect

    rng = random.Random(seed)
    async with connect(url, max_size=None, ping_interval=None, proxy=None) as ws:

        async def ask(msg: Dict[str, Any]) -> Dict[str, Any]:
            await ws.send(json.dumps(msg))
            reply = json.loads(await ws.recv())
            if reply.get("type") == "error":
                raise RuntimeError(reply["data"])
            return reply

        await ask({"type": "reset", "data": {"seed": seed}})
        while True:
            t0 = time.perf_counter()
            if t0 >= stop_at:
                break
            reply = await ask({"type": "step", "data": {"message": f"\\boxed{{{rng.randint(1, 10)}}}"}})
            t1 = time.perf_counter()
            if t0 >= warm_until:
                out["steps"] += 1
                if len(out["lat"]) < 20000:
                    out["lat"].append((t1 - t0) * 1e3)
            if reply["data"]["done"]:
                await ask({"type": "reset", "data": {"seed": rng.randint(0, 1 << 30)}})
        await ws.send(json.dumps({"type": "close"}))


def client_worker(url: str, sessions: int, seconds: float, warmup: float, first_seed: int) -> None:
    out: Dict[str, Any] = {"steps": 0, "lat": []}

    async def main() -> None:
        now = time.perf_counter()
        warm_until = now + warmup + 1.0  # one more second for every session to connect
        await asyncio.gather(*(_session(url, warm_until + seconds, warm_until, out, first_seed + k) for k in range(sessions)))

    asyncio.run(main())
    print(json.dumps({"steps": out["steps"], "seconds": seconds, "lat": out["lat"]}))


def hold_sessions(url: str, count: int, ready_file: str) -> None:
    """Opens `count` sessions, resets each, writes `ready_file`, and holds them until stdin closes."""
    from websockets.asyncio.client import connect

    async def main() -> None:
        sockets = []
        for k in range(count):
            ws = await connect(url, max_size=None, ping_interval=None, proxy=None)
            await ws.send(json.dumps({"type": "reset", "data": {"seed": k}}))
            reply = json.loads(await ws.recv())
            if reply.get("type") != "observation":
                raise RuntimeError(reply)
            sockets.append(ws)
        Path(ready_file).write_text("ready")
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        for ws in sockets:
            await ws.close()

    asyncio.run(main())


# ── orchestration (any Python) ───────────────────────────────────────────────────────────────────


def rss_bytes(pid: int) -> int:
    """Resident memory of `pid` and its children (uvicorn runs in one process; node may start workers)."""
    total = 0
    pids = [pid]
    try:
        pids += [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        pass
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


class Server:
    def __init__(self, name: str, cmd: List[str], url_of) -> None:
        import tempfile

        self.name = name
        # stderr to a file: a pipe nobody reads would stall a server that logs more than its buffer.
        self.log = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.ws_url = url_of(self)

    def stderr_tail(self) -> str:
        self.log.seek(0)
        return self.log.read()[-3000:]

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gem_ts(max_sessions: int) -> Server:
    node = os.environ.get("GEM_TS_NODE", "node")
    cmd = [node, str(ROOT / "core" / "bin" / "gem-ts.js"), "serve", "--openenv", "127.0.0.1:0", "--openenv-max-sessions", str(max_sessions), "--exit-with-stdin"]

    def url_of(server: Server) -> str:
        for line in server.proc.stdout:  # type: ignore[union-attr]
            if line.startswith("GEM_TS_OPENENV_URL="):
                return line.split("=", 1)[1].strip().replace("http://", "ws://") + f"/envs/{GAME}/ws"
        raise SystemExit(f"gem-ts serve did not start:\n{server.stderr_tail()}")

    return Server("gem-ts", cmd, url_of)


def start_openenv(py: Path, max_sessions: int) -> Server:
    port = free_port()
    cmd = [str(py), __file__, "--serve-peer", str(port), "--max-sessions", str(max_sessions)]

    def url_of(server: Server) -> str:
        import urllib.request

        deadline = time.time() + 60
        while time.time() < deadline:
            if server.proc.poll() is not None:
                raise SystemExit(f"OpenEnv's server exited:\n{server.stderr_tail()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1):
                    return f"ws://127.0.0.1:{port}/ws"
            except OSError:
                time.sleep(0.2)
        raise SystemExit("OpenEnv's server did not answer /health within 60 s")

    return Server("openenv", cmd, url_of)


def throughput(py: Path, server: Server, sessions: int, seconds: float, warmup: float, workers: int) -> Dict[str, float]:
    import statistics

    per = [sessions // workers + (1 if k < sessions % workers else 0) for k in range(workers)]
    procs = [
        subprocess.Popen([str(py), __file__, "--client-worker", server.ws_url, str(n), str(seconds), str(warmup), str(1000 * k)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for k, n in enumerate(per)
        if n > 0
    ]
    steps, lat = 0, []
    for p in procs:
        out, err = p.communicate()
        if p.returncode != 0:
            raise SystemExit(f"client worker failed against {server.name}:\n{err[-3000:]}")
        r = json.loads(out.strip().splitlines()[-1])
        steps += r["steps"]
        lat += r["lat"]
    lat.sort()
    q = lambda f: lat[min(len(lat) - 1, int(f * len(lat)))] if lat else float("nan")  # noqa: E731
    return {"steps_per_s": steps / seconds, "p50_ms": q(0.50), "p99_ms": q(0.99), "mean_ms": statistics.fmean(lat) if lat else float("nan")}


def memory_per_1000(py: Path, server: Server, count: int) -> float:
    base = rss_bytes(server.proc.pid)
    ready = Path(f"/tmp/openenv_peer_ready_{os.getpid()}_{server.name}")
    ready.unlink(missing_ok=True)
    holder = subprocess.Popen([str(py), __file__, "--hold", server.ws_url, str(count), str(ready)], stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while not ready.exists():
        if holder.poll() is not None:
            raise SystemExit(f"holding {count} sessions on {server.name} failed:\n{holder.stderr.read()[-3000:]}")  # type: ignore[union-attr]
        if time.time() > deadline:
            holder.kill()
            raise SystemExit(f"holding {count} sessions on {server.name} took over 300 s")
        time.sleep(0.2)
    time.sleep(1.0)
    held = rss_bytes(server.proc.pid)
    holder.stdin.close()  # type: ignore[union-attr]
    holder.wait(60)
    ready.unlink(missing_ok=True)
    return (held - base) / count * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--workers", type=int, default=0, help="client processes (default: min(sessions, CPUs))")
    ap.add_argument("--memory-sessions", type=int, default=MEMORY_SESSIONS, help="0 skips the memory check")
    ap.add_argument("--serve-peer", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--max-sessions", type=int, default=4096, help=argparse.SUPPRESS)
    ap.add_argument("--client-worker", nargs=5, help=argparse.SUPPRESS)
    ap.add_argument("--hold", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.serve_peer:
        return serve_peer(a.serve_peer, a.max_sessions)
    if a.client_worker:
        url, n, seconds, warmup, seed = a.client_worker
        return client_worker(url, int(n), float(seconds), float(warmup), int(seed))
    if a.hold:
        return hold_sessions(a.hold[0], int(a.hold[1]), a.hold[2])

    py = ensure_peer_venv(VENV, PINS)
    sizes = [int(s) for s in a.sizes.split(",")]
    cap = max(sizes + [a.memory_sessions]) + 16
    results: Dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}, "seconds": a.seconds}
    for name, start in (("gem-ts", lambda: start_gem_ts(cap)), ("openenv", lambda: start_openenv(py, cap))):
        server = start()
        try:
            side: Dict[str, Any] = {}
            for n in sizes:
                workers = a.workers or max(1, min(n, os.cpu_count() or 1))
                side[str(n)] = throughput(py, server, n, a.seconds, a.warmup, workers)
                print(f"{name:8s} {n:4d} sessions: {side[str(n)]['steps_per_s']:10.0f} steps/s  p50 {side[str(n)]['p50_ms']:.2f} ms  p99 {side[str(n)]['p99_ms']:.2f} ms", file=sys.stderr)
            if a.memory_sessions:
                side["memory_per_1000_sessions_bytes"] = memory_per_1000(py, server, a.memory_sessions)
            results[name] = side
        finally:
            server.close()

    g, o = results["gem-ts"], results["openenv"]
    results["ratios"] = {str(n): g[str(n)]["steps_per_s"] / max(o[str(n)]["steps_per_s"], 1e-9) for n in sizes}
    if a.memory_sessions:
        results["ratios"]["memory"] = g["memory_per_1000_sessions_bytes"] / max(o["memory_per_1000_sessions_bytes"], 1)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2))
    print(f"{'sessions':>8} | {'gem-ts steps/s':>14} | {'OpenEnv steps/s':>15} | {'ratio':>6} | {'gem-ts p50/p99 ms':>17} | {'OpenEnv p50/p99 ms':>18}")
    for n in sizes:
        gs, os_ = g[str(n)], o[str(n)]
        print(f"{n:>8} | {gs['steps_per_s']:>14.0f} | {os_['steps_per_s']:>15.0f} | {results['ratios'][str(n)]:>5.2f}× | {gs['p50_ms']:>7.2f} / {gs['p99_ms']:<7.2f} | {os_['p50_ms']:>8.2f} / {os_['p99_ms']:<7.2f}")
    if a.memory_sessions:
        print(
            f"memory per 1,000 sessions: gem-ts {g['memory_per_1000_sessions_bytes'] / 2**20:.1f} MiB, "
            f"OpenEnv {o['memory_per_1000_sessions_bytes'] / 2**20:.1f} MiB ({results['ratios']['memory']:.2f}×)"
        )
    print(f"results: {RESULTS}")


if __name__ == "__main__":
    main()
