"""What a table's messages cost to build, at two checkouts side by side.

Each accepted call or card becomes events, numbered and rendered once as JSON for the catch-up
buffer, with the table's info rendered once per audience (the four seats and the spectators):
`TableState.apply`, `Recent.record` and `LiveTable.tables_json`, the work a server process does
for every action before it hands the frames to the fan-out.  A snapshot (a page drawn afresh, a
reconnection) is `LiveTable.snapshot`.  The same seeded matches are played at each checkout (its
own ``git worktree``, in a child process of its own), and the times printed side by side with
their ratio:

    python benchmarks/render.py                       # 0336270 (dicts and orjson) and this checkout
    python benchmarks/render.py --at 0336270 HEAD --matches 40

Times are CPU-bound and a few microseconds: run it on an idle machine, and read the ratio (a
few per cent either way is the noise of a run).  A checkout compared needs what the child calls
(`TableState.state_parts`, `Recent.record`, `LiveTable.tables_json`: there since before 0336270).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: run in a child process with the checkout's ``src`` first on the path
CHILD = r"""
import json, random, sys, time
from callbreak.rules import Ruleset
from callbreak.server.config import ServerConfig
from callbreak.server.hub import Hub
from callbreak.server.recent import AUDIENCES

matches, rounds = int(sys.argv[1]), int(sys.argv[2])
hub = Hub(ServerConfig(db=":memory:"))
rng = random.Random(1)
actions = snaps = 0
spent = snap_spent = 0.0
for _ in range(matches):
    t, _tokens = hub.create_table(Ruleset.preset("quick", rounds=rounds), name="Asha", play_now=True)
    st = t.state
    while st.status in ("playing", "between_rounds"):
        if st.status == "between_rounds":
            entry = {"t": "next"}
        else:
            v = st.match.view(st.match.to_act)
            entry = ({"t": "call", "seat": v.seat, "call": rng.choice(v.legal_calls)} if v.phase == "calling"
                     else {"t": "play", "seat": v.seat, "card": str(rng.choice(v.legal_cards))})
        t0 = time.perf_counter()
        events = st.apply(entry)
        t.recent.record(events, st.state_parts(list(AUDIENCES)))
        t.tables_json(list(AUDIENCES))
        spent += time.perf_counter() - t0
        actions += 1
        if actions % 10 == 0:
            t0 = time.perf_counter()
            t.snapshot(0)
            snap_spent += time.perf_counter() - t0
            snaps += 1
print(json.dumps({"actions": actions, "action_us": 1e6 * spent / actions, "snapshot_us": 1e6 * snap_spent / snaps}))
hub.store.close(); hub.hints.close()
"""


def measure(rev: str, matches: int, rounds: int) -> dict[str, float]:
    """The child's figures at ``rev`` ("." : this working tree)."""
    with tempfile.TemporaryDirectory(prefix="cb-render-") as tmp:
        src = ROOT / "src"
        if rev != ".":
            tree = Path(tmp) / "tree"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), rev], check=True)
            src = tree / "src"
        try:
            env = {**os.environ, "PYTHONPATH": str(src)}
            out = subprocess.run(
                [sys.executable, "-c", CHILD, str(matches), str(rounds)], env=env, capture_output=True, text=True, check=True
            ).stdout
        finally:
            if rev != ".":
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True)
    figures: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--at", nargs=2, default=["0336270", "."], metavar="REV", help="two checkouts (.: this working tree)")
    ap.add_argument("--matches", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3, help="runs at each checkout, alternating (the best kept)")
    a = ap.parse_args()
    best: dict[str, dict[str, float]] = {}
    for _ in range(a.repeat):
        for rev in a.at:
            got = measure(rev, a.matches, a.rounds)
            old = best.get(rev)
            if old is None or got["action_us"] < old["action_us"]:
                best[rev] = got
    first, second = (best[r] for r in a.at)
    print(f"{a.matches} seeded matches of {a.rounds} rounds, {first['actions']:.0f} actions at each; best of {a.repeat}")
    print(f"{'':28}{a.at[0]:>12}{a.at[1]:>12}{'ratio':>8}")
    for key, label in (("action_us", "an action's messages, µs"), ("snapshot_us", "a snapshot, µs")):
        print(f"{label:28}{first[key]:12.1f}{second[key]:12.1f}{second[key] / first[key]:8.2f}")


if __name__ == "__main__":
    main()
