"""The ``hard`` level: determinized search over deals consistent with the view.

For each card decision it draws deals of the unseen cards that agree with
everything the seat has seen (`Knowledge`: voids, "did not head", "did not
trump", trump-only leads), weighted by how plausible each opponent's call is
for the hand it would then hold (importance resampling with the calling
model), and plays every legal card out on every deal with a fast
rule-of-thumb policy for all four seats in the compiled kernel
(`callbreak.bots.kernel`).  Each outcome is valued as a match result: the
chance of finishing first given the totals so far and the rounds left (exact
in the last round), plus a small share of the round's points.  The card of
highest mean value is played.  Calls come from the calibrated trick
distribution (`callbreak.bots.calling`).

The work per card is bounded by ``iterations`` playouts, so a seed gives the
same decisions on any machine; ``time_limit`` (seconds) is only a safety cap.

>>> from callbreak import Match, Ruleset
>>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
>>> bots = [HardBot(seed=s, iterations=200) for s in range(4)]
>>> while not m.is_over:
...     _ = m.act(bots[m.to_act].act(m.view(m.to_act)))
>>> m.is_over
True
"""

from __future__ import annotations

import math
import random
import time

import numpy as np

from ..cards import Card
from ..round import SeatView
from .base import Bot
from .calling import (
    ROUND_SD,
    best_call,
    call_position,
    family_of,
    load_model,
    trick_distribution,
    win_value,
)
from .knowledge import Knowledge
from .medium import choose_card

__all__ = ["HardBot", "search_values"]

CALL_SD = 1.1  # spread of a call around the model's estimate, for weighting deals
CALL_BIAS = 0.4  # bots call a little under their mean potential
MAX_DEALS = 400


def sample_deals(
    view: SeatView, k: Knowledge, n: int, rng: random.Random, oversample: int = 2
) -> list[list[int]]:
    """``n`` deals consistent with ``k``, resampled by the plausibility of the calls
    (drawn in the compiled kernel; a draw it fails falls back to `Knowledge.sample`)."""
    from . import kernel

    model = load_model(family_of(view.rules))
    dealer = view.dealer
    pos = np.array([call_position(s, dealer) for s in range(4)], dtype=np.int64)
    earlier = np.zeros(4, dtype=np.int64)
    for s in range(4):
        for j in range(int(pos[s])):
            earlier[s] += k.calls[(dealer + 1 + j) & 3] or 0
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
        CALL_SD,
        CALL_BIAS,
    )
    out: list[list[int]] = []
    for r in rows.tolist():
        out.append(r if r[0] >= 0 else k.sample(rng))
    return out


def search_values(
    view: SeatView, k: Knowledge, deals: list[list[int]], seed: int, rollouts: int = 1, eps: int = 4
) -> np.ndarray:
    """Match value of each legal card (columns, in ``view.legal_cards`` order) on
    each deal and rollout (rows)."""
    from . import kernel

    legal = view.legal_cards
    trick = np.zeros(4, dtype=np.int64)
    for i, (_, c) in enumerate(view.trick):
        trick[i] = c
    calls = np.array([c or 0 for c in view.calls], dtype=np.int64)
    wv = win_value(view)
    if wv is None:
        totals = np.zeros(4)
        sd = ROUND_SD * 3
    else:
        totals = np.array(wv[0])
        sd = math.sqrt(max(wv[1] ** 2 - ROUND_SD**2, 0.0))  # this round is played out
    pubvoid = np.zeros(4, dtype=np.int64)  # suits each seat has shown it lacks
    tricks: list[tuple[int, tuple[Card, ...]]] = [(t.leader, t.cards) for t in view.tricks]
    if view.trick:
        tricks.append((view.trick[0][0], tuple(c for _, c in view.trick)))
    for leader, cards in tricks:
        for i, c in enumerate(cards[1:], 1):
            if c // 13 != cards[0] // 13:
                pubvoid[(leader + i) & 3] |= 1 << (cards[0] // 13)
    return kernel.search(
        np.array(deals, dtype=np.int64),
        view.seat,
        trick,
        len(view.trick),
        view.leader,
        np.array(view.tricks_won, dtype=np.int64),
        len(view.tricks),
        k.played,
        kernel.rules_array(view.rules),
        calls,
        np.array([int(c) for c in legal], dtype=np.int64),
        rollouts,
        totals,
        sd,
        eps,
        seed,
        pubvoid,
    )


class HardBot(Bot):
    """Determinized search with match-outcome values.

    ``iterations``: playouts per card decision (split over the legal cards);
    ``time_limit``: a wall-clock cap in seconds on drawing deals.
    """

    name = "hard"

    def __init__(
        self,
        seed: int | None = None,
        iterations: int = 12000,
        time_limit: float = 0.08,
        rollouts: int = 1,
        eps: int = 4,
        oversample: int = 2,
        margin: float = 1.0,
    ) -> None:
        super().__init__(seed)
        self.margin = margin
        self.rollouts = rollouts
        self.eps = eps
        self.oversample = oversample
        if iterations < 1:
            raise ValueError("iterations must be at least 1")
        self.iterations = iterations
        self.time_limit = time_limit

    def act(self, view: SeatView) -> int | Card:
        if view.phase == "calling":
            call, _ = best_call(view, trick_distribution(view))
            return call
        return self.choose(view)[0]

    def choose(self, view: SeatView) -> tuple[Card, dict[Card, float]]:
        """The card to play and the value found for each legal card."""
        legal = view.legal_cards
        seed = self.rng.randrange(1 << 40)
        if len(legal) == 1:
            return legal[0], {legal[0]: 0.0}
        t0 = time.perf_counter()
        k = Knowledge.from_view(view)
        n = max(8, min(MAX_DEALS, self.iterations // (len(legal) * self.rollouts)))
        rng = random.Random(seed)
        deals = sample_deals(view, k, n, rng, self.oversample)
        if time.perf_counter() - t0 > self.time_limit:
            deals = deals[: max(4, n // 4)]
        table = search_values(view, k, deals, seed, self.rollouts, self.eps)
        means = table.mean(axis=0)
        values = {c: float(v) for c, v in zip(legal, means)}
        # the medium level's card stands unless another is better by a clear margin
        # (a paired z-test over the same deals), so that noise does not steer play
        fallback = choose_card(view, k)[0]
        fi = legal.index(fallback)
        bi = int(np.argmax(means))
        if bi == fi:
            return fallback, values
        diff = table[:, bi] - table[:, fi]
        se = float(diff.std()) / math.sqrt(len(diff))
        if float(diff.mean()) > self.margin * se + 1e-12:
            return legal[bi], values
        return fallback, values
