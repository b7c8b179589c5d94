"""What an operator meets when a service is missing or goes away, on real processes: a server
that cannot reach its database or Redis says so in one line and exits (never serving tables
the other processes do not know of), with no password in what it prints; a server whose
Redis stops answering is no longer ready and answers JSON, not 500s, then recovers; a bot
worker whose Redis lost the queue's group makes it again."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import redis

from callbreak.server.botqueue import GROUP, stream_key

from ..server.conftest import Client
from .procs import ScaledServer, until
from .services import Postgres, Redis, free_port, fresh_database
from .test_botqueue import Worker


def serve(*args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "callbreak", "serve", "--port", "0", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp,
        env={k: v for k, v in os.environ.items() if not k.startswith("CALLBREAK_")},
    )


def test_a_server_that_cannot_reach_its_services_says_so_and_exits(pg_server: str, tmp_path: Path) -> None:
    nowhere = f"redis://:S3cretPW@127.0.0.1:{free_port()}/0"
    with_password = pg_server.rsplit("/", 1)[0].replace("://callbreak@", "://callbreak:S3cretPW@") + "/no_such_database"
    for args, said in (
        (["--db", str(tmp_path / "t.db"), "--redis", nowhere], "cannot reach Redis at redis://:***@127.0.0.1:"),
        (["--db", str(tmp_path / "t.db"), "--redis", nowhere, "--workers", "2"], "cannot reach Redis at"),
        (["--db", with_password], 'FATAL: database "no_such_database" does not exist'),
        (["--db", str(tmp_path / "no" / "such" / "folder.db")], "cannot open the SQLite database"),
        (["--db", "postgressql://callbreak@127.0.0.1/callbreak"], "a database is a SQLite file or a postgresql:// URL"),
    ):
        done = serve(*args, tmp=tmp_path)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert said in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)
        assert "S3cretPW" not in done.stdout + done.stderr
        assert "being served" not in done.stdout, done.stdout  # it never claimed to serve
    assert "://callbreak:S3cretPW@" in with_password  # (the URL did carry a password)


def test_the_banner_shows_no_password(pg_url: str, redis_server: str, ns: str) -> None:
    # (CI's PostgreSQL trusts the address: any password is accepted, and must not be printed)
    server = ScaledServer(pg_url.replace("://callbreak@", "://callbreak:S3cretPW@"), redis_server, ns)
    server.start()
    try:
        assert "database: postgresql://callbreak:***@" in server.output() and "S3cretPW" not in server.output()
    finally:
        server.stop()


def test_a_server_whose_redis_stops_answering_is_not_ready_and_answers_json(pg_url: str, ns: str) -> None:
    own = Redis()  # a Redis of this test's own, to stop and start again
    server = ScaledServer(pg_url, own.url, ns)
    try:
        server.start()
        table = server.create(rules={"preset": "quick"}, bots="random", name="Asha", play_now=True)["table"]
        assert httpx.get(server.base + f"/api/tables/{table}").status_code == 200
        os.kill(own.proc.pid, signal.SIGSTOP)  # Redis hangs: every command waits, no answer comes
        try:
            until(lambda: httpx.get(server.base + "/readyz", timeout=5).status_code != 200, 60, lambda: "still ready")
            r = httpx.get(server.base + "/readyz", timeout=5)
            assert r.status_code == 503 and r.json() == {"ready": False, "why": "not joined to the other processes"}
            # a table's owner cannot be known: a JSON 503 to try again, not a 500 page, that says
            # why (before: "the table is moving to another server")
            r = httpx.get(server.base + f"/api/tables/{table}", timeout=60)
            assert r.status_code == 503 and r.json()["error"] == "unavailable", r.text
            assert "Redis does not answer" in r.json()["message"], r.text
            # nor is a table made that no socket could open until Redis is back (before: 200)
            r = httpx.post(server.base + "/api/tables", json={"bots": "random", "play_now": True}, timeout=60)
            assert r.status_code == 503 and "Redis does not answer" in r.json()["message"], r.text
        finally:
            os.kill(own.proc.pid, signal.SIGCONT)
        until(lambda: httpx.get(server.base + "/readyz", timeout=5).status_code == 200, 60, lambda: "not ready again")
        assert httpx.get(server.base + f"/api/tables/{table}").status_code == 200
        assert "Traceback" not in server.output(), server.output()
    finally:
        server.stop()
        own.stop()


def test_a_table_asked_for_in_a_redis_outages_first_seconds_is_answered_at_once(pg_url: str, ns: str) -> None:
    """Found by an operator's try: Redis stopped (its connections refused), a table's request
    waited out the router's whole deadline (twice the lease's time and 5 s: 11 s) before its 503,
    until the process took itself for cut off. With leases of 30 s here, that wait is 65 s; the
    answer now comes once Redis has failed the request for the lease's time in a row (at most 5 s)."""
    own = Redis()
    server = ScaledServer(pg_url, own.url, ns, env={"CALLBREAK_LEASE_TTL": "30"})
    try:
        server.start()
        table = server.create(rules={"preset": "quick"}, bots="random", name="Asha", play_now=True)["table"]
        own.stop()  # its port refuses at once
        r = httpx.get(server.base + f"/api/tables/{table}", timeout=30)
        assert r.status_code == 503 and "Redis does not answer" in r.json()["message"], r.text
        assert httpx.get(server.base + "/readyz", timeout=10).status_code == 200  # (not yet cut off)
        assert "cluster: redis, finding a table's process: lost" in server.output()
        # nor is a new table made that no one could open until Redis is back (before: 200)
        r = httpx.post(server.base + "/api/tables", json={"bots": "random", "play_now": True}, timeout=30)
        assert r.status_code == 503 and "Redis does not answer" in r.json()["message"], r.text
        # the outage the request met is said to be over once Redis answers, whether a table is asked
        # for again or not (before: only at the next lookup, so one "outage" spanned several)
        own.start()
        until(lambda: "cluster: redis, finding a table's process: back after" in server.output(), 60, server.output)
        assert "Traceback" not in server.output(), server.output()
    finally:
        server.stop()
        own.stop()


