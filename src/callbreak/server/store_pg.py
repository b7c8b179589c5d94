"""`Store` on PostgreSQL: the same three relations as `SQLiteStore`, for many processes and hosts.

psycopg 3 with its connection pool (``psycopg_pool``), not asyncpg: the `Store` interface is
synchronous, and psycopg 3 has a synchronous API of the same shape, Debian-independent binary
wheels, and a pool that replaces a connection the server dropped (a restart of PostgreSQL costs
the calls in flight, not the process).  A call or a card commits on a connection of its own with
the statement prepared (`PostgresStore.append`), or, with ``write_behind`` on, without the event
loop waiting, many in one statement (`PgChannel`, by `callbreak.server.writebehind.WriteBehind`);
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
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import orjson
import psycopg
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from .config import redacted
from .outage import Outage
from .store import (
    _PRUNABLE,
    _UNFINISHED,
    CLOSED,
    EntryDropped,
    Row,
    StoreConflict,
    StoreUnavailable,
    is_postgres_url,
)
from .table import TableMeta

__all__ = ["APPEND_CONNECTION", "MIGRATIONS", "PostgresStore", "first_connection", "is_postgres_url"]

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
    # `callbreak prune`: a table's tokens found without a scan, the closed tables by age
    """
    CREATE INDEX tokens_table ON tokens(table_id);
    CREATE INDEX tables_closed ON tables(status, updated);
    """,
)

#: the ``application_name`` of each process's append connection (as PostgreSQL's
#: ``pg_stat_activity`` lists it)
APPEND_CONNECTION = "callbreak-append"

#: the one statement of the hot path (a call or a card): prepared once on the append connection
_APPEND = "INSERT INTO log (table_id, seq, entry, ts) VALUES (%s,%s,%s,%s)"

#: the ``application_name`` of each process's write-behind connection (`PgChannel`)
BEHIND_CONNECTION = "callbreak-write-behind"

#: a batch of entries in one statement, its rows one JSON parameter (`PgChannel`)
_APPEND_JSON = (
    "INSERT INTO log (table_id, seq, entry, ts) "
    "SELECT r.t, r.s, r.e, r.ts FROM json_to_recordset($1) AS r(t text, s integer, e text, ts double precision)"
)
_APPEND_JSON_NAME = "callbreak_append_json"

#: seconds a call waits for one of the pool's connections (the pool's own default is 30): a
#: database that does not answer holds the event loop this long once, then `Outage` fails the
#: calls at once until it answers
CHECKOUT_WAIT = 2.0

#: seconds a new connection of the write-behind or the append may take (not the 10 s of a first
#: connection): the event loop waits for it
CONNECT_WAIT = 3

#: any number, the same in every process: the lock migrations are applied under
_MIGRATION_LOCK = 0x43424B31


def migrate(conn: psycopg.Connection[Any]) -> int:
    """Apply the migrations ``conn``'s database lacks; return the schema version now. A schema newer
    than this release's (a newer release wrote it) is refused (`StoreUnavailable`): nothing is changed.

    >>> len(MIGRATIONS)   # what migrate returns once a database has them all
    3
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
            raise StoreUnavailable(
                f"the database's schema is version {have}, newer than this release's {len(MIGRATIONS)}: "
                "a newer release wrote it; run that release (or one as new) on it"
            )
        for sql in MIGRATIONS[have:]:
            conn.execute(sql)
        if row is None:
            conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (len(MIGRATIONS),))
        else:
            conn.execute("UPDATE schema_version SET version=%s", (len(MIGRATIONS),))
    return len(MIGRATIONS)


def _append_rows(cur: psycopg.Cursor[Any], params: list[tuple[str, int, str, float]]) -> list[Exception | None]:
    """A batch's rows one at a time (after its statement failed: `PgChannel`), so that one
    table's conflict costs no other table its entries.  A lost connection raises
    (`psycopg.OperationalError`): the whole batch fails, and the channel with it."""
    out: list[Exception | None] = []
    failed: set[str] = set()
    for p in params:
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
        except psycopg.OperationalError:
            raise
        except psycopg.Error as e:
            failed.add(tid)
            out.append(e)
    return out


