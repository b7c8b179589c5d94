"""The ``random`` level: a uniformly random legal action."""

from __future__ import annotations

from ..cards import Card
from ..round import SeatView
from .base import Bot


class RandomBot(Bot):
    """>>> from callbreak import Round, Ruleset
    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1))
    >>> RandomBot(seed=1).act(rnd.view(rnd.to_act)) in rnd.legal_calls()
    True
    """

    name = "random"

    def act(self, view: SeatView) -> int | Card:
        if view.phase == "calling":
            return self.rng.choice(view.legal_calls)
        return self.rng.choice(view.legal_cards)
