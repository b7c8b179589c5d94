"""Calls and cards committed off the event loop on PostgreSQL (`server.writebehind`): in order,
in batches, each table's events sent only once its entry is in the store; a failed entry fails
the table copy's later ones and the table reloads from its log."""

from __future__ import annotations

import asyncio
import os
import select
import threading
import time
from typing import Any

import orjson
import psycopg
import pytest

from callbreak import Ruleset
from callbreak.server.broker import channel
from callbreak.server.config import ServerConfig
from callbreak.server.hub import Hub
from callbreak.server.live import LiveTable
from callbreak.server.store import Store, StoreConflict
from callbreak.server.store_pg import BEHIND_CONNECTION, PgChannel, PostgresStore
from callbreak.server.table import TableError, TableMeta
from callbreak.server.writebehind import WriteBehind

from ..server.inprocess import next_action, until


def meta(tid: str) -> TableMeta:
    return TableMeta(id=tid, invite="inv-" + tid, rules=Ruleset(), bots="random", seed=5, created=0.0)


def call(seat: int, n: int) -> dict[str, Any]:
    return {"t": "call", "seat": seat, "call": n}


def logged(store: Store, tid: str) -> list[dict[str, Any]]:
    loaded = store.load(tid)
    assert loaded is not None
    return loaded[1]


