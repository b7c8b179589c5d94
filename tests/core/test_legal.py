"""Legal cards under every rule variant, on hand-made positions."""

from __future__ import annotations

import itertools

import pytest

from callbreak import Card, IllegalAction, Ruleset

from .helpers import legal, position

STD = Ruleset()


def test_follow_and_head() -> None:
    # seat 0 leads 8H; seat 1 holds 5H JH KH: must head with JH or KH
    rnd = position(STD, {0: ("8H", ""), 1: ("5H JH KH", "H")}, "8H")
    assert legal(rnd) == "JH KH"


def test_cannot_head_plays_any_of_suit() -> None:
    rnd = position(STD, {0: ("AH", ""), 1: ("5H JH KH", "H")}, "AH")
    assert legal(rnd) == "5H JH KH"


def test_head_the_highest_not_the_led_card() -> None:
    # 4H led, 9H played: seat 2 must beat 9H, not only 4H
    rnd = position(STD, {0: ("4H", ""), 1: ("9H", ""), 2: ("5H TH QH", "H")}, "4H 9H")
    assert legal(rnd) == "TH QH"


def test_no_head_duty_without_must_head() -> None:
    rnd = position(Ruleset(must_head=False), {0: ("8H", ""), 1: ("5H JH KH", "H")}, "8H")
    assert legal(rnd) == "5H JH KH"


def test_pagat_follow_free() -> None:
    rnd = position(Ruleset.preset("pagat"), {0: ("8H", ""), 1: ("5H JH KH", "H")}, "8H")
    assert legal(rnd) == "5H JH KH"


CUT = {0: ("8H", ""), 1: ("2S", "H"), 2: ("5H JH", "H")}


def test_head_after_cut_default() -> None:
    # seat 1 cut with 2S; seat 2 still must beat 8H (seed 001 "After a trick is cut")
    assert legal(position(STD, CUT, "8H 2S")) == "JH"


def test_head_after_cut_off() -> None:
    assert legal(position(Ruleset(head_after_cut=False), CUT, "8H 2S")) == "5H JH"
    assert legal(position(Ruleset.preset("bhoos"), CUT, "8H 2S")) == "5H JH"


def test_head_after_cut_irrelevant_without_must_head() -> None:
    r = Ruleset(must_head=False, head_after_cut=True)
    assert legal(position(r, CUT, "8H 2S")) == "5H JH"


def test_void_must_trump() -> None:
    rnd = position(STD, {0: ("8H", ""), 1: ("3S QS 4D", "HS")}, "8H")
    assert legal(rnd) == "3S QS"


def test_void_must_overtrump() -> None:
    rnd = position(STD, {0: ("8H", ""), 1: ("TS", "H"), 2: ("3S QS KS 4D", "HS")}, "8H TS")
    assert legal(rnd) == "QS KS"


def test_only_lower_trumps_any_card() -> None:
    spec = {0: ("8H", ""), 1: ("KS", "H"), 2: ("3S QS 4D 5C", "HS")}
    rnd = position(STD, spec, "8H KS")
    assert legal(rnd) == " ".join(str(c) for c in rnd.hands[2])


def test_must_undertrump() -> None:
    spec = {0: ("8H", ""), 1: ("KS", "H"), 2: ("3S QS 4D 5C", "HS")}
    rnd = position(Ruleset(must_undertrump=True), spec, "8H KS")
    assert legal(rnd) == "3S QS"


def test_must_undertrump_still_overtrumps_when_it_can() -> None:
    spec = {0: ("8H", ""), 1: ("TS", "H"), 2: ("3S QS 4D", "HS")}
    assert legal(position(Ruleset(must_undertrump=True), spec, "8H TS")) == "QS"


def test_void_no_trump_any_card() -> None:
    spec = {0: ("8H", ""), 1: ("3D 4C", "HS")}
    rnd = position(STD, spec, "8H")
    assert legal(rnd) == " ".join(str(c) for c in rnd.hands[1])


def test_trump_led_follow_and_head() -> None:
    rnd = position(STD, {0: ("9S", ""), 1: ("5S JS", "S")}, "9S")
    assert legal(rnd) == "JS"
    rnd = position(Ruleset(must_head=False), {0: ("9S", ""), 1: ("5S JS", "S")}, "9S")
    assert legal(rnd) == "5S JS"


def test_trump_led_void_any() -> None:
    rnd = position(STD, {0: ("9S", ""), 1: ("2H", "S")}, "9S")
    assert legal(rnd) == " ".join(str(c) for c in rnd.hands[1])


def test_trump_hearts() -> None:
    r = Ruleset(trump="H")
    # spades led, seat 1 void in spades holding hearts: must play a heart
    rnd = position(r, {0: ("8S", ""), 1: ("3H QH 4D", "SH")}, "8S")
    assert legal(rnd) == "3H QH"
    # and a heart beats the spade ace
    rnd = position(r, {0: ("AS", ""), 1: ("2H", "S")}, "AS 2H")
    rnd.play(rnd.legal_cards()[0])
    pa = rnd.play(rnd.legal_cards()[0])
    assert pa.winner == 1