def test_a_bot_worker_makes_the_group_again_when_redis_lost_it(redis_server: str, ns: str) -> None:
    worker = Worker(redis_server, ns)
    r = redis.Redis.from_url(redis_server)
    try:
        worker.wait_ready()
        stream = stream_key(ns)
        assert [g["name"] for g in r.xinfo_groups(stream)] == [GROUP.encode()]
        # as after a restart of an empty Redis: the stream and its group gone, then a table asks again
        r.delete(stream)
        r.xadd(stream, {"r": b"{}"})
        until(lambda: "making it again" in worker.output() or worker.proc.poll() is not None, 60, worker.output)
        assert worker.proc.poll() is None, worker.output()
        (group,) = r.xinfo_groups(stream)
        assert group["name"] == GROUP.encode()
        # the request asked before the group was made again is read (from the stream's start)
        until(lambda: r.xinfo_groups(stream)[0]["last-delivered-id"] != b"0-0", 60, worker.output)
        assert worker.output().count("making it again") == 1
    finally:
        worker.stop()
        r.delete(stream_key(ns))
        r.close()


async def test_a_server_whose_database_stops_answers_at_once_and_plays_on_once_it_is_back(
    redis_server: str, ns: str
) -> None:
    """Found by an operator's try: with PostgreSQL stopped, every process froze (its liveness
    probe too), since each call on the event loop waited 30 s for the pool; once PostgreSQL was
    back the pool's reconnections, backing off, took one to two minutes. Now the first call that
    finds the database silent marks an outage: calls fail at once, JSON 503s say so, and a fresh
    connection is tried every second."""
    pg = Postgres()  # a PostgreSQL of this test's own, to stop and start again
    server = ScaledServer(fresh_database(pg.url), redis_server, ns)
    try:
        server.start()
        rules = {"preset": "quick", "rounds": 1, "call_seconds": None, "card_seconds": None}
        made = server.create(rules=rules, bots="random", name="Asha", play_now=True)
        # a player in the middle of the match: its call goes in, then the database stops
        a = Client(server, made["table"], made["token"])
        await a.connect()
        await a.wait(lambda c: c.my_turn(), timeout=30)
        called = a.v
        await a.act_once()
        await a.wait(lambda c: c.v > called and c.my_turn(), timeout=30)  # (nothing moves until it plays)
        kept = a.v
        pg.halt()
        await a.act_once()  # not saved: refused, or its table reloads and the socket closes
        refused = lambda c: any(m["type"] == "error" and m["code"] == "unavailable" for m in c.messages)  # noqa: E731
        with contextlib.suppress(AssertionError):  # (`wait` says so when the socket closes)
            await a.wait(refused, timeout=20)
        assert a.closed or refused(a), a.messages[-3:]
        for _ in range(3):  # each answer at once (a timeout of 10 s: before, the first took 30)
            assert httpx.get(server.base + "/healthz", timeout=10).status_code == 200
            r = httpx.get(server.base + "/readyz", timeout=10)
            assert r.status_code == 503 and r.json() == {"ready": False, "why": "the store does not answer"}
            r = httpx.post(server.base + "/api/tables", json={"rules": rules, "bots": "random"}, timeout=10)
            assert r.status_code == 503 and r.json()["error"] == "unavailable", r.text
            # (not the database's address and its driver's words, as before: "connection to server at
            # \"127.0.0.1\", port 25432 failed: Connection refused ...")
            assert r.json()["message"] == "the database does not answer: nothing was changed; try again in a moment"
            assert r.headers["Retry-After"] == "2"
        pg.start()
        until(lambda: httpx.get(server.base + "/readyz", timeout=10).status_code == 200, 30, lambda: "not ready again")
        # the table plays on from what was saved: the card refused in the outage is the player's to play
        await a.close()
        a = Client(server, made["table"], made["token"])
        await a.connect(since=0)
        await a.wait(lambda c: c.my_turn(), timeout=30)
        assert a.v == kept
        await a.act_once()
        await a.wait(lambda c: c.v > kept, timeout=30)
        await a.close()
        assert server.create(rules=rules, bots="random", name="Bimal")["table"]
        assert "Traceback" not in server.output(), server.output()
        # the outage said once as it began, and once as it ended
        lines = server.output().splitlines()
        # (each line with its time and level: "2026-12-05 10:40:01,123 WARNING callbreak.server.store: …")
        said = [ln for ln in lines if re.match(r"\d{4}-\d\d-\d\d [\d:,]+ WARNING callbreak[\w.]*: the database does not answer \(", ln)]
        assert len(said) == 1, lines
        assert "the database answers again, after" in server.output()
    finally:
        server.stop()
        pg.stop()


