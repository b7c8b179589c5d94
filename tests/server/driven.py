"""A real `callbreak serve` process whose clock the test moves (``CALLBREAK_TEST_HOOKS=1``).

Its timers use the production delays and fire only when `step` moves time (``POST
/test/clock``); `step` then waits until every client has read its table up to the version the
server reported, so a test sees each move's whole effect and never races a timer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import httpx
import websockets

from .conftest import Client, Server

#: production delays (seconds): with a driven clock there is no need to shorten them
DRIVEN = {
    "CALLBREAK_TEST_HOOKS": "1",
    "CALLBREAK_BOT_DELAY": "0.7",
    "CALLBREAK_FORCED_DELAY": "0.6",
    "CALLBREAK_GRACE": "20",
    "CALLBREAK_BETWEEN_ROUNDS": "10",
    "CALLBREAK_GC_EVERY": "0",
}


_clients: dict[tuple[int, int], httpx.AsyncClient] = {}


def http_of(server: Server) -> httpx.AsyncClient:
    """One HTTP client per server and event loop (making a client per request costs ~0.2 s)."""
    key = (id(server), id(asyncio.get_running_loop()))
    client = _clients.get(key)
    if client is None:
        client = _clients[key] = httpx.AsyncClient(base_url=server.base, timeout=60)
    return client


async def advance(server: Server, seconds: float) -> dict[str, Any]:
    """Move the server's clock on by ``seconds``; the clock and each loaded table's version."""
    r = await http_of(server).post("/test/clock", json={"advance": seconds})
    assert r.status_code == 200, r.text
    return dict(r.json())


async def counters(server: Server) -> dict[str, Any]:
    r = await http_of(server).get("/test/counters")
    assert r.status_code == 200, r.text
    return dict(r.json())


async def public(server: Server, table: str) -> dict[str, Any]:
    """``GET /api/tables/ID``: the table as a spectator sees it."""
    r = await http_of(server).get(f"/api/tables/{table}")
    assert r.status_code == 200, r.text
    return dict(r.json())


async def step(server: Server, clients: tuple[Client, ...], seconds: float) -> dict[str, Any]:
    """`advance`, then wait until each open client has read its table up to the reported version."""
    moved = await advance(server, seconds)
    for c in clients:
        v = moved["tables"].get(c.table)
        if v is not None and not c.closed:
            await c.wait(lambda c, v=v: c.v >= v, timeout=30)
    return moved


async def drive(
    server: Server,
    clients: tuple[Client, ...],
    done: Callable[[], bool],
    players: tuple[Client, ...] = (),
    seconds: float = 1.0,
    limit: float = 36_000.0,
) -> None:
    """Move time on ``seconds`` at a time (``players`` take each turn of theirs with their first
    legal action, waiting for its event) until ``done()``; ``limit``: server seconds at most."""
    moved = 0.0
    while not done():
        assert moved < limit, "not done in time"
        for p in players:
            if p.my_turn():
                v = p.v
                with contextlib.suppress(websockets.ConnectionClosed):
                    await p.act_once()
                await p.wait(lambda c, v=v: c.v > v, timeout=30)
        await step(server, clients, seconds)
        moved += seconds
        await asyncio.sleep(0)
