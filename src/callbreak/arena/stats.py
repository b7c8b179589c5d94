"""Small, exact statistics for the arena: means with 95 % confidence intervals,
percentiles, and win shares with ties split.  Standard library only.

>>> m, h = mean_ci([1.0, 2.0, 3.0, 4.0, 5.0])
>>> m, round(h, 4)                     # t(0.975, 4) = 2.7764; s = 1.5811; h = 2.7764 * 1.5811 / sqrt(5)
(3.0, 1.9632)
>>> win_shares([10, 10, 3, 2])           # two seats tied on top share the win
[0.5, 0.5, 0.0, 0.0]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["mean", "mean_ci", "percentile", "share_interval", "stdev", "t_quantile", "wilson", "win_shares"]

# Two-sided 95 % quantiles of Student's t, t(0.975, df), for df = 1..30.
_T975 = (
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
    2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
)  # fmt: skip
_Z975 = 1.959963984540054


def t_quantile(df: int) -> float:
    """t(0.975, df): exact to 4 decimals for df ≤ 30, a Cornish–Fisher expansion beyond.

    >>> t_quantile(1), t_quantile(10), round(t_quantile(1000), 3)
    (12.7062, 2.2281, 1.962)
    """
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def mean(xs: Sequence[float]) -> float:
    """>>> mean([1, 2, 6])
    3.0
    """
    if not xs:
        return math.nan
    return math.fsum(xs) / len(xs)


def stdev(xs: Sequence[float]) -> float:
    """Sample standard deviation (n − 1).

    >>> stdev([2, 4, 4, 4, 5, 5, 7, 9])
    2.138089935299395
    """
    n = len(xs)
    if n < 2:
        return math.nan
    m = mean(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (n - 1))


def mean_ci(xs: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95 % confidence interval (Student's t).

    The values must be independent: pass one value per independent unit
    (a match, or in duplicate play one deal group).  With fewer than two values
    the half-width is NaN.

    >>> mean_ci([2.0, 2.0, 2.0])
    (2.0, 0.0)
    """
    n = len(xs)
    m = mean(xs)
    if n < 2:
        return m, math.nan
    return m, t_quantile(n - 1) * stdev(xs) / math.sqrt(n)


def wilson(p: float, n: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion ``p`` observed over ``n`` trials.

    >>> lo, hi = wilson(0.0, 4); (lo, round(hi, 3))
    (0.0, 0.49)
    """
    if n < 1:
        return 0.0, 1.0
    z = _Z975
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def share_interval(xs: Sequence[float]) -> tuple[float, float, float]:
    """Mean of shares in [0, 1] (one per independent unit) with a 95 % interval that
    stays in [0, 1]: Student's t clipped to [0, 1]; where t says nothing (one unit, or
    every unit alike, as 0 wins in 4) the Wilson interval over the units, so a small
    unanimous sample never claims certainty.

    >>> m, lo, hi = share_interval([0.0, 0.0, 0.0, 0.0]); m, lo, round(hi, 3)
    (0.0, 0.0, 0.49)
    >>> m, lo, hi = share_interval([1.0, 0.0, 0.0, 0.0]); m, round(lo, 3), round(hi, 3)
    (0.25, 0.0, 1.0)
    """
    m, h = mean_ci(xs)
    if math.isnan(h) or h == 0.0:
        w_lo, w_hi = wilson(m, len(xs))
        return m, w_lo, w_hi
    return m, max(0.0, m - h), min(1.0, m + h)


def percentile(xs: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100), linear between closest ranks (numpy's default).

    >>> percentile([1, 2, 3, 4], 50), percentile([1, 2, 3, 4], 99)
    (2.5, 3.97)
    """
    if not xs:
        return math.nan
    s = sorted(xs)
    pos = (len(s) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return round(s[lo] + (s[hi] - s[lo]) * (pos - lo), 12)


def win_shares(totals: Sequence[float]) -> list[float]:
    """Each seat's share of the win: 1 to a lone leader, 1/k to each of k tied leaders.

    >>> win_shares([3, 9, 9, 9])
    [0.0, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333]
    """
    top = max(totals)
    k = sum(1 for t in totals if t == top)
    return [1.0 / k if t == top else 0.0 for t in totals]
