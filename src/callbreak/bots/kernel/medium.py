"""The medium level's rules of thumb (`callbreak.bots.medium`), ported to the kernel.

A second copy of `callbreak.bots.medium.choose_card` (and of what
`callbreak.bots.knowledge.Knowledge` infers from the play, `_observe`), held
card-for-card to it under random rules by ``tests/bots/test_medium_port.py``.
"""

from __future__ import annotations

import numpy as np

from .core import (
    FULLM,
    I64,
    SUITM,
    _above,
    _beating,
    _beats,
    _high_in_suit,
    _jit,
    _low,
    _others,
    _pop,
    legal_mask,
)

__all__ = ["medium_card"]


@_jit
def _observe(
    cannot: np.ndarray, trick: np.ndarray, n: int, c: int, s: int, P: np.ndarray, tn: int, played: I64
) -> None:
    """Add what seat ``s`` playing ``c`` as card ``n`` of the trick shows to all
    (as `callbreak.bots.knowledge.Knowledge` infers it) to ``cannot``."""
    t = P[0]
    tmask = SUITM << (13 * t)
    if n == 0:
        if c // 13 == t and ((P[4] == 1 and tn == 0) or (P[4] == 2 and played & tmask == 0)):
            cannot[s] |= FULLM & ~tmask  # a trump lead while barred: only trumps held
        return
    ls = trick[0] // 13
    best = trick[0]
    top = -1
    for i in range(1, n):
        x = trick[i]
        if x // 13 == ls:
            if x > best:
                best = x
        elif x // 13 == t and x > top:
            top = x
    cs = c // 13
    if cs == ls:
        if c < best and P[1] != 0 and (top < 0 or P[2] != 0):
            cannot[s] |= _above(best)
        return
    cannot[s] |= SUITM << (13 * ls)
    if cs == t:
        if top >= 0 and c < top:
            cannot[s] |= _above(top)
    elif top < 0 or P[3] != 0:
        cannot[s] |= tmask
    else:
        cannot[s] |= _above(top)


@_jit
def _m_may_trump(o: int, su: int, t: int, out: int, cannot: np.ndarray) -> bool:
    poss = out & ~cannot[o]
    if poss & (SUITM << (13 * t)) == 0:
        return False
    sm = SUITM << (13 * su)
    if poss & sm == 0:
        return True
    return _pop(out & sm & poss) <= 1


@_jit
def _m_safe_lead(c: int, s: int, out: int, cannot: np.ndarray, t: int) -> bool:
    if out & _above(c) != 0:
        return False
    su = c // 13
    if su == t:
        return True
    safe = True
    for o in range(4):
        if o != s and _m_may_trump(o, su, t, out, cannot):
            safe = False
    return safe


@_jit
def _m_risk(c: int, s: int, n: int, led: int, t: int, out: int, cannot: np.ndarray) -> int:
    r = 0
    up = _above(c)
    for i in range(1, 4 - n):
        o = (s + i) & 3
        poss = out & ~cannot[o]
        if c // 13 == led:
            if poss & up != 0 or (led != t and _m_may_trump(o, led, t, out, cannot)):
                r += 1
        elif poss & up != 0 and (poss & (SUITM << (13 * led)) == 0 or _m_may_trump(o, led, t, out, cannot)):
            r += 1
    return r


