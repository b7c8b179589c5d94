"""Turn timers and ready between rounds over the wire, on a real server process.

Each waits for conditions, never for time; the exact timings (forced cards, grace,
kept deadlines, rate limits) are in ``test_clock.py`` on a clock the test drives."""

from __future__ import annotations

from .conftest import Client, Server, play_until, two_players
from .driven import DRIVEN, advance, drive


def _events(c: Client, kind: str) -> list[dict]:  # type: ignore[type-arg]
    return [m["event"] for m in c.messages if m["type"] == "event" and m["event"]["kind"] == kind]


async def test_expiry_plays_lowest_then_a_bot_takes_over_until_the_player_acts(make_server) -> None:  # type: ignore[no-untyped-def]
    # the server's clock moves only when the test moves it: once a bot plays the seat, the match
    # cannot run ahead of this client (with real timers a busy machine once saw it end first)
    server: Server = make_server(DRIVEN)
    rules = {"preset": "quick", "rounds": 2, "call_seconds": 3, "card_seconds": 2}
    made = server.create(rules=rules, bots="random", name="Sleepy", play_now=True)
    a = Client(server, made["table"], made["token"])
    await a.connect()
    await drive(server, (a,), lambda: a.my_turn(), seconds=0.7)  # the bots before us call
    now = (await advance(server, 0))["time"] * 1000
    assert a.info is not None and a.info["deadline"] is not None
    assert now < a.info["deadline"] <= now + 3000
    legal = list(a.state["legal_calls"])  # type: ignore[index]
    # do nothing: the lowest call is made for us, then our next turn expires too
    await drive(server, (a,), lambda: any(e["seat"] == 0 for e in _events(a, "call")), seconds=0.5)
    first = next(e for e in _events(a, "call") if e["seat"] == 0)
    assert first["call"] == min(legal) and first["auto"] and first["reason"] == "timeout"
    await drive(
        server, (a,), lambda: any(e["seat"] == 0 and e["on"] for e in _events(a, "autoplay")), seconds=0.5
    )
    on = next(e for e in _events(a, "autoplay") if e["on"])
    assert on["reason"] == "timeout" and a.info["seats"][0]["autoplay"]
    # the bot now plays our seat without a timer
    n = len([e for e in _events(a, "play") if e["seat"] == 0])
    await drive(
        server, (a,), lambda: len([e for e in _events(a, "play") if e["seat"] == 0]) >= n + 2, seconds=0.5
    )
    # (the seat's only legal card, played for it, is told as a card played: reason None)
    assert all(e["reason"] in ("autoplay", "timeout", None) for e in _events(a, "play") if e["seat"] == 0)
    assert [e["reason"] for e in _events(a, "play") if e["seat"] == 0][-2:] == ["autoplay", "autoplay"]
    # acting again gives the seat back
    await a.send({"type": "back"})
    await a.wait(lambda c: any(not e["on"] for e in _events(c, "autoplay")), timeout=30)
    assert a.info is not None and not a.info["seats"][0]["autoplay"]
    await a.close()


async def test_next_round_as_soon_as_every_player_is_ready(make_server) -> None:  # type: ignore[no-untyped-def]
    server: Server = make_server({"CALLBREAK_BETWEEN_ROUNDS": "60"})
    _, _, a, b, _ = await two_players(server, {"preset": "quick", "rounds": 2})
    await play_until([a, b], lambda: a.info is not None and a.info["status"] == "between_rounds", timeout=30)
    # (from the state: the client may have caught up by a snapshot rather than the round_over event)
    assert a.state is not None and a.state["to_act"] is None
    summary = a.state["last_round"]
    assert summary["round"] == 1 and len(summary["points"]) == 4 and sum(summary["tricks_won"]) == 13
    assert a.info["deadline"] is not None
    r = await _act_error(a, {"type": "call", "call": 2})
    assert r["code"] in ("wrong_status", "not_your_turn")
    await a.send({"type": "ready"})
    await b.wait(lambda c: c.info is not None and c.info["seats"][0]["ready"])
    assert b.info is not None and b.info["status"] == "between_rounds"
    await b.send({"type": "ready"})
    await a.wait(lambda c: c.info is not None and c.info["status"] == "playing", timeout=3)
    assert _events(a, "deal")[-1]["round"] == 2
    await a.close()
    await b.close()


async def _act_error(c: Client, msg: dict) -> dict:  # type: ignore[type-arg]
    start = len(c.messages)
    await c.send(msg)
    await c.wait(lambda x: any(m["type"] == "error" for m in x.messages[start:]))
    return next(m for m in c.messages[start:] if m["type"] == "error")
