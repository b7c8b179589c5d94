"""Hints for human players: a suggested call with its chance, or a suggested card.

>>> from callbreak import Round, Ruleset
>>> rnd = Round(Ruleset(), Round.deal_hands(seed=8), dealer=3)
>>> h = hint(rnd.view(0), level="medium")
>>> h.call in rnd.legal_calls() and 0.0 <= h.chance <= 1.0
True
>>> for n in (3, 3, 3, 3): _ = rnd.call(n)
>>> h = hint(rnd.view(0), level="medium")
>>> h.card in rnd.legal_cards(), h.reason != ""
(True, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..extras import need
from ..round import SeatView
from .base import Hint
from .calling import best_call, made_chance, trick_distribution
from .knowledge import Knowledge
from .medium import choose_card

if TYPE_CHECKING:
    from .warmup import Warmup

__all__ = ["hint"]

HINT_ITERATIONS = 3000


def _seed_of(view: SeatView) -> int:
    # the same view always gets the same hint
    h = 0
    for c in view.hand:
        h |= 1 << c
    return (h * 1_000_003 + len(view.played) * 7919 + view.seat) % (1 << 40)


def hint(view: SeatView, level: str = "hard", until_ready: Warmup | None = None) -> Hint:
    """The suggestion for the seat of ``view`` when it is its turn.

    In the calling phase: the level's call (the hard level's call search; the medium level's, of
    highest expected value under the calling model) and its chance of being made under that
    model.  In play: a legal card
    and why (`Hint.why`, worded by `Hint.say`).  ``level`` is ``"hard"`` (search) or ``"medium"``
    (rules of thumb, instant); ``level`` of the hint says which answered.

    Serving only, ``until_ready``: while that warm-up of the hard level's kernel
    (`callbreak.bots.warmup`) is not ready, a hard hint answers at once from the
    medium level and says so.  Raises ValueError when the seat has no turn.

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> h = hint(m.view(m.to_act))   # calling: the hard level's call, and its chance of being made
    >>> h.call in m.view(m.to_act).legal_calls, 0.0 < h.chance < 1.0, h.card, h.level
    (True, True, None, 'hard')
    >>> while m.round.phase == "calling":
    ...     _ = m.act(m.round.legal_calls()[0])
    >>> h = hint(m.view(m.to_act), level="medium")   # playing: a card and its reason
    >>> h.card, h.reason, h.level
    (Card('AH'), 'cash a sure winner', 'medium')
    >>> try:
    ...     hint(m.view((m.to_act + 1) % 4))
    ... except ValueError as e:
    ...     print("no turn")
    no turn
    """
    if level not in ("hard", "medium"):
        raise ValueError(f"hint level must be 'hard' or 'medium', not {level!r}")
    if view.phase == "calling" and view.legal_calls:
        dist = trick_distribution(view)
        model_call, chance = best_call(view, dist)
        call = model_call
        mean = sum(t * p for t, p in enumerate(dist))
        if level == "hard" and until_ready is not None and not until_ready.ready:
            until_ready.quick("a call hint")
            return Hint(call=call, chance=chance, why="call", level="medium", mean=mean, quick=True)
        if level == "hard":  # the hard level's own call, its search's (the calling model's best
            # call, which the medium level makes, was the analysis's "inaccuracy" after a Bengali
            # player followed it: `benchmarks/hint_calls.py`); no clock: a count of deals
            need("a hard hint", "bots")
            from .hard import HardBot

            bot = HardBot(seed=_seed_of(view))
            call = int(bot.act(view))
            # (its chance as the search found it: the calling model's, beside a call the search
            # put higher, said "Suggested: 4 · 15% chance to make it", a Hindi friend's try)
            chance = bot.made_rates.get(call, made_chance(call, dist, view.rules))
            if call > model_call and chance < 0.5:
                # (the search put the call above the calling model's best, to finish first, though
                # it is less likely made than not: a last round's long shot, said so; a low chance
                # of the model's own call, as under pagat's one overtrick, is no long shot)
                return Hint(call=call, chance=chance, why="call_first", level=level, mean=mean)
        return Hint(call=call, chance=chance, why="call", level=level, mean=mean)
    if view.phase == "playing" and view.legal_cards:
        k = Knowledge.from_view(view)
        card, why = choose_card(view, k)
        if level == "hard" and until_ready is not None and not until_ready.ready:
            until_ready.quick("a card hint")
            # (its wording puts the note first: a phone's one line of reason cut it off at its end)
            return Hint(card=card, why=why, level="medium", quick=True)
        if level == "hard" and len(view.legal_cards) > 1:
            need("a hard hint", "bots")
            from .hard import SERVING_TIME_LIMIT, HardBot

            best, _ = HardBot(
                seed=_seed_of(view), iterations=HINT_ITERATIONS, time_limit=SERVING_TIME_LIMIT
            ).choose(view)
            if best != card:
                return Hint(card=best, why="search", level=level, than=card)
        return Hint(card=card, why=why, level=level)
    raise ValueError(f"seat {view.seat} has nothing to do now (phase {view.phase!r}, to act {view.to_act})")
