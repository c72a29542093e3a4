#!/usr/bin/env python3
"""Head-to-head: REINFORCE, REINFORCE+ReBN, GRPO and PPO on gem-ts environments, over seeds.

For each task and seed it builds a tiny causal language model (a transformer with a word-level
tokenizer built from the env's own text, or any Hugging Face model with --model), warm-starts it with
a short supervised phase (language modelling on observations from random play, plus random valid
actions ``\\boxed{k}`` as targets: nothing about good play), then trains a copy of that same starting
point with each algorithm under the same budget, and writes:

  <out>/results.json   every number: settings, per-seed baselines, curves, timings, and the summaries
  <out>/results.md     mean and 95% bootstrap interval over seeds of final success and curve area,
                       paired differences per pair of algorithms (resolved or not), throughput
  <out>/curves.png     mean learning curves with 95% bands, per task

The four algorithms differ only in the advantage each turn gets (benchmark/advantages.py); rollouts,
loss, optimiser and budget are shared (benchmark/training.py). A transition is one turn: state = the
(concatenated) observation, action = the whole response, reward = that turn's reward.

Tasks (benchmark/tasks.py; what each algorithm should reach: docs/benchmark.md):
  game    GuessTheNumber-v0-easy: sparse, the reward arrives on the last turn (GEM's game recipe, γ=0.9)
  dense   LampChain-v0: 5 turns, each paid at once, a miss halving the next hit (γ=0.5)
  single  PickLargest-v0: one answer per episode, prompts of mixed difficulty (2 to 6 numbers shown)

Runs:
  python examples/benchmark_algorithms.py            # default: 3 tasks × 4 algorithms × 5 seeds, 2 worker processes
  python examples/benchmark_algorithms.py --quick    # a CI-sized run (< 2 min)
  python examples/benchmark_algorithms.py --demo     # what `npm run demo` runs: REINFORCE+ReBN on the game, one seed
  python examples/benchmark_algorithms.py --algos rebn grpo --tasks dense --seeds 10
  python examples/benchmark_algorithms.py --model Qwen/Qwen3-0.6B --device cuda   # a real LM, on one GPU

The gem-ts server starts by itself (gem_ts's local autostart, one per worker process) unless
GEM_TS_ENDPOINT names one.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchmark.advantages import ALGORITHMS  # noqa: E402
from benchmark.lamp_reference import reference  # noqa: E402
from benchmark.log import Log  # noqa: E402
from benchmark.report import assemble, plot_curves, refresh, results_markdown  # noqa: E402
from benchmark.runner import close_vecs, describe_run, run_grid  # noqa: E402
from benchmark.tasks import TASKS  # noqa: E402


_REFERENCE: dict = {}


def write_results(args, out: Path, preps, runs, t_start: float, train_start: float, complete: bool) -> dict:
    """Writes results.json/.md and curves.png from the runs finished so far."""
    results = assemble(args, preps, runs, time.time() - t_start, time.time() - train_start)
    expected = len(args.tasks) * len(args.algos) * len(args.seeds)
    results["complete"] = complete and len(runs) == expected
    results["runs_finished"] = f"{len(runs)} of {expected}"
    dense_runs = sum(r["task"] == "dense" for r in runs)
    if "dense" in results["tasks"] and dense_runs == len(args.algos) * len(args.seeds):
        # what perfect features give the same estimators: seconds of CPU, made once
        if "dense" not in _REFERENCE:
            _REFERENCE["dense"] = reference(iters=results["tasks"]["dense"]["iters"], seeds=len(args.seeds))
        results["tasks"]["dense"]["reference"] = _REFERENCE["dense"]
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    (out / "results.md").write_text(results_markdown(results))
    plot_curves(results, out / "curves.png")
    return results


def run(args) -> dict:
    log = Log(args.quiet)
    args.log = log
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache_dir = None if (args.model or args.no_cache) and args.workers <= 1 else out / "cache"
    if cache_dir is not None:
        cache_dir.mkdir(exist_ok=True)
    t_start = time.time()
    log.info(f"━━ {len(args.tasks)} task(s) × {len(args.algos)} algorithm(s) × {len(args.seeds)} seed(s), "
             f"{args.workers} worker(s) × {args.threads} torch thread(s)")
    marks = {"train_start": t_start}

    def on_prepared(p) -> None:
        r, w = p.meta["random_action"], p.meta["warm_start"]
        log.info(f"   {p.task:<6} seed {p.seed}: random valid action {r['success']:.2f}, warm start {w['success']:.2f}"
                 f"{' (cached)' if p.meta.get('cached') else ''} — {p.meta['policy']}")

    def on_trained(r, preps, runs) -> None:
        log.info(f"   [{time.time() - t_start:5.0f} s] " + describe_run(r))
        # Every few runs, write what there is, so a run cut short still leaves its results.
        if len(runs) % 4 == 0 and len(runs) < len(args.tasks) * len(args.algos) * len(args.seeds):
            write_results(args, out, preps, runs, t_start, marks["train_start"], complete=False)

    _REFERENCE.clear()
    try:
        preps, runs = run_grid(args, cache_dir, on_prepared, on_trained)
    finally:
        close_vecs()
    results = write_results(args, out, preps, runs, t_start, marks["train_start"], complete=True)
    log.info(f"\nwrote {out / 'results.md'}, {out / 'results.json'} and {out / 'curves.png'} ({results['seconds']:.0f} s)")
    return results


PRESETS = {
    # unset flags take these values; --tasks/--algos only when not given on the command line
    "default": dict(iters=75, eval_every=15, eval_episodes=128, sft_steps=500, seeds=5),
    "quick": dict(iters=6, eval_every=3, eval_episodes=32, sft_steps=40, seeds=2, rollout_envs=32, sft_prompts=128),
    "demo": dict(iters=200, eval_every=50, eval_episodes=128, sft_steps=500, seeds=1, workers=1, tasks=["game"], algos=["rebn"]),
}


def parse_args(argv: list[str] | None = None):
    class Formatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
        pass

    p = argparse.ArgumentParser(description=__doc__, formatter_class=Formatter)
    g = p.add_argument_group("what to run")
    g.add_argument("--tasks", nargs="+", choices=list(TASKS),
                   help="; ".join(f"{k} = {t.description}" for k, t in TASKS.items()))
    g.add_argument("--algos", nargs="+", choices=ALGORITHMS, help="algorithms to compare (default: all four)")
    preset = g.add_mutually_exclusive_group()
    preset.add_argument("--quick", action="store_true", help="a CI-sized run: fewer iterations, episodes and warm-start steps (< 2 min)")
    preset.add_argument("--demo", action="store_true", help="what `npm run demo` runs: REINFORCE+ReBN only, on the game, one seed (about 3 min)")
    g.add_argument("--out", default="runs/benchmark", help="output folder for results.json, results.md, curves.png")
    g.add_argument("--seeds", type=int, help="how many seeds per algorithm × task (default 5; --quick 2; --demo 1)")
    g.add_argument("--seed", type=int, default=0,
                   help="the first seed; seed s fixes the warm start, the sampling and every env reset of its runs")
    g.add_argument("--workers", type=int,
                   help="worker processes running jobs side by side (default: 2 or the CPU count if lower; 1 with --model)")
    g.add_argument("--no-cache", action="store_true",
                   help="make every warm start afresh instead of reusing <out>/cache from an earlier run with the same settings")
    g.add_argument("--quiet", action="store_true", help="no progress output")
    g.add_argument("--report", metavar="RESULTS_JSON",
                   help="train nothing: write results.md and curves.png (into --out) again from a results.json")
    g = p.add_argument_group("budget (the same for every algorithm; unset values come from the preset)")
    g.add_argument("--iters", type=int, help="training iterations on the game; the dense and single-turn tasks get half (default 75; --quick 6; --demo 200)")
    g.add_argument("--rollout-envs", type=int, help="episodes per iteration (and envs in the vector env) (default 64; --quick 32)")
    g.add_argument("--group-size", type=int, default=4, help="episodes replayed from one initial state (GRPO's group)")
    g.add_argument("--eval-every", type=int, help="iterations between evaluations; the single-turn task evaluates 5 times as often (default 15; --quick 3)")
    g.add_argument("--eval-episodes", type=int, help="held-out episodes per evaluation and seed (default 128; --quick 32)")
    g.add_argument("--greedy-eval", action="store_true", help="evaluate greedily instead of sampling at temperature 1")
    g = p.add_argument_group("optimisation (shared)")
    g.add_argument("--lr", type=float, help="policy learning rate, Adam (default: the task's, 1e-3 on the game, 5e-4 on the single-turn task)")
    g.add_argument("--critic-lr", type=float, default=5e-4, help="PPO critic learning rate")
    g.add_argument("--epochs", type=int, default=2, help="passes over each batch")
    g.add_argument("--minibatches", type=int, default=2, help="optimiser steps per pass")
    g.add_argument("--clip", type=float, default=0.2, help="ratio clip range")
    g.add_argument("--value-clip", type=float, default=0.2, help="PPO value clip range")
    g.add_argument("--gae-lambda", type=float, default=0.95, help="PPO's GAE lambda (turn level)")
    g.add_argument("--grad-clip", type=float, default=1.0, help="gradient norm clip")
    g.add_argument("--temperature", type=float, default=1.0, help="sampling temperature for rollouts")
    g.add_argument("--chunk", type=int, default=64, help="rows per no-grad forward pass (PPO's critic values)")
    g = p.add_argument_group("policy")
    g.add_argument("--model", help="a Hugging Face causal LM path or id (transformers AutoModelForCausalLM); default: the tiny word-level model")
    g.add_argument("--device", help="torch device (default: cuda with --model when available, else cpu)")
    g.add_argument("--d-model", type=int, default=64, help="tiny model width")
    g.add_argument("--n-layer", type=int, default=2, help="tiny model depth")
    g.add_argument("--n-head", type=int, default=4, help="tiny model attention heads")
    g.add_argument("--context", type=int,
                   help="prompt window in tokens, the observation cut from the left (default: the task's, 48 on the game, 64 on the single-turn task; 1024 with --model)")
    g.add_argument("--max-new-tokens", type=int, default=10, help="response length limit (longer responses become an invalid action)")
    g.add_argument("--threads", type=int,
                   help="torch CPU threads per worker (0: torch's default; default 1 with several workers, else 2). "
                        "On 2 cores, two one-thread workers beat one two-thread process: the tiny model's matmuls are too small to split well")
    g = p.add_argument_group("supervised warm start (language modelling on observations + random valid actions as targets)")
    g.add_argument("--sft-steps", type=int, help="warm-start steps, 0 to skip (default 500; --quick 40)")
    g.add_argument("--sft-batch", type=int, default=32, help="warm-start batch size")
    g.add_argument("--sft-lr", type=float, default=2e-3, help="warm-start learning rate")
    g.add_argument("--sft-lm-weight", type=float, default=1.0,
                   help="weight of next-token prediction on the observations' own text in the warm start (0: format only)")
    g.add_argument("--sft-prompts", type=int, help="observations collected for the warm start (default 512; --quick 128)")
    args = p.parse_args(argv)
    preset = PRESETS["quick" if args.quick else "demo" if args.demo else "default"]
    preset = {"tasks": ["dense", "game", "single"], "algos": list(ALGORITHMS), "rollout_envs": 64, "sft_prompts": 512,
              "workers": 1 if args.model else min(2, os.cpu_count() or 1), **preset}
    for k, v in preset.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    if args.seeds < 1 or args.workers < 1:
        p.error("--seeds and --workers must be positive")
    if args.model and args.workers > 1:
        p.error("--model runs in one process (--workers 1): one large model per process would not fit twice")
    if args.threads is None:
        args.threads = 1 if args.workers > 1 else min(2, os.cpu_count() or 1)
    args.seeds = list(range(args.seed, args.seed + args.seeds))
    if args.rollout_envs % args.group_size:
        p.error("--rollout-envs must be a multiple of --group-size")
    if args.iters < 1 or args.eval_every < 1 or args.eval_episodes < 1:
        p.error("--iters, --eval-every and --eval-episodes must be positive")
    for flag in ("lr", "context"):  # unset means the task's own value
        if getattr(args, flag) is not None and getattr(args, flag) <= 0:
            p.error(f"--{flag} must be positive")
    if args.sft_lm_weight < 0:
        p.error("--sft-lm-weight must be 0 (format only) or positive")
    args.max_new_tokens = max(args.max_new_tokens, 2)
    return args


def report_only(path: str, out: Path) -> dict:
    """--report: the tables and plot again from a results.json (e.g. after a change to the report code)."""
    try:
        results = refresh(json.loads(Path(path).read_text()))
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"--report {path}: not a readable results.json of this benchmark ({type(e).__name__}: {e})")
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    (out / "results.md").write_text(results_markdown(results))
    plot_curves(results, out / "curves.png")
    print(f"wrote {out / 'results.md'}, {out / 'results.json'} and {out / 'curves.png'} from {path}")
    return results


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    return report_only(args.report, Path(args.out)) if args.report else run(args)


if __name__ == "__main__":
    main()
