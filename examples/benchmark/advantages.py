"""The only place the four algorithms differ: the advantage each turn (transition) gets.

  reinforce  A_t = G_t, the discounted return from turn t (G_t = r_t + gamma * G_{t+1}).
  rebn       REINFORCE with Return Batch Normalisation: A_t = (G_t - mean) / (std + 1e-9), the mean
             and std taken over ALL transitions of the batch (every episode, every turn).
  grpo       R = the episode's summed reward, A = (R - mean_group) / (std_group + 1e-9) over the
             episodes replayed from one initial state: the same value for every turn of the episode.
  ppo        turn-level GAE on a learned critic V(s_t), whitened over the batch.
"""
from __future__ import annotations

import numpy as np

from .rollouts import Episode

ALGORITHMS = ("reinforce", "rebn", "grpo", "ppo")
ALGO_LABELS = {"reinforce": "REINFORCE", "rebn": "REINFORCE+ReBN", "grpo": "GRPO", "ppo": "PPO"}
REBN_EPS = 1e-9


def discounted_returns(rewards: list[float], gamma: float) -> list[float]:
    """G_t = r_t + gamma * G_{t+1}, computed backwards over one episode."""
    out, g = [0.0] * len(rewards), 0.0
    for t in range(len(rewards) - 1, -1, -1):
        g = rewards[t] + gamma * g
        out[t] = g
    return out


def rebn(values: np.ndarray) -> np.ndarray:
    """Return Batch Normalisation: z-score over every transition of the batch."""
    return (values - values.mean()) / (values.std() + REBN_EPS)


def grpo_advantages(episodes: list[Episode]) -> list[float]:
    """Group-normalised whole-episode return, repeated for every turn of the episode."""
    by_group: dict[int, list[float]] = {}
    for e in episodes:
        by_group.setdefault(e.group, []).append(e.total_reward)
    stats = {g: (np.mean(r), np.std(r)) for g, r in by_group.items()}
    out = []
    for e in episodes:
        mean, std = stats[e.group]
        out += [(e.total_reward - mean) / (std + REBN_EPS)] * len(e.turns)
    return out


def turn_level_gae(rewards: list[float], values: list[float], dones: list[bool], gamma: float, lam: float):
    """GAE over the turns of one episode; returns (advantages, value targets)."""
    n = len(rewards)
    adv = [0.0] * n
    running = 0.0
    for t in range(n - 1, -1, -1):
        next_value = values[t + 1] if t + 1 < n else 0.0
        nonterminal = 0.0 if dones[t] else 1.0
        delta = rewards[t] + gamma * next_value * nonterminal - values[t]
        running = delta + gamma * lam * nonterminal * running
        adv[t] = running
    return adv, [a + v for a, v in zip(adv, values)]


def compute_advantages(algo: str, episodes: list[Episode], gamma: float, lam: float, values: list[float] | None):
    """Per-transition advantages (flattened in episode, turn order) and, for PPO, value targets."""
    if algo in ("reinforce", "rebn"):
        g = np.array([x for e in episodes for x in discounted_returns([t.reward for t in e.turns], gamma)])
        return (rebn(g) if algo == "rebn" else g), None
    if algo == "grpo":
        return np.array(grpo_advantages(episodes)), None
    if algo == "ppo":
        assert values is not None
        adv, targets, k = [], [], 0
        for e in episodes:
            n = len(e.turns)
            a, r = turn_level_gae([t.reward for t in e.turns], values[k : k + n], [t.done for t in e.turns], gamma, lam)
            adv += a
            targets += r
            k += n
        return rebn(np.array(adv)), np.array(targets)
    raise ValueError(f"unknown algorithm {algo!r}; choose from {', '.join(ALGORITHMS)}")


