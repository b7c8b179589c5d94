"""The kernel's core: card masks, the rules as an array, legal cards and trick winners.

Cards are bits of a 52-bit mask (``13 * suit + rank``), as in `callbreak.cards`.
`legal_mask` and `trick_winner` are second copies of `callbreak.round.Round`'s
rules, held to them on random positions by ``tests/bots/test_kernel.py``.

>>> from callbreak import Ruleset
>>> P = rules_array(Ruleset())
>>> int(P[0]), int(P[6])
(0, -1)
>>> int(_pop(0b1011)), int(_low(0b1000))
(3, 3)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias, TypeVar, cast

import numba
import numpy as np

from ...rules import Ruleset
from ..cachedir import configure_cache

#: where numba keeps the compiled functions: chosen before any is decorated
CACHE = configure_cache()

__all__ = [
    "CACHE",
    "FULLM",
    "SUITM",
    "legal_mask",
    "random_playouts",
    "random_rollout",
    "rules_array",
    "trick_winner",
]

F = TypeVar("F", bound=Callable[..., Any])

#: a card mask or a count as the compiled code passes it: a Python int or a numpy int64
I64: TypeAlias = int | np.int64


def _jit(f: F) -> F:
    """Compile ``f`` with numba (nopython, cached on disk, releasing the GIL)."""
    return cast(F, numba.njit(cache=True, nogil=True)(f))


def _jit_inline(f: F) -> F:
    """`_jit`, and inlined into its callers' code (a small step of a hot loop)."""
    return cast(F, numba.njit(cache=True, nogil=True, inline="always")(f))


SUITM = np.int64(0x1FFF)
FULLM = np.int64((1 << 52) - 1)
_POP = np.array([bin(i).count("1") for i in range(1 << 16)], dtype=np.int64)
_HIGH = np.array([max(i.bit_length() - 1, 0) for i in range(1 << 13)], dtype=np.int64)


def rules_array(rules: Ruleset) -> np.ndarray:
    """The rules as the kernel reads them.

    >>> rules_array(Ruleset()).tolist()
    [0, 1, 1, 0, 0, 1, -1, 0, -1, 13]
    >>> int(rules_array(Ruleset(must_head=False))[1])
    0
    """
    return np.array(
        [
            rules.trump_index,
            int(rules.must_head),
            int(rules.head_after_cut),
            int(rules.must_undertrump),
            ("any", "not_first_trick", "after_broken").index(rules.trump_lead),
            rules.overtrick_tenths,
            -1 if rules.max_overtricks is None else rules.max_overtricks,
            ("call", "shortfall", "zero").index(rules.missed_penalty),
            -1 if rules.bonus_call is None else rules.bonus_call,
            rules.bonus_points,
        ],
        dtype=np.int64,
    )


@_jit
def _pop(m: I64) -> int:
    return int(
        _POP[m & 0xFFFF] + _POP[(m >> 16) & 0xFFFF] + _POP[(m >> 32) & 0xFFFF] + _POP[(m >> 48) & 0xFFFF]
    )


@_jit
def _low(m: I64) -> int:
    return _pop((m & -m) - 1)


@_jit
def _high_in_suit(m: I64, s: int) -> int:
    return 13 * s + int(_HIGH[(m >> (13 * s)) & SUITM])


@_jit
def _rand(rng: np.ndarray, n: int) -> int:
    x = (rng[0] * 0x5DEECE66D + 0xB) & 0xFFFFFFFFFFFF
    rng[0] = x
    return int((x >> 17) % n)


@_jit
def _kth(m: I64, k: int) -> int:
    for _ in range(k):
        m &= m - 1
    return _low(m)


@_jit
def legal_mask(hand: I64, trick: np.ndarray, n: int, P: np.ndarray, trick_no: int, played: I64) -> I64:
    """Legal cards of ``hand`` with ``n`` cards on ``trick``.

    >>> from callbreak import Ruleset
    >>> from callbreak.cards import Card, cards_of, mask_of
    >>> P = rules_array(Ruleset())
    >>> trick = np.array([Card.parse("5H"), Card.parse("9H"), 0, 0], dtype=np.int64)
    >>> cards_of(int(legal_mask(mask_of(["AS", "2S", "3H", "JH"]), trick, 2, P, 0, 0)))  # head the trick
    [Card('JH')]
    >>> cards_of(int(legal_mask(mask_of(["AS", "2S", "3D"]), trick, 2, P, 0, 0)))  # void: trump
    [Card('2S'), Card('AS')]
    """
    t: int = P[0]
    tmask = SUITM << (13 * t)
    if n == 0:
        tl: int = P[4]
        if tl == 0:
            return hand
        rest = hand & ~tmask
        if rest == 0:
            return hand
        if tl == 1:
            return rest if trick_no == 0 else hand
        return hand if (played & tmask) != 0 else rest
    led: int = trick[0]
    ls = led // 13
    follow = hand & (SUITM << (13 * ls))
    if follow != 0:
        if P[1] == 0:
            return follow
        best = led
        cut = False
        for i in range(1, n):
            c = trick[i]
            cs = c // 13
            if cs == ls:
                if c > best:
                    best = c
            elif cs == t:
                cut = True
        if cut and P[2] == 0:
            return follow
        higher = follow & ~((np.int64(2) << best) - 1)
        return higher if higher != 0 else follow
    trumps = hand & tmask
    if trumps == 0:
        return hand
    top = -1
    for i in range(n):
        c = trick[i]
        if c // 13 == t and c > top:
            top = c
    if top < 0:
        return trumps
    higher = trumps & ~((np.int64(2) << top) - 1)
    if higher != 0:
        return higher
    return trumps if P[3] != 0 else hand


