"""Calls that learn from the match: the overtricks a seat has taken so far.

`hard` calls by a model of the other seats fitted to `medium`'s calls and play.
Players that give tricks away (a simple rule bot that calls only its aces and
kings) leave it overtricks round after round: it under-calls.  What it took in
the match's past rounds says so, and its next call can move up (or down, where
it keeps falling short).

The Bhoos tournament's requests carry no past rounds, only each player's total
(``context.players.*.totalPoints``), and a bot server answers each request on
its own.  The total is enough: every score is a whole number of points but the
overtricks, worth 0.1 each, so the tenths of a seat's total are its overtricks
so far, modulo 10 (`overtricks_so_far`).  The same comes from a `SeatView`'s
``totals`` in a match played here, so a bot served over HTTP and one seated at
a table learn the same thing from the same match.

`trick_shift` turns it into a shift of the seat's expected tricks: the mean
overtricks a round less what the bot takes against the players it models
(``base``), shrunk towards 0 by ``n / (n + prior)`` after ``n`` rounds;
`shifted` moves a distribution of tricks by it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal

from ..round import SeatView

__all__ = ["overtricks_so_far", "shifted", "trick_shift"]

#: the largest shift, in tricks, whatever the match has shown
MAX_SHIFT = 1.5


def overtricks_so_far(view: SeatView) -> tuple[int, int] | None:
    """(rounds played, overtricks the view's seat took in them, modulo 10), read
    from its match total; None where the total cannot tell (a lone round, the
    first round of a match, rules that give overtricks no points).

    >>> from callbreak import Match
    >>> from decimal import Decimal
    >>> v = Match(seed=1).view(0)
    >>> overtricks_so_far(v) is None          # the first round
    True
    >>> import dataclasses
    >>> overtricks_so_far(dataclasses.replace(v, round_number=3, totals=(Decimal("7.3"), 0, 0, 0)))
    (2, 3)
    >>> overtricks_so_far(dataclasses.replace(v, round_number=3, totals=(Decimal("-2.8"), 0, 0, 0)))
    (2, 2)
    """
    if view.totals is None or view.round_number <= 1 or view.rules.overtrick_points != Decimal("0.1"):
        return None
    tenths = int((Decimal(view.totals[view.seat]) * 10).to_integral_value())
    return view.round_number - 1, tenths % 10


def trick_shift(view: SeatView, prior: float, base: float) -> float:
    """The tricks to add to the seat's expected tricks: its mean overtricks a round
    so far less ``base``, shrunk by ``n / (n + prior)`` after ``n`` rounds, at most
    `MAX_SHIFT` either way; 0 with no rounds to read (`overtricks_so_far`) or
    ``prior`` 0 (off).

    >>> from callbreak import Match
    >>> import dataclasses
    >>> from decimal import Decimal
    >>> v = Match(seed=1).view(0)
    >>> trick_shift(v, 4.0, 0.9)                # nothing played yet
    0.0
    >>> late = dataclasses.replace(v, round_number=5, totals=(Decimal("12.8"), 0, 0, 0))
    >>> round(trick_shift(late, 4.0, 0.9), 3)   # 8 overtricks in 4 rounds: (8 - 3.6) / (4 + 4)
    0.55
    """
    if prior <= 0:
        return 0.0
    seen = overtricks_so_far(view)
    if seen is None:
        return 0.0
    n, over = seen
    return max(-MAX_SHIFT, min(MAX_SHIFT, (over - n * base) / (n + prior)))


def shifted(dist: Sequence[float], shift: float) -> tuple[float, ...]:
    """``dist`` (P(tricks = 0..13)) moved by ``shift`` tricks, a fraction split
    between the two whole numbers of tricks around it; what would fall off
    either end stays there.

    >>> shifted((0.5, 0.5, 0.0), 0.5)
    (0.25, 0.5, 0.25)
    >>> shifted((0.0, 0.5, 0.5), 1.0)
    (0.0, 0.0, 1.0)
    >>> shifted((0.2, 0.8), 0.0)
    (0.2, 0.8)
    """
    if shift == 0:
        return tuple(dist)
    lo = math.floor(shift)
    frac = shift - lo
    top = len(dist) - 1
    out = [0.0] * len(dist)
    for t, p in enumerate(dist):
        for step, w in ((lo, 1.0 - frac), (lo + 1, frac)):
            if w > 0:
                out[min(top, max(0, t + step))] += p * w
    return tuple(out)
