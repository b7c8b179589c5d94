"""Deals of the unseen cards consistent with what a seat knows, weighted by the calls."""

from __future__ import annotations

import numpy as np

from .core import _jit, _low, _rand
from .features import _hand_mean

__all__ = ["sample_deals"]


@_jit
def _one_deal(
    unseen: int, cannot: np.ndarray, sizes: np.ndarray, me: int, hand: int, rng: np.ndarray, out: np.ndarray
) -> bool:
    cards = np.zeros(52, dtype=np.int64)
    nc = 0
    m = unseen
    while m != 0:
        cards[nc] = _low(m)
        nc += 1
        m &= m - 1
    need = np.zeros(4, dtype=np.int64)
    for s in range(4):
        need[s] = sizes[s]
        out[s] = 0
    out[me] = hand
    need[me] = 0
    # constrained cards first (one possible holder, then two), then the rest shuffled
    order = np.zeros(52, dtype=np.int64)
    no = 0
    for want in (1, 2, 0):
        start = no
        for i in range(nc):
            c = cards[i]
            k = 0
            for s in range(4):
                if s != me and (cannot[s] >> c) & 1 == 0:
                    k += 1
            if (want > 0 and k == want) or (want == 0 and k >= 3) or (want == 1 and k == 0):
                order[no] = c
                no += 1
        for i in range(no - 1, start, -1):  # shuffle within the group
            j = start + _rand(rng, i - start + 1)
            tmp = order[i]
            order[i] = order[j]
            order[j] = tmp
    for i in range(no):
        c = order[i]
        total = 0
        for s in range(4):
            if s != me and need[s] > 0 and (cannot[s] >> c) & 1 == 0:
                total += need[s]
        if total == 0:
            return False
        r = _rand(rng, total)
        for s in range(4):
            if s != me and need[s] > 0 and (cannot[s] >> c) & 1 == 0:
                if r < need[s]:
                    out[s] |= np.int64(1) << c
                    need[s] -= 1
                    break
                r -= need[s]
    return True


@_jit
def sample_deals(
    unseen: int,
    cannot: np.ndarray,
    sizes: np.ndarray,
    me: int,
    hand: int,
    n_out: int,
    oversample: int,
    seed: int,
    w: np.ndarray,
    calls: np.ndarray,
    pos: np.ndarray,
    earlier: np.ndarray,
    played_by: np.ndarray,
    t: int,
    min_call: int,
    max_call: int,
    call_sd: float,
    call_bias: float,
) -> np.ndarray:
    """``n_out`` deals (rows of four hand masks) of the ``unseen`` cards that respect
    ``cannot`` and ``sizes``, drawn from ``n_out * oversample`` candidates by the
    plausibility of each opponent's call (``calls[s] < 0``: not made yet).
    Rows of -1 mark draws that failed (the caller draws those another way).

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.bots.calling import load_model
    >>> from callbreak.bots.determinize import call_order
    >>> from callbreak.bots.knowledge import Knowledge
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
    >>> _ = m.call(2)
    >>> v = m.view(m.to_act)
    >>> k = Knowledge.from_view(v)
    >>> pos, earlier = call_order(v, k)
    >>> rows = sample_deals(
    ...     k.unseen, np.array(k.cannot, dtype=np.int64), np.array(k.sizes, dtype=np.int64), k.seat, k.hand,
    ...     4, 2, 11, np.array(load_model().weights),
    ...     np.array([-1 if c is None else c for c in k.calls], dtype=np.int64), pos, earlier,
    ...     np.array(k.played_by, dtype=np.int64), k.trump, v.rules.min_call, v.rules.max_call, 1.1, 0.4,
    ... )
    >>> rows.shape, all(int(r[k.seat]) == k.hand for r in rows)
    ((4, 4), True)
    >>> all(int(r[0] | r[1] | r[2] | r[3]) == (1 << 52) - 1 for r in rows)   # each a whole deal
    True
    """
    rng = np.zeros(1, dtype=np.int64)
    rng[0] = seed & 0xFFFFFFFFFFFF
    nc = n_out * oversample
    cand = np.full((nc, 4), -1, dtype=np.int64)
    logw = np.zeros(nc)
    row = np.zeros(4, dtype=np.int64)
    for i in range(nc):
        ok = False
        for _ in range(40):
            if _one_deal(unseen, cannot, sizes, me, hand, rng, row):
                ok = True
                break
        if not ok:
            logw[i] = -1e18
            continue
        for s in range(4):
            cand[i, s] = row[s]
        if oversample > 1:
            for s in range(4):
                if s == me or calls[s] < 0:
                    continue
                mu = _hand_mean(row[s] | played_by[s], t, pos[s], earlier[s], w) - call_bias
                mu = min(max(mu, float(min_call)), float(max_call))
                logw[i] -= (calls[s] - mu) ** 2 / (2.0 * call_sd * call_sd)
    out = np.full((n_out, 4), -1, dtype=np.int64)
    if oversample <= 1:
        for i in range(n_out):
            for s in range(4):
                out[i, s] = cand[i, s]
        return out
    top = logw.max()
    wts = np.exp(logw - top)
    total = wts.sum()
    step = total / n_out
    u = (_rand(rng, 1 << 20) / float(1 << 20)) * step
    acc = 0.0
    k = 0
    for i in range(nc):
        acc += wts[i]
        while k < n_out and u + k * step < acc:
            for s in range(4):
                out[k, s] = cand[i, s]
            k += 1
    while k < n_out:
        for s in range(4):
            out[k, s] = cand[nc - 1, s]
        k += 1
    return out
