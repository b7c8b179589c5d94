"""Match: seeds, dealer rotation, redeals, rounds=None and end(), sudden death, places."""

from __future__ import annotations

import random

import pytest

from callbreak import IllegalAction, Match, Round, Ruleset
from callbreak.cards import SUIT_MASKS

from .helpers import deal


def finish_round(m: Match, rng: random.Random, call: int | None = None) -> None:
    n = len(m.rounds)
    while not m.is_over and len(m.rounds) == n:
        r = m.round
        if r.phase == "calling":
            m.call(call if call is not None else rng.choice(r.legal_calls()))
        else:
            m.play(rng.choice(r.legal_cards()))


def test_seeded_reproducibility() -> None:
    a, b = Match(seed=42), Match(seed=42)
    assert a.first_dealer == b.first_dealer
    ra, rb = random.Random(1), random.Random(1)
    while not a.is_over:
        finish_round(a, ra)
        finish_round(b, rb)
    assert a.state_key() == b.state_key()
    assert [r.dealt for r in a.rounds] == [r.dealt for r in b.rounds]
    assert Match(seed=43).round.dealt != a.rounds[0].dealt
    # the same actions rebuild the match exactly
    assert Match.from_actions(a.rules, 42, a.actions()).state_key() == a.state_key()


def test_first_dealer_from_seed_or_given() -> None:
    dealers = {Match(seed=s).first_dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert Match(seed=1, dealer=2).round.dealer == 2
    with pytest.raises(ValueError):
        Match(seed=1, dealer=4)
    with pytest.raises(ValueError):
        Match(seed="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Match(seed=1, players=["a", "b"])


def test_dealer_rotation_and_totals() -> None:
    m = Match(Ruleset(tie_break="share"), seed=5, dealer=3)
    rng = random.Random(5)
    while not m.is_over:
        finish_round(m, rng)
    assert [r.dealer for r in m.rounds] == [3, 0, 1, 2, 3]
    assert len(m.round_points) == 5
    for seat in range(4):
        assert m.totals[seat] == sum(p[seat] for p in m.round_points)
    assert m.round_number == 5 and m.to_act is None
    with pytest.raises(IllegalAction, match="over"):
        m.call(1)
    with pytest.raises(IllegalAction, match="over"):
        m.play("AS")


def _no_trump_deal() -> list[list[object]]:
    return deal({1: ("2H", "S")})  # type: ignore[return-value]


def test_redeal_without_trump_same_dealer() -> None:
    m = Match(Ruleset(redeal_without_trump=True), seed=3, dealer=1, dealt=[_no_trump_deal()])
    assert len(m.redeals) == 1 and m.redeals[0].phase == "redeal"
    assert m.redeals[0].dealer == m.round.dealer == 1
    assert m.deals == [m.redeals[0], m.round]
    assert all(h & SUIT_MASKS[0] for h in m.round.hand_masks)
    # seeded: a real no-spade deal appears for some seed; the match deals again at once
    for seed in range(200):
        m = Match(Ruleset(redeal_without_trump=True), seed=seed)
        if m.redeals:
            assert any(not h & SUIT_MASKS[0] for h in m.redeals[0].hand_masks)
            assert m.redeals[0].dealer == m.round.dealer and m.round.phase == "calling"
            break
    else:
        pytest.fail("no redeal in 200 seeds")


def test_redeal_without_face_card_same_dealer() -> None:
    low = " ".join(f"{r}{s}" for s in "SHD" for r in "23456789T")
    hands = deal({0: (" ".join(low.split()[:13]), "")})
    m = Match(Ruleset(redeal_without_face_card=True), seed=3, dealer=2, dealt=[hands])
    assert len(m.redeals) == 1 and m.redeals[0].dealer == 2 and m.round.dealer == 2
    assert Match(Ruleset(), seed=3, dealer=2, dealt=[hands]).redeals == []


def test_min_total_calls_redeal_same_dealer() -> None:
    m = Match(Ruleset(min_total_calls=10), seed=8, dealer=0)
    first = m.round
    for n in (2, 2, 2, 2):
        m.call(n)
    assert first.phase == "redeal" and m.redeals == [first]
    assert m.round is not first and m.round.dealer == 0 and m.round.phase == "calling"
    assert m.round.dealt != first.dealt
    assert m.rounds == [] and m.round_number == 1
    for n in (3, 3, 2, 2):
        m.call(n)
    assert m.round.phase == "playing"
    assert Match.from_actions(m.rules, 8, m.actions(), dealer=0).state_key() == m.state_key()


def test_rounds_none_and_end() -> None:
    m = Match(Ruleset.preset("pagat"), seed=9)
    rng = random.Random(9)
    for _ in range(3):
        finish_round(m, rng)
    assert not m.is_over and len(m.rounds) == 3
    m.call(m.round.legal_calls()[0])
    with pytest.raises(IllegalAction, match="in progress"):
        m.end()
    m.round.pop()
    before = len(m.deals)
    m.end()
    assert m.is_over and len(m.rounds) == 3 and m.round is m.rounds[-1]
    assert len(m.deals) == before - 1
    assert m.round_number == 3
    m.end()  # a second end() is harmless
    v = m.view(0)
    assert v.legal_cards == () and v.to_act is None and v.totals == tuple(m.totals)


def test_end_while_tied_plays_sudden_death() -> None:
    rules = Ruleset(rounds=None, overtrick_points=0)
    for seed in range(50):
        m = Match(rules, seed=seed)
        rng = random.Random(seed)
        finish_round(m, rng, call=1)
        if len(set(m.totals)) == 1:
            break
    else:
        pytest.fail("no tie found")
    m.end()
    assert not m.is_over and m.sudden_death
    _play_until_over(m, rng)
    assert m.places.count(1) == 1


def test_end_before_any_round() -> None:
    m = Match(Ruleset(rounds=None), seed=1)
    m.end()
    assert m.is_over and m.rounds == [] and m.places == [1, 1, 1, 1]


def _play_until_over(m: Match, rng: random.Random) -> None:
    for _ in range(60):
        if m.is_over:
            return
        finish_round(m, rng)
    pytest.fail("sudden death never ended")


def test_sudden_death_after_last_round() -> None:
    rules = Ruleset(rounds=1, overtrick_points=0)
    for seed in range(50):
        m = Match(rules, seed=seed)
        rng = random.Random(seed)
        finish_round(m, rng, call=1)
        top = max(m.totals)
        if m.totals.count(top) > 1:
            break
    else:
        pytest.fail("no tie found")
    assert not m.is_over and m.sudden_death and m.round_number == 2
    assert m.view(0).sudden_death
    assert m.round.dealer == (m.rounds[0].dealer + 1) % 4
    _play_until_over(m, rng)
    assert m.places.count(1) == 1 and len(m.rounds) >= 2
    assert not m.sudden_death


def test_share_first_place() -> None:
    rules = Ruleset(rounds=1, overtrick_points=0, tie_break="share")
    for seed in range(50):
        m = Match(rules, seed=seed)
        finish_round(m, random.Random(seed), call=1)
        assert m.is_over
        if m.totals.count(max(m.totals)) > 1:
            assert m.places.count(1) > 1
            break
    else:
        pytest.fail("no tie found")


def test_places() -> None:
    m = Match(Ruleset(rounds=2, tie_break="share"), seed=12)
    rng = random.Random(12)
    while not m.is_over:
        finish_round(m, rng)
    t = m.totals
    for seat in range(4):
        assert m.places[seat] == 1 + sum(1 for o in t if o > t[seat])


def test_view_adds_match_fields() -> None:
    m = Match(Ruleset.preset("quick"), seed=2)
    v = m.view(1)
    assert v.rounds == 3 and v.round_number == 1 and v.totals == (0, 0, 0, 0)
    assert m.view(-1).hand == ()
    assert isinstance(m.round, Round)


def test_bad_explicit_deal_refused_up_front() -> None:
    good = Round.deal_hands(1)
    with pytest.raises(ValueError, match=r"deal 2: .*more than one seat"):
        Match(seed=1, dealt=[good, [good[0], good[0], good[2], good[3]]])
