"""A round's score and its value as a match result, in the kernel.

`_score` is a second copy of `callbreak.scoring`'s rule, held to it under
random rules by ``tests/bots/test_endgame.py``; `_value` is the chance of
finishing first (`callbreak.bots.calling.win_value`'s normal model) plus a
small share of the round's points.
"""

from __future__ import annotations

import math

import numpy as np

from .core import _jit

__all__: list[str] = []


@_jit
def _score(call: int, tricks: int, P: np.ndarray) -> int:
    over = tricks - call
    ok = over >= 0 and (P[6] < 0 or over <= P[6])
    if ok:
        base = call
        if P[8] >= 0 and call >= P[8]:
            base = P[9]
        return int(base * 10 + P[5] * over)
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
