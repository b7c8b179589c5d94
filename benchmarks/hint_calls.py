"""How often the hint's call is the call the analysis finds best: the calling model's call
(the medium level's, which the hint gave before) beside the hard level's call search's (the
hint's now), at the first call of seeded deals, bhoos rules.

For each deal the seat to call is asked by both, and `callbreak.analysis.analyse_decision`
(the analysis after a match, default budget) values every legal call; printed side by side:
how often each is the analysis' best, its mean loss of chance of finishing first and of
points against that best, and how many calls each got graded an inaccuracy or worse.

    python benchmarks/hint_calls.py --deals 40
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from callbreak import Match, Ruleset
from callbreak.analysis import analyse_decision
from callbreak.bots.hints import hint


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0, help="the first deal's seed (deals seed, seed + 1, ...)")
    args = ap.parse_args(argv)
    rows = {"model (medium)": [0, 0.0, 0.0, 0], "search (hard)": [0, 0.0, 0.0, 0]}
    for seed in range(args.seed, args.seed + args.deals):
        m = Match(Ruleset.preset("bhoos"), seed=seed)
        view = m.view(m.to_act)
        for name, level in (("model (medium)", "medium"), ("search (hard)", "hard")):
            call = hint(view, level=level).call
            assert call is not None
            d = analyse_decision(view, call, seed=1)
            row = rows[name]
            row[0] += d.best == str(call)
            row[1] += d.loss_win
            row[2] += d.loss_points
            row[3] += d.grade != "good"
    n = args.deals
    print(f"{n} first calls of seeded deals (bhoos rules, seeds {args.seed}..{args.seed + n - 1})")
    print(f"{'the hint call':<16} {'the best':>9} {'chance lost':>12} {'points lost':>12} {'not good':>9}")
    for name, (best, win, points, graded) in rows.items():
        print(f"{name:<16} {best:>6}/{n} {100 * win / n:>10.2f} % {points / n:>12.3f} {graded:>6}/{n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
