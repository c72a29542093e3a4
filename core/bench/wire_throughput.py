#!/usr/bin/env python3
"""Wire throughput: gem_ts over ipc against GEM's own in-process vector envs, in one run.

Random actions on game:GuessTheNumber-v0-easy (1–10, 4 turns; same-step autoreset) at 1, 64 and
1,024 envs: env-steps/s of gem_ts (Python client → ipc → gem-ts server) and of GEM's SyncVectorEnv
and AsyncVectorEnv (gem-llm from PyPI, in this benchmark's own venv core/bench/.venv-gem, created on
first run), and the ratios. Also: one-env round-trip latency p50/p99 over ipc and tcp, the inline vs
Arrow crossover that sets `inline_max_rows`, coalesced asyncio steps, the server's memory with
10,000 live envs, and over tcp the paths trainers use: one env through `gem_ts.make` and through
`gem_ts.aio` (p50/p99), and 256 asyncio coroutines (on sub-envs of one handle, and each on its own
`make`'d env) against one `make_vec(256)` batch step.

Both sides run the same loop: draw n actions from the same ten strings, step, count n env-steps.

    .venv/bin/python core/bench/wire_throughput.py              # 3 rounds of 3 s windows, JSON + table
    .venv/bin/python core/bench/wire_throughput.py --seconds 1 --rounds 1  # quicker, noisier
    .venv/bin/python core/bench/wire_throughput.py --aio-only    # only the tcp trainer paths, each round
    .venv/bin/python core/bench/wire_throughput.py --batch-only --sizes 64,1024  # vector envs vs GEM, CPU µs per env-step
    .venv/bin/python core/bench/wire_throughput.py --transport zmq  # over ZeroMQ instead of the stream transport
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from peer_venv import ensure_peer_venv

HERE = Path(__file__).resolve().parent
GEM_VENV = HERE / ".venv-gem"
GEM_PIN = "gem-llm==0.1.0"
RESULTS = HERE / "results" / "wire_throughput.json"
ENV_ID = "game:GuessTheNumber-v0-easy"
SIZES = [1, 64, 1024]
POOL = [f"\\boxed{{{k}}}" for k in range(1, 11)]
#: Where the servers listen, by transport: the stream one (the library's default) or ZeroMQ's.
IPC_OF = {"stream": "stream+ipc", "zmq": "ipc"}
TCP_OF = {"stream": "stream+tcp://127.0.0.1:0", "zmq": "tcp://127.0.0.1:0"}


def measure(
    step: Callable[[List[str]], Any], n: int, seconds: float, warmup: float = 0.5, other_cpu: Callable[[], float] = lambda: 0.0
) -> Dict[str, float]:
    """env-steps per wall-clock second and per CPU-second (this process, plus `other_cpu`, e.g. the
    server's) of `step` called with n random actions at a time."""
    import numpy as np

    rng = np.random.default_rng(0)

    def run(limit: float) -> Dict[str, float]:
        count, t0, c0, o0 = 0, time.perf_counter(), time.process_time(), other_cpu()
        while True:
            actions = [POOL[i] for i in rng.integers(0, 10, n)]
            step(actions)
            count += n
            elapsed = time.perf_counter() - t0
            if elapsed >= limit:
                cpu = time.process_time() - c0 + other_cpu() - o0
                return {"wall": count / elapsed, "cpu": count / max(cpu, 1e-9), "cpu_us_per_step": cpu * 1e6 / count}

    run(warmup)
    return run(seconds)


# ── GEM side (runs inside .venv-gem) ─────────────────────────────────────────────────────────────


def gem_worker(seconds: float, sizes: List[int]) -> None:
    with contextlib.redirect_stdout(io.StringIO()):  # GEM prints banners on import and make_vec
        import gem

    out: Dict[str, Dict[str, Dict[str, float]]] = {"sync": {}, "async": {}}
    for mode in ("sync", "async"):
        for n in sizes:
            with contextlib.redirect_stdout(io.StringIO()):
                envs = gem.make_vec([ENV_ID] * n, async_mode=(mode == "async"), seed=0)
                envs.reset(seed=0)
            out[mode][str(n)] = measure(lambda a: envs.step(a), n, seconds)  # type: ignore[assignment]
            close = getattr(envs, "close", None)
            if callable(close):
                close()
    from importlib.metadata import version

    print(json.dumps({"gem_version": version("gem-llm"), **out}))


def run_gem(seconds: float, sizes: List[int]) -> Dict[str, Any]:
    py = ensure_peer_venv(GEM_VENV, [GEM_PIN, "numpy"])
    sizes_arg = ",".join(map(str, sizes))
    proc = subprocess.run([str(py), __file__, "--gem-worker", "--seconds", str(seconds), "--sizes", sizes_arg], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"GEM worker failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ── gem_ts side ──────────────────────────────────────────────────────────────────────────────────


def gem_ts_throughput(client, seconds: float, sizes: List[int]) -> Dict[str, Dict[str, float]]:
    import gem_ts

    server_cpu = lambda: client.stats()["server"]["cpu_s"]  # noqa: E731
    out = {}
    for n in sizes:
        envs = gem_ts.make_vec(ENV_ID, num_envs=n, seed=0, client=client)
        envs.reset(seed=0)
        out[str(n)] = measure(envs.step, n, seconds, other_cpu=server_cpu)
        envs.close()
    return out


def latency(client, count: int = 5000) -> Dict[str, float]:
    """One-env step round trips (inline path), microseconds."""
    import numpy as np

    envs = client.make_handle(ENV_ID, num_envs=1)
    handle = envs["handle"]
    client.reset(handle, seed=0)
    samples = []
    for k in range(count + 500):
        t0 = time.perf_counter()
        client.step(handle, [0], [POOL[k % 10]])
        if k >= 500:
            samples.append((time.perf_counter() - t0) * 1e6)
    client.close_handle(handle)
    a = np.array(samples)
    return {"p50_us": float(np.percentile(a, 50)), "p99_us": float(np.percentile(a, 99)), "mean_us": float(a.mean()), "count": count}


def crossover(client, reps_rows: int = 20000) -> Dict[str, Dict[str, float]]:
    """Round trip per message with rows forced inline vs in Arrow (both directions)."""
    import numpy as np

    from gem_ts import calls, protocol
    from gem_ts.session import Call

    out: Dict[str, Dict[str, float]] = {}
    for n in (1, 16, 64, 256, 512, 1024, 2048):
        info = client.make_handle(ENV_ID, num_envs=n)
        h = info["handle"]
        client.reset(h, seed=0)
        idx = list(range(n))
        reps = max(30, reps_rows // n)
        res = {}
        for fmt in ("inline", "arrow"):
            times = []
            for _ in range(reps):
                acts = [POOL[i] for i in np.random.randint(0, 10, n)]
                t0 = time.perf_counter()
                if fmt == "inline":
                    call = Call("step", {"rows": {"env_index": idx, "action": acts}, "reply_format": "inline"}, None, calls.rows, handle=h)
                else:
                    call = Call("step", {"reply_format": "arrow"}, protocol.encode_step_arrow(idx, acts), calls.rows, handle=h)
                client.run(call)
                times.append((time.perf_counter() - t0) * 1e6)
            res[f"{fmt}_us"] = float(np.median(times))
        out[str(n)] = res
        client.close_handle(h)
    return out


def aio_coalesced(endpoint: str, agents: int = 256, seconds: float = 3.0) -> Dict[str, float]:
    """env-steps/s of `agents` coroutines each stepping its own env (coalesced per loop tick)."""
    from gem_ts import aio

    async def main() -> float:
        async with await aio.connect(endpoint) as c:
            return await coroutine_steps(c, agents, seconds)

    return {"agents": agents, "env_steps_per_s": asyncio.run(main())}


async def _server_cpu(client) -> float:
    return float((await client.stats())["server"]["cpu_s"])


async def coroutine_steps(client, agents: int, seconds: float, cpu: Optional[Dict[str, float]] = None) -> float:
    """env-steps/s of `agents` coroutines, each stepping its own sub-env of one handle; with `cpu`,
    its "cpu_us_per_step" is set to this process's and the server's CPU per env-step."""
    pool = await client.make_vec(ENV_ID, num_envs=agents, seed=0)
    await pool.reset(seed=0)
    stop = time.perf_counter() + seconds
    counts = [0] * agents

    async def agent(i: int) -> None:
        env, k = pool.env(i), i
        while time.perf_counter() < stop:
            await env.step(POOL[k % 10])
            k += 7
            counts[i] += 1

    s0 = await _server_cpu(client)
    t0, c0 = time.perf_counter(), time.process_time()
    await asyncio.gather(*[agent(i) for i in range(agents)])
    elapsed, used = time.perf_counter() - t0, time.process_time() - c0
    used += await _server_cpu(client) - s0
    rate = sum(counts) / elapsed
    if cpu is not None:
        cpu["cpu_us_per_step"] = used * 1e6 / max(1, sum(counts))
    await pool.close()
    return rate


async def own_env_steps(client, agents: int, seconds: float, cpu: Optional[Dict[str, float]] = None) -> float:
    """env-steps/s of `agents` coroutines, each stepping its own `make`'d env (its own handle). A
    make'd env has autoreset disabled, as in GEM, so a coroutine resets its env when an episode ends;
    only steps are counted."""
    envs = [await client.make(ENV_ID) for _ in range(agents)]
    await asyncio.gather(*[e.reset(seed=i) for i, e in enumerate(envs)])
    stop = time.perf_counter() + seconds
    counts = [0] * agents
    resets = [0]

    async def agent(i: int) -> None:
        env, k = envs[i], i
        while time.perf_counter() < stop:
            _obs, _reward, terminated, truncated, _info = await env.step(POOL[k % 10])
            k += 7
            counts[i] += 1
            if terminated or truncated:
                await env.reset()
                resets[0] += 1

    s0 = await _server_cpu(client)
    t0, c0 = time.perf_counter(), time.process_time()
    await asyncio.gather(*[agent(i) for i in range(agents)])
    elapsed, used = time.perf_counter() - t0, time.process_time() - c0
    used += await _server_cpu(client) - s0
    rate = sum(counts) / elapsed
    if cpu is not None:
        cpu["cpu_us_per_step"] = used * 1e6 / max(1, sum(counts))
        cpu["resets_per_step"] = resets[0] / max(1, sum(counts))
    for e in envs:
        await e.close()
    return rate


async def bare_asyncio_floor(agents: int, seconds: float, wake_in_turn: bool = False) -> Dict[str, float]:
    """What asyncio itself costs per coroutine step, with no gem_ts and no server: `agents` coroutines
    each awaiting a future of its own, all resolved together by one callback a loop turn later (what a
    coalesced reply does), each then asking again. The ceiling of any one-coroutine-per-env client.
    With `wake_in_turn`, each task is woken by that callback itself (as gem_ts.aio's reply reader does),
    instead of through ``set_result``'s ``call_soon``."""
    loop = asyncio.get_running_loop()
    waiting: List["asyncio.Future[Any]"] = []
    scheduled = [False]

    def reply() -> None:
        scheduled[0] = False
        futs = waiting[:]
        waiting.clear()
        resolve = resolve_in_turn if wake_in_turn else asyncio.Future.set_result
        for f in futs:
            resolve(f, ("observation", 0.0, False, False, {}))

    def ask() -> "asyncio.Future[Any]":
        f = loop.create_future()
        waiting.append(f)
        if not scheduled[0]:
            scheduled[0] = True
            loop.call_soon(reply)
        return f

    stop = time.perf_counter() + seconds
    counts = [0] * agents

    async def agent(i: int) -> None:
        while time.perf_counter() < stop:
            _obs, _reward, terminated, truncated, _info = await ask()
            counts[i] += 1

    t0, c0 = time.perf_counter(), time.process_time()
    await asyncio.gather(*[agent(i) for i in range(agents)])
    n = max(1, sum(counts))
    return {"steps_per_s": n / (time.perf_counter() - t0), "cpu_us_per_step": (time.process_time() - c0) * 1e6 / n}


def resolve_in_turn(fut: "asyncio.Future[Any]", value: Any) -> None:
    """``fut.set_result(value)`` with its one waiting task woken now, not a loop turn later: the task's
    done-callback taken off the future and run here (what gem_ts.aio's ``_Batch._deliver`` does)."""
    callbacks = fut._callbacks  # type: ignore[attr-defined]
    if callbacks is None or len(callbacks) != 1:
        fut.set_result(value)
        return
    callback, context = callbacks[0]
    fut.remove_done_callback(callback)
    fut.set_result(value)
    context.run(callback, fut)


def _percentiles(samples_s: List[float]) -> Dict[str, float]:
    import numpy as np

    a = np.array(samples_s) * 1e6
    return {
        "p50_us": float(np.percentile(a, 50)),
        "p99_us": float(np.percentile(a, 99)),
        "count": len(samples_s),
        "steps_per_s": len(samples_s) / sum(samples_s),
    }


def flavours(endpoint: str, seconds: float, agents: int = 256, count: int = 3000) -> Dict[str, Any]:
    """What trainers use, both flavours on one server: one env (``gem_ts.make``'s Env, and one
    ``gem_ts.aio`` sub-env) step round trips, and `agents` asyncio coroutines each stepping one env
    against one ``make_vec(agents)`` batch step, in the same run."""
    import gem_ts
    from gem_ts import Client, aio

    out: Dict[str, Any] = {}
    with Client(endpoint) as c:
        env = gem_ts.make(ENV_ID, client=c)
        env.reset(seed=0)
        samples = []
        for k in range(count + 300):
            t0 = time.perf_counter()
            _obs, _reward, terminated, truncated, _info = env.step(POOL[k % 10])
            if k >= 300:
                samples.append(time.perf_counter() - t0)
            if terminated or truncated:
                env.reset()
        env.close()
        out["sync_env"] = _percentiles(samples)
        vec = gem_ts.make_vec(ENV_ID, num_envs=agents, seed=0, client=c)
        vec.reset(seed=0)
        batch = measure(vec.step, agents, seconds, other_cpu=lambda: c.stats()["server"]["cpu_s"])
        out["make_vec_batch_env_steps_per_s"] = batch["wall"]
        out["make_vec_batch_cpu_us_per_step"] = batch["cpu_us_per_step"]
        vec.close()

    async def main() -> None:
        async with await aio.connect(endpoint) as a:
            one = await a.make_vec(ENV_ID, num_envs=1, seed=0)  # same-step autoreset: never needs a reset
            await one.reset(seed=0)
            sub, samples = one.env(0), []
            for k in range(count + 300):
                t0 = time.perf_counter()
                await sub.step(POOL[k % 10])
                if k >= 300:
                    samples.append(time.perf_counter() - t0)
            out["aio_env"] = _percentiles(samples)
            await one.close()
            sub_cpu: Dict[str, float] = {}
            own_cpu: Dict[str, float] = {}
            out["aio_coroutines_env_steps_per_s"] = await coroutine_steps(a, agents, seconds, sub_cpu)
            out["aio_own_envs_env_steps_per_s"] = await own_env_steps(a, agents, seconds, own_cpu)
            out["aio_coroutines_cpu_us_per_step"] = sub_cpu["cpu_us_per_step"]
            out["aio_own_envs_cpu_us_per_step"] = own_cpu["cpu_us_per_step"]
            # A make'd env's coroutine also resets it, a request of its own, where a batch resets inside its step.
            out["aio_own_envs_resets_per_step"] = own_cpu["resets_per_step"]
            out["bare_asyncio_floor"] = await bare_asyncio_floor(agents, seconds)
            out["bare_asyncio_floor_woken_in_turn"] = await bare_asyncio_floor(agents, seconds, wake_in_turn=True)

    asyncio.run(main())
    out["agents"] = agents
    out["aio_over_batch"] = out["aio_coroutines_env_steps_per_s"] / out["make_vec_batch_env_steps_per_s"]
    out["aio_own_envs_over_batch"] = out["aio_own_envs_env_steps_per_s"] / out["make_vec_batch_env_steps_per_s"]
    out["aio_own_envs_calls_over_batch"] = out["aio_own_envs_over_batch"] * (1 + out["aio_own_envs_resets_per_step"])
    return out


def describe_flavours(pt: Dict[str, Any]) -> str:
    return (
        f"tcp, trainer paths: gem_ts.make env p50 {pt['sync_env']['p50_us']:.0f} µs p99 {pt['sync_env']['p99_us']:.0f} µs; "
        f"gem_ts.aio env p50 {pt['aio_env']['p50_us']:.0f} µs p99 {pt['aio_env']['p99_us']:.0f} µs "
        f"({pt['aio_env']['steps_per_s']:,.0f} steps/s); "
        f"{pt['agents']} coroutines on sub-envs of one handle {pt['aio_coroutines_env_steps_per_s']:,.0f} env-steps/s = "
        f"{pt['aio_over_batch']:.2f} ×, each on its own make'd env {pt['aio_own_envs_env_steps_per_s']:,.0f} = "
        f"{pt['aio_own_envs_over_batch']:.2f} × make_vec({pt['agents']}) batch steps ({pt['make_vec_batch_env_steps_per_s']:,.0f}), "
        f"{pt['aio_own_envs_calls_over_batch']:.2f} × counting their resets ({pt['aio_own_envs_resets_per_step']:.2f} per step); "
        f"CPU µs per env-step (client + server): sub-envs {pt['aio_coroutines_cpu_us_per_step']:.2f}, own envs "
        f"{pt['aio_own_envs_cpu_us_per_step']:.2f}, batch {pt['make_vec_batch_cpu_us_per_step']:.2f}; "
        f"bare asyncio (no gem_ts, no server) {pt['bare_asyncio_floor']['cpu_us_per_step']:.2f} µs per coroutine step, "
        f"{pt['bare_asyncio_floor_woken_in_turn']['cpu_us_per_step']:.2f} µs woken in the reply's turn"
    )


def aio_only(seconds: float, rounds: int, out_path: Path, transport: str, event_loop: str) -> None:
    """Only the tcp trainer paths (issue 26's asyncio aims), `rounds` times on one fresh server."""
    from gem_ts import LocalServer

    if event_loop == "uvloop":
        try:
            import uvloop  # type: ignore[import-not-found]
        except ImportError:
            sys.exit("--event-loop uvloop needs uvloop (gem_ts[test] installs it: npm run setup)")
        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())

    runs = []
    load_at_start = os.getloadavg()
    with LocalServer(endpoint=TCP_OF[transport]) as tcp_server:
        for r in range(rounds):
            print(f"round {r + 1}/{rounds} …", file=sys.stderr)
            runs.append(flavours(tcp_server.endpoint, seconds))
            print(describe_flavours(runs[-1]))
    result = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "cpus": os.cpu_count(),
        "load_avg_at_start": load_at_start,
        "python": platform.python_version(),
        "node": node_version(),
        "command": f"python core/bench/wire_throughput.py --aio-only --seconds {seconds:g} --rounds {rounds} --transport {transport} --event-loop {event_loop}",
        "transport": transport,
        "event_loop": event_loop,
        "load_avg_at_end": os.getloadavg(),
        "trainer_paths_tcp_each_round": runs,
    }
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {out_path}")


def memory(client, n: int = 10_000) -> Dict[str, float]:
    """RSS and JS heap of a fresh server, idle and with n live envs (made, reset and stepped once),
    and after closing them."""
    before = client.stats()["server"]
    info = client.make_handle(ENV_ID, num_envs=n)
    client.reset(info["handle"], seed=0)
    client.step(info["handle"], list(range(n)), [POOL[i % 10] for i in range(n)])
    live = client.stats()["server"]
    client.close_handle(info["handle"])
    after = client.stats()["server"]
    mib = 2**20
    return {
        "envs": n,
        "server_rss_mib_before": before["rss_bytes"] / mib,
        "server_rss_mib_with_envs": live["rss_bytes"] / mib,
        "server_rss_mib_after_close": after["rss_bytes"] / mib,
        "server_heap_mib_before": before["heap_used_bytes"] / mib,
        "server_heap_mib_with_envs": live["heap_used_bytes"] / mib,
    }


def node_version() -> str:
    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


def batch_only(meta: Dict[str, Any], gem_rounds: List[Dict[str, Any]], ts_rounds: List[Dict[str, Dict[str, float]]], out_path: Path) -> None:
    """The vector-env rounds alone: each round's env-steps/s, ratios to GEM in that round, and CPU µs
    per env-step (gem_ts: this process and the server together)."""
    rounds = []
    for g, t in zip(gem_rounds, ts_rounds):
        rounds.append(
            {
                n: {
                    "gem_ts_ipc": t[n]["wall"],
                    "gem_sync": g["sync"][n]["wall"],
                    "gem_async": g["async"][n]["wall"],
                    "vs_gem_sync": t[n]["wall"] / g["sync"][n]["wall"],
                    "gem_ts_cpu_us_per_step": t[n]["cpu_us_per_step"],
                    "gem_sync_cpu_us_per_step": g["sync"][n]["cpu_us_per_step"],
                }
                for n in t
            }
        )
    result = {**meta, "load_avg_at_end": os.getloadavg(), "each_round": rounds}
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"{'round':>5} {'envs':>6} {'gem_ts ipc':>12} {'GEM sync':>10} {'× sync':>7} {'CPU µs/step gem_ts':>19} {'GEM sync':>9}")
    for r, row in enumerate(rounds):
        for n, v in row.items():
            print(
                f"{r + 1:>5} {n:>6} {v['gem_ts_ipc']:>12,.0f} {v['gem_sync']:>10,.0f} {v['vs_gem_sync']:>7.2f} "
                f"{v['gem_ts_cpu_us_per_step']:>19.3f} {v['gem_sync_cpu_us_per_step']:>9.3f}"
            )
    print(f"load average at start {meta['load_avg_at_start'][0]:.2f}, at end {result['load_avg_at_end'][0]:.2f}; wrote {out_path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="measurement window per case")
    ap.add_argument("--rounds", type=int, default=3, help="alternating GEM / gem_ts rounds; each case keeps its best window")
    ap.add_argument("--gem-worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument("--aio-only", action="store_true", help="only the tcp trainer paths (asyncio coroutines, one env), each round")
    ap.add_argument(
        "--batch-only",
        action="store_true",
        help="only the vector-env rounds (gem_ts over ipc vs GEM), with CPU µs per env-step; results/wire_throughput_batch.json",
    )
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="env counts of the vector-env cases, comma-separated (default 1,64,1024)")
    ap.add_argument("--transport", choices=sorted(IPC_OF), default="stream", help="the stream transport (the library's default) or ZeroMQ's")
    ap.add_argument("--event-loop", choices=["asyncio", "uvloop"], default="asyncio", help="--aio-only: the event loop the coroutines run on")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    if args.gem_worker:
        gem_worker(args.seconds, sizes)
        return
    if args.aio_only:
        aio_only(args.seconds, args.rounds, Path(args.out) if args.out != str(RESULTS) else RESULTS.with_name("wire_throughput_aio.json"), args.transport, args.event_loop)
        return

    import gem_ts
    from gem_ts import Client, LocalServer

    meta = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "cpus": os.cpu_count(),
        "load_avg_at_start": os.getloadavg(),
        "python": platform.python_version(),
        "node": node_version(),
        "env_id": ENV_ID,
        "seconds_per_case": args.seconds,
        "rounds": args.rounds,
        "transport": args.transport,
        "command": "python core/bench/wire_throughput.py"
        + (" --batch-only" if args.batch_only else "")
        + ("" if args.seconds == 3.0 else f" --seconds {args.seconds:g}")
        + ("" if args.rounds == 3 else f" --rounds {args.rounds}")
        + ("" if sizes == SIZES else f" --sizes {args.sizes}")
        + ("" if args.transport == "stream" else f" --transport {args.transport}"),
    }
    # Rounds alternate GEM and gem_ts and keep each case's best window: other load on the machine
    # then lowers both sides alike instead of whichever ran during a burst.
    gem_rounds: List[Dict[str, Any]] = []
    ts_rounds: List[Dict[str, float]] = []
    with LocalServer(endpoint=IPC_OF[args.transport]) as ipc_server, Client(ipc_server.endpoint) as client:
        for r in range(args.rounds):
            print(f"round {r + 1}/{args.rounds}: GEM in-process (own venv) …", file=sys.stderr)
            gem_rounds.append(run_gem(args.seconds, sizes))
            print(f"round {r + 1}/{args.rounds}: gem_ts over ipc …", file=sys.stderr)
            ts_rounds.append(gem_ts_throughput(client, args.seconds, sizes))

        def best(rows: List[Dict[str, Dict[str, float]]], metric: str) -> Dict[str, float]:
            return {n: max(row[n][metric] for row in rows) for n in rows[0]}

        if args.batch_only:
            batch_only(meta, gem_rounds, ts_rounds, Path(args.out) if args.out != str(RESULTS) else RESULTS.with_name("wire_throughput_batch.json"))
            return

        gem_sync = [g["sync"] for g in gem_rounds]
        gem_async = [g["async"] for g in gem_rounds]
        gem_res = {"gem_version": gem_rounds[0]["gem_version"], "sync": best(gem_sync, "wall"), "async": best(gem_async, "wall")}
        per_cpu = {"gem_ts_ipc": best(ts_rounds, "cpu"), "gem_sync": best(gem_sync, "cpu"), "gem_async": best(gem_async, "cpu")}
        ts = best(ts_rounds, "wall")
        print("latency, crossover, aio, memory …", file=sys.stderr)
        lat_ipc = latency(client)
        cross = crossover(client)
        coalesced = aio_coalesced(client.endpoint, seconds=args.seconds)
        inline_max_rows = client.limits["inline_max_rows"]
    with LocalServer(endpoint=IPC_OF[args.transport]) as fresh, Client(fresh.endpoint) as mem_client:  # a fresh server: its own baseline
        mem = memory(mem_client)
    with LocalServer(endpoint=TCP_OF[args.transport]) as tcp_server, Client(tcp_server.endpoint) as tcp_client:
        lat_tcp = latency(tcp_client)
        paths_tcp = flavours(tcp_server.endpoint, args.seconds)

    ratios = {
        n: {"vs_gem_sync": ts[n] / gem_res["sync"][n], "vs_gem_async": ts[n] / gem_res["async"][n]} for n in ts
    }
    result = {
        **meta,
        "gem_version": gem_res["gem_version"],
        "gem_ts_version": gem_ts.__version__,
        "env_steps_per_s": {"gem_ts_ipc": ts, "gem_sync": gem_res["sync"], "gem_async": gem_res["async"]},
        "env_steps_per_cpu_s": per_cpu,
        "env_steps_per_s_each_round": {"gem_ts_ipc": ts_rounds, "gem": [{k: g[k] for k in ("sync", "async")} for g in gem_rounds]},
        "ratios": ratios,
        "latency_single_env": {"ipc": lat_ipc, "tcp": lat_tcp},
        "inline_vs_arrow_round_trip_median_us": cross,
        "inline_max_rows": inline_max_rows,
        "aio_coalesced": coalesced,
        "trainer_paths_tcp": paths_tcp,
        "server_memory": mem,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")

    print(f"\nenv-steps/s, random actions on {ENV_ID} (best of {args.rounds} × {args.seconds:g} s windows)")
    print(f"{'envs':>6} {'gem_ts ipc':>12} {'GEM sync':>10} {'GEM async':>10} {'× sync':>7} {'× async':>8}")
    for n in ts:
        print(
            f"{n:>6} {ts[n]:>12,.0f} {gem_res['sync'][n]:>10,.0f} {gem_res['async'][n]:>10,.0f} "
            f"{ratios[n]['vs_gem_sync']:>7.2f} {ratios[n]['vs_gem_async']:>8.2f}"
        )
    print("per CPU-second (client + server for gem_ts):")
    for n in ts:
        print(f"{n:>6} {per_cpu['gem_ts_ipc'][n]:>12,.0f} {per_cpu['gem_sync'][n]:>10,.0f} {per_cpu['gem_async'][n]:>10,.0f}")
    print(f"\none-env round trip: ipc p50 {lat_ipc['p50_us']:.0f} µs p99 {lat_ipc['p99_us']:.0f} µs; tcp p50 {lat_tcp['p50_us']:.0f} µs p99 {lat_tcp['p99_us']:.0f} µs")
    print("inline vs arrow (median µs per round trip): " + ", ".join(f"{n}: {v['inline_us']:.0f}/{v['arrow_us']:.0f}" for n, v in cross.items()))
    print(f"aio, {coalesced['agents']} coroutines × 1 env, coalesced: {coalesced['env_steps_per_s']:,.0f} env-steps/s")
    print(describe_flavours(paths_tcp))
    print(
        f"server memory with {mem['envs']:,} live envs: {mem['server_rss_mib_with_envs']:.0f} MiB RSS "
        f"({mem['server_rss_mib_before']:.0f} MiB before), JS heap {mem['server_heap_mib_with_envs']:.0f} MiB ({mem['server_heap_mib_before']:.0f} before)"
    )
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
