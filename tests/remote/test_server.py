"""`callbreak bot serve` as a real process on loopback: health, answers, errors, full matches."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from callbreak import Card, Match, Ruleset
from callbreak.arena.runner import Task, play_match, run_arena
from callbreak.arena.summary import summarize
from callbreak.bots import make_bot
from callbreak.remote.client import RemoteBot
from callbreak.remote.codec import card_from_bhoos, view_to_request
from callbreak.remote.server import BotService

from .conftest import ServedBot, start_served_bot

FIXTURES = Path(__file__).parent / "fixtures"
BHOOS = Ruleset.preset("bhoos")


def fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return data


def test_hi_says_hello(served_random: ServedBot) -> None:
    r = httpx.get(served_random.url + "/hi")
    assert r.status_code == 200 and r.json() == {"value": "hello"}


def test_hi_waits_for_warm_up() -> None:
    svc = BotService("random", BHOOS, seed=1)
    assert svc.handle("GET", "/hi", b"")[0] == 503
    svc.warm_up()
    assert svc.handle("GET", "/hi", b"") == (200, {"value": "hello"})


def test_answers_the_documented_examples(served_random: ServedBot) -> None:
    with httpx.Client(base_url=served_random.url) as c:
        r = c.post("/bid", json=fixture("bhoos_bid_example.json"))
        assert r.status_code == 200 and r.json()["value"] in range(1, 9)
        r = c.post("/play", json=fixture("bhoos_play_example_repaired.json"))
        assert r.status_code == 200 and r.json()["value"] in ("JH", "KH")  # must follow and head 8H
        r = c.post("/play", json=fixture("bhoos_play_example.json"))
        assert r.status_code == 400 and "P3" in r.json()["error"]


def test_malformed_requests_get_400_and_the_server_lives(served_random: ServedBot) -> None:
    url = served_random.url
    play = fixture("bhoos_play_example_repaired.json")
    bad_card = dict(play, cards=["XX", *play["cards"][1:]])
    dup = dict(play, cards=[play["cards"][0], *play["cards"][:-1]])
    cases: list[tuple[str, str, bytes | None, int, str]] = [
        ("POST", "/play", b"{not json", 400, "not JSON"),
        ("POST", "/play", json.dumps(bad_card).encode(), 400, "unknown card 'XX'"),
        ("POST", "/play", json.dumps(dup).encode(), 400, "duplicate card KH"),
        ("POST", "/bid", b"{}", 400, "missing field 'playerIds'"),
        ("POST", "/bid", b"[1, 2]", 400, "JSON object"),
        ("POST", "/play", b"", 400, "not JSON"),
        ("POST", "/play", b'{"a": "\xff\xfe"}', 400, "the body is not UTF-8 text (byte 7)"),
        ("GET", "/bid", None, 405, "takes POST"),
        ("PUT", "/play", json.dumps(play).encode(), 405, "takes POST, not PUT"),
        ("DELETE", "/bid", None, 405, "takes POST, not DELETE"),
        ("PATCH", "/hi", b"{}", 405, "PATCH is not allowed on /hi"),
        ("POST", "/nope", b"{}", 404, "unknown path"),
    ]
    with httpx.Client(base_url=url) as c:
        for method, path, body, status, msg in cases:
            r = c.request(method, path, content=body)
            assert r.status_code == status, (path, r.text)
            assert msg in r.json()["error"]
            if status == 405:  # what the path does take
                assert r.headers["Allow"] == ("GET, POST, HEAD, OPTIONS" if path == "/hi" else "POST, OPTIONS")
        assert c.get("/hi").json() == {"value": "hello"}
    # A lying Content-Length and a connection dropped half-way do not take it down either.
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as s:
        s.sendall(b"POST /bid HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n{}")
        assert b" 400 " in s.recv(4096)
    with socket.create_connection((host, int(port))) as s:
        s.sendall(b'POST /bid HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{"pla')
    assert httpx.get(url + "/hi").status_code == 200
    # A body in chunks (some clients stream one) is read whole, and the connection goes on with the
    # next request (found in a bot builder's try: "not JSON", then the chunks read as a request)
    bid = json.dumps(fixture("bhoos_bid_example.json")).encode()
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(bid[i : i + 100]), bid[i : i + 100]) for i in range(0, len(bid), 100))
    with socket.create_connection((host, int(port))) as s:
        s.sendall(b"POST /bid HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n"
                  + b"GET /hi HTTP/1.1\r\nHost: x\r\n\r\n")  # fmt: skip
        got = b""
        while got.count(b"HTTP/1.1 ") < 2 or not got.endswith(b'"hello"}'):
            more = s.recv(4096)
            assert more, got
            got += more
    first, second = got.split(b"HTTP/1.1 ")[1:]
    assert first.startswith(b"200 ") and b'{"value": ' in first and second.startswith(b"200 "), got
    refused = [
        b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",  # a chunk of no size
        b"Transfer-Encoding: chunked\r\n\r\n0x2\r\n{}\r\n0\r\n\r\n",  # a size not in hexadecimal digits alone
        b"Transfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",  # a coding the bot does not read
        b"Transfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\n{}\r\n0\r\n\r\n",  # two framings at once
    ]
    for framing in refused:
        with socket.create_connection((host, int(port))) as s:
            s.sendall(b"POST /bid HTTP/1.1\r\nHost: x\r\n" + framing)
            answer = s.recv(4096)
            assert b" 400 " in answer and b"Connection: close" in answer, (framing, answer)
    # a body led by a UTF-8 byte-order mark, as some clients write one, is read
    assert httpx.post(url + "/bid", content=b"\xef\xbb\xbf" + bid).status_code == 200
    assert httpx.get(url + "/hi").status_code == 200


def test_same_request_same_answer_and_no_memory(served_random: ServedBot) -> None:
    m = Match(BHOOS, seed=9)
    answers = []
    with httpx.Client(base_url=served_random.url) as c:
        for _ in range(2):
            got = []
            for _seat in range(4):  # one server answers every seat, in any order
                path, body = view_to_request(m.view(m.to_act), time_budget_ms=1500)  # type: ignore[arg-type]
                got.append(c.post(path, json=body).json()["value"])
                m.act(got[-1])
            answers.append(got)
            for _ in range(4):
                m.round.pop()
    assert answers[0] == answers[1]


def test_full_matches_our_client_against_our_server(served_random: ServedBot) -> None:
    url = served_random.url
    res = run_arena(
        ["random", url, url, url], matches=4, seed=2, duplicate=True, rules=BHOOS, time_budget=1.5
    )
    s = summarize(res)
    assert s.matches == 4
    assert all(b.fault_count == 0 for b in s.bots), [b.faults for b in s.bots]
    assert all(r.rounds >= 5 for r in res.records)
    assert s.bots[1].decisions == sum(len(r.times[1]) for r in res.records) > 4 * 5 * 14 - 1


def test_remote_seat_plays_what_the_server_says(served_random: ServedBot) -> None:
    """Every card the remote seat plays is the server's answer to exactly that seat's view."""
    bot = RemoteBot(served_random.url, seed=0)
    seen: list[tuple[dict[str, Any], object]] = []

    class Recorder(RemoteBot):
        def act(self, view: Any) -> int | Card:
            choice = super().act(view)
            seen.append((view_to_request(view, time_budget_ms=999)[1], choice))
            return choice

    rec = Recorder(served_random.url)
    bots = [make_bot("random", 1), rec, make_bot("random", 2), make_bot("random", 3)]
    record = play_match(bots, BHOOS.replace(rounds=1), Task(0, 0, 0, 77))
    assert record.faults[1] == [] and len(seen) == 14
    with httpx.Client(base_url=served_random.url) as c:
        for body, choice in seen[:4]:
            path = "/bid" if "played" not in body else "/play"
            v = c.post(path, json=body).json()["value"]
            assert (v if path == "/bid" else card_from_bhoos(v)) == choice
    bot.close()
    rec.close()


def test_parallel_connections_get_the_same_answers(served_random: ServedBot) -> None:
    from concurrent.futures import ThreadPoolExecutor

    m = Match(BHOOS, seed=21)
    bots = [make_bot("random", i) for i in range(4)]
    reqs = []
    while len(reqs) < 30:
        seat = m.to_act
        assert seat is not None
        v = m.view(seat)
        reqs.append(view_to_request(v, time_budget_ms=1500))
        m.act(bots[seat].act(v))

    def ask(order: list[int]) -> dict[int, Any]:
        with httpx.Client(base_url=served_random.url) as c:
            return {i: c.post(reqs[i][0], json=reqs[i][1]).json()["value"] for i in order}

    with ThreadPoolExecutor(3) as ex:
        a, b, c = ex.map(
            ask, [list(range(30)), list(range(29, -1, -1)), list(range(0, 30, 2)) + list(range(1, 30, 2))]
        )
    assert a == b == c


def test_medium_served_over_http_plays_a_clean_match() -> None:
    from .conftest import start_served_bot

    served = start_served_bot("medium", seed=5)
    try:
        res = run_arena([served.url, "medium", "easy", "random"], matches=1, seed=3, rules=BHOOS)
        s = summarize(res)
        assert all(b.fault_count == 0 for b in s.bots), [b.faults for b in s.bots]
        assert s.bots[0].decisions >= 5 * 14
    finally:
        served.stop()


def test_a_slow_bot_short_of_time_answers_fast_within_budget() -> None:
    """A bot that takes 20 ms a card (on the service's clock, which the test moves: nothing
    races the wall clock), asked with 30 ms for two or more cards, is answered by the fast level."""
    from callbreak.bots import register_level

    now = [0.0]

    class Sleepy(make_bot("random", 0).__class__):  # type: ignore[misc]
        name = "sleepy"

        def act(self, view: Any) -> int | Card:
            now[0] += 0.02  # (its thinking)
            return super().act(view)  # type: ignore[no-any-return]

    register_level("sleepy", Sleepy)
    svc = BotService("sleepy", BHOOS, seed=1, clock=lambda: now[0])
    m = Match(BHOOS, seed=8)
    bots = [make_bot("random", i) for i in range(4)]
    asked = 0
    while asked < 12:
        v = m.view(m.to_act)  # type: ignore[arg-type]
        if v.phase == "playing" and len(v.legal_cards) > 1:
            path, body = view_to_request(v, time_budget_ms=1500 if asked < 10 else 30)
            status, obj, think = svc.handle_timed("POST", path, json.dumps(body).encode())
            assert status == 200 and card_from_bhoos(obj["value"]) in v.legal_cards
            # the last two: 30 ms for two or more 20 ms decisions (the fast level thinks on no clock)
            assert think == (pytest.approx(0.02) if asked < 10 else 0.0), (asked, think)
            asked += 1
        m.act(bots[m.to_act].act(v))  # type: ignore[index]
    assert svc.fast_answers == 2


def test_a_served_hard_bot_is_told_the_earlier_rounds_over_http() -> None:
    """A hard bot served on a real socket plays a 3-round match through our client: at its last
    card it holds the evidence of every card the others played in all three rounds (more than
    two rounds' 26 each), though it was reset before each request: the server remembered the
    match's rounds; a second match starts afresh and plays clean too."""
    from callbreak.bots.hard import HardBot
    from callbreak.remote.server import BotServer

    bot = HardBot(seed=1, iterations=300, call_deals=20)
    srv = BotServer(bot, BHOOS, seed=5, port=0)
    srv.start()
    try:
        assert srv.wait_ready(120)
        res = run_arena([srv.url, "spar-simple", "spar-simple", "spar-simple"], matches=2, seed=3,
                        rules=BHOOS.replace(rounds=3))  # fmt: skip
        s = summarize(res)
        assert all(b.fault_count == 0 for b in s.bots), [b.faults for b in s.bots]
        seen = sorted(bot.tally.evidence()[-1].tolist())  # the last row: the cards seen
        assert seen[0] == 0 and min(seen[1:]) > 26, seen
    finally:
        srv.close()


def test_opp_is_a_setting_of_the_hard_bot_only() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "callbreak", "bot", "serve", "--bot", "medium", "--opp", "0", "--port", "0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2 and "opp is a setting of the hard bot, not of 'medium'" in proc.stderr
    assert BotService("hard", BHOOS, seed=1, opp=0).bot.recalls is False  # the others as medium: nothing kept
    assert BotService("hard", BHOOS, seed=1).bot.recalls is True


ODD_BOTS = '''
from callbreak.bots import Bot


class Illegal(Bot):
    """Calls 0 (below bhoos rules' least call) and plays its highest card, legal or not."""

    name = "illegal"

    def act(self, view):
        return 0 if view.phase == "calling" else max(view.hand)


class Index(Bot):
    """Answers a card by its index (an int), as the engine takes it."""

    name = "index"

    def act(self, view):
        return view.legal_calls[-1] if view.phase == "calling" else int(view.legal_cards[-1])
'''


def test_a_served_bot_answers_as_it_chose_so_that_its_faults_are_seen(tmp_path: Path) -> None:
    """`bot serve` sends what the bot chose: an illegal call or card fails `bot check` and is
    an illegal fault in the arena, as it is when the arena seats the bot itself (before, the
    server sent the lowest legal action in its place, and the bot passed every check); a card
    given by its index is that card, served or not."""
    from callbreak.arena.check import check_bot

    f = tmp_path / "odd.py"
    f.write_text(ODD_BOTS, encoding="utf-8")
    illegal, index = start_served_bot(f"{f}:Illegal"), start_served_bot(f"{f}:Index")
    try:
        rep = check_bot(illegal.url, positions=6, rules=BHOOS)
        bad = [r.detail for r in rep.failures]
        assert any("illegal answer '0'" in d for d in bad) and any("illegal answer" in d and d != "illegal answer '0'" for d in bad), bad
        rules = BHOOS.replace(rounds=1)
        for spec in (f"{f}:Illegal", illegal.url):
            s = summarize(run_arena([spec, "easy", "easy", "easy"], matches=1, seed=3, rules=rules))
            assert s.bots[0].faults.get("illegal", 0) > 3, (spec, s.bots[0].faults)
        local, served = (
            run_arena([spec, "easy", "easy", "easy"], matches=2, seed=3, rules=rules) for spec in (f"{f}:Index", index.url)
        )
        assert [r.totals for r in local.records] == [r.totals for r in served.records]
        assert summarize(served).bots[0].fault_count == 0
        # a tournament entry's safety net, asked for: the lowest legal action in its place
        fallback = start_served_bot(f"{f}:Illegal", 0, "bhoos", "--legal-fallback")
        try:
            s = summarize(run_arena([fallback.url, "easy", "easy", "easy"], matches=1, seed=3, rules=rules))
            assert s.bots[0].fault_count == 0 and check_bot(fallback.url, positions=6, rules=BHOOS).failures == []
        finally:
            fallback.stop()
    finally:
        illegal.stop()
        index.stop()


def test_a_served_answer_that_is_no_call_or_card_is_an_error_naming_it() -> None:
    from callbreak.bots import Bot, register_level

    class Chatty(Bot):
        name = "chatty"

        def act(self, view: Any) -> Any:
            return "a good card" if view.phase == "playing" else 2.5

    register_level("chatty", Chatty)
    svc = BotService("chatty", BHOOS, seed=1)
    m = Match(BHOOS, seed=8)
    path, body = view_to_request(m.view(m.to_act), time_budget_ms=1500)  # type: ignore[arg-type]
    status, obj = svc.handle("POST", path, json.dumps(body).encode())
    assert (status, obj) == (500, {"error": "the bot answered 2.5 to a call: a call is a whole number"})
    for _ in range(4):
        m.act(m.view(m.to_act).legal_calls[0])  # type: ignore[arg-type]
    path, body = view_to_request(m.view(m.to_act), time_budget_ms=1500)  # type: ignore[arg-type]
    status, obj = svc.handle("POST", path, json.dumps(body).encode())
    assert status == 500 and obj["error"].startswith("the bot answered 'a good card' to a card: "), obj
    assert svc.errors == 2
    # a card's text is refused as the arena refuses it from a bot in its process (a bot builder's
    # try: "2C" was taken served and locally, where a call's "1" was refused), and a bot that
    # raises is named with where, as the arena names it (it said only "RuntimeError: boom")

    class Text(Bot):
        name = "text"

        def act(self, view: Any) -> Any:
            if view.phase == "playing":
                return str(view.legal_cards[0])
            raise RuntimeError("boom")

    register_level("text", Text)
    svc = BotService("text", BHOOS, seed=1)
    status, obj = svc.handle("POST", path, json.dumps(body).encode())
    assert status == 500 and obj["error"].endswith("a card is a Card (Card.parse('" + str(m.view(m.to_act).legal_cards[0]) + "')), not text"), obj
    m2 = Match(BHOOS, seed=8)
    path2, body2 = view_to_request(m2.view(m2.to_act), time_budget_ms=1500)  # type: ignore[arg-type]
    status, obj = svc.handle("POST", path2, json.dumps(body2).encode())
    assert status == 500 and re.fullmatch(r"the bot failed: RuntimeError \(at test_server\.py:\d+, in act\): boom", obj["error"]), obj


def test_with_no_clock_the_answer_is_the_seed_s_and_the_request_s_alone() -> None:
    """`callbreak bot serve --no-clock` (found in a bot builder's try: a served ``hard`` seated in
    the arena gave other matches on each run, its thinking cut by the clock at each request's
    ``timeBudget`` share): a budget of 1 ms gets the same answers as one of 100 s, and a bot too
    slow for its budget is never handed to the fast level."""
    from callbreak.bots import register_level

    m = Match(BHOOS, seed=8)
    bots = [make_bot("medium", i) for i in range(4)]
    tight, loose = BotService("hard", BHOOS, seed=1, no_clock=True), BotService("hard", BHOOS, seed=1, no_clock=True)
    asked = 0
    while asked < 6:
        v = m.view(m.to_act)  # type: ignore[arg-type]
        if v.phase == "calling" or len(v.legal_cards) > 2:
            answers = []
            for svc, ms in ((tight, 1), (loose, 100_000)):
                path, body = view_to_request(v, time_budget_ms=ms)
                status, obj = svc.handle("POST", path, json.dumps(body).encode())
                assert status == 200, obj
                answers.append(obj["value"])
            assert answers[0] == answers[1], (asked, answers)
            asked += 1
        m.act(bots[m.to_act].act(v))  # type: ignore[index]
    now = [0.0]

    class Sleepy(make_bot("random", 0).__class__):  # type: ignore[misc]
        name = "sleepy-no-clock"

        def act(self, view: Any) -> int | Card:
            now[0] += 0.02
            return super().act(view)  # type: ignore[no-any-return]

    register_level("sleepy-no-clock", Sleepy)
    svc = BotService("sleepy-no-clock", BHOOS, seed=1, clock=lambda: now[0], no_clock=True)
    m = Match(BHOOS, seed=8)
    done = 0
    while done < 12:
        v = m.view(m.to_act)  # type: ignore[arg-type]
        if v.phase == "playing" and len(v.legal_cards) > 1:
            path, body = view_to_request(v, time_budget_ms=30)
            status, _, think = svc.handle_timed("POST", path, json.dumps(body).encode())
            assert status == 200 and think == pytest.approx(0.02), (done, think)
            done += 1
        m.act(bots[m.to_act].act(v))  # type: ignore[index]
    assert svc.fast_answers == 0
