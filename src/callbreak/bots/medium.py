"""The ``medium`` level: card counting, inferred voids, playing to its own call.

It calls with the calibrated trick distribution (`callbreak.bots.calling`),
then plays by rules of thumb on what it knows (`callbreak.bots.knowledge`):
cash sure winners while short of its call, draw trumps when it holds the top
ones, shed cards to make voids it can ruff into, win as cheaply as is safe,
keep its trumps, duck once the call is made when more tricks are worthless or
harmful (pagat's ``max_overtricks``), and take tricks from opponents who still
need them when that costs nothing.

>>> from callbreak import Match, Ruleset
>>> m = Match(Ruleset.preset("pagat", rounds=2), seed=4)
>>> bots = [MediumBot(seed=s) for s in range(4)]
>>> while not m.is_over:
...     _ = m.act(bots[m.to_act].act(m.view(m.to_act)))
>>> len(m.rounds) >= 2
True
"""

from __future__ import annotations

from ..cards import CARDS, SUIT_MASKS, Card
from ..round import SeatView
from .base import Bot
from .calling import best_call, trick_distribution
from .easy import trick_winner
from .knowledge import Knowledge, above

__all__ = ["WHY", "MediumBot", "choose_card"]

#: the reasons `choose_card` gives, as codes: the catalogues word each (``hint.why.<code>``;
#: in English, ``only_legal`` is "the only legal card")
#:
#: >>> len(WHY), WHY[0]
#: (17, 'only_legal')
WHY = (
    "only_legal",
    "cash_winner",
    "draw_trumps",
    "cash_top_trump",
    "shorten_suit",
    "lead_long_low",
    "trumps_only_low",
    "made_take_needed",
    "made_lead_loser",
    "win_cheap",
    "try_win",
    "cannot_win",
    "made_deny",
    "made_shed_high",
    "made_duck",
    "must_win_high",
    "must_head_low",
)


def _beats(card: int, best: int, trump: int) -> bool:
    cs, bs = card // 13, best // 13
    if cs == bs:
        return card > best
    return cs == trump


class _Ctx:
    """What the rules of thumb look at, computed once per decision."""

    def __init__(self, view: SeatView, k: Knowledge, greedy: bool = False) -> None:
        self.view = view
        self.k = k
        self.me = view.seat
        self.trump = view.rules.trump_index
        rules = view.rules
        call = view.calls[self.me] or 0
        won = view.tricks_won[self.me]
        self.need = call - won
        if rules.max_overtricks is not None:
            self.room = call + rules.max_overtricks - won  # tricks I may still take
        else:
            self.room = 99
        if greedy:
            self.need, self.room = 13, 99
        self.bust = self.room < 0
        self.opp_need = {s: (view.calls[s] or 0) - view.tricks_won[s] for s in range(4) if s != self.me}
        self.extra_value = rules.overtrick_tenths > 0 and rules.max_overtricks is None
        self.opp_trumps = k.unseen & SUIT_MASKS[self.trump]

    def may_trump(self, seat: int, suit: int) -> bool:
        """Whether ``seat`` might be void in ``suit`` and hold a trump."""
        k = self.k
        if not k.possible(seat) & SUIT_MASKS[self.trump]:
            return False
        if k.void(seat, suit):
            return True
        return (k.outstanding(suit) & k.possible(seat)).bit_count() <= 1

    def risk(self, card: int, later: list[int], led: int) -> int:
        """How many seats still to play might beat ``card`` (assumed winning now)."""
        k = self.k
        t = self.trump
        n = 0
        for s in later:
            poss = k.possible(s)
            if card // 13 == led:
                if poss & above(card) or (led != t and self.may_trump(s, led)):
                    n += 1
            elif poss & above(card) and (k.void(s, led) or self.may_trump(s, led)):
                n += 1  # a trump on a side suit, overtrumped by a seat void in the suit
        return n

    def safe_lead(self, card: int) -> bool:
        """A lead that should win: a top card that nobody can ruff."""
        k = self.k
        if not k.is_boss(card):
            return False
        suit = card // 13
        if suit == self.trump:
            return True
        return not any(self.may_trump(s, suit) for s in range(4) if s != self.me)


def _rank(c: int) -> int:
    return c % 13


def choose_card(view: SeatView, k: Knowledge | None = None, greedy: bool = False) -> tuple[Card, str]:
    """The medium level's card for ``view`` and why, as one of the codes `WHY` (for hints).

    ``greedy`` plays as if every trick were needed (used to measure a hand's
    trick potential when training the calling model).

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> while m.round.phase == "calling":
    ...     _ = m.act(m.round.legal_calls()[0])
    >>> view = m.view(m.to_act)
    >>> card, why = choose_card(view)
    >>> card, why, card in view.legal_cards
    (Card('AH'), 'cash_winner', True)
    """
    legal = view.legal_cards
    if len(legal) == 1:
        return legal[0], "only_legal"
    k = k or Knowledge.from_view(view)
    x = _Ctx(view, k, greedy)
    if not view.trick:
        c, why = _lead(x, [int(c) for c in legal])
    else:
        c, why = _follow(x, [int(c) for c in legal])
    return CARDS[c], why


