"""The web client and the server speak the protocol of `docs/protocol.schema.json`: every
WebSocket frame of a whole match played on a phone, both ways, fits the committed schema."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from .helpers import create_table, play_to_end

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "protocol.schema.json").read_text(encoding="utf-8"))
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def validator(direction: str) -> Any:
    cls = jsonschema.validators.validator_for(SCHEMA)
    return cls({"$ref": f"#/$defs/{direction}", "$defs": SCHEMA["$defs"]})


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.set_default_timeout(10_000)
    yield page
    ctx.close()


def test_every_frame_of_a_match_fits_the_schema(server: str, phone: Any) -> None:
    sent: list[str] = []
    received: list[str] = []

    def watch(ws: Any) -> None:
        ws.on("framesent", lambda payload: sent.append(payload if isinstance(payload, str) else payload.decode()))
        ws.on("framereceived", lambda payload: received.append(payload if isinstance(payload, str) else payload.decode()))

    phone.on("websocket", watch)
    create_table(phone, server, preset="quick", rounds="1", bots="random", name="Asha")
    phone.wait_for_selector("[data-testid=lobby]")
    phone.tap("[data-testid=start-btn]")
    # at its first call the page asks for a hint by itself and shows the suggested call
    phone.wait_for_selector("[data-call].suggested", timeout=60_000)
    play_to_end([phone])

    client, srv = validator("ClientMessage"), validator("ServerMessage")
    for raw in sent:
        client.validate(json.loads(raw))
    for raw in received:
        srv.validate(json.loads(raw))
    types_sent = {json.loads(r)["type"] for r in sent}
    assert {"hello", "start", "hint", "call", "play"} <= types_sent
    kinds = {json.loads(r)["type"] for r in received}
    assert {"snapshot", "event", "hint"} <= kinds
    events = {json.loads(r)["event"]["kind"] for r in received if json.loads(r)["type"] == "event"}
    assert {"start", "deal", "call", "play", "trick", "round_over", "match_over"} <= events
