"""Two real `callbreak serve` processes on one PostgreSQL and one Redis: a table has one owner,
requests that land on the other process reach it, and a killed owner's tables move."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Iterator

import httpx
import psycopg
import pytest
import redis

from callbreak import Ruleset
from callbreak.server.store_pg import PostgresStore
from callbreak.server.table import TableMeta

from ..server.conftest import Client, play_until
from .procs import ScaledServer, start_all

QUICK1 = {"preset": "quick", "rounds": 1}


@pytest.fixture
def make_scaled(pg_url: str, redis_server: str, ns: str) -> Iterator[Callable[..., list[ScaledServer]]]:
    servers: list[ScaledServer] = []

    def make(n: int = 2, env: dict[str, str] | None = None) -> list[ScaledServer]:
        made = [ScaledServer(pg_url, redis_server, ns, env) for _ in range(n)]
        start_all(made)
        servers.extend(made)
        return made

    yield make
    for s in servers:
        s.stop()


async def test_requests_on_either_process_reach_the_owner(make_scaled: Callable[..., list[ScaledServer]]) -> None:
    a, b = make_scaled()
    made = a.create(rules=QUICK1, bots="random", name="Asha")
    # a made it and let it go: the join, the first request naming it, makes b its owner
    joined = b.post(f"/api/join/{made['invite']}", {"name": "Bibek"}).json()
    assert joined["seat"] == 1
    info = b.get(f"/api/tables/{made['table']}").json()
    assert [s["name"] for s in info["table"]["seats"]][:2] == ["Asha", "Bibek"]
    host = Client(b, made["table"], made["token"])  # on the owner
    guest = Client(a, made["table"], joined["token"])  # tunnelled: a -> owner b
    for c in (host, guest):
        await c.connect()
    await host.send({"type": "start"})
    await play_until([host, guest], lambda: host.info is not None and host.info["status"] == "over", timeout=90)
    await guest.wait(lambda c: c.info is not None and c.info["status"] == "over")
    assert host.state == (await _snapshot(a, made["table"], made["token"]))
    r = a.post(f"/api/tables/{made['table']}/start", {"token": "x" * 32})  # forwarded to b, refused there
    assert r.status_code == 403 and r.json()["error"] == "bad_token"
    for c in (host, guest):
        await c.close()


async def test_a_new_table_belongs_to_no_process_until_a_request_names_it(
    make_scaled: Callable[..., list[ScaledServer]], redis_server: str, ns: str
) -> None:
    a, b = make_scaled()
    leases = redis.Redis.from_url(redis_server)
    made = a.create(rules=QUICK1, bots="random", name="Asha", play_now=True)
    # a made it and let it go: not loaded there, no lease; the first socket decides
    assert leases.get(f"{ns}:lease:{made['table']}") is None and a.get("/healthz").json()["tables"] == 0
    p = Client(a, made["table"], made["token"])
    await p.connect()
    await play_until([p], lambda: p.info is not None and p.info["status"] == "over", timeout=60)
    # a rematch asked over the socket: the owner a makes the new table and lets it go too
    await p.send({"type": "rematch"})
    await p.wait(lambda c: any(m["type"] == "rematch" for m in c.messages))
    new = next(m for m in p.messages if m["type"] == "rematch")["table"]
    assert leases.get(f"{ns}:lease:{new}") is None and a.get("/healthz").json()["tables"] == 1
    # asked again on b, carried to a: the same new table, still let go
    r = b.post(f"/api/tables/{made['table']}/rematch", {"token": made["token"]})
    assert r.status_code == 200, r.text
    again = r.json()
    assert again["table"] == new and again["invite"].startswith(new + ".")
    assert leases.get(f"{ns}:lease:{new}") is None and a.get("/healthz").json()["tables"] == 1
    q = Client(b, again["table"], again["token"])
    await q.connect()  # b is the first to be asked for it: b runs it
    await q.wait(lambda c: c.info is not None and c.info["status"] == "playing")
    owner = leases.get(f"{ns}:lease:{again['table']}")
    assert owner is not None and owner.decode().split("-")[-2] == str(b.proc.pid)  # type: ignore[union-attr]
    await p.close()
    await q.close()


async def _snapshot(server: ScaledServer, table: str, token: str) -> object:
    c = Client(server, table, token)
    await c.connect(since=0)
    await c.wait(lambda x: any(m["type"] == "snapshot" for m in x.messages))
    await c.close()
    return c.state


async def test_a_killed_owner_hands_its_table_on(make_scaled: Callable[..., list[ScaledServer]]) -> None:
    a, b = make_scaled()
    made = a.create(rules={**QUICK1, "card_seconds": 30, "call_seconds": 30}, bots="random", name="Asha", play_now=True)
    p = Client(a, made["table"], made["token"])  # on the owner
    w = Client(b, made["table"])  # a spectator tunnelled from b
    for c in (p, w):
        await c.connect()
    await play_until([p], lambda: p.v >= 12, timeout=30)
    await w.wait(lambda c: c.v >= 12)
    a.kill()
    await p.wait(lambda c: c.closed, timeout=10)
    await w.wait(lambda c: c.closed, timeout=10)  # b closed the tunnel: its owner is gone
    seen_v = p.v  # the last event the client heard of (a may have committed more before it died)
    p.server = b
    start = len(p.messages)
    await p.connect()  # b takes the lease once a's liveness has expired, and rebuilds from the log
    # (the router waits for the lease while a's liveness key lasts: 1.5 s after the kill)
    await p.wait(lambda c: any(m["type"] in ("synced", "snapshot") for m in c.messages[start:]), timeout=40)
    caught_up = p.messages[start:]
    # nothing accepted was lost, and the client catches up from its version (no snapshot, even
    # when a committed entries that it had not told the client of: b has them from the log)
    assert not any(m["type"] == "snapshot" for m in caught_up)
    at = next(i for i, m in enumerate(caught_up) if m["type"] == "synced")
    missed = [m["v"] for m in caught_up[:at] if m["type"] == "event"]
    assert caught_up[at]["v"] >= seen_v and missed == list(range(seen_v + 1, caught_up[at]["v"] + 1))
    await play_until([p], lambda: p.info is not None and p.info["status"] == "over", timeout=90)
    metrics = httpx.get(b.base + "/metrics").text
    assert "callbreak_lease_moves_total 1.0" in metrics
    # and said in b's log, with the time (found in an operator's try: only the metric told it)
    took = rf"^\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d,\d{{3}} INFO callbreak\.server: table {made['table']}: taken over"
    assert re.search(took, b.output(), re.MULTILINE), b.output()[-3000:]
    await p.close()


async def test_an_owner_that_finds_its_lease_taken_drops_its_copy(
    make_scaled: Callable[..., list[ScaledServer]], redis_server: str, ns: str
) -> None:
    a, b = make_scaled()
    made = a.create(rules={**QUICK1, "card_seconds": 30, "call_seconds": 30}, bots="random", name="Asha", play_now=True)
    p = Client(a, made["table"], made["token"])
    await p.connect()
    await play_until([p], lambda: p.v >= 8, timeout=30)
    assert a.get("/healthz").json()["tables"] == 1
    # b's id in the lease, as if a had stalled past its lease and b had taken the table over
    r = redis.Redis.from_url(redis_server)
    b_id = next(k.decode().rsplit(":", 1)[1] for k in r.keys(f"{ns}:alive:*") if str(b.proc.pid) in k.decode())  # type: ignore[union-attr]
    r.set(f"{ns}:lease:{made['table']}", b_id)
    await p.wait(lambda c: c.closed, timeout=10)  # a dropped its copy, closing its sockets
    assert a.get("/healthz").json()["tables"] == 0
    seen = p.v
    start = len(p.messages)
    await p.connect()  # through a, to the owner b, which rebuilds the table from the log
    await p.wait(lambda c: any(m["type"] == "synced" for m in c.messages[start:]), timeout=15)
    assert next(m for m in p.messages[start:] if m["type"] == "synced")["v"] == seen
    await play_until([p], lambda: p.info is not None and p.info["status"] == "over", timeout=90)
    assert a.get("/healthz").json()["tables"] == 0 and b.get("/healthz").json()["tables"] == 1
    await p.close()


async def test_the_stored_table_sweep_never_closes_a_table_a_living_process_runs(
    pg_url: str, redis_server: str, ns: str
) -> None:
    """b's sweep closes stale stored tables under their leases only: a's table, whose player is
    connected there and thinking without a turn timer past ``abandon_after``, is a's to close."""
    a = ScaledServer(pg_url, redis_server, ns, {"CALLBREAK_SWEEP_EVERY": "3600"})  # a sweeps nothing
    b = ScaledServer(pg_url, redis_server, ns, {"CALLBREAK_SWEEP_EVERY": "0.2", "CALLBREAK_ABANDON_AFTER": "1"})
    start_all([a])
    store = PostgresStore(pg_url)
    try:
        untimed = {**QUICK1, "card_seconds": None, "call_seconds": None}
        made = a.create(rules=untimed, bots="random", name="Asha", play_now=True)
        p = Client(a, made["table"], made["token"])
        await p.connect()  # a takes the new table (its maker let it go) before b is there to sweep it
        await p.wait(lambda c: c.my_turn(), timeout=30)  # the bots have acted; the player thinks
        start_all([b])
        thinking = len(store.load(made["table"])[1])  # type: ignore[index]
        # the table's entries an hour old: far past b's abandon_after (no waiting on the wall clock)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("UPDATE log SET ts = ts - 3600 WHERE table_id = %s", (made["table"],))
        # two forgotten lobbies, stored one after the other: the sweep pass that closes the second
        # began after the pass that closed the first, which listed a's (already stale) table too
        for tid in ("old-1", "old-2"):
            meta = TableMeta(id=tid, invite="inv-" + tid, rules=Ruleset(), bots="random", seed=5, created=time.time() - 7200)
            store.create(meta, [{"t": "seat", "seat": 0, "name": "P0", "token": tid * 4}], [], "lobby")
            deadline = time.monotonic() + 30
            while store.status(tid) != "expired":
                assert time.monotonic() < deadline, f"b did not expire {tid}"
                await asyncio.sleep(0.1)
        assert store.status(made["table"]) == "playing"
        assert len(store.load(made["table"])[1]) == thinking  # type: ignore[index]
        await play_until([p], lambda: p.info is not None and p.info["status"] == "over", timeout=90)
        await p.close()
    finally:
        store.close()
        for s in (a, b):
            s.stop()


