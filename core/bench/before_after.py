#!/usr/bin/env python3
"""Wire and vector throughput of two commits, measured in turns in one run.

Checks out --before (default 21bf22c, the commit before the server renovation) and --after (default
HEAD) as git worktrees beside this checkout, with this checkout's node_modules linked in (so
uncommitted work in the checkout is not measured), then runs each tree's own
`wire_throughput.py` (its Python client against its own server: PYTHONPATH points at that tree's
core/python) and `vectorThroughput.ts`, alternating before/after for --rounds rounds. Reports the
best window per case for each tree and the ratio after/before; the raw JSON of every run goes to
--out.

    .venv/bin/python core/bench/before_after.py                  # 2 rounds, 2 s windows
    .venv/bin/python core/bench/before_after.py --before HEAD~5 --rounds 1

Run it with nothing else on the machine (`uptime` load < 0.5): the ratios come from one run, but
noise from other jobs is not spread evenly over alternating rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

from peer_venv import ensure_peer_venv
from wire_throughput import GEM_PIN, GEM_VENV

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RESULTS = HERE / "results"


def worktree(rev: str, where: Path) -> Path:
    if not where.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-f", "--detach", str(where), rev], check=True)
    for rel in ("node_modules", "core/node_modules"):
        link = where / rel
        if not link.exists() and (ROOT / rel).exists():
            link.symlink_to(ROOT / rel)
    # Share the GEM peer venv (made by this tree's first wire run) instead of building a second one.
    gem_venv = where / "core/bench/.venv-gem"
    if not gem_venv.exists():
        gem_venv.symlink_to(GEM_VENV)
    return where


def rev_parse(rev: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", rev], check=True, capture_output=True, text=True).stdout.strip()


def wire(tree: Path, seconds: float, out: Path) -> Dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree / "core/python"))
    cmd = [sys.executable, str(tree / "core/bench/wire_throughput.py"), "--seconds", str(seconds), "--rounds", "1", "--out", str(out)]
    subprocess.run(cmd, check=True, env=env, cwd=tree, stdout=subprocess.DEVNULL)
    data = json.loads(out.read_text())
    wanted = ("env_steps_per_s.", "env_steps_per_cpu_s.", "aio_coalesced.env_steps_per_s")
    return {f"wire {k}": v for k, v in flatten(data).items() if k.startswith(wanted)}


def vector(tree: Path, seconds: float, out: Path) -> Dict[str, float]:
    env = dict(os.environ, GEM_BENCH_SECONDS=str(seconds))
    subprocess.run(["npx", "tsx", "core/bench/vectorThroughput.ts"], check=True, env=env, cwd=tree, stdout=subprocess.DEVNULL)
    produced = tree / "core/bench/results/vectorThroughput.json"
    out.write_text(produced.read_text())
    subprocess.run(["git", "-C", str(tree), "checkout", "--", "core/bench/results"], check=True)
    rows = json.loads(out.read_text())["rows"]
    figures = {f"vector {r['executor']} {r['numEnvs']} steps/s": r["bestWindowStepsPerSecond"] for r in rows}
    figures.update({f"vector {r['executor']} {r['numEnvs']} steps/cpu-s": r["stepsPerCpuSecond"] for r in rows})
    return figures


def flatten(d: object, prefix: str = "") -> Dict[str, float]:
    flat: Dict[str, float] = {}
    if isinstance(d, dict):
        for k, v in d.items():
            flat.update(flatten(v, f"{prefix}{k}." if prefix or k else ""))
    elif isinstance(d, (int, float)) and not isinstance(d, bool):
        flat[prefix.rstrip(".")] = float(d)
    return flat


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="21bf22c")
    ap.add_argument("--after", default="HEAD")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--out", default=tempfile.mkdtemp(prefix="before-after-"))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    load_at_start = os.getloadavg()
    print(f"load at start: {load_at_start[0]:.2f}", flush=True)
    ensure_peer_venv(GEM_VENV, [GEM_PIN, "numpy"])  # the pins wire_throughput.py asks for; both trees share it
    revs = {name: rev_parse(rev) for name, rev in (("before", args.before), ("after", args.after))}
    trees = {name: worktree(rev, Path(tempfile.gettempdir()) / f"gem-ts-{rev[:10]}") for name, rev in revs.items()}
    best: Dict[str, Dict[str, float]] = {"before": {}, "after": {}}
    for r in range(args.rounds):
        for name, tree in (trees.items() if r % 2 == 0 else reversed(list(trees.items()))):
            print(f"round {r + 1}: {name} ({revs[name][:10]})", flush=True)
            for figures in (wire(tree, args.seconds, out / f"wire_{name}_{r}.json"), vector(tree, args.seconds, out / f"vector_{name}_{r}.json")):
                for case, value in figures.items():
                    best[name][case] = max(best[name].get(case, 0.0), value)
    cases: List[str] = sorted(set(best["before"]) & set(best["after"]))
    print(f"\n{'case':60} {'before':>12} {'after':>12} {'after/before':>12}")
    for case in cases:
        b, a = best["before"][case], best["after"][case]
        print(f"{case:60} {b:12,.0f} {a:12,.0f} {a / b if b else float('nan'):12.2f}")
    (out / "summary.json").write_text(json.dumps({"revs": revs, "load_at_start": load_at_start, "best": best}, indent=1))
    print(f"\nraw results: {out}")


if __name__ == "__main__":
    main()
