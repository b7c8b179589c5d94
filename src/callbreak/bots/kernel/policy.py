"""The fast playout policy: a rule of thumb from what a seat could know.

Used in the search's playouts with ``mpol=0`` and by the batched training
environment (`callbreak.env.batched`) for its rule-based opponents.
"""

from __future__ import annotations

import itertools

import numpy as np

from .core import I64, SUITM, _beating, _beats, _high_in_suit, _jit, _kth, _low, _pop, _rand

__all__ = ["ORDERS", "SUIT_ORDERS", "simple_card", "simple_fits"]


@_jit
def _winners(lm: I64, trick: np.ndarray, n: int, t: int) -> I64:
    """The cards of ``lm`` that beat the trick so far (its first ``n`` cards; ``n`` > 0)."""
    best = trick[0]
    for i in range(1, n):
        if _beats(trick[i], best, t):
            best = trick[i]
    return _beating(lm, best, t)


@_jit
def _lowest(m: I64, t: int) -> int:
    """Lowest-ranked card of a mask, side suits before trumps."""
    best = -1
    for s in range(4):
        if s == t:
            continue
        sub = m & (SUITM << (13 * s))
        if sub != 0:
            c = _low(sub)
            if best < 0 or c % 13 < best % 13:
                best = c
    if best < 0:
        best = _low(m)
    return best


@_jit
def _highest(m: I64, t: int) -> int:
    """Highest-ranked card of a mask, trumps first."""
    tm = m & (SUITM << (13 * t))
    if tm != 0:
        return _high_in_suit(tm, t)
    best = -1
    for s in range(4):
        sub = m & (SUITM << (13 * s))
        if sub != 0:
            c = _high_in_suit(m, s)
            if best < 0 or c % 13 > best % 13:
                best = c
    return best


@_jit
def _may_ruff(o: int, su: int, t: int, pubvoid: np.ndarray, outstanding: int) -> bool:
    """Whether seat ``o`` might be void in ``su`` and trump it, as the others see it:
    it showed the void (and no trump void), or few cards of the suit are out."""
    if (pubvoid[o] >> t) & 1:
        return False
    if (pubvoid[o] >> su) & 1:
        return True
    return outstanding <= 2


