"""Exact scoring.  Points are kept in tenths (ints) and shown as `Decimal`.

>>> from callbreak import Ruleset
>>> score(4, 6, Ruleset()), score(4, 3, Ruleset()), score(2, 8, Ruleset())
(Decimal('4.2'), Decimal('-4.0'), Decimal('2.6'))
>>> pagat = Ruleset.preset("pagat")
>>> score(9, 10, pagat), score(9, 11, pagat), score(4, 5, pagat)
(Decimal('13.0'), Decimal('-9.0'), Decimal('4.0'))
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from .rules import Ruleset

__all__ = ["made", "match_over", "places_of", "score", "score_tenths", "tenths_to_points"]


def made(call: int, tricks: int, rules: Ruleset) -> bool:
    """Whether a call is made: at least the call, and not past ``max_overtricks``.

    >>> made(4, 6, Ruleset.preset("pagat")), made(4, 5, Ruleset.preset("pagat"))
    (False, True)
    """
    if tricks < call:
        return False
    return rules.max_overtricks is None or tricks - call <= rules.max_overtricks


def score_tenths(call: int, tricks: int, rules: Ruleset) -> int:
    """One seat's points for one round, in tenths of a point.

    >>> score_tenths(3, 6, Ruleset())
    33
    >>> score_tenths(5, 4, Ruleset(missed_penalty="shortfall"))
    -10
    """
    if not 0 <= tricks <= 13:
        raise ValueError(f"tricks must be 0..13, not {tricks}")
    if made(call, tricks, rules):
        base = call
        if rules.bonus_call is not None and call >= rules.bonus_call:
            base = rules.bonus_points
        return base * 10 + rules.overtrick_tenths * (tricks - call)
    if rules.missed_penalty == "zero":
        return 0
    if rules.missed_penalty == "shortfall" and tricks < call:
        return -10 * (call - tricks)
    return -10 * call


def tenths_to_points(tenths: int) -> Decimal:
    """>>> tenths_to_points(-40), tenths_to_points(3)
    (Decimal('-4.0'), Decimal('0.3'))
    """
    return Decimal(tenths).scaleb(-1)


def score(call: int, tricks: int, rules: Ruleset) -> Decimal:
    """One seat's points for one round, exact.

    >>> score(8, 8, Ruleset())
    Decimal('8.0')
    """
    return tenths_to_points(score_tenths(call, tricks, rules))


def match_over(totals: Sequence[int | Decimal], rounds_played: int, rounds: int | None, tie_break: str) -> bool:
    """Whether a match is over after ``rounds_played`` rounds with these ``totals``: its
    ``rounds`` played (None: a match without end), and, with ``tie_break`` ``"sudden_death"``, no
    tie at the top left (another round is played). The one copy of the rule (`Match` and the
    score calculator's `ScoreSheet`).

    >>> match_over([30, 12, 12, 5], 5, 5, "sudden_death"), match_over([30, 30, 12, 5], 5, 5, "sudden_death")
    (True, False)
    >>> match_over([30, 30, 12, 5], 5, 5, "share"), match_over([30, 12, 12, 5], 4, 5, "share"), match_over([9, 0, 0, 0], 9, None, "share")
    (True, False, False)
    """
    if rounds is None or rounds_played < rounds:
        return False
    return not (tie_break == "sudden_death" and list(totals).count(max(totals)) > 1)


def places_of(totals: Sequence[int | Decimal]) -> list[int]:
    """Places 1..4; seats tied on total share the better place.

    >>> places_of([5, 7, 7, -1])
    [3, 1, 1, 4]
    """
    return [1 + sum(1 for o in totals if o > t) for t in totals]
