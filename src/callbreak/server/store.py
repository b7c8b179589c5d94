"""Where tables live: an append-only log of each table's actions.

`Store` is the interface the server uses; `SQLiteStore` (stdlib ``sqlite3``, WAL)
is the embedded default.  A PostgreSQL store implements the same few methods
over the same relations (``tables``, ``log``, ``tokens``, and ``analyses`` for the
post-match analyses); the unique key
``(table_id, seq)`` makes two processes appending to one table fail loudly
instead of forking its history.

Every call is short (one indexed statement and a commit), so the server calls
them on its event loop; a commit in WAL mode with ``synchronous=NORMAL`` does not
wait for the disk, yet a committed row survives ``kill -9`` of the process.

>>> import tempfile, os
>>> from callbreak import Ruleset
>>> from callbreak.server.table import TableMeta
>>> d = tempfile.mkdtemp()
>>> s = SQLiteStore(os.path.join(d, "t.db"))
>>> meta = TableMeta(id="t1", invite="inv1", rules=Ruleset(), bots="random", seed=5, created=0.0)
>>> s.create(meta, [{"t": "seat", "seat": 0, "name": "A", "token": "tok"}], [("tok", 0)], "lobby")
>>> s.append("t1", 1, {"t": "start"}, (), "playing")
>>> m, log = s.load("t1")
>>> m.seed, [e["t"] for e in log], s.find_token("tok"), s.find_invite("inv1"), s.unfinished()
(5, ['seat', 'start'], ('t1', 0), 't1', ['t1'])
>>> s.save_analysis("t1", "k", b"{}"); s.load_analysis("t1", "k"), s.load_analysis("t1", "other")
(b'{}', None)
>>> s.append("t1", 1, {"t": "call"}, (), None)
Traceback (most recent call last):
...
callbreak.server.store.StoreConflict: table t1 already has entry 1
>>> s.close()
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import orjson

from .config import redacted
from .table import ABANDONED, BETWEEN, EXPIRED, FINISHED, LOBBY, PLAYING, TableMeta

__all__ = [
    "BatchChannel",
    "BatchStore",
    "EntryDropped",
    "Row",
    "SQLiteStore",
    "Store",
    "StoreConflict",
    "StoreUnavailable",
    "is_postgres_url",
    "open_store",
]

log = logging.getLogger("callbreak.server")

#: one log entry to commit: the table's id, the entry's number, the entry, and its time stamp
Row = tuple[str, int, dict[str, Any], float]


class StoreUnavailable(RuntimeError):
    """The database cannot be opened: a SQLite file in a folder that does not exist, a URL of
    another kind, a PostgreSQL server that refuses the role or the database (its password is
    never in the message).

    >>> try:
    ...     open_store("/no/such/folder/callbreak.db")
    ... except StoreUnavailable as e:
    ...     print(e)
    cannot open the SQLite database /no/such/folder/callbreak.db: unable to open database file
    """


class StoreConflict(RuntimeError):
    """An entry number that is already taken: another writer got there first.

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.table import TableMeta
    >>> s = SQLiteStore(":memory:")
    >>> s.create(TableMeta("k3Xa9Q", "8hJq2w", Ruleset(), "easy", 1, 0.0), [{"t": "seat", "seat": 0}], [], "lobby")
    >>> try:
    ...     s.append("k3Xa9Q", 0, {"t": "start"}, (), "playing")   # entry 0 is taken
    ... except StoreConflict as e:
    ...     print(type(e).__name__)
    StoreConflict
    >>> s.close()
    """


class EntryDropped(RuntimeError):
    """An entry not committed because an earlier entry of its table was not: a table's log has
    no gaps, so everything after a failed entry fails with it.

    >>> raise EntryDropped("table t1: entry 7 was not committed, nor anything after it")
    Traceback (most recent call last):
    ...
    callbreak.server.store.EntryDropped: table t1: entry 7 was not committed, nor anything after it
    """


class Store(Protocol):
    """The storage interface of the server (embedded: `SQLiteStore`).

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.table import TableMeta
    >>> s: Store = open_store(":memory:")
    >>> s.create(TableMeta("k3Xa9Q", "8hJq2w", Ruleset(), "easy", 1, 0.0), [{"t": "seat", "seat": 0}], [("tok0", 0)], "lobby")
    >>> s.append("k3Xa9Q", 1, {"t": "start"}, (), "playing")
    >>> meta, entries = s.load("k3Xa9Q")
    >>> meta.bots, entries, s.find_invite("8hJq2w"), s.find_token("tok0"), s.status("k3Xa9Q"), s.unfinished()
    ('easy', [{'t': 'seat', 'seat': 0}, {'t': 'start'}], 'k3Xa9Q', ('k3Xa9Q', 0), 'playing', ['k3Xa9Q'])
    >>> s.close()
    """

    def create(
        self,
        meta: TableMeta,
        entries: Sequence[dict[str, Any]],
        tokens: Sequence[tuple[str, int]],
        status: str,
    ) -> None:
        """Create a table with its first log entries, atomically."""

    def append(
        self,
        table_id: str,
        seq: int,
        entry: dict[str, Any],
        tokens: Sequence[tuple[str, int]],
        status: str | None,
    ) -> None:
        """Append entry number ``seq`` (0-based) and commit; `StoreConflict` if taken."""

    def load(self, table_id: str) -> tuple[TableMeta, list[dict[str, Any]]] | None:
        """The table's meta and its whole log, or None."""

    def find_invite(self, code: str) -> str | None: ...

    def find_token(self, token: str) -> tuple[str, int] | None: ...

    def unfinished(self) -> list[str]:
        """Ids of tables in the lobby or being played."""

    def status(self, table_id: str) -> str | None:
        """The stored status of a table (None: no such table)."""

    def stale(self, lobby_before: float, idle_before: float, limit: int) -> list[str]:
        """Up to ``limit`` ids of tables in the lobby created before ``lobby_before``, and of
        tables being played whose last entry is older than ``idle_before`` (oldest first)."""

    def prune(self, before: float, limit: int) -> list[str]:
        """Delete up to ``limit`` tables that closed (over, expired or abandoned) before
        ``before`` (epoch seconds) and were not touched since (no entry, no analysis saved),
        each with its log, seat tokens and analyses, in one transaction; their ids (fewer than
        ``limit``: none is left).  `callbreak prune`."""

    def save_analysis(self, table_id: str, key: str, body: bytes) -> None:
        """Keep the post-match analysis of a table (``key``: the settings it was made
        with; `callbreak.server.analysis`), replacing one kept under the same key."""

    def load_analysis(self, table_id: str, key: str) -> bytes | None:
        """The analysis kept by `save_analysis`, or None."""

    def close(self) -> None: ...


