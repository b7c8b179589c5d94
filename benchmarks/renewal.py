"""What a lease renewal costs a process's event loop, by the number of tables it runs.

A clustered process renews the leases of all its loaded tables every third of the lease's
time-out (`Cluster._renew`, on the event loop): whatever it costs, every table of the process
waits for.  For each count of tables: the loop's CPU time per renewal (ms) and per table (µs),
and the renewal's wall time (ms), over ``--rounds`` renewals, side by side.

    python benchmarks/renewal.py                       # 100, 300 and 1,000 tables
    python benchmarks/renewal.py --tables 200 --rounds 50

PostgreSQL and Redis are started on loopback as the tests do (``tests/scale/services.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from tests.scale.services import Postgres, Redis, fresh_database, namespace  # noqa: E402


async def run(pg_url: str, redis_url: str, tables: int, rounds: int) -> tuple[float, float, float]:
    """(CPU ms per renewal: median, worst; wall ms per renewal: median)."""
    from callbreak.rules import Ruleset
    from callbreak.server.cluster import Cluster
    from callbreak.server.config import ServerConfig
    from callbreak.server.hub import Hub

    hub = Hub(ServerConfig(db=pg_url))
    cluster = Cluster(hub, redis_url, namespace=namespace(), lease_ttl=600.0)  # no renewal of its own
    await cluster.start()
    try:
        for _ in range(tables):
            hub.create_table(Ruleset(), bots="random", name="A", play_now=True)
        await cluster._renew()  # the leases taken; from here on each renewal keeps them
        assert len(cluster.owned) == tables
        cpu: list[float] = []
        wall: list[float] = []
        for _ in range(rounds):
            c0, w0 = time.thread_time(), time.perf_counter()
            await cluster._renew()
            cpu.append((time.thread_time() - c0) * 1000)
            wall.append((time.perf_counter() - w0) * 1000)
        return statistics.median(cpu), max(cpu), statistics.median(wall)
    finally:
        await cluster.stop()
        await hub.shutdown()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", default="100,300,1000", help="tables a process runs, comma-separated")
    ap.add_argument("--rounds", type=int, default=20, help="renewals measured at each count")
    args = ap.parse_args()
    pg, rd = Postgres(), Redis()
    try:
        print("| tables | loop CPU per renewal, median ms | worst ms | per table µs | wall per renewal, median ms |")
        print("|---|---|---|---|---|")
        for n in (int(x) for x in args.tables.split(",")):
            med, worst, wall = asyncio.run(run(fresh_database(pg.url), rd.url, n, args.rounds))
            print(f"| {n} | {med:.2f} | {worst:.2f} | {med / n * 1000:.1f} | {wall:.2f} |", flush=True)
    finally:
        pg.stop()
        rd.stop()


if __name__ == "__main__":
    main()
