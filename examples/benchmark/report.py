"""Turning the runs into results: per-seed numbers, intervals over seeds, pairwise verdicts, throughput,
the Markdown table and the plot with mean curves and bands."""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from .advantages import ALGO_LABELS
from .stats import curve_auc, mean_interval, paired_comparison
from .tasks import TASKS

METRICS = {  # name: (label, how one run gives it)
    "final_success": ("final success", lambda r: r["final"]["success"]),
    "auc_success": ("success AUC", lambda r: curve_auc([p["iter"] for p in r["curve"]], [p["success"] for p in r["curve"]])),
    "final_return": ("final return", lambda r: r["final"]["return"]),
    "auc_return": ("return AUC", lambda r: curve_auc([p["iter"] for p in r["curve"]], [p["return"] for p in r["curve"]])),
}
PAIR_METRICS = ("final_success", "auc_success", "final_return", "auc_return")
CLOCK_KEYS = ("env_s", "generate_s", "update_s", "eval_s", "episodes", "turns", "prompt_tokens", "response_tokens")


def assemble(args, preps, runs, seconds: float, train_wall: float) -> dict:
    """The results document: settings, every per-seed number, and the summaries over seeds."""
    settings = {k: v for k, v in vars(args).items() if k not in ("quiet", "log")}
    results = {"settings": settings, "seeds": list(args.seeds), "tasks": {}, "seconds": seconds}
    for key in args.tasks:
        task = TASKS[key]
        per_seed = {}
        for p in (p for p in preps if p.task == key):
            meta = {k: v for k, v in p.meta.items() if k != "vocabulary"}
            algos = {r["algo"]: r for r in runs if r["task"] == key and r["seed"] == p.seed}
            per_seed[str(p.seed)] = {**meta, "algorithms": {a: algos[a] for a in args.algos if a in algos}}
        first = next(iter(per_seed.values()), {})
        results["tasks"][key] = {
            "env_id": task.env_id, "env_kwargs": task.env_kwargs, "wrappers": task.wrappers, "gamma": task.gamma,
            "description": task.description, "lr": args.lr or task.lr, "iters": task.iterations(args.iters),
            "policy": first.get("policy"), "seeds": per_seed, "summary": summarize_task(per_seed, args.algos, args.seeds),
        }
    results["throughput"] = throughput(runs, args, train_wall)
    return results


def _seed_values(per_seed: dict, seeds, algo: str, metric: str) -> list[float]:
    get = METRICS[metric][1]
    return [get(per_seed[str(s)]["algorithms"][algo]) for s in seeds]


def _finished(per_seed: dict, seeds, algos) -> list:
    """The seeds where every one of `algos` has finished (a run cut short leaves some out)."""
    return [s for s in seeds if str(s) in per_seed and all(a in per_seed[str(s)]["algorithms"] for a in algos)]


def summarize_task(per_seed: dict, algos, seeds) -> dict:
    """Intervals over the seeds each row has; paired differences over the seeds both algorithms have."""
    prepared = [s for s in seeds if str(s) in per_seed]
    rows = {}
    if prepared:
        for base in ("random_action", "warm_start"):
            rows[base] = {m: mean_interval([per_seed[str(s)][base][m.split("_")[1]] for s in prepared]).as_dict()
                          for m in ("final_success", "final_return")}
    for algo in algos:
        done = _finished(per_seed, seeds, [algo])
        if done:
            rows[algo] = {m: mean_interval(_seed_values(per_seed, done, algo, m)).as_dict() for m in METRICS}
    pairs = {m: [] for m in PAIR_METRICS}
    for a, b in itertools.combinations(algos, 2):
        both = _finished(per_seed, seeds, [a, b])
        if not both:
            continue
        for m in PAIR_METRICS:
            pairs[m].append(paired_comparison(a, _seed_values(per_seed, both, a, m), b, _seed_values(per_seed, both, b, m)).as_dict())
    return {"rows": rows, "pairs": pairs}


def refresh(results: dict) -> dict:
    """Recomputes every summary from the per-seed numbers a results.json holds (--report)."""
    for tr in results["tasks"].values():
        tr["summary"] = summarize_task(tr["seeds"], results["settings"]["algos"], results["seeds"])
    return results


