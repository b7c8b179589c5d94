"""Exact endgames: max^n over the last tricks of a known deal."""

from __future__ import annotations

import numpy as np

from .core import I64, SUITM, _high_in_suit, _jit, _low, legal_mask, trick_winner
from .scoring import _value

__all__ = ["solve"]


@_jit
def _val_of(
    vt: np.ndarray, s: int, code: int, calls: np.ndarray, totals: np.ndarray, sd: float, P: np.ndarray
) -> float:
    """Seat ``s``'s value of the round ending with tricks won ``code`` (4 bits a seat), cached."""
    v = vt[s, code]
    if v == v:
        return float(v)
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
    return int(a)


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
    base0: I64,
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
                return int(res - base0)
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
    best value (max^n).

    Two tricks left, seat 0 on lead with the ace and king of trumps:

    >>> from callbreak import Ruleset
    >>> from callbreak.cards import mask_of
    >>> from .core import rules_array
    >>> hands = np.array([mask_of(h) for h in (["AS", "KS"], ["2H", "2C"], ["3H", "3C"], ["4H", "4C"])], dtype=np.int64)
    >>> played = ((1 << 52) - 1) & ~int(hands[0] | hands[1] | hands[2] | hands[3])
    >>> won = np.array([3, 3, 3, 2], dtype=np.int64)
    >>> calls = np.array([5, 3, 3, 2], dtype=np.int64)
    >>> solve(hands, np.zeros(4, dtype=np.int64), 0, 0, played, 11, rules_array(Ruleset()), won, calls, np.zeros(4), 0.0).tolist()
    [5, 3, 3, 2]
    """
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
