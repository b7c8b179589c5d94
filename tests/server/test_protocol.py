"""The protocol is defined once (`callbreak.server.protocol`): the committed JSON Schema and the
docs' error table are generated from it, every code the server's source uses is in it, both
clients keep to it, and every message of a real match (in-process, real SQLite) fits it."""

from __future__ import annotations

import ast
import asyncio
import json
import re
import typing
from collections.abc import Callable
from pathlib import Path

import jsonschema
import msgspec
import orjson

from callbreak import Ruleset
from callbreak.server import api, protocol
from callbreak.server.clock import ManualClock
from callbreak.server.protocol import CLIENT_TYPES, FATAL, ClientMessage, ErrorCode, ServerMessage

from .inprocess import Seat, start_hub

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "src" / "callbreak" / "server"
DOC = ROOT / "docs" / "protocol.md"
SCHEMA = ROOT / "docs" / "protocol.schema.json"
CODES = {c.value for c in ErrorCode}


def validator(direction: str) -> jsonschema.protocols.Validator:
    """A validator of the committed schema's ``ServerMessage`` or ``ClientMessage``."""
    committed = json.loads(SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(committed)
    return cls({"$ref": f"#/$defs/{direction}", "$defs": committed["$defs"]})  # type: ignore[no-any-return]


# --- one definition ------------------------------------------------------------------------------
def test_the_committed_schema_and_error_table_are_generated_from_the_types() -> None:
    assert json.loads(SCHEMA.read_text(encoding="utf-8")) == api.schema(), "run tools/protocol_schema.py"
    doc = DOC.read_text(encoding="utf-8")
    generated = doc.split("<!-- error codes: generated -->\n", 1)[1].split("<!-- end of error codes -->", 1)[0]
    assert generated == protocol.error_table(), "run tools/protocol_schema.py"
    assert "(protocol.schema.json)" in doc


def test_every_code_has_a_meaning_and_the_docs_name_it() -> None:
    assert set(protocol.ERRORS) == set(ErrorCode)
    assert all(len(m) > 10 for m in protocol.ERRORS.values())
    doc = DOC.read_text(encoding="utf-8")
    missing = [c for c in sorted(CODES) if f"`{c}`" not in doc]
    assert not missing, missing
    for code in ("no_players", "rematch"):  # once left out of the docs
        assert f"| `{code}` |" in doc


def codes_in_source() -> dict[str, set[str]]:
    """Every error code the server's source names: ``TableError(code, ...)``, ``_error(code, ...)``,
    ``Refused(code, ...)``, ``.error(conn, code, ...)``, ``ErrorCode.NAME``, HTTP ``_STATUS`` keys."""
    found: dict[str, set[str]] = {}

    def add(value: object, where: str) -> None:
        assert isinstance(value, str), f"{where}: a code that is not a string literal"
        found.setdefault(value, set()).add(where)

    for path in sorted(SERVER.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            where = f"{path.name}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                at = {"TableError": 0, "_error": 0, "Refused": 0, "error": 1}.get(name)
                if at is None or len(node.args) <= at:
                    continue
                arg = node.args[at]
                if isinstance(arg, ast.Constant):
                    add(arg.value, where)
                elif not (isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == "ErrorCode"):
                    # a variable: only the handlers that pass on a TableError's or Refused's code
                    assert ast.unparse(arg) in ("e.code", "code", "ErrorCode(code)", "ErrorCode(e.code)"), where
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ErrorCode":
                if path.name != "protocol.py" or node.attr not in ErrorCode.__members__:
                    add(ErrorCode[node.attr].value, where)
                else:
                    found.setdefault(ErrorCode[node.attr].value, set())
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_STATUS" for t in node.targets):
                assert isinstance(node.value, ast.Dict)
                for k in node.value.keys:
                    assert isinstance(k, ast.Constant)
                    add(k.value, where)
    return found


def test_every_code_the_server_source_uses_is_defined_and_every_defined_code_is_used() -> None:
    found = codes_in_source()
    unknown = {c: sorted(w) for c, w in found.items() if c not in CODES}
    assert not unknown, f"codes used but not in protocol.ErrorCode: {unknown}"
    # every code is raised somewhere outside its definition (ERRORS names each once in protocol.py)
    used = {c for c, w in found.items() if any(not x.startswith("protocol.py") for x in w)}
    used |= {"bad_json", "bad_message", "bad_type", "bad_call", "bad_card"}  # protocol.parse's own
    assert used == CODES, f"defined but never sent: {sorted(CODES - used)}"
    assert {"no_players", "rematch", "bad_token", "no_table", "too_large", "internal"} <= used


def test_the_web_client_treats_as_fatal_only_codes_the_server_sends() -> None:
    js = (SERVER / "static" / "table.js").read_text(encoding="utf-8")
    (listed,) = re.findall(r"const FATAL = new Set\(\[([^\]]*)\]\)", js)
    fatal = set(re.findall(r'"([a-z_]+)"', listed))
    assert fatal == {c.value for c in FATAL}
    assert fatal <= CODES
    # any other code the client names is one the server sends
    named = set(re.findall(r'\bcode\s*===?\s*"([a-z_]+)"', "".join(p.read_text() for p in (SERVER / "static").glob("*.js"))))
    assert named <= CODES, named - CODES


def test_both_clients_send_only_messages_of_the_protocol() -> None:
    js = "".join(p.read_text(encoding="utf-8") for p in (SERVER / "static").glob("*.js"))
    # (a call or card goes by `choose`: sent, or kept while no socket is up)
    web = set(re.findall(r'(?:send|choose)\(\{ type: "([a-z_]+)"', js)) | set(re.findall(r'JSON\.stringify\(\{ type: "([a-z_]+)"', js))
    assert {"hello", "ping", "call", "play", "ready", "start", "hint", "back", "end"} <= web
    assert web <= set(CLIENT_TYPES), web - set(CLIENT_TYPES)
    # the terminal builds its messages from the protocol's types, never as dicts
    tui = (ROOT / "src" / "callbreak" / "tui" / "online.py").read_text(encoding="utf-8")
    dicts = [n for n in ast.walk(ast.parse(tui)) if isinstance(n, ast.Dict)]
    assert not [n.lineno for n in dicts if any(isinstance(k, ast.Constant) and k.value == "type" for k in n.keys)]
    types = {t.__name__ for t in typing.get_args(ClientMessage)}
    built = set(re.findall(r"\b([A-Z][A-Za-z]+)\(", tui)) & types
    assert {"Hello", "Call", "Play", "Select", "Start", "Ready", "RematchAsk", "End", "Back", "Ping"} == built


def test_bad_client_messages_get_their_documented_code() -> None:
    ok = validator("ClientMessage")
    for raw, code in [
        ("{x", "bad_json"),
        ("[]", "bad_message"),
        ('{"type": 7}', "bad_type"),
        ('{"type": "call", "call": 1.5}', "bad_call"),
        ('{"type": "call", "call": true}', "bad_call"),
        ('{"type": "play", "card": "ASASAS"}', "bad_card"),
        ('{"type": "ping", "ref": 1.5}', "bad_message"),
        ('{"type": "hello", "since": []}', "bad_message"),
    ]:
        try:
            protocol.parse(raw)
        except protocol.Refused as e:
            assert e.code == code, raw
        else:
            raise AssertionError(f"{raw} was accepted")
        if code != "bad_json":
            assert not ok.is_valid(json.loads(raw)), raw  # the schema refuses it too
    # unknown fields are ignored (a message names no seat: the token decides)
    assert protocol.parse('{"type": "play", "card": "AS", "seat": 3}') == protocol.Play(card="AS")
    for msg in ({"type": "hello", "since": 4}, {"type": "call", "call": 3, "ref": "a"}, {"type": "rematch"}):
        assert ok.is_valid(msg) and protocol.parse(orjson.dumps(msg)) == msgspec.convert(msg, ClientMessage)


# --- a real match ----------------------------------------------------------------------------------
RULES = Ruleset.from_dict({"preset": "quick", "rounds": 2, "call_seconds": 30, "card_seconds": 15})


async def settle(clock: ManualClock, done: Callable[[], bool], players: tuple[Seat, ...], real_limit: float = 120.0) -> None:
    """Move the manual clock on (players act on their turns, first legal action) until ``done()``."""
    loop = asyncio.get_running_loop()
    end = loop.time() + real_limit
    while not done():
        assert loop.time() < end, "not done in time"
        for p in players:
            if p.my_turn() and p.state is not None:
                s = p.state
                await p.send({"type": "call", "call": s["legal_calls"][-1]} if s["phase"] == "calling" else {"type": "play", "card": s["legal_cards"][0]})
        clock.advance(0.1)
        await asyncio.sleep(0.002)


async def test_every_message_of_a_real_match_fits_the_schema(tmp_path: Path) -> None:
    hub, clock = await start_hub(tmp_path / "db.sqlite")
    try:
        t, tokens = hub.create_table(RULES, "random", "Asha")
        host = Seat(hub, t.id, tokens[0])
        await host.hello()
        _, _, token = hub.join(t.state.meta.invite, "Bimal", 2)
        guest = Seat(hub, t.id, token)
        watcher = Seat(hub, t.id)
        await guest.hello()
        await watcher.hello()
        await guest.send({"type": "start"})  # not the host: not_host
        await watcher.send({"type": "call", "call": 3})  # spectator
        await host.send({"type": "ping", "ref": "p"})
        await host.send({"type": "dance", "ref": 1})
        await host.send({"type": "start"})
        await settle(clock, host.my_turn, (guest,))
        await host.send({"type": "hint", "ref": "h"})
        late = Seat(hub, t.id, token)  # the guest on a second device, some events behind
        await late.hello(since=t.state.v - 3)
        await settle(clock, lambda: t.state.status == "over", (host, guest))
        await host.send({"type": "play", "card": "AS"})  # after the end: refused
        await guest.send({"type": "rematch", "ref": 9})
        again = Seat(hub, t.id, tokens[0])
        await again.hello(since=t.state.v)  # a finished table with a rematch: synced, then its token
        for s in (host, guest, watcher, late, again):
            s.read()
        seats = (host, guest, watcher, late, again)
        raw = [r for s in seats for r in s.raw]
    finally:
        await hub.shutdown()

    server = validator("ServerMessage")
    for r in raw:
        msgspec.json.decode(r, type=ServerMessage)  # the types take it (and say where, if not)
        server.validate(orjson.loads(r))  # and so does the committed schema
    messages = [orjson.loads(r) for r in raw]
    kinds = {m["type"] for m in messages}
    assert kinds == {"snapshot", "event", "synced", "table", "error", "pong", "hint", "rematch"}
    events = {m["event"]["kind"] for m in messages if m["type"] == "event"}
    assert {"seated", "start", "deal", "call", "play", "trick", "round_over", "match_over", "rematch"} <= events
    codes = {m["code"] for m in messages if m["type"] == "error"}
    assert codes == {"not_host", "spectator", "bad_type", "wrong_status"}, codes
    assert [m["ref"] for m in messages if m["type"] in ("pong", "hint")] == ["p", "h"]
    assert any(m["type"] == "rematch" and m.get("ref") == 9 for m in guest.messages)
    assert any(m["type"] == "rematch" and m["seat"] == 0 for m in again.messages)
    # hidden cards stay hidden: a spectator's states have no hand
    assert all(not m["state"]["hand"] for m in watcher.messages if m.get("state"))


def test_every_setting_and_limit_is_in_the_docs() -> None:
    import dataclasses

    from callbreak.server.config import ServerConfig

    doc = DOC.read_text(encoding="utf-8")
    missing = [f.name for f in dataclasses.fields(ServerConfig) if f"`CALLBREAK_{f.name.upper()}`" not in doc]
    assert missing == [], "docs/protocol.md, Settings: add these"
    limits = doc.split("### Limits", 1)[1].split("\n## ", 1)[0]
    for name in ("max_message", "msg_rate", "send_buffer", "close_timeout", "catchup_max", "create_rate", "max_body",
                 "max_sockets_per_ip", "connect_rate", "hello_timeout", "hint_queue", "presence_every",
                 "header_timeout", "max_header", "keep_alive", "unload_after", "abandon_after"):
        assert f"`{name}`" in limits, name
