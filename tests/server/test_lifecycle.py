"""Rematch with the same people, hand histories, past matches, lobby expiry, sudden death, pagat's open end."""

from __future__ import annotations

from pathlib import Path

import pytest

from callbreak import Match, Ruleset, notation
from callbreak.bots.names import NAMES, WRITTEN
from callbreak.server.protocol import Dealt, MatchOver, TieBreak
from callbreak.server.table import TableError, TableMeta, TableState

from .conftest import Client, Server, play_until, two_players

QUICK1 = {"preset": "quick", "rounds": 1}


def test_a_tables_bots_are_named_in_its_makers_script(server: Server) -> None:
    """A Hindi player's try: the bots were "Meena", "Dipak" on every Hindi screen, and a bot "Sita"
    could sit beside a player "सीता"."""
    devanagari = {d for d, _ in WRITTEN.values()}
    for seed_name in ("सीता", "Sita"):
        made = server.post("/api/tables", {"name": seed_name, "play_now": True, "bots": "random", "lang": "hi-IN"}).json()
        seats = server.get(f"/api/tables/{made['table']}").json()["table"]["seats"]
        bots = [s["name"] for s in seats[1:]]
        assert seats[0]["name"] == seed_name and set(bots) <= devanagari and len(set(bots)) == 3, bots
        assert "सीता" not in bots
    made = server.post("/api/tables", {"name": "সীতা", "play_now": True, "bots": "random", "lang": "bn"}).json()
    bots = [s["name"] for s in server.get(f"/api/tables/{made['table']}").json()["table"]["seats"][1:]]
    assert set(bots) <= {b for _, b in WRITTEN.values()} and "সীতা" not in bots, bots
    made = server.post("/api/tables", {"name": "Asha", "play_now": True, "bots": "random"}).json()  # no language: English
    assert {s["name"] for s in server.get(f"/api/tables/{made['table']}").json()["table"]["seats"][1:]} <= set(NAMES)


async def test_rematch_seats_the_same_people_with_new_tokens(server: Server) -> None:
    made, _, a, b, _ = await two_players(server, QUICK1, ("Asha", "Bimal"), seat=2)
    await play_until([a, b], lambda: a.info is not None and a.info["status"] == "over", timeout=30)
    before = [s["name"] for s in a.info["seats"]]  # type: ignore[index]
    r = server.post(f"/api/tables/{made['table']}/rematch", {"token": "bad" * 8})
    assert r.status_code == 403
    # b asks over its WebSocket; a gets its new token pushed
    await b.send({"type": "rematch"})
    await a.wait(lambda c: any(m["type"] == "rematch" for m in c.messages))
    await b.wait(lambda c: any(m["type"] == "rematch" for m in c.messages))
    ra = next(m for m in a.messages if m["type"] == "rematch")
    rb = next(m for m in b.messages if m["type"] == "rematch")
    assert ra["table"] == rb["table"] != made["table"] and ra["token"] != made["token"] and ra["seat"] == 0
    assert rb["seat"] == 2
    # asking again (over HTTP) gives the same new table and token
    again = server.post(f"/api/tables/{made['table']}/rematch", {"token": made["token"]}).json()
    assert again["table"] == ra["table"] and again["token"] == ra["token"]
    na = Client(server, ra["table"], ra["token"])
    nb = Client(server, rb["table"], rb["token"])
    await na.connect()
    await nb.connect()
    # with a friend it waits in the lobby, everyone seated, until the asker (its host) starts it
    await na.wait(lambda c: c.info is not None and c.info["status"] == "lobby")
    assert na.info["host"] == 2 and [s["kind"] for s in na.info["seats"]] == ["human", "empty", "human", "empty"]  # type: ignore[index]
    await nb.send({"type": "start"})
    await na.wait(lambda c: c.info is not None and c.info["status"] == "playing")
    seats = na.info["seats"]  # type: ignore[index]
    names = [s["name"] for s in seats]
    assert names[0] == "Asha" and names[2] == "Bimal"
    # the same bots: they keep their names, seat by seat (a Bengali player's try: "the same
    # players" at the rematch were three new names); named by the shared rule, from the list
    assert names[1] in NAMES and names[3] in NAMES and names[1] != names[3]
    assert names == before, (names, before)
    assert [s["level"] for s in seats] == [None, na.info["bots"], None, na.info["bots"]]  # type: ignore[index]
    # old tokens are not valid at the new table
    bad = Client(server, ra["table"], made["token"])
    await bad.connect()
    await bad.wait(lambda c: c.closed)
    assert bad.messages[0]["code"] == "bad_token"
    # the finished match is in both players' lists
    listed = server.get(f"/api/matches?token={made['token']},{ra['token']}").json()["matches"]
    assert [m["table"] for m in listed] == [made["table"], ra["table"]]
    assert listed[0]["places"] is not None and listed[1]["status"] == "playing"
    for c in (a, b, na, nb):
        await c.close()


