"""One deal of Callbreak: four calls and thirteen tricks.

The state is a handful of ints: each hand is a 52-bit mask, legal cards are
found with a few mask operations, and `Round.pop` undoes the last action so a
search can walk the game tree without copying.

>>> from callbreak import Round, Ruleset, Card
>>> rnd = Round(Ruleset(), hands=Round.deal_hands(seed=1), dealer=3)
>>> rnd.phase, rnd.to_act
('calling', 0)
>>> for n in (3, 2, 4, 3):
...     _ = rnd.call(n)
>>> rnd.phase, rnd.to_act, rnd.calls
('playing', 0, [3, 2, 4, 3])
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar

from .cards import (
    CARDS,
    FACE_MASK,
    FULL_DECK,
    SUIT_MASKS,
    SUIT_NAMES,
    Card,
    cards_of,
    mask_of,
    to_card,
)
from .errors import IllegalAction
from .rules import Ruleset
from .scoring import score_tenths, tenths_to_points

__all__ = [
    "CALLING",
    "OVER",
    "PLAYING",
    "REDEAL",
    "Action",
    "CallAction",
    "PlayAction",
    "Round",
    "SeatView",
    "Trick",
    "lowest_action",
    "lowest_card",
    "trick_winner",
    "whole_call",
]

_T = TypeVar("_T")

CALLING = "calling"
PLAYING = "playing"
REDEAL = "redeal"
OVER = "over"


@dataclass(frozen=True, slots=True)
class CallAction:
    """A call made: the record `Round.call` returns and the log keeps.

    >>> str(CallAction(seat=2, call=4))
    'seat 2 calls 4'
    """

    seat: int
    call: int

    def __str__(self) -> str:
        return f"seat {self.seat} calls {self.call}"


@dataclass(frozen=True, slots=True)
class PlayAction:
    """A card played; ``winner`` is set when this card completed a trick.

    >>> str(PlayAction(1, Card.parse("AS"), winner=1))
    'seat 1 plays AS; seat 1 wins the trick'
    """

    seat: int
    card: Card
    winner: int | None = None

    def __str__(self) -> str:
        s = f"seat {self.seat} plays {self.card}"
        return s + (f"; seat {self.winner} wins the trick" if self.winner is not None else "")


Action = CallAction | PlayAction


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick: who led, the four cards in order of play, who won.

    >>> t = Trick(2, (Card.parse("5H"), Card.parse("9H"), Card.parse("2S"), Card.parse("AH")), winner=0)
    >>> t.seat_of(2), t.by_seat()[0]
    (0, Card('2S'))
    """

    leader: int
    cards: tuple[Card, Card, Card, Card]
    winner: int

    def seat_of(self, i: int) -> int:
        """The seat that played the ``i``-th card (0 = the leader).

        >>> Trick(3, tuple(Card.parse(c) for c in ("2C", "3C", "4C", "5C")), 3).seat_of(1)
        0
        """
        return (self.leader + i) % 4

    def by_seat(self) -> list[Card]:
        """The card each seat played, indexed by seat.

        >>> Trick(3, tuple(Card.parse(c) for c in ("2C", "3C", "4C", "5C")), 3).by_seat()
        [Card('3C'), Card('4C'), Card('5C'), Card('2C')]
        """
        out = [self.cards[0]] * 4
        for i, c in enumerate(self.cards):
            out[(self.leader + i) % 4] = c
        return out


def whole_call(n: object) -> int | None:
    """``n`` as a call's whole number, or None where it is not one: an ``int``, or any
    integer type (NumPy's, from a policy's ``argmax``), but not a bool, a card or text.

    >>> whole_call(3), whole_call(True), whole_call(3.0), whole_call("3")
    (3, None, None, None)
    """
    if isinstance(n, (bool, str, Card)):
        return None
    try:
        return operator.index(n)  # type: ignore[arg-type]
    except TypeError:
        return None


