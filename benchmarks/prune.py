"""How long `callbreak prune` holds a SQLite file's write lock, with the tokens' index and without.

A SQLite file has one writer: while a prune's batch is being deleted, every server's commit (a
call, a card) waits for it. This fills a fresh file with ``--tables`` finished tables, each of 56
entries and 4 seat tokens, closed 100 days ago, then prunes them all (``--batch`` tables a
transaction, as the command does) twice, on two copies: as the store makes its schema, and with
the index of the tokens by table dropped (the schema before the index). It prints, side by side,
each batch's time (p50, p99, max: the longest a server's commit waits) and the ratio.

    python benchmarks/prune.py --tables 20000
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from callbreak.server.store import SQLiteStore


def fill(path: str, tables: int) -> None:
    s = SQLiteStore(path, checkpoint_every=0)
    old = time.time() - 100 * 86400
    db = s.db
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO tables (id, invite, meta, status, created, updated) VALUES (?,?,?,?,?,?)",
        [(f"t{i}", f"i{i}", "{}", "over", old, old) for i in range(tables)],
    )
    db.executemany(
        "INSERT INTO log (table_id, seq, entry, ts) VALUES (?,?,?,?)",
        [(f"t{i}", q, '{"t": "play"}', old) for i in range(tables) for q in range(56)],
    )
    db.executemany(
        "INSERT INTO tokens (token, table_id, seat) VALUES (?,?,?)",
        [(f"k{i}-{q}", f"t{i}", q) for i in range(tables) for q in range(4)],
    )
    db.execute("COMMIT")
    s.close()


def prune_all(path: str, batch: int, drop_index: bool) -> list[float]:
    s = SQLiteStore(path, checkpoint_every=0)
    if drop_index:
        s.db.execute("DROP INDEX tokens_table")
    times = []
    before = time.time() - 90 * 86400
    while True:
        t0 = time.perf_counter()
        gone = s.prune(before, batch)
        times.append(time.perf_counter() - t0)
        if len(gone) < batch:
            break
    s.close()
    return sorted(times)


def ms(times: list[float], q: float) -> float:
    """The ``q`` quantile of sorted seconds, in ms."""
    return 1000 * times[min(len(times) - 1, int(q * len(times)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=20000)
    ap.add_argument("--batch", type=int, default=200)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cb-prune-"))
    try:
        base = str(tmp / "base.db")
        fill(base, args.tables)
        rows = {}
        for name, drop in (("with the tokens' index", False), ("without it", True)):
            copy = str(tmp / f"{int(drop)}.db")
            shutil.copyfile(base, copy)
            rows[name] = prune_all(copy, args.batch, drop)
            os.remove(copy)
        print(f"{args.tables} tables ({56 * args.tables} log rows, {4 * args.tables} tokens), batches of {args.batch}")
        print(f"{'':24} {'batches':>8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
        for name, t in rows.items():
            print(f"{name:24} {len(t):>8} {ms(t, 0.5):>8.1f} {ms(t, 0.99):>8.1f} {1000 * t[-1]:>8.1f}")
        a, b = rows.values()
        print(f"max batch, without / with the index: {b[-1] / a[-1]:.0f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