def is_postgres_url(db: str) -> bool:
    """Whether ``db`` names a PostgreSQL database (else it is a SQLite file).

    >>> is_postgres_url("postgresql://u@h/db"), is_postgres_url("postgres://h/db"), is_postgres_url("x.db")
    (True, True, False)
    """
    return db.startswith(("postgresql://", "postgres://"))


def open_store(db: str, sync: str = "normal", now: Callable[[], float] = time.time) -> Store:
    """The store ``db`` names: a ``postgresql://`` URL (`callbreak.server.store_pg.PostgresStore`,
    the ``scale`` extra), or else a SQLite file.

    >>> s = open_store(":memory:"); type(s).__name__
    'SQLiteStore'
    >>> s.close()
    >>> open_store("postgressql://callbreak@db/callbreak")
    Traceback (most recent call last):
    ...
    callbreak.server.store.StoreUnavailable: postgressql://callbreak@db/callbreak: a database is a SQLite file or a postgresql:// URL
    """
    if is_postgres_url(db):
        from .store_pg import PostgresStore

        return PostgresStore(db, now=now)
    if "://" in db:  # (a misspelt scheme would otherwise name a SQLite file)
        raise StoreUnavailable(f"{redacted(db)}: a database is a SQLite file or a postgresql:// URL")
    try:
        return SQLiteStore(db, sync, now=now)
    except sqlite3.Error as e:
        raise StoreUnavailable(f"cannot open the SQLite database {db}: {e}") from None


_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    invite TEXT NOT NULL UNIQUE,
    meta TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS tables_status ON tables(status);
