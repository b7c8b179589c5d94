"""The calling model's estimate of a hand's tricks, in the kernel.

`_hand_mean` is `callbreak.bots.calling.features` dotted with the model's
weights: a second copy, held to `callbreak.bots.calling.CallModel.mean` by
``tests/bots/test_knowledge.py``.
"""

from __future__ import annotations

import numpy as np

from .core import SUITM, _jit, _pop

__all__: list[str] = []


@_jit
def _hand_mean(hand: int, t: int, pos: int, earlier: int, w: np.ndarray) -> float:
    """`callbreak.bots.calling.features` dotted with the weights ``w``."""
    tv = (hand >> (13 * t)) & SUITM
    nt = _pop(tv)
    side_a = 0
    side_kg = 0
    side_ks = 0
    side_qg = 0
    side_al = 0
    short = 0
    longx = 0
    for s in range(4):
        if s == t:
            continue
        v = (hand >> (13 * s)) & SUITM
        n = _pop(v)
        a = (v >> 12) & 1
        side_a += int(a)
        if a == 1 and n >= 6:
            side_al += 1
        if (v >> 11) & 1:
            if n >= 2:
                side_kg += 1
            else:
                side_ks += 1
        if (v >> 10) & 1 and n >= 3:
            side_qg += 1
        if n < 2:
            short += 2 - n
        if n > 4:
            longx += n - 4
    ruff = min(short, max(nt - 1, 0))
    x = (
        w[0]
        + w[1] * nt
        + w[2] * ((tv >> 12) & 1)
        + w[3] * ((tv >> 11) & 1)
        + w[4] * ((tv >> 10) & 1)
        + w[5] * ((tv >> 9) & 1)
        + w[6] * max(nt - 4, 0)
        + w[7] * side_a
        + w[8] * side_kg
        + w[9] * side_ks
        + w[10] * side_qg
        + w[11] * side_al
        + w[12] * ruff
        + w[16] * earlier
        + w[17] * longx
    )
    if pos >= 1:
        x += w[12 + pos]
    return float(x)
