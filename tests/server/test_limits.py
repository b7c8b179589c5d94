"""What a client can cost the server, in-process on a `ManualClock`: bytes, not characters; a
refused message changes nothing; catch-up costs what was missed; an endless table nobody plays
ends; a connection that falls behind is dropped and its socket aborted."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from callbreak import Ruleset
from callbreak.server.clock import ManualClock
from callbreak.server.config import ServerConfig
from callbreak.server.conn import TOO_SLOW, Conn
from callbreak.server.hub import Hub
from callbreak.server.table import IDLE_ROUNDS

from .inprocess import Seat, hub_clock, run_until, start_hub, until

__all__ = ["hub_clock"]  # the fixture

RULES = Ruleset.from_dict({"preset": "quick", "rounds": 3, "call_seconds": 30, "card_seconds": 15})


async def test_the_message_limit_counts_utf8_bytes(hub_clock: tuple[Hub, ManualClock]) -> None:
    hub, _ = hub_clock
    t, tokens = hub.create_table(RULES, "random", "A", play_now=True)
    a = Seat(hub, t.id, tokens[0])
    await a.hello()
    # 1,400 characters, 4,200 bytes of UTF-8: over the 4,096-byte limit
    euros = '{"type":"ping","ref":"' + "€" * 1400 + '"}'
    assert len(euros) < 4096 < len(euros.encode())
    (err,) = await a.send(euros)
    assert err["type"] == "error" and err["code"] == "too_large"
    # the same length in ASCII is read: refused for its over-long ref (at most 64), not its size
    (err,) = await a.send('{"type":"ping","ref":"' + "e" * 1400 + '"}')
    assert err["type"] == "error" and err["code"] == "bad_message"
    (pong,) = await a.send('{"type":"ping","ref":"' + "e" * 64 + '","pad":"' + "p" * 1400 + '"}')
    assert pong["type"] == "pong" and pong["ref"] == "e" * 64


async def _on_autoplay(hub: Hub, clock: ManualClock, rules: Ruleset = RULES) -> tuple[Any, Seat]:
    """A solo table whose player let two turns run out: a bot plays the seat."""
    t, tokens = hub.create_table(rules, "random", "Away", play_now=True)
    a = Seat(hub, t.id, tokens[0])
    await a.hello()
    await run_until(clock, lambda: t.state.autoplay[0] is not None)
    return t, a


async def test_a_refused_message_from_a_seat_on_autoplay_changes_nothing(hub_clock: tuple[Hub, ManualClock]) -> None:
    hub, clock = hub_clock
    t, a = await _on_autoplay(hub, clock)
    # an out-of-turn play, a bad card, a call while cards are played: each refused, nothing changed
    await run_until(clock, lambda: t.state.to_act not in (0, None) and t.state.match is not None and t.state.match.round.phase == "playing")
    a.read()
    for msg, code in (
        ({"type": "play", "card": "AS"}, "not_your_turn"),
        ({"type": "call", "call": 3}, "not_your_turn"),
    ):
        v, entries = t.state.v, t.state.entries
        (err,) = await a.send(msg)
        assert err["code"] == code and t.state.v == v and t.state.entries == entries
        assert t.state.autoplay[0] == "timeout"
    await run_until(clock, lambda: t.state.to_act == 0 and t.state.match is not None and t.state.match.round.phase == "playing")
    a.read()
    v, entries = t.state.v, t.state.entries
    (err,) = await a.send({"type": "play", "card": "ZZ"})
    assert err["code"] == "bad_card" and t.state.v == v and t.state.entries == entries and t.state.autoplay[0] == "timeout"
    # a legal card is accepted and gives the seat back to the player (after the card)
    card = t.state.match.view(0).legal_cards[0]  # type: ignore[union-attr]
    got = await a.send({"type": "play", "card": str(card)})
    assert t.state.autoplay[0] is None
    kinds = [m["event"]["kind"] for m in got if m["type"] == "event"]
    assert kinds[0] == "play" and "autoplay" in kinds


async def test_a_play_after_the_match_ended_changes_nothing(hub_clock: tuple[Hub, ManualClock]) -> None:
    hub, clock = hub_clock
    t, a = await _on_autoplay(hub, clock, RULES.replace(rounds=1))
    await run_until(clock, lambda: t.state.status == "over")
    a.read()
    v, entries = t.state.v, t.state.entries
    for msg in ({"type": "play", "card": "AS"}, {"type": "call", "call": 2}, {"type": "back"}):
        await a.send(msg)
        assert t.state.v == v and t.state.entries == entries
    assert [m["code"] for m in a.messages[-3:] if m["type"] == "error"][:2] == ["wrong_status", "wrong_status"]
    assert t.state.autoplay[0] == "timeout"


Endless = tuple[Hub, ManualClock, Any, Seat, str]


@pytest.fixture
async def endless(tmp_path: Path) -> AsyncIterator[Endless]:
    """An endless (pagat) table with fast bots whose person is connected: (hub, clock, table, seat, token)."""
    hub, clock = await start_hub(tmp_path / "db", bot_delay=0.1, between_rounds=0.5)
    try:
        t, tokens = hub.create_table(Ruleset.preset("pagat"), "random", "Here", play_now=True)
        a = Seat(hub, t.id, tokens[0])
        await a.hello()
        yield hub, clock, t, a, tokens[0]
    finally:
        await hub.shutdown()


async def test_catch_up_costs_what_was_missed_not_the_length_of_the_log(endless: Endless) -> None:
    hub, clock, t, a, token = endless
    work: dict[int, int] = {}
    for target in (100, 2000):
        await run_until(clock, lambda: t.state.v >= target and t.state.to_act == 0, (a,))  # noqa: B023
        late = Seat(hub, t.id, token)
        before = t.catchup_work
        got = await late.hello(since=t.state.v - 1)
        work[target] = t.catchup_work - before
        a.read()
        assert [m["type"] for m in got] == ["event", "synced"] and got[0]["v"] == t.state.v
        assert got[0]["state"] == a.state
        late.leave()
    assert work[100] == work[2000] == 1


async def test_an_endless_table_nobody_plays_ends_after_idle_rounds(hub_clock: tuple[Hub, ManualClock]) -> None:
    hub, clock = hub_clock
    t, a = await _on_autoplay(hub, clock, Ruleset.preset("pagat"))
    await run_until(clock, lambda: t.state.status == "over", limit=3600)
    m = t.state.match
    assert m is not None and len(m.rounds) >= IDLE_ROUNDS
    over = a.events("match_over")
    assert len(over) == 1 and over[0]["reason"] == "idle"
    # every round it played was one the seat spent on autoplay: at most IDLE_ROUNDS (+ a tie's sudden death)
    assert len(m.rounds) <= IDLE_ROUNDS + 3


async def test_an_endless_table_someone_plays_goes_on(endless: Endless) -> None:
    _, clock, t, a, _ = endless
    m = t.state.match
    assert m is not None
    await run_until(clock, lambda: len(m.rounds) >= IDLE_ROUNDS + 2, (a,))
    assert t.state.status != "over"


async def test_states_carry_a_bounded_score_history_sent_once_in_the_snapshot(endless: Endless) -> None:
    hub, clock, t, a, token = endless
    m = t.state.match
    assert m is not None
    sizes: list[int] = []
    for n in (1, 8):
        await run_until(clock, lambda: len(m.rounds) >= n and t.state.to_act == 0, (a,))  # noqa: B023
        a.read()
        last = next(raw for raw in reversed(a.raw) if '"type":"event"' in raw)
        sizes.append(len(last))
    # a state no longer grows with the rounds played (one round's cards differ: a little slack)
    assert sizes[1] < sizes[0] + 300, sizes
    assert all("round_points" not in orjson.loads(raw).get("state", {}) for raw in a.raw if '"state":{' in raw)
    # the score sheet: every finished round in the snapshot, each also a round_over event
    fresh = Seat(hub, t.id, token)
    (snap,) = await fresh.hello()
    assert snap["type"] == "snapshot"
    sheet = snap["sheet"]
    assert [r["round"] for r in sheet] == list(range(1, len(m.rounds) + 1))
    assert [r["points"] for r in sheet] == [[str(p) for p in pts] for pts in m.round_points]
    overs = a.events("round_over")
    assert [[r["calls"], r["tricks_won"], r["points"]] for r in sheet] == [[e["calls"], e["tricks_won"], e["points"]] for e in overs]


async def test_each_snapshot_carries_every_round_finished_by_then(endless: Endless) -> None:
    hub, clock, t, a, token = endless
    m = t.state.match
    assert m is not None
    for n in (1, 2, 3):
        await run_until(clock, lambda: len(m.rounds) >= n and t.state.to_act == 0, (a,))  # noqa: B023
        for _ in range(2):  # the second from the sheet rendered for the first
            s = Seat(hub, t.id, token)
            (snap,) = await s.hello()
            assert [r["round"] for r in snap["sheet"]] == list(range(1, len(m.rounds) + 1))
            assert [r["points"] for r in snap["sheet"]] == [[str(p) for p in pts] for pts in m.round_points]
            s.leave()


# --- a connection that falls behind ------------------------------------------------------------


class _Socket:
    """The socket side of a `Conn`: sends that complete only when the test lets them."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None
        self.aborted = False
        self.gate = asyncio.Event()

    async def send(self, payload: str) -> None:
        await self.gate.wait()
        self.sent.append(payload)

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)

    def abort(self) -> None:
        self.aborted = True
        self.gate.set()  # an aborted transport fails or completes the send in flight