@_jit
def _policy(
    hands: np.ndarray,
    s: int,
    lm: I64,
    trick: np.ndarray,
    n: int,
    t: int,
    want: bool,
    rng: np.ndarray,
    eps: int,
    pubvoid: np.ndarray,
    low_duck: bool,
) -> int:
    """A rule-of-thumb card that uses only what seat ``s`` could know: its hand,
    the cards still out (all cards not in its hand nor played) and shown voids."""
    if eps > 0 and _rand(rng, 100) < eps:
        return _kth(lm, _rand(rng, _pop(lm)))
    if lm & (lm - 1) == 0:
        return _low(lm)
    tmask = SUITM << (13 * t)
    out = np.int64(0)  # cards the other seats hold, between them
    for o in range(4):
        if o != s:
            out |= hands[o]
    if n == 0:
        if want:
            # a top card of a side suit nobody seems able to ruff, else a top trump
            for su in range(4):
                if su == t:
                    continue
                sm = SUITM << (13 * su)
                sub = lm & sm
                if sub == 0:
                    continue
                c = _high_in_suit(sub, su)
                if out & sm & ~((np.int64(2) << c) - 1) != 0:
                    continue
                cnt = _pop(out & sm)
                safe = True
                if out & tmask != 0:
                    for o in range(4):
                        if o != s and _may_ruff(o, su, t, pubvoid, cnt):
                            safe = False
                if safe:
                    return c
            tl = lm & tmask
            if tl != 0:
                c = _high_in_suit(tl, t)
                if out & tmask & ~((np.int64(2) << c) - 1) == 0:
                    return c
            # low from a short side suit (to ruff it later) when holding trumps,
            # else low from the longest side suit
            pick = -1
            plen = 0
            has_t = hands[s] & tmask != 0
            for su in range(4):
                if su == t:
                    continue
                sub = lm & (SUITM << (13 * su))
                if sub == 0:
                    continue
                ln = _pop(sub)
                if pick < 0 or (has_t and ln < plen) or (not has_t and ln > plen):
                    pick = _low(sub)
                    plen = ln
            if pick >= 0 and (not has_t or plen <= 2):
                return pick
            if pick >= 0:
                return _lowest(lm, t)
            return _lowest(lm, t)
        return _lowest(lm, t)
    win = _winners(lm, trick, n, t)
    lose = lm & ~win
    if want:
        if win != 0:
            if n == 3:
                return _lowest(win, t)
            # the lowest winner that the seats still to play do not seem able to beat
            ls = trick[0] // 13
            lsm = SUITM << (13 * ls)
            cnt = _pop(out & lsm)
            m = win
            pick = -1
            while m != 0:
                c = _low(m)
                m &= m - 1
                up = ~((np.int64(2) << c) - 1)
                ok = True
                if c // 13 == ls:
                    if out & lsm & up != 0:
                        ok = False
                    elif ls != t and out & tmask != 0:
                        for k in range(n + 1, 4):
                            if _may_ruff((s + k - n) & 3, ls, t, pubvoid, cnt):
                                ok = False
                elif out & tmask & up != 0:
                    for k in range(n + 1, 4):
                        if _may_ruff((s + k - n) & 3, ls, t, pubvoid, cnt):
                            ok = False
                if ok and (
                    pick < 0 or (pick // 13 == t and c // 13 != t) or (c // 13 == pick // 13 and c < pick)
                ):
                    pick = c
            if pick >= 0:
                return pick
            return _lowest(win, t)
        return _lowest(lm, t)
    if lose != 0:
        return _lowest(lose, t) if low_duck else _highest(lose, t)
    if n == 3:
        return _highest(lm, t)
    return _lowest(lm, t)


#: the orders of the four suits (spades 0, hearts 1, diamonds 2, clubs 3), lexicographic:
#: the first is `Card` order, the last clubs, diamonds, hearts, spades
SUIT_ORDERS = np.array(list(itertools.permutations(range(4))), dtype=np.int64)
#: the orders a simple player's hand may run in: order ``o`` takes the suits in
#: ``SUIT_ORDERS[o % 24]``, each from the 2 up (``o < 24``) or from the ace down; 0 is
#: `Card` order (``spar-simple``), 24 the suits so with each from the ace down (``spar-simple-high``)
ORDERS = 2 * len(SUIT_ORDERS)


@_jit
def _first_in(m: I64, order: int) -> int:
    """The first card of ``m`` in hand order ``order`` (`ORDERS`), -1 if none."""
    for i in range(4):
        s = SUIT_ORDERS[order % 24, i]
        sub = m & (SUITM << (13 * s))
        if sub != 0:
            return _high_in_suit(m, s) if order >= 24 else _low(sub)
    return -1


@_jit
def simple_card(lm: I64, trick: np.ndarray, n: int, t: int, order: int = 0) -> int:
    """``spar-simple``'s card (`callbreak.bots.sparring.SimpleBot`, held to it by
    tests/bots/test_opp_simple.py): leading, the first legal card of its hand; else
    the first legal card that beats the trick so far (``n`` cards of ``trick``, trumps
    ``t``), else the first legal card. ``lm``: the legal cards as a mask; ``order``:
    the order of its hand (`ORDERS`; 0, the default, `Card` order; 24 each suit from
    the ace down, `callbreak.bots.sparring.SimpleHighBot`).

    >>> from callbreak.cards import Card
    >>> hearts = (1 << Card.parse("4H")) | (1 << Card.parse("JH")) | (1 << Card.parse("AH"))
    >>> trick = np.array([Card.parse("9H"), Card.parse("TH"), 0, 0], dtype=np.int64)
    >>> str(Card(simple_card(hearts, trick, 2, 0))), str(Card(simple_card(hearts, trick, 0, 0)))
    ('JH', '4H')
    >>> str(Card(simple_card(hearts, trick, 2, 0, 24))), str(Card(simple_card(hearts, trick, 0, 0, 24)))
    ('AH', 'AH')
    """
    if n > 0:
        win = _winners(lm, trick, n, t)
        if win != 0:  # the first winner: within a suit, a card beats whenever a lower one does
            return _first_in(win, order)
    return _first_in(lm, order)


@_jit
def simple_fits(lm: I64, trick: np.ndarray, n: int, t: int, c: int) -> int:
    """The hand orders (`ORDERS`, as bits) in which `simple_card` plays ``c``: a
    winner when some legal card wins the trick so far (the first of its suit's
    winners), else the first legal card of its suit, from a suit that comes before
    every other suit it may play from.

    >>> from callbreak.cards import Card
    >>> lm = (1 << Card.parse("4H")) | (1 << Card.parse("AH")) | (1 << Card.parse("3C"))
    >>> z = np.zeros(4, dtype=np.int64)
    >>> fits = [simple_fits(lm, z, 0, 0, Card.parse(x)) for x in ("4H", "AH", "3C", "5D")]   # leading
    >>> [[o for o in range(ORDERS) if f >> o & 1 and o in (0, 23, 24, 47)] for f in fits]
    [[0], [24], [23, 47], []]
    """
    cand = lm
    if n > 0:
        win = _winners(lm, trick, n, t)
        if win != 0:
            cand = win
    if (cand >> c) & 1 == 0:
        return 0
    s = c // 13
    sub = cand & (SUITM << (13 * s))
    up = _low(sub) == c
    down = _high_in_suit(sub, s) == c
    if not (up or down):
        return 0
    perms = 0
    for p in range(24):
        ok = True
        for i in range(4):
            q = SUIT_ORDERS[p, i]
            if q == s:
                break
            if cand & (SUITM << (13 * q)) != 0:
                ok = False
                break
        if ok:
            perms |= 1 << p
    return (perms if up else 0) | ((perms << 24) if down else 0)
