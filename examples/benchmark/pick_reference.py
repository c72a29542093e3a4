"""What each advantage estimator should reach on PickLargest with perfect features (docs/benchmark.md).

A feature-perfect learner for game:PickLargest-v0 (one turn: name the largest of k distinct numbers
from 1 to 9, k from 2 to 6; reward 1 or 0). The policy scores each number n with one weight θ[n] and
picks among the SHOWN numbers by softmax, so reading the prompt costs nothing (the transformer has to
learn that) and only the learning signal is left. It starts where the warm start starts, uniform over
the shown numbers, and is trained with the benchmark's OWN advantage code (advantages.py): 64 episodes
per iteration, GRPO groups of 4 sharing one prompt, one plain policy-gradient step per iteration. PPO's
critic is a table V(k), the one thing about a prompt that predicts its reward before any learning.

  .venv/bin/python examples/benchmark/pick_reference.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmark.advantages import ALGORITHMS, compute_advantages
    from benchmark.lamp_reference import iterations_to
    from benchmark.rollouts import Episode, Transition
else:
    from .advantages import ALGORITHMS, compute_advantages
    from .lamp_reference import iterations_to
    from .rollouts import Episode, Transition

MAX_VALUE, COUNTS = 9, (2, 6)  # game:PickLargest-v0's defaults


def draw_prompts(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """n prompts as the env draws them: k uniform in COUNTS, then k distinct numbers (values 0..8 here)."""
    return [rng.choice(MAX_VALUE, size=int(rng.integers(COUNTS[0], COUNTS[1] + 1)), replace=False) for _ in range(n)]


def _probs(theta: np.ndarray, shown: np.ndarray) -> np.ndarray:
    z = theta[shown] - theta[shown].max()
    return np.exp(z) / np.exp(z).sum()


def success_rate(theta: np.ndarray, prompts: list[np.ndarray]) -> float:
    """Expected success (probability of naming the largest), averaged over `prompts`."""
    return float(np.mean([_probs(theta, s)[np.argmax(s)] for s in prompts]))


def train_reference(algo: str, seed: int, iters: int, batch: int = 64, group_size: int = 4, lr: float = 0.5,
                    eval_prompts: int = 1000, unit_scale: bool = False) -> list[float]:
    """The expected success rate on fixed held-out prompts after each iteration.

    `unit_scale` divides each batch's advantages by their root mean square: the step's size no longer
    depends on the estimator's scale (Adam, in the transformer runs, mostly removes it too), so what
    is left is which answers each estimator pushes up or down, and by how much relative to the others.
    """
    rng = np.random.default_rng(seed)
    held_out = draw_prompts(np.random.default_rng(10_000 + seed), eval_prompts)
    theta = np.zeros(MAX_VALUE)
    values = np.zeros(COUNTS[1] + 1)  # PPO's table critic: V(k)
    curve = [success_rate(theta, held_out)]
    for _ in range(iters):
        prompts = [p for p in draw_prompts(rng, batch // group_size) for _ in range(group_size)]
        episodes, picks = [], []
        for e, shown in enumerate(prompts):
            a = int(rng.choice(len(shown), p=_probs(theta, shown)))
            reward = float(a == int(np.argmax(shown)))
            episodes.append(Episode(seed=e, group=e // group_size, turns=[Transition("", "", [], reward, True)]))
            picks.append((shown, a))
        v = [values[len(s)] for s, _ in picks] if algo == "ppo" else None
        adv, targets = compute_advantages(algo, episodes, 1.0, 0.95, v)
        if unit_scale:
            adv = adv / (np.sqrt(np.mean(adv**2)) + 1e-9)
        grad = np.zeros_like(theta)
        for (shown, a), adv_t in zip(picks, adv):
            score = -_probs(theta, shown)
            score[a] += 1.0
            np.add.at(grad, shown, adv_t * score)
        theta += lr * grad / len(picks)
        if algo == "ppo":
            for (shown, _), target in zip(picks, targets):
                values[len(shown)] += 0.05 * (target - values[len(shown)])
        curve.append(success_rate(theta, held_out))
    return curve


def reference(iters: int = 38, seeds: int = 5, level: float = 0.6, **kwargs) -> dict:
    """Per algorithm: the mean success curve, its area (AUC) and iterations to `level`, over seeds."""
    out = {}
    for algo in ALGORITHMS:
        curves = [train_reference(algo, s, iters, **kwargs) for s in range(seeds)]
        out[algo] = {"mean_curve": list(np.mean(curves, axis=0)), "iters_to_level": [iterations_to(c, level) for c in curves],
                     "auc": float(np.mean(curves)), "final_success": float(np.mean([c[-1] for c in curves]))}
    return {"level": level, "iters": iters, "seeds": seeds, "algorithms": out}


if __name__ == "__main__":
    for unit_scale in (False, True):
        ref = reference(unit_scale=unit_scale)
        print(f"feature-perfect PickLargest learner, {ref['seeds']} seeds, {ref['iters']} iterations, "
              f"{'advantages scaled to unit RMS' if unit_scale else 'raw advantages'} "
              f"(uniform over the shown numbers: {ref['algorithms']['rebn']['mean_curve'][0]:.2f}):")
        for algo, r in ref["algorithms"].items():
            print(f"  {algo:<10} success AUC {r['auc']:.3f}, final {r['final_success']:.3f}, "
                  f"iterations to {ref['level']:.0%} {r['iters_to_level']}")