def _lead(x: _Ctx, legal: list[int]) -> tuple[int, str]:
    k, t = x.k, x.trump
    side = [c for c in legal if c // 13 != t]
    trumps = [c for c in legal if c // 13 == t]
    if x.need > 0:
        safe = [c for c in side if x.safe_lead(c)]
        if safe:
            c = max(safe, key=lambda c: (k.outstanding(c // 13).bit_count(), _rank(c)))
            return c, "cash_winner"
        boss_t = [c for c in trumps if k.is_boss(c)]
        if boss_t and x.opp_trumps and (len(trumps) * 2 >= x.opp_trumps.bit_count() or len(trumps) >= x.need):
            return max(boss_t), "draw_trumps"
        if boss_t and not side:
            return max(boss_t), "cash_top_trump"
        if side:
            hand = k.hand
            if trumps:
                # a short side suit: lead it low to ruff it later
                short = [
                    c for c in side if (hand & SUIT_MASKS[c // 13]).bit_count() <= 2 and not k.is_boss(c)
                ]
                if short:
                    c = min(short, key=lambda c: ((hand & SUIT_MASKS[c // 13]).bit_count(), _rank(c)))
                    return c, "shorten_suit"
            # low from the longest side suit, keeping guarded honours
            c = max(side, key=lambda c: ((hand & SUIT_MASKS[c // 13]).bit_count(), -_rank(c)))
            suit_cards = [d for d in side if d // 13 == c // 13]
            return min(suit_cards), "lead_long_low"
        return min(trumps), "trumps_only_low"
    # the call is made: lose the lead unless taking tricks still pays
    if not x.bust and x.room > 0 and any(n > 0 for n in x.opp_need.values()):
        safe = [c for c in side if x.safe_lead(c)]
        if safe and x.extra_value:
            return max(safe, key=_rank), "made_take_needed"

    def danger(c: int) -> tuple[int, int]:
        higher = (k.unseen & above(c)).bit_count()
        return (-1 if c // 13 == t else 0) * 20 + higher, -_rank(c)

    c = max(legal, key=danger)
    return c, "made_lead_loser"


def _follow(x: _Ctx, legal: list[int]) -> tuple[int, str]:
    view, k, t = x.view, x.k, x.trump
    led = int(view.trick[0][1]) // 13
    wseat, best = trick_winner(view.trick, t)
    n_played = len(view.trick)
    later = [(x.me + i) & 3 for i in range(1, 4 - n_played)]
    winners = [c for c in legal if _beats(c, best, t)]
    losers = [c for c in legal if not _beats(c, best, t)]
    hand = k.hand

    def discard_key(c: int) -> tuple[int, int, int, int]:
        # cheapest to give away: not a trump, not a top card, from a short suit, low
        return (
            1 if c // 13 == t else 0,
            1 if k.is_boss(c) else 0,
            (hand & SUIT_MASKS[c // 13]).bit_count(),
            _rank(c),
        )

    if x.need > 0:
        if winners:
            risks = {c: x.risk(c, later, led) for c in winners}
            safe = [c for c in winners if risks[c] == 0]
            if safe:
                return min(safe, key=lambda c: (c // 13 == t, _rank(c))), "win_cheap"
            c = min(winners, key=lambda c: (risks[c], c // 13 == t, _rank(c)))
            return c, "try_win"
        return min(losers or legal, key=discard_key), "cannot_win"
    # made (or overshot): duck, unless winning denies an opponent at no risk
    avoid = x.room <= 0 or x.bust
    if not avoid and winners:
        needy = x.opp_need.get(wseat, 0) > 0 or any(x.opp_need[s] > 0 for s in later)
        if needy and x.room > 0:
            safe = [c for c in winners if x.risk(c, later, led) == 0]
            cheap = [c for c in safe if c // 13 != t or not losers]
            if cheap:
                return min(cheap, key=_rank), "made_deny"
    if losers:
        if avoid or not x.extra_value:
            # shed the most dangerous card that still loses
            c = max(losers, key=lambda c: (c // 13 == t, _rank(c)))
            return c, "made_shed_high"
        return min(losers, key=discard_key), "made_duck"
    if not later:
        return max(legal, key=lambda c: (c // 13 == t, _rank(c))), "must_win_high"
    return min(legal, key=lambda c: (c // 13 == t, _rank(c))), "must_head_low"


class MediumBot(Bot):
    """Card counting and rules of thumb; calls from the trick distribution.

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> view = m.view(m.to_act)
    >>> call = MediumBot(seed=1).act(view)
    >>> call in view.legal_calls, call == MediumBot(seed=2).act(view)   # rules of thumb: no randomness
    (True, True)
    """

    name = "medium"

    def act(self, view: SeatView) -> int | Card:
        if view.phase == "calling":
            call, _ = best_call(view, trick_distribution(view))
            return call
        return choose_card(view)[0]
