"""The HTTP API's bodies are types (`callbreak.server.bodies`): a real server refuses a bad body
with its code and changes nothing, and every answer is its type and fits the committed schema."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import msgspec

from callbreak.server import bodies

from .conftest import Server
from .driven import DRIVEN

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "protocol.schema.json").read_text(encoding="utf-8"))


@functools.cache
def validator(route: str, part: str) -> Any:
    ref = SCHEMA["x-http"][route][part]
    return jsonschema.validators.validator_for(SCHEMA)({**ref, "$defs": SCHEMA["$defs"]})


def fits(route: str, part: str, body: Any) -> None:
    """``body`` is valid as the committed schema's ``part`` (request, answer, error) of ``route``."""
    validator(route, part).validate(body)


def test_bad_bodies_get_their_code_and_change_nothing(make_server: Callable[..., Server]) -> None:
    server = make_server(DRIVEN)  # the clock stands still: only requests change a table
    made = server.create(rules={"preset": "quick", "rounds": 1}, bots="random", name="Host")
    tid, invite = str(made["table"]), str(made["invite"])
    http = httpx.Client(base_url=server.base, timeout=30)  # one client: a new one per request is slow

    def raw_post(path: str, content: bytes) -> httpx.Response:
        return http.post(path, content=content, headers={"content-type": "application/json"})

    def world() -> tuple[Any, ...]:
        return (
            http.get(f"/api/tables/{tid}").json(),
            http.get(f"/api/join/{invite}").json(),
            http.get("/healthz").json()["tables"],
        )

    before = world()
    cases: list[tuple[str, str, bytes, int, str]] = [
        ("POST /api/tables", "/api/tables", b"[1]", 400, "bad_json"),
        ("POST /api/tables", "/api/tables", b'"text"', 400, "bad_json"),
        ("POST /api/tables", "/api/tables", b"{not json", 400, "bad_json"),
        ("POST /api/tables", "/api/tables", b'{"colour": "red"}', 400, "bad_message"),
        ("POST /api/tables", "/api/tables", b'{"rules": "quick"}', 400, "bad_rules"),
        ("POST /api/tables", "/api/tables", b'{"rules": {"rounds": "two"}}', 400, "bad_rules"),
        ("POST /api/tables", "/api/tables", b'{"bots": 3}', 400, "bad_bots"),
        ("POST /api/tables", "/api/tables", b'{"bots": "godlike"}', 400, "bad_bots"),
        ("POST /api/tables", "/api/tables", b'{"play_now": "yes"}', 400, "bad_message"),
        ("POST /api/tables", "/api/tables", b'{"name": ["A"]}', 400, "bad_message"),
        ("POST /api/tables", "/api/tables", b'{"name": "' + b"x" * 201 + b'"}', 400, "bad_message"),
        ("POST /api/join/CODE", f"/api/join/{invite}", b'{"seat": "two"}', 400, "bad_seat"),
        ("POST /api/join/CODE", f"/api/join/{invite}", b'{"seat": 7}', 400, "bad_seat"),
        ("POST /api/join/CODE", f"/api/join/{invite}", b'{"name": "B", "token": "x"}', 400, "bad_message"),
        ("POST /api/join/CODE", f"/api/join/{invite}", b'{"name": 5}', 400, "bad_message"),
        ("POST /api/tables/ID/start", f"/api/tables/{tid}/start", b"{}", 403, "bad_token"),
        ("POST /api/tables/ID/start", f"/api/tables/{tid}/start", b'{"token": 12}', 403, "bad_token"),
        ("POST /api/tables/ID/start", f"/api/tables/{tid}/start", b'{"token": "nope"}', 403, "bad_token"),
        ("POST /api/tables/ID/start", f"/api/tables/{tid}/start", b'{"token": "' + made["token"].encode() + b'", "x": 1}', 400, "bad_message"),
        ("POST /api/tables/ID/rematch", f"/api/tables/{tid}/rematch", b"[]", 400, "bad_json"),
        ("POST /api/tables/ID/rematch", f"/api/tables/{tid}/rematch", b'{"token": "' + b"t" * 65 + b'"}', 403, "bad_token"),
    ]
    for route, path, body, status, code in cases:
        r = raw_post(path, body)
        assert (r.status_code, r.json()["error"]) == (status, code), (path, body, r.text)
        assert msgspec.json.decode(r.content, type=bodies.HttpError).error == code
        fits(route, "error", r.json())
        assert world() == before, (path, body)
    # an over-long body: 413, nothing made
    r = raw_post("/api/tables", b'{"name": "' + b"x" * 20_000 + b'"}')
    assert (r.status_code, r.json()["error"]) == (413, "too_large") and world() == before
    http.close()


