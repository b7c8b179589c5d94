"""Cards as small ints, hands as 52-bit masks.

A card is an ``int`` from 0 to 51: ``suit * 13 + rank`` where suits are ordered
``S H D C`` (0..3) and ranks ``2 3 4 5 6 7 8 9 T J Q K A`` (0..12).  Within a
suit a larger index is a higher card, so "higher than x" is a single mask.

>>> Card.parse("AS")
Card('AS')
>>> int(Card.parse("2H"))
13
>>> str(Card.parse("10h"))
'TH'
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "CARDS",
    "FACE_MASK",
    "FULL_DECK",
    "RANKS",
    "SUITS",
    "SUIT_MASKS",
    "SUIT_NAMES",
    "Card",
    "above_mask",
    "cards_of",
    "mask_of",
    "popcount",
    "suit_index",
    "to_card",
]

SUITS = "SHDC"
RANKS = "23456789TJQKA"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
SUIT_SYMBOLS = "♠♥♦♣"
SUIT_MASKS: tuple[int, int, int, int] = (
    0x1FFF,
    0x1FFF << 13,
    0x1FFF << 26,
    0x1FFF << 39,
)
FULL_DECK = (1 << 52) - 1
# J, Q, K, A of every suit (ranks 9..12)
FACE_MASK = sum(0xF << (13 * s + 9) for s in range(4))

_RANK_ALIASES = {"10": 8, "1": 12, "T": 8, "J": 9, "Q": 10, "K": 11, "A": 12}
for _i, _r in enumerate(RANKS):
    _RANK_ALIASES.setdefault(_r, _i)
_SUIT_ALIASES = {s: i for i, s in enumerate(SUITS)}
_SUIT_ALIASES.update({sym: i for i, sym in enumerate(SUIT_SYMBOLS)})
_SUIT_ALIASES.update({"♤": 0, "♡": 1, "♢": 2, "♧": 3})


class Card(int):
    """One playing card; an ``int`` 0..51 that prints as ``AS``, ``TH``, ``2C``.

    >>> c = Card.parse("QD")
    >>> c.suit, c.rank, c.rank_char
    ('D', 12, 'Q')
    >>> Card.parse("1S") == Card.parse("AS")   # Bhoos notation: 1 is the ace
    True
    >>> Card.parse("AS").bhoos
    '1S'
    """

    __slots__ = ()

    def __new__(cls, index: int) -> Card:
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < 52:
            raise ValueError(f"a card index is an int from 0 to 51, not {index!r}")
        return super().__new__(cls, index)

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``AS``, ``as``, ``10h``, ``TH``, ``1S`` (Bhoos ace) or ``A♠``.

        >>> Card.parse(" 10h ")
        Card('TH')
        >>> Card.parse("XX")
        Traceback (most recent call last):
        ...
        ValueError: not a card: 'XX' (write rank 2-9, T or 10, J, Q, K, A or 1, then suit S, H, D or C, like 'AS' or 'TH')
        """
        if isinstance(text, Card):
            return text
        if not isinstance(text, str):
            raise ValueError(f"not a card: {text!r} (expected text like 'AS' or 'TH')")
        t = text.strip().upper()
        rank = _RANK_ALIASES.get(t[:-1]) if len(t) >= 2 else None
        suit = _SUIT_ALIASES.get(t[-1:]) if t else None
        if rank is None or suit is None:
            raise ValueError(
                f"not a card: {text!r} (write rank 2-9, T or 10, J, Q, K, A or 1, "
                "then suit S, H, D or C, like 'AS' or 'TH')"
            )
        return CARDS[suit * 13 + rank]

    @property
    def suit_index(self) -> int:
        """0 spades, 1 hearts, 2 diamonds, 3 clubs.

        >>> Card.parse("5D").suit_index
        2
        """
        return int(self) // 13

    @property
    def suit(self) -> str:
        """``'S'``, ``'H'``, ``'D'`` or ``'C'``.

        >>> Card.parse("5D").suit
        'D'
        """
        return SUITS[int(self) // 13]

    @property
    def rank(self) -> int:
        """2..14 (11 J, 12 Q, 13 K, 14 A).

        >>> Card.parse("AS").rank, Card.parse("TH").rank
        (14, 10)
        """
        return int(self) % 13 + 2

    @property
    def rank_char(self) -> str:
        """One character: ``2``..``9``, ``T``, ``J``, ``Q``, ``K``, ``A``.

        >>> Card.parse("10C").rank_char
        'T'
        """
        return RANKS[int(self) % 13]

    @property
    def bhoos(self) -> str:
        """The Bhoos tournament notation: ``1S`` for the ace of spades.

        >>> Card.parse("AH").bhoos, Card.parse("TH").bhoos
        ('1H', 'TH')
        """
        r = int(self) % 13
        return ("1" if r == 12 else RANKS[r]) + SUITS[int(self) // 13]

    @property
    def symbol(self) -> str:
        """``A♠``: for people.

        >>> Card.parse("TH").symbol
        '10♥'
        """
        return RANKS[int(self) % 13].replace("T", "10") + SUIT_SYMBOLS[int(self) // 13]

    @property
    def mask(self) -> int:
        """The one-bit mask of this card.

        >>> Card.parse("4S").mask
        4
        """
        return 1 << int(self)

    def __str__(self) -> str:
        return RANKS[int(self) % 13] + SUITS[int(self) // 13]

    def __repr__(self) -> str:
        return f"Card('{self}')"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(52))


def to_card(value: Card | int | str) -> Card:
    """Accept a Card, an index 0..51 or text, and return the Card.

    >>> to_card("KH"), to_card(12)
    (Card('KH'), Card('AS'))
    """
    if type(value) is Card:
        return value
    if isinstance(value, str):
        return Card.parse(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 52:
        return CARDS[value]
    raise ValueError(f"not a card: {value!r}")


def suit_index(suit: str) -> int:
    """>>> suit_index("h")
    1
    """
    i = _SUIT_ALIASES.get(suit.strip().upper()) if isinstance(suit, str) else None
    if i is None:
        raise ValueError(f"not a suit: {suit!r} (one of S, H, D, C)")
    return i


def above_mask(card: int) -> int:
    """Mask of the cards of ``card``'s suit that beat it.

    >>> cards_of(above_mask(Card.parse("JS")))
    [Card('QS'), Card('KS'), Card('AS')]
    """
    return SUIT_MASKS[card // 13] & ~((2 << card) - 1)


def cards_of(mask: int) -> list[Card]:
    """The cards of a mask, lowest index first (spades low to high, then hearts...).

    >>> cards_of(0b101)
    [Card('2S'), Card('4S')]
    """
    out: list[Card] = []
    append = out.append
    while mask:
        low = mask & -mask
        append(CARDS[low.bit_length() - 1])
        mask ^= low
    return out


def mask_of(cards: Iterable[Card | int | str]) -> int:
    """>>> mask_of(["2S", "4S"])
    5
    """
    m = 0
    for c in cards:
        m |= 1 << to_card(c)
    return m


def popcount(mask: int) -> int:
    """Number of cards in a mask.

    >>> popcount(mask_of(["AS", "KS", "2C"]))
    3
    """
    return mask.bit_count()
