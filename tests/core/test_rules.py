"""Ruleset: fields, defaults, presets, validation."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from callbreak import PRESETS, Ruleset


def test_defaults() -> None:
    r = Ruleset()
    assert (r.min_call, r.max_call, r.overtrick_points, r.max_overtricks) == (1, 13, Decimal("0.1"), None)
    assert (r.missed_penalty, r.bonus_call, r.bonus_points, r.rounds) == ("call", None, 13, 5)
    assert (r.tie_break, r.must_head, r.head_after_cut, r.trump) == ("sudden_death", True, True, "S")
    assert (r.trump_lead, r.must_undertrump, r.redeal_without_trump) == ("any", False, False)
    assert (r.redeal_without_face_card, r.min_total_calls, r.direction) == (False, 0, "clockwise")
    assert (r.card_seconds, r.call_seconds, r.autoplay_forced) == (15, 30, True)
    assert r == Ruleset.preset("standard") and r.name == "standard"


def test_presets() -> None:
    assert PRESETS == ("standard", "quick", "pagat", "bhoos")
    assert Ruleset.preset("quick") == Ruleset(rounds=3)
    assert Ruleset.preset("bhoos") == Ruleset(max_call=8, head_after_cut=False)
    assert Ruleset.preset("pagat") == Ruleset(
        min_call=2,
        max_call=12,
        overtrick_points=0,
        max_overtricks=1,
        bonus_call=8,
        must_head=False,
        rounds=None,
        tie_break="share",
        direction="counterclockwise",
    )
    for p in PRESETS:
        assert Ruleset.preset(p).name == p
        assert Ruleset.preset(p.upper()).name == p


def test_immutable_and_replace() -> None:
    r = Ruleset()
    with pytest.raises(AttributeError):
        r.rounds = 3  # type: ignore[misc]
    assert r.replace(rounds=10).rounds == 10 and r.rounds == 5
    assert Ruleset.from_dict(r.to_dict()) == r
    p = Ruleset.preset("pagat", rounds=10)
    assert p.describe() == ("pagat", {"rounds": 10})
    assert Ruleset.from_dict({"preset": "pagat", "rounds": 10}) == p
    assert p.name == "custom"


@pytest.mark.parametrize(
    "changes",
    [
        {"min_call": 0},
        {"min_call": 3},
        {"min_call": True},
        {"max_call": 0},
        {"max_call": 14},
        {"max_call": 1, "min_call": 2},
        {"overtrick_points": 0.2},
        {"overtrick_points": "x"},
        {"overtrick_points": True},
        {"max_overtricks": -1},
        {"max_overtricks": 13},
        {"missed_penalty": "all"},
        {"bonus_call": 0},
        {"bonus_call": 14},
        {"bonus_points": "13"},
        {"rounds": 0},
        {"rounds": 21},
        {"rounds": 2.0},
        {"tie_break": "coin"},
        {"must_head": 1},
        {"head_after_cut": "yes"},
        {"trump": "X"},
        {"trump": 0},
        {"trump_lead": "never"},
        {"must_undertrump": None},
        {"redeal_without_trump": 0},
        {"redeal_without_face_card": "no"},
        {"min_total_calls": 14},
        {"min_total_calls": -1},
        {"direction": "up"},
        {"card_seconds": 0},
        {"call_seconds": -5},
        {"card_seconds": True},
        {"autoplay_forced": None},
        {"colour": "red"},
    ],
)
def test_bad_values(changes: dict[str, Any]) -> None:
    with pytest.raises(ValueError) as e:
        Ruleset(**changes)
    name = next(iter(changes))
    assert name in str(e.value)


def test_bad_preset() -> None:
    with pytest.raises(ValueError, match="unknown preset"):
        Ruleset.preset("poker")
    with pytest.raises(ValueError, match="rounds"):
        Ruleset.preset("quick", rounds=99)


@pytest.mark.parametrize(
    "changes",
    [
        {"min_call": 2},
        {"max_call": 1},
        {"overtrick_points": "0.1"},
        {"overtrick_points": 0},
        {"max_overtricks": 0},
        {"max_overtricks": 12},
        {"missed_penalty": "shortfall"},
        {"missed_penalty": "zero"},
        {"bonus_call": 13},
        {"rounds": None},
        {"rounds": 20},
        {"trump": "d"},
        {"trump_lead": "after_broken"},
        {"card_seconds": None, "call_seconds": 2.5},
        {"min_total_calls": 13},
    ],
)
def test_good_values(changes: dict[str, Any]) -> None:
    r = Ruleset(**changes)
    assert Ruleset.from_dict(r.to_dict()) == r
    assert r.legal_call_range() == range(r.min_call, r.max_call + 1)
