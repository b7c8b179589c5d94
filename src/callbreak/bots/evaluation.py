"""The value of every legal option of one decision, from the deciding seat's view.

The hard level's search (`callbreak.bots.hard`) answers "which card?"; a
post-match analysis asks "what was each option worth?".  `option_values`
answers that from a `SeatView` alone: it draws deals of the unseen cards that
agree with the view (the hard level's deals: `Knowledge`, weighted by the
calls, refined towards the deals that explain the play so far), plays every
legal option out on every deal in the compiled kernel (the same deals and
random numbers for each option) and reports, per option, the mean chance of
finishing first in the match and the mean round points.

The two figures come from two passes over the same deals and random numbers:
one valued as the hard level values an outcome (the chance of finishing first
given the totals and the rounds left, plus ``0.004`` per round point), one
with no totals and an unbounded spread, where that chance is the same ``1/8``
for every outcome and the value is the round points alone; the playouts do not
depend on how an outcome is valued, so the first pass less the points' share is
the chance of finishing first.

The work is ``budget`` playouts split over the options (at least ``MIN_DEALS``
deals, at most ``MAX_DEALS``), and a seed gives the same figures on any machine.

>>> from callbreak import Match, Ruleset
>>> m = Match(Ruleset.preset("quick"), seed=4)
>>> ov = option_values(m.view(m.to_act), budget=200, seed=1)
>>> ov.options == m.view(m.to_act).legal_calls, len(ov.win) == len(ov.points) == len(ov.options)
(True, True)
>>> all(0.0 <= w <= 1.0 for w in ov.win)
True
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..cards import Card
from ..round import SeatView
from .hard import HardBot
from .knowledge import Knowledge
from .playouts import search_values

__all__ = ["MAX_DEALS", "MIN_DEALS", "POINT_SHARE", "Evaluator", "OptionValues", "option_values"]

MIN_DEALS = 16
MAX_DEALS = 400
POINT_SHARE = 0.004  # the hard level's value of one round point, next to the chance of finishing first
_FLAT_SD = 1e9  # a spread so wide that every outcome has the same chance of finishing first (1/8)


@dataclass(frozen=True, slots=True)
class OptionValues:
    """Per legal option (a call or a card, in the view's order): the mean chance
    of finishing first and the mean round points over ``deals`` deals.

    >>> ov = OptionValues(options=(2, 3), win=(0.25, 0.3), points=(2.0, 2.6), deals=16)
    >>> ov.best
    1
    """

    options: tuple[int, ...] | tuple[Card, ...]
    win: tuple[float, ...]
    points: tuple[float, ...]
    deals: int

    @property
    def best(self) -> int:
        """Index of the option with the highest value (chance first plus the points' share)."""
        vals = [w + POINT_SHARE * p for w, p in zip(self.win, self.points)]
        return max(range(len(vals)), key=lambda i: (vals[i], -i))


class Evaluator:
    """`option_values` for many decisions in turn: one hard-level searcher kept
    between them, so what it works out once per round from the calls (the range of
    hands each call stands for) is not worked out again for every card.
    Its figures are those of `option_values`: the same view, budget and seed give
    the same values.

    >>> from callbreak import Match, Ruleset
    >>> m = Match(Ruleset.preset("quick"), seed=4)
    >>> for c in (2, 3, 2, 3):
    ...     _ = m.call(c)
    >>> e = Evaluator()
    >>> ov = e.values(m.view(m.to_act), budget=50, seed=2)
    >>> ov.options == m.view(m.to_act).legal_cards, ov.deals
    (True, 16)
    >>> e.values(m.view(m.to_act), budget=50, seed=2) == ov
    True
    >>> e.values(m.view((m.to_act + 1) % 4), budget=50, seed=2)
    Traceback (most recent call last):
    ...
    ValueError: seat 3 has nothing to decide now (phase 'playing', to act 2)
    """

    def __init__(self) -> None:
        # the hard level's settings; ``iterations`` is unused (the budget sizes the deals)
        self._bot = HardBot(seed=0, iterations=1)

    def values(self, view: SeatView, budget: int, seed: int) -> OptionValues:
        """Every legal option of ``view`` (its seat to act) valued on deals drawn from the view alone.

        Raises ValueError when the seat has nothing to decide or ``budget`` is below 1.
        """
        if budget < 1:
            raise ValueError("budget must be at least 1")
        if view.phase == "calling" and view.legal_calls:
            return _call_values(self._bot, view, budget, seed)
        if view.phase == "playing" and view.legal_cards:
            return _card_values(self._bot, view, budget, seed)
        raise ValueError(
            f"seat {view.seat} has nothing to decide now (phase {view.phase!r}, to act {view.to_act})"
        )


def option_values(view: SeatView, budget: int, seed: int) -> OptionValues:
    """Every legal option of ``view`` (its seat to act) valued on deals drawn from the
    view alone (`Evaluator.values` with a fresh searcher).

    Raises ValueError when the seat has nothing to decide or ``budget`` is below 1.

    >>> from callbreak import Match, Ruleset
    >>> m = Match(Ruleset.preset("quick"), seed=4)
    >>> for c in (2, 3, 2, 3):
    ...     _ = m.call(c)
    >>> ov = option_values(m.view(m.to_act), budget=50, seed=1)
    >>> len(ov.win) == len(ov.points) == len(ov.options) == 13, ov.deals  # at least MIN_DEALS
    (True, 16)
    >>> option_values(m.view(m.to_act), budget=0, seed=1)
    Traceback (most recent call last):
    ...
    ValueError: budget must be at least 1
    """
    return Evaluator().values(view, budget, seed)


def _n_deals(budget: int, options: int, scale: float = 1.0) -> int:
    return max(MIN_DEALS, min(MAX_DEALS, int(budget * scale) // max(options, 1)))


def _card_values(bot: HardBot, view: SeatView, budget: int, seed: int) -> OptionValues:
    legal = view.legal_cards
    k = Knowledge.from_view(view)
    # as the hard level sizes it: short playouts late in a round are cheap
    n = _n_deals(budget, len(legal), 52 / max(sum(view.hand_sizes), 4))
    deals = bot.card_deals(view, k, n, seed)
    valued = search_values(view, k, deals, seed, bot.rollouts, bot.eps, 0, bool(bot.mpol), bot.sd_scale)
    flat_view = dataclasses.replace(view, totals=None)
    flat = search_values(flat_view, k, deals, seed, bot.rollouts, bot.eps, 0, bool(bot.mpol), _FLAT_SD)
    return _summarise(legal, valued, flat, len(deals))


def _call_values(bot: HardBot, view: SeatView, budget: int, seed: int) -> OptionValues:

    cands = view.legal_calls
    k = Knowledge.from_view(view)
    steps = bot.call_refine if any(c is not None for c in view.calls) else 0
    deals = bot.deals(view, k, _n_deals(budget, len(cands)), seed, 1, steps, bot.call_keep)
    totals, sd = bot.match_stakes(view)
    valued = bot.call_table(view, deals, cands, totals, sd, seed)
    flat = bot.call_table(view, deals, cands, np.zeros(4), _FLAT_SD, seed)
    return _summarise(cands, valued, flat, len(deals))


def _summarise(
    options: tuple[int, ...] | tuple[Card, ...], valued: np.ndarray, flat: np.ndarray, deals: int
) -> OptionValues:
    points = (flat.mean(axis=0) - 0.125) / POINT_SHARE
    win = valued.mean(axis=0) - POINT_SHARE * points
    return OptionValues(
        options=options,
        win=tuple(min(max(float(w), 0.0), 1.0) for w in win),
        points=tuple(round(float(p), 6) for p in points),
        deals=deals,
    )
