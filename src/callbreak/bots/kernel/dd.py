"""Exact double dummy: can one seat take ``target`` more tricks against the other three?

All four hands face up; the seat plays to take tricks, the other three together
to stop it.  A yes/no search with alpha-beta's cut-offs, moves ordered (the
cheapest winner first), cards of one hand that no other live card separates
tried as one, and a table of bounds (on the seat's tricks still to come) at the
start of each trick, keyed by the four hands (each card as its rank among the
live cards of its suit: positions that differ only in which low cards are gone
share an entry), the leader and the seat; at the start of each trick, too, the
tricks the leader takes in a row with its top cards bound the answer; kept between
questions by the caller.  The rules are `core`'s (held to the engine's by
``tests/bots/test_kernel.py``); the answers are held to a plain exhaustive search
and to the pure Python search by ``tests/analysis``.

>>> from callbreak import Ruleset
>>> from .core import rules_array
>>> hands = np.array([1 << 12, 1 << 39, 1 << 40, 1 << 41], dtype=np.int64)  # the ace of trumps, 2-4 of clubs
>>> keys, vals = dd_table(4)
>>> trick, nodes = np.zeros(4, dtype=np.int64), np.zeros(1, dtype=np.int64)
>>> P = rules_array(Ruleset())
>>> [int(dd_reach(hands, trick, 0, 1, 12, P, seat, 1, keys, vals, 100, nodes)) for seat in range(4)]
[1, 0, 0, 0]
"""

from __future__ import annotations

import numpy as np

from .core import FULLM, I64, SUITM, _high_in_suit, _jit, _low, _pop, legal_mask, trick_winner

__all__ = ["dd_reach", "dd_table"]


def dd_table(bits: int = 19) -> tuple[np.ndarray, np.ndarray]:
    """An empty table of bounds with ``2**bits`` slots: keys (four hands, and the
    leader + 4 * the seat) and values (256 * the tricks left + 16 * the lowest + the highest the
    seat takes of them); the slots go in pairs.

    >>> keys, vals = dd_table(4)
    >>> keys.shape, vals.shape, int(keys.min()), int(vals.max())
    ((16, 5), (16,), -1, 0)
    """
    keys = np.full((1 << bits, 5), -1, dtype=np.int64)
    vals = np.zeros(1 << bits, dtype=np.int64)
    return keys, vals


@_jit
def _slot(hands: np.ndarray, leader: int, size: int) -> int:
    x = np.int64(leader + 1)
    for s in range(4):
        x = (x ^ hands[s]) * np.int64(0x9E3779B97F4A7C15)
        x ^= x >> 31
    return int(x & (size - 1))


@_jit
def _run(h: I64, live: I64, s: int) -> int:
    """How many of the top live cards of suit ``s`` the hand ``h`` holds, in a row."""
    k = 0
    c = 13 * s + 12
    while c >= 13 * s:
        bit = np.int64(1) << c
        if live & bit:
            if h & bit:
                k += 1
            else:
                break
        c -= 1
    return k


@_jit
def _len(h: I64, s: int) -> int:
    return _pop(h & (SUITM << (13 * s)))


@_jit
def _quick(hands: np.ndarray, lead: int, P: np.ndarray, tn: int) -> int:
    """Tricks the seat on lead ``lead`` surely takes in a row by leading its top cards:
    the top trumps it holds (where it may lead trumps), then the top cards of each
    other suit, as many as every other seat able to trump still follows (a partner
    of the coalition forced to trump would take the lead away)."""
    t: int = P[0]
    h = hands[lead]
    live = hands[0] | hands[1] | hands[2] | hands[3]
    played = FULLM ^ live
    tmask = SUITM << (13 * t)
    lead_ok = legal_mask(h, hands, 0, P, tn, played)  # trick unused when leading
    rt = _run(h, live, t) if (lead_ok & tmask) != 0 else 0
    q = rt
    for s in range(4):
        if s == t:
            continue
        r = _run(h, live, s)
        if r == 0:
            continue
        for o in range(4):
            if o == lead:
                continue
            if _len(hands[o], t) > rt:  # it may ruff once out of the suit
                r = min(r, _len(hands[o], s))
        q += r
    return q


@_jit
def _coalition_trumps(hands: np.ndarray, live: I64, me: int, t: int) -> int:
    """Tricks the other three surely take with the top trumps they hold between them
    (above the seat's highest): each of one seat's such trumps wins a trick of its
    own (the trick goes to a trump of theirs at least as high), so the most any one
    of them holds."""
    top = np.int64(0)
    c = 13 * t + 12
    while c >= 13 * t:
        bit = np.int64(1) << c
        if live & bit:
            if hands[me] & bit:
                break
            top |= bit
        c -= 1
    best = 0
    for o in range(4):
        if o != me:
            best = max(best, _pop(hands[o] & top))
    return best


