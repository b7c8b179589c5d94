"""`Store` on PostgreSQL: the same three relations as `SQLiteStore`, for many processes and hosts.

psycopg 3 with its connection pool (``psycopg_pool``), not asyncpg: the `Store` interface is
synchronous, and psycopg 3 has a synchronous API of the same shape, Debian-independent binary
wheels, and a pool that replaces a connection the server dropped (a restart of PostgreSQL costs
the calls in flight, not the process).  A call or a card commits on a connection of its own with
the statement prepared (`PostgresStore.append`), or, with ``write_behind`` on, off the event loop,
many in one statement (`PostgresStore.append_batch`, by `callbreak.server.writebehind.WriteBehind`);
the rest (a table made, a seat taken, a change of status) commits on the loop.

The schema is versioned: ``schema_version`` holds the number of the last migration applied,
and `PostgresStore` applies the missing ones when it opens, under an advisory lock, so the
processes of a new release starting together migrate once.  The primary key
``(table_id, seq)`` of ``log`` is the guarantee that two processes can never both append
entry N of a table: the second gets `StoreConflict`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import orjson
import psycopg
from psycopg_pool import ConnectionPool

from .store import _UNFINISHED, EntryDropped, Row, StoreConflict
from .table import TableMeta

__all__ = ["APPEND_CONNECTION", "MIGRATIONS", "PostgresStore", "is_postgres_url"]

#: the schema, one migration per release that changed it (never edit one that has shipped)
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE tables (
        id TEXT PRIMARY KEY,
        invite TEXT NOT NULL UNIQUE,
        meta TEXT NOT NULL,
        status TEXT NOT NULL,
        created DOUBLE PRECISION NOT NULL,
        updated DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX tables_status ON tables(status, created);
    CREATE TABLE log (
        table_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        entry TEXT NOT NULL,
        ts DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (table_id, seq)
    );
    CREATE TABLE tokens (
        token TEXT PRIMARY KEY,
        table_id TEXT NOT NULL,
        seat INTEGER NOT NULL
    );
    """,
    """
    CREATE TABLE analyses (
        table_id TEXT NOT NULL,
        key TEXT NOT NULL,
        body BYTEA NOT NULL,
        PRIMARY KEY (table_id, key)
    );
    """,
)

#: the ``application_name`` of each process's append connection (as PostgreSQL's
#: ``pg_stat_activity`` lists it)
APPEND_CONNECTION = "callbreak-append"

#: the one statement of the hot path (a call or a card): prepared once on the append connection
_APPEND = "INSERT INTO log (table_id, seq, entry, ts) VALUES (%s,%s,%s,%s)"

#: many entries in one statement (one round trip, all or none): the columns as arrays
_APPEND_MANY = (
    "INSERT INTO log (table_id, seq, entry, ts) "
    "SELECT * FROM unnest(%s::text[], %s::integer[], %s::text[], %s::double precision[])"
)

#: any number, the same in every process: the lock migrations are applied under
_MIGRATION_LOCK = 0x43424B31


def is_postgres_url(db: str) -> bool:
    """>>> is_postgres_url("postgresql://u@h/db"), is_postgres_url("postgres://h/db"), is_postgres_url("x.db")
    (True, True, False)
    """
    return db.startswith(("postgresql://", "postgres://"))


