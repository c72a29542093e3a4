"""Statistics over seeds: area under a learning curve, bootstrap intervals, paired comparisons.

The unit of replication is the seed: one seed fixes the warm start, the training and held-out initial
states and every sample, so a seed's final score or curve area is one draw of "what this algorithm
reaches at this budget". Intervals are percentile bootstraps of the mean over seeds. With few seeds
(n ≤ EXACT_MAX_SEEDS) every one of the n^n resamples is enumerated, so an interval is a fixed number
that a hand computation can check, not a Monte Carlo estimate; with more seeds RESAMPLES draws from a
fixed generator are used. A percentile interval from 5 seeds is narrower than the truth (it cannot
reach beyond the observed extremes): a difference it resolves is a strong hint, not a proof.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

EXACT_MAX_SEEDS = 6
RESAMPLES = 20_000


def curve_auc(iters: list[float], values: list[float]) -> float:
    """Area under a learning curve (trapezoids), divided by its iteration span: the curve's mean height.

    1.0 means the metric was 1 from the first evaluation on; a fast learner scores higher than a slow
    one that ends at the same value.
    """
    x, y = np.asarray(iters, dtype=float), np.asarray(values, dtype=float)
    if len(x) != len(y) or len(x) == 0:
        raise ValueError("curve_auc needs as many values as iterations, at least one")
    if len(x) == 1 or x[-1] == x[0]:
        return float(y.mean())
    return float(np.sum((y[1:] + y[:-1]) / 2 * np.diff(x)) / (x[-1] - x[0]))


def bootstrap_means(values) -> np.ndarray:
    """The mean of every bootstrap resample of `values` (all n^n of them when n is small)."""
    v = np.asarray(values, dtype=float)
    n = len(v)
    if n == 0:
        raise ValueError("no values to bootstrap")
    if n <= EXACT_MAX_SEEDS:
        idx = np.array(list(itertools.product(range(n), repeat=n)))
    else:
        idx = np.random.default_rng(0).integers(0, n, size=(RESAMPLES, n))
    return v[idx].mean(axis=1)


@dataclass(frozen=True)
class Interval:
    mean: float
    lo: float
    hi: float
    n: int

    def excludes_zero(self) -> bool:
        return self.lo > 0 or self.hi < 0

    def as_dict(self) -> dict:
        return {"mean": self.mean, "lo": self.lo, "hi": self.hi, "n": self.n}


def mean_interval(values, level: float = 0.95) -> Interval:
    """Mean over seeds and its percentile bootstrap interval: the (1-level)/2 and (1+level)/2 quantiles
    of the resample means, each the smallest resample mean whose cumulative share reaches it."""
    if not 0 < level < 1:
        raise ValueError("level must lie strictly between 0 and 1")
    means = bootstrap_means(values)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2], method="inverted_cdf")
    return Interval(float(np.mean(values)), float(lo), float(hi), len(values))


@dataclass(frozen=True)
class PairedComparison:
    """a − b on the same seeds (same warm start, same initial states): the interval of the mean difference."""

    a: str
    b: str
    difference: Interval
    a_wins: int  # seeds where a scored higher
    b_wins: int

    @property
    def resolved(self) -> bool:
        return self.difference.excludes_zero()

    @property
    def verdict(self) -> str:
        if not self.resolved:
            return "not resolved"
        return f"{self.a} > {self.b}" if self.difference.mean > 0 else f"{self.b} > {self.a}"

    def as_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "difference": self.difference.as_dict(), "a_wins": self.a_wins,
                "b_wins": self.b_wins, "resolved": self.resolved, "verdict": self.verdict}


def paired_comparison(a: str, a_values, b: str, b_values, level: float = 0.95) -> PairedComparison:
    """Compares two algorithms seed by seed; the two lists must be in the same seed order."""
    x, y = np.asarray(a_values, dtype=float), np.asarray(b_values, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired comparison needs the same seeds for {a} and {b}: {len(x)} vs {len(y)} values")
    d = x - y
    return PairedComparison(a, b, mean_interval(d, level), int((d > 0).sum()), int((d < 0).sum()))


def all_pairs(per_algo: dict[str, list[float]], level: float = 0.95) -> list[PairedComparison]:
    """Every pair of algorithms, in the order given."""
    names = list(per_algo)
    return [paired_comparison(a, per_algo[a], b, per_algo[b], level) for a, b in itertools.combinations(names, 2)]