@_jit
def _find(keys: np.ndarray, rel: np.ndarray, k4: int, sl: int) -> int:
    """The slot of the pair ``sl``, ``sl ^ 1`` that holds this position, or -1."""
    for x in (sl, sl ^ 1):
        if (
            keys[x, 0] == rel[0]
            and keys[x, 1] == rel[1]
            and keys[x, 2] == rel[2]
            and keys[x, 3] == rel[3]
            and keys[x, 4] == k4
        ):
            return x
    return -1


@_jit
def _relative(hands: np.ndarray, out: np.ndarray) -> None:
    """The hands with each card replaced by its rank among the live cards of its
    suit (the same answers: only the order within a suit matters)."""
    live = hands[0] | hands[1] | hands[2] | hands[3]
    for o in range(4):
        out[o] = 0
    for s in range(4):
        k = 13 * s
        for c in range(13 * s, 13 * s + 13):
            bit = np.int64(1) << c
            if live & bit:
                for o in range(4):
                    if hands[o] & bit:
                        out[o] |= np.int64(1) << k
                        break
                k += 1


@_jit
def _beats(c: int, best: int, t: int) -> bool:
    if c // 13 == best // 13:
        return c > best
    return c // 13 == t


@_jit
def _moves(
    hands: np.ndarray,
    trk: np.ndarray,
    n: int,
    s: int,
    me: int,
    P: np.ndarray,
    tn: int,
    out: np.ndarray,
    score: np.ndarray,
) -> int:
    """The moves worth trying at a turn, best guess first, into ``out``; returns how many."""
    t: int = P[0]
    played = FULLM ^ (hands[0] | hands[1] | hands[2] | hands[3])
    lm = legal_mask(hands[s], trk, n, P, tn, played)
    live = hands[0] | hands[1] | hands[2] | hands[3]
    best = -1
    bi = 0
    for i in range(n):
        c = trk[i]
        live |= np.int64(1) << c
        if best < 0 or _beats(c, best, t):
            best = c
            bi = i
    # who wins the trick so far: the seat playing (n - bi) places before this one
    mine_now = n > 0 and ((s - (n - bi)) & 3) == me
    me_played = ((me - s + n) & 3) < n
    k = 0
    m = lm
    while m != 0:
        c = _low(m)
        m &= m - 1
        # a run of this hand's cards with no other live card between: keep its lowest only
        below = live & (SUITM << (13 * (c // 13))) & ((np.int64(1) << c) - 1)
        if below != 0 and (lm >> _high_in_suit(below, c // 13)) & 1:
            continue
        r = c % 13
        wins = n > 0 and _beats(c, best, t)
        if s == me:
            if n == 0:
                sc = 100 - r  # lead high
            elif wins:
                sc = 50 - r  # the cheapest winner
            else:
                sc = 20 - r  # else the lowest
        else:
            if n == 0:
                sc = 20 - r  # lead low
            elif me_played:
                if mine_now:
                    sc = 50 - r if wins else 20 - r  # take it from the seat, cheaply
                else:
                    sc = 50 - r if not wins else 20 - r  # the coalition holds it: stay low
            else:
                sc = 30 * wins + r  # the seat still to play: as high as it goes
        # insertion, highest score first
        j = k
        while j > 0 and score[j - 1] < sc:
            score[j] = score[j - 1]
            out[j] = out[j - 1]
            j -= 1
        score[j] = sc
        out[j] = c
        k += 1
    return k


@_jit
def dd_reach(
    hands0: np.ndarray,
    trick0: np.ndarray,
    n0: int,
    leader0: int,
    tn0: int,
    P: np.ndarray,
    me: int,
    target: int,
    keys: np.ndarray,
    vals: np.ndarray,
    budget: I64,
    nodes: np.ndarray,
) -> int:
    """Whether seat ``me`` takes at least ``target`` more tricks (the current one
    included) from a position ``n0`` cards into trick ``tn0``: 1 yes, 0 no, -1 when
    ``nodes[0]`` (turns searched, added to) passes ``budget``.  (An explicit stack:
    numba's cache does not keep recursive functions.)

    Seat 0 holds the ace and king of trumps, the others a heart each and a low club:

    >>> from callbreak import Ruleset
    >>> from callbreak.cards import mask_of
    >>> from .core import rules_array
    >>> hands = np.array([mask_of(h) for h in (["AS", "KS"], ["2H", "2C"], ["3H", "3C"], ["4H", "4C"])], dtype=np.int64)
    >>> keys, vals = dd_table(6)
    >>> trick, nodes = np.zeros(4, dtype=np.int64), np.zeros(1, dtype=np.int64)
    >>> reach = [int(dd_reach(hands, trick, 0, 1, 11, rules_array(Ruleset()), 0, k, keys, vals, 100, nodes)) for k in (1, 2)]
    >>> reach, int(nodes[0]) > 0   # seat 1 leads; seat 0 ruffs twice
    ([1, 1], True)
    >>> int(dd_reach(hands, trick, 0, 1, 11, rules_array(Ruleset()), 2, 1, keys, vals, 100, nodes))
    0
    """
    t: int = P[0]
    size = vals.shape[0]
    hands = hands0.copy()
    D = 54
    trk = np.zeros((D, 4), dtype=np.int64)
    seat = np.zeros(D, dtype=np.int64)
    nn = np.zeros(D, dtype=np.int64)
    ld = np.zeros(D, dtype=np.int64)
    tns = np.zeros(D, dtype=np.int64)
    got = np.zeros(D, dtype=np.int64)
    slot = np.zeros(D, dtype=np.int64)
    cand = np.zeros((D, 13), dtype=np.int64)
    nc = np.zeros(D, dtype=np.int64)
    ix = np.zeros(D, dtype=np.int64)
    res = np.zeros(D, dtype=np.int64)
    score = np.zeros(13, dtype=np.int64)
    rel = np.zeros(4, dtype=np.int64)
    for i in range(n0):
        trk[0, i] = trick0[i]
    nn[0] = n0
    ld[0] = leader0
    tns[0] = tn0
    seat[0] = (leader0 + n0) & 3
    d = 0
    mode = 0  # 0: enter node d, 1: next move at d, 2: return ``ret`` from d
    ret = 0
    while True:
        if mode == 0:
            need = target - got[d]
            slot[d] = -1
            if need <= 0:
                ret = 1
                mode = 2
                continue
            if need > 13 - tns[d]:
                ret = 0
                mode = 2
                continue
            nodes[0] += 1
            if nodes[0] > budget:
                return -1
            if nn[d] == 0:
                lead = ld[d]
                q = _quick(hands, lead, P, tns[d])
                if lead == me and need <= q:
                    ret = 1
                    mode = 2
                    continue
                if lead != me and need > 13 - tns[d] - q:
                    ret = 0
                    mode = 2
                    continue
                live = hands[0] | hands[1] | hands[2] | hands[3]
                if lead != me and need <= _run(hands[me], live, t):
                    ret = 1  # the top trumps win whenever they are played
                    mode = 2
                    continue
                if need > 13 - tns[d] - _coalition_trumps(hands, live, me, t):
                    ret = 0
                    mode = 2
                    continue
                _relative(hands, rel)
                sl = _slot(rel, lead + 4 * me, size)
                hit = _find(keys, rel, lead + 4 * me, sl)
                if hit >= 0:
                    lo = (vals[hit] >> 4) & 15
                    hi = vals[hit] & 15
                    if need <= lo:
                        ret = 1
                        mode = 2
                        continue
                    if need > hi:
                        ret = 0
                        mode = 2
                        continue
                slot[d] = sl
            nc[d] = _moves(hands, trk[d], nn[d], seat[d], me, P, tns[d], cand[d], score)
            ix[d] = 0
            res[d] = 0 if seat[d] == me else 1
            mode = 1
            continue
        if mode == 2:
            sl = slot[d]
            if sl >= 0:
                need = target - got[d]
                _relative(hands, rel)
                hit = _find(keys, rel, ld[d] + 4 * me, sl)
                if hit >= 0:
                    sl = hit
                    lo = (vals[sl] >> 4) & 15
                    hi = vals[sl] & 15
                else:
                    # of the two slots, replace the one that saved less work (fewer tricks left)
                    if (vals[sl ^ 1] >> 8) < (vals[sl] >> 8):
                        sl ^= 1
                    keys[sl, 0] = rel[0]
                    keys[sl, 1] = rel[1]
                    keys[sl, 2] = rel[2]
                    keys[sl, 3] = rel[3]
                    keys[sl, 4] = ld[d] + 4 * me
                    lo = 0
                    hi = 13 - tns[d]
                if ret == 1:
                    lo = max(lo, need)
                else:
                    hi = min(hi, need - 1)
                vals[sl] = ((13 - tns[d]) << 8) | (lo << 4) | hi
            if d == 0:
                return ret
            d -= 1
            hands[seat[d]] ^= np.int64(1) << cand[d, ix[d] - 1]
            maxing = 1 if seat[d] == me else 0
            if ret == maxing:
                res[d] = ret
                ix[d] = nc[d]
            mode = 1
            continue
        # mode 1: the next move at d
        if ix[d] >= nc[d]:
            ret = res[d]
            mode = 2
            continue
        c = cand[d, ix[d]]
        ix[d] += 1
        s = seat[d]
        n = nn[d]
        hands[s] ^= np.int64(1) << c
        e = d + 1
        for i in range(n):
            trk[e, i] = trk[d, i]
        trk[e, n] = c
        if n == 3:
            w = (ld[d] + trick_winner(trk[e], t)) & 3
            got[e] = got[d] + (1 if w == me else 0)
            nn[e] = 0
            ld[e] = w
            seat[e] = w
            tns[e] = tns[d] + 1
        else:
            got[e] = got[d]
            nn[e] = n + 1
            ld[e] = ld[d]
            seat[e] = (s + 1) & 3
            tns[e] = tns[d]
        d = e
        mode = 0
