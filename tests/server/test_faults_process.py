"""Faults of #13 reproduced against a real ``callbreak serve`` process, whose clock the test
moves (`driven`): the message limit counts bytes; a refused message changes nothing; an
endless table nobody plays ends and its states do not grow; catch-up costs what was missed;
hints are worked out once per decision, in a child process, in their own bounded pool; a start loads no stored
table and tables everyone left are abandoned.  (The same rules, in-process and step by step,
are in test_limits, test_hints and test_abandon.)"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import orjson

from callbreak.server.table import IDLE_ROUNDS

from .conftest import Client, Server
from .driven import DRIVEN, advance, counters, drive, http_of, public, step

QUICK = {"preset": "quick", "rounds": 1, "call_seconds": 30, "card_seconds": 15}


async def solo(server: Server, rules: dict[str, Any], bots: str = "random") -> tuple[dict[str, Any], Client]:
    """A started table of one person (connected) and three bots."""
    made = server.create(rules=rules, bots=bots, name="Solo", play_now=True)
    c = Client(server, str(made["table"]), str(made["token"]))
    await c.connect()
    await c.wait(lambda c: any(m["type"] == "synced" or m["type"] == "snapshot" for m in c.messages))
    return made, c


def seat0_on_autoplay(c: Client) -> bool:
    return c.info is not None and bool(c.info["seats"][0]["autoplay"])


async def test_a_message_under_4096_characters_but_over_4096_bytes_is_refused(make_server: Callable[..., Server]) -> None:
    server = make_server(DRIVEN)  # the clock stands still: the table changes only by messages
    made, a = await solo(server, QUICK)
    before = await public(server, str(made["table"]))
    # 1,400 euro signs: under 4,096 characters, 4,200 bytes of UTF-8
    euros = '{"type":"ping","ref":"' + "€" * 1400 + '"}'
    assert len(euros) < 4096 < len(euros.encode())
    await a.send(euros)
    err = await a.next_error()
    assert err["code"] == "too_large"
    # a 12 KB message of euro signs too, and the connection is still served
    await a.send('{"type":"ping","ref":"' + "€" * 4000 + '"}')
    assert (await a.next_error())["code"] == "too_large"
    await a.send({"type": "ping", "ref": "still here"})
    await a.wait(lambda c: any(m["type"] == "pong" and m.get("ref") == "still here" for m in c.messages))
    assert await public(server, str(made["table"])) == before
    await a.close()


async def refused_unchanged(server: Server, c: Client, msg: dict[str, Any]) -> str:
    """Send ``msg``, which must be refused: the error's code; the table is as it was."""
    before = await public(server, c.table)
    await c.send(msg)
    code = str((await c.next_error())["code"])
    await step(server, (c,), 0)  # anything the message set off has run
    assert await public(server, c.table) == before, msg
    return code


async def test_a_refused_message_from_a_seat_on_autoplay_changes_nothing(make_server: Callable[..., Server]) -> None:
    server = make_server(DRIVEN)
    _, a = await solo(server, QUICK)
    await drive(server, (a,), lambda: seat0_on_autoplay(a), seconds=5)  # two turns ran out

    def phase(c: Client) -> str:
        return "" if c.state is None else str(c.state["phase"])

    await drive(server, (a,), lambda: a.state is not None and a.state["to_act"] != 0 and phase(a) == "playing", seconds=0.3)
    assert await refused_unchanged(server, a, {"type": "play", "card": "AS"}) == "not_your_turn"
    assert await refused_unchanged(server, a, {"type": "call", "call": 3}) == "not_your_turn"
    await drive(server, (a,), lambda: a.state is not None and a.state["to_act"] == 0 and phase(a) == "playing", seconds=0.3)
    assert await refused_unchanged(server, a, {"type": "play", "card": "ZZ"}) == "bad_card"
    assert seat0_on_autoplay(a)
    # a legal card is taken and gives the seat back to the player
    v = a.v
    assert a.state is not None
    await a.send({"type": "play", "card": a.state["legal_cards"][0]})
    await a.wait(lambda c: not seat0_on_autoplay(c))
    kinds = [m["event"]["kind"] for m in a.messages if m["type"] == "event" and m["v"] > v]
    assert kinds[0] == "play" and "autoplay" in kinds
    # after the match: a play or a call is refused, nothing changed
    await drive(server, (a,), lambda: a.info is not None and a.info["status"] == "over", seconds=5)
    assert await refused_unchanged(server, a, {"type": "play", "card": "AS"}) == "wrong_status"
    assert await refused_unchanged(server, a, {"type": "call", "call": 2}) == "wrong_status"
    await a.close()


