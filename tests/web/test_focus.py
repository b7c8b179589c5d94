"""The keyboard focus survives the table being drawn again.

The table page draws itself again on every message the server sends (another seat's move, a
player coming or going).  A keyboard player who has focused a call button or a card and then
presses Enter makes that call or plays that card, whatever arrived in between: the control
keeps the focus (and, when nothing in it changed, stays the very same element).

The redraw is made to happen, not waited for by the clock: the same player opens the table in
a second tab (their seat's token is in this browser's storage), and the server tells every
connection of the table that a player's connection came, then went.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from .helpers import create_table, wait_free_turn

#: the felt's seats (or the lobby) are drawn afresh on each message: a new element there shows a redraw
DRAWN = "[data-testid=seat-top], [data-testid=lobby]"
MARK = f"() => {{ window.__drawn = document.querySelector('{DRAWN}'); }}"
REDRAWN = f"() => document.querySelector('{DRAWN}') !== window.__drawn"


def new_table(page: Any, server: str) -> None:
    """A lobby of this page's player and three bots, without turn timers (nothing is played for
    the player while the test looks)."""
    create_table(page, server, bots="random", card_seconds="none", call_seconds="none", name="Asha")


def start_game(page: Any, server: str) -> None:
    """`new_table`, started."""
    new_table(page, server)
    page.click("[data-testid=start-btn]")
    page.wait_for_selector("[data-testid=seat-top]")


def redraw(page: Any) -> None:
    """Make ``page`` draw its table again, twice: the player opens a second tab of the table,
    then closes it (the server tells each connection of the table both).

    The second tab is closed only once it has drawn the table, which it does from the server's
    first message: its connection is then known to the server, so closing it is told too (a tab
    closed before its socket opened would be told to nobody, and the wait would run out)."""
    page.evaluate(MARK)
    other = page.context.new_page()
    other.goto(page.url)
    other.wait_for_selector(DRAWN)
    page.wait_for_function(REDRAWN)
    page.evaluate(MARK)
    other.close()
    page.wait_for_function(REDRAWN)


def test_focused_call_button_keeps_focus_across_a_redraw(server: str, page: Any) -> None:
    # in the lobby, the host's focused Start survives the lobby drawn again, and Enter starts
    new_table(page, server)
    page.locator("[data-testid=start-btn]").focus()
    redraw(page)
    assert page.evaluate("document.activeElement.dataset.testid") == "start-btn"
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-call]")
    button = page.locator("[data-call]").nth(2)
    call = button.get_attribute("data-call")
    button.focus()
    redraw(page)
    assert page.evaluate("document.activeElement.dataset.call") == call
    page.keyboard.press("Enter")  # once
    page.wait_for_selector("[data-testid=call-picker]", state="detached")
    expect(page.locator("[data-testid=seat-bottom] .meta")).to_have_text(re.compile(rf"^call {call}\b"))


def test_focused_card_keeps_focus_across_a_redraw(server: str, page: Any) -> None:
    start_game(page, server)
    page.locator("[data-call]").first.click()
    page.wait_for_selector("[data-testid=call-picker]", state="detached")
    wait_free_turn(page)
    # focus outside what is drawn again is left alone: the settings' language menu keeps it
    page.click("[data-testid=settings-btn]")
    page.locator("[data-testid=setting-lang]").focus()
    redraw(page)
    assert page.evaluate("document.activeElement.dataset.testid") == "setting-lang"
    page.click("[data-testid=settings-close]")
    page.wait_for_selector("[data-testid=settings]", state="detached")
    card = str(page.locator("[data-testid=hand] [data-legal=true]").first.get_attribute("data-card"))
    page.locator(f"[data-testid=hand] [data-card='{card}']").focus()
    page.evaluate("() => { window.__card = document.activeElement; }")
    redraw(page)
    assert page.evaluate("document.activeElement.dataset.card") == card
    # nothing in the hand changed: the card was not drawn again (a screen reader is not told it anew)
    assert page.evaluate("() => document.activeElement === window.__card")
    page.keyboard.press("Enter")  # once
    page.wait_for_selector(f"[data-testid=trick] [data-card='{card}']")
    assert page.locator(f"[data-testid=hand] [data-card='{card}']").count() == 0


def test_mouse_click_across_a_redraw_plays_the_card(server: str, page: Any) -> None:
    """A click whose press and release come either side of a redraw still plays the card pressed."""
    start_game(page, server)
    page.locator("[data-call]").first.click()
    page.wait_for_selector("[data-testid=call-picker]", state="detached")
    wait_free_turn(page)
    card = str(page.locator("[data-testid=hand] [data-legal=true]").first.get_attribute("data-card"))
    page.locator(f"[data-testid=hand] [data-card='{card}']").hover()
    page.mouse.down()
    redraw(page)
    page.mouse.up()
    page.wait_for_selector(f"[data-testid=trick] [data-card='{card}']")
    assert page.locator(f"[data-testid=hand] [data-card='{card}']").count() == 0


def test_settings_closed_gives_the_focus_back_to_the_gear(server: str, page: Any) -> None:
    """A keyboard player who opens the settings from the gear and closes them is back on the gear
    (and not on nothing, where the next Tab would start from the page's top)."""
    new_table(page, server)
    page.locator("[data-testid=settings-btn]").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=settings]")
    page.locator("[data-testid=settings-close]").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=settings]", state="detached")
    page.wait_for_function("document.activeElement.dataset.testid === 'settings-btn'")
