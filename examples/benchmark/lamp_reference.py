"""What each advantage estimator should reach on LampChain with perfect features (docs/benchmark.md).

A tabular learner: the policy is a softmax table π(press | lit lamp), so reading the observation costs
nothing and only credit assignment is left. It plays the LampChain rules (game:LampChain-v0: each turn
one of `lamps` lamps is lit; pressing it pays 1, or 0.5 right after a miss; anything else 0) and is
trained with the benchmark's OWN advantage code (advantages.py) and the same batch of 64 episodes,
GRPO groups of 4 sharing their lamps, and one plain policy-gradient step per iteration. PPO's critic
is a table V(turn, previous press hit) fitted to the GAE targets.

The prediction it makes for the transformer runs is relative: how many iterations each estimator needs
to reach a hit rate, compared with the per-turn learners. Run it alone:

  .venv/bin/python examples/benchmark/lamp_reference.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmark.advantages import ALGORITHMS, compute_advantages
    from benchmark.rollouts import Episode, Transition
else:
    from .advantages import ALGORITHMS, compute_advantages
    from .rollouts import Episode, Transition


def lamp_return(p: float, turns: int) -> float:
    """Expected return when every press hits with probability p: p + (turns − 1) · p · (p + (1 − p) / 2)."""
    return p + (turns - 1) * p * (p + (1 - p) / 2)


def _play(theta: np.ndarray, lamps_seq: np.ndarray, rng: np.random.Generator, groups: np.ndarray):
    """Plays one batch; returns the episodes and, per transition, (lit lamp, pressed, turn, prev hit)."""
    episodes, meta = [], []
    lamps = theta.shape[0]
    for e, (seq, g) in enumerate(zip(lamps_seq, groups)):
        ep = Episode(seed=e, group=int(g))
        last_hit = True
        for t, lit in enumerate(seq):
            z = theta[lit] - theta[lit].max()
            probs = np.exp(z) / np.exp(z).sum()
            a = int(rng.choice(lamps, p=probs))
            hit = a == lit
            reward = (1.0 if last_hit else 0.5) if hit else 0.0
            ep.turns.append(Transition("", "", [], reward, t == len(seq) - 1))
            meta.append((lit, a, t, last_hit))
            last_hit = hit
        episodes.append(ep)
    return episodes, meta


def train_reference(algo: str, seed: int, iters: int, lamps: int = 3, turns: int = 5, batch: int = 64,
                    group_size: int = 4, gamma: float = 0.5, lr: float = 0.5, lam: float = 0.95) -> list[float]:
    """The hit rate (probability of pressing the lit lamp, averaged over lamps) after each iteration."""
    rng = np.random.default_rng(seed)
    theta = np.zeros((lamps, lamps))
    values = np.zeros((turns, 2))  # PPO's table critic: V(turn, previous press hit)
    groups = np.repeat(np.arange(batch // group_size), group_size)
    curve = [1.0 / lamps]
    for _ in range(iters):
        seqs = rng.integers(0, lamps, size=(batch // group_size, turns)).repeat(group_size, axis=0)
        episodes, meta = _play(theta, seqs, rng, groups)
        v = [values[t, int(prev)] for (_, _, t, prev) in meta] if algo == "ppo" else None
        adv, targets = compute_advantages(algo, episodes, gamma, lam, v)
        grad = np.zeros_like(theta)
        for (lit, a, _, _), adv_t in zip(meta, adv):
            z = theta[lit] - theta[lit].max()
            probs = np.exp(z) / np.exp(z).sum()
            score = -probs
            score[a] += 1.0
            grad[lit] += adv_t * score
        theta += lr * grad / len(meta)
        if algo == "ppo":
            for (_, _, t, prev), target in zip(meta, targets):
                values[t, int(prev)] += 0.05 * (target - values[t, int(prev)])
        probs = np.exp(theta - theta.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        curve.append(float(np.mean(np.diag(probs))))
    return curve


def iterations_to(curve: list[float], level: float) -> int | None:
    """The first iteration whose value reaches `level`, or None if the curve never does."""
    return next((i for i, v in enumerate(curve) if v >= level), None)


def reference(iters: int = 100, seeds: int = 5, level: float = 0.9, **kwargs) -> dict:
    """Per algorithm: the mean hit-rate curve over seeds and the iterations each seed needed to reach `level`."""
    out = {}
    for algo in ALGORITHMS:
        curves = [train_reference(algo, s, iters, **kwargs) for s in range(seeds)]
        reach = [iterations_to(c, level) for c in curves]
        out[algo] = {"mean_curve": list(np.mean(curves, axis=0)), "iters_to_level": reach,
                     "final_hit_rate": float(np.mean([c[-1] for c in curves]))}
    return {"level": level, "iters": iters, "seeds": seeds, "algorithms": out}


if __name__ == "__main__":
    ref = reference()
    print(f"tabular LampChain learner, hit rate {ref['level']:.0%} (random 33%), {ref['seeds']} seeds, {ref['iters']} iterations:")
    for algo, r in ref["algorithms"].items():
        print(f"  {algo:<10} iterations to reach it {r['iters_to_level']}, final hit rate {r['final_hit_rate']:.2f}")
