"""Strength of the bot levels, measured in the arena (duplicate play, bhoos rules).

Pairings: ``hard`` vs 3× ``medium``, ``medium`` vs 3× ``easy``, ``easy`` vs 3×
``random``.  Each deal set is played four times with the bots rotated through the
seats, so the tested bot plays every seat's cards; the 95 % intervals are over
deal groups (see `callbreak.arena.summary`).  Parity is a 25 % win share.

``--http`` adds ``hard`` served over HTTP (``callbreak bot serve``, a separate
process) against three local ``medium`` bots: the same bot through the Bhoos
protocol, with the 1.5 s per round budget enforced.

    python benchmarks/strength.py --matches 400 --jobs 2 --json strength.json
    python benchmarks/strength.py --pairs hard-medium --matches 40 --http-matches 16 --http

Goals (issue 3): hard wins ≥ 45 % against 3× medium; each level clearly beats the one below.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import time
from typing import Any

from rich.console import Console

from callbreak import Ruleset
from callbreak.arena.runner import run_arena
from callbreak.arena.summary import summarize

PAIRS = {
    "hard-medium": ("hard", "medium"),
    "medium-easy": ("medium", "easy"),
    "easy-random": ("easy", "random"),
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def one(
    console: Console, specs: list[str], matches: int, rules: Ruleset, seed: int, jobs: int, budget: float
) -> dict[str, Any]:
    t0 = time.perf_counter()
    res = run_arena(specs, matches, rules=rules, seed=seed, jobs=jobs, duplicate=True, time_budget=budget)
    s = summarize(res)
    console.print(s.table())
    hero = s.bots[0]
    console.print(
        f"{specs[0]} vs 3x {specs[1]}: win share {100 * hero.win_share:.1f} % ± {100 * hero.win_share_ci:.1f} "
        f"over {s.matches} matches ({s.units} deal groups), {time.perf_counter() - t0:.0f} s with {jobs} job(s)\n"
    )
    return s.to_dict(with_matches=False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", default=",".join(PAIRS), help=f"comma-separated, of {', '.join(PAIRS)}")
    ap.add_argument("--matches", type=int, default=400, help="matches per pairing (a multiple of 4)")
    ap.add_argument("--rules", default="bhoos")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--http", action="store_true", help="also: hard served over HTTP vs 3x medium")
    ap.add_argument("--http-matches", type=int, default=16)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    console = Console(width=150)
    rules = Ruleset.preset(args.rules)
    if rules.rounds is None:
        rules = rules.replace(rounds=5)
    out: dict[str, Any] = {"command": " ".join(sys.argv), "runs": {}}
    for name in [p for p in args.pairs.split(",") if p]:
        hero, other = PAIRS[name]
        out["runs"][name] = one(
            console, [hero, other, other, other], args.matches, rules, args.seed, args.jobs, 1.5
        )
    if args.http:
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "callbreak", "bot", "serve", "--bot", "hard", "--port", str(port),
             "--rules", args.rules],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            url = f"http://127.0.0.1:{port}"
            from callbreak.remote.client import RemoteBot

            probe = RemoteBot(url)
            if not probe.wait_ready(60):
                raise SystemExit("the hard bot server did not start")
            probe.close()
            out["runs"]["hard-http-medium"] = one(
                console, [url, "medium", "medium", "medium"], args.http_matches, rules, args.seed, 1, 1.5
            )
        finally:
            proc.kill()
            proc.wait()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
