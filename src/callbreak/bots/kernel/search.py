"""The searches: each candidate card, or call, played out over many deals."""

from __future__ import annotations

import numpy as np

from .core import I64, _jit, _jit_inline, _kth, _others, _pop, _rand, legal_mask, trick_winner
from .features import _hand_mean
from .medium import _medium, _observe
from .policy import _policy, simple_card
from .scoring import _value
from .solve import _solve

__all__ = ["call_search", "search"]


@_jit_inline
def _put(
    hands: np.ndarray,
    won: np.ndarray,
    trick: np.ndarray,
    pubvoid: np.ndarray,
    cannot: np.ndarray,
    n: int,
    leader: int,
    played: I64,
    tn: int,
    s: int,
    c: int,
    P: np.ndarray,
    observe: bool,
) -> tuple[int, int, int, int, int]:
    """Seat ``s`` plays ``c`` (the arrays are the state, changed in place; ``observe``:
    what the card shows added to ``cannot``, as `_observe` infers it): the cards on
    the trick, the leader, the cards played, the trick number and the seat to play
    after it (a trick number of 13: the round is over)."""
    if observe:
        _observe(cannot, trick, n, c, s, P, tn, played)
    trick[n] = c
    if n > 0 and c // 13 != trick[0] // 13:
        pubvoid[s] |= np.int64(1) << (trick[0] // 13)
    bit = np.int64(1) << c
    hands[s] ^= bit
    played |= bit
    if n == 3:
        leader = (leader + trick_winner(trick, P[0])) & 3
        won[leader] += 1
        return 0, leader, int(played), tn + 1, leader
    return n + 1, leader, int(played), tn, (s + 1) & 3


@_jit
def _play_on(
    hands: np.ndarray,
    won: np.ndarray,
    trick: np.ndarray,
    pubvoid: np.ndarray,
    cannot: np.ndarray,
    n: int,
    leader: int,
    played: I64,
    tn: int,
    s: int,
    c: int,
    me: int,
    P: np.ndarray,
    calls: np.ndarray,
    totals: np.ndarray,
    sd: float,
    eps: int,
    rng: np.ndarray,
    solve_k: int,
    mpol: int,
    opp: np.ndarray,
    vt: np.ndarray,
    low_duck: bool,
) -> float:
    """Seat ``s`` plays ``c`` and the round is played out as `search` plays it (the
    arrays are the state, changed in place); ``me``'s value of the end."""
    t = P[0]
    while True:
        n, leader, played, tn, s = _put(hands, won, trick, pubvoid, cannot, n, leader, played, tn, s, c, P, mpol != 0)
        if tn == 13:
            break
        if 13 - tn <= solve_k:
            base = np.int64(0)
            for o in range(4):
                base += won[o] << (4 * o)
            code = _solve(hands, trick, n, leader, s, int(played), tn, P, base, calls, totals, sd, vt)
            for o in range(4):
                won[o] += (code >> (4 * o)) & 15
            break
        lm = legal_mask(hands[s], trick, n, P, tn, played)
        if s != me and opp[s] >= 1:
            c = simple_card(lm, trick, n, t, opp[s] - 1)
        elif mpol != 0:
            if eps > 0 and _rand(rng, 100) < eps:
                c = _kth(lm, _rand(rng, _pop(lm)))
            else:
                c = _medium(hands[s], _others(hands, s), s, lm, trick, n, P, won, calls, cannot)
        else:
            c = _policy(hands, s, lm, trick, n, t, won[s] < calls[s], rng, eps, pubvoid, low_duck)
    return _value(me, won, calls, totals, sd, P)


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
    opp: np.ndarray,
) -> np.ndarray:
    """The value of each candidate card in ``moves`` (columns) on each deal of
    ``dets`` (one row of four hand masks per deal) and rollout (rows: deal-major),
    the same random numbers for every candidate.  From the moment at most
    ``solve_k`` tricks remain, the deal is solved exactly (max^n) instead.
    ``mpol``: 1 to play the playouts with the medium level's rules (`_medium`,
    ``cannot0``: what each seat is publicly known not to hold), 0 the fast policy;
    ``opp``: each seat's style (`callbreak.bots.styles`): ``1 + o`` to play that seat
    (other than ``me``) by ``spar-simple``'s rule with its hand in order ``o``
    (`simple_card`, `policy.ORDERS`) instead, 0 as ``mpol`` says.

    Seat 2 leads the first trick of a lone round; its two legal cards valued on the real deal:

    >>> from callbreak import Round, Ruleset
    >>> from .core import rules_array
    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=3), dealer=1)
    >>> for c in (2, 3, 1, 4):
    ...     _ = rnd.call(c)
    >>> moves = np.array(rnd.legal_cards()[:2], dtype=np.int64)
    >>> z = np.zeros(4, dtype=np.int64)
    >>> values = search(
    ...     np.array([rnd.hand_masks], dtype=np.int64), rnd.to_act, z, 0, rnd.leader, z, 0, 0,
    ...     rules_array(rnd.rules), np.array(rnd.calls, dtype=np.int64), moves, 2, np.zeros(4), 13.5,
    ...     4, 1, z, 0, z, 0, z,
    ... )
    >>> values.shape, bool((values > 0).all() and (values < 1.1).all())
    ((2, 2), True)
    """
    cannot = np.zeros(4, dtype=np.int64)
    nm = moves.shape[0]
    values = np.zeros((dets.shape[0] * rollouts, nm))
    hands = np.zeros(4, dtype=np.int64)
    won = np.zeros(4, dtype=np.int64)
    trick = np.zeros(4, dtype=np.int64)
    rng = np.zeros(1, dtype=np.int64)
    pubvoid = np.zeros(4, dtype=np.int64)
    low_duck = P[5] > 0 and P[6] < 0  # extra tricks are worth a little: keep high cards
    vt = np.full((4, (1 << 16) if solve_k > 0 else 1), np.nan)
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
                values[d * rollouts + r, mi] = _play_on(
                    hands, won, trick, pubvoid, cannot, n0, leader0, played0, trick_no0, me, moves[mi], me,
                    P, calls, totals, sd, eps, rng, solve_k, mpol, opp, vt, low_duck,
                )
    return values


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
    mpol: int,
    outcomes: np.ndarray,
    rescue: float,
    opp: np.ndarray,
) -> np.ndarray:
    """The value of each candidate call in ``cands`` (columns) on each deal (rows):
    the round played out with the playout policy for all four seats.  Seats that
    have not called yet (``known_calls[s] < 0``) call the model's estimate.
    ``outcomes`` (the same shape, int64) receives each playout's end: the tricks
    won by seat ``s`` in bits ``4s..4s+3`` and its call in bits ``16+4s..19+4s``.
    ``rescue``: the share of a playout in which seat ``me`` falls one trick short
    of its call that is valued as made (its real play makes its call more often
    than the playout policy does); 0 values every playout as it ends.
    ``opp``: each seat's style, ``1 + o`` for a seat other than ``me`` to play by
    ``spar-simple``'s rule with its hand in order ``o`` (`simple_card`) and, where it
    has not called yet, to call its aces and kings.

    The first seat to call, on three deals of the others' cards:

    >>> import random
    >>> from callbreak import Round, Ruleset
    >>> from callbreak.bots.calling import load_model
    >>> from callbreak.bots.determinize import sample_deals
    >>> from callbreak.bots.playouts import decode_outcomes
    >>> from callbreak.bots.knowledge import Knowledge
    >>> from .core import rules_array
    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=3), dealer=1)
    >>> v = rnd.view(rnd.to_act)
    >>> deals = np.array(sample_deals(v, Knowledge.from_view(v), 3, random.Random(1)), dtype=np.int64)
    >>> cands = np.array([2, 3, 4], dtype=np.int64)
    >>> outcomes = np.zeros((3, 3), dtype=np.int64)
    >>> values = call_search(
    ...     deals, v.seat, 2, np.full(4, -1, dtype=np.int64), cands, rules_array(v.rules),
    ...     np.array(load_model().weights), np.array([2, 3, 0, 1], dtype=np.int64), 1, 13, 0.4,
    ...     np.zeros(4), 13.5, 4, 1, 0, outcomes, 0.0, np.zeros(4, dtype=np.int64),
    ... )
    >>> won, calls = decode_outcomes(outcomes)
    >>> values.shape, won.sum(axis=-1).tolist(), calls[..., v.seat].tolist()
    ((3, 3), [[13, 13, 13], [13, 13, 13], [13, 13, 13]], [[2, 3, 4], [2, 3, 4], [2, 3, 4]])
    """
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
                elif opp[s] >= 1:  # spar-simple (any hand order): its aces and kings
                    h = dets[d, s]
                    c = 0
                    for su in range(4):
                        c += (h >> (13 * su + 11)) & 1
                        c += (h >> (13 * su + 12)) & 1
                    calls[s] = min(max(c, min_call), max_call)
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
                    if s != me and opp[s] >= 1:
                        c = simple_card(lm, trick, i, t, opp[s] - 1)
                    elif mpol != 0:
                        if eps > 0 and _rand(rng, 100) < eps:
                            c = _kth(lm, _rand(rng, _pop(lm)))
                        else:
                            c = _medium(hands[s], _others(hands, s), s, lm, trick, i, P, won, calls, cannot)
                    else:
                        c = _policy(hands, s, lm, trick, i, t, won[s] < calls[s], rng, eps, pubvoid, low_duck)
                    if mpol != 0:
                        _observe(cannot, trick, i, c, s, P, tn, played)
                    trick[i] = c
                    if i > 0 and c // 13 != trick[0] // 13:
                        pubvoid[s] |= np.int64(1) << (trick[0] // 13)
                    bit = np.int64(1) << c
                    hands[s] ^= bit
                    played |= bit
                ld = (ld + trick_winner(trick, t)) & 3
                won[ld] += 1
            values[d, ci] = _value(me, won, calls, totals, sd, P)
            if rescue > 0.0 and won[me] + 1 == calls[me]:
                won[me] += 1
                values[d, ci] = (1.0 - rescue) * values[d, ci] + rescue * _value(me, won, calls, totals, sd, P)
                won[me] -= 1
            code = np.int64(0)
            for s in range(4):
                code |= (won[s] << (4 * s)) | (calls[s] << (16 + 4 * s))
            outcomes[d, ci] = code
    return values