async def test_history_downloads_replay_to_the_same_result(server: Server) -> None:
    made = server.create(rules=QUICK1, bots="random", name="Asha", play_now=True)
    a = Client(server, made["table"], made["token"])
    await a.connect()
    await play_until([a], lambda: a.info is not None and a.info["status"] == "over", timeout=30)
    log = server.get(f"/api/tables/{made['table']}/history?format=log").json()
    m = Match(Ruleset.from_dict(log["rules"]), log["seed"], dealer=log["dealer"])
    for act in log["actions"]:
        m.act(act["call"] if "call" in act else act["card"])
    assert m.is_over and m.places == a.state["places"]  # type: ignore[index]
    text = server.get(f"/api/tables/{made['table']}/history?format=text")
    assert text.status_code == 200 and "attachment" in text.headers["content-disposition"]
    again = notation.loads(text.text)
    assert [str(t) for t in again.totals] == log["totals"] and again.places == m.places
    js = server.get(f"/api/tables/{made['table']}/history?format=json")
    assert js.status_code == 200 and notation.from_json(js.text).places == m.places
    assert server.get(f"/api/tables/{made['table']}/history?format=xml").status_code == 400
    await a.close()


async def test_a_lobby_nobody_starts_expires(make_server) -> None:  # type: ignore[no-untyped-def]
    server: Server = make_server({"CALLBREAK_LOBBY_TTL": "0.3", "CALLBREAK_SWEEP_EVERY": "0.1"})
    made = server.create(name="Lonely")
    a = Client(server, made["table"], made["token"])
    await a.connect()
    await a.wait(lambda c: c.info is not None and c.info["status"] == "expired", timeout=10)
    r = server.post(f"/api/join/{made['invite']}", {"name": "Late"})
    assert r.status_code == 409
    await a.close()


def test_sudden_death_and_open_ended_matches_in_the_table_state() -> None:
    # a tie at the top after the last round plays on; the log still rebuilds the same table
    for seed in range(200):
        meta = TableMeta(id="t", invite="i", rules=Ruleset(rounds=1), bots="random", seed=seed, created=0.0)
        t = TableState(meta)
        events = t.apply({"t": "seat", "seat": 0, "name": "A", "token": "k" * 22}) + t.apply({"t": "start"})
        entries = []
        while t.status != "over":
            if t.status == "between_rounds":
                e = {"t": "next"}
            else:
                rnd = t.match.round  # type: ignore[union-attr]
                seat = t.to_act
                e = (
                    {"t": "call", "seat": seat, "call": 1}
                    if rnd.phase == "calling"
                    else {"t": "play", "seat": seat, "card": str(rnd.legal_cards()[0])}
                )
            events += t.apply(e)
            entries.append(e)
        if any(isinstance(ev, Dealt) and ev.sudden_death for ev in events):
            break
    else:
        raise AssertionError("no sudden death in 200 seeds")
    again = TableState(meta)
    replayed = again.apply({"t": "seat", "seat": 0, "name": "A", "token": "k" * 22}) + again.apply({"t": "start"})
    for e in entries:
        replayed += again.apply(e)
    assert replayed == events and again.v == t.v and again.state(0) == t.state(0)
    # pagat: no fixed end; the host ends it between rounds
    meta = TableMeta(id="p", invite="j", rules=Ruleset.preset("pagat"), bots="random", seed=1, created=0.0)
    p = TableState(meta)
    p.apply({"t": "seat", "seat": 0, "name": "A", "token": "k" * 22})
    p.apply({"t": "start"})
    while p.status == "playing":
        rnd = p.match.round  # type: ignore[union-attr]
        p.apply(
            {"t": "call", "seat": p.to_act, "call": 2}
            if rnd.phase == "calling"
            else {"t": "play", "seat": p.to_act, "card": str(rnd.legal_cards()[0])}
        )
    assert p.status == "between_rounds"
    kinds = [type(e) for e in p.apply({"t": "end"})]
    assert kinds in ([MatchOver], [TieBreak])


