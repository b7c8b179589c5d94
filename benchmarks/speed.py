"""Decision times of each bot level, and the hard bot's playout kernel beside pure Python.

Part 1 plays whole matches (bhoos rules) with four bots of one level and times
every decision on this one process: p50/p99 per card, per call, and per round
(one seat's call and thirteen cards together).  Part 2 measures random full-round
playouts per second: the compiled kernel (`callbreak.bots.kernel.random_playouts`)
and the same loop in pure Python on the engine's fast path (`Round._do_play`).

    python benchmarks/speed.py --matches 6 --json speed.json

Goals (issue 3): hard p50 ≤ 50 ms and p99 ≤ 120 ms per card, ≤ 200 ms per call,
≤ 1.2 s per round; kernel ≥ 400,000 playouts/s on one core.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

from callbreak import Match, Round, Ruleset
from callbreak.arena.stats import percentile
from callbreak.bots import make_bot


def level_times(level: str, matches: int, seed: int) -> dict[str, Any]:
    rules = Ruleset.preset("bhoos")
    cards: list[float] = []
    calls: list[float] = []
    rounds: list[float] = []
    bots = [make_bot(level, seed * 4 + s) for s in range(4)]
    warm = Match(rules.replace(rounds=1), seed=-1 - seed)  # imports, compiled kernels, caches: not timed
    for _ in range(30):
        seat = warm.to_act
        assert seat is not None
        warm.act(bots[seat].act(warm.view(seat)))
    for g in range(matches):
        m = Match(rules, seed=seed * 1000 + g)
        spent = [0.0] * 4
        current = m.round
        while not m.is_over:
            if m.round is not current:
                if m.rounds and m.rounds[-1] is current:
                    rounds.extend(spent)
                spent = [0.0] * 4
                current = m.round
            seat = m.to_act
            assert seat is not None
            v = m.view(seat)
            t0 = time.perf_counter()
            a = bots[seat].act(v)
            dt = time.perf_counter() - t0
            spent[seat] += dt
            (calls if v.phase == "calling" else cards).append(dt)
            m.act(a)
        rounds.extend(spent)
    ms = 1000.0
    return {
        "level": level,
        "matches": matches,
        "cards": len(cards),
        "card_p50_ms": ms * percentile(cards, 50),
        "card_p99_ms": ms * percentile(cards, 99),
        "card_max_ms": ms * max(cards),
        "calls": len(calls),
        "call_p50_ms": ms * percentile(calls, 50),
        "call_p99_ms": ms * percentile(calls, 99),
        "call_max_ms": ms * max(calls),
        "rounds": len(rounds),
        "round_p50_ms": ms * percentile(rounds, 50),
        "round_p99_ms": ms * percentile(rounds, 99),
        "round_max_ms": ms * max(rounds),
    }


def python_playouts(hands: list[list[Any]], rules: Ruleset, seconds: float, seed: int) -> float:
    """Random full-round playouts per second in pure Python on the engine's fast path."""
    rng = random.Random(seed)
    base = Round(rules, hands, dealer=3)
    for _ in range(4):
        base._do_call(base.to_act, 3)  # type: ignore[arg-type]
    n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        rnd = base.copy()
        while rnd.to_act is not None:
            m = rnd.legal_mask()
            bits = [i for i in range(52) if m >> i & 1]
            rnd._do_play(rnd.to_act, rng.choice(bits))
        n += 1
    return n / (time.perf_counter() - t0)


def kernel_playouts(hands: list[list[Any]], rules: Ruleset, n: int, seed: int) -> float | None:
    try:
        import numpy as np

        from callbreak.bots import kernel
    except ImportError:  # pragma: no cover - no kernel in this build
        return None
    from callbreak.cards import mask_of

    h = np.array([mask_of(x) for x in hands], dtype=np.int64)
    P = kernel.rules_array(rules)
    kernel.random_playouts(h, P, 10, seed)  # compile (or load from cache)
    t0 = time.perf_counter()
    total = kernel.random_playouts(h, P, n, seed)
    dt = time.perf_counter() - t0
    assert int(total.sum()) == 13 * n
    return n / dt


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--levels", default="random,easy,medium,hard")
    ap.add_argument("--matches", type=int, default=6, help="matches per level (4 bots of the level)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--playouts", type=int, default=400_000, help="kernel playouts to time")
    ap.add_argument("--python-seconds", type=float, default=3.0)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()

    out: dict[str, Any] = {"levels": [], "command": " ".join(sys.argv)}
    print(f"decision times, bhoos rules, {args.matches} matches per level, 4 bots of the level, one process")
    hdr = ("level", "card p50", "card p99", "call p50", "call p99", "round p50", "round p99", "round max")
    print(f"{hdr[0]:8}" + "".join(f"{h:>11}" for h in hdr[1:]) + "   (ms)")
    for level in args.levels.split(","):
        try:
            make_bot(level, 0)
        except ValueError as e:
            print(f"{level:8} skipped: {e}")
            continue
        r = level_times(level, args.matches, args.seed)
        out["levels"].append(r)
        print(
            f"{level:8}"
            + "".join(
                f"{r[k]:11.2f}"
                for k in (
                    "card_p50_ms",
                    "card_p99_ms",
                    "call_p50_ms",
                    "call_p99_ms",
                    "round_p50_ms",
                    "round_p99_ms",
                    "round_max_ms",
                )
            )
            + f"   ({r['cards']} cards, {r['calls']} calls, {r['rounds']} seat-rounds)"
        )
    rules = Ruleset.preset("bhoos")
    hands = Round.deal_hands(seed=args.seed)
    k = kernel_playouts(hands, rules, args.playouts, args.seed)
    py = python_playouts(hands, rules, args.python_seconds, args.seed)
    out["kernel_playouts_per_s"] = k
    out["python_playouts_per_s"] = py
    print("random full-round playouts per second, one core:")
    print(f"  compiled kernel (numba): {k:,.0f}" if k else "  compiled kernel: not available")
    print(f"  pure Python (engine fast path): {py:,.0f}")
    if k:
        print(f"  ratio: {k / py:,.0f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