def event_frames(c: Client) -> list[tuple[dict[str, Any], int]]:
    """Each event message with its size in bytes."""
    return [(m, len(raw.encode())) for m, raw in zip(c.messages, c.raw, strict=True) if m["type"] == "event"]


async def test_an_endless_table_nobody_plays_ends_and_its_states_stay_the_same_size(
    make_server: Callable[..., Server],
) -> None:
    server = make_server(DRIVEN)
    _, a = await solo(server, {"preset": "pagat"})
    await drive(server, (a,), lambda: a.info is not None and a.info["status"] == "over", seconds=5, limit=4 * 3600)
    frames = event_frames(a)
    overs = [m["event"] for m, _ in frames if m["event"]["kind"] == "match_over"]
    assert len(overs) == 1 and overs[0]["reason"] == "idle"
    rounds = [m["event"] for m, _ in frames if m["event"]["kind"] == "round_over"]
    assert IDLE_ROUNDS <= len(rounds) <= IDLE_ROUNDS + 3
    # each round's points are told once, as an event; no state carries the history
    assert all("round_points" not in (m["state"] or {}) for m, _ in frames)
    size = {r: max(n for m, n in frames if m["event"].get("round") == r and m["event"]["kind"] == "play") for r in (1, len(rounds))}
    assert size[len(rounds)] < size[1] + 300, size
    await a.close()


async def test_catch_up_work_is_what_was_missed_not_the_length_of_the_log(make_server: Callable[..., Server]) -> None:
    server = make_server(DRIVEN | {"CALLBREAK_BOT_DELAY": "0.1", "CALLBREAK_BETWEEN_ROUNDS": "0.5"})
    made, a = await solo(server, {"preset": "pagat"})
    table = str(made["table"])
    work: dict[int, int] = {}
    for target in (100, 400):
        await drive(server, (a,), lambda: a.v >= target, players=(a,), seconds=5)  # noqa: B023
        late = Client(server, table, str(made["token"]))
        late.v = a.v - 1
        before = (await counters(server))["catchup_work"][table]
        await late.connect()
        await late.wait(lambda c: any(m["type"] == "synced" for m in c.messages))
        work[target] = (await counters(server))["catchup_work"][table] - before
        assert [(m["type"], m["v"]) for m in late.messages] == [("event", a.v), ("synced", a.v)]
        await late.close()
    assert work[100] == work[400] == 1
    await a.close()


def nice_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[16])


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return int(next(line for line in f if line.startswith("PPid:")).split()[1])


def hints_of(c: Client) -> list[dict[str, Any]]:
    return [m for m in c.messages if m["type"] == "hint"]


