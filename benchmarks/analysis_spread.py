"""How far apart the options of a decision are, and how noisy their values: the
measurements behind the analysis's grading thresholds (`callbreak.analysis.THRESHOLDS`).

Plays matches between bots of mixed levels, analyses every decision twice with
independent seeds (`callbreak.analysis.analyse`, no hindsight) and prints, for
unforced decisions, quantiles of:

* noise: the loss the second search charges the option the first found best
  (what a perfect player would be charged by sampling alone);
* gap: best option minus worst option (how much a decision can matter);
* taken: the loss of the option each bot level actually took;

in expected round points and in chance of finishing first.

nice -n 10 python benchmarks/analysis_spread.py --matches 2
"""

from __future__ import annotations

import argparse
import time

from callbreak import Match, Ruleset
from callbreak.analysis import THRESHOLDS, analyse
from callbreak.analysis.records import Decision
from callbreak.bots import make_bot

QS = (0.5, 0.75, 0.9, 0.95, 0.99)


def quantiles(xs: list[float]) -> list[float]:
    s = sorted(xs)
    return [s[min(int(q * len(s)), len(s) - 1)] if s else float("nan") for q in QS]


def loss_of(d: Decision, action: str, figure: str) -> float:
    """As the analysis charges it: how far ``action`` falls below the best option."""
    return max(0.0, getattr(d.option(d.best), figure) - getattr(d.option(action), figure))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument(
        "--budget", type=int, default=None, help="playouts per decision (default: the analysis default)"
    )
    a = ap.parse_args()
    levels = ("random", "easy", "medium", "medium")
    rows: dict[str, dict[str, list[float]]] = {}
    t0 = time.perf_counter()
    for i in range(a.matches):
        m = Match(Ruleset.preset("quick", rounds=a.rounds), seed=700 + i)
        seat_level = [levels[(s + i) % 4] for s in range(4)]
        bots = [make_bot(seat_level[s], seed=i * 4 + s) for s in range(4)]
        while not m.is_over:
            seat = m.to_act
            assert seat is not None
            m.act(bots[seat].act(m.view(seat)))
        kw = {} if a.budget is None else {"budget": a.budget}
        one = analyse(m, seed=1, hindsight=False, **kw)
        two = analyse(m, seed=2, hindsight=False, **kw)
        for d1, d2 in zip(one.decisions, two.decisions):
            if d1.forced:
                continue
            for fig in ("points", "win"):
                key = f"{d1.kind}s {fig}"
                r = rows.setdefault(key, {})
                vals = [getattr(o, fig) for o in d1.options]
                r.setdefault("noise", []).append(loss_of(d2, d1.best, fig))
                r.setdefault("gap", []).append(max(vals) - min(vals))
                r.setdefault(f"taken {seat_level[d1.seat]}", []).append(loss_of(d1, d1.taken, fig))
    print(f"{a.matches} matches of {a.rounds} rounds, {time.perf_counter() - t0:.0f} s")
    print(f"{'':22}{'n':>6}" + "".join(f"{'q' + str(int(q * 100)):>9}" for q in QS))
    for key in sorted(rows):
        print(key)
        for what, xs in rows[key].items():
            print(f"  {what:20}{len(xs):>6}" + "".join(f"{x:9.3f}" for x in quantiles(xs)))
    print("thresholds in force:", THRESHOLDS)


if __name__ == "__main__":
    main()
