"""The opponent model's likelihood: how well a deal explains the other seats' play and calls.

`mismatches` counts the cards the medium level's rules would not have played
with the hands a deal gives; `refine` moves deals by Metropolis-Hastings card
swaps towards those that explain the play and the calls; `style_misses` counts,
seat by seat, what each style (medium's rules, ``spar-simple``'s with its hand in
any of 48 orders) would not have done, the evidence from which ``hard`` infers how each seat plays.
"""

from __future__ import annotations

import numpy as np

from .core import FULLM, _jit, _kth, _low, _pop, _rand, legal_mask, trick_winner
from .features import _hand_mean
from .medium import _medium, _observe
from .policy import ORDERS, simple_card, simple_fits

__all__ = ["mismatches", "refine", "simple_cannot", "style_misses"]


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
def _hand_at(hand_now: int, gone: int, row: np.ndarray, P: np.ndarray) -> tuple[int, int]:
    """A seat's hand and its legal cards before the card of ``row`` (of `_history`),
    holding ``hand_now`` plus the cards it played since (``gone``: all it has played)."""
    played = row[4]
    hand = hand_now | (gone & ~played)
    return hand, int(legal_mask(hand, row[5:9], row[2], P, row[3], played))


@_jit
def _seat_miss(hand_now: int, gone: int, s: int, hist: np.ndarray, P: np.ndarray, calls: np.ndarray) -> int:
    """How many of seat ``s``'s cards so far (rows of `_history`) are not the ones
    the medium level's rules (`_medium`) would have played holding ``hand_now`` plus
    its cards played since (``gone``: all it has played).  A seat's choice depends on
    its own hand and public facts only (`_simple_misses` counts ``spar-simple``'s)."""
    bad = 0
    for r in range(hist.shape[0]):
        if hist[r, 0] == s:
            hand, lm = _hand_at(hand_now, gone, hist[r], P)
            unseen = FULLM & ~hist[r, 4] & ~hand
            c = _medium(hand, unseen, s, lm, hist[r, 5:9], hist[r, 2], P, hist[r, 9:13], calls, hist[r, 13:17])
            if c != hist[r, 1]:
                bad += 1
    return bad