CREATE TABLE IF NOT EXISTS log (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    entry TEXT NOT NULL,
    ts REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    seat INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tokens_table ON tokens(table_id);
CREATE INDEX IF NOT EXISTS tables_closed ON tables(status, updated);
CREATE TABLE IF NOT EXISTS analyses (
    table_id TEXT NOT NULL,
    key TEXT NOT NULL,
    body BLOB NOT NULL,
    PRIMARY KEY (table_id, key)
) WITHOUT ROWID;
"""

_UNFINISHED = (LOBBY, PLAYING, BETWEEN)
#: the statuses of a table nobody plays any more (`Store.prune`)
CLOSED = (FINISHED, EXPIRED, ABANDONED)
#: up to a number of tables closed before a time and idle since (their status changed, their
#: analysis was saved, and their last entry, a rematch asked of a finished table say, all before it)
#: (``closed``: the test of the status, ``p``: a parameter, in each database's own forms)
_PRUNABLE = (
    "SELECT id FROM tables t WHERE {closed} AND updated < {p} AND "
    "COALESCE((SELECT ts FROM log WHERE table_id=t.id ORDER BY seq DESC LIMIT 1), 0) < {p} ORDER BY updated LIMIT {p}"
)


class BatchChannel(Protocol):
    """A connection of its own on which a `BatchStore` commits batches of entries without
    blocking (`PostgresStore.open_channel`): `send` a batch, wait until `fileno` is readable,
    `poll` until it gives the outcomes.  One batch at a time.

    >>> from callbreak.server.store_pg import PgChannel
    >>> [hasattr(PgChannel, name) for name in ("fileno", "send", "flushed", "poll", "close")]
    [True, True, True, True, True]
    """

    def fileno(self) -> int:
        """The socket to wait on: readable when `poll` may have the outcomes, writable when a
        `send` that was not `flushed` may go on."""
        ...

    def send(self, rows: Sequence[Row]) -> None:
        """Start committing ``rows`` (entries with no tokens and no change of status), in order,
        without waiting."""
        ...

    def flushed(self) -> bool:
        """Send more of the batch; whether all of it has left (else: wait until writable)."""
        ...

    def poll(self) -> list[Exception | None] | None:
        """Read what has come; once the batch is answered, each row's outcome (None where it was
        committed; a row after a failed row of the same table is not committed, `EntryDropped`:
        a table's log never has a gap), else None.  An exception: the channel is broken (open another)."""
        ...

    def close(self) -> None:
        """Close the connection (a batch in flight is abandoned)."""
        ...


@runtime_checkable
class BatchStore(Protocol):
    """A store that commits many entries in one round trip (`PostgresStore`), for the
    `callbreak.server.writebehind.WriteBehind` that commits calls and cards without the event
    loop waiting for them.

    >>> from callbreak.server.store_pg import PostgresStore
    >>> isinstance(open_store(":memory:"), BatchStore), hasattr(PostgresStore, "open_channel")
    (False, True)
    """

    def open_channel(self) -> BatchChannel:
        """A new connection that commits batches without blocking (`BatchChannel`)."""
        ...


class SQLiteStore:
    """`Store` on one SQLite file in WAL mode.

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.table import TableMeta
    >>> s = SQLiteStore(":memory:", now=lambda: 100.0)
    >>> s.create(TableMeta("k3Xa9Q", "8hJq2w", Ruleset(), "easy", 1, 0.0), [], [], "lobby")
    >>> s.stale(lobby_before=50.0, idle_before=50.0, limit=10), s.stale(lobby_before=200.0, idle_before=50.0, limit=10)
    (['k3Xa9Q'], ['k3Xa9Q'])
    >>> s.save_analysis("k3Xa9Q", "v2", b"{}"); s.load_analysis("k3Xa9Q", "v2"), s.load_analysis("k3Xa9Q", "v1")
    (b'{}', None)
    >>> s.prune(before=200.0, limit=10)   # a lobby is not closed: kept
    []
    >>> s.append("k3Xa9Q", 0, {"t": "expire"}, (), "expired"); s.prune(before=200.0, limit=10), s.load("k3Xa9Q")
    (['k3Xa9Q'], None)
    >>> s.close()
    """

    def __init__(
        self,
        path: str,
        sync: str = "normal",
        checkpoint_every: float = 1.0,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.path = path
        #: the time stamped on each entry (the hub passes its clock's)
        self.now = now
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={sync.upper()}")
        self.db.executescript(_SCHEMA)
        # Checkpoints (copying the WAL into the database, with an fsync) can take a
        # hundred milliseconds on a busy disk: a background thread does them, not commits.
        self._stop = threading.Event()
        self._checkpointer: threading.Thread | None = None
        if path != ":memory:" and checkpoint_every > 0:
            self.db.execute("PRAGMA wal_autocheckpoint=0")
            self._checkpointer = threading.Thread(
                target=self._checkpoint_loop, args=(checkpoint_every,), name="sqlite-checkpoint", daemon=True
            )
            self._checkpointer.start()

    def _checkpoint_loop(self, every: float) -> None:
        from .outage import Said  # (outage.py imports this module)

        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10)
        # failures said once as they begin, each minute while they last, and once as they end: the
        # WAL grows until a checkpoint works (the next try is the remedy)
        said = Said("sqlite checkpoint (the WAL grows meanwhile)")
        try:
            while not self._stop.wait(every):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error as e:
                    said.failed(e)
                else:
                    said.ok()
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except sqlite3.Error as e:
            log.warning("sqlite checkpoint at close failed (the WAL is kept, and read at the next start): %s", e)
        finally:
            db.close()

    def create(
        self,
        meta: TableMeta,
        entries: Sequence[dict[str, Any]],
        tokens: Sequence[tuple[str, int]],
        status: str,
    ) -> None:
        now = self.now()
        db = self.db
        db.execute("BEGIN")
        try:
            db.execute(
                "INSERT INTO tables (id, invite, meta, status, created, updated) VALUES (?,?,?,?,?,?)",
                (meta.id, meta.invite, orjson.dumps(meta.to_dict()).decode(), status, meta.created, now),
            )
            db.executemany(
                "INSERT INTO log (table_id, seq, entry, ts) VALUES (?,?,?,?)",
                [(meta.id, i, orjson.dumps(e).decode(), now) for i, e in enumerate(entries)],
            )
            db.executemany(
                "INSERT INTO tokens (token, table_id, seat) VALUES (?,?,?)",
                [(tok, meta.id, seat) for tok, seat in tokens],
            )
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def append(
        self,
        table_id: str,
        seq: int,
        entry: dict[str, Any],
        tokens: Sequence[tuple[str, int]],
        status: str | None,
    ) -> None:
        now = self.now()
        db = self.db
        db.execute("BEGIN")
        try:
            db.execute(
                "INSERT INTO log (table_id, seq, entry, ts) VALUES (?,?,?,?)",
                (table_id, seq, orjson.dumps(entry).decode(), now),
            )
            for tok, seat in tokens:
                db.execute("INSERT INTO tokens (token, table_id, seat) VALUES (?,?,?)", (tok, table_id, seat))
            if status is not None:
                db.execute("UPDATE tables SET status=?, updated=? WHERE id=?", (status, now, table_id))
        except sqlite3.IntegrityError:
            db.execute("ROLLBACK")
            raise StoreConflict(f"table {table_id} already has entry {seq}") from None
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def load(self, table_id: str) -> tuple[TableMeta, list[dict[str, Any]]] | None:
        row = self.db.execute("SELECT meta FROM tables WHERE id=?", (table_id,)).fetchone()
        if row is None:
            return None
        meta = TableMeta.from_dict(orjson.loads(row[0]))
        rows = self.db.execute("SELECT entry FROM log WHERE table_id=? ORDER BY seq", (table_id,)).fetchall()
        return meta, [orjson.loads(r[0]) for r in rows]

    def find_invite(self, code: str) -> str | None:
        row = self.db.execute("SELECT id FROM tables WHERE invite=?", (code,)).fetchone()
        return None if row is None else str(row[0])

    def find_token(self, token: str) -> tuple[str, int] | None:
        row = self.db.execute("SELECT table_id, seat FROM tokens WHERE token=?", (token,)).fetchone()
        return None if row is None else (str(row[0]), int(row[1]))

    def unfinished(self) -> list[str]:
        marks = ",".join("?" * len(_UNFINISHED))
        rows = self.db.execute(
            f"SELECT id FROM tables WHERE status IN ({marks}) ORDER BY created", _UNFINISHED
        ).fetchall()
        return [str(r[0]) for r in rows]

    def status(self, table_id: str) -> str | None:
        row = self.db.execute("SELECT status FROM tables WHERE id=?", (table_id,)).fetchone()
        return None if row is None else str(row[0])

    def stale(self, lobby_before: float, idle_before: float, limit: int) -> list[str]:
        rows = self.db.execute(
            "SELECT id FROM tables WHERE status='lobby' AND created < ? "
            "UNION ALL "
            "SELECT id FROM tables t WHERE status IN ('playing', 'between_rounds') AND "
            "(SELECT ts FROM log WHERE table_id=t.id ORDER BY seq DESC LIMIT 1) < ? "
            "LIMIT ?",
            (lobby_before, idle_before, limit),
        ).fetchall()
        return [str(r[0]) for r in rows]

    def prune(self, before: float, limit: int) -> list[str]:
        marks = ",".join("?" * len(CLOSED))
        db = self.db
        db.execute("BEGIN IMMEDIATE")  # (chosen under the lock: milliseconds, on the indexes)
        try:
            ids = [str(r[0]) for r in db.execute(
                _PRUNABLE.format(closed=f"status IN ({marks})", p="?"), (*CLOSED, before, before, limit)
            ).fetchall()]  # fmt: skip
            for sql in ("DELETE FROM log WHERE table_id=?", "DELETE FROM tokens WHERE table_id=?",
                        "DELETE FROM analyses WHERE table_id=?", "DELETE FROM tables WHERE id=?"):  # fmt: skip
                db.executemany(sql, [(i,) for i in ids])
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return ids

    def save_analysis(self, table_id: str, key: str, body: bytes) -> None:
        db = self.db
        db.execute("BEGIN")
        try:
            db.execute("INSERT OR REPLACE INTO analyses (table_id, key, body) VALUES (?,?,?)", (table_id, key, body))
            db.execute("UPDATE tables SET updated=? WHERE id=?", (self.now(), table_id))  # (looked at: not pruned soon)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def load_analysis(self, table_id: str, key: str) -> bytes | None:
        row = self.db.execute("SELECT body FROM analyses WHERE table_id=? AND key=?", (table_id, key)).fetchone()
        return None if row is None else bytes(row[0])

    def close(self) -> None:
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join(10)
        self.db.close()
