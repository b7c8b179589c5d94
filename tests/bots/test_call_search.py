"""The hard bot's call search: what its playouts end with, and the rescue of near misses."""

from __future__ import annotations

import numpy as np
import pytest

from callbreak import Match, Ruleset
from callbreak.bots.hard import HardBot
from callbreak.bots.knowledge import Knowledge
from callbreak.bots.playouts import decode_outcomes
from callbreak.round import SeatView
from callbreak.scoring import made


def _calling_view(seed: int) -> SeatView:
    """The view of the third seat to call in the first round of a bhoos match."""
    m = Match(Ruleset.preset("bhoos", rounds=5), seed=seed, dealer=0)
    bots = [HardBot(seed=s, call_deals=0) for s in range(4)]
    for _ in range(2):
        seat = m.to_act
        assert seat is not None
        m.act(bots[seat].act(m.view(seat)))
    seat = m.to_act
    assert seat is not None
    return m.view(seat)


def _table(bot: HardBot, view: SeatView, cands: list[int]) -> tuple[np.ndarray, np.ndarray]:
    deals = bot.deals(view, Knowledge.from_view(view), 60, 11, 1, 0, 1)
    totals, sd = bot.match_stakes(view)
    outcomes = np.zeros((len(deals), len(cands)), dtype=np.int64)
    return bot.call_table(view, deals, cands, totals, sd, 5, outcomes), outcomes


def test_the_call_search_reports_how_each_playout_ended() -> None:
    view = _calling_view(3)
    cands = [1, 2, 3, 4, 5]
    _, outcomes = _table(HardBot(seed=1), view, cands)
    won, calls = decode_outcomes(outcomes)
    assert (won.sum(axis=2) == 13).all()  # every playout plays the 13 tricks
    assert (calls[:, :, view.seat] == np.array(cands)).all()  # this seat calls each candidate in turn
    for s, c in enumerate(view.calls):
        if c is not None and s != view.seat:
            assert (calls[:, :, s] == c).all()  # the calls already made stand
    assert len({int(w) for w in won[:, 0, view.seat]}) > 1  # the deals differ in what they give


def test_rescue_values_near_misses_as_partly_made_and_nothing_else() -> None:
    view = _calling_view(4)
    cands = [2, 3, 4, 5, 6]
    plain, outcomes = _table(HardBot(seed=1), view, cands)
    rescued, again = _table(HardBot(seed=1, call_rescue=0.5), view, cands)
    assert (outcomes == again).all()  # the same playouts, valued differently
    won, calls = decode_outcomes(outcomes)
    near = won[:, :, view.seat] + 1 == calls[:, :, view.seat]
    assert near.any()
    assert (rescued[near] > plain[near]).all()
    assert (rescued[~near] == plain[~near]).all()
    rules = view.rules
    assert not any(
        made(int(c), int(w), rules) for c, w in zip(calls[near][:, view.seat], won[near][:, view.seat])
    )


def test_a_rescued_call_search_is_seeded() -> None:
    view = _calling_view(5)
    a = HardBot(seed=7, call_rescue=0.4, call_margin=0.0).choose_call(view)
    b = HardBot(seed=7, call_rescue=0.4, call_margin=0.0).choose_call(view)
    assert a == b


@pytest.mark.parametrize("share", [-0.1, 1.5])
def test_rescue_is_a_share(share: float) -> None:
    with pytest.raises(ValueError, match="call_rescue"):
        HardBot(seed=1, call_rescue=share)
