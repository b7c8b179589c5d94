"""What the tables of a process keep for the garbage collector, and what a full collection costs.

A full (oldest-generation) collection visits every object the collector tracks, holding the
interpreter lock: every table of the process waits for it (``callbreak serve`` runs one every
``CALLBREAK_GC_EVERY`` seconds).  This builds ``--tables`` tables in one `Hub` (embedded SQLite in
memory, no connections), plays every seat of each with random legal actions round after round,
and after each round prints, side by side:

- the tracked objects a table keeps (reachable from it, the hub and what is shared left out),
  and how many the last round added;
- the time of a full collection of the process (median of 3), everything loaded before the
  tables excluded (`gc.freeze`, as ``callbreak serve`` does at start).

    python benchmarks/heap.py                       # 250 tables, 6 rounds
    python benchmarks/heap.py --tables 500 --rounds 10

Run it on two commits to compare them (the tables are played the same way on both: seeded).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from tests.server.heap import play_round, tracked_from  # noqa: E402

from callbreak.rules import Ruleset  # noqa: E402
from callbreak.server.config import ServerConfig  # noqa: E402
from callbreak.server.hub import Hub  # noqa: E402


def full_collection_ms() -> float:
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        gc.collect()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=250)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    hub = Hub(ServerConfig(db=":memory:"))
    rng = random.Random(args.seed)
    gc.collect()
    gc.freeze()
    tables = [hub.create_table(Ruleset(rounds=None), name="Asha", play_now=True)[0] for _ in range(args.tables)]
    print(f"{args.tables} tables, every seat played with random legal actions; endless matches (`Ruleset(rounds=None)`)")
    print()
    print("| rounds played | tracked objects a table keeps | added by the round | tracked objects in all | full collection (ms) |")
    print("|---|---|---|---|---|")
    before = None
    for r in range(1, args.rounds + 1):
        for t in tables:
            play_round(t, rng)
        gc.collect()
        kept = statistics.mean(tracked_from(t, [hub]) for t in tables[:20])
        added = "" if before is None else f"{kept - before:+.0f}"
        print(f"| {r} | {kept:.0f} | {added} | {len(gc.get_objects()):,} | {full_collection_ms():.1f} |", flush=True)
        before = kept
    gc.unfreeze()
    hub.store.close()
    hub.hints.close()


if __name__ == "__main__":
    main()