async def test_hints_are_worked_out_once_per_decision_and_bots_do_not_wait_behind_them(
    make_server: Callable[..., Server],
) -> None:
    server = make_server(DRIVEN | {"CALLBREAK_HINT_WORKERS": "1", "CALLBREAK_HINT_QUEUE": "3"})
    rules = QUICK | {"call_seconds": 300, "card_seconds": 300}
    for _ in range(1200):  # the kernel loads from the numba cache (compiled by earlier tests or CI's warm-up)
        if (await counters(server))["kernel_ready"]:
            break
        await asyncio.sleep(0.25)
    assert (await counters(server))["kernel_ready"]  # from now on hints are worked out in a child process
    made, a = await solo(server, rules)
    await drive(server, (a,), a.my_turn)
    b = Client(server, a.table, str(made["token"]))  # the same seat on a second device
    await b.connect()
    computed = (await counters(server))["hints_computed"]
    for i in range(12):
        await a.send({"type": "hint", "ref": i})
        await b.send({"type": "hint", "ref": i})
    for c in (a, b):
        await c.wait(lambda c: sum(m["type"] == "hint" for m in c.messages) == 12, timeout=60)
    got = hints_of(a) + hints_of(b)
    assert len({orjson.dumps({k: v for k, v in m.items() if k != "ref"}) for m in got}) == 1
    assert (await counters(server))["hints_computed"] == computed + 1
    assert {m["level"] for m in got} == {"hard"}
    # worked out by a child process of the server's, at a lower CPU priority
    (child,) = (await counters(server))["hint_children"]
    assert server.proc is not None and parent_of(child) == server.proc.pid
    assert nice_of(child) == nice_of(server.proc.pid) + 10
    await b.close()

    # the hint pool busy: three decisions' hints wait, a fourth is refused, a bot still moves
    assert (await http_of(server).post("/test/hints", json={"hold": True})).status_code == 200
    try:
        waiting = [await solo(server, rules) for _ in range(3)]
        for _, c in waiting:
            await drive(server, (c,), c.my_turn)
            await c.send({"type": "hint", "ref": "wait"})
        for _ in range(600):
            if (await counters(server))["hints_pending"] == 3:
                break
            await asyncio.sleep(0.05)
        assert (await counters(server))["hints_pending"] == 3
        _, late = await solo(server, rules)
        await drive(server, (late,), late.my_turn)
        await late.send({"type": "hint", "ref": "late"})
        err = await late.next_error()
        assert err["code"] == "rate_limited" and err["ref"] == "late"
        _, host = await solo(server, rules, bots="medium")  # its bots think in threads

        def bot_moves() -> int:
            return sum(1 for m in host.messages if m["type"] == "event" and m["event"]["kind"] in ("call", "play") and m["event"]["seat"] != 0)

        await drive(server, (host,), lambda: bot_moves() >= 3, players=(host,), seconds=1)
        assert (await counters(server))["hints_pending"] == 3
        assert not any(hints_of(c) for _, c in waiting)
    finally:
        await http_of(server).post("/test/hints", json={"hold": False})
    for _, c in waiting:
        await c.wait(lambda c: any(m["type"] == "hint" for m in c.messages), timeout=60)
        assert [m["ref"] for m in hints_of(c)] == ["wait"]


async def test_a_start_loads_no_stored_table_and_tables_everyone_left_are_abandoned(
    make_server: Callable[..., Server],
) -> None:
    server = make_server(DRIVEN)
    tables = [server.create(rules=QUICK, bots="random", name=f"P{i}", play_now=True) for i in range(30)]
    lobby = server.create(rules=QUICK, bots="random", name="L")
    _, a = await solo(server, QUICK)
    v = a.v  # (the clock is not moved here: every stored entry is older than the next process's start)
    assert v > 0
    await a.close()
    server.stop()

    env = DRIVEN | {"CALLBREAK_ABANDON_AFTER": "600", "CALLBREAK_LOBBY_TTL": "1800", "CALLBREAK_SWEEP_EVERY": "15"}
    again = make_server(env, db=server.db)
    assert again.get("/healthz").json()["tables"] == 0
    assert (await public(again, a.table))["table"]["v"] == v  # asked for: loaded as it was
    assert (await counters(again))["loaded"] == [a.table]
    # a player comes back and leaves; nobody comes back to the others
    back = Client(again, a.table, a.token)
    await back.connect()
    await back.wait(lambda c: any(m["type"] == "snapshot" for m in c.messages))
    await back.close()
    await advance(again, 300 + 15)
    assert (await counters(again))["loaded"] == []  # nobody here: out of memory, still unfinished
    await advance(again, 300)
    # the sweeps abandoned every table nobody came back to, loading none for good
    assert (await counters(again))["loaded"] == []
    for t in [a.table, *(str(m["table"]) for m in tables[:3])]:
        assert (await public(again, t))["table"]["status"] == "abandoned"
    assert (await public(again, str(lobby["table"])))["table"]["status"] == "lobby"
    await advance(again, 1800 - 615)  # the lobby's time (from its creation, in the first process)
    assert (await public(again, str(lobby["table"])))["table"]["status"] == "expired"