async def test_a_player_leaves_the_lobby_and_the_seat_is_free_again(server: Server) -> None:
    made, joined, a, b, _ = await two_players(server, QUICK1, start=False)
    await a.wait(lambda c: c.info is not None and c.info["seats"][1]["kind"] == "human")
    start = len(a.messages)
    await a.send({"type": "leave"})
    await a.wait(lambda c: any(m["type"] == "error" for m in c.messages[start:]))
    assert next(m for m in a.messages[start:] if m["type"] == "error")["code"] == "not_host"
    await b.send({"type": "leave"})
    await b.wait(lambda c: c.closed)
    await a.wait(lambda c: c.info is not None and c.info["seats"][1]["kind"] == "empty")
    assert any(m["type"] == "event" and m["event"] == {"kind": "left", "seat": 1, "v": m["v"]} for m in a.messages)
    again = Client(server, made["table"], joined["token"])
    await again.connect()
    await again.wait(lambda c: c.closed)
    assert again.messages[0]["code"] == "bad_token"
    other = server.post(f"/api/join/{made['invite']}", {"name": "C"}).json()
    assert other["seat"] == 1
    await a.close()


async def test_a_rematch_whose_pointer_cannot_be_stored_leaves_no_table_behind(tmp_path: Path) -> None:
    """Another writer took the finished table's next entry (a failover's race), so the rematch's
    pointer is not stored: the asker hears "try again", and the new table, which nobody could
    reach, is closed in the store, not left for the bots to play out. Asked again, the rematch
    is made and stored."""
    from callbreak.server.store import SQLiteStore

    from .inprocess import next_action, start_hub

    hub, _ = await start_hub(tmp_path / "t.db")
    try:
        t, tokens = hub.create_table(Ruleset.preset("quick", rounds=1), bots="random", play_now=True, name="Asha")
        while t.state.status != "over":
            # (between rounds, a tie after the last: a sudden-death round)
            t.submit({"t": "next"} if t.state.to_act is None else next_action(t))
        other = SQLiteStore(str(tmp_path / "t.db"))
        other.append(t.id, t.state.entries, {"t": "autoplay", "seat": 0, "on": True, "reason": "timeout"}, (), None)
        with pytest.raises(TableError, match="try again"):
            hub.rematch(t.id, tokens[0])
        assert [tid for tid in hub.tables if tid != t.id] == [], "the unreachable table is still loaded"
        orphans = other.db.execute("SELECT id, status FROM tables WHERE id != ?", (t.id,)).fetchall()
        assert [status for _, status in orphans] == ["abandoned"], orphans
        new, seat, token = hub.rematch(t.id, tokens[0])
        again = hub.get(t.id)
        assert again is not None and again.state.rematch == new.id and new.state.status == "playing"
        assert seat == 0 and new.state.seats[0].token == token
        other.close()
    finally:
        await hub.shutdown()
