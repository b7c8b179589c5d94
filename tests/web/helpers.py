"""Driving the table page like a person: call, play legal cards, press ready."""

from __future__ import annotations

import contextlib
import time
from typing import Any

from playwright.sync_api import Error as PlaywrightError

ACTIONABLE = "[data-call]:not([disabled]), [data-testid=hand].my-turn [data-legal=true], [data-testid=ready-btn], [data-testid=final-places]"


def act_once(page: Any, call_choice: str = "suggested") -> str | None:
    """Do the one thing this seat can do now, if any; return what it was."""
    if page.locator("[data-testid=final-places]").count():
        return "over"
    try:
        if page.locator("[data-testid=ready-btn]").count():
            page.locator("[data-testid=ready-btn]").click(timeout=2000)
            return "ready"
        calls = page.locator("[data-call]:not([disabled])")
        if calls.count():
            sug = page.locator("[data-call].suggested:not([disabled])")
            target = sug if call_choice == "suggested" and sug.count() else calls
            target.first.click(timeout=2000)
            return "call"
    except PlaywrightError:
        return None  # the page moved on meanwhile (a timeout, or the element redrawn)
    legal = page.locator("[data-testid=hand].my-turn [data-legal=true]")
    if legal.count():
        try:
            card = str(legal.first.get_attribute("data-card", timeout=1000))
            play_card(page, card)
        except PlaywrightError:
            return None  # played for us (forced card) or re-rendered meanwhile
        return f"play {card}"
    return None


def play_card(page: Any, card: str, tap: bool = False) -> None:
    """Play ``card`` from the hand as a person does: a click plays it; a tap on a touch screen
    lifts it, and a second tap on the lifted card plays it (unless the one-tap setting is on)."""
    loc = page.locator(f"[data-testid=hand] [data-card='{card}']")
    press = loc.tap if tap else loc.click
    press(timeout=2000)
    if loc.evaluate_all("els => els.some(e => e.dataset.selected === 'true')"):
        press(timeout=2000)


def play_to_end(pages: list[Any], limit_s: float = 90.0, call_choice: str = "suggested") -> None:
    """Play every page's seat until each shows the final places (calling the suggested call, or
    with ``call_choice="lowest"`` the lowest)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        done = 0
        for pg in pages:
            if act_once(pg, call_choice) == "over":
                done += 1
        if done == len(pages):
            return
        if len(pages) == 1:
            with contextlib.suppress(PlaywrightError):
                pages[0].wait_for_selector(ACTIONABLE, timeout=5000)
        else:
            pages[0].wait_for_timeout(60)
    raise AssertionError("the match did not finish in time")


def create_table(page: Any, base: str, **options: str) -> str:
    """Create a table with the home page's "Play with friends" form; return its id."""
    page.goto(base + "/")
    page.fill("[data-testid=f-name]", options.pop("name", "Asha"))
    for field, value in options.items():
        # the main fields' ids use hyphens (f-card-seconds), the "More rules" ones the rule's name
        select = page.locator(f"#f-{field.replace('_', '-')}, [id='f-{field}']")
        if not select.is_visible():  # one of the rules under "More rules": open it, as a person would
            page.click("details.rules-fields > summary")
        select.select_option(value)
    page.click("[data-testid=create-table]")
    page.wait_for_url("**/t/*")
    return str(page.url.rsplit("/", 1)[1])


def wait_free_turn(page: Any) -> None:
    """Wait for our turn to play with a real choice (one legal card is played for us by the server)."""
    for _ in range(100):
        page.wait_for_selector("[data-testid=hand].my-turn [data-legal=true]", timeout=15_000)
        if page.locator("[data-testid=hand] [data-legal=true]").count() > 1:
            return
        page.wait_for_timeout(300)
    raise AssertionError("no turn with a choice of cards")
