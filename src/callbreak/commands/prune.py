"""``callbreak prune``: delete tables that closed long ago from the server's database.

A server keeps every table with its whole log, seat tokens and analysis (the matches page,
the replays and the analysis board read them). An operator whose database has grown deletes the
ones that closed (over, expired or abandoned) more than ``--older-than`` days ago, while the
servers run: a batch of tables at a time, each batch one transaction (`Store.prune`). Unfinished
tables are never touched, whatever their age. A player's link to a pruned table then says there
is no such table, and its match leaves their matches list.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

__all__ = ["MIN_DAYS", "register", "run"]

#: the youngest a closed table may be to go (days): a finished table stays loaded in a server a
#: few minutes after its last player leaves (a rematch may still be asked of it then)
MIN_DAYS = 1.0
#: seconds between two batches: a SQLite file has one writer, and the servers' commits wait for it
PAUSE = 0.05


def _days(text: str) -> float:
    """``--older-than``'s value: a number of days, at least `MIN_DAYS`.

    >>> _days("90"), _days("1.5")
    (90.0, 1.5)
    >>> _days("0.5")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: at least 1 day (a table that closed minutes ago may still be loaded in a server), not 0.5
    """
    try:
        days = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of days, not {text!r}") from None
    if not days >= MIN_DAYS:  # (also refuses nan)
        raise argparse.ArgumentTypeError(
            f"at least {MIN_DAYS:g} day (a table that closed minutes ago may still be loaded in a server), not {text}"
        )
    return days


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``callbreak prune`` to the command line's subcommands.

    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> args = parser.parse_args(["prune", "--older-than", "90", "--db", "tables.db"])
    >>> args.func is run, args.older_than, args.db, args.batch
    (True, 90.0, 'tables.db', 200)
    """
    p = subparsers.add_parser(
        "prune",
        help="delete tables that closed long ago from the server's database",
        description="Delete the tables that closed (over, expired or abandoned) more than --older-than days "
        "ago, with their logs, seat tokens and analyses, from the database the servers use; safe while they "
        "run. Unfinished tables are kept whatever their age.",
    )
    p.add_argument("--older-than", type=_days, required=True, metavar="DAYS",
                   help=f"closed more than this many days ago (at least {MIN_DAYS:g})")  # fmt: skip
    p.add_argument("--db", default=None,
                   help="SQLite database file (default callbreak.db), or a postgresql:// URL (CALLBREAK_DB)")  # fmt: skip
    p.add_argument("--batch", type=int, default=200, help="tables a transaction (default 200)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Prune the database ``args`` names; the exit status (1: no such SQLite file, or the
    database does not answer).

    >>> import os, tempfile
    >>> from callbreak.server.store import open_store
    >>> path = os.path.join(tempfile.mkdtemp(), "callbreak.db")
    >>> open_store(path).close()
    >>> run(argparse.Namespace(older_than=90.0, db=path, batch=200))
    0 tables that closed more than 90 days ago deleted from .../callbreak.db
    0
    """
    from ..extras import need

    need("callbreak prune", "server")
    from ..server.config import ServerConfig, redacted
    from ..server.store import StoreUnavailable, is_postgres_url, open_store

    if args.batch < 1:
        print("callbreak prune: --batch must be at least 1", file=sys.stderr)
        return 2
    db = ServerConfig.from_env(db=args.db).db
    if is_postgres_url(db):
        need("callbreak prune on PostgreSQL", "scale")
    elif not os.path.isfile(db):  # (opening it would make an empty one)
        print(f"callbreak prune: there is no database file {db} here (--db, CALLBREAK_DB)", file=sys.stderr)
        return 1
    before = time.time() - args.older_than * 86400
    try:
        store = open_store(db)
    except StoreUnavailable as e:
        print(f"callbreak prune: {e}", file=sys.stderr)
        return 1
    total = 0
    try:
        while True:
            gone = store.prune(before, args.batch)
            total += len(gone)
            if len(gone) < args.batch:
                break
            time.sleep(PAUSE)  # (the servers' commits go first between two batches)
    except StoreUnavailable as e:
        print(f"callbreak prune: {e} ({total} tables deleted before it)", file=sys.stderr)
        return 1
    finally:
        store.close()
    days = f"{args.older_than:g} day{'' if args.older_than == 1 else 's'}"
    print(f"{total} table{'' if total == 1 else 's'} that closed more than {days} ago deleted from {redacted(db)}")
    return 0
