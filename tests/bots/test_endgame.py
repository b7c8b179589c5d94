"""The exact endgame solver (max^n over a known deal) agrees with a plain search
over the engine's own moves."""

from __future__ import annotations

import random

import numpy as np

from callbreak import Round
from callbreak.bots import kernel
from tests.bots.helpers import called_round, trick_array


def _maxn(rnd: Round, calls: np.ndarray, totals: np.ndarray, sd: float, P: np.ndarray) -> tuple[int, ...]:
    """Final tricks won when every seat picks, lowest card first on ties, the move
    of highest value for itself (a straightforward recursion on the engine)."""
    if rnd.phase != "playing":
        return tuple(rnd.tricks_won)
    seat = rnd.to_act
    assert seat is not None
    best: tuple[int, ...] | None = None
    bv = -1e300
    for card in sorted(rnd.legal_cards(), key=int):
        rnd.play(card)
        out = _maxn(rnd, calls, totals, sd, P)
        rnd.pop()
        v = float(kernel.scoring._value(seat, np.array(out, dtype=np.int64), calls, totals, sd, P))
        if v > bv:
            bv, best = v, out
    assert best is not None
    return best


def test_solver_matches_a_plain_maxn_search() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(40):
        rules, rnd = called_round(rng)
        P = kernel.rules_array(rules)
        left = rng.choice([2, 3])
        stop = (13 - left) * 4 + rng.randrange(4)  # sometimes in the middle of a trick
        while len(rnd.actions) - 4 < stop:
            rnd.play(rng.choice(rnd.legal_cards()))
        calls = np.array(rnd.calls, dtype=np.int64)
        totals = np.array([rng.uniform(-20, 40) for _ in range(4)])
        sd = rng.choice([0.0, 8.0])
        want = _maxn(rnd, calls, totals, sd, P)
        got = kernel.solve(
            np.array(rnd.hand_masks, dtype=np.int64),
            trick_array(rnd.trick),
            len(rnd.trick),
            rnd.leader,
            rnd.played_mask,
            rnd.trick_number,
            P,
            np.array(rnd.tricks_won, dtype=np.int64),
            calls,
            totals,
            sd,
        )
        assert tuple(int(x) for x in got) == want, (rules.to_dict(), rnd.actions)
        checked += 1
    assert checked == 40
