"""A sparring pool: bots of other styles than ours, to measure ``hard`` against.

``hard`` models the other seats as the ``medium`` level; against bots written
elsewhere it does less well.  These levels play in other ways, so that its
strength is measured against more than one kind of opponent
(``benchmarks/sparring.py``):

- ``spar-bold``: medium's play, calling one trick more than medium would;
- ``spar-timid``: medium's play, calling one trick fewer;
- ``spar-noisy``: medium with noise: one card in ten is a random legal card,
  and a third of its calls are one off medium's, up or down;
- ``spar-counter``: a greedy card counter: calls its aces, guarded kings and
  long trumps; wins every trick it can, with a card no unseen card beats when
  it holds one (it counts the cards played) and else its cheapest winner; leads
  its boss cards first; sheds its lowest card when it cannot win;
- ``spar-simple``: the simplest competent player: calls its aces and kings; plays
  the first card of its hand (in `Card` order) that wins the trick so far, else
  its first legal card.  The issue's "simple rule bot" is of this kind, so
  ``hard`` against three of these estimates that goal (≥ 92 %, ≥ 14 points a game);
- ``spar-simple-high``: ``spar-simple`` with its hand held the other way up in
  each suit (spades, hearts, diamonds, clubs, each from the ace down, as a hand is
  often shown): the first card that wins is its highest winner, and it leads and
  sheds its highest card.  The outside simple bot's hand order is not known, and
  this one wastes its high cards as a weaker simple player would;
- ``spar-simple-clubs``: ``spar-simple`` with the suits of its hand in bridge order
  (clubs, diamonds, hearts, spades), so that it leads and sheds from other suits
  first: a variant ``hard`` has no exact model of (held out);
- ``spar-pimc``: flat Monte Carlo over uniformly sampled deals with random
  playouts, the card of highest mean round score (`callbreak.bots.pimc`); calls
  as medium does: a searcher to tune against, while ``spar-ismcts`` is held out;
- ``spar-ismcts``: information-set Monte Carlo tree search with uniformly
  random playouts and no model of anyone (`callbreak.bots.ismcts`); calls the
  ``easy`` level's count of sure tricks.

``HELD_OUT`` (``spar-ismcts``, ``spar-timid``, ``spar-simple-clubs``) are kept out of all tuning of
``hard``: the figures against them are looked at last, as a test of what the
tuning did against opponents it was not tuned on.

>>> from callbreak import Match, Ruleset
>>> from callbreak.bots import make_bot
>>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
>>> bots = [make_bot(level, seed=s) for s, level in enumerate(["spar-bold", "spar-timid", "spar-noisy", "spar-counter"])]
>>> while not m.is_over:
...     _ = m.act(bots[m.to_act].act(m.view(m.to_act)))
>>> m.is_over
True
"""

from __future__ import annotations

from collections.abc import Callable

from ..cards import SUIT_MASKS, Card
from ..round import SeatView
from .base import Bot
from .calling import best_call, trick_distribution
from .easy import _beats, sure_tricks, trick_winner
from .knowledge import Knowledge, above
from .medium import choose_card

__all__ = ["HELD_OUT", "LEVELS", "BoldBot", "CounterBot", "NoisyBot", "SimpleBot", "SimpleClubsBot", "SimpleHighBot", "TimidBot"]

#: the sparring levels kept out of all tuning of ``hard`` (looked at last)
HELD_OUT = ("spar-ismcts", "spar-timid", "spar-simple-clubs")


def _clamp(call: int, view: SeatView) -> int:
    return min(max(call, view.legal_calls[0]), view.legal_calls[-1])


class _ShiftedCaller(Bot):
    """Medium's play, with medium's call moved by ``shift`` tricks."""

    shift = 0

    def act(self, view: SeatView) -> int | Card:
        if view.phase == "calling":
            call, _ = best_call(view, trick_distribution(view))
            return _clamp(call + self.shift, view)
        return choose_card(view)[0]


