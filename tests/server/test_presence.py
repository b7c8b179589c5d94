"""Spectators come and go without costing every other connection a message, and a closed
connection leaves nothing behind in the hub."""

from __future__ import annotations

from typing import Any

from callbreak import Ruleset
from callbreak.server.broker import channel
from callbreak.server.clock import ManualClock
from callbreak.server.hub import Hub

from .inprocess import Seat, hub_clock

__all__ = ["hub_clock"]  # the fixture

RULES = Ruleset.from_dict({"preset": "quick", "rounds": 1, "call_seconds": 300, "card_seconds": 300})


def tables_told(seats: list[Seat]) -> list[dict[str, Any]]:
    for s in seats:
        s.read()
    return [m for s in seats for m in s.messages if m["type"] == "table"]


async def test_spectators_arriving_are_told_once_a_second_not_once_each(hub_clock: tuple[Hub, ManualClock]) -> None:
    hub, clock = hub_clock
    t, tokens = hub.create_table(RULES, "random", "Host")  # in the lobby: no events meanwhile
    host = Seat(hub, t.id, tokens[0])
    await host.hello()
    watchers: list[Seat] = []
    for _ in range(200):
        w = Seat(hub, t.id)
        await w.hello()
        watchers.append(w)
    # 200 arrivals within a second: nobody has been sent a message about them yet
    assert tables_told([host, *watchers]) == []
    assert watchers[-1].info is not None and watchers[-1].info["spectators"] == 200
    clock.advance(1.0)
    told = tables_told([host, *watchers])
    assert len(told) == 201 and {m["table"]["spectators"] for m in told} == {200}
    # half of them leave: again one message each, a second later
    for w in watchers[:100]:
        w.leave()
    rest = [host, *watchers[100:]]
    assert len(tables_told(rest)) == 101  # nothing new yet
    clock.advance(1.0)
    for s in rest:
        s.read()
        assert [m["table"]["spectators"] for m in s.messages if m["type"] == "table"] == [200, 100]
    # seconds with nobody arriving or leaving: nothing
    clock.advance(5.0)
    assert len(tables_told(rest)) == 2 * 101
    # a player's own connection is still told at once
    second = Seat(hub, t.id, tokens[0])
    await second.hello()
    assert any(m["type"] == "table" for m in host.read())


def sizes(hub: Hub, table: str) -> dict[str, Any]:
    t = hub.tables[table]
    return {
        "tables": len(hub.tables),
        "sockets_per_ip": dict(hub.sockets_per_ip),
        "awaiting_hello": len(hub.awaiting_hello),
        "conns": {s: len(c) for s, c in t.conns.items()},
        "connected": list(t.connected),
        "subscribers": [hub.broker.subscribers(channel(table, s)) for s in (-1, 0, 1, 2, 3)],
    }


async def test_connections_opened_and_closed_leave_nothing_behind(hub_clock: tuple[Hub, ManualClock]) -> None:
    hub, clock = hub_clock
    t, tokens = hub.create_table(RULES, "random", "Host", play_now=True)
    host = Seat(hub, t.id, tokens[0])
    await host.hello()
    clock.advance(1.0)
    before = sizes(hub, t.id)
    timers = clock.pending()
    for i in range(300):
        ip = f"10.0.{i % 7}.1"
        hub.admit(ip)
        kind = i % 3
        s = Seat(hub, t.id, tokens[0] if kind == 0 else None)
        if kind != 2:  # some never say hello
            await s.hello()
        s.leave()
        hub.release(ip)
    clock.advance(1.0)
    assert sizes(hub, t.id) == before
    assert clock.pending() == timers
