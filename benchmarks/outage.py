"""What a PostgreSQL outage costs a server process: how long its probes take to answer while the
database is away, and how soon after it is back the process is ready and makes tables again.

    python benchmarks/outage.py [--down 10] [--polls 0.1]

Starts a PostgreSQL and a Redis of its own (Debian's binaries, as tests/scale/services.py), one
``callbreak serve`` on them, and a table; polls ``/healthz`` and ``/readyz`` every ``--polls``
seconds (each with a 60 s timeout, so a frozen process shows as a long answer, not a gap);
stops PostgreSQL for ``--down`` seconds and starts it again. Prints, side by side, the probes'
slowest answers before, during and after the outage, and the seconds from PostgreSQL accepting
sessions again to ``/readyz`` 200 and to a new table made.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.scale.procs import ScaledServer  # noqa: E402
from tests.scale.services import Postgres, Redis, fresh_database, namespace  # noqa: E402

RULES = {"preset": "quick", "rounds": 1, "call_seconds": None, "card_seconds": None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--down", type=float, default=10.0, help="seconds PostgreSQL stays stopped")
    ap.add_argument("--polls", type=float, default=0.1, help="seconds between two polls of the probes")
    args = ap.parse_args()
    pg, rd = Postgres(), Redis()
    server = ScaledServer(fresh_database(pg.url), rd.url, namespace())
    samples: list[tuple[float, str, float, int]] = []  # (sent at, probe, seconds, status)
    stop = threading.Event()

    def poll() -> None:
        with httpx.Client(base_url=server.base, timeout=60) as http:
            while not stop.is_set():
                for probe in ("/healthz", "/readyz"):
                    t0 = time.monotonic()
                    try:
                        status = http.get(probe).status_code
                    except httpx.HTTPError:
                        status = 0
                    samples.append((t0, probe, time.monotonic() - t0, status))
                stop.wait(args.polls)

    try:
        server.start()
        server.create(rules=RULES, bots="random", name="Asha", play_now=True)
        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        time.sleep(2.0)
        halted = time.monotonic()
        pg.halt()
        time.sleep(args.down)
        pg.start()
        back = time.monotonic()
        ready = made = None
        while ready is None or made is None:
            now = time.monotonic()
            assert now - back < 300, "not ready 5 minutes after PostgreSQL came back"
            if ready is None and any(t >= back and p == "/readyz" and s == 200 for t, p, _, s in samples):
                ready = min(t + d for t, p, d, s in samples if t >= back and p == "/readyz" and s == 200) - back
            if made is None:
                try:
                    if httpx.post(server.base + "/api/tables", json={"rules": RULES, "bots": "random"}, timeout=60).status_code == 200:
                        made = time.monotonic() - back
                except httpx.HTTPError:
                    pass
            time.sleep(args.polls)
        time.sleep(2.0)
        stop.set()
        poller.join()
    finally:
        stop.set()
        server.stop()
        pg.stop()
        rd.stop()

    def worst(probe: str, lo: float, hi: float) -> str:
        got = [d for t, p, d, _ in samples if p == probe and lo <= t < hi]
        return f"{max(got) * 1000:8.0f} ms ({len(got)} polls)" if got else "       -"

    end = float("inf")
    print(f"PostgreSQL stopped for {args.down:g} s; probes polled every {args.polls:g} s (60 s timeout)")
    print(f"{'slowest answer':<16} {'before':>22} {'during':>22} {'after':>22}")
    for probe in ("/healthz", "/readyz"):
        print(f"{probe:<16} {worst(probe, 0, halted):>22} {worst(probe, halted, back):>22} {worst(probe, back, end):>22}")
    during = [s for t, p, _, s in samples if p == "/readyz" and halted + 1 <= t < back]
    print(f"/readyz during the outage: {sum(s == 503 for s in during)} of {len(during)} answers 503")
    print(f"after PostgreSQL accepts sessions again: /readyz 200 in {ready:.2f} s, a new table in {made:.2f} s")


if __name__ == "__main__":
    main()
