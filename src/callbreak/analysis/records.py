"""The records of an analysis: options, decisions, hindsight, per-player summaries.

Plain frozen dataclasses of ints, floats and text (a card is its text, ``"AS"``;
a call is its number as text, ``"3"``), so an analysis turns into JSON and
back without loss (`Analysis.to_dict`, `Analysis.from_dict`).

>>> o = Option(action="AS", win=0.41, points=3.2)
>>> d = Decision(deal=0, round=1, step=4, trick=1, seat=0, kind="card", taken="AS",
...              best="AS", options=(o,), loss_points=0.0, loss_win=0.0, grade="good", forced=True)
>>> Decision.from_dict(d.to_dict()) == d
True
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["GRADES", "Analysis", "Decision", "Grade", "Hindsight", "Option", "PlayerSummary", "half_up"]

Grade = Literal["good", "inaccuracy", "mistake", "blunder"]
GRADES: tuple[Grade, ...] = ("good", "inaccuracy", "mistake", "blunder")


def half_up(x: float, places: int) -> float:
    """``x`` to ``places`` decimals, a half up, reading ``x`` as the decimal it is written as: how
    the analysis shows a figure (a loss, a chance) and grades a decision on it; the web page's copy
    (`analysis.js`'s ``halfUp``) is held to it by a test.  1.15 is 1.1499... in binary, which plain
    rounding takes down.

    >>> half_up(1.15, 1), half_up(0.245, 2), half_up(0.2449, 2), half_up(2.0, 1)
    (1.2, 0.25, 0.24, 2.0)
    """
    scaled = round(x * 10**places, 6)  # (the binary hair off a figure of a few decimals)
    return float(math.floor(scaled + 0.5) / 10**places)


@dataclass(frozen=True, slots=True)
class Option:
    """One legal option from the seat's own view: its mean chance of finishing
    first in the match and its mean round points, over the deals searched.

    >>> o = Option(action="3", win=0.31, points=2.4)
    >>> o, Option(**{"action": "3", "win": 0.31, "points": 2.4}) == o
    (Option(action='3', win=0.31, points=2.4), True)
    """

    action: str
    win: float
    points: float


@dataclass(frozen=True, slots=True)
class Hindsight:
    """With every hand known (double dummy, the others playing together against
    the seat): the tricks the seat ends the round with after each option
    (``None``: not solved within the node budget), the best of them and after
    the option taken.  Never what the seat could know at the table.

    >>> h = Hindsight(tricks={"AS": 5, "2H": 4}, best=5, taken=4)
    >>> h.lost
    1
    """

    tricks: dict[str, int | None]
    best: int | None
    taken: int | None

    @property
    def lost(self) -> int | None:
        """Tricks the option taken gave away in hindsight (None: unsolved)."""
        if self.best is None or self.taken is None:
            return None
        return self.best - self.taken


@dataclass(frozen=True, slots=True)
class Decision:
    """One call or card of one seat, valued from that seat's view.

    ``deal``: index into the match's deals (redealt ones included); ``round``:
    the round's number (1-based, redeals not counted); ``step``: the action's
    index in that deal (calls 0..3, then the cards); ``trick``: the trick's
    number (1..13) for a card, None for a call.  ``best`` is the option of
    highest value (chance first plus a small share of points, as the hard level
    values outcomes); ``loss_points`` and ``loss_win`` are how far the option
    taken falls below that best option on each figure (never negative; both 0
    when the option taken is the best).
    ``forced``: the only legal option (not graded against the player); ``auto``: why it
    was made for the seat, not by its player (the history's ``Auto`` tag says; None for the player's own).

    >>> d = Decision(deal=0, round=1, step=1, trick=None, seat=1, kind="call", taken="5", best="3",
    ...              options=(Option("3", 0.31, 2.4), Option("5", 0.22, 0.9)), loss_points=1.5, loss_win=0.09,
    ...              grade="mistake", forced=False)
    >>> d.option("5").win, Decision.from_dict(d.to_dict()) == d
    (0.22, True)
    """

    deal: int
    round: int
    step: int
    trick: int | None
    seat: int
    kind: Literal["call", "card"]
    taken: str
    best: str
    options: tuple[Option, ...]
    loss_points: float
    loss_win: float
    grade: Grade
    forced: bool
    hindsight: Hindsight | None = None
    #: made for the seat, not by its player: "timeout" (the turn ran out), "autoplay" (a bot
    #: played the seat) or "fault" (an arena's fallback for a bot that failed to answer legally:
    #: `callbreak.notation.auto_decisions`); left out of the player's summary and mistakes (None:
    #: the player's own)
    auto: str | None = None

    def option(self, action: str) -> Option:
        """The option of ``action`` (KeyError when it was not legal)."""
        for o in self.options:
            if o.action == action:
                return o
        raise KeyError(action)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Decision:
        h = d.get("hindsight")
        return cls(
            **{
                **d,
                "options": tuple(Option(**o) for o in d["options"]),
                "hindsight": None if h is None else Hindsight(**h),
            }
        )


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """One seat over the decisions analysed.

    ``accuracy``: the share of its unforced decisions graded good (1.0 with none); decisions
    made for the seat (``Decision.auto``) count in none of the decisions' figures (accuracy,
    points and win lost, grades) but ``decisions``;
    ``points_lost_calls`` / ``points_lost_cards``: expected round points given
    away by its calls / its cards, summed; ``calls_made`` (exactly),
    ``calls_over`` (more tricks than called) and ``calls_missed`` (fewer) count
    its finished rounds; ``grades``: how many decisions got each grade.

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.analysis.engine import analyse
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=2)
    >>> for a in (2, 3, 2, 3): _ = m.act(a)
    >>> s = analyse(m, seats=[0], budget=40, seed=1).summaries[0]
    >>> s.seat, s.decisions, 0.0 <= s.accuracy <= 100.0, sorted(s.grades)
    (0, 1, True, ['blunder', 'good', 'inaccuracy', 'mistake'])
    """

    seat: int
    name: str
    decisions: int
    accuracy: float
    points_lost_calls: float
    points_lost_cards: float
    win_lost: float
    calls_made: int
    calls_over: int
    calls_missed: int
    grades: dict[str, int]


@dataclass(frozen=True, slots=True)
class Analysis:
    """Every decision analysed (in the order they were taken), a summary per
    seat analysed, the chance each analysed seat gave itself of finishing first
    after each of its cards (``curve``: per seat, (deal, trick, chance)), and how
    it was made: the seats, the budget per decision, the seed and the grading
    thresholds in force.

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.analysis.engine import analyse
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=2)
    >>> for a in (2, 3, 2, 3): _ = m.act(a)
    >>> a = analyse(m, seats=[0, 1], budget=40, seed=1)
    >>> a.seats, len(a.decisions), [s.seat for s in a.summaries], len(a.mistakes(0)) <= len(a.decisions)
    ((0, 1), 2, [0, 1], True)
    """

    seats: tuple[int, ...]
    players: tuple[str, ...]
    budget: int
    seed: int
    decisions: tuple[Decision, ...]
    summaries: tuple[PlayerSummary, ...]
    curve: dict[int, tuple[tuple[int, int, float], ...]]
    thresholds: dict[str, tuple[float, float, float]]
    #: whether the cards were looked at in hindsight (`Decision.hindsight`; ``--no-hindsight``: not)
    hindsight: bool = True

    def mistakes(self, seat: int | None = None) -> list[Decision]:
        """Decisions graded mistake or blunder (of ``seat``, or of every seat), the player's own."""
        return [
            d
            for d in self.decisions
            if d.grade in ("mistake", "blunder") and d.auto is None and (seat is None or d.seat == seat)
        ]

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["curve"] = {str(k): [list(p) for p in v] for k, v in self.curve.items()}
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Analysis:
        return cls(
            seats=tuple(d["seats"]),
            players=tuple(d["players"]),
            budget=d["budget"],
            seed=d["seed"],
            decisions=tuple(Decision.from_dict(x) for x in d["decisions"]),
            summaries=tuple(PlayerSummary(**s) for s in d["summaries"]),
            curve={int(k): tuple((int(a), int(b), float(c)) for a, b, c in v) for k, v in d["curve"].items()},
            thresholds={k: (float(v[0]), float(v[1]), float(v[2])) for k, v in d["thresholds"].items()},
            hindsight=bool(d.get("hindsight", True)),  # (a record of before the field: with hindsight)
        )
