#!/usr/bin/env python3
"""The throughput plot of docs/performance.md: env-steps/s against envs (or sessions), log-log, from
the committed results of `wire_throughput.py` (gem-ts batch over ipc, GEM's SyncVectorEnv and
AsyncVectorEnv in the same run, gem-ts asyncio over tcp, from the latest `--aio-only` run when there is
one) and `openenv_peer.py` (OpenEnv's own server and gem-ts's OpenEnv front door in the same run). Each
curve is one benchmark run; curves from different runs are not ratios, read those in the tables.

    .venv/bin/python core/bench/plot_throughput.py      # writes docs/img/throughput.png
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
OUT = HERE.parents[1] / "docs" / "img" / "throughput.png"

Series = Dict[str, List[Tuple[int, float]]]


def _points(by_size: Dict[str, Any], key: str = "") -> List[Tuple[int, float]]:
    pts = [(int(n), float(v[key] if key else v)) for n, v in by_size.items() if n.isdigit()]
    return sorted(pts)


def series(wire: Dict[str, Any], openenv: Dict[str, Any], aio: Optional[Dict[str, Any]] = None) -> Series:
    """The curves, each a list of (envs, env-steps/s); a run that lacks a part just lacks its curve.
    `aio`, a `--aio-only` run, gives the asyncio curve its last round instead of the wire run's."""
    steps = wire["env_steps_per_s"]
    out: Series = {
        "gem-ts batch (make_vec, ipc)": _points(steps["gem_ts_ipc"]),
        "GEM SyncVectorEnv (in-process)": _points(steps["gem_sync"]),
        "GEM AsyncVectorEnv (in-process)": _points(steps["gem_async"]),
    }
    rounds = (aio or {}).get("trainer_paths_tcp_each_round") or []
    paths = rounds[-1] if rounds else wire.get("trainer_paths_tcp")
    if paths:
        out["gem-ts asyncio, one env per coroutine (tcp)"] = [
            (1, float(paths["aio_env"]["steps_per_s"])),
            (int(paths["agents"]), float(paths["aio_own_envs_env_steps_per_s"])),
        ]
    if "openenv" in openenv:
        out["OpenEnv server (WebSocket sessions)"] = _points(openenv["openenv"], "steps_per_s")
    if "gem-ts" in openenv:
        out["gem-ts OpenEnv front door (WebSocket sessions)"] = _points(openenv["gem-ts"], "steps_per_s")
    return {name: pts for name, pts in out.items() if pts}


def plot(curves: Series, out: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
    for name, pts in curves.items():
        xs, ys = zip(*pts)
        ax.plot(xs, ys, marker="o", label=name, linestyle="--" if "GEM" in name or "OpenEnv server" in name else "-")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("envs stepped together (vector size, coroutines or sessions)")
    ax.set_ylabel("env-steps/s")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wire", default=str(RESULTS / "wire_throughput.json"))
    ap.add_argument("--openenv", default=str(RESULTS / "openenv_peer.json"))
    ap.add_argument("--aio", default=str(RESULTS / "wire_throughput_aio.json"), help="an --aio-only run (used when the file exists)")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    wire = json.loads(Path(args.wire).read_text())
    openenv = json.loads(Path(args.openenv).read_text())
    aio = json.loads(Path(args.aio).read_text()) if Path(args.aio).exists() else None
    curves = series(wire, openenv, aio)
    load = wire.get("load_avg_at_start", [float("nan")])[0]
    title = f"GuessTheNumber, 2 cores; wire run {wire.get('when', '?')} (load {load:.2f} at start)"
    if aio:
        title += f";\nasyncio run {aio.get('when', '?')}"
    plot(curves, Path(args.out), title)
    print(f"wrote {args.out}: {', '.join(f'{k} ({len(v)} points)' for k, v in curves.items())}")


if __name__ == "__main__":
    main()
