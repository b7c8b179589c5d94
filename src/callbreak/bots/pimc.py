"""``spar-pimc``: flat Monte Carlo over sampled deals, with random playouts.

A sparring bot (`callbreak.bots.sparring`) of the search kind, kept for tuning
(``spar-ismcts``, the other searcher, is held out): for each decision it draws
``deals`` deals of the unseen cards, uniform over those the view allows
(`ismcts.uniform_deals`), plays each legal card on each of them and the rest of
the round out with uniformly random legal cards (`kernel.random_rollout`, the
same deals and random numbers for every card), and plays the card of highest
mean round score for itself.  It models no one, and it plays to win tricks
wherever a random continuation says a trick is worth having.  It calls as
``medium`` does (the calling model's best call), so a match against it differs
from one against ``medium`` in the play alone.

The work is ``deals`` playouts per legal card, so a seed gives the same play on
any machine.

>>> from callbreak import Match, Ruleset
>>> m = Match(Ruleset.preset("quick", rounds=1), seed=5)
>>> bots = [PimcBot(seed=s, deals=8) for s in range(4)]
>>> while not m.is_over:
...     _ = m.act(bots[m.to_act].act(m.view(m.to_act)))
>>> m.is_over
True
"""

from __future__ import annotations

import numpy as np

from ..cards import Card
from ..round import SeatView
from ..scoring import score_tenths
from .base import Bot
from .calling import best_call, trick_distribution
from .ismcts import uniform_deals
from .knowledge import Knowledge

__all__ = ["PimcBot"]


class PimcBot(Bot):
    """Flat Monte Carlo: ``deals`` random playouts per legal card.

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> while m.round.phase == "calling":
    ...     _ = m.act(m.round.legal_calls()[0])
    >>> view = m.view(m.to_act)
    >>> card = PimcBot(seed=1, deals=10).act(view)
    >>> card in view.legal_cards, card == PimcBot(seed=1, deals=10).act(view)
    (True, True)
    >>> PimcBot(deals=0)
    Traceback (most recent call last):
    ...
    ValueError: deals must be at least 1
    """

    name = "spar-pimc"

    def __init__(self, seed: int | None = None, deals: int = 40) -> None:
        super().__init__(seed)
        if deals < 1:
            raise ValueError("deals must be at least 1")
        self.deals = deals

    def act(self, view: SeatView) -> int | Card:
        if view.phase == "calling":
            return best_call(view, trick_distribution(view))[0]
        legal = view.legal_cards
        if len(legal) == 1:
            return legal[0]
        return legal[int(np.argmax(self.values(view)))]

    def values(self, view: SeatView) -> list[float]:
        """The mean round score (in points) of each legal card of ``view``, in the
        order of ``view.legal_cards``, over the same deals and random numbers.

        >>> from callbreak import Match
        >>> m = Match(seed=3)
        >>> while m.round.phase == "calling":
        ...     _ = m.act(m.round.legal_calls()[0])
        >>> view = m.view(m.to_act)
        >>> values = PimcBot(seed=1, deals=10).values(view)
        >>> len(values) == len(view.legal_cards), all(-14 <= v <= 14 for v in values)
        (True, True)
        """
        from . import kernel

        rules = view.rules
        k = Knowledge.from_view(view)
        P = kernel.rules_array(rules)
        t = rules.trump_index
        me = view.seat
        calls = [c or 0 for c in view.calls]
        trick0 = [int(c) for _, c in view.trick]
        n0 = len(trick0)
        tn0 = len(view.tricks)
        won0 = list(view.tricks_won)
        streams = [self.rng.randrange(1 << 40) for _ in range(self.deals)]
        rows = uniform_deals(k, self.deals, self.rng)
        totals = [0.0] * len(view.legal_cards)
        for row, stream in zip(rows, streams):
            deal = np.array(row if row[0] >= 0 else k.sample(self.rng), dtype=np.int64)
            for i, card in enumerate(view.legal_cards):
                c = int(card)
                hands = deal.copy()
                hands[me] ^= 1 << c
                trick = np.zeros(4, dtype=np.int64)
                trick[:n0] = trick0
                trick[n0] = c
                won = np.array(won0, dtype=np.int64)
                n, leader, tn = n0 + 1, view.leader, tn0
                if n == 4:
                    leader = (leader + int(kernel.trick_winner(trick, t))) & 3
                    won[leader] += 1
                    n, tn = 0, tn + 1
                    trick[:] = 0
                if tn < 13:
                    rng = np.array([stream], dtype=np.int64)
                    won = kernel.random_rollout(hands, trick, n, leader, won, tn, k.played | (1 << c), P, rng)
                totals[i] += score_tenths(calls[me], int(won[me]), rules) / 10
        return [x / len(rows) for x in totals]
