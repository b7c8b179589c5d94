"""Time to analyse a five-round match on one core: one seat and all four, with and
without the hindsight view (the README's figure; the issue asks for at most 15 s
and 60 s).  The CPU time of the process is the figure (pinned to one core, one
numba thread); the wall time is printed beside it, with the load of the machine,
and, with hindsight, how many of the cards analysed got a hindsight value (the
others were over the search's node budget).

The match is played by medium bots (seed 1, the quick rules with five rounds);
the kernel is compiled (or loaded from its cache) before any timing.

nice -n 10 python benchmarks/analysis_speed.py
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import time

from callbreak import Match, Ruleset
from callbreak.analysis import DEFAULT_BUDGET, analyse
from callbreak.bots import make_bot


def bot_match(seed: int, rounds: int) -> Match:
    m = Match(Ruleset.preset("quick", rounds=rounds), seed=seed)
    bots = [make_bot("medium", seed * 4 + s) for s in range(4)]
    while not m.is_over:
        seat = m.to_act
        assert seat is not None
        m.act(bots[seat].act(m.view(seat)))
    return m


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    analyse(bot_match(0, 1), seats=[0], budget=50)  # compile / load the kernel
    m = bot_match(a.seed, 5)
    print(f"5-round match, budget {a.budget} playouts per decision, one core")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(
        f"{'seats':<10}{'hindsight':>10}{'decisions':>11}{'CPU s':>8}{'wall s':>8}{'limit':>7}{'solved':>12}"
    )
    for seats, limit in (([0], 15), ([0, 1, 2, 3], 60)):
        for hs in (False, True):
            t, c = time.perf_counter(), time.process_time()
            an = analyse(m, seats=seats, budget=a.budget, seed=1, hindsight=hs)
            dt, dc = time.perf_counter() - t, time.process_time() - c
            cards = [d for d in an.decisions if d.kind == "card"]
            solved = f"{sum(d.hindsight is not None for d in cards)}/{len(cards)}" if hs else ""
            print(
                f"{len(seats):<10}{'yes' if hs else 'no':>10}{len(an.decisions):>11}{dc:>8.1f}{dt:>8.1f}{limit:>7}{solved:>12}"
            )


if __name__ == "__main__":
    main()
