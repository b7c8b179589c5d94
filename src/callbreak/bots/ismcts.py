"""``spar-ismcts``: information-set Monte Carlo tree search with random playouts.

A sparring bot (`callbreak.bots.sparring`) with no model of anyone: each
iteration draws a deal of the unseen cards consistent with the view
(`kernel.sample_deals`, uniformly), walks one tree shared by all deals (single-observer
IS-MCTS: a node's children are the cards played next, by whichever seat; a
child's UCB counts the iterations in which its card was legal), adds one node,
plays the rest of the round out with uniformly random legal cards in the
compiled kernel (`kernel.random_rollout`), and credits each node with the
round score of the seat that played its card.  The card played most often at
the root is chosen.  It calls the ``easy`` level's count of sure tricks.

The work is ``iterations`` per card decision, so a seed gives the same play
on any machine.

>>> from callbreak import Match, Ruleset
>>> m = Match(Ruleset.preset("quick", rounds=1), seed=5)
>>> bots = [IsmctsBot(seed=s, iterations=30) for s in range(4)]
>>> while not m.is_over:
...     _ = m.act(bots[m.to_act].act(m.view(m.to_act)))
>>> m.is_over
True
"""

from __future__ import annotations

import math
import random

import numpy as np

from ..cards import Card
from ..round import SeatView
from ..scoring import score_tenths
from .base import Bot
from .easy import sure_tricks
from .knowledge import Knowledge

__all__ = ["IsmctsBot", "uniform_deals"]


def uniform_deals(k: Knowledge, n: int, rng: random.Random) -> list[list[int]]:
    """``n`` deals of the unseen cards, uniform over those the view allows (four hand
    masks each, this seat's own hand included; no weighting by the calls); a row of
    -1 where the compiled sampler gave up (`Knowledge.sample` then draws one exactly).

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> k = Knowledge.from_view(m.view(m.to_act))
    >>> deals = uniform_deals(k, 5, random.Random(1))
    >>> len(deals), all(d[k.seat] == k.hand and sum(bin(h).count("1") for h in d) == 52 for d in deals if d[0] >= 0)
    (5, True)
    """
    from . import kernel

    zeros = np.zeros(4, dtype=np.int64)
    rows: list[list[int]] = kernel.sample_deals(
        k.unseen,
        np.array(k.cannot, dtype=np.int64),
        np.array(k.sizes, dtype=np.int64),
        k.seat,
        k.hand,
        n,
        1,
        rng.randrange(1 << 40),
        np.zeros(18),
        zeros - 1,
        zeros,
        zeros,
        zeros,
        k.trump,
        0,
        13,
        1.0,
        0.0,
    ).tolist()
    return rows


class _Node:
    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class IsmctsBot(Bot):
    """Single-observer IS-MCTS, ``iterations`` per card, exploration ``c``.

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> while m.round.phase == "calling":
    ...     _ = m.act(m.round.legal_calls()[0])
    >>> view = m.view(m.to_act)
    >>> card = IsmctsBot(seed=1, iterations=20).act(view)
    >>> card in view.legal_cards, card == IsmctsBot(seed=1, iterations=20).act(view)
    (True, True)
    """

    name = "spar-ismcts"

    def __init__(self, seed: int | None = None, iterations: int = 100, c: float = 0.7) -> None:
        super().__init__(seed)
        if iterations < 1:
            raise ValueError("iterations must be at least 1")
        self.iterations = iterations
        self.c = c

    def act(self, view: SeatView) -> int | Card:
        if view.phase == "calling":
            hand = 0
            for card in view.hand:
                hand |= 1 << card
            n = round(sure_tricks(hand, view.rules.trump_index))
            return min(max(n, view.legal_calls[0]), view.legal_calls[-1])
        legal = view.legal_cards
        if len(legal) == 1:
            return legal[0]
        return self._search(view)

    def _search(self, view: SeatView) -> Card:
        from . import kernel

        rules = view.rules
        k = Knowledge.from_view(view)
        P = kernel.rules_array(rules)
        t = rules.trump_index
        calls = [c or 0 for c in view.calls]
        rng = np.array([self.rng.randrange(1 << 40)], dtype=np.int64)
        root = _Node()
        trick0 = [int(c) for _, c in view.trick]
        deals = uniform_deals(k, self.iterations, self.rng)
        for row in deals:
            hands = row if row[0] >= 0 else k.sample(self.rng)
            trick = np.zeros(4, dtype=np.int64)
            trick[: len(trick0)] = trick0
            n, leader, tn, played = len(trick0), view.leader, len(view.tricks), k.played
            won = list(view.tricks_won)
            node = root
            path: list[tuple[_Node, int]] = []
            while tn < 13:
                s = (leader + n) & 3
                moves = _bits(int(kernel.legal_mask(hands[s], trick, n, P, tn, played)))
                untried = [m for m in moves if m not in node.children]
                for m in moves:
                    if m in node.children:
                        node.children[m].avail += 1
                if untried:
                    m = self.rng.choice(untried)
                    child = node.children[m] = _Node()
                    child.avail = 1
                else:
                    m = max(moves, key=lambda m: self._ucb(node.children[m]))
                    child = node.children[m]
                path.append((child, s))
                trick[n] = m
                hands[s] ^= 1 << m
                played |= 1 << m
                n += 1
                if n == 4:
                    leader = (leader + int(kernel.trick_winner(trick, t))) & 3
                    won[leader] += 1
                    n, tn = 0, tn + 1
                    trick[:] = 0
                node = child
                if untried:
                    break
            if tn < 13:
                out = kernel.random_rollout(
                    np.array(hands, dtype=np.int64),
                    trick,
                    n,
                    leader,
                    np.array(won, dtype=np.int64),
                    tn,
                    played,
                    P,
                    rng,
                )
                won = [int(x) for x in out]
            reward = [score_tenths(calls[s], won[s], rules) / 100 for s in range(4)]
            for child, s in path:
                child.visits += 1
                child.total += reward[s]
        by_card = {int(c): c for c in view.legal_cards}
        best = max(by_card, key=lambda c: (root.children[c].visits if c in root.children else -1, -c))
        return by_card[best]

    def _ucb(self, node: _Node) -> float:
        return node.total / node.visits + self.c * math.sqrt(math.log(max(node.avail, 1)) / node.visits)
