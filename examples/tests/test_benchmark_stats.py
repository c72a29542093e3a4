"""examples/benchmark/stats.py against hand computations: curve area, exact bootstrap, paired verdicts."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmark import stats  # noqa: E402


def test_curve_auc_is_the_trapezoid_area_over_the_span():
    # (0 + 1) / 2 * 10 + (1 + 1) / 2 * 10 = 15, over a span of 20
    assert stats.curve_auc([0, 10, 20], [0.0, 1.0, 1.0]) == pytest.approx(0.75)
    # uneven spacing: (0.2 + 0.4) / 2 * 5 + (0.4 + 1.0) / 2 * 15 = 1.5 + 10.5 = 12, over 20
    assert stats.curve_auc([0, 5, 20], [0.2, 0.4, 1.0]) == pytest.approx(0.6)
    assert stats.curve_auc([7], [0.3]) == pytest.approx(0.3)
    with pytest.raises(ValueError):
        stats.curve_auc([0, 1], [0.5])


def test_two_seeds_resample_to_three_means():
    # resamples of (1, 3): (1,1) (1,3) (3,1) (3,3) -> means 1, 2, 2, 3
    assert sorted(stats.bootstrap_means([1.0, 3.0])) == [1.0, 2.0, 2.0, 3.0]
    iv = stats.mean_interval([1.0, 3.0])
    assert (iv.mean, iv.lo, iv.hi, iv.n) == (2.0, 1.0, 3.0, 2)


def test_exact_bootstrap_quantiles_of_a_three_seed_sample():
    # (0, 0, 1): the number of 1s in 3 draws is Binomial(3, 1/3): P = 8, 12, 6, 1 (/27) for means 0, 1/3, 2/3, 1.
    means = stats.bootstrap_means([0.0, 0.0, 1.0])
    assert len(means) == 27
    assert [int(np.isclose(means, m).sum()) for m in (0, 1 / 3, 2 / 3, 1)] == [8, 12, 6, 1]
    # 95%: the 2.5% quantile is 0 (8/27 >= 0.025); cumulative share at 2/3 is 26/27 = 0.963 < 0.975, so the top is 1.
    iv = stats.mean_interval([0.0, 0.0, 1.0])
    assert (iv.lo, iv.hi) == pytest.approx((0.0, 1.0))
    assert iv.mean == pytest.approx(1 / 3)
    # 90%: 26/27 >= 0.95, so the top is 2/3.
    assert stats.mean_interval([0.0, 0.0, 1.0], level=0.9).hi == pytest.approx(2 / 3)


def test_five_seeds_are_enumerated_exactly():
    values = [0.1, 0.2, 0.3, 0.4, 0.5]
    means = stats.bootstrap_means(values)
    assert len(means) == 5**5
    assert means.mean() == pytest.approx(0.3)  # every index equally often
    # the smallest mean, 0.1, comes from one resample of 3125: below 2.5%, so the interval starts above it
    iv = stats.mean_interval(values)
    assert 0.1 < iv.lo < 0.3 < iv.hi < 0.5
    # symmetric sample, symmetric interval
    assert 0.3 - iv.lo == pytest.approx(iv.hi - 0.3)


def test_many_seeds_use_a_fixed_monte_carlo_resample():
    values = list(np.linspace(0, 1, 20))
    a, b = stats.mean_interval(values), stats.mean_interval(values)
    assert (a.lo, a.hi) == (b.lo, b.hi)
    assert a.lo < 0.5 < a.hi


def test_paired_comparison_resolves_only_a_difference_whose_interval_excludes_zero():
    # differences 0.1, 0.2, 0.3: the lowest resample mean 0.1 has share 1/27 = 0.037 >= 0.025
    p = stats.paired_comparison("rebn", [0.5, 0.6, 0.7], "grpo", [0.4, 0.4, 0.4])
    assert p.difference.mean == pytest.approx(0.2)
    assert (p.difference.lo, p.difference.hi) == pytest.approx((0.1, 0.3))
    assert p.resolved and p.verdict == "rebn > grpo" and (p.a_wins, p.b_wins) == (3, 0)
    # differences -0.1, 0.2, 0.1: the interval straddles 0
    q = stats.paired_comparison("rebn", [0.3, 0.6, 0.5], "grpo", [0.4, 0.4, 0.4])
    assert not q.resolved and q.verdict == "not resolved" and (q.a_wins, q.b_wins) == (2, 1)
    # pairing matters: the same numbers unpaired would overlap, paired they are all +0.05
    r = stats.paired_comparison("a", [0.1, 0.5, 0.9], "b", [0.05, 0.45, 0.85])
    assert r.resolved and r.difference.lo == pytest.approx(0.05)
    assert r.as_dict()["verdict"] == "a > b"


def test_paired_comparison_needs_the_same_seeds():
    with pytest.raises(ValueError, match="same seeds"):
        stats.paired_comparison("a", [0.1, 0.2], "b", [0.1])


def test_all_pairs_lists_each_pair_once():
    pairs = stats.all_pairs({"reinforce": [0, 0], "rebn": [1, 1], "grpo": [0.5, 0.5]})
    assert [(p.a, p.b) for p in pairs] == [("reinforce", "rebn"), ("reinforce", "grpo"), ("rebn", "grpo")]
    assert [p.verdict for p in pairs] == ["rebn > reinforce", "grpo > reinforce", "rebn > grpo"]
