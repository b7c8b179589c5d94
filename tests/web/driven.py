"""A phone at a table of a server whose clock the test moves (``CALLBREAK_TEST_HOOKS``): the
turn timers fire only when the test says, so nothing races them."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import free_port, start_server, stop_server
from .test_phone_hand import PHONE, RECORDER

#: the turn timer of `phone_at_table`'s tables
CARD_SECONDS = 15
#: this seat's turn to play, with a legal card to tap
MINE = "[data-testid=hand].my-turn [data-legal=true]"


@pytest.fixture
def driven(tmp_path: Path) -> Iterator[str]:
    """A server whose clock the test moves."""
    port = free_port()
    env = {**os.environ, "CALLBREAK_TEST_HOOKS": "1"}
    proc = start_server(port, str(tmp_path / "driven.sqlite"), str(tmp_path / "server.log"), env=env)
    yield f"http://127.0.0.1:{port}"
    stop_server(proc)


def advance(page: Any, base: str, seconds: float) -> None:
    """Move the server's clock on, then wait until the page has read up to the table's version."""
    r = httpx.post(f"{base}/test/clock", json={"advance": seconds}, timeout=30)
    assert r.status_code == 200, r.text
    (v,) = r.json()["tables"].values()
    page.wait_for_function(f"() => window.__v >= {v}")


def wait_for(page: Any, base: str, selector: str) -> None:
    """Move the server's clock on (the bots' turns) until ``selector`` shows on the page."""
    for _ in range(400):
        if page.locator(selector).count():
            return
        advance(page, base, 0.25)
    raise AssertionError(f"no {selector} on the page")


def phone_at_table(browser: Any, base: str) -> tuple[Any, Any]:
    """A one-round table against random bots (15 s a card, no card played by itself), its seat
    opened on a phone that records what the server says (`RECORDER`); (the context, the page)."""
    ctx, page, _, _ = phone_at_seat(browser, base)
    return ctx, page


def phone_at_seat(
    browser: Any,
    base: str,
    rules: dict[str, Any] | None = None,
    name: str = "Asha",
    scripts: tuple[str, ...] = (),
    clock: bool = False,
) -> tuple[Any, Any, str, str]:
    """`phone_at_table`, with the table's id and the seat's token: (context, page, table, token).
    ``rules``: the table's (else `phone_at_table`'s); ``scripts``: more to run as each page starts;
    ``clock``: the page on Playwright's clock, which the test moves."""
    rules = rules or {"preset": "standard", "rounds": 1, "card_seconds": CARD_SECONDS, "call_seconds": 30,
                      "autoplay_forced": False}  # fmt: skip
    res = httpx.post(f"{base}/api/tables", json={"rules": rules, "bots": "random", "name": name, "play_now": True})
    res.raise_for_status()
    ctx = browser.new_context(**PHONE)
    for script in (RECORDER, *scripts):
        ctx.add_init_script(script)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    if clock:
        page.clock.install()
    page.goto(base + res.json()["seat_url"])
    page.wait_for_selector("[data-testid=hand] [data-card]")
    made = res.json()
    return ctx, page, made["table"], made["token"]
