"""`callbreak serve --seed N`: real server processes with a seed deal the same tables alike.

The same seed and the same tables created give the same deals and the same bot play; another
seed deals others; invites and seat tokens never come from the seed; a bad seed is refused
before the server starts.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from callbreak import Ruleset

from .conftest import Client, Server, play_until

QUICK1 = {"preset": "quick", "rounds": 1}


async def first_table(server: Server, play: bool = True) -> dict[str, Any]:
    """The server's first table, a one-round match against random bots played to its end by
    its creator (always the first legal call and card): its hand dealt, its invite and token,
    and every action of the match (the bots' calls and cards); without ``play``, the hand alone."""
    made = server.create(rules=QUICK1, bots="random", name="Asha", play_now=True)
    a = Client(server, made["table"], made["token"])
    await a.connect()
    await a.wait(lambda c: c.state is not None and len(c.state["hand"]) == 13)
    assert a.state is not None
    hand = sorted(a.state["hand"])
    if not play:
        await a.close()
        return {"hand": hand}
    await play_until([a], lambda: a.info is not None and a.info["status"] == "over")
    await a.close()
    log = server.get(f"/api/tables/{made['table']}/history?format=log").json()
    return {"hand": hand, "invite": made["invite"], "token": made["token"], "actions": log["actions"]}


async def test_the_same_seed_deals_the_same_and_bots_play_the_same(
    make_server: Callable[..., Server], tmp_path: Path
) -> None:
    one = make_server(db=tmp_path / "one.db", args=["--seed", "2026", "--process", "0"])
    two = make_server(db=tmp_path / "two.db", args=["--seed", "2026", "--process", "0"])
    other = make_server(db=tmp_path / "other.db", args=["--seed", "2027", "--process", "0"])
    other_process = make_server(db=tmp_path / "process.db", args=["--seed", "2026", "--process", "1"])
    a, b = [await first_table(s) for s in (one, two)]
    c, d = [await first_table(s, play=False) for s in (other, other_process)]
    assert len(a["hand"]) == 13 and a["hand"] == b["hand"]
    assert len(a["actions"]) == 4 + 52 and a["actions"] == b["actions"]  # every call and card, the bots' too
    assert c["hand"] != a["hand"] and d["hand"] != a["hand"]  # another seed, another process: other deals
    # secrets stay secret: never from the seed
    assert a["invite"] != b["invite"] and a["token"] != b["token"]
    assert "SEEDED DEALS (--seed 2026" in one.stop()


async def test_a_test_starts_the_stream_again(make_server: Callable[..., Server], tmp_path: Path) -> None:
    """``POST /test/seed`` (a seeded server only): the next table deals as the server's first."""
    server = make_server(db=tmp_path / "seeded.db", env={"CALLBREAK_SEED": "9", "CALLBREAK_TEST_RESEED": "1"})
    first = await first_table(server)
    assert server.post("/test/seed", {"seed": 3}).status_code == 200  # another stream meanwhile
    server.create(rules=QUICK1, bots="random", name="Bimal", play_now=True)
    r = server.post("/test/seed", {"seed": 9})
    assert r.status_code == 200 and r.json() == {"seed": 9}
    again = await first_table(server)
    assert again["hand"] == first["hand"] and again["actions"] == first["actions"]
    for bad in ({"seed": -1}, {"seed": "x"}, {"seed": 9, "more": 1}):
        r = server.post("/test/seed", bad)
        assert r.status_code == 400 and r.json()["error"] == "bad_json", bad
    # a demonstration server (seeded, no test opt-in): nobody may set its deals to a seed they know
    demo = make_server(db=tmp_path / "demo.db", env={"CALLBREAK_SEED": "9"})
    assert demo.post("/test/seed", {"seed": 5}).status_code in (404, 405)
    assert "SEEDED" in demo.stop()
    # the opt-in alone, unseeded: nothing to start again
    unseeded = make_server(db=tmp_path / "unseeded.db", env={"CALLBREAK_SEED": "", "CALLBREAK_TEST_RESEED": "1"})
    assert unseeded.post("/test/seed", {"seed": 5}).status_code in (404, 405)
    assert "SEEDED" not in unseeded.stop()


def test_a_bad_seed_is_refused_before_serving(tmp_path: Path) -> None:
    for value, says in (("-1", "not '-1'"), ("x", "not 'x'")):
        r = subprocess.run(
            [sys.executable, "-m", "callbreak", "serve", "--db", str(tmp_path / "x.db"), "--seed", value],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 2 and f"argument --seed: a whole number from 0 is needed, {says}" in r.stderr
    assert not (tmp_path / "x.db").exists()


def test_a_seeded_servers_hard_seats_search_without_a_wall_clock_cap() -> None:
    """A server started with --seed plays the same deals and bot play again: its hard seats have
    no wall-clock cap (a busy machine would cut their search elsewhere each time); a server
    without a seed keeps the cap, for a person waiting."""
    from callbreak.bots.hard import SERVING_TIME_LIMIT
    from callbreak.server.config import ServerConfig
    from callbreak.server.hub import Hub

    limits = []
    for seed in (7, None):
        hub = Hub(ServerConfig(db=":memory:", seed=seed))
        t, _ = hub.create_table(Ruleset.preset("quick"), "hard", "Asha", play_now=True)
        bot = t.autopilot.bot(1)
        limits.append(getattr(bot, "strong", bot).time_limit)
        hub.store.close()
        hub.hints.close()
    assert limits == [None, SERVING_TIME_LIMIT]
