"""``/readyz`` and ``/metrics`` on the embedded default (SQLite, one process: no PostgreSQL or Redis)."""

from __future__ import annotations

from collections.abc import Callable

from ..server.conftest import Client, Server, play_until


async def test_the_embedded_server_is_ready_and_counts_what_it_does(make_server: Callable[..., Server]) -> None:
    server = make_server()
    r = server.get("/readyz")
    assert r.status_code == 200 and r.json() == {"ready": True, "why": "ok"}
    made = server.create(rules={"preset": "quick", "rounds": 1}, bots="random", name="Asha", play_now=True)
    p = Client(server, made["table"], made["token"])
    await p.connect()
    await play_until([p], lambda: p.v >= 10, timeout=30)
    text = server.get("/metrics").text
    assert "callbreak_live_tables 1.0" in text and "callbreak_connections 1.0" in text
    played = [line for line in text.splitlines() if line.startswith("callbreak_actions_total ")]
    assert played and float(played[0].split()[1]) >= 1
    assert "callbreak_store_append_seconds_count" in text and "callbreak_lease_moves_total 0.0" in text
    await p.close()