@dataclass(frozen=True, slots=True)
class SeatView:
    """All that one seat may know of a round: never another seat's unplayed card.

    >>> v = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3).view(0)
    >>> v.my_turn, len(v.hand), v.legal_calls[:3], v.played
    (True, 13, (1, 2, 3), [])
    """

    seat: int
    rules: Ruleset
    dealer: int
    phase: str
    to_act: int | None
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, int, int, int]
    calls: tuple[int | None, ...]
    tricks_won: tuple[int, ...]
    leader: int
    trick: tuple[tuple[int, Card], ...]
    tricks: tuple[Trick, ...]
    legal_calls: tuple[int, ...]
    legal_cards: tuple[Card, ...]
    points: tuple[Decimal, ...] | None
    # filled by Match.view; zeros/None for a lone Round
    totals: tuple[Decimal, ...] | None = None
    round_number: int = 1
    rounds: int | None = None
    sudden_death: bool = False

    @property
    def my_turn(self) -> bool:
        """Whether this seat is the one to act.

        >>> Round(Ruleset(), Round.deal_hands(seed=1), dealer=3).view(1).my_turn
        False
        """
        return self.to_act == self.seat

    def why_illegal(self, action: int | Card) -> str | None:
        """Why this seat may not make ``action`` now (a call, or a `Card`), in the words the
        engine refuses it with; None when it may.  From the view alone: what a bot's checker
        tells the bot.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3)
        >>> for n in (1, 1, 1, 1): _ = rnd.call(n)
        >>> _ = rnd.play(Card.parse("2C"))
        >>> v = rnd.view(rnd.to_act)
        >>> v.why_illegal(v.legal_cards[0]) is None, v.why_illegal(0)
        (True, "no call now: the round is in phase 'playing'")
        >>> [v.why_illegal(c) for c in v.hand if c.suit != "C"][:1]
        ['you must follow clubs']
        """
        if isinstance(action, Card):
            if self.phase != PLAYING or not self.my_turn:
                return f"no card now: {f'the round is in phase {self.phase!r}' if self.phase != PLAYING else 'not your turn'}"
            if action not in self.hand:
                return f"seat {self.seat} does not hold {action}"
            if action in self.legal_cards:
                return None
            trick = [int(c) for _, c in self.trick]
            return _why_illegal(int(action), trick, mask_of(self.hand), mask_of(self.legal_cards), self.rules)
        if self.phase != CALLING or not self.my_turn:
            return f"no call now: {f'the round is in phase {self.phase!r}' if self.phase != CALLING else 'not your turn'}"
        if whole_call(action) is None:  # (as `Round.call` refuses it)
            return f"a call is a whole number, not {action!r}"
        if action in self.legal_calls:
            return None
        return f"calls are {self.rules.min_call} to {self.rules.max_call}"

    @property
    def played(self) -> list[Card]:
        """Every card played this round, trick by trick, current trick last.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3)
        >>> for n in (1, 1, 1, 1): _ = rnd.call(n)
        >>> _ = rnd.play(rnd.legal_cards()[0])
        >>> rnd.view(2).played == rnd.trick
        True
        """
        out = [c for t in self.tricks for c in t.cards]
        out.extend(c for _, c in self.trick)
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form: cards as text (``AS``), points as strings.

        >>> d = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3).view(0).to_dict()
        >>> d["phase"], len(d["hand"]), d["to_act"], d["rules"]["trump"]
        ('calling', 13, 0, 'S')
        """
        return {
            "seat": self.seat,
            "rules": self.rules.to_dict(),
            "dealer": self.dealer,
            "phase": self.phase,
            "to_act": self.to_act,
            "hand": [str(c) for c in self.hand],
            "hand_sizes": list(self.hand_sizes),
            "calls": list(self.calls),
            "tricks_won": list(self.tricks_won),
            "leader": self.leader,
            "trick": [[s, str(c)] for s, c in self.trick],
            "tricks": [
                {"leader": t.leader, "cards": [str(c) for c in t.cards], "winner": t.winner}
                for t in self.tricks
            ],
            "legal_calls": list(self.legal_calls),
            "legal_cards": [str(c) for c in self.legal_cards],
            "points": None if self.points is None else [str(p) for p in self.points],
            "totals": None if self.totals is None else [str(p) for p in self.totals],
            "round_number": self.round_number,
            "rounds": self.rounds,
            "sudden_death": self.sudden_death,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SeatView:
        """Inverse of `to_dict` (a bot worker on another host rebuilds the view it was sent);
        KeyError, TypeError or ValueError for a malformed one.

        >>> from callbreak import Match
        >>> m = Match(Ruleset.preset("pagat"), seed=5)
        >>> for _ in range(9):
        ...     v = m.view(m.to_act)
        ...     _ = m.act(v.legal_calls[0] if v.phase == "calling" else v.legal_cards[0])
        >>> v = m.view(m.to_act)
        >>> SeatView.from_dict(v.to_dict()) == v
        True
        """
        points, totals = d["points"], d["totals"]
        return cls(
            seat=int(d["seat"]),
            rules=Ruleset.from_dict(d["rules"]),
            dealer=int(d["dealer"]),
            phase=str(d["phase"]),
            to_act=None if d["to_act"] is None else int(d["to_act"]),
            hand=tuple(Card.parse(c) for c in d["hand"]),
            hand_sizes=_four(int(n) for n in d["hand_sizes"]),
            calls=tuple(None if c is None else int(c) for c in d["calls"]),
            tricks_won=tuple(int(n) for n in d["tricks_won"]),
            leader=int(d["leader"]),
            trick=tuple((int(s), Card.parse(c)) for s, c in d["trick"]),
            tricks=tuple(
                Trick(int(t["leader"]), _four(Card.parse(c) for c in t["cards"]), int(t["winner"])) for t in d["tricks"]
            ),
            legal_calls=tuple(int(n) for n in d["legal_calls"]),
            legal_cards=tuple(Card.parse(c) for c in d["legal_cards"]),
            points=None if points is None else tuple(Decimal(p) for p in points),
            totals=None if totals is None else tuple(Decimal(p) for p in totals),
            round_number=int(d["round_number"]),
            rounds=None if d["rounds"] is None else int(d["rounds"]),
            sudden_death=bool(d["sudden_death"]),
        )


def trick_winner(leader: int, cards: Sequence[int], trump: int) -> int:
    """The seat that wins a whole trick: ``cards`` (ints or `Card`) in the order played from
    ``leader``'s; the highest trump, else the highest card of the suit led (``trump``: the trump
    suit's index). The one copy of the rule (the round, the Bhoos protocol's reader).

    >>> trick_winner(1, [Card.parse(c) for c in ("QH", "AH", "2S", "KD")], trump=0)
    3
    >>> trick_winner(1, [Card.parse(c) for c in ("QH", "AH", "3H", "KD")], trump=0)
    2
    """
    best = cards[0]
    bi = 0
    for i in (1, 2, 3):
        x = cards[i]
        if x // 13 == best // 13:
            if x > best:
                best = x
                bi = i
        elif x // 13 == trump:
            best = x
            bi = i
    return (leader + bi) & 3


def lowest_card(cards: Iterable[Card], trump: int) -> Card:
    """The lowest legal card, the one a turn timer plays (the server, the remote client's
    fallback, the terminal all use this one): the lowest-ranked card that is not a trump,
    among equal ranks the first suit in S, H, D, C order; a trump only when all are trumps.

    >>> str(lowest_card([Card.parse("2S"), Card.parse("5H"), Card.parse("3D")], trump=0))
    '3D'
    >>> str(lowest_card([Card.parse("9S"), Card.parse("4S")], trump=0))
    '4S'
    >>> str(lowest_card([Card.parse("3C"), Card.parse("3H")], trump=0))
    '3H'
    """
    return min(cards, key=lambda c: (c.suit_index == trump, c.rank, c.suit_index))


def lowest_action(view: SeatView) -> int | Card:
    """What a seat does when its turn runs out or its bot fails: the lowest legal call,
    or the `lowest_card` of its legal cards.  ValueError when the seat has nothing to do.

    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3)
    >>> lowest_action(rnd.view(0))
    1
    >>> for n in (3, 3, 3, 3): _ = rnd.call(n)
    >>> v = rnd.view(rnd.to_act)
    >>> lowest_action(v) == lowest_card(v.legal_cards, v.rules.trump_index)
    True
    """
    if view.phase == CALLING and view.legal_calls:
        return min(view.legal_calls)
    if view.phase == PLAYING and view.legal_cards:
        return lowest_card(view.legal_cards, view.rules.trump_index)
    raise ValueError(f"seat {view.seat} has nothing to do now (phase {view.phase!r})")


# Caches for the hot path: the card indexes of one suit's 13-bit chunk of a mask (ints, not
# `Card` objects: a tuple of ints is one the garbage collector stops tracking, and this cache
# grows to 32,764 of them), and the (immutable) PlayAction records, shared between rounds.
_CHUNKS: dict[int, tuple[int, ...]] = {}
_CARD_AT = CARDS.__getitem__
_PLAYS: dict[int, PlayAction] = {}


def _four(items: Iterable[_T]) -> tuple[_T, _T, _T, _T]:
    """Exactly four items (a trick's cards, the hands' sizes); ValueError otherwise."""
    a, b, c, d = items
    return a, b, c, d


def _suit_word(suit: int) -> str:
    return SUIT_NAMES[suit]


def _why_illegal(c: int, trick: Sequence[int], hand: int, legal: int, rules: Ruleset) -> str:
    """Why card ``c`` may not be played now by a seat holding ``hand`` (a mask) whose legal
    cards are ``legal`` (a mask), ``trick`` being the cards on the table from the lead: the
    words `Round.play` refuses it with, and `SeatView.why_illegal`'s."""
    trump = rules.trump_index
    if not trick:
        if rules.trump_lead == "not_first_trick":
            return f"{_suit_word(trump)} may not be led to the first trick"
        return f"{_suit_word(trump)} may not be led until one has been played"
    ls = trick[0] // 13
    if legal & SUIT_MASKS[ls]:
        if c // 13 != ls:
            return f"you must follow {_suit_word(ls)}"
        return f"you must head the trick with a higher {_suit_word(ls)[:-1]}"
    if SUIT_MASKS[trump] & hand:
        if any(x // 13 == trump for x in trick) and legal & ~SUIT_MASKS[trump] == 0:
            if c // 13 == trump:
                return f"you must overtrump with a higher {_suit_word(trump)[:-1]}"
            return f"you must play a {_suit_word(trump)[:-1]}"
        return f"you are void in {_suit_word(ls)} and must play a {_suit_word(trump)[:-1]}"
    return "not a legal card now"


class Round:
    """A deal in progress.  Seats 0..3 are in order of play; ``dealer + 1`` calls first.

    ``hands`` is four lists of 13 cards (`Card`, index or text), or four
    52-bit masks (as `hand_masks` gives them).  A deal the
    ruleset rejects (``redeal_without_trump``, ``redeal_without_face_card``)
    starts in phase ``"redeal"``.  Without hands, the deal is `deal_hands`' from ``seed``
    (an int or a `random.Random`; None: unseeded).

    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=3), dealer=0)
    >>> rnd.to_act, rnd.legal_calls()[:3]
    (1, [1, 2, 3])
    >>> Round(seed=3, dealer=2).hand_masks == Round(hands=Round.deal_hands(3, 2), dealer=2).hand_masks
    True
    """

    __slots__ = (
        "_calls",
        "_deal",
        "_hands",
        "_leader",
        "_legal",
        "_log",
        "_phase",
        "_played",
        "_to_act",
        "_trick",
        "_tricks",
        "_trump",
        "_trump_mask",
        "_won",
        "dealer",
        "on_end",
        "rules",
    )

    rules: Ruleset
    dealer: int
    on_end: Callable[[Round], None] | None

    def __init__(
        self,
        rules: Ruleset | None = None,
        hands: Sequence[Iterable[Card | int | str] | int] | None = None,
        dealer: int = 0,
        seed: random.Random | int | None = None,
    ) -> None:
        if rules is None:
            rules = Ruleset()
        if not isinstance(rules, Ruleset):
            raise ValueError(f"rules must be a Ruleset, not {type(rules).__name__}")
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer <= 3:
            raise ValueError(f"dealer must be a seat 0..3, not {dealer!r}")
        if hands is None:
            hands = Round.deal_hands(seed, dealer)
        elif seed is not None:
            raise ValueError("give the hands or a seed to deal them from, not both")
        masks = _validate_hands(hands)
        self.rules = rules
        self.dealer = dealer
        self._deal = tuple(masks)
        self._hands = list(masks)
        self._calls: list[int | None] = [None, None, None, None]
        self._won = [0, 0, 0, 0]
        self._trick: list[int] = []
        self._leader = (dealer + 1) & 3
        self._to_act: int | None = self._leader
        self._phase = CALLING
        self._tricks: list[tuple[int, tuple[int, int, int, int], int]] = []
        self._played = 0
        self._log: list[tuple[int, int, int]] = []  # (kind 0 call / 1 play, seat, value)
        self._legal = -1
        self._trump = rules.trump_index
        self._trump_mask = SUIT_MASKS[self._trump]
        self.on_end = None
        if (rules.redeal_without_trump and any(not m & self._trump_mask for m in masks)) or (
            rules.redeal_without_face_card and any(not m & FACE_MASK for m in masks)
        ):
            self._phase = REDEAL
            self._to_act = None

    # --- dealing ------------------------------------------------------------
    @staticmethod
    def deal_hands(seed: random.Random | int | None = None, dealer: int = 0) -> list[list[Card]]:
        """Shuffle and deal one card at a time from the seat after ``dealer``.

        ``seed`` is an int or a `random.Random` to draw from.

        >>> [len(h) for h in Round.deal_hands(seed=5)]
        [13, 13, 13, 13]
        """
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        deck = list(CARDS)
        rng.shuffle(deck)
        first = (dealer + 1) & 3
        hands: list[list[Card]] = [[], [], [], []]
        for i, c in enumerate(deck):
            hands[(first + i) & 3].append(c)
        return [sorted(h) for h in hands]

    # --- public state -------------------------------------------------------
    @property
    def phase(self) -> str:
        """``calling``, ``playing``, ``redeal`` or ``over``.

        >>> Round(Ruleset(), Round.deal_hands(seed=1)).phase
        'calling'
        """
        return self._phase

    @property
    def to_act(self) -> int | None:
        """The seat whose turn it is; None when the round is over (or must be redealt).

        >>> Round(Ruleset(), Round.deal_hands(seed=1), dealer=2).to_act
        3
        """
        return self._to_act

    @property
    def hands(self) -> list[list[Card]]:
        """Each seat's unplayed cards, sorted by suit (S H D C) and rank.

        >>> [len(h) for h in Round(Ruleset(), Round.deal_hands(seed=1)).hands]
        [13, 13, 13, 13]
        """
        return [cards_of(m) for m in self._hands]

    @property
    def hand_masks(self) -> tuple[int, int, int, int]:
        """Each seat's unplayed cards as a 52-bit mask.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1))
        >>> cards_of(rnd.hand_masks[0]) == rnd.hands[0]
        True
        """
        h = self._hands
        return (h[0], h[1], h[2], h[3])

    @property
    def dealt(self) -> list[list[Card]]:
        """The thirteen cards each seat was dealt.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1))
        >>> rnd.playout(random.Random(1)); rnd.hands[0], len(rnd.dealt[0])
        ([], 13)
        """
        return [cards_of(m) for m in self._deal]

    @property
    def calls(self) -> list[int | None]:
        """Each seat's call, None until made.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3); _ = rnd.call(4); rnd.calls
        [4, None, None, None]
        """
        return list(self._calls)

    @property
    def tricks_won(self) -> list[int]:
        """Tricks each seat has taken so far.

        >>> Round(Ruleset(), Round.deal_hands(seed=1)).tricks_won
        [0, 0, 0, 0]
        """
        return list(self._won)

    @property
    def trick(self) -> list[Card]:
        """Cards on the table in the current trick, in order of play.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3)
        >>> for n in (1, 1, 1, 1): _ = rnd.call(n)
        >>> c = rnd.legal_cards()[0]; _ = rnd.play(c); rnd.trick == [c], rnd.trick_seats == [(0, c)]
        (True, True)
        """
        return [CARDS[c] for c in self._trick]

    @property
    def trick_seats(self) -> list[tuple[int, Card]]:
        """The current trick as ``(seat, card)`` pairs (see `trick`).

        >>> Round(Ruleset(), Round.deal_hands(seed=1)).trick_seats
        []
        """
        lead = self._leader
        return [((lead + i) & 3, CARDS[c]) for i, c in enumerate(self._trick)]

    @property
    def leader(self) -> int:
        """The seat that led (or will lead) the current trick.

        >>> Round(Ruleset(), Round.deal_hands(seed=1), dealer=1).leader
        2
        """
        return self._leader

    @property
    def tricks(self) -> list[Trick]:
        """The finished tricks, in order.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3); rnd.playout(random.Random(2))
        >>> len(rnd.tricks), rnd.tricks[0].leader, rnd.trick_number
        (13, 0, 13)
        """
        return [Trick(l, (CARDS[a], CARDS[b], CARDS[c], CARDS[d]), w) for l, (a, b, c, d), w in self._tricks]

    @property
    def last_trick(self) -> Trick | None:
        """The trick finished last (None before the first): ``tricks[-1]`` without building the others.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3); rnd.last_trick is None
        True
        >>> rnd.playout(random.Random(2)); rnd.last_trick == rnd.tricks[-1]
        True
        """
        if not self._tricks:
            return None
        lead, (a, b, c, d), w = self._tricks[-1]
        return Trick(lead, (CARDS[a], CARDS[b], CARDS[c], CARDS[d]), w)

    @property
    def trick_number(self) -> int:
        """0..12: the index of the trick in progress (13 when over).

        >>> Round(Ruleset(), Round.deal_hands(seed=1)).trick_number
        0
        """
        return len(self._tricks)

    @property
    def played_mask(self) -> int:
        """Every card played so far this round, as a mask.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1)); rnd.playout(random.Random(1))
        >>> rnd.played_mask == FULL_DECK
        True
        """
        return self._played

    @property
    def actions(self) -> list[Action]:
        """Every action so far, in order: the round's log.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3); _ = rnd.call(2)
        >>> rnd.actions, len(rnd)
        ([CallAction(seat=0, call=2)], 1)
        """
        out: list[Action] = []
        tricks = iter(self._tricks)
        n_in_trick = 0
        for kind, seat, value in self._log:
            if kind == 0:
                out.append(CallAction(seat, value))
            else:
                n_in_trick += 1
                winner = None
                if n_in_trick == 4:
                    n_in_trick = 0
                    winner = next(tricks)[2]
                out.append(PlayAction(seat, CARDS[value], winner))
        return out

    def __len__(self) -> int:
        """Number of actions taken."""
        return len(self._log)

    # --- calling ------------------------------------------------------------
    def legal_calls(self) -> list[int]:
        """The calls the seat to act may make (empty outside the calling phase).

        >>> Round(Ruleset(max_call=4), Round.deal_hands(seed=1)).legal_calls()
        [1, 2, 3, 4]
        """
        if self._phase != CALLING:
            return []
        return list(range(self.rules.min_call, self.rules.max_call + 1))

    def call(self, n: int) -> CallAction:
        """The seat to act calls ``n`` tricks.

        >>> rnd = Round(Ruleset.preset("pagat"), Round.deal_hands(seed=1))
        >>> rnd.call(1)
        Traceback (most recent call last):
        ...
        callbreak.errors.IllegalAction: seat 1 cannot call 1: calls are 2 to 12
        """
        if self._phase != CALLING:
            raise IllegalAction(f"no call now: the round is in phase {self._phase!r}")
        seat = self._to_act
        assert seat is not None
        whole = whole_call(n)
        if whole is None:
            raise IllegalAction(f"a call is a whole number, not {n!r}")
        n = whole
        r = self.rules
        if not r.min_call <= n <= r.max_call:
            raise IllegalAction(f"seat {seat} cannot call {n}: calls are {r.min_call} to {r.max_call}")
        self._do_call(seat, n)
        return CallAction(seat, n)

    def _do_call(self, seat: int, n: int) -> None:
        self._calls[seat] = n
        self._log.append((0, seat, n))
        if seat == self.dealer:
            self._to_act = self._leader
            total = sum(c for c in self._calls if c is not None)
            if total < self.rules.min_total_calls:
                self._phase = REDEAL
                self._to_act = None
                if self.on_end is not None:
                    self.on_end(self)
            else:
                self._phase = PLAYING
                self._legal = -1
        else:
            self._to_act = (seat + 1) & 3

    # --- playing ------------------------------------------------------------
    def legal_mask(self) -> int:
        """The legal cards of the seat to act, as a mask (0 when it is no one's card).

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3)
        >>> rnd.legal_mask()
        0
        >>> for n in (1, 1, 1, 1): _ = rnd.call(n)
        >>> cards_of(rnd.legal_mask()) == rnd.hands[0]    # a lead: any card
        True
        """
        if self._legal >= 0:
            return self._legal
        if self._phase != PLAYING:
            return 0
        m = self._compute_legal(self._hands[self._to_act])  # type: ignore[index]
        self._legal = m
        return m

    def _compute_legal(self, hand: int) -> int:
        trick = self._trick
        tmask = self._trump_mask
        if not trick:
            tl = self.rules.trump_lead
            if tl == "any":
                return hand
            rest = hand & ~tmask
            if not rest:
                return hand
            if tl == "not_first_trick":
                return rest if not self._tricks else hand
            return hand if self._played & tmask else rest
        led = trick[0]
        ls = led // 13
        follow = hand & SUIT_MASKS[ls]
        t = self._trump
        if follow:
            rules = self.rules
            if not rules.must_head:
                return follow
            best = led
            cut = False
            for c in trick:
                cs = c // 13
                if cs == ls:
                    if c > best:
                        best = c
                elif cs == t:
                    cut = True
            if cut and not rules.head_after_cut:
                return follow
            higher = follow & ~((2 << best) - 1)
            return higher if higher else follow
        trumps = hand & tmask
        if not trumps:
            return hand
        top = -1
        for c in trick:
            if c // 13 == t and c > top:
                top = c
        if top < 0:
            return trumps
        higher = trumps & ~((2 << top) - 1)
        if higher:
            return higher
        return trumps if self.rules.must_undertrump else hand

    def legal_cards(self) -> list[Card]:
        """The cards the seat to act may play (empty outside the playing phase).

        >>> rnd = Round(Ruleset(), [["AS", "KS", "2H"] + [f"{r}D" for r in "23456789TJ"],
        ...   ["QS", "3H", "4H"] + [f"{r}C" for r in "23456789TJ"],
        ...   ["JS", "5H", "6H", "QD", "KD", "AD", "QC", "KC", "AC", "2S", "3S", "4S", "5S"],
        ...   ["6S", "7S", "8S", "9S", "TS", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH"]], dealer=3)
        >>> for n in (2, 1, 2, 5): _ = rnd.call(n)
        >>> _ = rnd.play("2H")           # seat 0 leads a heart
        >>> rnd.legal_cards()           # seat 1 must follow and head it
        [Card('3H'), Card('4H')]
        >>> _ = rnd.play("3H"); rnd.legal_cards()
        [Card('5H'), Card('6H')]
        """
        m = self._legal if self._legal >= 0 else self.legal_mask()
        out: list[Card] = []
        chunks = _CHUNKS
        for base in (0, 13, 26, 39):
            chunk = (m >> base) & 0x1FFF
            if chunk:
                key = (base << 13) | chunk
                cards = chunks.get(key)
                if cards is None:
                    cards = chunks[key] = tuple(int(c) for c in cards_of(chunk << base))
                out += map(_CARD_AT, cards)
        return out

    def is_legal(self, card: Card | int | str) -> bool:
        """Whether the seat to act may play ``card`` now (never raises).

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3)
        >>> for n in (1, 1, 1, 1): _ = rnd.call(n)
        >>> rnd.is_legal(rnd.hands[0][0]), rnd.is_legal(rnd.hands[1][0]), rnd.is_legal("nonsense")
        (True, False, False)
        """
        try:
            c = to_card(card)
        except ValueError:
            return False
        return bool(self.legal_mask() >> c & 1)

    def play(self, card: Card | int | str) -> PlayAction:
        """The seat to act plays ``card``; a completed trick is collected at once.

        Raises `IllegalAction` (the state unchanged) for a card not in hand or not legal.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3)
        >>> for n in (1, 1, 1, 1): _ = rnd.call(n)
        >>> a = rnd.play(rnd.hands[0][0]); a.seat, a.winner, rnd.to_act
        (0, None, 1)
        >>> rnd.play(rnd.hands[3][0])
        Traceback (most recent call last):
        ...
        callbreak.errors.IllegalAction: seat 1 does not hold ...
        """
        if self._phase != PLAYING:
            raise IllegalAction(f"no card now: the round is in phase {self._phase!r}")
        try:
            c = card if type(card) is Card else to_card(card)
        except ValueError as e:
            raise IllegalAction(str(e)) from None
        seat: int = self._to_act  # type: ignore[assignment]
        if not self._hands[seat] >> c & 1:
            raise IllegalAction(f"seat {seat} does not hold {CARDS[c]}")
        legal = self._legal if self._legal >= 0 else self.legal_mask()
        if not legal >> c & 1:
            raise IllegalAction(f"seat {seat} may not play {CARDS[c]}: {self._why_illegal(c)}")
        # the round keeps plain ints (a `Card` is an object the garbage collector tracks: every
        # tuple of the log holding one would stay tracked, and each full collection visit it)
        winner = self._do_play(seat, int(c))
        key = (seat * 52 + c) * 5 + (0 if winner is None else winner + 1)
        act = _PLAYS.get(key)
        if act is None:
            act = _PLAYS[key] = PlayAction(seat, CARDS[c], winner)
        return act

    def _why_illegal(self, c: int) -> str:
        seat: int = self._to_act  # type: ignore[assignment]
        return _why_illegal(c, self._trick, self._hands[seat], self.legal_mask(), self.rules)

    def _do_play(self, seat: int, c: int) -> int | None:
        """Play without checks: the search fast path.  Returns the trick winner or None."""
        bit = 1 << c
        self._hands[seat] ^= bit
        self._played |= bit
        self._log.append((1, seat, c))
        self._legal = -1
        trick = self._trick
        trick.append(c)
        if len(trick) < 4:
            self._to_act = (seat + 1) & 3
            return None
        winner = trick_winner(self._leader, trick, self._trump)
        self._won[winner] += 1
        self._tricks.append((self._leader, (trick[0], trick[1], trick[2], trick[3]), winner))
        self._trick = []
        self._leader = winner
        if len(self._tricks) == 13:
            self._phase = OVER
            self._to_act = None
            if self.on_end is not None:
                self.on_end(self)
        else:
            self._to_act = winner
        return winner

    def act(self, action: int | Card | str) -> Action:
        """Call (in the calling phase, an int) or play (a card), whichever the phase wants.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3)
        >>> rnd.act(3)
        CallAction(seat=0, call=3)
        >>> rnd.act("3")
        Traceback (most recent call last):
        ...
        callbreak.errors.IllegalAction: no card now: the round is in phase 'calling' (a call is a whole number, not '3')
        """
        if self._phase == CALLING:
            if isinstance(action, (Card, str)):
                raise IllegalAction(
                    f"no card now: the round is in phase 'calling' (a call is a whole number, not {action!r})"
                )
            return self.call(action)
        return self.play(action)

    def playout(self, rng: random.Random) -> None:
        """Finish the round with uniformly random legal actions (the calls still due,
        then every card): the tight loop for a bot's rollouts.  Stops early if the
        calls send the round to a redeal.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=6))
        >>> rnd.playout(random.Random(6))
        >>> rnd.phase, sum(rnd.tricks_won), len(rnd)
        ('over', 13, 56)
        """
        rand = rng.random
        if self._phase == CALLING:
            lo, span = self.rules.min_call, self.rules.max_call - self.rules.min_call + 1
            while self._phase == CALLING:
                self._do_call(self._to_act, lo + int(rand() * span))  # type: ignore[arg-type]
        compute = self._compute_legal
        hands = self._hands
        play = self._do_play
        while self._phase == PLAYING:
            seat: int = self._to_act  # type: ignore[assignment]
            m = compute(hands[seat])
            n = m.bit_count()
            if n > 1:
                for _ in range(int(rand() * n)):
                    m &= m - 1
            play(seat, (m & -m).bit_length() - 1)

    # --- search support -----------------------------------------------------
    def pop(self) -> Action:
        """Undo the last action and return it (for search: push with `call`/`play`).

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=2), dealer=0)
        >>> _ = rnd.call(2); rnd.pop()
        CallAction(seat=1, call=2)
        >>> rnd.calls
        [None, None, None, None]
        """
        if not self._log:
            raise IllegalAction("nothing to undo")
        kind, seat, value = self._log.pop()
        self._legal = -1
        if kind == 0:
            self._calls[seat] = None
            self._phase = CALLING
            self._to_act = seat
            return CallAction(seat, value)
        winner = None
        if not self._trick:
            leader, cards, winner = self._tricks.pop()
            self._won[winner] -= 1
            self._trick = list(cards[:3])
            self._leader = leader
            self._phase = PLAYING
        else:
            self._trick.pop()
        bit = 1 << value
        self._hands[seat] |= bit
        self._played &= ~bit
        self._to_act = seat
        return PlayAction(seat, CARDS[value], winner)

    def copy(self) -> Round:
        """An independent copy (without the ``on_end`` hook).

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3)
        >>> c = rnd.copy(); _ = c.call(2); rnd.calls[0], c.calls[0], c == rnd
        (None, 2, False)
        """
        new = Round.__new__(Round)
        new.rules = self.rules
        new.dealer = self.dealer
        new._deal = self._deal
        new._hands = self._hands[:]
        new._calls = self._calls[:]
        new._won = self._won[:]
        new._trick = self._trick[:]
        new._leader = self._leader
        new._to_act = self._to_act
        new._phase = self._phase
        new._tricks = self._tricks[:]
        new._played = self._played
        new._log = self._log[:]
        new._legal = self._legal
        new._trump = self._trump
        new._trump_mask = self._trump_mask
        new.on_end = None
        return new

    def __copy__(self) -> Round:
        return self.copy()

    def state_key(self) -> tuple[Any, ...]:
        """Everything that defines the state: equal keys mean equal rounds.

        >>> a = Round(Ruleset(), Round.deal_hands(seed=1)); b = a.copy()
        >>> _ = a.call(1); _ = a.pop(); a.state_key() == b.state_key()
        True
        """
        return (
            self.rules,
            self.dealer,
            self._deal,
            tuple(self._hands),
            tuple(self._calls),
            tuple(self._won),
            tuple(self._trick),
            self._leader,
            self._to_act,
            self._phase,
            tuple(self._tricks),
            self._played,
            tuple(self._log),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Round):
            return NotImplemented
        return self.state_key() == other.state_key()

    __hash__ = None  # type: ignore[assignment]

    # --- results ------------------------------------------------------------
    def points_tenths(self) -> list[int]:
        """Per-seat points in tenths (ints), once the round is over.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1)); rnd.playout(random.Random(1))
        >>> [t / 10 for t in rnd.points_tenths()] == [float(p) for p in rnd.points()]
        True
        """
        if self._phase != OVER:
            raise IllegalAction(f"points are known once the round is over (phase {self._phase!r})")
        return [score_tenths(c or 0, w, self.rules) for c, w in zip(self._calls, self._won)]

    def points(self) -> list[Decimal]:
        """Per-seat points once the round is over, exact.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=4))
        >>> while rnd.to_act is not None:
        ...     _ = rnd.call(1) if rnd.phase == "calling" else rnd.play(rnd.legal_cards()[0])
        >>> sum(rnd.tricks_won)
        13
        >>> all(p >= 1 or p == -1 for p in rnd.points())
        True
        """
        return [tenths_to_points(t) for t in self.points_tenths()]

    # --- views --------------------------------------------------------------
    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know: its own hand and everything public.

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1))
        >>> v = rnd.view(2)
        >>> len(v.hand), v.hand_sizes, v.legal_calls
        (13, (13, 13, 13, 13), ())
        """
        if not isinstance(seat, int) or not 0 <= seat <= 3:
            raise ValueError(f"seat must be 0..3, not {seat!r}")
        return self._view(seat)

    def spectator_view(self) -> SeatView:
        """Public information only: ``seat`` is -1 and the hand is empty.

        >>> v = Round(Ruleset(), Round.deal_hands(seed=1)).spectator_view()
        >>> v.seat, v.hand, v.hand_sizes
        (-1, (), (13, 13, 13, 13))
        """
        return self._view(-1)

    def _view(self, seat: int) -> SeatView:
        mine = seat >= 0 and self._to_act == seat
        h = self._hands
        return SeatView(
            seat=seat,
            rules=self.rules,
            dealer=self.dealer,
            phase=self._phase,
            to_act=self._to_act,
            hand=tuple(cards_of(h[seat])) if seat >= 0 else (),
            hand_sizes=(h[0].bit_count(), h[1].bit_count(), h[2].bit_count(), h[3].bit_count()),
            calls=tuple(self._calls),
            tricks_won=tuple(self._won),
            leader=self._leader,
            trick=tuple(self.trick_seats),
            tricks=tuple(self.tricks),
            legal_calls=tuple(self.legal_calls()) if mine else (),
            legal_cards=tuple(self.legal_cards()) if mine else (),
            points=tuple(self.points()) if self._phase == OVER else None,
        )

    @classmethod
    def from_actions(
        cls,
        rules: Ruleset,
        hands: Sequence[Iterable[Card | int | str] | int],
        dealer: int,
        actions: Iterable[int | Card | str],
    ) -> Round:
        """Rebuild a round from its deal and its actions (calls as ints, then cards).

        >>> rnd = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3); rnd.playout(random.Random(1))
        >>> acts = [a.call if isinstance(a, CallAction) else a.card for a in rnd.actions]
        >>> Round.from_actions(Ruleset(), rnd.dealt, 3, acts) == rnd
        True
        """
        rnd = cls(rules, hands, dealer)
        for a in actions:
            rnd.act(a)
        return rnd

    def __repr__(self) -> str:
        return (
            f"<Round dealer={self.dealer} phase={self._phase} to_act={self._to_act} "
            f"calls={self._calls} won={self._won} trick={[str(c) for c in self.trick]}>"
        )


def _validate_hands(hands: Sequence[Iterable[Card | int | str] | int]) -> list[int]:
    try:
        seq = list(hands)
    except TypeError:
        raise ValueError("hands must be four lists of 13 cards") from None
    if len(seq) != 4:
        raise ValueError(f"hands must be four lists of 13 cards, not {len(seq)} lists")
    masks: list[int] = []
    seen = 0
    for seat, h in enumerate(seq):
        if isinstance(h, int):
            m: int = int(h)
            if not 0 <= m <= FULL_DECK:
                raise ValueError(f"seat {seat}'s hand mask is out of range")
        else:
            cards = list(h)
            m = mask_of(cards)
            if len(cards) != m.bit_count():
                raise ValueError(f"seat {seat}'s hand repeats a card")
        if m.bit_count() != 13:
            raise ValueError(f"seat {seat} holds {m.bit_count()} cards; each seat is dealt 13")
        if m & seen:
            dup = cards_of(m & seen)[0]
            raise ValueError(f"{dup} is dealt to more than one seat")
        seen |= m
        masks.append(m)
    return masks
