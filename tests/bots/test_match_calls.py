"""Calls that learn from the match: the overtricks read from a seat's total move `hard`'s call."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest

from callbreak import Match, Ruleset
from callbreak.bots.hard import HardBot
from callbreak.bots.match_calls import overtricks_so_far, trick_shift
from callbreak.remote.codec import parse_request, view_to_request
from callbreak.round import SeatView


def _first_call(seed: int) -> SeatView:
    """The first seat's calling view in the first round of a bhoos match."""
    m = Match(Ruleset.preset("bhoos", rounds=5), seed=seed, dealer=0)
    seat = m.to_act
    assert seat is not None
    return m.view(seat)


def _in_round_5(view: SeatView, mine: str) -> SeatView:
    """The same hand as if four rounds had been played, the seat's total ``mine``."""
    totals = tuple(Decimal(mine) if s == view.seat else Decimal("10") for s in range(4))
    return dataclasses.replace(view, round_number=5, totals=totals)


SEED = 12


def test_overtricks_in_every_past_round_raise_the_call() -> None:
    view = _in_round_5(_first_call(SEED), "12.9")  # 9 overtricks in 4 rounds
    plain = HardBot(seed=3).choose_call(view)[0]
    learned = HardBot(seed=3, call_learn=1.0).choose_call(view)[0]
    assert learned > plain


def test_calls_falling_short_lower_the_call() -> None:
    view = _in_round_5(_first_call(SEED), "-4.0")  # no overtricks in 4 rounds
    plain = HardBot(seed=3).choose_call(view)[0]
    learned = HardBot(seed=3, call_learn=1.0).choose_call(view)[0]
    assert learned < plain


def test_no_past_round_leaves_the_call_and_its_values_as_they_were() -> None:
    view = _first_call(SEED)
    assert overtricks_so_far(view) is None
    assert HardBot(seed=3, call_learn=1.0).choose_call(view) == HardBot(seed=3).choose_call(view)


def test_overtricks_at_the_expected_rate_leave_the_call_as_it_was() -> None:
    view = dataclasses.replace(_in_round_5(_first_call(SEED), "12.9"), round_number=10)  # 9 in 9 rounds
    assert trick_shift(view, 1.0, 1.0) == 0.0
    assert HardBot(seed=3, call_learn=1.0, call_over=1.0).choose_call(view) == HardBot(seed=3).choose_call(view)


def test_a_learned_call_is_seeded() -> None:
    view = _in_round_5(_first_call(SEED), "12.9")
    assert HardBot(seed=5, call_learn=1.0).choose_call(view) == HardBot(seed=5, call_learn=1.0).choose_call(view)


def test_the_tournament_request_carries_what_is_learned() -> None:
    """A Bhoos request has no past rounds, only totals: the overtricks are read from them."""
    view = _in_round_5(_first_call(SEED), "12.9")
    path, body = view_to_request(view, time_budget_ms=1500)
    assert body["context"]["players"][f"P{view.seat}"]["totalPoints"] == 12.9
    parsed = parse_request(path, body, view.rules).view
    assert overtricks_so_far(parsed) == (4, 9)
    assert trick_shift(parsed, 1.0, 0.9) == pytest.approx((9 - 3.6) / 5)
    assert HardBot(seed=3, call_learn=1.0).choose_call(parsed)[0] > HardBot(seed=3).choose_call(parsed)[0]


def test_rules_without_overtrick_points_learn_nothing() -> None:
    view = _in_round_5(_first_call(SEED), "12")
    flat = dataclasses.replace(view, rules=view.rules.replace(overtrick_points=0))
    assert overtricks_so_far(flat) is None
    assert trick_shift(flat, 1.0, 0.9) == 0.0


def test_call_learn_is_not_negative() -> None:
    with pytest.raises(ValueError, match="call_learn"):
        HardBot(seed=1, call_learn=-1.0)
