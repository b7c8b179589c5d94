"""Scoring to the tenth: every worked example of RULES.md and the seeds."""

from __future__ import annotations

from decimal import Decimal

import pytest

from callbreak import Ruleset
from callbreak.scoring import made, places_of, score, score_tenths, tenths_to_points

STD = Ruleset()
PAGAT = Ruleset.preset("pagat")


@pytest.mark.parametrize(
    "call,tricks,points",
    [
        (4, 6, "4.2"),  # RULES.md, seed 000
        (3, 6, "3.3"),  # RULES.md, seed 001
        (2, 8, "2.6"),  # RULES.md, seed 002
        (8, 8, "8.0"),  # RULES.md, seed 002
        (4, 4, "4"),  # seed 000
        (4, 3, "-4"),  # RULES.md, seed 000
        (5, 4, "-5"),  # RULES.md, seed 000
        (1, 13, "2.2"),
        (13, 13, "13"),
        (13, 12, "-13"),
        (1, 0, "-1"),
    ],
)
def test_standard(call: int, tricks: int, points: str) -> None:
    assert score(call, tricks, STD) == Decimal(points)


def test_printing_is_exact() -> None:
    assert str(score(4, 6, STD)) == "4.2"
    assert str(score(3, 6, STD)) == "3.3"
    total = score(1, 2, STD) - 1 + score(1, 3, STD) - 1  # 0.1 + 0.2
    assert str(total) == "0.3"
    assert tenths_to_points(1) + tenths_to_points(2) == Decimal("0.3")
    assert str(sum((score(1, 2, STD) for _ in range(3)), Decimal(0))) == "3.3"


@pytest.mark.parametrize("tricks,points", [(4, 4), (5, 4), (3, -4), (0, -4), (6, -4), (13, -4)])
def test_pagat_call_four(tricks: int, points: int) -> None:
    # seed 003: a call of 4 wins with 4 or 5 tricks; 3 or less, or 6 or more, loses 4
    assert score(4, tricks, PAGAT) == points


@pytest.mark.parametrize("tricks,points", [(9, 13), (10, 13), (11, -9), (13, -9), (8, -9), (0, -9)])
def test_pagat_bonus_call_nine(tricks: int, points: int) -> None:
    # seed 003: call 9 scores +13 for 9 or 10 tricks, -9 for 11+ or 8 or less
    assert score(9, tricks, PAGAT) == points


def test_pagat_bonus_from_eight() -> None:
    assert score(8, 8, PAGAT) == 13
    assert score(7, 7, PAGAT) == 7
    assert score(12, 12, PAGAT) == 13


def test_bonus_with_overtricks() -> None:
    r = Ruleset(bonus_call=8, bonus_points=13)
    assert score(8, 10, r) == Decimal("13.2")  # overtrick points still added
    assert score(7, 10, r) == Decimal("7.3")
    assert score(8, 7, r) == -8
    assert score(9, 9, Ruleset(bonus_call=8, bonus_points=20)) == 20


def test_max_overtricks() -> None:
    r = Ruleset(max_overtricks=3)
    assert score(4, 7, r) == Decimal("4.3")
    assert score(4, 8, r) == -4
    assert score(4, 4, Ruleset(max_overtricks=0)) == 4
    assert score(4, 5, Ruleset(max_overtricks=0)) == -4
    assert not made(4, 8, r) and made(4, 7, r)


def test_overtrick_points_zero() -> None:
    r = Ruleset(overtrick_points=0)
    assert score(4, 6, r) == 4
    assert score(2, 8, r) == 2


def test_missed_penalty() -> None:
    short = Ruleset(missed_penalty="shortfall")
    assert score(5, 4, short) == -1
    assert score(5, 0, short) == -5
    assert score(4, 3, short) == -1
    # an overshoot past max_overtricks still scores -call
    assert score(4, 7, short.replace(max_overtricks=1)) == -4
    zero = Ruleset(missed_penalty="zero")
    assert score(5, 4, zero) == 0
    assert score(4, 7, zero.replace(max_overtricks=1)) == 0


def test_tenths() -> None:
    assert score_tenths(4, 6, STD) == 42
    assert score_tenths(4, 3, STD) == -40
    with pytest.raises(ValueError):
        score_tenths(4, 14, STD)


def test_places_shared() -> None:
    assert places_of([5, 7, 7, -1]) == [3, 1, 1, 4]
    assert places_of([1, 1, 1, 1]) == [1, 1, 1, 1]
    assert places_of([Decimal("4.2"), Decimal("4.1"), Decimal("4.1"), Decimal("4.1")]) == [1, 2, 2, 2]
    assert places_of([3, 2, 2, 1]) == [1, 2, 2, 4]
