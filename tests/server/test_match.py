"""Two real WebSocket players and two bots play whole matches against a real server process."""

from __future__ import annotations

from .conftest import Client, Server, play_until

QUICK1 = {"preset": "quick", "rounds": 1}


async def test_create_invite_join_start_play_to_the_end(server: Server) -> None:
    made = server.create(rules=QUICK1, bots="random", name="Asha")
    assert made["invite_url"] == f"/join/{made['invite']}" and len(made["token"]) >= 22
    info = server.get(f"/api/join/{made['invite']}").json()
    assert info["status"] == "lobby" and info["seats"][0]["name"] == "Asha"
    # a second "Asha" is asked for another name ("Asha is calling…" would not say which; found in a
    # newcomer's try), and nothing changes
    r = server.post(f"/api/join/{made['invite']}", {"name": " asha "})
    assert (r.status_code, r.json()["error"]) == (409, "name_taken"), r.text
    assert server.get(f"/api/join/{made['invite']}").json()["seats"] == info["seats"]
    joined = server.post(f"/api/join/{made['invite']}", {"name": "Bimal"}).json()
    assert joined["table"] == made["table"] and joined["seat"] == 1 and joined["token"] != made["token"]

    a = Client(server, made["table"], made["token"])
    b = Client(server, made["table"], joined["token"])
    await a.connect()
    await b.connect()
    await a.wait(lambda c: c.info is not None and c.info["status"] == "lobby")
    # only the host starts
    r = server.post(f"/api/tables/{made['table']}/start", {"token": joined["token"]})
    assert r.status_code == 403 and r.json()["error"] == "not_host"
    await a.send({"type": "start"})
    await b.wait(lambda c: c.info is not None and c.info["status"] == "playing")
    assert [s["kind"] for s in b.info["seats"]] == ["human", "human", "bot", "bot"]  # type: ignore[index]
    assert len(a.state["hand"]) == 13 and len(b.state["hand"]) == 13  # type: ignore[index]
    assert not set(a.state["hand"]) & set(b.state["hand"])  # type: ignore[index]

    await play_until([a, b], lambda: a.info is not None and a.info["status"] == "over")
    await b.wait(lambda c: c.info is not None and c.info["status"] == "over")
    final = a.state
    assert final is not None and sorted(final["places"])[0] == 1
    sheet = server.get(f"/api/tables/{made['table']}").json()["sheet"]  # every finished round
    assert len(sheet) >= 1 and final["last_round"]["points"] == sheet[-1]["points"]
    kinds = [m["event"]["kind"] for m in a.messages if m["type"] == "event"]
    assert kinds.count("play") == 52 * len(sheet) and kinds.count("round_over") == len(sheet)
    assert "round_over" in kinds and kinds[-1] == "match_over"
    # versions are gapless and both saw the same public events
    va = [m["v"] for m in a.messages if m["type"] == "event"]
    assert va == list(range(va[0], va[-1] + 1))
    pub = lambda c: [m["event"] for m in c.messages if m["type"] == "event" and m["v"] >= 4]  # noqa: E731
    assert pub(a) == pub(b)

    hist = server.get(f"/api/tables/{made['table']}/history?format=log").json()
    assert len(hist["actions"]) == kinds.count("play") + kinds.count("call")
    text = server.get(f"/api/tables/{made['table']}/history?format=text")
    assert text.status_code == 200 and text.text.strip()
    await a.close()
    await b.close()


async def test_play_now_and_history_only_when_over(server: Server) -> None:
    made = server.create(rules=QUICK1, bots="random", name="Solo", play_now=True)
    r = server.get(f"/api/tables/{made['table']}/history")
    assert r.status_code == 409 and r.json()["error"] == "not_over"
    a = Client(server, made["table"], made["token"])
    await a.connect()
    await a.wait(lambda c: c.state is not None)
    assert a.info is not None and [s["kind"] for s in a.info["seats"]] == ["human", "bot", "bot", "bot"]
    await play_until([a], lambda: a.info is not None and a.info["status"] == "over")
    r = server.get(f"/api/tables/{made['table']}/history?format=json")
    assert r.status_code == 200
    await a.close()


def test_serve_prints_the_url_and_serves_pages_and_health(server: Server) -> None:
    assert server.get("/healthz").json()["ok"] is True
    r = server.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    out = server.stop()
    assert f"http://127.0.0.1:{server.port}/" in out and "serve with --host 0.0.0.0" in out
    assert server.db.exists()