@_jit
def _beats(c: int, best: int, t: int) -> bool:
    cs = c // 13
    bs = best // 13
    if cs == bs:
        return c > best
    return cs == t


@_jit
def _beating(lm: I64, best: int, t: int) -> I64:
    """The cards of ``lm`` that beat ``best`` (trumps ``t``)."""
    win = np.int64(0)
    m = lm
    while m != 0:
        c = _low(m)
        m &= m - 1
        if _beats(c, best, t):
            win |= np.int64(1) << c
    return win


@_jit
def trick_winner(trick: np.ndarray, t: int) -> int:
    """Index (0..3, from the leader) of the card winning a full trick.

    >>> from callbreak.cards import Card
    >>> trick = np.array([Card.parse(c) for c in ("5H", "KH", "2S", "AH")], dtype=np.int64)
    >>> int(trick_winner(trick, 0)), int(trick_winner(trick, 3))  # spades trumps; clubs trumps
    (2, 3)
    """
    best = trick[0]
    bi = 0
    for i in range(1, 4):
        if _beats(trick[i], best, t):
            best = trick[i]
            bi = i
    return bi


@_jit
def _above(c: int) -> int:
    return int((SUITM << (13 * (c // 13))) & ~((np.int64(2) << c) - 1))


@_jit
def _others(hands: np.ndarray, s: int) -> int:
    """The cards the seats other than ``s`` hold between them."""
    out = np.int64(0)
    for o in range(4):
        if o != s:
            out |= hands[o]
    return int(out)


@_jit
def random_playouts(hands0: np.ndarray, P: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Play ``n`` full rounds from the deal ``hands0`` with uniformly random legal
    cards; returns the tricks won per seat summed over all playouts.

    >>> from callbreak import Round, Ruleset
    >>> hands = np.array(Round(Ruleset(), Round.deal_hands(seed=3), dealer=3).hand_masks, dtype=np.int64)
    >>> won = random_playouts(hands, rules_array(Ruleset()), 10, 1)
    >>> int(won.sum()), won.tolist() == random_playouts(hands, rules_array(Ruleset()), 10, 1).tolist()
    (130, True)
    """
    rng = np.zeros(1, dtype=np.int64)
    rng[0] = seed & 0xFFFFFFFFFFFF
    total = np.zeros(4, dtype=np.int64)
    hands = np.zeros(4, dtype=np.int64)
    trick = np.zeros(4, dtype=np.int64)
    t = P[0]
    for _ in range(n):
        for s in range(4):
            hands[s] = hands0[s]
        leader = 0
        played = np.int64(0)
        for tn in range(13):
            for i in range(4):
                s = (leader + i) & 3
                lm = legal_mask(hands[s], trick, i, P, tn, played)
                c = _kth(lm, _rand(rng, _pop(lm)))
                trick[i] = c
                bit = np.int64(1) << c
                hands[s] ^= bit
                played |= bit
            leader = (leader + trick_winner(trick, t)) & 3
            total[leader] += 1
    return total


@_jit
def random_rollout(
    hands0: np.ndarray,
    trick0: np.ndarray,
    n0: int,
    leader0: int,
    won0: np.ndarray,
    tn0: int,
    played0: I64,
    P: np.ndarray,
    rng: np.ndarray,
) -> np.ndarray:
    """The tricks each seat ends the round with when the known deal ``hands0`` is
    played out with uniformly random legal cards from a position ``n0`` cards
    into trick ``tn0`` (``rng``: a one-element state, advanced).

    >>> from callbreak import Round, Ruleset
    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=3), dealer=3)
    >>> for _ in range(4):
    ...     _ = rnd.call(2)
    >>> _ = rnd.play(rnd.legal_cards()[0])
    >>> trick = np.array([rnd.trick[0], 0, 0, 0], dtype=np.int64)
    >>> rng = np.array([7], dtype=np.int64)
    >>> won = random_rollout(
    ...     np.array(rnd.hand_masks, dtype=np.int64), trick, 1, rnd.leader, np.zeros(4, dtype=np.int64),
    ...     0, rnd.played_mask, rules_array(Ruleset()), rng,
    ... )
    >>> int(won.sum()), int(rng[0]) != 7
    (13, True)
    """
    hands = hands0.copy()
    trick = trick0.copy()
    won = won0.copy()
    n = n0
    leader = leader0
    tn = tn0
    played = played0
    t: int = P[0]
    while tn < 13:
        s = (leader + n) & 3
        lm = legal_mask(hands[s], trick, n, P, tn, played)
        c = _kth(lm, _rand(rng, _pop(lm)))
        trick[n] = c
        bit = np.int64(1) << c
        hands[s] ^= bit
        played |= bit
        n += 1
        if n == 4:
            leader = (leader + trick_winner(trick, t)) & 3
            won[leader] += 1
            n = 0
            tn += 1
    return won
