"""Win-share intervals stay inside 0..100 % and never claim certainty from a small sample."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from callbreak.arena.stats import share_interval, wilson


@given(st.lists(st.sampled_from([0.0, 0.25, 1 / 3, 0.5, 1.0]), min_size=1, max_size=60))
def test_interval_inside_unit_and_contains_the_mean(xs: list[float]) -> None:
    m, lo, hi = share_interval(xs)
    assert 0.0 <= lo <= m + 1e-12
    assert m - 1e-12 <= hi <= 1.0


def test_unanimous_small_samples_are_not_certain() -> None:
    assert share_interval([0.0] * 4)[2] > 0.4
    assert share_interval([1.0] * 4)[1] < 0.6
    # with many units the interval narrows
    assert share_interval([0.0] * 400)[2] < 0.01


def test_wilson_known_values() -> None:
    # 95 % Wilson interval of 5/10: 0.2366 .. 0.7634
    lo, hi = wilson(0.5, 10)
    assert math.isclose(lo, 0.2366, abs_tol=1e-4) and math.isclose(hi, 0.7634, abs_tol=1e-4)


def test_large_samples_keep_the_t_interval() -> None:
    # Duplicate deal groups average four matches, so their spread is below a coin's:
    # the interval must be the t interval over groups, not a binomial one.
    from callbreak.arena.stats import mean_ci

    xs = [0.25, 0.5, 0.5, 0.25] * 25
    m, lo, hi = share_interval(xs)
    _, h = mean_ci(xs)
    assert math.isclose(lo, m - h) and math.isclose(hi, m + h)
    assert hi - lo < wilson(m, len(xs))[1] - wilson(m, len(xs))[0]