async def test_a_turn_waits_for_a_player_who_cannot_come_back_while_redis_is_away(pg_url: str, ns: str) -> None:
    """An operator's try: Redis stopped, a player reloaded the page; every new socket was refused
    (it cannot be known whose the table is) while the turn's timer ran on, and played the player's
    card 3.5 s after Redis was back, before the page got in. A seat whose player is away waits
    while players cannot come back (`/readyz` not ready), then has a whole turn's time."""
    from ..server.driven import DRIVEN, advance

    own = Redis()
    server = ScaledServer(pg_url, own.url, ns, env=DRIVEN)
    try:
        server.start()
        # (no card played by itself: a turn of one legal card is played whoever is there, held or not)
        rules = {"preset": "quick", "rounds": 1, "call_seconds": 30, "card_seconds": 15, "autoplay_forced": False}
        made = server.create(rules=rules, bots="random", name="Asha")
        code = made["invite"]
        joined = server.post(f"/api/join/{code}", {"name": "Bimal"}).json()
        a = Client(server, made["table"], made["token"])
        b = Client(server, made["table"], joined["token"])
        await a.connect()
        await b.connect()
        await a.send({"type": "start"})
        # to Bimal's turn, each player acting on theirs, the bots' turns on the clock
        for _ in range(200):
            if b.my_turn():
                break
            for p in (a, b):
                if p.my_turn():
                    v = p.v
                    await p.act_once()
                    await p.wait(lambda c, v=v: c.v > v, timeout=30)
            if not b.my_turn():
                await advance(server, 0.5)
                await a.wait(lambda c: True)
        assert b.my_turn()
        v = b.v
        await b.close()  # Bimal's page reloads, as Redis goes
        own.stop()
        until(lambda: httpx.get(server.base + "/readyz", timeout=10).status_code == 503, 60, lambda: "still ready")
        await advance(server, 15 + 20 + 5)  # the turn's time and the grace, and more
        assert (await advance(server, 0))["tables"][made["table"]] == v  # nothing played for Bimal
        own.start()
        until(lambda: httpx.get(server.base + "/readyz", timeout=10).status_code == 200, 60, lambda: "not ready again")
        back = await advance(server, 1.1)  # (looked at again each second)
        if a.closed:  # (a socket on a process cut off from Redis for twice its lease is closed, 1013)
            a = Client(server, made["table"], made["token"])
            await a.connect()
        # the turn's whole time again, told to the players there (their rings)
        await a.wait(lambda c: c.info is not None and (c.info["deadline"] or 0) >= (back["time"] + 13) * 1000, timeout=30)
        await advance(server, 13)
        assert (await advance(server, 0))["tables"][made["table"]] == v
        b = Client(server, made["table"], joined["token"])
        await b.connect()
        await b.wait(lambda c: c.my_turn(), timeout=30)
        await b.act_once()
        await b.wait(lambda c: c.v > v, timeout=30)
        await a.wait(lambda c: c.v > v, timeout=30)
        await a.close()
        await b.close()
        assert "Traceback" not in server.output(), server.output()
    finally:
        server.stop()
        own.stop()