async def test_one_renewal_keeps_takes_or_drops_every_loaded_tables_lease(pg_url: str, redis_server: str, ns: str) -> None:
    """A renewal asks for the leases of all the process's loaded tables at once (one script call):
    a free lease and a dead process's are taken (that one counted as a move), one that a living
    process holds is left to it and the copy here dropped; the next renewal extends the leases
    it holds and moves nothing."""
    from callbreak.server.cluster import Cluster
    from callbreak.server.config import ServerConfig
    from callbreak.server.hub import Hub

    hub = Hub(ServerConfig(db=pg_url))
    cluster = Cluster(hub, redis_server, namespace=ns, lease_ttl=60.0)  # its own renewals: every 20 s
    await cluster.start()
    r = redis.Redis.from_url(redis_server)
    try:
        free, dead, living = (hub.create_table(Ruleset(), bots="random", name="A", play_now=True)[0].id for _ in range(3))
        r.set(f"{ns}:lease:{dead}", "a-dead-process")
        r.set(f"{ns}:lease:{living}", "a-living-process")
        r.set(f"{ns}:alive:a-living-process", "1")
        await cluster._renew()
        assert cluster.owned == {free, dead} and cluster.moves == 1
        assert set(hub.tables) == {free, dead}
        for tid in (free, dead):
            assert r.get(f"{ns}:lease:{tid}") == cluster.me.encode() and r.pttl(f"{ns}:lease:{tid}") > 0
        assert r.get(f"{ns}:lease:{living}") == b"a-living-process"
        r.pexpire(f"{ns}:lease:{free}", 5000)
        await cluster._renew()
        assert r.pttl(f"{ns}:lease:{free}") > 5000 and r.get(f"{ns}:lease:{free}") == cluster.me.encode()
        assert cluster.owned == {free, dead} and cluster.moves == 1 and set(hub.tables) == {free, dead}
    finally:
        r.close()
        await cluster.stop()
        await hub.shutdown()
