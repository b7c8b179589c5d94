"""Reconnection with `since`, and a real `kill -9` of the server in the middle of a trick."""

from __future__ import annotations

import json
import random
import time

from callbreak.server.store import open_store
from callbreak.server.table import TableState

from ..seeds import seed_of_test
from .conftest import Client, Server, play_until, two_players
from .driven import DRIVEN, drive

QUICK1 = {"preset": "quick", "rounds": 1}


async def test_reconnect_gets_exactly_the_missed_events(make_server) -> None:  # type: ignore[no-untyped-def]
    # the server's clock moves only when the test moves it: once b is back, nothing moves while
    # its state is compared with a fresh client's (with real 0.2 s timers the table played on)
    server: Server = make_server(DRIVEN)
    made, joined, a, b, _ = await two_players(server, {**QUICK1, "call_seconds": 2, "card_seconds": 2})
    await drive(server, (a, b), lambda: b.state is not None and b.state["phase"] != "lobby", seconds=0.5)
    # b leaves; a plays on (bots too) while b is away
    await b.close()
    seen_before = b.v
    # (b's own turns run out on their timer and are played for it)
    await drive(server, (a,), lambda: a.v > seen_before + 12, players=(a,), seconds=0.5)
    missed_v = a.v
    b2 = Client(server, made["table"], joined["token"])
    b2.v = seen_before
    await b2.connect()
    await b2.wait(lambda c: any(m["type"] == "synced" for m in c.messages))
    synced = next(m for m in b2.messages if m["type"] == "synced")
    events = [m for m in b2.messages if m["type"] == "event" and m["v"] <= synced["v"]]
    assert synced["v"] >= missed_v
    assert [m["v"] for m in events] == list(range(seen_before + 1, synced["v"] + 1))
    assert not any(m["type"] == "snapshot" for m in b2.messages)
    # what b missed equals what a was told, event for event (public part)
    a_events = {m["v"]: m["event"] for m in a.messages if m["type"] == "event"}
    await a.wait(lambda c: c.v >= synced["v"])
    a_events = {m["v"]: m["event"] for m in a.messages if m["type"] == "event"}
    assert all(m["event"] == a_events[m["v"]] for m in events)
    # and its state after catching up is its own seat's current view
    fresh = Client(server, made["table"], joined["token"])
    await fresh.connect(since=0)
    await fresh.wait(lambda c: any(m["type"] == "snapshot" for m in c.messages))
    assert fresh.state == b2.state and fresh.state is not None and fresh.state["seat"] == 1
    for c in (a, b2, fresh):
        await c.close()


async def test_server_killed_mid_trick_resumes_the_same_table(make_server) -> None:  # type: ignore[no-untyped-def]
    server: Server = make_server()
    made = server.create(rules=QUICK1, bots="random", name="Asha", play_now=True)
    a = Client(server, made["table"], made["token"])
    await a.connect()
    # play until it is our turn with cards already on the trick
    await play_until(
        [a],
        lambda: a.my_turn()
        and a.state is not None
        and a.state["phase"] == "playing"
        and 0 < len(a.state["trick"]) < 4
        and len(a.state["legal_cards"]) > 1,
        timeout=30,
        leave_forced=True,
    )
    before_state, before_v = a.state, a.v
    server.kill()
    await a.wait(lambda c: c.closed, timeout=5)

    server.start()  # same port, same database file
    assert server.alive()
    t0 = time.time() * 1000
    await a.connect()  # reconnect with the token and `since`
    await a.wait(lambda c: any(m["type"] == "synced" and m["v"] == before_v for m in c.messages[-3:]))
    assert a.state == before_state
    assert a.info is not None and a.info["status"] == "playing" and a.info["to_act"] == 0
    assert a.info["deadline"] is not None and a.info["deadline"] >= t0 + 10_000  # a fresh, full timer
    snap = Client(server, made["table"], made["token"])
    await snap.connect(since=0)
    await snap.wait(lambda c: any(m["type"] == "snapshot" for m in c.messages))
    assert snap.state == before_state and snap.v == before_v
    await snap.close()
    # and the match plays on to its end
    await play_until([a], lambda: a.info is not None and a.info["status"] == "over", timeout=60)
    assert a.state is not None and a.state["places"] is not None
    await a.close()


async def test_a_restarted_server_catches_a_client_up_from_the_log(make_server) -> None:  # type: ignore[no-untyped-def]
    """A process that loads a table from the store (a restart here; a survivor taking over a dead
    owner's table in tests/scale) has the table's newest events for catch-ups: a client that missed
    the last few gets them, the same as they were first told, and no snapshot."""
    server: Server = make_server()
    made = server.create(rules=QUICK1, bots="random", name="Asha", play_now=True)
    a = Client(server, made["table"], made["token"])
    await a.connect()
    await play_until([a], lambda: a.v >= 14, timeout=30)
    server.kill()
    await a.wait(lambda c: c.closed, timeout=5)
    told = {m["v"]: m for m in a.messages if m["type"] == "event"}
    server.start()  # same port, same database file
    b = Client(server, made["table"], made["token"])
    b.v = a.v - 8  # it heard of everything but the last 8 events
    await b.connect()
    await b.wait(lambda c: any(m["type"] == "synced" for m in c.messages))
    synced = next(m for m in b.messages if m["type"] == "synced")
    assert not any(m["type"] == "snapshot" for m in b.messages)
    events = [m for m in b.messages if m["type"] == "event" and m["v"] <= synced["v"]]
    assert synced["v"] >= a.v and [m["v"] for m in events] == list(range(a.v - 7, synced["v"] + 1))
    for m in events[:8]:
        assert (m["event"], m["state"]) == (told[m["v"]]["event"], told[m["v"]]["state"])
    await b.close()


