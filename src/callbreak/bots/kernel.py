# mypy: disable-error-code="no-any-return,arg-type,assignment"
"""A compiled playout kernel for the search (numba, compiled on first use and cached).

The state is the engine's: four 52-bit hand masks, the current trick, the
leader, the tricks won.  `legal_mask` and `trick_winner` follow
`callbreak.round.Round` exactly (a test compares them on random positions);
`random_playouts` measures raw speed, `search` evaluates each candidate card
over many determinized deals with a playout policy (a fast rule of thumb, or
`medium_card`: the medium level's rules, ported and held to them by a test)
and scores the outcome as a match result (chance of finishing first);
`mismatches` counts, per deal, the other seats' past cards that the medium
level's rules would not have played (an opponent model for choosing deals),
and `refine` moves deals by Metropolis-Hastings card swaps towards those that
explain the other seats' play and calls.

Rules are passed as an int64 array ``P``: trump, must_head, head_after_cut,
must_undertrump, trump_lead (0 any, 1 not first trick, 2 after broken),
overtrick tenths, max_overtricks (-1: none), missed penalty (0 call,
1 shortfall, 2 zero), bonus_call (-1: none), bonus_points.

>>> from callbreak import Ruleset
>>> P = rules_array(Ruleset())
>>> int(P[0]), int(P[6])
(0, -1)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np

from ..rules import Ruleset
from .cachedir import configure_cache

#: where numba keeps the compiled functions: chosen before any is decorated
CACHE = configure_cache()

__all__ = [
    "legal_mask",
    "medium_card",
    "mismatches",
    "random_playouts",
    "refine",
    "rules_array",
    "search",
    "solve",
    "trick_winner",
]

F = TypeVar("F", bound=Callable[..., Any])


def _jit(f: F) -> F:
    return cast(F, numba.njit(cache=True, nogil=True)(f))


SUITM = np.int64(0x1FFF)
_POP = np.array([bin(i).count("1") for i in range(1 << 16)], dtype=np.int64)
_HIGH = np.array([max(i.bit_length() - 1, 0) for i in range(1 << 13)], dtype=np.int64)


def rules_array(rules: Ruleset) -> np.ndarray:
    """The rules as the kernel reads them."""
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
def _pop(m: int) -> int:
    return int(
        _POP[m & 0xFFFF] + _POP[(m >> 16) & 0xFFFF] + _POP[(m >> 32) & 0xFFFF] + _POP[(m >> 48) & 0xFFFF]
    )


@_jit
def _low(m: int) -> int:
    return _pop((m & -m) - 1)


@_jit
def _high_in_suit(m: int, s: int) -> int:
    return 13 * s + int(_HIGH[(m >> (13 * s)) & SUITM])


@_jit
def _rand(rng: np.ndarray, n: int) -> int:
    x = (rng[0] * 0x5DEECE66D + 0xB) & 0xFFFFFFFFFFFF
    rng[0] = x
    return int((x >> 17) % n)


@_jit
def _kth(m: int, k: int) -> int:
    for _ in range(k):
        m &= m - 1
    return _low(m)


@_jit
def legal_mask(hand: int, trick: np.ndarray, n: int, P: np.ndarray, trick_no: int, played: int) -> int:
    """Legal cards of ``hand`` with ``n`` cards on ``trick``."""
    t = P[0]
    tmask = SUITM << (13 * t)
    if n == 0:
        tl = P[4]
        if tl == 0:
            return hand
        rest = hand & ~tmask
        if rest == 0:
            return hand
        if tl == 1:
            return rest if trick_no == 0 else hand
        return hand if (played & tmask) != 0 else rest
    led = trick[0]
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
def trick_winner(trick: np.ndarray, t: int) -> int:
    """Index (0..3, from the leader) of the card winning a full trick."""
    best = trick[0]
    bi = 0
    for i in range(1, 4):
        if _beats(trick[i], best, t):
            best = trick[i]
            bi = i
    return bi


@_jit
def random_playouts(hands0: np.ndarray, P: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Play ``n`` full rounds from the deal ``hands0`` with uniformly random legal
    cards; returns the tricks won per seat summed over all playouts."""
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