def migrate(conn: psycopg.Connection[Any]) -> int:
    """Apply the migrations ``conn``'s database lacks; return the schema version now.

    >>> len(MIGRATIONS)   # what migrate returns once a database has them all
    2
    >>> [line.split()[2] for sql in MIGRATIONS for line in sql.splitlines() if "CREATE TABLE" in line]
    ['tables', 'log', 'tokens', 'analyses']
    >>> migrate(psycopg.connect("postgresql://localhost/callbreak"))   # doctest: +SKIP
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = conn.execute("SELECT version FROM schema_version").fetchone()
        have = 0 if row is None else int(row[0])
        if have > len(MIGRATIONS):
            raise RuntimeError(f"the database's schema is version {have}, newer than this release's {len(MIGRATIONS)}")
        for sql in MIGRATIONS[have:]:
            conn.execute(sql)
        if row is None:
            conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (len(MIGRATIONS),))
        else:
            conn.execute("UPDATE schema_version SET version=%s", (len(MIGRATIONS),))
    return len(MIGRATIONS)


class PostgresStore:
    """`Store` on a PostgreSQL database (``url``: ``postgresql://user@host:port/db``).

    >>> from callbreak.server.store import open_store
    >>> is_postgres_url("postgresql://callbreak@127.0.0.1:5432/callbreak")   # open_store then makes a PostgresStore
    True
    >>> store = open_store("postgresql://callbreak@127.0.0.1:5432/callbreak")   # doctest: +SKIP
    """

    def __init__(self, url: str, now: Callable[[], float] = time.time, max_size: int = 4) -> None:
        self.url = url
        #: the time stamped on each entry (the hub passes its clock's)
        self.now = now
        self.pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            url, min_size=1, max_size=max_size, kwargs={"autocommit": True}, open=False
        )
        self.pool.open(wait=True, timeout=30)
        #: the common append's own connection and cursor (`append`), opened on first use
        self._writer: psycopg.Connection[Any] | None = None
        self._cursor: psycopg.Cursor[Any] | None = None
        self._writing = threading.Lock()
        try:
            with self.pool.connection() as conn:
                self.version = migrate(conn)
        except BaseException:
            self.pool.close()
            raise

    def create(
        self,
        meta: TableMeta,
        entries: Sequence[dict[str, Any]],
        tokens: Sequence[tuple[str, int]],
        status: str,
    ) -> None:
        now = self.now()
        with self.pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
            cur.execute(
                "INSERT INTO tables (id, invite, meta, status, created, updated) VALUES (%s,%s,%s,%s,%s,%s)",
                (meta.id, meta.invite, orjson.dumps(meta.to_dict()).decode(), status, meta.created, now),
            )
            cur.executemany(
                "INSERT INTO log (table_id, seq, entry, ts) VALUES (%s,%s,%s,%s)",
                [(meta.id, i, orjson.dumps(e).decode(), now) for i, e in enumerate(entries)],
            )
            cur.executemany(
                "INSERT INTO tokens (token, table_id, seat) VALUES (%s,%s,%s)",
                [(tok, meta.id, seat) for tok, seat in tokens],
            )

    def append(
        self,
        table_id: str,
        seq: int,
        entry: dict[str, Any],
        tokens: Sequence[tuple[str, int]],
        status: str | None,
    ) -> None:
        now = self.now()
        row = (table_id, seq, orjson.dumps(entry).decode(), now)
        try:
            if not tokens and status is None:
                # the common case (a call, a card): one statement, committed by itself (the
                # connection autocommits), one round trip to the server instead of three
                # (BEGIN, INSERT, COMMIT): the event loop waits for it
                self._append_one(row)
                return
            with self.pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
                cur.execute(_APPEND, row)
                for tok, seat in tokens:
                    cur.execute("INSERT INTO tokens (token, table_id, seat) VALUES (%s,%s,%s)", (tok, table_id, seat))
                if status is not None:
                    cur.execute("UPDATE tables SET status=%s, updated=%s WHERE id=%s", (status, now, table_id))
        except psycopg.errors.UniqueViolation:
            raise StoreConflict(f"table {table_id} already has entry {seq}") from None

    def _append_one(self, row: tuple[Any, ...]) -> None:
        """One entry on the append connection: its own connection and cursor, kept open, and the
        statement prepared on it: about 20 µs of CPU and 40 µs of wall time on a quiet machine, where
        a pooled connection and a new cursor for each took 65 and 125.
        A connection that broke raises here once (the table reloads from the log, as after any
        failed commit) and is replaced on the next append."""
        with self._writing:
            cur = self._append_cursor()
            try:
                cur.execute(_APPEND, row, prepare=True)
            except psycopg.OperationalError:
                self._close_writer()
                raise

    def append_batch(self, rows: Sequence[Row]) -> list[Exception | None]:
        """`BatchStore.append_batch`: the rows in one statement (one round trip, one transaction)
        on the append connection; when that fails, row by row, so that one table's conflict
        costs no other table its entries.

        >>> _APPEND_MANY.split("SELECT")[1].strip()   # the one statement: its columns as arrays
        '* FROM unnest(%s::text[], %s::integer[], %s::text[], %s::double precision[])'
        >>> store = PostgresStore("postgresql://callbreak@127.0.0.1:5432/callbreak")   # doctest: +SKIP
        >>> store.append_batch([("t1", 5, {"t": "call", "seat": 1, "call": 3}, 1.0e9)])  # doctest: +SKIP
        [None]
        """
        params = [(tid, seq, orjson.dumps(entry).decode(), ts) for tid, seq, entry, ts in rows]
        with self._writing:
            try:
                cur = self._append_cursor()
            except psycopg.OperationalError as e:
                return [e] * len(params)
            try:
                if len(params) == 1:
                    cur.execute(_APPEND, params[0], prepare=True)
                else:
                    cur.execute(_APPEND_MANY, [list(column) for column in zip(*params, strict=True)], prepare=True)
            except psycopg.OperationalError as e:
                self._close_writer()
                return [e] * len(params)
            except psycopg.Error:
                # a conflict (or a bad row) among them, and the statement committed none: row by
                # row tells which, and commits the others
                return self._append_rows(cur, params)
            return [None] * len(params)

    def _append_rows(
        self, cur: psycopg.Cursor[Any], params: list[tuple[str, int, str, float]]
    ) -> list[Exception | None]:
        """`append_batch` one row at a time (hold ``_writing``)."""
        out: list[Exception | None] = []
        failed: set[str] = set()
        for i, p in enumerate(params):
            tid, seq = p[0], p[1]
            if tid in failed:
                out.append(EntryDropped(f"table {tid}: entry {seq} follows an entry that was not committed"))
                continue
            try:
                cur.execute(_APPEND, p, prepare=True)
                out.append(None)
            except psycopg.errors.UniqueViolation:
                failed.add(tid)
                out.append(StoreConflict(f"table {tid} already has entry {seq}"))
            except psycopg.OperationalError as e:
                self._close_writer()
                out.extend([e] * (len(params) - i))
                break
            except psycopg.Error as e:
                failed.add(tid)
                out.append(e)
        return out

    def _append_cursor(self) -> psycopg.Cursor[Any]:
        """The append connection's cursor, (re)connected when it is missing or broken (hold
        ``_writing``)."""
        cur = self._cursor
        if cur is None or cur.closed or cur.connection.broken:
            self._close_writer()
            # TCP keepalives: a connection that a NAT or firewall dropped in silence fails within
            # about a minute instead of holding its commits until the kernel gives up
            self._writer = psycopg.connect(
                self.url,
                autocommit=True,
                connect_timeout=10,
                application_name=APPEND_CONNECTION,
                keepalives=1,
                keepalives_idle=30,
                keepalives_interval=10,
                keepalives_count=3,
            )
            cur = self._cursor = self._writer.cursor()
        return cur

    def _close_writer(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._writer = self._cursor = None

    def _one(self, sql: str, args: tuple[Any, ...]) -> tuple[Any, ...] | None:
        with self.pool.connection() as conn:
            return conn.execute(sql, args).fetchone()

    def _all(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self.pool.connection() as conn:
            return conn.execute(sql, args).fetchall()

    def load(self, table_id: str) -> tuple[TableMeta, list[dict[str, Any]]] | None:
        with self.pool.connection() as conn, conn.transaction():  # one snapshot: the meta and its log
            row = conn.execute("SELECT meta FROM tables WHERE id=%s", (table_id,)).fetchone()
            if row is None:
                return None
            rows = conn.execute("SELECT entry FROM log WHERE table_id=%s ORDER BY seq", (table_id,)).fetchall()
        return TableMeta.from_dict(orjson.loads(row[0])), [orjson.loads(r[0]) for r in rows]

    def find_invite(self, code: str) -> str | None:
        row = self._one("SELECT id FROM tables WHERE invite=%s", (code,))
        return None if row is None else str(row[0])

    def find_token(self, token: str) -> tuple[str, int] | None:
        row = self._one("SELECT table_id, seat FROM tokens WHERE token=%s", (token,))
        return None if row is None else (str(row[0]), int(row[1]))

    def unfinished(self) -> list[str]:
        rows = self._all("SELECT id FROM tables WHERE status = ANY(%s) ORDER BY created", (list(_UNFINISHED),))
        return [str(r[0]) for r in rows]

    def status(self, table_id: str) -> str | None:
        row = self._one("SELECT status FROM tables WHERE id=%s", (table_id,))
        return None if row is None else str(row[0])

    def stale(self, lobby_before: float, idle_before: float, limit: int) -> list[str]:
        rows = self._all(
            "(SELECT id FROM tables WHERE status='lobby' AND created < %s) "
            "UNION ALL "
            "(SELECT id FROM tables t WHERE status IN ('playing', 'between_rounds') AND "
            "(SELECT ts FROM log WHERE table_id=t.id ORDER BY seq DESC LIMIT 1) < %s) "
            "LIMIT %s",
            (lobby_before, idle_before, limit),
        )
        return [str(r[0]) for r in rows]

    def save_analysis(self, table_id: str, key: str, body: bytes) -> None:
        with self.pool.connection() as conn:
            conn.execute(
                "INSERT INTO analyses (table_id, key, body) VALUES (%s,%s,%s) "
                "ON CONFLICT (table_id, key) DO UPDATE SET body = EXCLUDED.body",
                (table_id, key, body),
            )

    def load_analysis(self, table_id: str, key: str) -> bytes | None:
        row = self._one("SELECT body FROM analyses WHERE table_id=%s AND key=%s", (table_id, key))
        return None if row is None else bytes(row[0])

    def close(self) -> None:
        with self._writing:
            self._close_writer()
        self.pool.close()