@pytest.mark.parametrize("trump", "SHDC")
def test_every_trump_suit_cut_wins(trump: str) -> None:
    led = "H" if trump != "H" else "C"
    r = Ruleset(trump=trump)
    rnd = position(
        r,
        {0: (f"A{led}", ""), 1: (f"2{trump}", led + trump), 2: (f"K{led}", ""), 3: (f"3{led}", "")},
        f"A{led}",
    )
    assert legal(rnd) == f"2{trump}"
    rnd.play(f"2{trump}")
    rnd.play(rnd.legal_cards()[0])
    assert rnd.play(rnd.legal_cards()[0]).winner == 1


def test_trump_lead_any() -> None:
    rnd = position(STD, {0: ("AS 2H", "")})
    assert Card.parse("AS") in rnd.legal_cards()


def test_trump_lead_not_first_trick() -> None:
    r = Ruleset(trump_lead="not_first_trick")
    rnd = position(r, {0: ("AS KS 2H", "S"), 1: ("3H", ""), 2: ("4H", ""), 3: ("5H", "")})
    assert all(c.suit != "S" for c in rnd.legal_cards())
    with pytest.raises(IllegalAction, match="first trick"):
        rnd.play("AS")
    for t in ("2H", "3H", "4H", "5H"):
        rnd.play(t)
    # seat 3 won; let seat 0 lead later: play seat 3's lead and check only that trump is now open
    assert rnd.leader == 3
    assert any(c.suit == "S" for c in rnd.legal_cards()) == any(c.suit == "S" for c in rnd.hands[3])


def test_trump_lead_not_first_trick_only_trumps() -> None:
    r = Ruleset(trump_lead="not_first_trick")
    spades = " ".join(f"{x}S" for x in "23456789TJQKA")
    rnd = position(r, {0: (spades, "")})
    assert len(rnd.legal_cards()) == 13


def test_trump_lead_after_broken() -> None:
    r = Ruleset(trump_lead="after_broken")
    spec = {0: ("AH 2S", "HS"), 1: ("3D", "HS"), 2: ("4H", ""), 3: ("5H", "")}
    rnd = position(r, spec)
    assert Card.parse("2S") not in rnd.legal_cards()
    with pytest.raises(IllegalAction, match="until one has been played"):
        rnd.play("2S")
    rnd.play("AH")
    # seat 1 is void in hearts and spades: plays anything (no trump broken)
    non_spade = next(c for c in rnd.legal_cards() if c.suit != "S")
    rnd.play(non_spade)
    rnd.play("4H")
    rnd.play("5H")
    assert rnd.leader == 0  # AH won
    assert Card.parse("2S") not in rnd.legal_cards()  # still not broken


def test_trump_lead_after_broken_by_a_cut() -> None:
    r = Ruleset(trump_lead="after_broken")
    spec = {0: ("AH 2S 3D", "H"), 1: ("KS", "H"), 2: ("4H", ""), 3: ("5H", "")}
    rnd = position(r, spec, "AH KS 4H 5H")
    assert rnd.leader == 1
    rnd.play(next(c for c in rnd.legal_cards() if c.suit == "D" or c.suit == "C"))
    for _ in range(3):
        rnd.play(rnd.legal_cards()[0])
    # a trump has been played: seat whoever leads may now lead spades
    lead_hand = rnd.hands[rnd.leader]
    assert set(rnd.legal_cards()) == set(lead_hand)


def test_after_broken_only_trumps_may_lead() -> None:
    r = Ruleset(trump_lead="after_broken")
    spades = " ".join(f"{x}S" for x in "23456789TJQKA")
    assert len(position(r, {0: (spades, "")}).legal_cards()) == 13


@pytest.mark.parametrize(
    "must_head,head_after_cut,must_undertrump",
    list(itertools.product([True, False], repeat=3)),
)
def test_flag_combinations_cut_then_follow(
    must_head: bool, head_after_cut: bool, must_undertrump: bool
) -> None:
    r = Ruleset(must_head=must_head, head_after_cut=head_after_cut, must_undertrump=must_undertrump)
    rnd = position(r, CUT, "8H 2S")
    expect = "JH" if must_head and head_after_cut else "5H JH"
    assert legal(rnd) == expect
    spec = {0: ("8H", ""), 1: ("KS", "H"), 2: ("3S QS 4D 5C", "HS")}
    rnd = position(r, spec, "8H KS")
    if must_undertrump:
        assert legal(rnd) == "3S QS"
    else:
        assert len(rnd.legal_cards()) == 13


def test_winner_rules() -> None:
    rnd = position(STD, {0: ("8H", ""), 1: ("AD", "HS"), 2: ("2H", "H"), 3: ("9H", "")}, "8H AD 2H")
    assert rnd.play("9H").winner == 3  # off-suit ace loses
    rnd = position(STD, {0: ("8H", ""), 1: ("2S", "HS"), 2: ("AH", ""), 3: ("3S", "HS")}, "8H 2S AH")
    assert rnd.play("3S").winner == 3  # highest trump wins
