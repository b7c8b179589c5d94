"""Property tests (hypothesis) and a cross-check against the naive rules in `naive.py`."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callbreak import Card, IllegalAction, Match, Round, Ruleset

from .naive import NaiveRound

rulesets = st.builds(
    Ruleset,
    min_call=st.sampled_from([1, 2]),
    max_call=st.integers(2, 13),
    must_head=st.booleans(),
    head_after_cut=st.booleans(),
    must_undertrump=st.booleans(),
    trump=st.sampled_from(["S", "H", "D", "C"]),
    trump_lead=st.sampled_from(["any", "not_first_trick", "after_broken"]),
    max_overtricks=st.one_of(st.none(), st.integers(0, 12)),
    missed_penalty=st.sampled_from(["call", "shortfall", "zero"]),
    bonus_call=st.one_of(st.none(), st.integers(1, 13)),
    overtrick_points=st.sampled_from(["0.1", 0]),
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(rules=rulesets, seed=st.integers(0, 2**32), dealer=st.integers(0, 3))
def test_random_round_invariants(rules: Ruleset, seed: int, dealer: int) -> None:
    rng = random.Random(seed)
    rnd = Round(rules, Round.deal_hands(rng, dealer), dealer)
    keys = [rnd.state_key()]
    calls = [rng.choice(rnd.legal_calls()) for _ in range(4)]
    for n in calls:
        assert rnd.to_act is not None and rnd.phase == "calling"
        rnd.call(n)
        keys.append(rnd.state_key())
    naive = NaiveRound(rules, rnd.hands, rnd.leader)
    while rnd.phase == "playing":
        seat = rnd.to_act
        assert seat is not None and naive.to_act == seat  # exactly one seat to act
        legal = rnd.legal_cards()
        hand = rnd.hands[seat]
        assert legal and all(c in hand for c in legal)  # every legal card is in the hand
        assert set(legal) == naive.legal()  # the engine agrees with the rules text
        # every other card of the hand is refused, and the state stays equal
        for c in hand:
            if c not in legal:
                before = rnd.state_key()
                try:
                    rnd.play(c)
                except IllegalAction:
                    pass
                else:
                    raise AssertionError(f"{c} accepted")
                assert rnd.state_key() == before
        # a card of another seat is refused too
        for s in range(4):
            if s != seat and rnd.hands[s]:
                try:
                    rnd.play(rnd.hands[s][0])
                except IllegalAction:
                    pass
                else:
                    raise AssertionError("another seat's card accepted")
        card = rng.choice(legal)
        rnd.play(card)
        naive.play(card)
        assert rnd.tricks_won == naive.won
        keys.append(rnd.state_key())
    assert rnd.phase == "over" and rnd.to_act is None
    assert len(rnd.tricks) == 13 and sum(rnd.tricks_won) == 13
    assert len(rnd.points()) == 4
    # pop() undoes exactly, all the way back
    for k in reversed(keys[:-1]):
        rnd.pop()
        assert rnd.state_key() == k


@SETTINGS
@given(
    preset=st.sampled_from(["standard", "quick", "pagat", "bhoos"]),
    seed=st.integers(0, 2**32),
    min_total=st.sampled_from([0, 0, 11]),
    redeal=st.booleans(),
)
def test_replaying_history_reproduces_match(preset: str, seed: int, min_total: int, redeal: bool) -> None:
    changes: dict[str, object] = {"min_total_calls": min_total, "redeal_without_trump": redeal}
    if preset == "pagat":
        changes["rounds"] = 2
    rules = Ruleset.preset(preset, **changes)
    m = Match(rules, seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not m.is_over and steps < 250:
        r = m.round
        if r.phase == "calling":
            m.call(rng.choice(r.legal_calls()))
        else:
            m.play(rng.choice(r.legal_cards()))
        steps += 1
    again = Match.from_actions(rules, seed, m.actions())
    assert again.state_key() == m.state_key()
    assert again.totals == m.totals and again.places == m.places
    # a refused action leaves the match equal
    before = m.state_key()
    for bad in (0, 14, "XX", Card(0), Card(51)):
        try:
            m.act(bad)
        except IllegalAction:
            pass
        else:
            m.round.pop()
    assert m.state_key() == before


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 56), rules=rulesets)
def test_view_never_shows_other_hands(seed: int, steps: int, rules: Ruleset) -> None:
    rng = random.Random(seed)
    rnd = Round(rules, Round.deal_hands(rng), rng.randrange(4))
    for _ in range(steps):
        if rnd.to_act is None:
            break
        if rnd.phase == "calling":
            rnd.call(rng.choice(rnd.legal_calls()))
        else:
            rnd.play(rng.choice(rnd.legal_cards()))
    for seat in [-1, 0, 1, 2, 3]:
        v = rnd.view(seat) if seat >= 0 else rnd.spectator_view()
        text = json.dumps(v.to_dict())
        for other in range(4):
            if other == seat:
                continue
            for c in rnd.hands[other]:
                assert f'"{c}"' not in text, (seat, c)
                assert c not in v.hand and c not in v.legal_cards


def test_match_views_many_positions() -> None:
    """View secrecy over whole matches, at every step, for every seat."""
    m = Match(Ruleset.preset("quick"), seed=77)
    rng = random.Random(77)
    while not m.is_over:
        for seat in range(4):
            text = json.dumps(m.view(seat).to_dict())
            for other in range(4):
                if other != seat:
                    for c in m.round.hands[other]:
                        assert f'"{c}"' not in text
        r = m.round
        m.act(rng.choice(r.legal_calls()) if r.phase == "calling" else rng.choice(r.legal_cards()))


@settings(max_examples=25, deadline=None)
@given(
    preset=st.sampled_from(["standard", "quick", "pagat", "bhoos"]),
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 400),
    redeals=st.booleans(),
    end=st.booleans(),
)
def test_history_roundtrip(preset: str, seed: int, steps: int, redeals: bool, end: bool) -> None:
    """A history of any match, finished or not, loads back to the same match and prints the same."""
    from callbreak.notation import dumps, from_json, loads, to_json

    changes: dict[str, object] = {"redeal_without_trump": redeals, "min_total_calls": 9 if redeals else 0}
    if preset == "pagat":
        changes["rounds"] = None
    m = Match(Ruleset.preset(preset, **changes), seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if m.is_over:
            break
        r = m.round
        m.act(rng.choice(r.legal_calls()) if r.phase == "calling" else rng.choice(r.legal_cards()))
    if end and not m.is_over:
        while len(m.round):
            m.round.pop()
        m.end()
    text = dumps(m)
    again = loads(text)
    assert again.state_key() == m.state_key()
    assert dumps(again) == text
    assert from_json(to_json(m)).state_key() == m.state_key()
