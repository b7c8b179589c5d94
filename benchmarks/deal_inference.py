"""How well `hard`'s deals guess the hidden cards, and what the guess costs, side by side.

At each card decision of seat 0 (with a choice) in matches of `medium` in seat 0 against three of
``--opp`` (default `medium`; any level `make_bot` knows, such as the searchers ``spar-pimc`` and
``spar-ismcts``), every setting draws its deals from what the seat can see; the figure is the share
of the cards the seat cannot see that a deal puts in the hand that really holds them, averaged over
the deals (a third is a blind guess), overall and by stage of the round, with the time per decision
spent drawing the deals.  The inference of `hard` reads the others' play as `medium`'s: against
other players this shows how much of the hidden cards it still finds.

python benchmarks/deal_inference.py --matches 3
python benchmarks/deal_inference.py --matches 3 --opp spar-pimc
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from callbreak import Match, Ruleset
from callbreak.bots import make_bot
from callbreak.bots.hard import HardBot
from callbreak.bots.knowledge import Knowledge
from callbreak.round import SeatView

# name: (the bot's settings, deals drawn per decision)
SETTINGS: dict[str, tuple[dict[str, Any], int]] = {
    "calls only (400 deals)": ({"infer": 1, "refine": 0}, 400),
    "+ play, best 400 of 1600": ({"infer": 4, "refine": 0}, 400),
    "+ 10 steps each, exp(-2) (previous hard)": ({"refine": 10, "miss_cost": 2.0, "keep": 1, "every": 1}, 400),
    "50 chains x 8, 100 steps, exp(-6) (hard)": ({}, 400),
    "100 deals, 1000 steps each, exp(-6)": ({"refine": 1000, "keep": 1}, 100),
    "50 chains x 8, 100 steps, exp(-3)": ({"miss_cost": 3.0}, 400),
    "50 chains x 8, 100 steps, exp(-1.5)": ({"miss_cost": 1.5}, 400),
    "50 chains x 8, 100 steps, exp(-10)": ({"miss_cost": 10.0}, 400),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=3)
    ap.add_argument("--rules", default="bhoos")
    ap.add_argument("--opp", default="medium", help="the level of seats 1-3 (seat 0 is medium)")
    a = ap.parse_args()
    views: list[tuple[SeatView, list[int]]] = []
    for seed in range(a.matches):
        bots = [make_bot("medium" if s == 0 else a.opp, seed=s) for s in range(4)]
        m = Match(Ruleset.preset(a.rules, rounds=5), seed=seed)
        while not m.is_over:
            s = m.to_act
            assert s is not None
            v = m.view(s)
            if s == 0 and v.phase == "playing" and len(v.legal_cards) > 1:
                views.append((v, list(m.round.hand_masks)))
            m.act(bots[s].act(v))
    HardBot(seed=0).card_deals(views[0][0], Knowledge.from_view(views[0][0]), 8, 0)  # compile
    print(f"{len(views)} decisions of seat 0 in {a.matches} matches of medium against 3 x {a.opp} ({a.rules} rules)")
    print(f"{'setting':44} {'right':>6}  {'tricks 0-3':>10} {'4-7':>6} {'8-11':>6}  {'ms/decision':>11}")
    for name, (settings, n) in SETTINGS.items():
        bot = HardBot(seed=0, **settings)
        right: list[float] = []
        stage: dict[int, list[float]] = {0: [], 1: [], 2: []}
        spent = 0.0
        for v, truth in views:
            k = Knowledge.from_view(v)
            t0 = time.perf_counter()
            deals = bot.card_deals(v, k, n, len(v.tricks))
            spent += time.perf_counter() - t0
            hidden = k.unseen.bit_count()
            x = sum(
                sum((d[s] & truth[s]).bit_count() for s in range(4) if s != v.seat) / hidden for d in deals
            ) / len(deals)
            right.append(x)
            stage[min(len(v.tricks) // 4, 2)].append(x)
        mean = sum(right) / len(right)
        a0, a1, a2 = (sum(xs) / max(len(xs), 1) for xs in stage.values())
        ms = 1000 * spent / len(views)
        print(f"{name:44} {mean:6.3f}  {a0:10.3f} {a1:6.3f} {a2:6.3f}  {ms:11.1f}")


if __name__ == "__main__":
    main()