def throughput(runs: list[dict], args, train_wall: float) -> dict:
    """Training speed per task and algorithm (per worker process) and for the whole grid (wall clock)."""
    out = {"per_task_algo": {}, "workers": args.workers, "threads_per_worker": args.threads}
    for key in args.tasks:
        for algo in args.algos:
            clocks = [r["clock"] for r in runs if r["task"] == key and r["algo"] == algo]
            if not clocks:
                continue
            tot = {k: sum(c[k] for c in clocks) for k in CLOCK_KEYS}
            busy = tot["env_s"] + tot["generate_s"] + tot["update_s"]
            out["per_task_algo"][f"{key}/{algo}"] = {
                **tot,
                "episodes_per_s": tot["episodes"] / busy if busy else 0.0,
                "tokens_per_s": (tot["prompt_tokens"] + tot["response_tokens"]) / busy if busy else 0.0,
                "env_share": tot["env_s"] / busy if busy else 0.0,
                "model_share": (tot["generate_s"] + tot["update_s"]) / busy if busy else 0.0,
            }
    all_eps = sum(r["clock"]["episodes"] for r in runs)
    all_tok = sum(r["clock"]["prompt_tokens"] + r["clock"]["response_tokens"] for r in runs)
    out["grid"] = {"episodes": all_eps, "wall_s": train_wall,
                   "episodes_per_s": all_eps / train_wall if train_wall else 0.0,
                   "tokens_per_s": all_tok / train_wall if train_wall else 0.0}
    return out


def _ci(iv: dict, digits: int = 2) -> str:
    return f"{iv['mean']:.{digits}f} [{iv['lo']:.{digits}f}, {iv['hi']:.{digits}f}]"


def results_markdown(results: dict) -> str:
    s = results["settings"]
    seeds = results["seeds"]
    lines = [
        f"Every algorithm × task over {len(seeds)} seeds ({', '.join(map(str, seeds))}); each cell is the mean over "
        f"seeds and its 95% bootstrap interval. Budget per run: the iterations listed below, each of "
        f"{s['rollout_envs']} episodes (GRPO: groups of {s['group_size']} from one initial state), {s['epochs']} epochs × "
        f"{s['minibatches']} minibatches. Scores over {s['eval_episodes']} held-out episodes per seed "
        f"({'greedy' if s['greedy_eval'] else 'sampled at temperature 1'}); AUC = the learning curve's mean height "
        f"(area over the iteration span). Whole run: {results['seconds'] / 60:.1f} min"
        f"{'' if results.get('complete', True) else ' so far: PARTIAL, ' + results.get('runs_finished', '') + ' runs finished'}.",
        "",
    ]
    for key, tr in results["tasks"].items():
        rows = tr["summary"]["rows"]
        lines += [f"### {key}: `{tr['env_id']}`", "", f"{tr['description']}; {tr['iters']} iterations, lr {tr['lr']}; {tr['policy'] or 'not reached in this run'}.", ""]
        if not tr["seeds"]:
            continue
        lines += ["| policy | seeds | final success | success AUC | final return | return AUC |", "|---|---:|---:|---:|---:|---:|"]
        for name, label in (("random_action", "random valid action"), ("warm_start", "warm start (before RL)")):
            if name not in rows:
                continue
            r = rows[name]
            lines.append(f"| {label} | {r['final_success']['n']} | {_ci(r['final_success'])} | – | {_ci(r['final_return'], 3)} | – |")
        for algo in (a for a in ALGO_LABELS if a in rows):
            r = rows[algo]
            lines.append(f"| {ALGO_LABELS[algo]} | {r['final_success']['n']} | {_ci(r['final_success'])} | {_ci(r['auc_success'])} | "
                         f"{_ci(r['final_return'], 3)} | {_ci(r['auc_return'], 3)} |")
        lines += ["", "Paired differences (first − second algorithm, same seeds), 95% bootstrap interval; "
                  "**bold** = the interval excludes 0 (resolved at this budget; with fewer than 5 seeds read it as anecdote: "
                  "2 seeds that agree always exclude 0), wins = seeds where the first is higher:", ""]
        lines += ["| pair | Δ final success | Δ success AUC | Δ final return | Δ return AUC |", "|---|---:|---:|---:|---:|"]
        pairs = tr["summary"]["pairs"]
        for i, p in enumerate(pairs["final_success"]):
            cells = []
            for m in PAIR_METRICS:
                q = pairs[m][i]
                d = q["difference"]
                digits = 3 if "return" in m else 2
                text = f"{d['mean']:+.{digits}f} [{d['lo']:+.{digits}f}, {d['hi']:+.{digits}f}] ({q['a_wins']}–{q['b_wins']})"
                cells.append(f"**{text}**" if q["resolved"] else text)
            lines.append(f"| {ALGO_LABELS[p['a']]} − {ALGO_LABELS[p['b']]} | " + " | ".join(cells) + " |")
        lines.append("")
        if "reference" in tr:
            lines += reference_lines(tr)
    tp = results["throughput"]
    lines += ["### Training throughput", "",
              f"Per worker process ({tp['workers']} worker(s), {tp['threads_per_worker']} torch thread(s) each), "
              "training steps only (evaluation excluded); tokens = prompt + generated tokens of the training turns.", "",
              "| task / algorithm | episodes/s | tokens/s | env share | model share (generate + update) |", "|---|---:|---:|---:|---:|"]
    for name, t in tp["per_task_algo"].items():
        key, algo = name.split("/")
        lines.append(f"| {key} / {ALGO_LABELS[algo]} | {t['episodes_per_s']:.1f} | {t['tokens_per_s']:,.0f} | "
                     f"{100 * t['env_share']:.0f}% | {100 * t['model_share']:.0f}% "
                     f"({100 * t['generate_s'] / max(t['env_s'] + t['generate_s'] + t['update_s'], 1e-9):.0f}% + "
                     f"{100 * t['update_s'] / max(t['env_s'] + t['generate_s'] + t['update_s'], 1e-9):.0f}%) |")
    g = tp["grid"]
    lines += ["", f"Whole grid: {g['episodes']:,} training episodes in {g['wall_s'] / 60:.1f} min of wall clock (warm starts and evaluations included): "
              f"{g['episodes_per_s']:.1f} episodes/s, {g['tokens_per_s']:,.0f} tokens/s.", ""]
    return "\n".join(lines)


