"""A card lifted on a phone stays lifted through a reload, and the turn's timer plays it.

The first tap on a card lifts it ("tap again to play"); if the turn runs out, the server plays
that card, not the lowest. A reload used to lose the lift: the page drawn afresh showed no card
lifted and told the server so, and the timer then played the lowest card, one the player had not
chosen. The server's clock moves only when this test moves it (``CALLBREAK_TEST_HOOKS``), so
nothing races the turn's timer.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from callbreak import Card, Ruleset
from callbreak.round import lowest_card

from .conftest import free_port, start_server, stop_server
from .test_phone_hand import PHONE, RECORDER, SETTLED, WHERE

CARD_SECONDS = 15
MINE = "[data-testid=hand].my-turn [data-legal=true]"


@pytest.fixture
def driven(tmp_path: Path) -> Iterator[str]:
    """A server whose clock the test moves."""
    port = free_port()
    env = {**os.environ, "CALLBREAK_TEST_HOOKS": "1"}
    proc = start_server(port, str(tmp_path / "lift.sqlite"), str(tmp_path / "server.log"), env=env)
    yield f"http://127.0.0.1:{port}"
    stop_server(proc)


def advance(page: Any, base: str, seconds: float) -> None:
    """Move the server's clock on, then wait until the page has read up to the table's version."""
    r = httpx.post(f"{base}/test/clock", json={"advance": seconds}, timeout=30)
    assert r.status_code == 200, r.text
    (v,) = r.json()["tables"].values()
    page.wait_for_function(f"() => window.__v >= {v}")


def my_plays(page: Any) -> list[dict[str, Any]]:
    return list(page.evaluate("window.__events.filter(e => e.kind === 'play' && e.seat === 0)"))


def test_a_card_lifted_before_a_reload_is_shown_lifted_after_it_and_played_when_the_turn_runs_out(
    driven: str, browser: Any
) -> None:
    res = httpx.post(
        f"{driven}/api/tables",
        json={
            "rules": {"preset": "standard", "rounds": 1, "card_seconds": CARD_SECONDS, "call_seconds": 30,
                      "autoplay_forced": False},
            "bots": "random", "name": "Asha", "play_now": True,
        },
    )
    res.raise_for_status()
    ctx = browser.new_context(**PHONE)
    ctx.add_init_script(RECORDER)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    page.goto(driven + res.json()["seat_url"])
    page.wait_for_selector("[data-testid=hand] [data-card]")

    def wait_for(selector: str) -> None:
        """Move the server's clock on (the bots' turns) until ``selector`` shows on the page."""
        for _ in range(400):
            if page.locator(selector).count():
                return
            advance(page, driven, 0.25)
        raise AssertionError(f"no {selector} on the page")

    wait_for("[data-call]:not([disabled])")
    page.locator("[data-call]:not([disabled])").first.tap()
    # a turn with a legal card that is not the one the timer would play by itself
    while True:
        wait_for(MINE)
        page.wait_for_function(f"() => {SETTLED}")
        legal = [Card.parse(c) for c in page.eval_on_selector_all(MINE, "els => els.map(e => e.dataset.card)")]
        low = lowest_card(legal, Ruleset.preset("standard").trump_index)
        choice = [c for c in legal if c.rank > low.rank]
        if choice:
            break
        played = len(my_plays(page))
        advance(page, driven, CARD_SECONDS)  # (the timer plays it: the next turn)
        page.wait_for_function(f"() => window.__events.filter(e => e.kind === 'play' && e.seat === 0).length > {played}")
    card = str(max(choice, key=lambda c: c.rank))
    # tapped on the strip of it that shows, as a finger does: lifted, nothing played
    spot = page.evaluate(WHERE, card)
    assert spot["hitStrip"] == card, spot
    page.touchscreen.tap(*spot["strip"])
    assert page.get_attribute(f"[data-testid=hand] [data-card='{card}']", "data-selected") == "true"
    # the server has it once a message sent after it is answered (a socket's messages are handled in order)
    page.evaluate("""() => { window.__probe = null;
      const ws = window.__socket; ws.addEventListener("message", (e) => {
        const m = JSON.parse(e.data); if (m.type === "pong" && m.ref === "after-the-lift") window.__probe = m; });
      ws.send(JSON.stringify({type: "ping", ref: "after-the-lift"})); }""")
    page.wait_for_function("() => window.__probe !== null")

    page.reload()
    page.wait_for_selector(f"[data-testid=hand] [data-card='{card}'][data-selected=true]")
    assert "again" in page.inner_text("[data-testid=turn-line]")
    assert page.evaluate("window.__sent.filter(m => m.type === 'select')") == []  # nothing told over it
    advance(page, driven, CARD_SECONDS)  # the turn runs out
    page.wait_for_function("() => window.__events.some(e => e.kind === 'play' && e.seat === 0)")
    (play,) = my_plays(page)
    assert play["card"] == card != str(low) and play["reason"] == "timeout", play
    ctx.close()