def _unavailable(what: str, error: BaseException) -> StoreUnavailable:
    """The `StoreUnavailable` a store call raises when the database ``what`` (its error on one line).

    >>> _unavailable("does not answer", OSError("connection refused\\n  is it running?"))
    StoreUnavailable('the database does not answer: connection refused is it running?')
    """
    return StoreUnavailable(f"the database {what}: {' '.join(str(error).split())}")


def _connect(url: str, name: str, timeout: int = 10) -> psycopg.Connection[Any]:
    """An autocommitting connection named ``name`` (``application_name``).  TCP keepalives: a
    connection that a NAT or firewall dropped in silence fails within about a minute instead of
    holding its commits until the kernel gives up."""
    return psycopg.connect(
        url,
        autocommit=True,
        connect_timeout=timeout,
        application_name=name,
        keepalives=1,
        keepalives_idle=30,
        keepalives_interval=10,
        keepalives_count=3,
        # a statement sent and never acknowledged (the host gone) fails within 30 s, not the
        # kernel's quarter of an hour of retransmissions
        tcp_user_timeout=30_000,
    )


class PgChannel:
    """`BatchChannel` on PostgreSQL: a connection of its own (``application_name``
    `BEHIND_CONNECTION`) on which a batch is one statement sent without waiting (libpq's
    non-blocking mode), its rows one JSON parameter (`_APPEND_JSON`, prepared once).  When the
    statement fails (a conflict: another process took an entry number), the rows are committed
    one by one, and a conflict costs only its own table's entries (the table's later rows are
    dropped: `EntryDropped`).

    >>> _APPEND_JSON.split(" FROM ")[1].split(" AS ")[0]   # the batch's rows: one JSON parameter
    'json_to_recordset($1)'
    >>> ch = PgChannel("postgresql://callbreak@127.0.0.1:5432/callbreak")   # doctest: +SKIP
    """

    def __init__(self, url: str, timeout: int = 10) -> None:
        self.conn = _connect(url, BEHIND_CONNECTION, timeout)
        try:
            self.conn.execute(f"PREPARE {_APPEND_JSON_NAME}(json) AS {_APPEND_JSON}")
        except BaseException:
            self.conn.close()
            raise
        self.pg = self.conn.pgconn  # psycopg keeps it in libpq's non-blocking mode
        self._rows: list[tuple[str, int, str, float]] | None = None
        self._error: str | None = None

    def fileno(self) -> int:
        return int(self.pg.socket)

    def send(self, rows: Sequence[Row]) -> None:
        if self._rows is not None:
            raise RuntimeError("a batch is already on its way on this channel")
        params = _params(rows)
        self._error = None
        self.pg.send_query_prepared(_APPEND_JSON_NAME.encode(), [_payload(params)])  # OperationalError if broken
        self._rows = params

    def flushed(self) -> bool:
        return self.pg.flush() == 0  # OperationalError if broken

    def poll(self) -> list[Exception | None] | None:
        self.pg.consume_input()  # OperationalError if broken
        if self.pg.status != psycopg.pq.ConnStatus.OK:  # closed by the server (a restart, a kill)
            raise psycopg.OperationalError(f"the connection to PostgreSQL broke: {self._message()}")
        while self._rows is not None and not self.pg.is_busy():
            res = self.pg.get_result()
            if res is None:  # the statement is over: its outcome
                return self._outcome()
            if res.status == psycopg.pq.ExecStatus.FATAL_ERROR:
                self._error = (res.error_message or b"").decode(errors="replace")
        return None

    def close(self) -> None:
        self.conn.close()

    def _outcome(self) -> list[Exception | None]:
        rows, self._rows = self._rows, None
        assert rows is not None  # poll reads results only while a batch is on its way
        if self.pg.status != psycopg.pq.ConnStatus.OK:
            raise psycopg.OperationalError(f"the connection to PostgreSQL broke: {self._message()}")
        if self._error is None:
            return [None] * len(rows)

        # the statement committed none of them (a conflict: another process took an entry
        # number, as in a failover): row by row, waiting for each (rare), tells which, and
        # commits the others; a lost connection raises, and the channel is given up
        with self.conn.cursor() as cur:
            return _append_rows(cur, rows)

    def _message(self) -> str:
        return self.pg.get_error_message()


