"""The `Store` contract, on SQLite and on PostgreSQL alike: one test body, both stores."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from callbreak import Ruleset
from callbreak.server.store import SQLiteStore, Store, StoreConflict, StoreUnavailable, open_store
from callbreak.server.store_pg import APPEND_CONNECTION, MIGRATIONS, PostgresStore
from callbreak.server.table import TableMeta

from .services import free_port


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "t.db")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def store(db: str) -> Iterator[Store]:
    s = open_store(db, now=lambda: 100.0)
    yield s
    s.close()


def meta(tid: str, created: float = 0.0) -> TableMeta:
    return TableMeta(id=tid, invite="inv-" + tid, rules=Ruleset(), bots="random", seed=5, created=created)


def seat(n: int, tok: str) -> dict[str, Any]:
    return {"t": "seat", "seat": n, "name": f"P{n}", "token": tok}


def test_open_store_picks_the_store_by_the_url(db: str, store: Store) -> None:
    assert isinstance(store, PostgresStore if db.startswith("postgresql://") else SQLiteStore)


def test_create_append_load_round_trip(store: Store) -> None:
    store.create(meta("t1"), [seat(0, "tok0")], [("tok0", 0)], "lobby")
    store.append("t1", 1, seat(1, "tok1"), [("tok1", 1)], None)
    store.append("t1", 2, {"t": "start"}, (), "playing")
    loaded = store.load("t1")
    assert loaded is not None
    m, log = loaded
    assert m == meta("t1")
    assert log == [seat(0, "tok0"), seat(1, "tok1"), {"t": "start"}]
    assert store.find_token("tok1") == ("t1", 1)
    assert store.find_invite("inv-t1") == "t1"
    assert store.status("t1") == "playing"
    assert store.unfinished() == ["t1"]
    assert store.load("nope") is None and store.find_token("x" * 20) is None and store.status("nope") is None


def test_a_taken_entry_number_is_a_conflict_and_changes_nothing(store: Store) -> None:
    store.create(meta("t1"), [seat(0, "tok0")], [("tok0", 0)], "lobby")
    store.append("t1", 1, {"t": "start"}, (), "playing")
    with pytest.raises(StoreConflict, match="t1 already has entry 1"):
        store.append("t1", 1, seat(1, "tok1"), [("tok1", 1)], "finished")
    loaded = store.load("t1")
    assert loaded is not None and loaded[1][-1] == {"t": "start"}
    assert store.find_token("tok1") is None and store.status("t1") == "playing"


def test_two_writers_racing_for_the_same_entry_one_wins(db: str, store: Store) -> None:
    store.create(meta("t1"), [seat(0, "tok0")], [("tok0", 0)], "lobby")
    other = open_store(db)
    results: list[str] = []
    barrier = threading.Barrier(2)

    def write(s: Store, name: str) -> None:
        barrier.wait()
        try:
            s.append("t1", 1, {"t": "call", "who": name}, (), None)
            results.append("ok " + name)
        except StoreConflict:
            results.append("conflict " + name)

    threads = [threading.Thread(target=write, args=(s, n)) for s, n in ((store, "a"), (other, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    other.close()
    assert sorted(r.split()[0] for r in results) == ["conflict", "ok"]
    loaded = store.load("t1")
    assert loaded is not None and len(loaded[1]) == 2
    assert "ok " + loaded[1][1]["who"] in results


def test_postgres_replaces_its_append_connection_when_it_breaks(pg_url: str) -> None:
    """A call or a card commits on a connection of its own, kept open: a conflict leaves it
    usable; one that PostgreSQL ended fails one append, and the next append opens another."""
    store = PostgresStore(pg_url, now=lambda: 100.0)
    try:
        store.create(meta("t1"), [seat(0, "tok0"), {"t": "start"}], [("tok0", 0)], "playing")
        store.append("t1", 2, {"t": "call", "seat": 0, "call": 3}, (), None)
        with pytest.raises(StoreConflict, match="t1 already has entry 2"):
            store.append("t1", 2, {"t": "call", "seat": 0, "call": 4}, (), None)
        store.append("t1", 3, {"t": "call", "seat": 1, "call": 2}, (), None)
        with psycopg.connect(pg_url, autocommit=True) as admin:
            ended = admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name=%s AND datname=current_database()",
                (APPEND_CONNECTION,),
            ).fetchall()
        assert ended == [(True,)]
        with pytest.raises(StoreUnavailable, match="the database connection broke"):
            store.append("t1", 4, {"t": "call", "seat": 2, "call": 5}, (), None)
        assert not store.outage.down  # (one connection ended: the database answers)
        store.append("t1", 4, {"t": "call", "seat": 2, "call": 6}, (), None)
        loaded = store.load("t1")
        assert loaded is not None
        assert [e.get("call") for e in loaded[1][2:]] == [3, 2, 6]
    finally:
        store.close()


def test_stale_finds_old_lobbies_and_idle_matches(store: Store) -> None:
    store.create(meta("old", created=10.0), [seat(0, "a" * 20)], [], "lobby")
    store.create(meta("new", created=500.0), [seat(0, "b" * 20)], [], "lobby")
    store.create(meta("idle", created=10.0), [seat(0, "c" * 20), {"t": "start"}], [], "playing")
    assert sorted(store.stale(lobby_before=200.0, idle_before=150.0, limit=10)) == ["idle", "old"]
    assert store.stale(lobby_before=200.0, idle_before=50.0, limit=10) == ["old"]
    assert len(store.stale(lobby_before=1000.0, idle_before=150.0, limit=2)) == 2


def test_an_analysis_is_kept_per_table_and_key_and_replaced(store: Store) -> None:
    store.create(meta("done", created=10.0), [seat(0, "d" * 20)], [], "over")
    assert store.load_analysis("done", "k1") is None
    store.save_analysis("done", "k1", b'{"v": 1}')
    store.save_analysis("done", "k2", b'{"v": 2}')
    store.save_analysis("done", "k1", b'{"v": 3}')  # the same settings again: replaced
    assert store.load_analysis("done", "k1") == b'{"v": 3}'
    assert store.load_analysis("done", "k2") == b'{"v": 2}'
    assert store.load_analysis("other", "k1") is None


def test_postgres_applies_its_migrations_once(pg_url: str) -> None:
    a = PostgresStore(pg_url)
    b = PostgresStore(pg_url)  # a second process of the same release: nothing to do
    assert a.version == b.version == len(MIGRATIONS)
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(len(MIGRATIONS),)]
        conn.execute("UPDATE schema_version SET version = version + 1")
    with pytest.raises(StoreUnavailable, match="newer than this release"):
        PostgresStore(pg_url)
    a.close()
    b.close()
    # the server says so in one line (it was a traceback: `callbreak serve` said only a store it could not open)
    got = subprocess.run([sys.executable, "-m", "callbreak", "serve", "--db", pg_url, "--port", str(free_port())],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert got.returncode == 1 and "Traceback" not in got.stderr, got.stderr
    assert got.stderr.strip().splitlines() == [
        f"callbreak serve: the database's schema is version {len(MIGRATIONS) + 1}, newer than this release's "
        f"{len(MIGRATIONS)}: a newer release wrote it; run that release (or one as new) on it"
    ], got.stderr


def test_callbreak_prune_deletes_only_tables_closed_before_the_cutoff(db: str) -> None:
    """``callbreak prune --older-than 30`` on a real database: the tables that closed (over,
    expired, abandoned) 40 days ago go with their logs, tokens and analyses, in batches; one
    closed 5 days ago, one still being played after 40 days, and two closed 40 days ago but
    touched 5 days ago (an analysis saved, a rematch asked) stay. Bad input changes nothing."""
    import subprocess
    import sys
    import time

    day = 86400.0
    at = [time.time() - 40 * day]
    s = open_store(db, now=lambda: at[0])
    try:
        for tid, status in (("old-over", "over"), ("old-expired", "expired"), ("old-gone", "abandoned"),
                            ("old-playing", "playing")):  # fmt: skip
            s.create(meta(tid, created=at[0]), [seat(0, f"tok-{tid}")], [(f"tok-{tid}", 0)], "lobby")
            s.append(tid, 1, {"t": "start"}, (), status)
        s.save_analysis("old-over", "v1", b"{}")
        for tid in ("old-looked", "old-rematched"):
            s.create(meta(tid, created=at[0]), [seat(0, f"tok-{tid}")], [(f"tok-{tid}", 0)], "over")
        at[0] = time.time() - 5 * day
        s.create(meta("new-over", created=at[0]), [seat(0, "tok-new")], [("tok-new", 0)], "over")
        # touched since it closed: its analysis asked for, a rematch asked of it (an entry, no status)
        s.save_analysis("old-looked", "v1", b"{}")
        s.append("old-rematched", 1, {"t": "rematch", "table": "new-over"}, (), None)
    finally:
        s.close()

    def prune(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "callbreak", "prune", "--db", db, *args],
                              capture_output=True, text=True, timeout=120)  # fmt: skip

    refused = prune("--older-than", "0.5")
    assert refused.returncode == 2 and "at least 1 day" in refused.stderr, refused.stderr
    done = prune("--older-than", "30", "--batch", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("3 tables that closed more than 30 days ago deleted from "), done.stdout
    s = open_store(db)
    try:
        gone = ("old-over", "old-expired", "old-gone")
        assert [tid for tid in gone if s.load(tid) is not None or s.find_token(f"tok-{tid}")] == []
        assert s.load_analysis("old-over", "v1") is None
        assert s.status("old-playing") == "playing" and s.status("new-over") == "over"
        assert s.status("old-looked") == s.status("old-rematched") == "over"
        assert s.find_token("tok-new") == ("new-over", 0)
        # nothing of a pruned table's log is left behind: a table made again under its id has its own alone
        s.create(meta("old-over"), [seat(0, "tok-again")], [("tok-again", 0)], "lobby")
        assert s.load("old-over") == (meta("old-over"), [seat(0, "tok-again")])
    finally:
        s.close()
    assert prune("--older-than", "30").stdout.startswith("0 tables")


def test_callbreak_prune_makes_no_database_where_there_is_none(tmp_path: Path) -> None:
    import subprocess
    import sys

    missing = tmp_path / "typo.db"
    r = subprocess.run([sys.executable, "-m", "callbreak", "prune", "--older-than", "30", "--db", str(missing)],
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    assert r.returncode == 1 and "there is no database file" in r.stderr, r.stderr
    assert not missing.exists()