def test_every_answer_is_its_type_and_fits_the_schema(make_server: Callable[..., Server]) -> None:
    server = make_server(DRIVEN)
    r = server.post("/api/tables", {"rules": {"preset": "quick", "rounds": 1}, "bots": "random", "name": "Host"})
    made = msgspec.json.decode(r.content, type=bodies.SeatAnswer)
    fits("POST /api/tables", "answer", r.json())
    assert made.seat == 0 and made.seat_url == f"/t/{made.table}#{made.token}"
    r = server.post(f"/api/join/{made.invite}", {"name": "Guest"})
    joined = msgspec.json.decode(r.content, type=bodies.SeatAnswer)
    fits("POST /api/join/CODE", "answer", r.json())
    r = server.get(f"/api/join/{made.invite}")
    assert [s.name for s in msgspec.json.decode(r.content, type=bodies.JoinInfo).seats][: joined.seat + 1][-1] == "Guest"
    fits("GET /api/join/CODE", "answer", r.json())
    r = server.post(f"/api/tables/{made.table}/start", {"token": made.token})
    assert msgspec.json.decode(r.content, type=bodies.Ok).ok
    fits("POST /api/tables/ID/start", "answer", r.json())
    r = server.get(f"/api/tables/{made.table}")
    view = msgspec.json.decode(r.content, type=bodies.TableView)
    assert view.table.status == "playing" and view.state is not None and view.state.hand == []
    fits("GET /api/tables/ID", "answer", r.json())
    r = server.post("/api/matches", {"tokens": [made.token, joined.token]})
    rows = msgspec.json.decode(r.content, type=bodies.Matches).matches
    assert sorted(m.seat for m in rows) == sorted([0, joined.seat])
    fits("POST /api/matches", "request", {"tokens": [made.token, joined.token]})
    fits("POST /api/matches", "answer", r.json())
    r = server.get(f"/api/matches?token={made.token},{joined.token}")  # (pages of before)
    assert sorted(m.seat for m in msgspec.json.decode(r.content, type=bodies.Matches).matches) == sorted([0, joined.seat])
    fits("GET /api/matches", "answer", r.json())


def test_a_game_without_turn_timers_is_listed_by_its_preset(server: Server) -> None:
    """Play now sends no timers: its matches were listed as "Custom" (found in a review); the
    timers are the table's, not the game's rules."""
    made = server.post(
        "/api/tables",
        {"rules": {"preset": "standard", "card_seconds": None, "call_seconds": None}, "bots": "random", "play_now": True},
    ).json()
    rows = msgspec.json.decode(server.post("/api/matches", {"tokens": [made["token"]]}).content, type=bodies.Matches).matches
    assert [m.rules for m in rows] == ["standard"]


def test_a_joins_attempt_is_the_same_text_to_the_body_and_to_the_table() -> None:
    """`bodies.JoinTable.attempt`'s pattern (the schema's, for the terminal without the server) and
    `table.ATTEMPT` (which the join and the seat entry hold to) are two copies of one rule: they take
    the same texts, but for the final newline that the body's searched pattern lets by and the table
    refuses."""
    from callbreak.server.table import ATTEMPT

    texts = ["a" * 15, "a" * 16, "a" * 64, "a" * 65, "A-z_9" * 4, "aaaa bbbb cccc dddd", "ऋ" * 16,
             "a" * 15 + ".", "a" * 16 + "\n", "\n" + "a" * 16, "", "0123456789abcdef"]  # fmt: skip

    def body_takes(text: str) -> bool:
        try:
            msgspec.json.decode(json.dumps({"attempt": text}).encode(), type=bodies.JoinTable)
        except msgspec.ValidationError:
            return False
        return True

    for text in texts:
        table_takes = ATTEMPT.fullmatch(text) is not None
        assert body_takes(text) == (table_takes or (text.endswith("\n") and ATTEMPT.fullmatch(text[:-1]) is not None)), text
    assert sum(ATTEMPT.fullmatch(t) is not None for t in texts) == 4