def payload(rows: Sequence[Row]) -> bytes:
    """The one parameter of a batch's statement (`_APPEND_JSON`): its rows as a JSON array.

    >>> orjson.loads(payload([("t1", 0, {"t": "start"}, 2.0)]))   # each entry as its JSON text
    [{'t': 't1', 's': 0, 'e': '{"t":"start"}', 'ts': 2.0}]
    """
    return _payload(_params(rows))


def _params(rows: Sequence[Row]) -> list[tuple[str, int, str, float]]:
    """The rows as stored: each entry as its JSON text."""
    return [(tid, seq, orjson.dumps(entry).decode(), ts) for tid, seq, entry, ts in rows]


def _payload(params: Sequence[tuple[str, int, str, float]]) -> bytes:
    return orjson.dumps([{"t": t, "s": s, "e": e, "ts": ts} for t, s, e, ts in params])


#: what PostgreSQL says to a connection it will never take (a wrong role, database or password, or
#: no pg_hba.conf entry): said at once; anything else is waited for
REFUSED = ("password authentication failed", "no password supplied", "does not exist", "pg_hba.conf", "not permitted to log in")


def first_connection(url: str, wait: float = 30.0) -> None:
    """Connect once, before the pool does: a server that answers with an error (no such
    database or role, a password refused: `REFUSED`) is said at once; one not up yet (refused,
    silent, starting up) is waited for up to ``wait`` seconds, as a service started beside it needs.

    >>> first_connection("postgresql://callbreak@127.0.0.1:1/callbreak", wait=0)
    Traceback (most recent call last):
    ...
    callbreak.server.store.StoreUnavailable: cannot connect to PostgreSQL at postgresql://callbreak@127.0.0.1:1/callbreak: connection failed: ...
    """
    deadline = time.monotonic() + wait
    while True:
        try:
            psycopg.connect(url, connect_timeout=5).close()
            return
        except psycopg.OperationalError as e:
            text = " ".join(str(e).split()) or type(e).__name__
            if any(w in text for w in REFUSED) or time.monotonic() >= deadline:
                raise StoreUnavailable(f"cannot connect to PostgreSQL at {redacted(url)}: {text}") from None
            time.sleep(0.5)  # (not up yet, starting up, recovering, too many clients: it may answer soon)


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
        self._max_size = max_size
        first_connection(url)
        self.pool = self._new_pool()
        self.pool.open(wait=True, timeout=30)
        #: the database's outages: calls fail at once while it does not answer (`outage.Outage`)
        self._closed = False
        self.outage = Outage(lambda: psycopg.connect(url, connect_timeout=2).close(), self._renew, self._down)
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

    def _new_pool(self) -> ConnectionPool[psycopg.Connection[Any]]:
        return ConnectionPool(
            self.url, min_size=1, max_size=self._max_size, kwargs={"autocommit": True}, open=False, timeout=CHECKOUT_WAIT
        )

    def _down(self) -> None:
        """As an outage begins (on `Outage`'s thread): the pool closed, so that its own
        reconnections (which back off for minutes, and log each try) stop."""
        self.pool.close(timeout=5)

    def _renew(self) -> None:
        """After an outage (on `Outage`'s thread): a new pool, connected now, and a new append
        connection on the next append (the old one ended with the database's restart)."""
        fresh = self._new_pool()
        fresh.open(wait=True, timeout=10)
        old, self.pool = self.pool, fresh
        old.close(timeout=5)
        with self._writing:
            self._close_writer()
        if self._closed:  # the store closed meanwhile: nothing may keep the fresh pool open
            fresh.close(timeout=5)

    @contextmanager
    def _pooled(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection. `StoreUnavailable` at once while the database does not answer;
        when no connection can be had (the pool's wait runs out: an outage begins); and when the
        connection breaks (the pool replaces it: the next call finds out whether the database
        answers)."""
        self.outage.check()
        conn: psycopg.Connection[Any] | None = None
        try:
            with self.pool.connection() as conn:
                yield conn
        except (PoolTimeout, PoolClosed, psycopg.OperationalError) as e:
            if conn is not None and not conn.broken:
                raise  # (a statement's own failure, on a connection that works)
            if conn is None:
                self.outage.failed(e)
            raise _unavailable("does not answer", e) from e

    def create(
        self,
        meta: TableMeta,
        entries: Sequence[dict[str, Any]],
        tokens: Sequence[tuple[str, int]],
        status: str,
    ) -> None:
        now = self.now()
        with self._pooled() as conn, conn.transaction(), conn.cursor() as cur:
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
            with self._pooled() as conn, conn.transaction(), conn.cursor() as cur:
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
        A connection that broke raises `StoreUnavailable` here once (the table reloads from the
        log, as after any failed commit) and is replaced on the next append."""
        self.outage.check()
        with self._writing:
            try:
                cur = self._append_cursor()
            except psycopg.OperationalError as e:  # no connection to be had: an outage begins
                self.outage.failed(e)
                raise _unavailable("does not answer", e) from e
            try:
                cur.execute(_APPEND, row, prepare=True)
            except psycopg.OperationalError as e:
                broken = cur.connection.broken
                self._close_writer()
                if not broken:
                    raise
                raise _unavailable("connection broke", e) from e

    def _append_cursor(self) -> psycopg.Cursor[Any]:
        """The append connection's cursor, (re)connected when it is missing or broken (hold
        ``_writing``)."""
        cur = self._cursor
        if cur is None or cur.closed or cur.connection.broken:
            self._close_writer()
            self._writer = _connect(self.url, APPEND_CONNECTION, CONNECT_WAIT)
            cur = self._cursor = self._writer.cursor()
        return cur

    def _close_writer(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._writer = self._cursor = None

    def _one(self, sql: str, args: tuple[Any, ...]) -> tuple[Any, ...] | None:
        with self._pooled() as conn:
            return conn.execute(sql, args).fetchone()

    def _all(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._pooled() as conn:
            return conn.execute(sql, args).fetchall()

    def load(self, table_id: str) -> tuple[TableMeta, list[dict[str, Any]]] | None:
        with self._pooled() as conn, conn.transaction():  # one snapshot: the meta and its log
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

    def prune(self, before: float, limit: int) -> list[str]:
        with self._pooled() as conn, conn.transaction():
            # (SKIP LOCKED: two prunes at once share the work instead of waiting on each other)
            ids = [str(r[0]) for r in conn.execute(
                _PRUNABLE.format(closed="status = ANY(%s)", p="%s") + " FOR UPDATE SKIP LOCKED",
                (list(CLOSED), before, before, limit),
            ).fetchall()]  # fmt: skip
            for sql in ("DELETE FROM log WHERE table_id = ANY(%s)", "DELETE FROM tokens WHERE table_id = ANY(%s)",
                        "DELETE FROM analyses WHERE table_id = ANY(%s)", "DELETE FROM tables WHERE id = ANY(%s)"):  # fmt: skip
                conn.execute(sql, (ids,))
        return ids

    def save_analysis(self, table_id: str, key: str, body: bytes) -> None:
        with self._pooled() as conn, conn.transaction():
            conn.execute(
                "INSERT INTO analyses (table_id, key, body) VALUES (%s,%s,%s) "
                "ON CONFLICT (table_id, key) DO UPDATE SET body = EXCLUDED.body",
                (table_id, key, body),
            )
            conn.execute("UPDATE tables SET updated=%s WHERE id=%s", (self.now(), table_id))  # (looked at: not pruned soon)

    def open_channel(self) -> PgChannel:
        """`BatchStore.open_channel`: a new `PgChannel` (its own connection).

        >>> PostgresStore.open_channel.__annotations__["return"]
        'PgChannel'
        >>> store = PostgresStore("postgresql://callbreak@127.0.0.1:5432/callbreak")   # doctest: +SKIP
        >>> store.open_channel().flushed()   # doctest: +SKIP
        True
        """
        self.outage.check()
        try:
            return PgChannel(self.url, timeout=CONNECT_WAIT)
        except psycopg.OperationalError as e:  # no connection to be had: an outage begins
            self.outage.failed(e)
            raise _unavailable("does not answer", e) from e

    def load_analysis(self, table_id: str, key: str) -> bytes | None:
        row = self._one("SELECT body FROM analyses WHERE table_id=%s AND key=%s", (table_id, key))
        return None if row is None else bytes(row[0])

    def close(self) -> None:
        self._closed = True
        self.outage.close()
        with self._writing:
            self._close_writer()
        self.pool.close()
