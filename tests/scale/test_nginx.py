"""A match behind Debian's nginx, on two `callbreak serve` processes: the player's sockets land on
either process, and ``kill -9`` of the table's owner mid-match costs no accepted action."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
import redis

from ..server.conftest import Client, play_until
from .procs import Nginx, ScaledServer, start_all

QUICK1 = {"preset": "quick", "rounds": 1, "card_seconds": 60, "call_seconds": 60}


class Front:
    """nginx's address, for the test client (which reads ``ws_base``)."""

    def __init__(self, nginx: Nginx) -> None:
        self.base = nginx.base
        self.ws_base = nginx.ws_base


@pytest.fixture
def pair(pg_url: str, redis_server: str, ns: str) -> Iterator[tuple[ScaledServer, ScaledServer, Nginx]]:
    a = ScaledServer(pg_url, redis_server, ns)
    b = ScaledServer(pg_url, redis_server, ns)
    start_all([a, b])
    nginx = Nginx([a.port, b.port])
    yield a, b, nginx
    nginx.stop()
    for s in (a, b):
        s.stop()


def forwarded(server: ScaledServer) -> float:
    text = httpx.get(server.base + "/metrics", timeout=10).text
    m = re.search(r'^callbreak_forwarded_total\{kind="ws"\} (\S+)$', text, re.M)
    return float(m.group(1)) if m else 0.0


async def test_a_match_behind_nginx_survives_kill_9_of_its_owner(
    pair: tuple[ScaledServer, ScaledServer, Nginx], redis_server: str, ns: str
) -> None:
    a, b, nginx = pair
    front = Front(nginx)
    made = httpx.post(nginx.base + "/api/tables", json={"rules": QUICK1, "bots": "random", "name": "Asha", "play_now": True}).json()
    owner_id = redis.Redis.from_url(redis_server).get(f"{ns}:lease:{made['table']}")
    assert owner_id is not None  # the process that made it took its lease at once
    owner, other = (a, b) if owner_id.decode().split("-")[-2] == str(a.proc.pid) else (b, a)  # type: ignore[union-attr]
    p = Client(front, made["table"], made["token"])  # type: ignore[arg-type]
    # reconnect after every few actions: nginx spreads the sockets over both processes
    for _ in range(12):
        await p.connect()
        await p.wait(lambda c: c.info is not None)
        target = p.v + 4
        await play_until([p], lambda t=target: p.v >= t, timeout=30)  # type: ignore[misc]
        await p.close()
        if forwarded(other) >= 1:
            break
    # the player's actions went in through both: sockets on `other` were carried to the owner
    assert forwarded(other) >= 1 and forwarded(owner) == 0
    await p.connect()
    await play_until([p], lambda: p.my_turn() and p.state is not None and p.state["phase"] == "playing", timeout=30)
    seen_v = p.v
    owner.kill()
    await p.wait(lambda c: c.closed, timeout=10)
    start = len(p.messages)
    for _ in range(50):  # the page's own reconnection: the same client, its `since`
        try:
            await p.connect()
            break
        except OSError:
            continue
    await p.wait(lambda c: any(m["type"] == "synced" for m in c.messages[start:]), timeout=20)
    caught_up = p.messages[start:]
    synced = next(m for m in caught_up if m["type"] == "synced")
    assert synced["v"] == seen_v and not any(m["type"] == "snapshot" for m in caught_up)
    await play_until([p], lambda: p.info is not None and p.info["status"] == "over", timeout=60)
    assert p.state is not None and p.state["places"] is not None
    events = [m["v"] for m in p.messages if m["type"] == "event"]
    assert sorted(set(events)) == list(range(min(events), max(events) + 1))  # no gap anywhere
    assert "callbreak_lease_moves_total 1.0" in httpx.get(other.base + "/metrics").text
    await p.close()
