"""What a call's or a card's commit costs the event loop on PostgreSQL: on the loop, or written behind.

One event loop issues entries (calls, cards) of many tables at a steady rate, as a loaded
server process would, and commits each either on the loop (`PostgresStore.append`: the loop
waits for PostgreSQL's answer) or through `server.writebehind.WriteBehind` (the loop sends the
entries on a connection of its own without waiting, many in one statement, and tells each
outcome when PostgreSQL's answer comes).  Side by side, per rate:

- the loop's busy time per entry (µs of wall time spent issuing and committing or handing over);
- how late the loop's 1 ms ticks fired (p99 and worst, ms): what every other table waits;
- the commit's latency, issued to told (p50 / p99 ms), and entries per statement.

    python benchmarks/commits.py                      # 1,000 / 3,000 / 6,000 entries a second, 5 s each
    python benchmarks/commits.py --rates 2000 --seconds 10 --tables 400

PostgreSQL is started on loopback as the tests do (``tests/scale/services.py``).  A PostgreSQL on
another host adds its network round trip to every commit made on the loop, and to none of the
loop's time with the write-behind.
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
sys.path.insert(0, str(ROOT / "benchmarks"))

from tests.scale.services import Postgres, fresh_database  # noqa: E402

from bot_times import pct  # noqa: E402  (milliseconds)
from callbreak import Ruleset  # noqa: E402
from callbreak.server.store_pg import PostgresStore  # noqa: E402
from callbreak.server.table import TableMeta  # noqa: E402
from callbreak.server.writebehind import WriteBehind  # noqa: E402


async def run(url: str, mode: str, rate: int, seconds: float, tables: int) -> dict[str, float]:
    store = PostgresStore(url)
    ids = [f"{mode[:2]}{rate}-{i}" for i in range(tables)]
    for tid in ids:
        store.create(TableMeta(tid, "i-" + tid, Ruleset(), "random", 1, 0.0), [{"t": "start"}], [], "playing")
    loop = asyncio.get_running_loop()
    batches: list[int] = []
    wb = WriteBehind(store, loop, lambda s, n: batches.append(n)) if mode == "behind" else None
    seq = dict.fromkeys(ids, 1)
    busy = 0.0
    issued = 0
    lags: list[float] = []
    latency: list[float] = []
    per_tick = rate / 1000
    owed = 0.0
    start = loop.time()
    next_tick = start
    while loop.time() - start < seconds:
        next_tick += 0.001
        delay = next_tick - loop.time()
        t_sleep = time.perf_counter()
        await asyncio.sleep(max(0.0, delay))
        lags.append(max(0.0, time.perf_counter() - t_sleep - max(0.0, delay)))
        owed += per_tick
        t0 = time.perf_counter()
        while owed >= 1:
            owed -= 1
            tid = ids[issued % tables]
            issued += 1
            n = seq[tid]
            seq[tid] = n + 1
            entry = {"t": "call", "seat": n % 4, "call": n % 13 + 1}
            if wb is None:
                t1 = time.perf_counter()
                store.append(tid, n, entry, (), None)
                latency.append(time.perf_counter() - t1)
            else:
                t1 = time.perf_counter()
                wb.append(object(), (tid, n, entry, 0.0), lambda err, t1=t1: latency.append(time.perf_counter() - t1))
        busy += time.perf_counter() - t0
        next_tick = max(next_tick, loop.time())  # a late tick does not make the next ones hurry
    if wb is not None:
        wb.close()  # on the loop: blocks until every entry is answered
        await asyncio.sleep(0.05)
    committed = sum(len(store.load(t)[1]) - 1 for t in ids)  # type: ignore[index]
    store.close()
    assert committed == issued == len(latency), (committed, issued, len(latency))
    return {
        "entries": issued,
        "busy_us": 1e6 * busy / issued,
        "lag_p99": pct(lags, 0.99),
        "lag_max": 1e3 * max(lags),
        "lat_p50": 1e3 * statistics.median(latency),
        "lat_p99": pct(latency, 0.99),
        "per_statement": (sum(batches) / len(batches)) if batches else 1.0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rates", default="1000,3000,6000", help="entries a second")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--tables", type=int, default=200)
    args = ap.parse_args()
    pg = Postgres()
    try:
        print(f"# {args.tables} tables, {args.seconds:.0f} s a row; PostgreSQL on loopback; µs and ms of wall time")
        print(
            "| entries/s | commit | loop busy µs/entry | loop tick late p99 / max ms | commit p50 / p99 ms | entries a statement |"
        )
        print("|---|---|---|---|---|---|")
        for rate in (int(r) for r in args.rates.split(",")):
            rows = {}
            for mode in ("on the loop", "behind"):
                rows[mode] = r = asyncio.run(run(fresh_database(pg.url), mode, rate, args.seconds, args.tables))
                print(
                    f"| {rate} | {mode} | {r['busy_us']:.0f} | {r['lag_p99']:.1f} / {r['lag_max']:.1f} | "
                    f"{r['lat_p50']:.2f} / {r['lat_p99']:.2f} | {r['per_statement']:.1f} |",
                    flush=True,
                )
            ratio = rows["on the loop"]["busy_us"] / rows["behind"]["busy_us"]
            print(f"| {rate} | ratio, on the loop / behind | {ratio:.1f}× | | | |", flush=True)
    finally:
        pg.stop()


if __name__ == "__main__":
    main()
