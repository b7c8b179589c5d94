"""`kernel.plan` (one seat's best line of cards over a known deal's last tricks, the
others answering by their styles) agrees with a plain search over the engine's own
moves, the simple seats played by the sparring bots themselves and the medium seats by
the kernel's port of the medium level (held to `callbreak.bots.medium` card for card in
test_medium_port.py), told what the play shows as the playouts tell it."""

from __future__ import annotations

import random

import numpy as np
import pytest

from callbreak import Round
from callbreak.bots import kernel
from callbreak.bots.base import Bot
from callbreak.bots.hard import HardBot, public_cannot
from callbreak.bots.kernel import plan
from callbreak.bots.kernel.medium import _observe
from callbreak.bots.knowledge import Knowledge
from callbreak.bots.sparring import SimpleBot, SimpleClubsBot, SimpleHighBot
from tests.bots.helpers import called_round, trick_array

#: each simple bot with its style (`callbreak.bots.styles`: 1 + its hand order)
STYLED: tuple[tuple[type[SimpleBot], int], ...] = ((SimpleBot, 1), (SimpleHighBot, 25), (SimpleClubsBot, 24))


def _best(
    rnd: Round,
    me: int,
    bots: dict[int, Bot],
    cannot: np.ndarray,
    calls: np.ndarray,
    totals: np.ndarray,
    sd: float,
    P: np.ndarray,
) -> float:
    """``me``'s value of the round's end with its best line of cards, each other seat
    playing its bot's card, or the kernel's medium card where it has no bot (a
    straightforward recursion on the engine, every legal card of ``me`` tried)."""
    if rnd.phase != "playing":
        won = np.array(rnd.tricks_won, dtype=np.int64)
        return float(kernel.scoring._value(me, won, calls, totals, sd, P))
    seat = rnd.to_act
    assert seat is not None
    trick = trick_array(rnd.trick)
    if seat != me:
        if seat in bots:
            card = int(bots[seat].act(rnd.view(seat)))
        else:
            hands = np.array(rnd.hand_masks, dtype=np.int64)
            won = np.array(rnd.tricks_won, dtype=np.int64)
            n, tn, played = len(rnd.trick), rnd.trick_number, rnd.played_mask
            card = int(kernel.medium_card(hands, seat, trick, n, P, won, calls, cannot, tn, played))
        cards = [card]
    else:
        cards = [int(c) for c in rnd.legal_cards()]
    best = -1e300
    for card in cards:
        seen = cannot.copy()
        _observe(seen, trick, len(rnd.trick), card, seat, P, rnd.trick_number, rnd.played_mask)
        rnd.play(card)
        best = max(best, _best(rnd, me, bots, seen, calls, totals, sd, P))
        rnd.pop()
    return best


@pytest.mark.parametrize("medium", [False, True], ids=["simple", "with-medium"])
def test_plan_matches_a_plain_search(medium: bool) -> None:
    rng = random.Random(11 + medium)
    lines = 0
    for _ in range(150):
        rules, rnd = called_round(rng)
        P = kernel.rules_array(rules)
        left = rng.choice([2, 3, 4, 5])
        stop = (13 - left) * 4 + rng.randrange(4)  # sometimes in the middle of a trick
        while len(rnd.actions) - 4 < stop:
            rnd.play(rng.choice(rnd.legal_cards()))
        me = rnd.to_act if rng.random() < 0.5 else rng.randrange(4)
        bots: dict[int, Bot] = {}
        opp = np.zeros(4, dtype=np.int64)
        for s in range(4):
            if s != me and not (medium and rng.random() < 0.5):
                cls, style = rng.choice(STYLED)
                bots[s], opp[s] = cls(seed=s), style
        if medium and len(bots) == 3:
            del bots[(me + 1) & 3]
            opp[(me + 1) & 3] = 0
        calls = np.array(rnd.calls, dtype=np.int64)
        totals = np.array([rng.uniform(-20, 40) for _ in range(4)])
        sd = rng.choice([0.0, 8.0])
        view = rnd.view(me)
        cannot = np.array(public_cannot(view, Knowledge.from_view(view)), dtype=np.int64)
        want = _best(rnd, me, bots, cannot.copy(), calls, totals, sd, P)
        st = np.array([len(rnd.trick), rnd.leader, rnd.trick_number, rnd.played_mask, rnd.to_act], dtype=np.int64)
        hands = np.array(rnd.hand_masks, dtype=np.int64)
        won = np.array(rnd.tricks_won, dtype=np.int64)
        trick = trick_array(rnd.trick)
        seen = cannot.copy()
        got = plan(hands, trick, st, won, cannot, me, P, calls, opp, totals, sd)
        assert got == pytest.approx(want, abs=1e-12), (rules.to_dict(), rnd.actions, me, opp.tolist())
        # the arguments are the caller's, unchanged
        assert hands.tolist() == list(rnd.hand_masks) and won.tolist() == list(rnd.tricks_won)
        assert st.tolist() == [len(rnd.trick), rnd.leader, rnd.trick_number, rnd.played_mask, rnd.to_act]
        assert trick.tolist() == trick_array(rnd.trick).tolist() and cannot.tolist() == seen.tolist()
        lines += rnd.to_act == me and len(rnd.legal_cards()) > 1
    assert lines > 50  # positions where the planning seat is to play and has a choice


def test_plan_is_at_least_every_playout_of_its_own_first_card() -> None:
    """The search's value of a card with ``plan_k`` covering the rest of the round is the
    best line after it: no lower than playing the round out from that card by the medium
    level's rules, the other seats answering alike (medium's rules or ``spar-simple``'s)."""
    rng = random.Random(5)
    better = 0
    for _ in range(20):
        rules, rnd = called_round(rng)
        while len(rnd.actions) - 4 < 9 * 4:
            rnd.play(rng.choice(rnd.legal_cards()))
        me = rnd.to_act
        assert me is not None
        view = rnd.view(me)
        k = Knowledge.from_view(view)
        P = kernel.rules_array(rules)
        moves = np.array([int(c) for c in view.legal_cards], dtype=np.int64)
        z = np.zeros(4, dtype=np.int64)
        opp = np.array([0 if s == me else rng.choice([0, 1]) for s in range(4)], dtype=np.int64)
        args = (
            np.array([rnd.hand_masks], dtype=np.int64), me, trick_array(rnd.trick), len(rnd.trick), rnd.leader,
            np.array(rnd.tricks_won, dtype=np.int64), rnd.trick_number, rnd.played_mask, P,
            np.array(rnd.calls, dtype=np.int64), moves, 1, np.zeros(4), 8.0, 0, 1, z, 0,
            np.array(public_cannot(view, k), dtype=np.int64), 1, opp,
        )  # fmt: skip
        played = kernel.search(*args, 0)
        planned = kernel.search(*args, 13)
        assert (planned >= played - 1e-12).all()
        better += int((planned > played + 1e-12).any())
    assert better > 0  # somewhere the medium level's line was not the best


@pytest.mark.parametrize("bad", [-1, 14, True])
def test_plan_tricks_must_be_a_count_of_tricks(bad: int) -> None:
    with pytest.raises(ValueError, match="plan_tricks must be between 0 and 13"):
        HardBot(seed=1, plan_tricks=bad)