@_jit
def _simple_misses(hand_now: int, gone: int, s: int, hist: np.ndarray, P: np.ndarray, out: np.ndarray) -> None:
    """Add to ``out[o]``, for each hand order ``o`` (`policy.ORDERS`), how many of seat
    ``s``'s cards so far ``spar-simple``'s rule with its hand in that order would not
    have played (`simple_fits`), holding ``hand_now`` plus its cards played since."""
    for r in range(hist.shape[0]):
        if hist[r, 0] == s:
            lm = _hand_at(hand_now, gone, hist[r], P)[1]
            fits = simple_fits(lm, hist[r, 5:9], hist[r, 2], P[0], hist[r, 1])
            for o in range(ORDERS):
                if (fits >> o) & 1 == 0:
                    out[o] += 1


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
    ones the medium level's rules (`_medium`) would have played holding it.

    Three medium bots and a fourth have called and played nine cards:

    >>> import random
    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots import make_bot
    >>> from callbreak.bots.determinize import play_record, sample_deals
    >>> from callbreak.bots.knowledge import Knowledge
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    >>> bots = [make_bot("medium", s) for s in range(4)]
    >>> for _ in range(4 + 9):
    ...     _ = m.act(bots[m.to_act].act(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> k = Knowledge.from_view(v)
    >>> record = play_record(v, k)
    >>> deals = np.array(sample_deals(v, k, 4, random.Random(1)), dtype=np.int64)
    >>> mismatches(np.array([m.round.hand_masks], dtype=np.int64), *record).tolist()  # the real deal
    [0]
    >>> mismatches(deals, *record).tolist()
    [1, 1, 3, 1]
    """
    nd = dets.shape[0]
    out = np.zeros(nd, dtype=np.int64)
    hist = _history(me, seats, cards, leader0, P)
    for d in range(nd):
        for s in range(4):
            if s != me:
                out[d] += _seat_miss(dets[d, s], played_by[s], s, hist, P, calls)
    return out


@_jit
def style_misses(
    dets: np.ndarray,
    me: int,
    seats: np.ndarray,
    cards: np.ndarray,
    leader0: int,
    P: np.ndarray,
    calls: np.ndarray,
    played_by: np.ndarray,
    called: np.ndarray,
    min_call: int,
    max_call: int,
    call_miss: int,
) -> np.ndarray:
    """For each deal (rows of the hands now), style (`callbreak.bots.styles`: 0 the
    medium level's rules, ``1 + o`` ``spar-simple``'s with its hand in order ``o`` of
    `policy.ORDERS`) and seat, how many of the seat's cards so far that style would not
    have played holding the hand the deal gives it; for ``spar-simple``'s also its
    call, counted as ``call_miss`` cards, where ``called[s]`` (the call it made,
    else it has not called) is not its aces and kings (clamped to
    ``min_call..max_call``).  The entries of seat ``me`` (the last axis) are 0.

    Four spar-simple bots have called and played nine cards: on
    the real deal their play is all simple's, and not all medium's:

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots.sparring import SimpleBot
    >>> from callbreak.bots.determinize import play_record
    >>> from callbreak.bots.knowledge import Knowledge
    >>> m = Match(Ruleset.preset("bhoos"), seed=3)
    >>> for _ in range(4 + 9):
    ...     _ = m.act(SimpleBot(seed=1).act(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> record = play_record(v, Knowledge.from_view(v))
    >>> called = np.array(v.calls, dtype=np.int64)
    >>> out = style_misses(np.array([m.round.hand_masks], dtype=np.int64), *record, called, 1, 13, 3)
    >>> out[0, 1].tolist(), int(out[0, 0].sum()) > 0, int(out[0, 1 + 24].sum()) > 0
    ([0, 0, 0, 0], True, True)
    """
    nd = dets.shape[0]
    out = np.zeros((nd, 1 + ORDERS, 4), dtype=np.int64)
    hist = _history(me, seats, cards, leader0, P)
    for d in range(nd):
        for s in range(4):
            if s == me:
                continue
            out[d, 0, s] = _seat_miss(dets[d, s], played_by[s], s, hist, P, calls)
            _simple_misses(dets[d, s], played_by[s], s, hist, P, out[d, 1:, s])
            if called[s] >= 0:
                h = dets[d, s] | played_by[s]
                ak = 0
                for su in range(4):
                    ak += (h >> (13 * su + 11)) & 1
                    ak += (h >> (13 * su + 12)) & 1
                if min(max(ak, min_call), max_call) != called[s]:
                    for o in range(ORDERS):
                        out[d, 1 + o, s] += call_miss
    return out


@_jit
def simple_cannot(
    me: int,
    seats: np.ndarray,
    cards: np.ndarray,
    leader0: int,
    P: np.ndarray,
    orders: np.ndarray,
    unseen: int,
    played_by: np.ndarray,
) -> np.ndarray:
    """For each seat taken to play ``spar-simple``'s rule with its hand in order
    ``orders[s]`` (`policy.ORDERS`; -1: another style), the cards of ``unseen`` it
    cannot hold: those with which the rule would not have played one of its cards
    so far.  Also, among its own played cards (``played_by[s]``), those it played
    after one that the rule would not have played holding them: any such card shows
    that the seat did not play the rule without exception this round.  The rule
    chooses from its legal cards by a fixed preference (the trick's winners first,
    then the hand's order), and the legal cards of a hand holding the played card
    ``p`` and ``c`` are the full hand's legal cards among the two, so a seat that
    plays the rule can have held ``c`` only if the rule would play ``p`` from ``{p, c}``.

    Seat 1, in `Card` order (spades, hearts, diamonds, clubs, each from the 2 up), leads
    the 5 of hearts: it holds no spade and none of the 2, 3 and 4 of hearts:

    >>> from callbreak import Ruleset
    >>> from callbreak.cards import Card, cards_of
    >>> from callbreak.bots.kernel import rules_array
    >>> unseen = (1 << 52) - 1 - (1 << Card.parse("5H"))
    >>> played = np.array([0, 1 << Card.parse("5H"), 0, 0])
    >>> out = simple_cannot(0, np.array([1]), np.array([Card.parse("5H")]), 1,
    ...                     rules_array(Ruleset.preset("bhoos")), np.array([-1, 0, -1, -1]), unseen, played)
    >>> " ".join(map(str, cards_of(int(out[1])))), int(out[0] | out[2] | out[3])
    ('2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2H 3H 4H', 0)

    The same lead from a hand in the order of ``spar-simple-high`` (24: each suit from
    the ace down) rules out every spade and the 6 of hearts to the ace:

    >>> out = simple_cannot(0, np.array([1]), np.array([Card.parse("5H")]), 1,
    ...                     rules_array(Ruleset.preset("bhoos")), np.array([-1, 24, -1, -1]), unseen, played)
    >>> " ".join(map(str, cards_of(int(out[1]) >> 13 << 13)))
    '6H 7H 8H 9H TH JH QH KH AH'
    """
    out = np.zeros(4, dtype=np.int64)
    hist = _history(me, seats, cards, leader0, P)
    one = np.int64(1)
    for r in range(hist.shape[0]):
        s = hist[r, 0]
        if orders[s] < 0:
            continue
        p = hist[r, 1]
        # the cards it may have held then: unseen ones, and its own played later
        m = (np.int64(unseen) | (played_by[s] & ~hist[r, 4])) & ~(one << p) & ~out[s]
        while m != 0:
            c = _low(m)
            m &= m - one
            h = (one << p) | (one << c)
            lm = legal_mask(h, hist[r, 5:9], hist[r, 2], P, hist[r, 3], hist[r, 4])
            if simple_card(lm, hist[r, 5:9], hist[r, 2], P[0], orders[s]) != p:
                out[s] |= one << c
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
    ``k * len(dets) + d``: the ``k``-th state of chain ``d``).

    Three medium bots and a fourth have called and played nine cards:

    >>> import random
    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots import make_bot
    >>> from callbreak.bots.determinize import play_record, sample_deals
    >>> from callbreak.bots.knowledge import Knowledge
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    >>> bots = [make_bot("medium", s) for s in range(4)]
    >>> for _ in range(4 + 9):
    ...     _ = m.act(bots[m.to_act].act(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> k = Knowledge.from_view(v)
    >>> record = play_record(v, k)
    >>> deals = np.array(sample_deals(v, k, 4, random.Random(1)), dtype=np.int64)
    >>> from callbreak.bots.calling import load_model
    >>> from callbreak.bots.determinize import call_order, call_ranges
    >>> lo, hi = call_ranges(v, load_model())
    >>> pos, earlier = call_order(v, k)
    >>> made = np.array([-1 if s == v.seat else c for s, c in enumerate(v.calls)], dtype=np.int64)
    >>> moved = refine(
    ...     deals, *record, np.array(k.cannot, dtype=np.int64), 50, 1, 2.0, np.array(load_model().weights),
    ...     made, pos, earlier, np.array(lo), np.array(hi), 0.2, 1, 1,
    ... )
    >>> int(mismatches(deals, *record).sum()), int(mismatches(moved, *record).sum())
    (6, 3)
    >>> bool((moved[:, v.seat] == k.hand).all()), moved.shape
    (True, (4, 4))
    """
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
