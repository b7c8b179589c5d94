"""Which style each other seat plays, from the evidence of its cards over a match.

``hard`` models the other seats in one of two styles: the medium level's rules
or ``spar-simple``'s (the first card that wins the trick so far; calls its aces
and kings).  With ``HardBot(opp=2)`` (the default) it infers the style seat by
seat: for each card a seat has played, whether each style would have played it
with the hand the seat held, and whether its call is ``spar-simple``'s
(`callbreak.bots.kernel.style_misses`, on deals of
the unseen cards: the fewest misses any deal allows, so a count that only grows
as the round shows more of the seat's hand), summed over the rounds of the match.  A seat is taken to play
``spar-simple``'s style once that style explains nearly all of its cards
(at most ``SIMPLE_SHARE`` of them missed) and clearly better than the medium
level's rules (``SIMPLE_MARGIN`` cards fewer missed); until then, medium's.

>>> tally = StyleTally()
>>> evidence = np.array([[0, 6, 1, 0], [0, 0, 1, 9], [0, 13, 13, 13]])  # misses: medium, simple; cards seen
>>> tally.observe((1, 0), 1, evidence)
>>> tally.styles().tolist()   # seat 1: simple explains all of it; 2: neither is ahead; 3: medium
[0, 1, 0, 0]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["CALL_MISS", "SIMPLE_MARGIN", "SIMPLE_SHARE", "STYLES", "StyleTally"]

#: the styles, by the number ``HardBot``'s ``opp`` and the kernel give them
STYLES = ("medium", "spar-simple")
#: the largest share of a seat's cards that ``spar-simple``'s rule may miss for the seat to be taken to play it
SIMPLE_SHARE = 0.1
#: how many more of its cards the medium level's rules must miss than ``spar-simple``'s
SIMPLE_MARGIN = 3
#: a call that is not the seat's count of aces and kings counts as this many of its cards
#: missed by ``spar-simple``'s style (over a round: more than ``SIMPLE_SHARE`` of 13 cards)
CALL_MISS = 3


class StyleTally:
    """The evidence of one match: for each seat (columns), the cards that the medium
    level's rules (row 0) and ``spar-simple``'s (row 1) would not have played, and
    the cards seen (row 2), over the rounds played and the round in progress.

    >>> tally = StyleTally()
    >>> tally.observe((1, 0), 1, np.array([[0, 5, 5, 5], [0, 0, 0, 0], [0, 12, 12, 12]]))
    >>> tally.observe((2, 1), 2, np.array([[0, 4, 4, 4], [0, 0, 0, 0], [0, 13, 13, 13]]))
    >>> tally.evidence()[:, 1].tolist()   # round 1's last evidence and round 2's so far
    [9, 0, 25]
    >>> tally.observe((1, 3), 1, np.zeros((3, 4), dtype=np.int64))   # a new match starts afresh
    >>> int(tally.evidence().sum())
    0
    """

    def __init__(self) -> None:
        self._done: npt.NDArray[np.int64] = np.zeros((3, 4), dtype=np.int64)
        self._now: npt.NDArray[np.int64] = np.zeros((3, 4), dtype=np.int64)
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
            self._now = np.zeros((3, 4), dtype=np.int64)
            self._key = key
        if now is not None:
            self._now = np.array(now, dtype=np.int64)

    def recall(self, done: npt.NDArray[np.int64]) -> None:
        """Start from ``done``, the evidence of the match's finished rounds (from a
        record of them rather than from observing them), with no round in progress.

        >>> tally = StyleTally()
        >>> tally.recall(np.array([[0, 9, 0, 0], [0, 0, 0, 0], [0, 26, 0, 0]]))
        >>> tally.observe((3, 0), 3, np.array([[0, 1, 0, 0], [0, 0, 0, 0], [0, 2, 0, 0]]))
        >>> tally.evidence()[:, 1].tolist(), tally.styles().tolist()
        ([10, 0, 28], [0, 1, 0, 0])
        """
        self._done = np.array(done, dtype=np.int64)
        self._now = np.zeros((3, 4), dtype=np.int64)
        self._key = None

    def evidence(self) -> npt.NDArray[np.int64]:
        """The match's evidence so far (3 rows by 4 seats, as the class says)."""
        return self._done + self._now

    def styles(self) -> npt.NDArray[np.int64]:
        """Each seat's style (0 medium's, 1 ``spar-simple``'s), by the rule in the module's text."""
        e = self.evidence()
        simple: npt.NDArray[np.bool_] = (e[1] <= SIMPLE_SHARE * e[2]) & (e[0] - e[1] >= SIMPLE_MARGIN)
        return simple.astype(np.int64)
