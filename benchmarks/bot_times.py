"""Decision times of a bot level, one process: per card, per call, per round.

python benchmarks/bot_times.py hard --matches 4
python benchmarks/bot_times.py hard:look=0 --matches 4     # a level with settings (as benchmarks/sparring.py)
"""

from __future__ import annotations

import argparse
import time

from bots_duel import build
from callbreak import Match, Ruleset


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(int(q * len(xs)), len(xs) - 1)] * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("level")
    ap.add_argument("--others", default="medium")
    ap.add_argument("--matches", type=int, default=4)
    ap.add_argument("--rules", default="standard")
    a = ap.parse_args()
    cards: list[float] = []
    choice: list[float] = []  # cards with more than one legal choice
    calls: list[float] = []
    rounds: list[float] = []
    warm = build(a.level, seed=0)
    m0 = Match(Ruleset.preset("quick", rounds=1), seed=0)
    while not m0.is_over:  # warm up (compile) outside the measurement
        m0.act(warm.act(m0.view(m0.to_act)))  # type: ignore[arg-type]
    for i in range(a.matches):
        rules = Ruleset.preset(a.rules)
        if rules.rounds is None:  # open-ended (pagat): play five rounds
            rules = rules.replace(rounds=5)
        m = Match(rules, seed=500 + i, dealer=0)
        bots = [build(a.level if s == i % 4 else a.others, i * 4 + s) for s in range(4)]
        hero = i % 4
        spent = 0.0
        n_round = 1
        while not m.is_over:
            seat = m.to_act
            assert seat is not None
            v = m.view(seat)
            t = time.perf_counter()
            act = bots[seat].act(v)
            dt = time.perf_counter() - t
            if seat == hero:
                (calls if v.phase == "calling" else cards).append(dt)
                if len(v.legal_cards) > 1:
                    choice.append(dt)
                spent += dt
            m.act(act)
            if m.round_number != n_round or m.is_over:
                rounds.append(spent)
                spent = 0.0
                n_round = m.round_number
    print(
        f"{a.level}: {len(cards)} cards p50 {pct(cards, 0.5):.1f} ms p99 {pct(cards, 0.99):.1f} ms "
        f"max {pct(cards, 1.0):.1f} ms ({len(choice)} with a choice: p50 {pct(choice, 0.5):.1f} ms "
        f"p99 {pct(choice, 0.99):.1f} ms); {len(calls)} calls p50 {pct(calls, 0.5):.1f} ms max {pct(calls, 1.0):.1f} ms; "
        f"{len(rounds)} rounds p50 {pct(rounds, 0.5):.0f} ms max {pct(rounds, 1.0):.0f} ms"
    )


if __name__ == "__main__":
    main()
