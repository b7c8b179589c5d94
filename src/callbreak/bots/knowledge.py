"""What one seat can infer about the hidden cards, and deals consistent with it.

Everything here is computed from a `SeatView` alone: the seat's own hand, the
calls, and the cards played.  From the rules in force each play tells
something about the hand it came from:

* a seat that did not follow the led suit holds none of it (a void);
* void and not trumping, with no trump on the trick yet: holds no trump;
* void and not overtrumping: holds no trump above the top trump on the trick
  (none at all under ``must_undertrump`` when it played no trump);
* followed without heading under ``must_head``: nothing above the highest
  card of the led suit on the trick;
* led a trump where trump leads were not yet allowed: holds only trumps.

>>> from callbreak import Round, Ruleset
>>> rnd = Round(Ruleset(), Round.deal_hands(seed=3), dealer=3)
>>> for n in (3, 3, 3, 3): _ = rnd.call(n)
>>> k = Knowledge.from_view(rnd.view(0))
>>> k.unseen.bit_count(), k.sizes
(39, (13, 13, 13, 13))
>>> deal = k.sample(__import__("random").Random(1))
>>> [h.bit_count() for h in deal], deal[0] == k.hand
([13, 13, 13, 13], True)
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence

from ..cards import CARDS, FULL_DECK, SUIT_MASKS, Card
from ..round import SeatView
from ..rules import Ruleset

__all__ = ["Knowledge", "above", "high_bit", "low_bit"]


def above(card: int) -> int:
    """Mask of the cards of ``card``'s suit above it.

    >>> above(10) == (1 << 11) | (1 << 12)
    True
    """
    return SUIT_MASKS[card // 13] & ~((2 << card) - 1)


def low_bit(mask: int) -> int:
    """Index of the lowest card of a non-empty mask.

    >>> low_bit(0b1100)
    2
    """
    return (mask & -mask).bit_length() - 1


def high_bit(mask: int) -> int:
    """Index of the highest card of a non-empty mask.

    >>> high_bit(0b1100)
    3
    """
    return mask.bit_length() - 1


class Knowledge:
    """One seat's knowledge of a round in progress.

    ``cannot[s]`` is the mask of cards seat ``s`` is known not to hold (for
    the seat itself: everything outside its hand); ``unseen`` the cards
    neither in the seat's hand nor played; ``sizes`` the cards left per seat;
    ``impossible``: the first card played that its seat had shown it cannot hold
    (trick number, seat, card), None in every real round (a view read from
    outside, `callbreak.remote.codec`, is refused for one).

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> k = Knowledge.from_view(m.view(0))
    >>> bin(k.possible(0)).count("1"), bin(k.possible(1)).count("1")   # its own 13 cards; the 39 others
    (13, 39)
    """

    __slots__ = (
        "broken",
        "calls",
        "cannot",
        "hand",
        "impossible",
        "played",
        "played_by",
        "rules",
        "seat",
        "sizes",
        "trump",
        "unseen",
    )

    def __init__(
        self,
        seat: int,
        rules: Ruleset,
        hand: int,
        sizes: Sequence[int],
        calls: Sequence[int | None],
        tricks: Sequence[tuple[int, Sequence[int]]],
    ) -> None:
        self.seat = seat
        self.rules = rules
        self.hand = hand
        self.trump = rules.trump_index
        self.sizes = (sizes[0], sizes[1], sizes[2], sizes[3])
        self.calls = tuple(calls)
        cannot = [0, 0, 0, 0]
        played_by = [0, 0, 0, 0]
        played = 0
        t = self.trump
        tmask = SUIT_MASKS[t]
        must_head = rules.must_head
        head_after_cut = rules.head_after_cut
        undertrump = rules.must_undertrump
        broken = False
        impossible: tuple[int, int, int] | None = None
        for number, (leader, cards) in enumerate(tricks):
            if not cards:
                continue
            lead = cards[0]
            ls = lead // 13
            if ls == t:
                # a trump lead where trumps were not yet allowed: the hand held only trumps
                barred = (rules.trump_lead == "not_first_trick" and number == 0) or (
                    rules.trump_lead == "after_broken" and not broken
                )
                if barred:
                    cannot[leader] |= FULL_DECK & ~tmask
            best = lead
            top_trump = -1
            for i, c in enumerate(cards):
                s = (leader + i) & 3
                bit = 1 << c
                if impossible is None and cannot[s] & bit:
                    impossible = (number, s, c)
                played |= bit
                played_by[s] |= bit
                if i == 0:
                    if ls == t:
                        broken = True
                    continue
                cs = c // 13
                if cs == ls:
                    if c > best:
                        best = c
                    elif must_head and (top_trump < 0 or head_after_cut):
                        cannot[s] |= above(best)
                    continue
                cannot[s] |= SUIT_MASKS[ls]
                if cs == t:
                    broken = True
                    if top_trump >= 0 and c < top_trump:
                        cannot[s] |= above(top_trump)
                    if c > top_trump:
                        top_trump = c
                elif top_trump < 0:
                    cannot[s] |= tmask
                else:
                    cannot[s] |= tmask if undertrump else above(top_trump)
        self.broken = broken
        self.impossible = impossible
        self.played = played
        self.played_by = tuple(played_by)
        self.unseen = FULL_DECK & ~hand & ~played
        cannot[seat] = FULL_DECK & ~hand
        self.cannot = cannot

    @classmethod
    def from_view(cls, view: SeatView) -> Knowledge:
        hand = 0
        for c in view.hand:
            hand |= 1 << c
        tricks: list[tuple[int, Sequence[int]]] = [(t.leader, t.cards) for t in view.tricks]
        if view.trick:
            tricks.append((view.trick[0][0], [c for _, c in view.trick]))
        return cls(view.seat, view.rules, hand, view.hand_sizes, view.calls, tricks)

    # --- questions ------------------------------------------------------------
    def possible(self, seat: int) -> int:
        """The unseen cards ``seat`` may hold."""
        if seat == self.seat:
            return self.hand
        return self.unseen & ~self.cannot[seat]

    def void(self, seat: int, suit: int) -> bool:
        """Whether ``seat`` surely holds no card of ``suit``."""
        return not self.possible(seat) & SUIT_MASKS[suit]

    def outstanding(self, suit: int) -> int:
        """Unseen cards of ``suit`` (held by the other three seats)."""
        return self.unseen & SUIT_MASKS[suit]

    def is_boss(self, card: int) -> bool:
        """No unseen card of its suit is higher."""
        return not self.unseen & above(card)

    def has_deal(self) -> bool:
        """Whether some deal of the unseen cards gives every other seat its count of
        cards and none a card it cannot hold (Hall's condition: for each set of the
        other seats, the cards only they may hold are no more than they hold).

        >>> from callbreak import Match
        >>> k = Knowledge.from_view(Match(seed=3).view(0))
        >>> k.has_deal(), k.ruling_out(1, k.unseen).ruling_out(2, k.unseen).has_deal()
        (True, False)
        """
        others = [s for s in range(4) if s != self.seat]
        allowed = [self.unseen & ~self.cannot[s] for s in others]
        for subset in range(1, 8):
            inside = sum(self.sizes[others[i]] for i in range(3) if subset >> i & 1)
            outside = 0
            for i in range(3):
                if not subset >> i & 1:
                    outside |= allowed[i]
            if (self.unseen & ~outside).bit_count() > inside:
                return False
        return (allowed[0] | allowed[1] | allowed[2]) == self.unseen

    def ruling_out(self, seat: int, cards: int) -> Knowledge:
        """A copy that also knows ``seat`` holds none of ``cards`` (this one unchanged).

        >>> from callbreak import Match
        >>> k = Knowledge.from_view(Match(seed=3).view(0))
        >>> k2 = k.ruling_out(1, k.possible(1) & SUIT_MASKS[0])
        >>> k2.void(1, 0), k.void(1, 0)
        (True, False)
        """
        out = copy.copy(self)
        out.cannot = [c | cards if s == seat else c for s, c in enumerate(self.cannot)]
        return out

    # --- sampling -------------------------------------------------------------
    def sample(self, rng: random.Random) -> list[int]:
        """Four hand masks: this seat's hand and a random deal of the unseen cards
        to the others consistent with everything inferred."""
        me = self.seat
        others = [s for s in range(4) if s != me]
        for _ in range(24):
            deal = self._try_sample(rng, others)
            if deal is not None:
                return deal
        deal = self._exact_sample(rng, others)
        if deal is None:  # inconsistent knowledge: cannot happen for a real view
            raise ValueError("no deal is consistent with this view")
        return deal

    def _try_sample(self, rng: random.Random, others: list[int]) -> list[int] | None:
        need = [self.sizes[s] for s in range(4)]
        hands = [0, 0, 0, 0]
        hands[self.seat] = self.hand
        allowed = [self.unseen & ~self.cannot[s] for s in others]
        free = allowed[0] & allowed[1] & allowed[2]
        constrained = self.unseen & ~free
        # place the constrained cards first, fewest choices first
        cards: list[tuple[int, float, int]] = []
        m = constrained
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            n = (allowed[0] >> c & 1) + (allowed[1] >> c & 1) + (allowed[2] >> c & 1)
            cards.append((n, rng.random(), c))
        cards.sort()
        for _, _, c in cards:
            bit = 1 << c
            total = 0
            weights = [0, 0, 0]
            for i in range(3):
                if allowed[i] & bit and need[others[i]] > 0:
                    weights[i] = need[others[i]]
                    total += weights[i]
            if total == 0:
                return None
            r = rng.random() * total
            for i in range(3):
                if weights[i] and r < weights[i]:
                    break
                r -= weights[i]
            else:
                i = max(range(3), key=lambda j: weights[j])
            s = others[i]
            hands[s] |= bit
            need[s] -= 1
        rest = [CARDS[c] for c in _bits(free)]
        rng.shuffle(rest)
        pos = 0
        for s in others:
            n = need[s]
            if n < 0:
                return None
            for c in rest[pos : pos + n]:
                hands[s] |= 1 << c
            pos += n
        if pos != len(rest):
            return None
        return hands

    def _exact_sample(self, rng: random.Random, others: list[int]) -> list[int] | None:
        # depth-first search over the unseen cards: slow but always finds a deal
        need = {s: self.sizes[s] for s in others}
        allowed = {s: self.unseen & ~self.cannot[s] for s in others}
        cards = _bits(self.unseen)
        cards.sort(key=lambda c: (sum(allowed[s] >> c & 1 for s in others), rng.random()))
        hands = [0, 0, 0, 0]
        hands[self.seat] = self.hand

        def go(i: int) -> bool:
            if i == len(cards):
                return True
            c = cards[i]
            order = [s for s in others if allowed[s] >> c & 1 and need[s] > 0]
            rng.shuffle(order)
            for s in order:
                need[s] -= 1
                hands[s] |= 1 << c
                if go(i + 1):
                    return True
                need[s] += 1
                hands[s] &= ~(1 << c)
            return False

        return hands if go(0) else None


def _bits(mask: int) -> list[int]:
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def cards_mask(cards: Sequence[Card | int]) -> int:
    """The cards as a bit mask (bit ``int(card)`` set for each).

    >>> from callbreak.cards import Card
    >>> mask = cards_mask([Card.parse("AS"), Card.parse("2C")])
    >>> mask == 1 << int(Card.parse("AS")) | 1 << int(Card.parse("2C")), mask.bit_count(), cards_mask([])
    (True, 2, 0)
    """
    m = 0
    for c in cards:
        m |= 1 << c
    return m
