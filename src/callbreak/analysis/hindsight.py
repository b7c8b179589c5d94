"""Hindsight: what a seat could have taken with every hand known (double dummy).

This is **not** what the seat could know at the table; it reads every hand.  It
answers "was this trick ever winnable?" apart from "was this a mistake?".

`DoubleDummy` finds the most tricks one seat can still take from a position
with all four hands face up, against the other three playing together to stop
it (the pessimistic reading for a game without partners: whatever the others
do, the seat takes at least that many).  The search is exact: a yes/no search
"can the seat take at least ``n`` more?" for rising ``n``, with alpha-beta's
cut-offs, a table of bounds per position at the start of each trick, and
cards of one hand that no other unplayed card separates played as one.  The
rules are the engine's (`Round.legal_mask`, `Round.play`, `Round.pop`).

The work is bounded: ``node_budget`` positions per question (a played card is a
position); a question over budget answers None, so early positions of a round
may stay unsolved under a small budget while the last tricks always solve.

>>> import random
>>> from callbreak import Round, Ruleset
>>> rnd = Round(Ruleset(), Round.deal_hands(seed=2), dealer=3)
>>> rnd.playout(random.Random(2))
>>> for _ in range(12): _ = rnd.pop()      # back to three cards each
>>> [DoubleDummy(seat).max_tricks(rnd) for seat in range(4)]
[0, 2, 1, 0]
"""

from __future__ import annotations

from ..cards import SUIT_MASKS, Card, mask_of
from ..round import PLAYING, Round

__all__ = ["DEFAULT_NODE_BUDGET", "DoubleDummy", "option_tricks"]

DEFAULT_NODE_BUDGET = 4_000


class _OverBudget(Exception):
    """Raised inside the search when a question has used its node budget."""


class DoubleDummy:
    """Exact double-dummy search for one seat against the other three together.

    The table of bounds is kept between questions, so asking about every
    position of a round in turn reuses the work.
    """

    def __init__(self, seat: int, node_budget: int = DEFAULT_NODE_BUDGET) -> None:
        if not 0 <= seat <= 3:
            raise ValueError(f"seat must be 0..3, not {seat!r}")
        self.seat = seat
        self.node_budget = node_budget
        self._bounds: dict[tuple[int, int, int, int, int], tuple[int, int]] = {}
        self._nodes = 0

    def max_tricks(self, rnd: Round) -> int | None:
        """Tricks the seat can still take from the position of ``rnd`` (its own
        or the others' turn, in any trick), or None when over the node budget."""
        if rnd.phase != PLAYING:
            return 0
        left = 13 - rnd.trick_number
        work = rnd.copy()
        self._nodes = 0
        got = 0
        try:
            while got < left and self._reach(work, rnd.tricks_won[self.seat] + got + 1):
                got += 1
        except _OverBudget:
            return None
        return got

    def _moves(self, rnd: Round) -> list[int]:
        legal = rnd.legal_mask()
        hands = rnd.hand_masks
        live = hands[0] | hands[1] | hands[2] | hands[3] | mask_of(rnd.trick)
        out: list[int] = []
        for suit_mask in SUIT_MASKS:
            m = legal & suit_mask
            if not m:
                continue
            # the top card of each run of this hand's cards with no other live card between
            prev_in_run = False
            c = suit_mask.bit_length() - 1
            low = c - 12
            while c >= low:
                bit = 1 << c
                if m & bit:
                    if not prev_in_run:
                        out.append(c)
                    prev_in_run = True
                elif live & bit:
                    prev_in_run = False
                c -= 1
        return out

    def _reach(self, rnd: Round, target: int) -> bool:
        """Whether the seat ends the round with at least ``target`` tricks."""
        me = self.seat
        won = rnd.tricks_won[me]
        if won >= target:
            return True
        if won + 13 - rnd.trick_number < target:
            return False
        self._nodes += 1
        if self._nodes > self.node_budget:
            raise _OverBudget
        start = not rnd.trick
        key: tuple[int, int, int, int, int] | None = None
        need = target - won
        if start:
            h = rnd.hand_masks
            key = (h[0], h[1], h[2], h[3], rnd.leader)
            lo, hi = self._bounds.get(key, (0, 13))
            if need <= lo:
                return True
            if need > hi:
                return False
        moves = self._moves(rnd)
        maxing = rnd.to_act == me
        if not maxing:
            moves.reverse()  # the others try their low cards first
        result = not maxing
        for c in moves:
            rnd.play(Card(c))
            try:
                ok = self._reach(rnd, target)
            finally:
                rnd.pop()
            if ok == maxing:
                result = ok
                break
        if key is not None:
            lo, hi = self._bounds.get(key, (0, 13))
            self._bounds[key] = (max(lo, need), hi) if result else (lo, min(hi, need - 1))
        return result


def option_tricks(rnd: Round, dd: DoubleDummy) -> dict[Card, int | None]:
    """For each legal card of the seat to act (``dd``'s seat), the tricks that seat
    ends the round with after playing it, with every hand known (None: over budget).

    >>> import random
    >>> from callbreak import Ruleset
    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=2), dealer=3)
    >>> rnd.playout(random.Random(2))
    >>> for _ in range(12): _ = rnd.pop()
    >>> seat = rnd.to_act
    >>> rnd.tricks_won[seat], {str(c): n for c, n in option_tricks(rnd, DoubleDummy(seat)).items()}
    (4, {'9C': 4, 'TC': 4, 'AC': 4})
    """
    seat = rnd.to_act
    if seat != dd.seat:
        raise ValueError(f"it is seat {seat}'s turn, not seat {dd.seat}'s")
    out: dict[Card, int | None] = {}
    for c in rnd.legal_cards():
        rnd.play(c)
        try:
            more = dd.max_tricks(rnd)
            out[c] = None if more is None else rnd.tricks_won[dd.seat] + more
        finally:
            rnd.pop()
    return out