@_jit
def _m_discard(m: I64, t: int, out: I64, hand: I64) -> int:
    """The cheapest card of ``m`` to give away: not a trump, not a top card, from
    a short suit, low (medium's ``discard_key``)."""
    pick = -1
    pk = 1 << 30
    while m != 0:
        c = _low(m)
        m &= m - 1
        boss = 1 if out & _above(c) == 0 else 0
        k = (
            (1 if c // 13 == t else 0) * 4096
            + boss * 1024
            + _pop(hand & (SUITM << (13 * (c // 13)))) * 16
            + c % 13
        )
        if k < pk:
            pk = k
            pick = c
    return pick


@_jit
def _medium(
    hand: int,
    out: int,
    s: int,
    lm: I64,
    trick: np.ndarray,
    n: int,
    P: np.ndarray,
    won: np.ndarray,
    calls: np.ndarray,
    cannot: np.ndarray,
) -> int:
    """`callbreak.bots.medium.choose_card` for seat ``s`` holding ``hand``, from
    what it could know: of the other hands, only the cards they hold between
    them (``out``)."""
    if lm & (lm - 1) == 0:
        return _low(lm)
    t = P[0]
    tmask = SUITM << (13 * t)
    need = calls[s] - won[s]
    room = 99
    if P[6] >= 0:
        room = calls[s] + P[6] - won[s]
    bust = room < 0
    extra = P[5] > 0 and P[6] < 0
    if n == 0:
        side = lm & ~tmask
        trumps = lm & tmask
        if need > 0:
            pick = -1
            pk = -1
            m = side
            while m != 0:
                c = _low(m)
                m &= m - 1
                if _m_safe_lead(c, s, out, cannot, t):
                    k = _pop(out & (SUITM << (13 * (c // 13)))) * 16 + c % 13
                    if k > pk:
                        pk = k
                        pick = c
            if pick >= 0:
                return pick
            if trumps != 0:
                hi = _high_in_suit(trumps, t)
                if out & _above(hi) == 0:
                    ot = out & tmask
                    nt = _pop(trumps)
                    if ot != 0 and (nt * 2 >= _pop(ot) or nt >= need):
                        return hi
                    if side == 0:
                        return hi
            if side != 0:
                if trumps != 0:
                    pick = -1
                    pk = 1 << 30
                    m = side
                    while m != 0:
                        c = _low(m)
                        m &= m - 1
                        cnt = _pop(hand & (SUITM << (13 * (c // 13))))
                        if cnt <= 2 and out & _above(c) != 0:
                            k = cnt * 16 + c % 13
                            if k < pk:
                                pk = k
                                pick = c
                    if pick >= 0:
                        return pick
                pick = -1
                pk = -(1 << 30)
                m = side
                while m != 0:
                    c = _low(m)
                    m &= m - 1
                    k = _pop(hand & (SUITM << (13 * (c // 13)))) * 16 - c % 13
                    if k > pk:
                        pk = k
                        pick = c
                return _low(side & (SUITM << (13 * (pick // 13))))
            return _low(trumps)
        if not bust and room > 0:
            any_need = False
            for o in range(4):
                if o != s and calls[o] - won[o] > 0:
                    any_need = True
            if any_need and extra:
                pick = -1
                pk = -1
                m = side
                while m != 0:
                    c = _low(m)
                    m &= m - 1
                    if _m_safe_lead(c, s, out, cannot, t) and c % 13 > pk:
                        pk = c % 13
                        pick = c
                if pick >= 0:
                    return pick
        pick = -1
        pk = -(1 << 30)
        m = lm
        while m != 0:
            c = _low(m)
            m &= m - 1
            k = ((-20 if c // 13 == t else 0) + _pop(out & _above(c))) * 16 - c % 13
            if k > pk:
                pk = k
                pick = c
        return pick
    led = trick[0] // 13
    best = trick[0]
    bi = 0
    for i in range(1, n):
        if _beats(trick[i], best, t):
            best = trick[i]
            bi = i
    wseat = (s - n + bi) & 3
    win = _beating(lm, best, t)
    lose = lm & ~win
    if need > 0:
        if win != 0:
            pick = -1
            pk = 1 << 30
            m = win
            while m != 0:
                c = _low(m)
                m &= m - 1
                k = _m_risk(c, s, n, led, t, out, cannot) * 64 + (16 if c // 13 == t else 0) + c % 13
                if k < pk:
                    pk = k
                    pick = c
            return pick
        return _m_discard(lose if lose != 0 else lm, t, out, hand)
    avoid = room <= 0 or bust
    if not avoid and win != 0:
        needy = calls[wseat] - won[wseat] > 0
        for i in range(1, 4 - n):
            o = (s + i) & 3
            if calls[o] - won[o] > 0:
                needy = True
        if needy and room > 0:
            pick = -1
            pk = 99
            m = win
            while m != 0:
                c = _low(m)
                m &= m - 1
                if (c // 13 != t or lose == 0) and c % 13 < pk and _m_risk(c, s, n, led, t, out, cannot) == 0:
                    pk = c % 13
                    pick = c
            if pick >= 0:
                return pick
    if lose != 0:
        if avoid or not extra:
            pick = -1
            pk = -1
            m = lose
            while m != 0:
                c = _low(m)
                m &= m - 1
                k = (16 if c // 13 == t else 0) + c % 13
                if k > pk:
                    pk = k
                    pick = c
            return pick
        return _m_discard(lose, t, out, hand)
    pick = -1
    if n == 3:
        pk = -1
    else:
        pk = 1 << 30
    m = lm
    while m != 0:
        c = _low(m)
        m &= m - 1
        k = (16 if c // 13 == t else 0) + c % 13
        if (n == 3 and k > pk) or (n != 3 and k < pk):
            pk = k
            pick = c
    return pick


@_jit
def medium_card(
    hands: np.ndarray,
    s: int,
    trick: np.ndarray,
    n: int,
    P: np.ndarray,
    won: np.ndarray,
    calls: np.ndarray,
    cannot: np.ndarray,
    tn: int,
    played: int,
) -> int:
    """The ported medium card for seat ``s`` (for tests against `callbreak.bots.medium`).

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots.playouts import public_cannot
    >>> from callbreak.cards import Card
    >>> from callbreak.bots.knowledge import Knowledge
    >>> from callbreak.bots.medium import choose_card
    >>> from .core import rules_array
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    >>> for c in (2, 3, 1, 4):
    ...     _ = m.call(c)
    >>> _ = m.play(m.view(m.to_act).legal_cards[0])
    >>> v = m.view(m.to_act)
    >>> k = Knowledge.from_view(v)
    >>> trick = np.array([c for _, c in v.trick] + [0, 0, 0], dtype=np.int64)
    >>> got = medium_card(
    ...     np.array(m.round.hand_masks, dtype=np.int64), v.seat, trick, len(v.trick),
    ...     rules_array(v.rules), np.array(v.tricks_won, dtype=np.int64),
    ...     np.array(v.calls, dtype=np.int64), np.array(public_cannot(v, k), dtype=np.int64),
    ...     len(v.tricks), k.played,
    ... )
    >>> Card(got), Card(got) == choose_card(v, k)[0]
    (Card('TS'), True)
    """
    lm = legal_mask(hands[s], trick, n, P, tn, played)
    return _medium(hands[s], _others(hands, s), s, lm, trick, n, P, won, calls, cannot)
