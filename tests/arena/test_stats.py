"""The arena's statistics on inputs worked out by hand."""

from __future__ import annotations

import math

import pytest

from callbreak.arena.stats import mean, mean_ci, percentile, stdev, t_quantile, win_shares


def test_mean_and_ci_of_a_fixed_list() -> None:
    # xs = 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sum of squares 32, s = sqrt(32/7) = 2.13809,
    # t(0.975, 7) = 2.3646, half-width = 2.3646 * 2.13809 / sqrt(8) = 1.78749
    xs = [2.0, 4, 4, 4, 5, 5, 7, 9]
    m, h = mean_ci(xs)
    assert m == 5.0
    assert stdev(xs) == pytest.approx(math.sqrt(32 / 7))
    assert h == pytest.approx(1.78749, abs=1e-4)


def test_ci_degenerate_cases() -> None:
    assert mean_ci([3.0, 3.0]) == (3.0, 0.0)
    m, h = mean_ci([4.0])
    assert m == 4.0 and math.isnan(h)
    assert math.isnan(mean([]))


def test_t_quantiles() -> None:
    assert t_quantile(1) == 12.7062
    assert t_quantile(30) == 2.0423
    assert t_quantile(60) == pytest.approx(2.0003, abs=2e-4)  # tables: 2.0003
    assert t_quantile(120) == pytest.approx(1.9799, abs=2e-4)  # tables: 1.9799
    with pytest.raises(ValueError):
        t_quantile(0)


def test_percentiles() -> None:
    xs = [float(i) for i in range(1, 101)]  # 1..100
    assert percentile(xs, 50) == 50.5
    assert percentile(xs, 99) == pytest.approx(99.01)
    assert percentile(xs, 100) == 100.0
    assert percentile([7.0], 99) == 7.0


def test_win_shares_split_ties() -> None:
    assert win_shares([5, 3, 2, 1]) == [1.0, 0.0, 0.0, 0.0]
    assert win_shares([5, 5, 2, 1]) == [0.5, 0.5, 0.0, 0.0]
    assert win_shares([0, 0, 0, 0]) == [0.25] * 4
    assert sum(win_shares([-3, 7, 7, 7])) == pytest.approx(1.0)