def terminate_write_behind(pg_url: str) -> None:
    """PostgreSQL ends the write-behind's connection (as a restart or a failover's kill would), and
    this returns once that backend is gone."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        # with a time-out, pg_terminate_backend waits until the backend has ended (true), up to 30 s
        ended = admin.execute(
            "SELECT pg_terminate_backend(pid, 30000) FROM pg_stat_activity WHERE application_name=%s "
            "AND datname=current_database()",
            (BEHIND_CONNECTION,),
        ).fetchall()
        assert ended == [(True,)]


def committed(store: PostgresStore, rows: list[Any]) -> list[Exception | None]:
    """``rows`` sent in one batch on a new channel, waited for (as `WriteBehind.wait` does)."""
    channel = store.open_channel()
    try:
        channel.send(rows)
        while not channel.flushed():
            select.select([], [channel.fileno()], [], 10)
        while True:
            select.select([channel.fileno()], [], [], 10)
            answers = channel.poll()
            if answers is not None:
                return answers
    finally:
        channel.close()


def test_a_batch_commits_in_one_statement_and_a_conflict_costs_only_its_table(pg_url: str) -> None:
    store = PostgresStore(pg_url, now=lambda: 100.0)
    try:
        for tid in ("a", "b", "c"):
            store.create(meta(tid), [{"t": "start"}], [], "playing")
        rows = [("a", 1, call(0, 1), 1.0), ("b", 1, call(0, 2), 1.0), ("a", 2, call(1, 3), 1.0)]
        assert committed(store, rows) == [None, None, None]
        # b's entry 1 is taken: b's later entries are dropped, a's and c's commit, in order
        answers = committed(
            store, [("a", 3, call(2, 4), 1.0), ("b", 1, call(0, 5), 1.0), ("c", 1, call(0, 6), 1.0), ("b", 2, call(1, 7), 1.0)]
        )
        assert [type(a).__name__ for a in answers] == ["NoneType", "StoreConflict", "NoneType", "EntryDropped"]
        assert [e.get("call") for e in logged(store, "a")] == [None, 1, 3, 4]
        assert [e.get("call") for e in logged(store, "b")] == [None, 2]
        assert [e.get("call") for e in logged(store, "c")] == [None, 6]
    finally:
        store.close()


async def test_write_behind_drops_a_failed_copys_later_entries_and_survives_a_dropped_connection(pg_url: str) -> None:
    store = PostgresStore(pg_url, now=lambda: 100.0)
    told: list[tuple[str, str]] = []
    wb = WriteBehind(store, asyncio.get_running_loop())

    def done(name: str) -> Any:
        # a dropped connection: psycopg's OperationalError (here its AdminShutdown)
        return lambda err: told.append(
            (name, "OperationalError" if isinstance(err, psycopg.OperationalError) else type(err).__name__)
        )

    try:
        for tid in ("a", "b"):
            store.create(meta(tid), [{"t": "start"}], [], "playing")
        store.append("b", 1, call(0, 9), (), None)  # another process got to b's entry 1
        a, b = object(), object()
        wb.append(a, ("a", 1, call(0, 1), 1.0), done("a1"))
        wb.append(b, ("b", 1, call(0, 2), 1.0), done("b1"))
        assert wb.wait("b", b) is False
        wb.append(b, ("b", 2, call(1, 3), 1.0), done("b2"))  # the failed copy's next entry: never sent
        wb.append(a, ("a", 2, call(1, 4), 1.0), done("a2"))
        assert wb.wait("a", a) is True
        wb.wait("b")
        terminate_write_behind(pg_url)
        wb.append(a, ("a", 3, call(2, 5), 1.0), done("a3"))  # on the dropped connection: fails
        assert wb.wait("a", a) is False
        c = object()  # the table reloaded: a new copy, on a new connection
        wb.append(c, ("a", 3, call(2, 6), 1.0), done("a3'"))
        assert wb.wait("a", c) is True
        await until(lambda: len(told) == 6)  # each outcome is told on the loop (call_soon)
        assert told == [
            ("a1", "NoneType"),
            ("b1", "StoreConflict"),
            ("b2", "EntryDropped"),
            ("a2", "NoneType"),
            ("a3", "OperationalError"),
            ("a3'", "NoneType"),
        ]
        assert [e.get("call") for e in logged(store, "a")] == [None, 1, 4, 6]
        assert [e.get("call") for e in logged(store, "b")] == [None, 9]
    finally:
        wb.close()
        store.close()


class Stalled:
    """PostgreSQL holds every insert into the log (another session's SHARE lock on it) until
    `release`: the write-behind's statements wait in PostgreSQL, not in this process."""

    def __init__(self, pg_url: str) -> None:
        self.conn = psycopg.connect(pg_url)
        self.conn.execute("LOCK TABLE log IN SHARE MODE")

    def release(self) -> None:
        self.conn.rollback()
        self.conn.close()


async def until_settled(t: LiveTable) -> None:
    await asyncio.wait_for(t.settled(), 30)


async def test_a_table_sends_each_entrys_events_only_once_the_store_holds_it(pg_url: str) -> None:
    """A round of four players on PostgreSQL: every event goes out after its entry is in the
    store (checked from the store itself as each frame is sent), in order, and none is lost."""
    hub = Hub(ServerConfig(db=pg_url, seed=7, write_behind=True))
    await hub.startup()
    assert hub.write_behind is not None
    try:
        seats = [(i, f"P{i}") for i in range(4)]
        t, _ = hub.create_table(Ruleset(), bots="random", play_now=True, seats=seats)
        first = t.told
        submitted: list[dict[str, Any]] = []
        seen: list[tuple[int, int]] = []  # (entries the table had sent, entries in the store) per frame
        versions: list[int] = []

        def watch(frame: str) -> None:
            seen.append((t.told, len(logged(hub.store, t.id))))
            versions.append(orjson.loads(frame)["v"])

        stop = hub.broker.subscribe(channel(t.id, -1), watch)
        for _ in range(4 + 13 * 4):  # the calls, then every card (the last one ends the round)
            submitted.append(next_action(t))
            t.submit(submitted[-1])
        await until_settled(t)
        stop()
        sent = [s for s, _ in seen]
        assert set(sent) == set(range(first + 1, first + 4 + 13 * 4 + 1))  # every entry told
        assert versions == list(range(versions[0], versions[0] + len(versions)))  # every event, in order
        assert all(s <= stored for s, stored in seen), seen
        assert t.state.status == "between_rounds"
        assert logged(hub.store, t.id)[first:] == submitted and t.told == t.state.entries == first + len(submitted)
    finally:
        await hub.shutdown()


async def test_a_failed_commit_sends_nothing_of_it_and_reloads_the_table_from_its_log(pg_url: str) -> None:
    hub = Hub(ServerConfig(db=pg_url, seed=8, write_behind=True))
    await hub.startup()
    try:
        seats = [(i, f"P{i}") for i in range(4)]
        t, _ = hub.create_table(Ruleset(), bots="random", play_now=True, seats=seats)
        t.submit(next_action(t))
        await until_settled(t)
        committed = t.told
        sent: list[str] = []
        stop = hub.broker.subscribe(channel(t.id, -1), sent.append)
        # another writer takes the next entry number: this process's next call conflicts
        taken = PostgresStore(pg_url)
        taken.append(t.id, committed, {"t": "call", "seat": t.state.to_act, "call": 13}, (), None)
        taken.close()
        t.submit(next_action(t))
        t.submit(next_action(t))  # behind the failed one: dropped with it
        seat = t.state.to_act
        assert seat is not None
        with pytest.raises(TableError, match="could not save"):  # committed on the loop: after them, so refused
            t.submit({"t": "autoplay", "seat": seat, "on": True, "reason": "timeout"})
        fresh = await hub.settled(t.id)
        stop()
        assert sent == []
        assert fresh is not None and fresh is not t and fresh is hub.tables[t.id]
        stored = logged(hub.store, t.id)
        assert fresh.told == fresh.state.entries == len(stored) == committed + 1
        assert stored[-1]["call"] == 13
    finally:
        await hub.shutdown()


def test_write_behind_is_made_by_default_on_a_store_that_batches_and_can_be_turned_off(tmp_path: Any, pg_url: str) -> None:
    async def made(config: ServerConfig) -> bool:
        hub = Hub(config)
        await hub.startup()
        try:
            return hub.write_behind is not None
        finally:
            await hub.shutdown()

    assert asyncio.run(made(ServerConfig(db=pg_url))) is True  # the default on PostgreSQL
    assert asyncio.run(made(ServerConfig(db=pg_url, write_behind=False))) is False  # every commit on the loop
    assert asyncio.run(made(ServerConfig(db=str(tmp_path / "t.db")))) is False  # SQLite commits on the loop


@pytest.mark.parametrize("n", [1, 300])
def test_a_batch_commits_any_number_of_rows_in_order(pg_url: str, n: int) -> None:
    store = PostgresStore(pg_url)
    try:
        store.create(meta("t"), [{"t": "start"}], [], "playing")
        assert committed(store, [("t", i + 1, call(i % 4, i % 14), 1.0) for i in range(n)]) == [None] * n
        assert [e.get("call") for e in logged(store, "t")[1:]] == [i % 14 for i in range(n)]
        with pytest.raises(StoreConflict):
            store.append("t", n, call(0, 1), (), None)
        assert isinstance(committed(store, [("t", n, call(0, 1), 1.0)])[0], StoreConflict)
        assert committed(store, [("t", n + 1, call(0, 1), 1.0)]) == [None]
    finally:
        store.close()


async def test_a_player_who_connects_is_shown_only_what_the_store_holds(pg_url: str) -> None:
    """A Hello while a bot's call is on its way to the store waits for it: the catch-up, then
    the live feed, hold the call, and the call is in the store by then."""
    from ..server.inprocess import Seat, start_hub

    hub, _ = await start_hub(pg_url, write_behind=True)  # type: ignore[arg-type]
    try:
        assert hub.write_behind is not None
        seats = [(i, f"P{i}") for i in range(4)]
        t, tokens = hub.create_table(Ruleset(), bots="random", play_now=True, seats=seats)
        store = hub.store
        assert isinstance(store, PostgresStore)
        stall = Stalled(pg_url)  # the write-behind's commit waits until the test lets it go
        try:
            action = next_action(t)
            t.submit(action)
            assert t.unsettled
            player = Seat(hub, t.id, tokens[(action["seat"] + 1) % 4])
            hello = asyncio.create_task(player.hello())
            # the Hello waits for the table's commit (a waiter of `LiveTable.settled`), not merely slowly
            await until(lambda: bool(t._settled) or hello.done())
            assert not hello.done() and player.read() == []  # nothing shown yet: the call is not stored
        finally:
            stall.release()
        got = await asyncio.wait_for(hello, 30)
        assert [m["type"] for m in got] == ["snapshot"]  # a first Hello: the whole state
        assert got[0]["state"]["calls"][action["seat"]] == action["call"]
        assert logged(store, t.id)[-1] == action
        assert not t.unsettled
    finally:
        await hub.shutdown()


async def test_a_clean_stop_commits_what_is_on_its_way(pg_url: str) -> None:

    hub = Hub(ServerConfig(db=pg_url, seed=9, write_behind=True))
    await hub.startup()
    seats = [(i, f"P{i}") for i in range(4)]
    t, _ = hub.create_table(Ruleset(), bots="random", play_now=True, seats=seats)
    store = hub.store
    assert isinstance(store, PostgresStore)
    wb = hub.write_behind
    assert wb is not None
    stall = Stalled(pg_url)  # the entries wait in PostgreSQL until the stop asks for them
    actions = []
    for _ in range(3):
        actions.append(next_action(t))
        t.submit(actions[-1])
    await until(lambda: wb._batch is not None)  # sent: on their way, not yet answered
    asked = threading.Event()

    def release_when_asked() -> None:
        # the stop closes the write-behind (then waits for it): only then are the commits let go
        deadline = time.monotonic() + 60
        while not wb._closing and time.monotonic() < deadline:
            time.sleep(0.01)  # polls a condition; the stop blocks the loop, so no event can say it
        if wb._closing:
            asked.set()
        stall.release()

    helper = threading.Thread(target=release_when_asked)
    helper.start()
    await hub.shutdown()
    helper.join()
    assert asked.is_set()
    again = PostgresStore(pg_url)
    try:
        assert logged(again, t.id)[-3:] == actions
    finally:
        again.close()


class _Miscounting(PostgresStore):
    """PostgreSQL, whose channel answers one outcome too few until ``fixed``."""

    fixed = False

    def open_channel(self) -> PgChannel:
        store = self

        class Channel(PgChannel):
            def poll(self) -> list[Exception | None] | None:
                answers = super().poll()
                return answers[:-1] if answers is not None and not store.fixed else answers

        return Channel(self.url)


async def test_write_behind_survives_a_store_that_answers_wrongly(pg_url: str) -> None:
    """A store's wrong answer fails its batch's entries (their tables reload); the write-behind
    goes on, nobody waits for ever, and the next entries commit."""
    store = _Miscounting(pg_url)
    told: list[tuple[str, str]] = []
    wb = WriteBehind(store, asyncio.get_running_loop())
    try:
        for tid in ("a", "b"):
            store.create(meta(tid), [{"t": "start"}], [], "playing")
        a, b = object(), object()
        wb.append(a, ("a", 1, call(0, 1), 1.0), lambda err: told.append(("a1", type(err).__name__)))
        assert wb.wait("a", a) is False
        store.fixed = True
        wb.append(b, ("b", 1, call(0, 1), 1.0), lambda err: told.append(("b1", type(err).__name__)))
        assert wb.wait("b", b) is True
        wb.flush()
        await until(lambda: len(told) == 2)  # each outcome is told on the loop (call_soon)
        assert told == [("a1", "RuntimeError"), ("b1", "NoneType")]
        assert [e.get("call") for e in logged(store, "b")] == [None, 1]
    finally:
        wb.close()
        store.close()


async def test_a_rematch_is_stored_before_anyone_hears_of_it(pg_url: str) -> None:
    hub = Hub(ServerConfig(db=pg_url, seed=10, write_behind=True))
    await hub.startup()
    try:
        seats = [(i, f"P{i}") for i in range(4)]
        t, tokens = hub.create_table(Ruleset.preset("quick", rounds=1), bots="random", play_now=True, seats=seats)
        while t.state.to_act is not None:
            t.submit(next_action(t))
        assert t.state.status == "over", t.state.status
        told: list[bool] = []
        stop = hub.broker.subscribe(channel(t.id, 1), lambda frame: told.append(logged(hub.store, t.id)[-1]["t"] == "rematch"))
        new, _, _ = hub.rematch(t.id, tokens[0])
        assert logged(hub.store, t.id)[-1] == {"t": "rematch", "table": new.id}  # stored when the asker is answered
        await asyncio.wait_for(t.settled(), 30)
        stop()
        assert told and all(told)
    finally:
        await hub.shutdown()


async def test_a_hint_asked_while_a_commit_fails_is_not_worked_out_on_the_lost_state(pg_url: str) -> None:
    """The seat to act asks for a hint while the call before its turn is on its way to the store;
    that commit fails (another writer took the number), the table reloads, and no hint is made
    from the state the store never held."""
    from ..server.inprocess import Seat, start_hub

    hub, _ = await start_hub(pg_url, write_behind=True)  # type: ignore[arg-type]
    try:
        seats = [(i, f"P{i}") for i in range(4)]
        t, tokens = hub.create_table(Ruleset(), bots="random", play_now=True, seats=seats)
        action = next_action(t)
        asker = Seat(hub, t.id, tokens[(action["seat"] + 1) % 4])
        await asker.hello()
        asker.read()
        taken = PostgresStore(pg_url)
        taken.append(t.id, t.told, {"t": "call", "seat": action["seat"], "call": 13}, (), None)
        taken.close()
        stall = Stalled(pg_url)
        try:
            t.submit(action)  # will conflict
            hint = asyncio.create_task(asker.send({"type": "hint", "ref": 5}))
            # the hint waits for the table's commit (a waiter of `LiveTable.settled`)
            await until(lambda: bool(t._settled) or hint.done())
            assert not hint.done()
        finally:
            stall.release()
        got = await asyncio.wait_for(hint, 30)
        assert [m for m in got if m["type"] == "hint"] == []
        assert hub.tables[t.id] is not t and len(hub.hints) == 0
    finally:
        await hub.shutdown()


async def test_a_connection_lost_under_a_conflicting_batch_fails_the_batch_and_the_next_one_reconnects(
    pg_url: str,
) -> None:
    """A batch with a conflict is answered, then the connection dies before the rows are retried one
    by one: the batch fails, the channel is given up (its socket no longer watched by the loop),
    and the next table's entry commits on a new connection."""
    store = PostgresStore(pg_url, now=lambda: 100.0)
    told: list[tuple[str, str]] = []
    wb = WriteBehind(store, asyncio.get_running_loop())
    try:
        for tid in ("a", "b", "c"):
            store.create(meta(tid), [{"t": "start"}], [], "playing")
        store.append("b", 1, call(0, 9), (), None)  # another process got to b's entry 1
        wb.open()
        first = wb._channel
        a, b, c = object(), object(), object()
        wb.append(a, ("a", 1, call(0, 1), 1.0), lambda err: told.append(("a1", type(err).__name__)))
        wb.append(b, ("b", 1, call(0, 2), 1.0), lambda err: told.append(("b1", type(err).__name__)))
        wb._kicked = False
        wb._send_next()  # what the loop's next turn does: the batch is on its way
        poller = select.poll()
        poller.register(wb._fd, select.POLLIN)
        assert poller.poll(30_000)  # PostgreSQL answered (the conflict), not yet read
        terminate_write_behind(pg_url)
        assert wb.wait("a", a) is False
        assert wb._channel is None  # given up, and its socket unwatched
        wb.append(c, ("c", 1, call(0, 3), 1.0), lambda err: told.append(("c1", type(err).__name__)))
        assert wb.wait("c", c) is True
        assert wb._channel is not None and wb._channel is not first
        await asyncio.sleep(0)
        assert told[:2] == [("a1", "OperationalError"), ("b1", "OperationalError")]
        assert told[2] == ("c1", "NoneType")
        assert [e.get("call") for e in logged(store, "c")] == [None, 3]
    finally:
        wb.close()
        store.close()


def commits_a_call(wb: WriteBehind, store: PostgresStore) -> None:
    """Table a's entry 1 through ``wb``: committed, and in the store."""
    k = object()
    wb.append(k, ("a", 1, call(0, 1), 1.0), lambda err: None)
    assert wb.wait("a", k) is True
    assert [e.get("call") for e in logged(store, "a")] == [None, 1]

async def test_the_loop_notices_an_idle_connection_that_postgresql_ended(pg_url: str) -> None:

    store = PostgresStore(pg_url, now=lambda: 100.0)
    wb = WriteBehind(store, asyncio.get_running_loop())
    try:
        store.create(meta("a"), [{"t": "start"}], [], "playing")
        wb.open()
        terminate_write_behind(pg_url)
        await until(lambda: wb._channel is None)  # the socket's end, seen by the running loop
        commits_a_call(wb, store)
    finally:
        wb.close()
        store.close()


async def test_waiting_works_when_the_connection_has_a_file_descriptor_past_1023(pg_url: str) -> None:
    """A server with a thousand sockets open: the write-behind's connection gets a high file
    descriptor, which `select.select` cannot wait on."""
    store = PostgresStore(pg_url, now=lambda: 100.0)
    wb = WriteBehind(store, asyncio.get_running_loop())
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        store.create(meta("a"), [{"t": "start"}], [], "playing")
        wb.open()
        assert wb._fd > 1023
        commits_a_call(wb, store)
    finally:
        wb.close()
        store.close()
        for fd in held:
            os.close(fd)
