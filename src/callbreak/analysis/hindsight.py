"""Hindsight: what a seat could have taken with every hand known (double dummy).

This is **not** what the seat could know at the table; it reads every hand.  It
answers "was this trick ever winnable?" apart from "was this a mistake?".

`DoubleDummy` finds the most tricks one seat can still take from a position
with all four hands face up, against the other three playing together to stop
it (the pessimistic reading for a game without partners: whatever the others
do, the seat takes at least that many).  The search is exact and compiled
(`callbreak.bots.kernel.dd`): yes/no questions "can the seat take at least
``n`` more?" from a guess (the last answer) up or down, with alpha-beta's
cut-offs, moves ordered, a table of bounds per position at the start of each
trick kept between questions, and cards of one hand that no other live card
separates played as one.

The work is bounded: ``node_budget`` turns searched per position; a position over
budget answers None ("not worked out").  Under the default budget all but a
seat's first one to three cards of a round solve in the match measured
(``benchmarks/analysis_speed.py``: 246 of 260 cards).

>>> import random
>>> from callbreak import Round, Ruleset
>>> rnd = Round(Ruleset(), Round.deal_hands(seed=2), dealer=3)
>>> rnd.playout(random.Random(2))
>>> for _ in range(12): _ = rnd.pop()      # back to three cards each
>>> [DoubleDummy(seat).max_tricks(rnd) for seat in range(4)]
[0, 2, 1, 0]
"""

from __future__ import annotations

import numpy as np

from ..bots import kernel
from ..cards import Card
from ..round import PLAYING, Round

__all__ = ["DEFAULT_NODE_BUDGET", "DoubleDummy", "option_tricks"]

DEFAULT_NODE_BUDGET = 2_000_000


class DoubleDummy:
    """Exact double-dummy search for one seat against the other three together.

    The table of bounds is kept between questions, so asking about every
    position of a round in turn reuses the work (and forgotten when a position
    comes under other rules).

    >>> import random
    >>> from callbreak import Round, Ruleset
    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=2), dealer=3)
    >>> rnd.playout(random.Random(2))
    >>> for _ in range(8): _ = rnd.pop()   # back to the last two tricks
    >>> dd = DoubleDummy(rnd.to_act)
    >>> len(rnd.hands[rnd.to_act]), dd.max_tricks(rnd)   # two tricks left: against best play it makes neither
    (2, 0)
    >>> try:
    ...     DoubleDummy(4)
    ... except ValueError as e:
    ...     print(e)
    seat must be 0..3, not 4
    """

    def __init__(self, seat: int, node_budget: int = DEFAULT_NODE_BUDGET, table_bits: int = 20) -> None:
        if not 0 <= seat <= 3:
            raise ValueError(f"seat must be 0..3, not {seat!r}")
        if node_budget < 1:
            raise ValueError("node_budget must be at least 1")
        self.seat = seat
        self.node_budget = node_budget
        self._keys, self._vals = kernel.dd_table(table_bits)
        self._guess = 0
        self._rules: tuple[object, np.ndarray] | None = None

    def max_tricks(self, rnd: Round) -> int | None:
        """Tricks the seat can still take from the position of ``rnd`` (its own
        or the others' turn, in any trick), or None when over the node budget."""
        if rnd.phase != PLAYING:
            return 0
        if self._rules is None or self._rules[0] != rnd.rules:
            if self._rules is not None:  # the bounds held under other rules: forget them
                self._keys.fill(-1)
                self._vals.fill(0)
            self._rules = (rnd.rules, kernel.rules_array(rnd.rules))
        P = self._rules[1]
        hands = np.array(rnd.hand_masks, dtype=np.int64)
        trick = np.zeros(4, dtype=np.int64)
        for i, c in enumerate(rnd.trick):
            trick[i] = int(c)
        n, leader, tn = len(rnd.trick), rnd.leader, rnd.trick_number
        nodes = np.zeros(1, dtype=np.int64)

        def reach(target: int) -> int:
            return int(
                kernel.dd_reach(
                    hands, trick, n, leader, tn, P, self.seat, target,
                    self._keys, self._vals, self.node_budget, nodes,
                )
            )  # fmt: skip

        lo, hi = 0, 13 - tn  # the answer lies in lo..hi
        g = min(max(self._guess, lo), hi)
        while lo < hi:
            # from the guess: up while yes, down while no
            target = max(min(g, hi), lo + 1)
            ok = reach(target)
            if ok < 0:
                return None
            if ok:
                lo = target
                g = target + 1
            else:
                hi = target - 1
                g = target - 1
        self._guess = lo
        return lo


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