class BoldBot(_ShiftedCaller):
    """Medium's play; calls one trick more than medium.

    >>> from callbreak import Match
    >>> from callbreak.bots.medium import MediumBot
    >>> m = Match(seed=3)
    >>> view = m.view(m.to_act)
    >>> BoldBot(seed=1).act(view) - MediumBot(seed=1).act(view)
    1
    """

    name = "spar-bold"
    shift = 1


class TimidBot(_ShiftedCaller):
    """Medium's play; calls one trick fewer than medium.

    >>> from callbreak import Match
    >>> from callbreak.bots.medium import MediumBot
    >>> m = Match(seed=5)
    >>> view = m.view(m.to_act)
    >>> MediumBot(seed=1).act(view) - TimidBot(seed=1).act(view)
    1
    """

    name = "spar-timid"
    shift = -1


class NoisyBot(Bot):
    """Medium with noise: a random legal card with chance ``card_noise``, a call one
    off medium's (up or down) with chance ``call_noise``.

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> view = m.view(m.to_act)
    >>> calls = {NoisyBot(seed=s, call_noise=1.0).act(view) for s in range(8)}   # always one off
    >>> sorted(calls)
    [4, 6]
    """

    name = "spar-noisy"

    def __init__(self, seed: int | None = None, card_noise: float = 0.1, call_noise: float = 1 / 3) -> None:
        super().__init__(seed)
        self.card_noise = card_noise
        self.call_noise = call_noise

    def act(self, view: SeatView) -> int | Card:
        if view.phase == "calling":
            call, _ = best_call(view, trick_distribution(view))
            if self.rng.random() < self.call_noise:
                call += self.rng.choice((-1, 1))
            return _clamp(call, view)
        if self.rng.random() < self.card_noise:
            return self.rng.choice(view.legal_cards)
        return choose_card(view)[0]


