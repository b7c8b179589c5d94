"""Tables nobody comes back to: a start loads no stored table until it is asked for, an
unfinished table every player left is abandoned after ``abandon_after`` (its log kept), and
the process-wide garbage collector is the ``serve`` command's business, not the hub's."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

from callbreak import Ruleset
from callbreak.server.table import ABANDONED, BETWEEN, EXPIRED, PLAYING

from .inprocess import Seat, start_hub

RULES = Ruleset.from_dict({"preset": "quick", "rounds": 1, "call_seconds": 30, "card_seconds": 30})


async def test_starting_the_hub_leaves_the_garbage_collector_alone(tmp_path: Path) -> None:
    thresholds, frozen = gc.get_threshold(), gc.get_freeze_count()
    hub, _ = await start_hub(tmp_path / "db.sqlite", gc_every=300.0)
    try:
        assert gc.get_threshold() == thresholds and gc.get_freeze_count() == frozen
    finally:
        await hub.shutdown()


async def test_a_start_loads_no_stored_table_until_one_is_asked_for(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    hub, clock = await start_hub(db)
    made = [hub.create_table(RULES, "random", f"P{i}", play_now=True) for i in range(40)]
    lobbies = [hub.create_table(RULES, "random", f"L{i}")[0].id for i in range(10)]
    first = Seat(hub, made[0][0].id, made[0][1][0])
    await first.hello()
    clock.advance(30)  # a turn runs out, a bot or two move
    v = made[0][0].state.v
    assert v > 2
    await hub.shutdown()

    hub, clock = await start_hub(db)
    try:
        assert len(hub.store.unfinished()) == 50
        assert hub.tables == {}
        again = Seat(hub, made[0][0].id, made[0][1][0])  # asked for: loaded, as it was
        assert list(hub.tables) == [made[0][0].id]
        (snap,) = await again.hello()
        assert snap["type"] == "snapshot" and snap["v"] == v and snap["table"]["status"] == PLAYING
        assert hub.get(lobbies[0]) is not None and len(hub.tables) == 2
    finally:
        await hub.shutdown()


async def test_a_table_every_player_left_is_abandoned_on_time(tmp_path: Path) -> None:
    hub, clock = await start_hub(tmp_path / "db.sqlite", abandon_after=600.0, sweep_every=15.0)
    try:
        t, tokens = hub.create_table(RULES, "random", "Asha", play_now=True)
        long = Ruleset.from_dict({"preset": "quick", "rounds": 10, "call_seconds": 300, "card_seconds": 300})
        kept, kept_tokens = hub.create_table(long, "random", "Bimal", play_now=True)
        a = Seat(hub, t.id, tokens[0])
        b = Seat(hub, kept.id, kept_tokens[0])
        await a.hello()
        await b.hello()
        a.leave()  # Asha goes; Bimal stays (his turns time out and a bot plays for him)
        clock.advance(600 - 16)
        assert hub.store.status(t.id) == PLAYING  # (out of memory after unload_after, not over)
        clock.advance(16 + 15)
        assert hub.store.status(t.id) == ABANDONED and t.id not in hub.tables
        assert kept.state.status in (PLAYING, BETWEEN) and kept.id in hub.tables
        # the log is kept, ending with the abandonment; it is no longer an unfinished table
        loaded = hub.store.load(t.id)
        assert loaded is not None and loaded[1][-1] == {"t": "abandon"}
        assert t.id not in hub.store.unfinished() and kept.id in hub.store.unfinished()
        # Asha coming back finds it abandoned
        back = Seat(hub, t.id, tokens[0])
        (snap,) = await back.hello()
        assert snap["table"]["status"] == ABANDONED and snap["table"]["deadline"] is None
        (err,) = [m for m in await back.send({"type": "call", "call": 1}) if m["type"] == "error"]
        assert err["code"] == "wrong_status"
    finally:
        await hub.shutdown()


async def test_stored_tables_nobody_asks_for_are_abandoned_or_expired_without_a_start_loading_them(
    tmp_path: Path,
) -> None:
    db = tmp_path / "db.sqlite"
    hub, clock = await start_hub(db)
    playing = [hub.create_table(RULES, "random", f"P{i}", play_now=True)[0].id for i in range(5)]
    lobby = hub.create_table(RULES, "random", "L")[0].id
    await hub.shutdown()

    hub, clock = await start_hub(db, abandon_after=600.0, lobby_ttl=900.0, sweep_every=15.0)
    try:
        assert hub.tables == {}
        clock.advance(600 + 15)
        statuses = {tid: hub.store.status(tid) for tid in [*playing, lobby]}
        assert statuses == {**dict.fromkeys(playing, ABANDONED), lobby: "lobby"}
        clock.advance(300)
        assert hub.store.status(lobby) == EXPIRED
        assert hub.tables == {} and hub.store.unfinished() == []
    finally:
        await hub.shutdown()


def test_the_serve_command_tunes_the_garbage_collector() -> None:
    code = (
        "import gc; from callbreak.commands.serve import tune_gc; t = gc.get_threshold(); tune_gc(300.0); "
        "print(gc.get_threshold()[2] > 10**6, gc.get_freeze_count() > 0, t == gc.get_threshold())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["True", "True", "False"]


def test_the_serve_command_freezes_the_kernel_its_warm_up_loads() -> None:
    """What loading the hard bot's kernel brings after the start (numba's types and compiled
    functions, tens of thousands of objects) is frozen too: a full collection no longer visits it."""
    code = (
        "import gc; from callbreak.commands.serve import freeze_more, tune_gc; "
        "from callbreak.bots.warmup import Warmup; tune_gc(300.0); start = gc.get_freeze_count(); "
        "w = Warmup(lambda said: None); w.start(then=freeze_more); assert w.wait(900), w.error; "
        "print(gc.get_freeze_count() - start > 20000, len(gc.get_objects()) < 5000)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=960, check=True)
    assert out.stdout.split() == ["True", "True"], out.stderr
