"""The deals a ``hard`` decision searches: the unseen cards drawn from what the seat can see.

Every deal agrees with what the seat has seen (`Knowledge`: voids, "did not head", "did not
trump", trump-only leads). `sample_deals` weights them by how plausible each other seat's call
is for the hand it would then hold (importance resampling with the calling model);
`consistent_deals` keeps, of several draws, those on which the other seats' cards so far are
most often the ones the medium level's rules would have played; `refine_deals` moves each deal
by Metropolis-Hastings card swaps towards the deals that explain the play and the calls
(`call_ranges`: the range of the calling model's estimate in which the medium level makes a
seat's call). For seats taken to play ``spar-simple``'s rule, `simple_deals` and
`simple_knowledge` give the deals its calls and cards allow, and `round_evidence` counts what
each style would not have played (`callbreak.bots.styles`). The drawing runs in the compiled
kernel (`callbreak.bots.kernel.deals`, `callbreak.bots.kernel.inference`); this module turns a
view into its arrays. `callbreak.bots.hard` searches the deals.

Against three ``spar-simple``s, whose rule makes the possible deals exact, these deals put as
many of the hidden cards in the right hands as the exact posterior does
(``benchmarks/posterior.py``).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..cards import Card
from ..round import SeatView
from .calling import CallModel, best_call, call_position, family_of, load_model
from .knowledge import Knowledge
from .styles import CALL_MISS, ROWS, STYLES

__all__ = [
    "CALL_BIAS",
    "CALL_SD",
    "REFINE_SOFT",
    "PlayRecord",
    "call_order",
    "call_ranges",
    "consistent_deals",
    "play_record",
    "refine_deals",
    "round_evidence",
    "sample_deals",
    "simple_deals",
    "simple_knowledge",
    "tricks_so_far",
]

CALL_SD = 1.1  # spread of a call around the model's estimate, for weighting deals
CALL_BIAS = 0.4  # bots call a little under their mean potential
REFINE_SOFT = 0.2  # how far outside its range a call's estimate may plausibly fall


def call_order(view: SeatView, k: Knowledge) -> tuple[np.ndarray, np.ndarray]:
    """Each seat's place in the calling order and the sum of the calls before it.

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots.knowledge import Knowledge
    >>> from callbreak.round import lowest_action
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    >>> for c in (2, 3, 1, 4):
    ...     _ = m.call(c)
    >>> for _ in range(6):
    ...     _ = m.act(lowest_action(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> k = Knowledge.from_view(v)
    >>> v.dealer, v.calls
    (1, (1, 4, 2, 3))
    >>> pos, earlier = call_order(v, k)
    >>> pos.tolist(), earlier.tolist()
    ([2, 3, 0, 1], [5, 6, 0, 2])
    """
    pos = np.array([call_position(s, view.dealer) for s in range(4)], dtype=np.int64)
    earlier = np.zeros(4, dtype=np.int64)
    for s in range(4):
        for j in range(int(pos[s])):
            earlier[s] += k.calls[(view.dealer + 1 + j) & 3] or 0
    return pos, earlier


def sample_deals(
    view: SeatView,
    k: Knowledge,
    n: int,
    rng: random.Random,
    oversample: int = 2,
    call_sd: float = CALL_SD,
    call_bias: float = CALL_BIAS,
) -> list[list[int]]:
    """``n`` deals consistent with ``k``, resampled by the plausibility of the calls
    (drawn in the compiled kernel; a draw it fails falls back to `Knowledge.sample`).

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots.knowledge import Knowledge
    >>> from callbreak.round import lowest_action
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    >>> for c in (2, 3, 1, 4):
    ...     _ = m.call(c)
    >>> for _ in range(6):
    ...     _ = m.act(lowest_action(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> k = Knowledge.from_view(v)
    >>> deals = sample_deals(v, k, 3, random.Random(1))
    >>> [[h.bit_count() for h in d] for d in deals] == [list(v.hand_sizes)] * 3
    True
    >>> all(d[v.seat] == k.hand for d in deals)
    True
    """
    from . import kernel

    model = load_model(family_of(view.rules))
    pos, earlier = call_order(view, k)
    rows = kernel.sample_deals(
        k.unseen,
        np.array(k.cannot, dtype=np.int64),
        np.array(k.sizes, dtype=np.int64),
        k.seat,
        k.hand,
        n,
        oversample,
        rng.randrange(1 << 40),
        np.array(model.weights),
        np.array([-1 if c is None else c for c in k.calls], dtype=np.int64),
        pos,
        earlier,
        np.array(k.played_by, dtype=np.int64),
        k.trump,
        view.rules.min_call,
        view.rules.max_call,
        call_sd,
        call_bias,
    )
    out: list[list[int]] = []
    for r in rows.tolist():
        out.append(r if r[0] >= 0 else k.sample(rng))
    return out


def simple_deals(
    view: SeatView, k: Knowledge, n: int, rng: random.Random, seats: Sequence[int] | None = None
) -> list[list[int]]:
    """``n`` deals consistent with ``k`` on which every other seat that has called held
    as many aces and kings as its call (``spar-simple``'s calls, clamped to the rules'
    range; the cards it has played count): drawn without regard to the calls and kept
    where they agree. Where 50 draws of ``4 n`` find fewer than ``n`` (the calls are
    seldom such counts), the ``n`` deals weighted by the calls as `sample_deals` draws
    them, so that a search never rests on a handful of deals.  ``seats``: the seats
    taken to call so (default: all the others); the rest are not constrained.

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots.knowledge import Knowledge
    >>> from callbreak.bots.sparring import SimpleBot
    >>> m = Match(Ruleset.preset("bhoos"), seed=3)
    >>> for _ in range(3):
    ...     _ = m.act(SimpleBot(seed=1).act(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> k = Knowledge.from_view(v)
    >>> deals = simple_deals(v, k, 5, random.Random(1))
    >>> def aces_and_kings(hand: int) -> int:
    ...     return sum(hand >> (13 * su + r) & 1 for su in range(4) for r in (11, 12))
    >>> len(deals), {max(aces_and_kings(d[s]), 1) == v.calls[s] for d in deals for s in range(4) if s != v.seat and v.calls[s] is not None}
    (5, {True})
    """
    lo, hi = view.rules.min_call, view.rules.max_call
    played = np.array(k.played_by, dtype=np.int64)
    called = [
        s for s, c in enumerate(view.calls) if c is not None and s != view.seat and (seats is None or s in seats)
    ]
    want = np.array([view.calls[s] or 0 for s in range(4)], dtype=np.int64)
    out: list[list[int]] = []
    for _ in range(50):
        arr = np.array(sample_deals(view, k, 4 * n, rng, 1, 1000.0, 0.0), dtype=np.int64) | played
        cnt = sum((arr >> (13 * su + r)) & 1 for su in range(4) for r in (11, 12))
        ok = np.all(np.clip(cnt, lo, hi)[:, called] == want[called], axis=1)
        out += (arr[ok] & ~played).tolist()
        if len(out) >= n:
            return out[:n]
    return sample_deals(view, k, n, rng)


def simple_knowledge(view: SeatView, k: Knowledge, styles: Sequence[int]) -> Knowledge:
    """``k`` with, for each seat taken to play ``spar-simple``'s rule (``styles``,
    `callbreak.bots.styles`: ``1 + o`` for its hand in order ``o``), the cards its
    play so far rules out (`kernel.simple_cannot`), seat by seat: not for a seat
    whose own cards show that it did not play the rule this round (it played a card
    the rule would have played before one it played earlier), nor for one whose
    cards would leave no deal with the seats before it (`Knowledge.has_deal`): a seat taken
    for the rule wrongly, or one that plays it with exceptions.

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots.sparring import SimpleBot
    >>> m = Match(Ruleset.preset("bhoos"), seed=3)
    >>> for _ in range(4 + 9):
    ...     _ = m.act(SimpleBot(seed=1).act(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> k = Knowledge.from_view(v)
    >>> k2 = simple_knowledge(v, k, [1, 1, 1, 1])
    >>> all(k2.cannot[s] & k.cannot[s] == k.cannot[s] for s in range(4)), k2.cannot != k.cannot
    (True, True)
    >>> any(k2.cannot[s] & m.round.hand_masks[s] for s in range(4) if s != v.seat)
    False
    """
    from . import kernel

    orders = np.array(
        [st - 1 if s != view.seat and st >= 1 else -1 for s, st in enumerate(styles)], dtype=np.int64
    )
    if not (orders >= 0).any():
        return k
    seat, seats, cards, leader, rules, _, played = play_record(view, k)
    out = kernel.simple_cannot(seat, seats, cards, leader, rules, orders, k.unseen, played)
    for s in range(4):
        more = int(out[s])
        if orders[s] < 0 or more & k.played_by[s] or not more & ~k.cannot[s]:
            continue
        narrower = k.ruling_out(s, more)
        if narrower.has_deal():
            k = narrower
    return k


def round_evidence(view: SeatView, k: Knowledge, n: int, rng: random.Random) -> npt.NDArray[np.int64]:
    """The evidence of the round so far for each seat's style (`StyleTally`): the
    fewest of its cards (and, for ``spar-simple`` in any hand order, its call, as ``CALL_MISS`` cards:
    a call that is not a count of aces and kings weighs against that style however
    the seat plays) that each style would not have played, over ``n`` deals of the
    unseen cards, and the cards it has played (rows: the styles of
    `callbreak.bots.styles`, then the cards; this
    seat's column is 0).  A lower bound on the misses: the deals agree with all that the seat has
    seen, and the later the round, the more of each hand they fix.

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots.sparring import SimpleBot
    >>> m = Match(Ruleset.preset("bhoos"), seed=3)
    >>> for _ in range(4 + 48):
    ...     _ = m.act(SimpleBot(seed=1).act(m.view(m.to_act)))
    >>> v = m.view(m.to_act)   # the last trick: every hand is known but one card each
    >>> from callbreak.bots.styles import SIMPLE, SIMPLE_HIGH
    >>> ev = round_evidence(v, Knowledge.from_view(v), 16, random.Random(1))
    >>> v.seat, ev[[0, SIMPLE, SIMPLE_HIGH, -1]].tolist()   # medium, spar-simple, -high; cards
    (2, [[3, 3, 0, 1], [0, 0, 0, 0], [9, 8, 0, 9], [12, 12, 0, 12]])
    """
    from . import kernel

    ev = np.zeros((ROWS, 4), dtype=np.int64)
    for s in range(4):
        if s != view.seat:
            ev[-1, s] = k.played_by[s].bit_count()
    if not ev[-1].any():
        return ev
    if not k.unseen:
        n = 1  # every hand is known: one deal is all of them
    deals = np.array(sample_deals(view, k, n, rng), dtype=np.int64)
    called = np.array([-1 if c is None else c for c in view.calls], dtype=np.int64)
    misses = kernel.style_misses(
        deals, *play_record(view, k), called, view.rules.min_call, view.rules.max_call, CALL_MISS
    ).min(axis=0)
    ev[:STYLES] = misses
    return ev


def tricks_so_far(view: SeatView) -> list[tuple[int, tuple[Card, ...]]]:
    """(leader, cards) of each trick of the round so far, the one in progress last.

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.round import lowest_action
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    >>> for c in (2, 3, 1, 4):
    ...     _ = m.call(c)
    >>> for _ in range(6):
    ...     _ = m.act(lowest_action(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> tricks_so_far(v)
    [(2, (Card('2H'), Card('3H'), Card('4H'), Card('5H'))), (1, (Card('3D'), Card('5D')))]
    """
    tricks: list[tuple[int, tuple[Card, ...]]] = [(t.leader, t.cards) for t in view.tricks]
    if view.trick:
        tricks.append((view.trick[0][0], tuple(c for _, c in view.trick)))
    return tricks


PlayRecord = tuple[int, np.ndarray, np.ndarray, int, np.ndarray, np.ndarray, np.ndarray]


def play_record(view: SeatView, k: Knowledge) -> PlayRecord:
    """The round's play so far as the kernel's opponent model reads it
    (`kernel.mismatches`, `kernel.refine`): the view's seat, the seat and card of
    each play in order, the first leader, the rules, the calls and each seat's
    played cards.

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots.knowledge import Knowledge
    >>> from callbreak.round import lowest_action
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    >>> for c in (2, 3, 1, 4):
    ...     _ = m.call(c)
    >>> for _ in range(6):
    ...     _ = m.act(lowest_action(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> k = Knowledge.from_view(v)
    >>> seat, seats, cards, leader, P, calls, played = play_record(v, k)
    >>> seat, seats.tolist(), cards.tolist(), leader, calls.tolist()
    (3, [2, 3, 0, 1, 1, 2], [13, 14, 15, 16, 27, 29], 2, [1, 4, 2, 3])
    """
    from . import kernel

    seats: list[int] = []
    cards: list[int] = []
    tricks = tricks_so_far(view)
    for leader, cs in tricks:
        for i, c in enumerate(cs):
            seats.append((leader + i) & 3)
            cards.append(int(c))
    return (
        view.seat,
        np.array(seats, dtype=np.int64),
        np.array(cards, dtype=np.int64),
        tricks[0][0] if tricks else (view.dealer + 1) & 3,
        kernel.rules_array(view.rules),
        np.array([c or 0 for c in view.calls], dtype=np.int64),
        np.array(k.played_by, dtype=np.int64),
    )


def consistent_deals(
    view: SeatView,
    k: Knowledge,
    n: int,
    factor: int,
    rng: random.Random,
    oversample: int = 2,
    call_sd: float = CALL_SD,
    call_bias: float = CALL_BIAS,
) -> list[list[int]]:
    """``n`` of ``n * factor`` deals from `sample_deals`: those on which the other
    seats' cards so far differ least from the medium level's choices (a stable
    sort: ties keep the drawing order).

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots.knowledge import Knowledge
    >>> from callbreak.round import lowest_action
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    >>> for c in (2, 3, 1, 4):
    ...     _ = m.call(c)
    >>> for _ in range(6):
    ...     _ = m.act(lowest_action(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> k = Knowledge.from_view(v)
    >>> deals = consistent_deals(v, k, 3, 4, random.Random(1))
    >>> len(deals), all(d[v.seat] == k.hand for d in deals)
    (3, True)
    """
    from . import kernel

    deals = sample_deals(view, k, n * factor, rng, oversample, call_sd, call_bias)
    record = play_record(view, k)
    if not len(record[2]):
        return deals[:n]
    bad = kernel.mismatches(np.array(deals, dtype=np.int64), *record)
    order = np.argsort(bad, kind="stable")[:n]
    return [deals[i] for i in order.tolist()]


def call_ranges(view: SeatView, model: CallModel) -> tuple[list[float], list[float]]:
    """For each other seat that has called, the range ``lo..hi`` of the calling
    model's estimate of its tricks (`CallModel.mean`) in which the medium level
    (`best_call`, which depends on the hand through that estimate alone) makes
    the call it made; other seats get the whole line.

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots.knowledge import Knowledge
    >>> from callbreak.round import lowest_action
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    >>> for c in (2, 3, 1, 4):
    ...     _ = m.call(c)
    >>> for _ in range(6):
    ...     _ = m.act(lowest_action(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> k = Knowledge.from_view(v)
    >>> from callbreak.bots.calling import load_model
    >>> lo, hi = call_ranges(v, load_model())
    >>> lo[v.seat], hi[v.seat]
    (-inf, inf)
    >>> lo[1] < hi[1], lo[0]  # seat 0 called the least there is
    (True, -inf)
    """
    lo = [-math.inf] * 4
    hi = [math.inf] * 4
    rules = view.rules
    full = tuple(rules.legal_call_range())
    for s, c in enumerate(view.calls):
        if c is None or s == view.seat:
            continue
        as_s = dataclasses.replace(view, seat=s, legal_calls=full)

        def first_at_least(target: int, as_s: SeatView = as_s) -> float:
            a, b = -1.0, 14.0  # the estimate is clamped to 0..13 in `dist_for`
            for _ in range(14):
                mid = (a + b) / 2
                if best_call(as_s, model.dist_for(mid))[0] >= target:
                    b = mid
                else:
                    a = mid
            return b

        if c > rules.min_call:
            lo[s] = first_at_least(c)
        if c < rules.max_call:
            hi[s] = first_at_least(c + 1)
    return lo, hi


def refine_deals(
    view: SeatView,
    k: Knowledge,
    deals: list[list[int]],
    steps: int,
    seed: int,
    miss_cost: float,
    soft: float = REFINE_SOFT,
    ranges: tuple[list[float], list[float]] | None = None,
    keep: int = 1,
    every: int = 1,
) -> list[list[int]]:
    """``deals`` each moved ``steps`` card swaps (Metropolis-Hastings,
    `kernel.refine`) towards the deals on which the other seats' cards so far are
    the medium level's choices (``exp(-miss_cost)`` per card that is not) and
    their calls the ones it would make (`call_ranges`, with a normal tail of
    width ``soft``); the constraints of ``k`` still hold.  With ``keep`` above 1
    each deal starts a chain that gives ``keep`` deals, ``every`` steps apart
    after the first ``steps`` (`kernel.refine`).

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots.knowledge import Knowledge
    >>> from callbreak.round import lowest_action
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    >>> for c in (2, 3, 1, 4):
    ...     _ = m.call(c)
    >>> for _ in range(6):
    ...     _ = m.act(lowest_action(m.view(m.to_act)))
    >>> v = m.view(m.to_act)
    >>> k = Knowledge.from_view(v)
    >>> deals = sample_deals(v, k, 3, random.Random(1))
    >>> moved = refine_deals(v, k, deals, steps=20, seed=1, miss_cost=2.0)
    >>> len(moved), all(d[v.seat] == k.hand for d in moved)
    (3, True)
    >>> [[h.bit_count() for h in d] for d in moved] == [list(v.hand_sizes)] * 3
    True
    """
    from . import kernel

    if steps <= 0 or not deals:
        return deals
    model = load_model(family_of(view.rules))
    lo, hi = ranges if ranges is not None else call_ranges(view, model)
    pos, earlier = call_order(view, k)
    made = np.array([-1 if c is None or s == view.seat else c for s, c in enumerate(k.calls)], dtype=np.int64)
    out = kernel.refine(
        np.array(deals, dtype=np.int64),
        *play_record(view, k),
        np.array(k.cannot, dtype=np.int64),
        steps,
        seed,
        miss_cost,
        np.array(model.weights),
        made,
        pos,
        earlier,
        np.array(lo),
        np.array(hi),
        soft,
        keep,
        every,
    )
    return [[int(x) for x in row] for row in out.tolist()]