def test_a_join_tried_again_after_a_restart_gets_the_seat_it_took(make_server) -> None:  # type: ignore[no-untyped-def]
    """A join whose answer was lost (the process died as it answered) is tried again with its own
    random text once a process is back, and the table has started meanwhile: the player gets the
    seat the first try took, its token again, and no second seat. A join of another text is a
    join of its own, and a text not of the form asked is refused, seating no one."""
    server: Server = make_server()
    made = server.create(rules=QUICK1, bots="random", name="Asha")
    code = made["invite_url"].rstrip("/").rsplit("/", 1)[1]
    attempt = "bimal-phone-0123456789"
    first = server.post(f"/api/join/{code}", {"name": "Bimal", "attempt": attempt})
    assert first.status_code == 200, first.text
    server.kill()
    server.start()  # same database file: the table is read back from its log
    assert server.post(f"/api/tables/{made['table']}/start", {"token": made["token"]}).status_code == 200
    again = server.post(f"/api/join/{code}", {"name": "Bimal", "attempt": attempt})
    assert again.status_code == 200, again.text
    assert (again.json()["seat"], again.json()["token"]) == (first.json()["seat"], first.json()["token"]) == (1, first.json()["token"])
    other = server.post(f"/api/join/{code}", {"name": "Chandra", "attempt": "chandra-phone-012345"})
    assert (other.status_code, other.json()["error"]) == (409, "wrong_status")
    bad = server.post(f"/api/join/{code}", {"name": "Dipa", "attempt": "a b"})
    assert (bad.status_code, bad.json()["error"]) == (400, "bad_message")
    assert "attempt" in bad.json()["message"]
    newline = server.post(f"/api/join/{code}", {"name": "Dipa", "attempt": "d" * 16 + "\n"})  # (the body's pattern lets it by)
    assert (newline.status_code, newline.json()["error"]) == (400, "bad_message") and "attempt" in newline.json()["message"]
    seats = server.get(f"/api/join/{code}").json()["seats"]
    assert [s["kind"] for s in seats] == ["human", "human", "bot", "bot"]


async def test_kill_at_random_moments_loses_nothing(make_server) -> None:  # type: ignore[no-untyped-def]
    server: Server = make_server({"CALLBREAK_BOT_DELAY": "0.002"})
    tables = [server.create(rules=QUICK1, bots="random", name=f"P{i}", play_now=True) for i in range(3)]
    clients = [Client(server, t["table"], t["token"]) for t in tables]
    for c in clients:
        await c.connect()
    # the moments: after a number of versions drawn from a seeded stream (not after a time,
    # which a busy machine would make another moment each run)
    rng = random.Random(seed_of_test())
    for _ in range(2):
        target = max(c.v for c in clients) + rng.randint(3, 30)  # (a one-round match has some 75)
        await play_until(clients, lambda t=target: max(c.v for c in clients) >= t)
        seen = [(c.v, c.seat, c.state) for c in clients]
        server.kill()
        for c in clients:
            await c.wait(lambda x: x.closed, timeout=5)
        server.start()
        store = open_store(str(server.db))  # the server's own file, read beside it
        try:
            for c, (v, seat, state) in zip(clients, seen):
                probe = Client(server, c.table, c.token)
                await probe.connect(since=0)
                await probe.wait(lambda x: any(m["type"] == "snapshot" for m in x.messages))
                # everything a client was told survived: its log, replayed as far as the version the
                # client had seen, gives exactly the state it was told (at most the writes after its
                # last message are extra, and the server is at them or beyond)
                assert probe.v >= v
                loaded = store.load(c.table)
                assert loaded is not None
                replayed = TableState(loaded[0])
                for entry in loaded[1]:
                    if replayed.v >= v:
                        break
                    replayed.apply(entry)
                assert replayed.v >= v and json.loads(json.dumps(replayed.state(seat))) == state
                await probe.close()
                await c.connect()
                await c.wait(lambda x: any(m["type"] in ("synced", "snapshot") for m in x.messages[-40:]))
        finally:
            store.close()
    for c in clients:
        await c.close()


async def test_kill_in_the_lobby_and_between_rounds(make_server) -> None:  # type: ignore[no-untyped-def]
    server: Server = make_server({"CALLBREAK_BETWEEN_ROUNDS": "60"})
    made, _, a, b, _ = await two_players(server, {"preset": "quick", "rounds": 2}, start=False)
    await a.wait(lambda c: c.info is not None and c.info["seats"][1]["kind"] == "human")
    server.kill()
    server.start()
    info = server.get(f"/api/join/{made['invite']}").json()
    assert info["status"] == "lobby" and [s["name"] for s in info["seats"]][:2] == ["A", "B"]
    for c in (a, b):
        await c.connect()
    await a.send({"type": "start"})
    await play_until([a, b], lambda: a.info is not None and a.info["status"] == "between_rounds", timeout=30)
    await b.wait(lambda c: c.info is not None and c.info["status"] == "between_rounds")
    await a.send({"type": "ready"})
    await b.wait(lambda c: c.info is not None and c.info["seats"][0]["ready"])
    before = b.state
    server.kill()
    server.start()
    for c in (a, b):
        await c.wait(lambda x: x.closed)
        await c.connect()
        await c.wait(lambda x: x.messages[-1]["type"] == "synced")
    assert b.info is not None and b.info["status"] == "between_rounds" and b.info["seats"][0]["ready"]
    assert b.state == before
    await b.send({"type": "ready"})
    await a.wait(lambda c: c.info is not None and c.info["status"] == "playing", timeout=5)
    assert a.state is not None and a.state["round_number"] == 2
    for c in (a, b):
        await c.close()
