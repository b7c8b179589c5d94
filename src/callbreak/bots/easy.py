"""The ``easy`` level: a simple rule player.

Calls the tricks it is fairly sure of (high trumps, long trumps, side aces,
half a guarded king); plays to win cheaply while it still needs tricks, and
otherwise sheds its lowest card.

>>> from callbreak import Match
>>> m = Match(seed=2)
>>> bots = [EasyBot(seed=s) for s in range(4)]
>>> while not m.is_over:
...     _ = m.act(bots[m.to_act].act(m.view(m.to_act)))
>>> m.is_over
True
"""

from __future__ import annotations

from ..cards import SUIT_MASKS, Card
from ..round import SeatView
from .base import Bot
from .knowledge import high_bit, low_bit

__all__ = ["EasyBot", "sure_tricks", "trick_winner"]


def sure_tricks(hand: int, trump: int) -> float:
    """A plain count of the tricks a hand should take.

    >>> from callbreak.cards import mask_of
    >>> sure_tricks(mask_of(["AS", "KS", "QS", "2S", "AH", "KD", "3D"]), 0)
    5.5
    """
    tv = (hand >> (13 * trump)) & 0x1FFF
    nt = tv.bit_count()
    count = 0.0
    count += tv >> 12 & 1
    count += 1 if (tv >> 11 & 1 and nt >= 2) else 0
    count += 1 if (tv >> 10 & 1 and nt >= 3) else 0
    count += max(nt - 3, 0)
    for s in range(4):
        if s == trump:
            continue
        v = (hand >> (13 * s)) & 0x1FFF
        n = v.bit_count()
        if v >> 12 & 1 and n <= 5:
            count += 1
        if v >> 11 & 1 and n >= 2:
            count += 0.5
    return count


def _beats(card: int, best: int, trump: int) -> bool:
    cs, bs = card // 13, best // 13
    if cs == bs:
        return card > best
    return cs == trump


def trick_winner(trick: tuple[tuple[int, Card], ...], trump: int) -> tuple[int, int]:
    """(seat, card) currently winning a non-empty trick.

    >>> from callbreak.cards import Card
    >>> trick = ((1, Card.parse("KH")), (2, Card.parse("AH")), (3, Card.parse("2S")))
    >>> seat, card = trick_winner(trick, trump=0)   # spades (suit 0) are trumps: the 2 cuts
    >>> seat, Card(card)
    (3, Card('2S'))
    >>> trick_winner(trick[:2], trump=0)[0]
    2
    """
    seat, best = trick[0][0], int(trick[0][1])
    for s, c in trick[1:]:
        if _beats(c, best, trump):
            seat, best = s, int(c)
    return seat, best


class EasyBot(Bot):
    """Counts sure tricks to call; wins cheaply while short, else plays low.

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> view = m.view(m.to_act)
    >>> bot = EasyBot(seed=1)
    >>> call = bot.act(view)
    >>> call in view.legal_calls, call == EasyBot(seed=1).act(view)
    (True, True)
    """

    name = "easy"

    def act(self, view: SeatView) -> int | Card:
        if view.phase == "calling":
            return self._call(view)
        return self._card(view)

    def _call(self, view: SeatView) -> int:
        hand = 0
        for c in view.hand:
            hand |= 1 << c
        n = round(sure_tricks(hand, view.rules.trump_index))
        return min(max(n, view.legal_calls[0]), view.legal_calls[-1])

    def _card(self, view: SeatView) -> Card:
        legal = view.legal_cards
        if len(legal) == 1:
            return legal[0]
        trump = view.rules.trump_index
        call = view.calls[view.seat] or 0
        need = call - view.tricks_won[view.seat]
        lmask = 0
        for c in legal:
            lmask |= 1 << c
        by_index = {int(c): c for c in legal}
        side = lmask & ~SUIT_MASKS[trump]
        if not view.trick:
            if need > 0:
                # lead the highest side card if it is an ace, else the lowest side card
                if side:
                    top = max((c for c in legal if c // 13 != trump), key=lambda c: c % 13)
                    if top % 13 == 12:
                        return top
                    return by_index[_lowest(side)]
                return by_index[high_bit(lmask)]
            return by_index[_lowest(side or lmask)]
        _, best = trick_winner(view.trick, trump)
        winners = [c for c in legal if _beats(c, best, trump)]
        if need > 0 and winners:
            return min(winners, key=lambda c: (c // 13 == trump, c % 13))
        losers = [c for c in legal if not _beats(c, best, trump)]
        pool = losers or legal
        return min(pool, key=lambda c: (c // 13 == trump, c % 13))


def _lowest(mask: int) -> int:
    """The lowest-ranked card of a mask (any suit)."""
    best = -1
    for s in range(4):
        v = mask & SUIT_MASKS[s]
        if v:
            c = low_bit(v)
            if best < 0 or c % 13 < best % 13:
                best = c
    return best
