"""Hints cost one computation per seat and decision, in their own small pool: a flood of
hint requests neither multiplies the work nor delays a bot."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from callbreak import Ruleset
from callbreak.server.clock import ManualClock
from callbreak.server.hub import Hub

from .inprocess import Seat, start_hub, until

RULES = Ruleset.from_dict({"preset": "quick", "rounds": 1, "call_seconds": 300, "card_seconds": 300})


async def settle(clock: ManualClock, done: Callable[[], bool], step: float = 0.1, real_limit: float = 60.0) -> None:
    """Move the manual clock on in steps, letting the bots' threads finish, until ``done()``."""
    loop = asyncio.get_running_loop()
    end = loop.time() + real_limit
    while not done():
        assert loop.time() < end, "not done in time"
        clock.advance(step)
        await asyncio.sleep(0.01)


async def at_my_turn(hub: Hub, clock: ManualClock, bots: str = "random") -> tuple[Any, Seat]:
    """A started table whose seat 0 (a person) is to act."""
    t, tokens = hub.create_table(RULES, bots, "Solo", play_now=True)
    p = Seat(hub, t.id, tokens[0])
    await p.hello()
    await settle(clock, p.my_turn)
    return t, p


def hints_of(p: Seat) -> list[dict[str, Any]]:
    p.read()
    return [m for m in p.messages if m["type"] == "hint"]


async def test_many_hint_requests_for_one_decision_compute_it_once(tmp_path: Path) -> None:
    hub, clock = await start_hub(tmp_path / "db.sqlite")
    try:
        t, a = await at_my_turn(hub, clock)
        b = Seat(hub, t.id, a.conn.table.state.seats[0].token)  # the same seat on a second device
        await b.hello()
        before = hub.hints.computed
        asks = [
            hub.on_message(conn, orjson.dumps({"type": "hint", "ref": i}).decode())
            for i in range(12)
            for conn in (a.conn, b.conn)
        ]
        await asyncio.gather(*asks)
        got = hints_of(a) + hints_of(b)
        assert len(got) == 24 and sorted(m["ref"] for m in got) == sorted(list(range(12)) * 2)
        assert len({orjson.dumps({k: v for k, v in m.items() if k != "ref"}) for m in got}) == 1
        assert hub.hints.computed == before + 1
        # asked again later: the same answer, no new work
        await a.send({"type": "hint"})
        assert hints_of(a)[-1]["call"] == got[0]["call"] and hub.hints.computed == before + 1
        # the next decision is worked out once more
        s = a.state
        assert s is not None
        await a.send({"type": "call", "call": s["legal_calls"][0]})
        await settle(clock, a.my_turn)
        await asyncio.gather(*(hub.on_message(a.conn, '{"type": "hint"}') for _ in range(5)))
        assert hub.hints.computed == before + 2
        # memory: one entry per seat of the table, and none once the table is unloaded
        assert len(hub.hints) == 1
        hub.hints.forget(t.id)
        assert len(hub.hints) == 0
    finally:
        await hub.shutdown()


async def test_a_bot_is_not_delayed_by_a_backlog_of_hints(tmp_path: Path) -> None:
    hub, clock = await start_hub(tmp_path / "db.sqlite", hint_workers=1, hint_queue=3)
    gate = threading.Event()
    try:
        # three people asking for hints at three tables, while the hint pool is busy
        asking = [await at_my_turn(hub, clock) for _ in range(3)]
        busy = hub.hints.executor.submit(gate.wait, 60)
        waiting = [asyncio.ensure_future(p.send({"type": "hint"})) for _, p in asking]
        await until(lambda: hub.hints.pending() == 3)
        assert not any(w.done() for w in waiting)
        # a fourth decision waits for none of them: it is refused at once
        _, late = await at_my_turn(hub, clock)
        (refused,) = [m for m in await late.send({"type": "hint", "ref": "late"}) if m["type"] == "error"]
        assert refused["code"] == "rate_limited" and refused["ref"] == "late"
        # a medium bot (thinking in a thread) moves at another table while every hint waits
        t, tokens = hub.create_table(RULES, "medium", "Host", play_now=True)
        host = Seat(hub, t.id, tokens[0])
        await host.hello()
        def bot_moves() -> list[dict[str, Any]]:
            return [e for e in host.events("call") + host.events("play") if e["seat"] != 0]

        while len(bot_moves()) < 3:
            if host.my_turn():
                s = host.state
                assert s is not None
                await host.send({"type": "call", "call": s["legal_calls"][0]})
            n = len(bot_moves())
            await settle(clock, lambda n=n: len(bot_moves()) > n or host.my_turn())
        assert hub.hints.pending() == 3 and not busy.done() and not any(w.done() for w in waiting)
        # the hints come once the pool is free
        gate.set()
        await asyncio.gather(*waiting)
        for _, p in asking:
            assert [m["type"] for m in hints_of(p)] == ["hint"]
    finally:
        gate.set()
        await hub.shutdown()


async def test_a_hint_for_a_decision_already_gone_costs_no_work(tmp_path: Path) -> None:
    hub, clock = await start_hub(tmp_path / "db.sqlite", hint_workers=1)
    gate = threading.Event()
    try:
        _, p = await at_my_turn(hub, clock)
        hub.hints.executor.submit(gate.wait, 60)
        before = hub.hints.computed
        asked = asyncio.ensure_future(hub.on_message(p.conn, '{"type": "hint", "ref": 1}'))
        await until(lambda: hub.hints.pending() == 1)  # queued behind the busy pool
        s = p.state
        assert s is not None
        await p.send({"type": "call", "call": s["legal_calls"][0]})  # the person decides first
        gate.set()
        await asked
        (err,) = [m for m in p.read() if m["type"] == "error"]
        assert err["code"] == "not_your_turn" and err["ref"] == 1
        assert hub.hints.computed == before and hub.hints.pending() == 0
    finally:
        gate.set()
        await hub.shutdown()