async def test_a_connection_past_its_byte_budget_is_dropped_and_its_stuck_socket_aborted(tmp_path: Path) -> None:
    hub, _ = await start_hub(tmp_path / "db", send_buffer=10_000)
    try:
        t, tokens = hub.create_table(RULES, "random", "Slow", play_now=True)
        sock = _Socket()
        conn = hub.open(t.id, tokens[0], sock.send, sock.close, sock.abort)
        writer = asyncio.get_running_loop().create_task(conn.writer())
        conn.push("x" * 4_000)
        await until(lambda: conn.queued_bytes == 0)  # the writer took it and is stuck sending it
        conn.push("€" * 2_000)  # 6,000 bytes queued (2,000 characters)
        assert not conn.closed and conn.queued_bytes == 6_000
        conn.push("y" * 4_001)  # past 10,000 bytes queued: dropped at once
        assert conn.closed and sock.aborted and conn.queued_bytes == 0
        await asyncio.wait_for(writer, 5)
        assert sock.closed == (TOO_SLOW, "too far behind: reconnect to catch up")
        assert "€" * 2_000 not in sock.sent and "y" * 4_001 not in sock.sent
    finally:
        await hub.shutdown()


async def test_a_closed_connection_flushes_then_closes_and_is_aborted_at_the_close_timeout(tmp_path: Path) -> None:
    hub, clock = await start_hub(tmp_path / "db")
    try:
        t, tokens = hub.create_table(RULES, "random", "Bye", play_now=True)
        ok, stuck = _Socket(), _Socket()
        ok.gate.set()
        conns: list[Conn] = []
        for s in (ok, stuck):
            c = hub.open(t.id, tokens[0], s.send, s.close, s.abort)
            conns.append(c)
            asyncio.get_running_loop().create_task(c.writer())
            c.push("last words")
            c.close()
        await until(lambda: ok.closed is not None)
        assert ok.sent == ["last words"] and ok.closed == (1000, "") and not ok.aborted
        assert stuck.sent == [] and not stuck.aborted
        clock.advance(ServerConfig().close_timeout - 0.01)
        assert not stuck.aborted
        clock.advance(0.01)  # the close timeout: whatever is still open is aborted
        assert stuck.aborted
        # a connection the peer closed first has nothing left to abort
        peer = _Socket()
        c = hub.open(t.id, tokens[0], peer.send, peer.close, peer.abort)
        hub.gone(c)
        clock.advance(ServerConfig().close_timeout)
        assert c.closed and not peer.aborted
    finally:
        await hub.shutdown()