# --- the playout policy ----------------------------------------------------------
@_jit
def _lowest(m: int, t: int) -> int:
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
def _highest(m: int, t: int) -> int:
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
    lm: int,
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
    best = trick[0]
    for i in range(1, n):
        if _beats(trick[i], best, t):
            best = trick[i]
    win = np.int64(0)
    m = lm
    while m != 0:
        c = _low(m)
        m &= m - 1
        if _beats(c, best, t):
            win |= np.int64(1) << c
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


# --- the medium level's rules of thumb (`callbreak.bots.medium`), ported -----------
FULLM = np.int64((1 << 52) - 1)


@_jit
def _above(c: int) -> int:
    return int((SUITM << (13 * (c // 13))) & ~((np.int64(2) << c) - 1))


@_jit
def _observe(
    cannot: np.ndarray, trick: np.ndarray, n: int, c: int, s: int, P: np.ndarray, tn: int, played: int
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
def _m_discard(m: int, t: int, out: int, hand: int) -> int:
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
def _others(hands: np.ndarray, s: int) -> int:
    """The cards the seats other than ``s`` hold between them."""
    out = np.int64(0)
    for o in range(4):
        if o != s:
            out |= hands[o]
    return int(out)


@_jit
def _medium(
    hand: int,
    out: int,
    s: int,
    lm: int,
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
    win = np.int64(0)
    m = lm
    while m != 0:
        c = _low(m)
        m &= m - 1
        if _beats(c, best, t):
            win |= np.int64(1) << c
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
    """The ported medium card for seat ``s`` (for tests against `callbreak.bots.medium`)."""
    lm = legal_mask(hands[s], trick, n, P, tn, played)
    return _medium(hands[s], _others(hands, s), s, lm, trick, n, P, won, calls, cannot)


HIST_W = 17  # columns of a `_history` row


@_jit
def _history(me: int, seats: np.ndarray, cards: np.ndarray, leader0: int, P: np.ndarray) -> np.ndarray:
    """The public state before each card so far of a seat other than ``me``, one
    row per card: seat, card, its place in the trick, the trick's number, the
    cards played before it, then the trick so far (4), the tricks won (4) and
    what each seat is known not to hold (4).  None of it depends on the deal."""
    t = P[0]
    m = 0
    for j in range(cards.shape[0]):
        if seats[j] != me:
            m += 1
    hist = np.zeros((m, HIST_W), dtype=np.int64)
    won = np.zeros(4, dtype=np.int64)
    trick = np.zeros(4, dtype=np.int64)
    cannot = np.zeros(4, dtype=np.int64)
    played = np.int64(0)
    n = 0
    tn = 0
    leader = leader0
    r = 0
    for j in range(cards.shape[0]):
        o = seats[j]
        c = cards[j]
        if o != me:
            hist[r, 0] = o
            hist[r, 1] = c
            hist[r, 2] = n
            hist[r, 3] = tn
            hist[r, 4] = played
            for i in range(4):
                hist[r, 5 + i] = trick[i]
                hist[r, 9 + i] = won[i]
                hist[r, 13 + i] = cannot[i]
            r += 1
        _observe(cannot, trick, n, c, o, P, tn, played)
        trick[n] = c
        played |= np.int64(1) << c
        n += 1
        if n == 4:
            leader = (leader + trick_winner(trick, t)) & 3
            won[leader] += 1
            trick[:] = 0
            n = 0
            tn += 1
    return hist


@_jit
def _seat_miss(hand_now: int, gone: int, s: int, hist: np.ndarray, P: np.ndarray, calls: np.ndarray) -> int:
    """How many of seat ``s``'s cards so far (rows of `_history`) are not the ones
    the medium level's rules (`_medium`) would have played holding ``hand_now``
    plus its cards played since (``gone``: all it has played).  A seat's choice
    depends on its own hand and public facts only."""
    bad = 0
    for r in range(hist.shape[0]):
        if hist[r, 0] != s:
            continue
        played = hist[r, 4]
        hand = hand_now | (gone & ~played)
        trick = hist[r, 5:9]
        n = hist[r, 2]
        lm = legal_mask(hand, trick, n, P, hist[r, 3], played)
        c = _medium(hand, FULLM & ~played & ~hand, s, lm, trick, n, P, hist[r, 9:13], calls, hist[r, 13:17])
        if c != hist[r, 1]:
            bad += 1
    return bad


@_jit
def mismatches(
    dets: np.ndarray,
    me: int,
    seats: np.ndarray,
    cards: np.ndarray,
    leader0: int,
    P: np.ndarray,
    calls: np.ndarray,
    played_by: np.ndarray,
) -> np.ndarray:
    """For each deal (rows of the hands now), how many of the other seats' cards
    so far (``seats``/``cards``, in order, the round led by ``leader0``) are not the
    ones the medium level's rules (`_medium`) would have played holding it."""
    nd = dets.shape[0]
    out = np.zeros(nd, dtype=np.int64)
    hist = _history(me, seats, cards, leader0, P)
    for d in range(nd):
        for s in range(4):
            if s != me:
                out[d] += _seat_miss(dets[d, s], played_by[s], s, hist, P, calls)
    return out


@_jit
def _seat_energy(
    h: np.ndarray, s: int, hist: np.ndarray, P: np.ndarray, calls: np.ndarray,
    gone: np.ndarray, w: np.ndarray, cost: np.ndarray,
) -> float:  # fmt: skip
    """Minus the log-likelihood of seat ``s``'s play and call given its hand in
    ``h`` (``gone``: the cards each seat has played; ``w``: the calling model's
    weights; ``cost``: `_energy_terms`)."""
    e = 0.0
    if cost[0, 0] > 0.0:
        e += cost[0, 0] * _seat_miss(h[s], gone[s], s, hist, P, calls)
    if cost[1, s] > 0.0:
        mu = _hand_mean(h[s] | gone[s], P[0], int(cost[2, s]), int(cost[3, s]), w)
        off = max(cost[4, s] - mu, mu - cost[5, s], 0.0)
        e += off * off / cost[1, s]
    return e


@_jit
def _energy_terms(
    miss_cost: float, made: np.ndarray, pos: np.ndarray, earlier: np.ndarray,
    lo: np.ndarray, hi: np.ndarray, soft: float,
) -> np.ndarray:  # fmt: skip
    """`refine`'s likelihood settings in one array for `_seat_energy`: row 0 the
    cost of a card `_medium` would not have played; per seat (columns), row 1
    ``2 soft^2``, the scale of its call's term (0: it has not called),
    rows 2-5 its place in the calling order, the calls before it, and the range
    ``lo..hi`` of the calling model's estimate."""
    cost = np.zeros((6, 4))
    cost[0, 0] = miss_cost
    for s in range(4):
        if made[s] >= 0:
            cost[1, s] = 2.0 * soft * soft
        cost[2, s] = pos[s]
        cost[3, s] = earlier[s]
        cost[4, s] = lo[s]
        cost[5, s] = hi[s]
    return cost


@_jit
def refine(
    dets: np.ndarray,
    me: int,
    seats: np.ndarray,
    cards: np.ndarray,
    leader0: int,
    P: np.ndarray,
    calls: np.ndarray,
    played_by: np.ndarray,
    cannot: np.ndarray,
    steps: int,
    seed: int,
    miss_cost: float,
    w: np.ndarray,
    made: np.ndarray,
    pos: np.ndarray,
    earlier: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    soft: float,
    keep: int = 1,
    every: int = 1,
) -> np.ndarray:
    """Each deal (rows of the hands now) moved ``steps`` Metropolis-Hastings steps
    towards the deals that explain what the other seats did: a step swaps a card
    between two of them (each may hold the other's card, by ``cannot``), and is
    kept with the chance the likelihood ratio gives.  A seat's likelihood is
    ``exp(-miss_cost)`` per card of its own so far that the medium level's rules
    (`_medium`) would not have played holding its hand, times the plausibility of
    its call (``made[s] >= 0``): a normal tail of width ``soft`` outside the range
    ``lo[s]..hi[s]`` of the calling model's estimate (`_hand_mean`) in which
    that call is the one the medium level makes.  The hands'
    sizes, the cards each seat may hold and the cards in play are unchanged.
    Each deal starts a chain: its state after ``steps`` steps and then after each
    further ``every`` steps, ``keep`` states in all, are returned (row
    ``k * len(dets) + d``: the ``k``-th state of chain ``d``)."""
    rng = np.zeros(1, dtype=np.int64)
    rng[0] = seed & 0xFFFFFFFFFFFF
    nd = dets.shape[0]
    out = np.zeros((nd * keep, 4), dtype=np.int64)
    h = np.zeros(4, dtype=np.int64)
    e = np.zeros(4)
    opp = np.zeros(3, dtype=np.int64)
    hist = _history(me, seats, cards, leader0, P)
    cost = _energy_terms(miss_cost, made, pos, earlier, lo, hi, soft)
    for d in range(nd):
        k = 0
        for s in range(4):
            h[s] = dets[d, s]
            if s != me:
                opp[k] = s
                k += 1
        for s in range(4):
            if s != me:
                e[s] = _seat_energy(h, s, hist, P, calls, played_by, w, cost)
        total = steps + (keep - 1) * every
        if steps == 0:
            for s in range(4):
                out[d, s] = h[s]
        for step in range(total):
            i = _rand(rng, 3)
            j = (i + 1 + _rand(rng, 2)) % 3
            a = opp[i]
            b = opp[j]
            ea = h[a] & ~cannot[b]
            eb = h[b] & ~cannot[a]
            na = _pop(ea)
            nb = _pop(eb)
            if na > 0 and nb > 0:
                x = np.int64(1) << _kth(ea, _rand(rng, na))
                y = np.int64(1) << _kth(eb, _rand(rng, nb))
                ha = h[a]
                hb = h[b]
                h[a] = ha ^ x ^ y
                h[b] = hb ^ x ^ y
                fa = _seat_energy(h, a, hist, P, calls, played_by, w, cost)
                fb = _seat_energy(h, b, hist, P, calls, played_by, w, cost)
                # proposal counts both ways (Hastings correction)
                ra = _pop(h[a] & ~cannot[b])
                rb = _pop(h[b] & ~cannot[a])
                logacc = (e[a] + e[b]) - (fa + fb) + np.log(float(na * nb)) - np.log(float(ra * rb))
                u = (_rand(rng, 1 << 20) + 0.5) / float(1 << 20)
                if np.log(u) < logacc:
                    e[a] = fa
                    e[b] = fb
                else:
                    h[a] = ha
                    h[b] = hb
            done = step + 1 - steps
            if done >= 0 and done % every == 0:
                r = (done // every) * nd + d
                for s in range(4):
                    out[r, s] = h[s]
    return out


@_jit
def _score(call: int, tricks: int, P: np.ndarray) -> int:
    over = tricks - call
    ok = over >= 0 and (P[6] < 0 or over <= P[6])
    if ok:
        base = call
        if P[8] >= 0 and call >= P[8]:
            base = P[9]
        return base * 10 + P[5] * over
    if P[7] == 2:
        return 0
    if P[7] == 1 and tricks < call:
        return -10 * (call - tricks)
    return -10 * call


@_jit
def _value(
    me: int, won: np.ndarray, calls: np.ndarray, totals: np.ndarray, sd: float, P: np.ndarray
) -> float:
    pts = np.zeros(4)
    for s in range(4):
        pts[s] = totals[s] + _score(calls[s], won[s], P) / 10.0
    mine = pts[me]
    v = 1.0
    if sd <= 0.0:
        ties = 1
        for s in range(4):
            if s != me:
                if pts[s] > mine + 1e-9:
                    v = 0.0
                elif abs(pts[s] - mine) <= 1e-9:
                    ties += 1
        v = v / ties
    else:
        for s in range(4):
            if s != me:
                v *= 0.5 * (1.0 + math.erf((mine - pts[s]) / (sd * 1.4142135623730951)))
    return v + 0.004 * _score(calls[me], won[me], P) / 10.0


@_jit
def search(
    dets: np.ndarray,
    me: int,
    trick0: np.ndarray,
    n0: int,
    leader0: int,
    won0: np.ndarray,
    trick_no0: int,
    played0: int,
    P: np.ndarray,
    calls: np.ndarray,
    moves: np.ndarray,
    rollouts: int,
    totals: np.ndarray,
    sd: float,
    eps: int,
    seed: int,
    pubvoid0: np.ndarray,
    solve_k: int,
    cannot0: np.ndarray,
    mpol: int,
) -> np.ndarray:
    """The value of each candidate card in ``moves`` (columns) on each deal of
    ``dets`` (one row of four hand masks per deal) and rollout (rows: deal-major),
    the same random numbers for every candidate.  From the moment at most
    ``solve_k`` tricks remain, the deal is solved exactly (max^n) instead.
    ``mpol``: 1 to play the playouts with the medium level's rules (`_medium`,
    ``cannot0``: what each seat is publicly known not to hold), 0 the fast policy."""
    t = P[0]
    cannot = np.zeros(4, dtype=np.int64)
    nm = moves.shape[0]
    values = np.zeros((dets.shape[0] * rollouts, nm))
    hands = np.zeros(4, dtype=np.int64)
    won = np.zeros(4, dtype=np.int64)
    trick = np.zeros(4, dtype=np.int64)
    rng = np.zeros(1, dtype=np.int64)
    pubvoid = np.zeros(4, dtype=np.int64)
    low_duck = P[5] > 0 and P[6] < 0  # extra tricks are worth a little: keep high cards
    vt = np.full((4, 1 << 16), np.nan)
    for d in range(dets.shape[0]):
        for r in range(rollouts):
            stream = (seed * 1000003 + d * 7919 + r * 104729) & 0xFFFFFFFFFFFF
            for mi in range(nm):
                rng[0] = stream
                for s in range(4):
                    hands[s] = dets[d, s]
                    won[s] = won0[s]
                for i in range(4):
                    trick[i] = trick0[i]
                    pubvoid[i] = pubvoid0[i]
                    cannot[i] = cannot0[i]
                n = n0
                leader = leader0
                played = played0
                tn = trick_no0
                s = me
                c = moves[mi]
                while True:
                    if mpol != 0:
                        _observe(cannot, trick, n, c, s, P, tn, played)
                    trick[n] = c
                    if n > 0 and c // 13 != trick[0] // 13:
                        pubvoid[s] |= np.int64(1) << (trick[0] // 13)
                    bit = np.int64(1) << c
                    hands[s] ^= bit
                    played |= bit
                    n += 1
                    if n == 4:
                        leader = (leader + trick_winner(trick, t)) & 3
                        won[leader] += 1
                        n = 0
                        tn += 1
                        if tn == 13:
                            break
                        s = leader
                    else:
                        s = (s + 1) & 3
                    if 13 - tn <= solve_k:
                        base = np.int64(0)
                        for o in range(4):
                            base += won[o] << (4 * o)
                        code = _solve(hands, trick, n, leader, s, played, tn, P, base, calls, totals, sd, vt)
                        for o in range(4):
                            won[o] += (code >> (4 * o)) & 15
                        break
                    lm = legal_mask(hands[s], trick, n, P, tn, played)
                    if mpol != 0:
                        if eps > 0 and _rand(rng, 100) < eps:
                            c = _kth(lm, _rand(rng, _pop(lm)))
                        else:
                            c = _medium(hands[s], _others(hands, s), s, lm, trick, n, P, won, calls, cannot)
                    else:
                        c = _policy(hands, s, lm, trick, n, t, won[s] < calls[s], rng, eps, pubvoid, low_duck)
                values[d * rollouts + r, mi] = _value(me, won, calls, totals, sd, P)
    return values


# --- exact endgame: max^n over the last tricks of a known deal ----------------------
@_jit
def _val_of(
    vt: np.ndarray, s: int, code: int, calls: np.ndarray, totals: np.ndarray, sd: float, P: np.ndarray
) -> float:
    """Seat ``s``'s value of the round ending with tricks won ``code`` (4 bits a seat), cached."""
    v = vt[s, code]
    if v == v:
        return v
    won = np.zeros(4, dtype=np.int64)
    for o in range(4):
        won[o] = (code >> (4 * o)) & 15
    v = _value(s, won, calls, totals, sd, P)
    vt[s, code] = v
    return v


@_jit
def _alive(hands: np.ndarray, trk: np.ndarray, d: int, n: int) -> int:
    a = hands[0] | hands[1] | hands[2] | hands[3]
    for i in range(n):
        a |= np.int64(1) << trk[d, i]
    return a


@_jit
def _solve(
    hands: np.ndarray,
    trick: np.ndarray,
    n0: int,
    leader0: int,
    s0: int,
    played0: int,
    tn0: int,
    P: np.ndarray,
    base0: int,
    calls: np.ndarray,
    totals: np.ndarray,
    sd: float,
    vt: np.ndarray,
) -> int:
    """Max^n: every seat plays to maximise its own value, all hands known.  Returns
    the tricks won from here on (4 bits a seat); ``base0``: tricks won before.
    (An explicit stack: numba's cache does not keep recursive functions.)"""
    t = P[0]
    D = 53
    rem = np.zeros(D, dtype=np.int64)
    lms = np.zeros(D, dtype=np.int64)
    alv = np.zeros(D, dtype=np.int64)
    seat = np.zeros(D, dtype=np.int64)
    nn = np.zeros(D, dtype=np.int64)
    ld = np.zeros(D, dtype=np.int64)
    tns = np.zeros(D, dtype=np.int64)
    pl = np.zeros(D, dtype=np.int64)
    base = np.zeros(D, dtype=np.int64)
    mv = np.zeros(D, dtype=np.int64)
    bcode = np.zeros(D, dtype=np.int64)
    bval = np.zeros(D)
    trk = np.zeros((D, 4), dtype=np.int64)
    for i in range(4):
        trk[0, i] = trick[i]
    seat[0] = s0
    nn[0] = n0
    ld[0] = leader0
    tns[0] = tn0
    pl[0] = played0
    base[0] = base0
    lms[0] = legal_mask(hands[s0], trick, n0, P, tn0, played0)
    rem[0] = lms[0]
    alv[0] = _alive(hands, trk, 0, n0)
    bcode[0] = -1
    bval[0] = -1e300
    d = 0
    while True:
        # the next move at this node that is not the same as a lower one
        c = -1
        while rem[d] != 0:
            x = _low(rem[d])
            rem[d] &= rem[d] - 1
            below = alv[d] & (SUITM << (13 * (x // 13))) & ((np.int64(1) << x) - 1)
            if below != 0 and (lms[d] >> _high_in_suit(below, x // 13)) & 1:
                continue
            c = x
            break
        if c < 0:
            res = bcode[d]
            if d == 0:
                return res - base0
            d -= 1
            s = seat[d]
            hands[s] ^= np.int64(1) << mv[d]
            v = _val_of(vt, s, res, calls, totals, sd, P)
            if v > bval[d]:
                bval[d] = v
                bcode[d] = res
            continue
        s = seat[d]
        n = nn[d]
        bit = np.int64(1) << c
        hands[s] ^= bit
        mv[d] = c
        e = d + 1
        for i in range(n):
            trk[e, i] = trk[d, i]
        trk[e, n] = c
        if n == 3:
            w = (ld[d] + trick_winner(trk[e], t)) & 3
            nb = base[d] + (np.int64(1) << (4 * w))
            if tns[d] + 1 == 13:
                hands[s] ^= bit
                v = _val_of(vt, s, nb, calls, totals, sd, P)
                if v > bval[d]:
                    bval[d] = v
                    bcode[d] = nb
                continue
            seat[e] = w
            nn[e] = 0
            ld[e] = w
            tns[e] = tns[d] + 1
            base[e] = nb
        else:
            seat[e] = (s + 1) & 3
            nn[e] = n + 1
            ld[e] = ld[d]
            tns[e] = tns[d]
            base[e] = base[d]
        pl[e] = pl[d] | bit
        lms[e] = legal_mask(hands[seat[e]], trk[e], nn[e], P, tns[e], pl[e])
        rem[e] = lms[e]
        alv[e] = _alive(hands, trk, e, nn[e])
        bcode[e] = -1
        bval[e] = -1e300
        d = e


@_jit
def solve(
    hands0: np.ndarray,
    trick0: np.ndarray,
    n: int,
    leader: int,
    played: int,
    tn: int,
    P: np.ndarray,
    won0: np.ndarray,
    calls: np.ndarray,
    totals: np.ndarray,
    sd: float,
) -> np.ndarray:
    """Tricks each seat ends the round with when all four play the known deal
    ``hands0`` (from a position ``n`` cards into trick ``tn``) each to its own
    best value (max^n)."""
    hands = hands0.copy()
    trick = trick0.copy()
    vt = np.full((4, 1 << 16), np.nan)
    base = np.int64(0)
    for o in range(4):
        base += won0[o] << (4 * o)
    code = _solve(hands, trick, n, leader, (leader + n) & 3, played, tn, P, base, calls, totals, sd, vt)
    out = np.zeros(4, dtype=np.int64)
    for o in range(4):
        out[o] = ((base + code) >> (4 * o)) & 15
    return out


# --- deals consistent with what a seat knows ---------------------------------------
@_jit
def _hand_mean(hand: int, t: int, pos: int, earlier: int, w: np.ndarray) -> float:
    """`callbreak.bots.calling.features` dotted with the weights ``w``."""
    tv = (hand >> (13 * t)) & SUITM
    nt = _pop(tv)
    side_a = 0
    side_kg = 0
    side_ks = 0
    side_qg = 0
    side_al = 0
    short = 0
    longx = 0
    for s in range(4):
        if s == t:
            continue
        v = (hand >> (13 * s)) & SUITM
        n = _pop(v)
        a = (v >> 12) & 1
        side_a += a
        if a == 1 and n >= 6:
            side_al += 1
        if (v >> 11) & 1:
            if n >= 2:
                side_kg += 1
            else:
                side_ks += 1
        if (v >> 10) & 1 and n >= 3:
            side_qg += 1
        if n < 2:
            short += 2 - n
        if n > 4:
            longx += n - 4
    ruff = min(short, max(nt - 1, 0))
    x = (
        w[0]
        + w[1] * nt
        + w[2] * ((tv >> 12) & 1)
        + w[3] * ((tv >> 11) & 1)
        + w[4] * ((tv >> 10) & 1)
        + w[5] * ((tv >> 9) & 1)
        + w[6] * max(nt - 4, 0)
        + w[7] * side_a
        + w[8] * side_kg
        + w[9] * side_ks
        + w[10] * side_qg
        + w[11] * side_al
        + w[12] * ruff
        + w[16] * earlier
        + w[17] * longx
    )
    if pos >= 1:
        x += w[12 + pos]
    return x


@_jit
def _one_deal(
    unseen: int, cannot: np.ndarray, sizes: np.ndarray, me: int, hand: int, rng: np.ndarray, out: np.ndarray
) -> bool:
    cards = np.zeros(52, dtype=np.int64)
    nc = 0
    m = unseen
    while m != 0:
        cards[nc] = _low(m)
        nc += 1
        m &= m - 1
    need = np.zeros(4, dtype=np.int64)
    for s in range(4):
        need[s] = sizes[s]
        out[s] = 0
    out[me] = hand
    need[me] = 0
    # constrained cards first (one possible holder, then two), then the rest shuffled
    order = np.zeros(52, dtype=np.int64)
    no = 0
    for want in (1, 2, 0):
        start = no
        for i in range(nc):
            c = cards[i]
            k = 0
            for s in range(4):
                if s != me and (cannot[s] >> c) & 1 == 0:
                    k += 1
            if (want > 0 and k == want) or (want == 0 and k >= 3) or (want == 1 and k == 0):
                order[no] = c
                no += 1
        for i in range(no - 1, start, -1):  # shuffle within the group
            j = start + _rand(rng, i - start + 1)
            tmp = order[i]
            order[i] = order[j]
            order[j] = tmp
    for i in range(no):
        c = order[i]
        total = 0
        for s in range(4):
            if s != me and need[s] > 0 and (cannot[s] >> c) & 1 == 0:
                total += need[s]
        if total == 0:
            return False
        r = _rand(rng, total)
        for s in range(4):
            if s != me and need[s] > 0 and (cannot[s] >> c) & 1 == 0:
                if r < need[s]:
                    out[s] |= np.int64(1) << c
                    need[s] -= 1
                    break
                r -= need[s]
    return True


@_jit
def sample_deals(
    unseen: int,
    cannot: np.ndarray,
    sizes: np.ndarray,
    me: int,
    hand: int,
    n_out: int,
    oversample: int,
    seed: int,
    w: np.ndarray,
    calls: np.ndarray,
    pos: np.ndarray,
    earlier: np.ndarray,
    played_by: np.ndarray,
    t: int,
    min_call: int,
    max_call: int,
    call_sd: float,
    call_bias: float,
) -> np.ndarray:
    """``n_out`` deals (rows of four hand masks) of the ``unseen`` cards that respect
    ``cannot`` and ``sizes``, drawn from ``n_out * oversample`` candidates by the
    plausibility of each opponent's call (``calls[s] < 0``: not made yet).
    Rows of -1 mark draws that failed (the caller draws those another way)."""
    rng = np.zeros(1, dtype=np.int64)
    rng[0] = seed & 0xFFFFFFFFFFFF
    nc = n_out * oversample
    cand = np.full((nc, 4), -1, dtype=np.int64)
    logw = np.zeros(nc)
    row = np.zeros(4, dtype=np.int64)
    for i in range(nc):
        ok = False
        for _ in range(40):
            if _one_deal(unseen, cannot, sizes, me, hand, rng, row):
                ok = True
                break
        if not ok:
            logw[i] = -1e18
            continue
        for s in range(4):
            cand[i, s] = row[s]
        if oversample > 1:
            for s in range(4):
                if s == me or calls[s] < 0:
                    continue
                mu = _hand_mean(row[s] | played_by[s], t, pos[s], earlier[s], w) - call_bias
                mu = min(max(mu, float(min_call)), float(max_call))
                logw[i] -= (calls[s] - mu) ** 2 / (2.0 * call_sd * call_sd)
    out = np.full((n_out, 4), -1, dtype=np.int64)
    if oversample <= 1:
        for i in range(n_out):
            for s in range(4):
                out[i, s] = cand[i, s]
        return out
    top = logw.max()
    wts = np.exp(logw - top)
    total = wts.sum()
    step = total / n_out
    u = (_rand(rng, 1 << 20) / float(1 << 20)) * step
    acc = 0.0
    k = 0
    for i in range(nc):
        acc += wts[i]
        while k < n_out and u + k * step < acc:
            for s in range(4):
                out[k, s] = cand[i, s]
            k += 1
    while k < n_out:
        for s in range(4):
            out[k, s] = cand[nc - 1, s]
        k += 1
    return out


@_jit
def call_search(
    dets: np.ndarray,
    me: int,
    leader: int,
    known_calls: np.ndarray,
    cands: np.ndarray,
    P: np.ndarray,
    w: np.ndarray,
    pos: np.ndarray,
    min_call: int,
    max_call: int,
    call_bias: float,
    totals: np.ndarray,
    sd: float,
    eps: int,
    seed: int,
    mpol: int = 0,
) -> np.ndarray:
    """The value of each candidate call in ``cands`` (columns) on each deal (rows):
    the round played out with the playout policy for all four seats.  Seats that
    have not called yet (``known_calls[s] < 0``) call the model's estimate."""
    t = P[0]
    nd = dets.shape[0]
    nc = cands.shape[0]
    values = np.zeros((nd, nc))
    hands = np.zeros(4, dtype=np.int64)
    won = np.zeros(4, dtype=np.int64)
    calls = np.zeros(4, dtype=np.int64)
    trick = np.zeros(4, dtype=np.int64)
    pubvoid = np.zeros(4, dtype=np.int64)
    rng = np.zeros(1, dtype=np.int64)
    cannot = np.zeros(4, dtype=np.int64)
    low_duck = P[5] > 0 and P[6] < 0
    for d in range(nd):
        for ci in range(nc):
            rng[0] = (seed * 1000003 + d * 7919) & 0xFFFFFFFFFFFF
            running = 0
            for k in range(4):
                s = (leader + k) & 3
                if s == me:
                    calls[s] = cands[ci]
                elif known_calls[s] >= 0:
                    calls[s] = known_calls[s]
                else:
                    mu = _hand_mean(dets[d, s], t, pos[s], running, w) - call_bias
                    c = int(mu + 0.5)
                    calls[s] = min(max(c, min_call), max_call)
                running += calls[s]
            for s in range(4):
                hands[s] = dets[d, s]
                won[s] = 0
                pubvoid[s] = 0
                cannot[s] = 0
            ld = leader
            played = np.int64(0)
            for tn in range(13):
                for i in range(4):
                    s = (ld + i) & 3
                    lm = legal_mask(hands[s], trick, i, P, tn, played)
                    if mpol != 0:
                        if eps > 0 and _rand(rng, 100) < eps:
                            c = _kth(lm, _rand(rng, _pop(lm)))
                        else:
                            c = _medium(hands[s], _others(hands, s), s, lm, trick, i, P, won, calls, cannot)
                        _observe(cannot, trick, i, c, s, P, tn, played)
                    else:
                        c = _policy(hands, s, lm, trick, i, t, won[s] < calls[s], rng, eps, pubvoid, low_duck)
                    trick[i] = c
                    if i > 0 and c // 13 != trick[0] // 13:
                        pubvoid[s] |= np.int64(1) << (trick[0] // 13)
                    bit = np.int64(1) << c
                    hands[s] ^= bit
                    played |= bit
                ld = (ld + trick_winner(trick, t)) & 3
                won[ld] += 1
            values[d, ci] = _value(me, won, calls, totals, sd, P)
    return values
