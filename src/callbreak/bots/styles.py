"""Which style each other seat plays, from the evidence of its cards over a match.

``hard`` models each other seat in one of the styles it can play out: the medium
level's rules, or ``spar-simple``'s (calls its aces and kings; plays the first card
of its hand that wins the trick so far, else its first legal card) with its hand in
one of ``ORDERS`` orders: the suits in any order, each from the 2 up (its lowest
winner; `Card` order is ``spar-simple``'s) or from the ace down (its highest winner:
``spar-simple-high``).  How a bot written elsewhere orders its hand is not known, and
a model of the wrong order mispredicts every lead.  With ``HardBot(opp=2)`` (the
default) it infers the style seat by seat: for each card a seat has played, whether
each style would have played it with the hand the seat held, and whether its call
is ``spar-simple``'s (`callbreak.bots.kernel.style_misses`, on deals of the unseen
cards: the fewest misses any deal allows, so a count that only grows as the round
shows more of the seat's hand), summed over the rounds of the match.  A seat is
taken to play the order of ``spar-simple``'s that misses fewest of its cards (the
first on a tie) once it explains nearly all of them (at most ``SIMPLE_SHARE``
missed) and clearly better than the medium level's rules (``SIMPLE_MARGIN`` cards
fewer missed); until then, medium's.

>>> tally = StyleTally()
>>> evidence = np.zeros((ROWS, 4), dtype=np.int64)
>>> evidence[-1] = [0, 13, 13, 13]   # the cards seen of seats 1, 2, 3
>>> evidence[0] = [0, 6, 1, 7]       # the medium level's rules missed these
>>> evidence[1:STYLES] = 9           # every order of spar-simple's hand missed 9 ...
>>> evidence[SIMPLE, 1] = 0          # ... but Card order none of seat 1's
>>> evidence[SIMPLE_HIGH, 3] = 0     # and each suit from the ace down none of seat 3's
>>> tally.observe((1, 0), 1, evidence)
>>> tally.styles().tolist()          # seat 2: no style is ahead of medium's
[0, 1, 0, 25]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = [
    "CALL_MISS", "ORDERS", "ROWS", "SIMPLE", "SIMPLE_HIGH", "SIMPLE_MARGIN", "SIMPLE_SHARE", "STYLES",
    "StyleTally", "style_name",
]  # fmt: skip

#: the orders a ``spar-simple`` hand may run in (`callbreak.bots.kernel.policy.ORDERS`, held
#: to it by a test): order ``o`` takes the suits in the ``o % 24``-th of their orders, each
#: from the 2 up for ``o < 24``, else from the ace down
ORDERS = 48
#: the number of styles: 0 the medium level's rules, ``1 + o`` ``spar-simple``'s with its hand in order ``o``
STYLES = 1 + ORDERS
#: ``spar-simple``'s style (its hand in `Card` order) and ``spar-simple-high``'s (the suits so, each from the ace down)
SIMPLE, SIMPLE_HIGH = 1, 1 + ORDERS // 2
#: rows of the evidence: one per style (the cards it would not have played), then the cards seen
ROWS = STYLES + 1
#: the largest share of a seat's cards that ``spar-simple``'s rule may miss for the seat to be taken to play it
SIMPLE_SHARE = 0.1
#: how many more of its cards the medium level's rules must miss than ``spar-simple``'s
SIMPLE_MARGIN = 3
#: a call that is not the seat's count of aces and kings counts as this many of its cards
#: missed by ``spar-simple``'s style (over a round: more than ``SIMPLE_SHARE`` of 13 cards)
CALL_MISS = 3


def style_name(style: int) -> str:
    """A style's name, for reports.

    >>> style_name(0), style_name(SIMPLE), style_name(SIMPLE_HIGH), style_name(24)
    ('medium', 'spar-simple', 'spar-simple-high', 'spar-simple, hand order 23')
    >>> style_name(STYLES)
    Traceback (most recent call last):
    ...
    ValueError: no style 49: 0 is medium's, 1 to 48 spar-simple's
    """
    if not 0 <= style < STYLES:
        raise ValueError(f"no style {style}: 0 is medium's, 1 to {STYLES - 1} spar-simple's")
    return {0: "medium", SIMPLE: "spar-simple", SIMPLE_HIGH: "spar-simple-high"}.get(
        style, f"spar-simple, hand order {style - 1}"
    )


class StyleTally:
    """The evidence of one match: for each seat (columns), the cards that each style
    (rows: the ``STYLES``) would not have played, and the cards seen (the last row),
    over the rounds played and the round in progress.

    >>> tally = StyleTally()
    >>> one = np.zeros((ROWS, 4), dtype=np.int64)
    >>> one[0], one[-1] = 5, 12
    >>> tally.observe((1, 0), 1, one)
    >>> tally.observe((2, 1), 2, 2 * one)
    >>> tally.evidence()[[0, SIMPLE, -1], 1].tolist()   # round 1's last evidence and round 2's so far
    [15, 0, 36]
    >>> tally.observe((1, 3), 1, np.zeros((ROWS, 4), dtype=np.int64))   # a new match starts afresh
    >>> int(tally.evidence().sum())
    0
    """

    def __init__(self) -> None:
        self._done: npt.NDArray[np.int64] = np.zeros((ROWS, 4), dtype=np.int64)
        self._now: npt.NDArray[np.int64] = np.zeros((ROWS, 4), dtype=np.int64)
        self._key: tuple[object, ...] | None = None

    def observe(self, key: tuple[object, ...], round_number: int, now: npt.NDArray[np.int64] | None) -> None:
        """Take ``now``, the evidence of the round ``key`` so far (None: nothing new).
        When ``key`` is not the round seen last, that round's last evidence is kept
        for the match; a round numbered 1 starts a new match (nothing is kept)."""
        if key != self._key:
            if round_number <= 1:
                self._done[:] = 0
            else:
                self._done += self._now
            self._now = np.zeros((ROWS, 4), dtype=np.int64)
            self._key = key
        if now is not None:
            self._now = np.array(now, dtype=np.int64)

    def recall(self, done: npt.NDArray[np.int64]) -> None:
        """Start from ``done``, the evidence of the match's finished rounds (from a
        record of them rather than from observing them), with no round in progress.

        >>> tally = StyleTally()
        >>> done = np.full((ROWS, 4), 8, dtype=np.int64)
        >>> done[0], done[SIMPLE], done[-1] = [0, 9, 0, 0], 0, [0, 26, 0, 0]
        >>> tally.recall(done)
        >>> now = np.zeros((ROWS, 4), dtype=np.int64)
        >>> now[0], now[-1] = [0, 1, 0, 0], [0, 2, 0, 0]
        >>> tally.observe((3, 0), 3, now)
        >>> tally.evidence()[[0, SIMPLE, -1], 1].tolist(), tally.styles().tolist()
        ([10, 0, 28], [0, 1, 0, 0])
        """
        self._done = np.array(done, dtype=np.int64)
        self._now = np.zeros((ROWS, 4), dtype=np.int64)
        self._key = None

    def evidence(self) -> npt.NDArray[np.int64]:
        """The match's evidence so far (`ROWS` rows by 4 seats, as the class says)."""
        return self._done + self._now

    def styles(self) -> npt.NDArray[np.int64]:
        """Each seat's style (0 medium's, ``1 + o`` ``spar-simple``'s with its hand in
        order ``o``: `style_name`), by the rule in the module's text."""
        e = self.evidence()
        simple = e[1:STYLES]
        best = simple.argmin(axis=0)  # the first of the orders on a tie
        misses = simple.min(axis=0)
        taken: npt.NDArray[np.bool_] = (misses <= SIMPLE_SHARE * e[-1]) & (e[0] - misses >= SIMPLE_MARGIN)
        out: npt.NDArray[np.int64] = np.where(taken, best + 1, 0).astype(np.int64)
        return out