def reference_lines(tr: dict) -> list[str]:
    """The tabular learner's prediction beside this run's ordering (docs/benchmark.md explains both)."""
    ref = tr["reference"]
    cells = []
    for algo, r in ref["algorithms"].items():
        reach = [x for x in r["iters_to_level"] if x is not None]
        when = f"{np.mean(reach):.0f}" if len(reach) == len(r["iters_to_level"]) else f"{len(reach)}/{len(r['iters_to_level'])} seeds reach it"
        cells.append(f"{ALGO_LABELS[algo]} {when}")
    rows = tr["summary"]["rows"]
    ranked = sorted((a for a in ref["algorithms"] if a in rows), key=lambda a: -rows[a]["auc_return"]["mean"])
    return [f"Reference, a tabular learner with perfect features and the same advantage code (benchmark/lamp_reference.py, "
            f"{ref['seeds']} seeds): iterations to a {ref['level']:.0%} hit rate: " + ", ".join(cells) + ". "
            "This run's return AUC, highest first: " + " > ".join(ALGO_LABELS[a] for a in ranked) +
            " (the paired table says which of these gaps are resolved).", ""]


def _band(curves: list[list[float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean over seeds at every evaluation point and its 95% bootstrap interval (point by point)."""
    ivs = [mean_interval(col) for col in zip(*curves)]
    return (np.array([i.mean for i in ivs]), np.array([i.lo for i in ivs]), np.array([i.hi for i in ivs]))


def plot_curves(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = [(k, tr) for k, tr in results["tasks"].items() if tr["seeds"]] or list(results["tasks"].items())[:1]
    fig, axes = plt.subplots(len(tasks), 2, figsize=(11, 3.4 * len(tasks)), squeeze=False)
    colors = {"reinforce": "tab:gray", "rebn": "tab:red", "grpo": "tab:blue", "ppo": "tab:green"}
    n_seeds = len(results["seeds"])
    for row, (key, tr) in enumerate(tasks):
        per_seed = list(tr["seeds"].values())
        for col, metric in enumerate(("success", "return")):
            ax = axes[row][col]
            for algo in ALGO_LABELS:
                runs = [s["algorithms"][algo] for s in per_seed if algo in s["algorithms"]]
                if not runs:
                    continue
                xs = [p["iter"] for p in runs[0]["curve"]]
                mean, lo, hi = _band([[p[metric] for p in r["curve"]] for r in runs])
                ax.plot(xs, mean, color=colors[algo], label=ALGO_LABELS[algo], lw=1.6)
                ax.fill_between(xs, lo, hi, color=colors[algo], alpha=0.15, lw=0)
            if "random_action" in tr["summary"]["rows"]:
                rnd = tr["summary"]["rows"]["random_action"]["final_" + metric]["mean"]
                ax.axhline(rnd, ls=":", color="black", lw=1, label="random valid action")
            ax.set_title(f"{key}: {tr['env_id']}", fontsize=9)
            ax.set_xlabel("iteration")
            ax.set_ylabel("success rate" if metric == "success" else "mean episode return")
            ax.grid(alpha=0.3)
            if row == 0 and col == 0:
                ax.legend(fontsize=8)
    fig.suptitle(f"mean over seeds with 95% bootstrap band (up to {n_seeds} seeds per curve)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