class CounterBot(Bot):
    """A greedy card counter: wins every trick it can, with a boss card (one no
    unseen card of its suit beats) when it has one; leads boss cards first.

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> while m.round.phase == "calling":
    ...     _ = m.act(m.round.legal_calls()[0])
    >>> view = m.view(m.to_act)
    >>> CounterBot(seed=1).act(view) in view.legal_cards
    True
    """

    name = "spar-counter"

    def act(self, view: SeatView) -> int | Card:
        if view.phase == "calling":
            hand = 0
            for c in view.hand:
                hand |= 1 << c
            return _clamp(round(sure_tricks(hand, view.rules.trump_index)), view)
        return self._card(view)

    def _card(self, view: SeatView) -> Card:
        legal = view.legal_cards
        if len(legal) == 1:
            return legal[0]
        k = Knowledge.from_view(view)
        t = view.rules.trump_index

        def cost(c: Card) -> tuple[bool, int]:  # cheapest first: side suits, then low ranks
            return (c // 13 == t, c % 13)

        if not view.trick:
            # a side-suit boss card that no one is known to be void in, else any boss, else low
            bosses = [c for c in legal if k.is_boss(c)]
            side = [c for c in bosses if c // 13 != t and not k.unseen & _higher_threats(c, t, k)]
            if side:
                return max(side, key=lambda c: c % 13)
            if bosses:
                return max(bosses, key=lambda c: c % 13)
            return min(legal, key=cost)
        _, best = trick_winner(view.trick, t)
        beats = [c for c in legal if _beats(c, best, t)]
        if beats:
            if len(view.trick) == 3:
                return min(beats, key=cost)
            sure = [c for c in beats if not k.unseen & _higher_threats(c, t, k)]
            return min(sure or beats, key=cost)
        return min(legal, key=cost)


class SimpleBot(Bot):
    """Calls its aces and kings; plays the first card of its hand that wins the trick so
    far (the first legal card when none does, or when it leads).

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> view = m.view(m.to_act)
    >>> SimpleBot(seed=1).act(view) == min(max(sum(c % 13 >= 11 for c in view.hand), 1), 8)
    True
    >>> while m.round.phase == "calling":
    ...     _ = m.act(m.round.legal_calls()[0])
    >>> view = m.view(m.to_act)   # leading: its first legal card
    >>> SimpleBot(seed=1).act(view) == view.legal_cards[0]
    True
    """

    name = "spar-simple"

    @staticmethod
    def order(card: int) -> tuple[int, int]:
        """The order of its hand: `Card` order (spades, hearts, diamonds, clubs, each from the 2 up)."""
        return card // 13, card % 13

    def act(self, view: SeatView) -> int | Card:
        if view.phase == "calling":
            return _clamp(sum(c % 13 >= 11 for c in view.hand), view)  # K (11) and A (12)
        legal = sorted(view.legal_cards, key=self.order)
        if not view.trick:
            return legal[0]
        t = view.rules.trump_index
        _, best = trick_winner(view.trick, t)
        return next((c for c in legal if _beats(c, best, t)), legal[0])


class SimpleHighBot(SimpleBot):
    """`SimpleBot` with each suit of its hand from the ace down: its highest winner.

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> while m.round.phase == "calling":
    ...     _ = m.act(m.round.legal_calls()[0])
    >>> view = m.view(m.to_act)   # leading: the highest card of its first suit
    >>> card = SimpleHighBot(seed=1).act(view)
    >>> card.suit == view.legal_cards[0].suit and all(c <= card for c in view.legal_cards if c.suit == card.suit)
    True
    """

    name = "spar-simple-high"

    @staticmethod
    def order(card: int) -> tuple[int, int]:
        """Spades, hearts, diamonds, clubs, each from the ace down.

        >>> [str(Card(c)) for c in sorted(map(Card.parse, ["2S", "AS", "KH", "3D"]), key=SimpleHighBot.order)]
        ['AS', '2S', 'KH', '3D']
        """
        return card // 13, -(card % 13)


class SimpleClubsBot(SimpleBot):
    """`SimpleBot` with the suits of its hand in bridge order (clubs, diamonds, hearts,
    spades, each from the 2 up): its leads and discards come from another suit first.

    >>> [str(Card(c)) for c in sorted(map(Card.parse, ["2S", "AS", "KH", "3D"]), key=SimpleClubsBot.order)]
    ['3D', 'KH', '2S', 'AS']
    """

    name = "spar-simple-clubs"

    @staticmethod
    def order(card: int) -> tuple[int, int]:
        return 3 - card // 13, card % 13


def _higher_threats(card: int, trump: int, k: Knowledge) -> int:
    """The unseen cards that could beat ``card`` later in the trick: higher cards of
    its suit, and for a side card any trump while someone may be void in the suit."""
    threats = above(card)
    if card // 13 != trump and any(k.void(s, card // 13) for s in range(4) if s != k.seat):
        threats |= SUIT_MASKS[trump]
    return threats


def _pimc(seed: int | None) -> Bot:
    from ..extras import need

    need("the spar-pimc level", "bots")
    from .pimc import PimcBot

    return PimcBot(seed)


def _ismcts(seed: int | None) -> Bot:
    from ..extras import need

    need("the spar-ismcts level", "bots")
    from .ismcts import IsmctsBot

    return IsmctsBot(seed)


#: the sparring levels by name (`callbreak.bots.make_bot` knows them)
LEVELS: dict[str, Callable[[int | None], Bot]] = {
    "spar-bold": BoldBot,
    "spar-timid": TimidBot,
    "spar-noisy": NoisyBot,
    "spar-counter": CounterBot,
    "spar-simple": SimpleBot,
    "spar-simple-high": SimpleHighBot,
    "spar-simple-clubs": SimpleClubsBot,
    "spar-pimc": _pimc,
    "spar-ismcts": _ismcts,
}
