"""The card search with the seat's next card chosen by what it will know then."""

from __future__ import annotations

import numpy as np

from .core import _jit, _kth, _others, _pop, legal_mask
from .medium import _medium
from .policy import simple_card
from .search import _play_on, _put

__all__ = ["look"]

#: a key's radix: a card plus one (0 is no card)
_RADIX = 53


@_jit
def look(
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
    totals: np.ndarray,
    sd: float,
    eps: int,
    seed: int,
    pubvoid0: np.ndarray,
    cannot0: np.ndarray,
    opp: np.ndarray,
    least: int,
    base: np.ndarray,
    max_work: int,
) -> np.ndarray:
    """``base`` (`search`'s values: deals in rows, ``moves`` in columns, one
    rollout a deal, no exact endgames) with seat ``me``'s next card chosen by
    what it will know then, instead of by the playout policy.

    After each candidate card the others play on, each by its style's card
    without random cards (``opp[s] >= 1``: ``spar-simple``'s rule in hand order
    ``opp[s] - 1``; 0: the medium level's rules), until ``me`` is to play again.
    The deals on which they played the same cards are those ``me`` will not be
    able to tell apart; in a group of at least ``least`` of them (at least 2),
    where ``me`` then has two legal cards or more, each next card is played out
    on every deal of the group as `search` plays it (the same random numbers
    for every candidate and next card of a deal), and a deal's value is that of
    the card best on the group's other deals (left out, so that the best of
    noisy means does not flatter the groups: the value of choosing by what is
    known, not by the deal).  A deal whose group is smaller, where ``me`` has one
    card left to play then, or whose round ends first, keeps ``base``'s value.
    ``max_work``: the most playouts that may be spent (-1: no limit); where the
    groups would take more, ``base`` comes back unchanged (all or nothing, so
    that the candidates are valued alike).

    Seat 2 leads the first trick of a lone round, four copies of the real deal,
    no random cards: each next card the best for that deal, never worse than
    the medium level's, and better for some first cards:

    >>> from callbreak import Round, Ruleset
    >>> from .core import rules_array
    >>> from .search import search
    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=3), dealer=1)
    >>> for c in (2, 3, 1, 4):
    ...     _ = rnd.call(c)
    >>> moves = np.array(rnd.legal_cards()[:3], dtype=np.int64)
    >>> dets = np.array([rnd.hand_masks] * 4, dtype=np.int64)
    >>> z = np.zeros(4, dtype=np.int64)
    >>> args = (dets, rnd.to_act, z, 0, rnd.leader, z, 0, 0, rules_array(rnd.rules),
    ...         np.array(rnd.calls, dtype=np.int64), moves)
    >>> base = search(*args, 1, np.zeros(4), 13.5, 0, 1, z, 0, z, 1, z)
    >>> better = look(*args, np.zeros(4), 13.5, 0, 1, z, z, z, 2, base, -1)
    >>> better.shape, bool((better >= base - 1e-12).all()), bool((better > base).any())
    ((4, 3), True, True)
    >>> bool((look(*args, np.zeros(4), 13.5, 0, 1, z, z, z, 2, base, 10) == base).all())   # too little room
    True
    """
    t = P[0]
    nd = dets.shape[0]
    nm = moves.shape[0]
    least = max(least, 2)
    out = base.copy()
    # the position at the seat's next turn after each candidate, on each deal
    keys = np.zeros((nm, nd), dtype=np.int64)
    hs = np.zeros((nm, nd, 4), dtype=np.int64)
    tricks = np.zeros((nm, nd, 4), dtype=np.int64)
    wons = np.zeros((nm, nd, 4), dtype=np.int64)
    pubs = np.zeros((nm, nd, 4), dtype=np.int64)
    cans = np.zeros((nm, nd, 4), dtype=np.int64)
    ints = np.zeros((nm, nd, 4), dtype=np.int64)  # n, leader, trick number, played
    hands = np.zeros(4, dtype=np.int64)
    won = np.zeros(4, dtype=np.int64)
    trick = np.zeros(4, dtype=np.int64)
    pubvoid = np.zeros(4, dtype=np.int64)
    cannot = np.zeros(4, dtype=np.int64)
    rng = np.zeros(1, dtype=np.int64)
    vt = np.full((4, 1), np.nan)
    low_duck = P[5] > 0 and P[6] < 0
    for mi in range(nm):
        for d in range(nd):
            for i in range(4):
                hands[i] = dets[d, i]
                won[i] = won0[i]
                trick[i] = trick0[i]
                pubvoid[i] = pubvoid0[i]
                cannot[i] = cannot0[i]
            n = n0
            leader = leader0
            played = played0
            tn = trick_no0
            s = me
            c = moves[mi]
            key = 0
            while True:
                if s != me:
                    key = key * _RADIX + c + 1
                n, leader, played, tn, s = _put(hands, won, trick, pubvoid, cannot, n, leader, played, tn, s, c, P, True)
                if tn == 13:
                    key = -1
                    break
                if s == me:
                    break
                lm = legal_mask(hands[s], trick, n, P, tn, played)
                if opp[s] >= 1:
                    c = simple_card(lm, trick, n, t, opp[s] - 1)
                else:
                    c = _medium(hands[s], _others(hands, s), s, lm, trick, n, P, won, calls, cannot)
            keys[mi, d] = key
            for i in range(4):
                hs[mi, d, i] = hands[i]
                tricks[mi, d, i] = trick[i]
                wons[mi, d, i] = won[i]
                pubs[mi, d, i] = pubvoid[i]
                cans[mi, d, i] = cannot[i]
            ints[mi, d, 0] = n
            ints[mi, d, 1] = leader
            ints[mi, d, 2] = tn
            ints[mi, d, 3] = played
    # the groups (deals in order of their keys) and the playouts they take
    orders = np.zeros((nm, nd), dtype=np.int64)
    work = 0
    for mi in range(nm):
        orders[mi] = np.argsort(keys[mi], kind="mergesort")
        a = 0
        while a < nd:
            b = a
            while b < nd and keys[mi, orders[mi, b]] == keys[mi, orders[mi, a]]:
                b += 1
            d0 = orders[mi, a]
            if keys[mi, d0] >= 0 and b - a >= least:
                nm2 = _pop(legal_mask(hs[mi, d0, me], tricks[mi, d0], ints[mi, d0, 0], P, ints[mi, d0, 2], ints[mi, d0, 3]))
                if nm2 >= 2:
                    work += (b - a) * nm2
            a = b
    if max_work >= 0 and work > max_work:
        return out
    for mi in range(nm):
        order = orders[mi]
        a = 0
        while a < nd:
            b = a
            while b < nd and keys[mi, order[b]] == keys[mi, order[a]]:
                b += 1
            g = b - a
            d0 = order[a]
            if keys[mi, d0] < 0 or g < least:
                a = b
                continue
            lm = legal_mask(hs[mi, d0, me], tricks[mi, d0], ints[mi, d0, 0], P, ints[mi, d0, 2], ints[mi, d0, 3])
            nm2 = _pop(lm)
            if nm2 >= 2:
                vals = np.zeros((g, nm2))
                for gi in range(g):
                    d = order[a + gi]
                    stream = (seed * 1000003 + d * 7919) & 0xFFFFFFFFFFFF
                    for m2 in range(nm2):
                        rng[0] = stream
                        for i in range(4):
                            hands[i] = hs[mi, d, i]
                            won[i] = wons[mi, d, i]
                            trick[i] = tricks[mi, d, i]
                            pubvoid[i] = pubs[mi, d, i]
                            cannot[i] = cans[mi, d, i]
                        vals[gi, m2] = _play_on(
                            hands, won, trick, pubvoid, cannot, ints[mi, d, 0], ints[mi, d, 1], ints[mi, d, 3],
                            ints[mi, d, 2], me, _kth(lm, m2), me, P, calls, totals, sd, eps, rng, 0, 1, opp, vt,
                            low_duck,
                        )
                tot = vals.sum(axis=0)
                for gi in range(g):
                    best = 0
                    for m2 in range(1, nm2):
                        if tot[m2] - vals[gi, m2] > tot[best] - vals[gi, best]:
                            best = m2
                    out[order[a + gi], mi] = vals[gi, best]
            a = b
    return out
