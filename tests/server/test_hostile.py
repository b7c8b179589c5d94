"""Hostile clients against a real `callbreak serve` process: what they cost it stays bounded."""

from __future__ import annotations

import asyncio
import time

import orjson

from .conftest import Client, Server
from .rawws import RawSocket, frame


async def _finished_table(server: Server) -> tuple[dict[str, object], Client]:
    """A table whose long match (20 rounds) a player let the bots finish."""
    made = server.create(rules={"preset": "quick", "rounds": 20}, bots="random", name="Gone", play_now=True)
    a = Client(server, str(made["table"]), str(made["token"]))
    await a.connect()
    await a.wait(lambda c: c.info is not None and c.info["status"] == "over", timeout=120)
    return made, a


def _connections(server: Server) -> int:
    return int(server.get("/healthz").json()["connections"])


async def test_clients_that_never_read_are_dropped_and_the_server_still_answers(make_server) -> None:  # type: ignore[no-untyped-def]
    """40 sockets that ask for a long catch-up again and again and never read: the server drops
    every one (holding none of what it could not send) and a player reconnecting catches up.
    What they cost it in memory and in other tables' latency is measured by
    ``benchmarks/hostile.py`` (figures in the README), not bounded here."""
    # turns run out in 0.15 s, then bots play the seat at once: a long log in a few seconds
    server: Server = make_server({"CALLBREAK_TIME_SCALE": "0.01", "CALLBREAK_BOT_DELAY": "0"})
    made, a = await _finished_table(server)
    since = a.v - 40  # 40 missed events: about 100 KB of catch-up per hello
    # a reading client gets that catch-up in full (and warms the path up)
    warm = Client(server, str(made["table"]), str(made["token"]))
    warm.v = since
    await warm.connect()
    await warm.wait(lambda c: any(m["type"] == "synced" for m in c.messages))
    assert [m["v"] for m in warm.messages if m["type"] == "event"] == list(range(since + 1, a.v + 1))
    await warm.close()
    base_conns = _connections(server)

    path = f"/ws/{made['table']}?token={made['token']}"
    hello = orjson.dumps({"type": "hello", "since": since}).decode()
    socks = [RawSocket(server.port, path) for _ in range(40)]
    try:
        for _ in range(20):  # 20 hellos each: 2 MB of catch-up per socket if it were all kept
            for s in socks:
                s.send(hello)
        deadline = time.monotonic() + 30
        while _connections(server) > base_conns and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        # every never-reading socket was dropped by the server, none is held
        assert _connections(server) == base_conns
        assert all(s.ended(timeout=15) for s in socks)
    finally:
        for s in socks:
            s.close()
    # and it still answers: a reconnecting player catches up
    again = Client(server, str(made["table"]), str(made["token"]))
    again.v = since
    await again.connect()
    await again.wait(lambda c: any(m["type"] == "synced" for m in c.messages), timeout=30)
    for c in (a, again):
        await c.close()


async def test_a_client_that_falls_behind_is_told_why_and_can_catch_up(make_server) -> None:  # type: ignore[no-untyped-def]
    server: Server = make_server({"CALLBREAK_TIME_SCALE": "0.01", "CALLBREAK_BOT_DELAY": "0"})
    made, a = await _finished_table(server)
    since = a.v - 40
    # four catch-ups asked at once (one read): more than its 256 KiB send buffer, before any is
    # sent: the server drops the client with a close code and a reason
    slow = RawSocket(server.port, f"/ws/{made['table']}?token={made['token']}")
    hello = frame(orjson.dumps({"type": "hello", "since": since}).decode())
    slow.sock.sendall(hello * 4)
    got = b""
    slow.sock.settimeout(10)
    while chunk := slow.sock.recv(65536):
        got += chunk
    slow.close()
    assert got[0] == 0x88, got[:40]  # nothing but the close frame: code 4008, then the reason
    length = got[1]
    payload = got[2 : 2 + length]
    assert int.from_bytes(payload[:2], "big") == 4008 and payload[2:] == b"too far behind: reconnect to catch up"
    # it reconnects and catches up
    again = Client(server, str(made["table"]), str(made["token"]))
    again.v = since
    await again.connect()
    await again.wait(lambda c: any(m["type"] == "synced" for m in c.messages), timeout=10)
    assert [m["v"] for m in again.messages if m["type"] == "event"] == list(range(since + 1, a.v + 1))
    for c in (a, again):
        await c.close()
