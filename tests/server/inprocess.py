"""The server's `Hub` in this process on a `ManualClock`: timers run when a test moves time.

Real tables, real SQLite, the real message handling and broker; only time is the
test's.  A `Seat` is a connection whose outgoing queue the test reads.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from callbreak.cards import Card
from callbreak.round import lowest_action
from callbreak.server.clock import ManualClock
from callbreak.server.config import ServerConfig
from callbreak.server.hub import Hub
from callbreak.server.live import LiveTable

#: the production delays (seconds): with a manual clock there is no need to shorten them
CONFIG = {
    "bot_delay": 0.7,
    "forced_delay": 0.6,
    "grace": 20.0,
    "between_rounds": 10.0,
    "create_rate": 0.0,
    "msg_rate": 0.0,
    "gc_every": 0.0,
    # a test reads a connection's queue when it likes: no connection is dropped for falling behind
    "send_buffer": 1 << 28,
    # hints in this process's threads (a real server's child processes: test_faults_process)
    "hint_processes": False,
}


async def start_hub(db: Path, **overrides: Any) -> tuple[Hub, ManualClock]:
    clock = ManualClock()
    hub = Hub(ServerConfig(db=str(db), **(CONFIG | overrides)), clock=clock)
    await hub.startup()
    return hub, clock


@pytest.fixture
async def hub_clock(tmp_path: Path) -> AsyncIterator[tuple[Hub, ManualClock]]:
    hub, clock = await start_hub(tmp_path / "callbreak.db")
    yield hub, clock
    await hub.shutdown()


class Seat:
    """One connection to a table (``token`` None: a spectator), read by the test."""

    def __init__(self, hub: Hub, table: str, token: str | None = None) -> None:
        self.hub = hub
        self.conn = hub.open(table, token, self._never)
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.state: dict[str, Any] | None = None
        self.info: dict[str, Any] | None = None

    async def _never(self, payload: str) -> None:
        raise AssertionError("the test reads the queue; no writer runs")

    def read(self) -> list[dict[str, Any]]:
        """The messages queued since the last read."""
        new: list[dict[str, Any]] = []
        for raw in self.conn.take():
            self.raw.append(raw)
            msg = orjson.loads(raw)
            new.append(msg)
            if "state" in msg:
                self.state = msg["state"]
            if isinstance(msg.get("table"), dict):
                self.info = msg["table"]
        self.messages += new
        return new

    async def send(self, msg: dict[str, Any] | str) -> list[dict[str, Any]]:
        await self.hub.on_message(self.conn, msg if isinstance(msg, str) else orjson.dumps(msg).decode())
        return self.read()

    async def hello(self, since: int = 0) -> list[dict[str, Any]]:
        return await self.send({"type": "hello", "since": since})

    def leave(self) -> None:
        """The client goes away (its socket's disconnect, as the app reports it)."""
        self.hub.gone(self.conn)

    def events(self, kind: str) -> list[dict[str, Any]]:
        self.read()
        return [m["event"] for m in self.messages if m["type"] == "event" and m["event"]["kind"] == kind]

    def my_turn(self) -> bool:
        self.read()
        return (
            self.info is not None
            and self.info["status"] == "playing"
            and self.state is not None
            and self.state["to_act"] == self.conn.seat
        )


async def run_until(clock: ManualClock, done: Callable[[], bool], players: tuple[Seat, ...] = (), limit: float = 36000) -> None:
    """Move time on in small steps (players act on their turns, first legal action) until ``done()``."""
    end = clock.monotonic() + limit
    while not done():
        assert clock.monotonic() < end, "not done in time"
        for p in players:
            if p.my_turn() and p.state is not None:
                s = p.state
                await p.send({"type": "call", "call": s["legal_calls"][0]} if s["phase"] == "calling" else {"type": "play", "card": s["legal_cards"][0]})
        clock.advance(0.1)


async def until(done: Callable[[], bool], real_limit: float = 60.0) -> None:
    """Wait (real time, the clock standing still) for ``done()``."""
    loop = asyncio.get_running_loop()
    end = loop.time() + real_limit
    while not done():
        assert loop.time() < end, "not done in time"
        await asyncio.sleep(0.01)


def next_action(t: LiveTable) -> dict[str, Any]:
    """The log entry of the lowest legal call or card of the seat to act at ``t``."""
    st = t.state
    assert st.match is not None and st.to_act is not None
    seat = st.to_act
    action = lowest_action(st.match.view(seat))
    if isinstance(action, Card):
        return {"t": "play", "seat": seat, "card": str(action)}
    return {"t": "call", "seat": seat, "call": action}
