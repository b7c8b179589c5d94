"""One seat's best play over the last tricks of a known deal, the others playing by their styles.

Where the other seats are modelled by a fixed rule (``spar-simple``'s card or the
medium level's), a deal's last tricks are a puzzle for one seat alone: it chooses,
the others answer by their rules.  `plan` searches every line of the seat's own
cards (against ``spar-simple``'s rule alone, cards of one suit with no other card
left between them are one choice: the rule cannot tell them apart, where the medium
level's inference of who holds what can) and returns the value of the best; unlike max^n (`callbreak.bots.kernel.solve`) it does
not credit the others with play they would not find.
"""

from __future__ import annotations

import numpy as np

from .core import I64, SUITM, _high_in_suit, _jit, _low, _others, legal_mask, trick_winner
from .medium import _medium, _observe
from .policy import simple_card
from .scoring import _value

__all__ = ["plan"]

# the state of a round in progress, beside the hands, the trick, the tricks won
# and what each seat is known not to hold: one int64 array of these five
N, LEADER, TN, PLAYED, SEAT = 0, 1, 2, 3, 4


@_jit
def _step(
    hands: np.ndarray, trick: np.ndarray, st: np.ndarray, won: np.ndarray, cannot: np.ndarray, c: int, P: np.ndarray
) -> bool:
    """Seat ``st[SEAT]`` plays ``c``; False once that ends the round."""
    n, s = st[N], st[SEAT]
    _observe(cannot, trick, n, c, s, P, st[TN], st[PLAYED])
    trick[n] = c
    bit = np.int64(1) << c
    hands[s] ^= bit
    st[PLAYED] |= bit
    if n == 3:
        w = (st[LEADER] + trick_winner(trick, P[0])) & 3
        won[w] += 1
        st[N], st[LEADER], st[SEAT] = 0, w, w
        st[TN] += 1
        return bool(st[TN] < 13)
    st[N] = n + 1
    st[SEAT] = (s + 1) & 3
    return True


@_jit
def _answer(
    hands: np.ndarray,
    trick: np.ndarray,
    st: np.ndarray,
    won: np.ndarray,
    cannot: np.ndarray,
    me: int,
    P: np.ndarray,
    calls: np.ndarray,
    opp: np.ndarray,
) -> bool:
    """The other seats play by their styles until ``me`` is to play; False once the round ends."""
    while st[SEAT] != me:
        s = st[SEAT]
        lm = legal_mask(hands[s], trick, st[N], P, st[TN], st[PLAYED])
        if opp[s] >= 1:
            c = simple_card(lm, trick, st[N], P[0], opp[s] - 1)
        else:
            c = _medium(hands[s], _others(hands, s), s, lm, trick, st[N], P, won, calls, cannot)
        if not _step(hands, trick, st, won, cannot, c, P):
            return False
    return True


@_jit
def _choices(hands: np.ndarray, trick: np.ndarray, st: np.ndarray, P: np.ndarray, opp: np.ndarray) -> I64:
    """The legal cards of the seat to play; where every other seat plays ``spar-simple``'s
    rule, less each that has a legal card of its suit just below it (no card still in a
    hand or the trick between them): the same play to that rule.  (The medium level's
    rules tell them apart: playing under one of them shows a seat lacks the cards above.)"""
    lm = legal_mask(hands[st[SEAT]], trick, st[N], P, st[TN], st[PLAYED])
    for s in range(4):
        if s != st[SEAT] and opp[s] == 0:
            return lm
    alive = hands[0] | hands[1] | hands[2] | hands[3]
    for i in range(st[N]):
        alive |= np.int64(1) << trick[i]
    out = lm
    m = lm
    while m != 0:
        x = _low(m)
        m &= m - 1
        below = alive & (SUITM << (13 * (x // 13))) & ((np.int64(1) << x) - 1)
        if below != 0 and (lm >> _high_in_suit(below, x // 13)) & 1:
            out &= ~(np.int64(1) << x)
    return out


@_jit
def plan(
    hands0: np.ndarray,
    trick0: np.ndarray,
    st0: np.ndarray,
    won0: np.ndarray,
    cannot0: np.ndarray,
    me: int,
    P: np.ndarray,
    calls: np.ndarray,
    opp: np.ndarray,
    totals: np.ndarray,
    sd: float,
) -> float:
    """Seat ``me``'s value (`scoring._value`) of the round played out from the known
    deal ``hands0`` with its best line of cards, each other seat ``s`` answering by
    its style ``opp[s]`` (``1 + o``: ``spar-simple``'s card with its hand in order
    ``o``; 0: the medium level's rules, knowing ``cannot0``).  ``st0``: the number of
    cards in the trick ``trick0``, its leader, the trick number, the cards played,
    the seat to play.  The arguments are not changed.

    Seat 0 on lead with the ace and king of hearts and the 2 of spades, one more
    trick to make; each other seat plays ``spar-simple``'s card (its lowest winner):

    >>> from callbreak import Ruleset
    >>> from callbreak.cards import mask_of
    >>> from .core import rules_array
    >>> hands = np.array([mask_of(h) for h in (["AH", "KH", "2S"], ["QH", "3S", "2C"],
    ...                   ["JH", "4S", "3C"], ["TH", "5S", "4C"])], dtype=np.int64)
    >>> played = ((1 << 52) - 1) & ~int(hands[0] | hands[1] | hands[2] | hands[3])
    >>> st = np.array([0, 0, 10, played, 0], dtype=np.int64)
    >>> won, calls = np.array([4, 2, 2, 2], dtype=np.int64), np.array([5, 2, 2, 2], dtype=np.int64)
    >>> z4 = np.zeros(4, dtype=np.int64)
    >>> v = plan(hands, z4, st, won, z4, 0, rules_array(Ruleset()), calls, np.ones(4, dtype=np.int64), np.zeros(4), 0.0)
    >>> round(v, 4)   # the ace wins, the king is cut, the 2 cuts the clubs: the call of 5 made, 1 over
    1.0204
    """
    D = 14
    H = np.zeros((D, 4), dtype=np.int64)
    T = np.zeros((D, 4), dtype=np.int64)
    S = np.zeros((D, 5), dtype=np.int64)
    W = np.zeros((D, 4), dtype=np.int64)
    C = np.zeros((D, 4), dtype=np.int64)
    rem = np.zeros(D, dtype=np.int64)
    best = np.full(D, -1e300)
    H[0, :] = hands0
    T[0, :] = trick0
    S[0, :] = st0
    W[0, :] = won0
    C[0, :] = cannot0
    if S[0, TN] >= 13 or not _answer(H[0], T[0], S[0], W[0], C[0], me, P, calls, opp):
        return _value(me, W[0], calls, totals, sd, P)
    rem[0] = _choices(H[0], T[0], S[0], P, opp)
    d = 0
    while True:
        if rem[d] == 0:
            v = best[d]
            if d == 0:
                return float(v)
            d -= 1
            if v > best[d]:
                best[d] = v
            continue
        c = _low(rem[d])
        rem[d] &= rem[d] - 1
        e = d + 1
        H[e, :] = H[d]
        T[e, :] = T[d]
        S[e, :] = S[d]
        W[e, :] = W[d]
        C[e, :] = C[d]
        if _step(H[e], T[e], S[e], W[e], C[e], c, P) and _answer(H[e], T[e], S[e], W[e], C[e], me, P, calls, opp):
            rem[e] = _choices(H[e], T[e], S[e], P, opp)
            best[e] = -1e300
            d = e
        else:
            v = _value(me, W[e], calls, totals, sd, P)
            if v > best[d]:
                best[d] = v
