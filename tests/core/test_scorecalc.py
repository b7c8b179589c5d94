"""The score calculator's logic (callbreak.scorecalc)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from callbreak import Ruleset
from callbreak.scorecalc import MAX_ROUNDS, ScoreError, ScoreSheet, parse_rounds

P = ["Asha", "Bikash", "Chandra", "Dipa"]


def test_points_totals_places() -> None:
    s = ScoreSheet(P)
    assert s.add_round([4, 3, 2, 8], [6, 3, 1, 3]) == [Decimal("4.2"), Decimal(3), Decimal(-2), Decimal(-8)]
    assert s.add_round([3, 2, 2, 1], [6, 2, 2, 3]) == [Decimal("3.3"), Decimal(2), Decimal(2), Decimal("1.2")]
    assert [str(t) for t in s.totals] == ["7.5", "5.0", "0.0", "-6.8"]
    assert s.places == [1, 2, 3, 4]
    assert [[str(x) for x in r] for r in s.running_totals()] == [
        ["4.2", "3.0", "-2.0", "-8.0"],
        ["7.5", "5.0", "0.0", "-6.8"],
    ]


def test_pagat_sheet() -> None:
    s = ScoreSheet(P, Ruleset.preset("pagat"))
    pts = s.add_round([4, 9, 2, 2], [4, 9, 0, 0])
    assert pts == [4, 13, -2, -2]
    assert not s.is_over  # no fixed end


@pytest.mark.parametrize(
    "calls,tricks,msg",
    [
        ([0, 1, 1, 1], [4, 3, 3, 3], "Asha calls 0; calls are 1 to 13"),
        ([1, 14, 1, 1], [4, 3, 3, 3], "Bikash calls 14"),
        ([1, 1, 1], [4, 3, 3, 3], "four calls"),
        ([1, 1, 1, 1], [4, 3, 3, 4], "add up to 14"),
        ([1, 1, 1, 1], [14, 0, 0, -1], "Asha won 14 tricks"),
        ([1, 1, 1, "x"], [4, 3, 3, 3], "whole numbers"),
        ([1, 1, 1, 1.5], [4, 3, 3, 3], "whole numbers"),
        ("1111", [4, 3, 3, 3], "four calls"),
    ],
)
def test_bad_rounds_change_nothing(calls: list[object], tricks: list[object], msg: str) -> None:
    s = ScoreSheet(P)
    s.add_round([1, 1, 1, 1], [4, 3, 3, 3])
    before = s.to_dict()
    with pytest.raises(ScoreError, match=msg):
        s.add_round(calls, tricks)  # type: ignore[arg-type]
    assert s.to_dict() == before


def test_min_total_calls() -> None:
    s = ScoreSheet(P, Ruleset(min_total_calls=10))
    with pytest.raises(ScoreError, match="add up to 8, under the minimum of 10"):
        s.add_round([2, 2, 2, 2], [4, 3, 3, 3])
    s.add_round([3, 3, 2, 2], [4, 3, 3, 3])


def test_bhoos_range() -> None:
    s = ScoreSheet(P, Ruleset.preset("bhoos"))
    with pytest.raises(ScoreError, match="calls are 1 to 8"):
        s.add_round([9, 1, 1, 1], [4, 3, 3, 3])


def test_fixed_rounds_end() -> None:
    s = ScoreSheet(P, Ruleset.preset("quick"))
    for tricks in ([4, 3, 3, 3], [4, 3, 3, 3], [3, 4, 3, 3]):
        s.add_round([3, 3, 3, 3], tricks)
    assert s.is_over and not s.sudden_death
    with pytest.raises(ScoreError, match="round 4: the match is over after 3 rounds"):
        s.add_round([3, 3, 3, 3], [4, 3, 3, 3])


def test_sudden_death() -> None:
    s = ScoreSheet(P, Ruleset(rounds=2))
    s.add_round([3, 3, 3, 3], [4, 3, 3, 3])  # 3.1 3 3 3
    s.add_round([3, 3, 3, 3], [3, 4, 3, 3])  # 6.1 6.1 6 6: tied at the top
    assert not s.is_over and s.sudden_death and s.places == [1, 1, 3, 3]
    s.add_round([2, 2, 2, 2], [2, 2, 2, 7])  # 8.1 8.1 8 8.5: Dipa alone on top
    assert s.is_over and s.places == [2, 2, 4, 1]
    with pytest.raises(ScoreError, match="over"):
        s.add_round([2, 2, 2, 2], [2, 2, 2, 7])


def test_sudden_death_twice_and_share() -> None:
    r = Ruleset(rounds=1, overtrick_points=0)
    s = ScoreSheet(P, r)
    s.add_round([2, 2, 2, 2], [2, 2, 2, 7])
    assert s.sudden_death
    s.add_round([2, 2, 2, 2], [2, 2, 2, 7])
    assert s.sudden_death and len(s.rounds) == 2
    s.add_round([3, 2, 2, 2], [3, 2, 2, 6])
    assert s.is_over and s.places == [1, 2, 2, 2]
    share = ScoreSheet(P, r.replace(tie_break="share"))
    share.add_round([2, 2, 2, 2], [2, 2, 2, 7])
    assert share.is_over and share.places == [1, 1, 1, 1]


def test_open_ended_limit() -> None:
    s = ScoreSheet(P, Ruleset(rounds=None))
    for _ in range(MAX_ROUNDS):
        s.add_round([1, 1, 1, 1], [4, 3, 3, 3])
    assert not s.is_over
    with pytest.raises(ScoreError, match="at most 20 rounds"):
        s.add_round([1, 1, 1, 1], [4, 3, 3, 3])
    s20 = ScoreSheet(P, Ruleset(rounds=20))
    for _ in range(20):
        s20.add_round([1, 1, 1, 1], [4, 3, 3, 3])
    assert s20.is_over


def test_undo() -> None:
    s = ScoreSheet(P)
    with pytest.raises(ScoreError):
        s.undo()
    s.add_round([1, 1, 1, 1], [4, 3, 3, 3])
    s.undo()
    assert s.rounds == [] and s.totals == [0, 0, 0, 0]


def test_players() -> None:
    with pytest.raises(ScoreError, match="four players"):
        ScoreSheet(["A", "B"])
    with pytest.raises(ScoreError, match="different names"):
        ScoreSheet(["A", "B", "A", "D"])
    with pytest.raises(ScoreError, match="needs a name"):
        ScoreSheet(["A", "B", " ", "D"])


def test_json_roundtrip() -> None:
    s = ScoreSheet(P, Ruleset.preset("pagat", rounds=10))
    s.add_round([4, 9, 2, 2], [4, 9, 0, 0])
    s.add_round([2, 2, 2, 2], [4, 3, 3, 3])
    d = s.to_dict()
    assert d["rules"] == {"preset": "pagat", "changes": {"rounds": 10}}
    assert d["points"][0] == ["4.0", "13.0", "-2.0", "-2.0"]
    assert d["totals"] == [str(t) for t in s.totals] and d["places"] == s.places
    again = ScoreSheet.from_json(json.dumps(d))
    assert again.to_dict() == d
    # derived values are ignored on load
    d["totals"] = ["99", "99", "99", "99"]
    assert ScoreSheet.from_dict(d).to_dict()["totals"] == again.to_dict()["totals"]
    # full Ruleset dicts and bare preset names are accepted
    assert ScoreSheet.from_dict({**d, "rules": s.rules.to_dict()}).rules == s.rules
    assert ScoreSheet.from_dict({**d, "rules": "pagat"}).rules == Ruleset.preset("pagat")


@pytest.mark.parametrize(
    "data,msg",
    [
        ([], "JSON object"),
        ({"format": "x"}, "not a score sheet"),
        ({"players": P, "rules": "poker"}, "unknown preset"),
        ({"players": P, "rules": {"preset": "standard", "changes": {"rounds": 0}}}, "rounds"),
        ({"players": "ABCD"}, "players"),
        (
            {"players": P, "rounds": [{"calls": [1, 1, 1, 1], "tricks": [1, 1, 1, 1]}]},
            "round 1: the tricks add up to 4",
        ),
        ({"players": P, "rounds": [5]}, "round 1"),
    ],
)
def test_bad_json(data: object, msg: str) -> None:
    with pytest.raises(ScoreError, match=msg):
        ScoreSheet.from_dict(data)


def test_parse_rounds() -> None:
    assert parse_rounds("3 4 2 3 / 4 3 2 4; 2,2,3,4/2 3 4 4;") == [
        ([3, 4, 2, 3], [4, 3, 2, 4]),
        ([2, 2, 3, 4], [2, 3, 4, 4]),
    ]
    with pytest.raises(ScoreError, match="round 2: write four calls"):
        parse_rounds("1 1 1 1 / 4 3 3 3; 1 1 1 1")
    with pytest.raises(ScoreError, match="round 1: give four trick counts"):
        parse_rounds("1 1 1 1 / 4 3 3")
    with pytest.raises(ScoreError, match="whole numbers"):
        parse_rounds("1 1 1 x / 4 3 3 3")
