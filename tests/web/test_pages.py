"""The pages that need no server (rules, calculator) and the phone layout of every page."""

from __future__ import annotations

import contextlib
import re
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from callbreak import Ruleset
from callbreak.i18n import catalogue
from callbreak.scoring import score

from .helpers import ACTIONABLE, play_card, wait_free_turn

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}


def test_rules_page_examples_match_the_engine(static_url: str, page: Any) -> None:
    page.goto(static_url + "/rules")
    page.wait_for_selector("[data-testid=score-example]")
    rows = page.locator("[data-testid=score-example]")
    assert rows.count() >= 10
    for i in range(rows.count()):
        row = rows.nth(i)
        preset, call, tricks = (row.get_attribute(f"data-{k}") for k in ("preset", "call", "tricks"))
        expected = score(int(call), int(tricks), Ruleset.preset(preset))
        assert row.locator("td").last.inner_text() == str(expected), (preset, call, tricks)
    assert page.locator("[data-testid=rule-example]").count() >= 6
    # Every variant field of the ruleset is explained, under its name in the player's language,
    # alone; the settings' names for the command line and the API are folded apart at the end (a line
    # of code under each rule was programmers' text to a Nepali family)
    names = page.locator("#variants dl.variants > dt").all_inner_texts()
    english = catalogue("en")
    assert len(names) == 20 and names[0] == english["rule.min_call"] and english["rule.timers"] in names, names
    assert all(n and n in english.values() for n in names), names  # (a missing key would show as itself)
    assert page.locator("#variants dl.variants code").count() == 0
    folded = page.locator("[data-testid=field-names]")
    assert not folded.evaluate("d => d.open") and not page.locator("[data-testid=field-names] dd").first.is_visible()
    folded.locator("summary").click()
    settings = folded.locator("dd").all_inner_texts()
    assert folded.locator("dt").all_inner_texts() == names
    assert set(settings) >= {"min_call", "must_head", "card_seconds / call_seconds"} and len(settings) == 20, settings
    text = page.inner_text("#variants")
    for field in Ruleset().to_dict():
        assert field in text, field


def no_horizontal_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_static_pages_fit_a_phone(static_url: str, browser: Any) -> None:
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    for path in ("/rules", "/calculator", "/matches", "/join/nothing"):
        page.goto(static_url + path)
        page.wait_for_selector("main h1")
        no_horizontal_scroll(page)
    # Form controls all have labels.
    page.goto(static_url + "/calculator")
    unlabelled = page.evaluate(
        """() => [...document.querySelectorAll('input:not([type=file]), select')]
             .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')).map(e => e.id)"""
    )
    assert unlabelled == []
    ctx.close()


def test_phone_play_now(server: str, browser: Any) -> None:
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.set_default_timeout(10_000)
    page.goto(server + "/")
    no_horizontal_scroll(page)
    page.select_option("#now-bots", "random")
    page.select_option("#now-preset", "quick")
    page.tap("[data-testid=play-now]")
    page.wait_for_selector("[data-testid=hand] [data-card]")
    no_horizontal_scroll(page)
    # The choices are remembered.
    assert page.evaluate("JSON.parse(localStorage.getItem('callbreak.prefs'))") == {
        "bots": "random",
        "preset": "quick",
    }
    # Every card of the hand shows enough of itself to tap, once the deal has settled
    # (no animation running): one row, a card is covered only by the next card, and the strip
    # that shows holds the centre of the card's face (more than half its width).
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=hand] [data-card]')]"
        ".every(e => e.getAnimations({subtree: true}).length === 0)"
    )
    # The hand is drawn again when what it shows changes (the deal settling, your turn): wait for a
    # layout in which every card is tappable; if none comes, report the last one measured.
    measure = """() => [...document.querySelectorAll('[data-testid=hand] [data-card]')].map(e => {
             const r = e.getBoundingClientRect();
             const n = e.nextElementSibling ? e.nextElementSibling.getBoundingClientRect() : null;
             const next = n ? n.left : r.right;
             return [Math.min(r.right, next) - r.left, r.height, r.right, r.width]; })"""
    tappable = "b => b.length === 13 && b.every(([v, h, right, w]) => v >= 26 && v > w / 2 && h >= 70 && right <= 390)"
    with contextlib.suppress(PlaywrightError):  # (on a timeout the assertions below say what was wrong)
        page.wait_for_function(f"() => ({tappable})(({measure})())", timeout=10_000)
    boxes = page.evaluate(measure)
    assert len(boxes) == 13
    for visible_w, height, right, width in boxes:
        assert visible_w >= 26 and visible_w > width / 2 and height >= 70 and right <= 390, boxes
    played = 0
    while played < 4:
        page.wait_for_selector(ACTIONABLE)
        if page.locator("[data-call]:not([disabled])").count():
            page.locator("[data-call]:not([disabled])").first.tap()
            continue
        legal = page.locator("[data-testid=hand].my-turn [data-legal=true]")
        n = legal.count()
        if n > 1:
            card = legal.first.get_attribute("data-card")
            play_card(page, str(card), tap=True)
            page.wait_for_selector(f"[data-testid=trick] [data-card='{card}']")
            played += 1
        elif n == 1:  # a single legal card is played for us after a short highlight
            page.wait_for_timeout(300)
    no_horizontal_scroll(page)
    ctx.close()


def test_keyboard_play_on_desktop(server: str, page: Any) -> None:
    page.goto(server + "/")
    page.select_option("#now-bots", "random")
    page.click("[data-testid=play-now]")
    page.wait_for_selector("[data-call]")
    # Enter on a focused call button calls, once: the picker keeps the button (and its focus)
    # whatever the table sends between the focus and the key (test_focus.py)
    first = page.locator("[data-call]").first
    call = first.get_attribute("data-call")
    first.press("Enter")
    page.wait_for_selector("[data-testid=call-picker]", state="detached")
    expect(page.locator("[data-testid=seat-bottom] .meta")).to_have_text(re.compile(rf"^call {call}\b"))
    wait_free_turn(page)
    card = page.locator("[data-testid=hand] [data-legal=true]").first.get_attribute("data-card")
    typed = ("10" if card[0] == "T" else card[0]) + card[1]
    page.keyboard.type(typed.lower())
    page.wait_for_selector(f"[data-testid=trick] [data-card='{card}']")
    assert page.locator(f"[data-testid=hand] [data-card='{card}']").count() == 0
    # Arrow keys move through the hand and Enter plays the focused card.
    wait_free_turn(page)
    hand = page.locator("[data-testid=hand] [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    assert len(hand) >= 2
    page.locator("[data-testid=hand] [tabindex='0']").focus()

    def focused_card() -> str:
        return str(page.evaluate("document.activeElement.dataset.card"))

    for _ in hand:  # to the hand's first card (the roving focus may start anywhere)
        page.keyboard.press("ArrowLeft")
    assert focused_card() == hand[0]
    page.keyboard.press("ArrowRight")
    assert focused_card() == hand[1]
    page.keyboard.press("ArrowLeft")
    assert focused_card() == hand[0]
    # by arrows to the first legal card, then Enter plays it
    while page.evaluate("document.activeElement.dataset.legal") != "true":
        before = focused_card()
        page.keyboard.press("ArrowRight")
        assert focused_card() != before, "the hand has no legal card"
    focused = focused_card()
    page.keyboard.press("Enter")
    page.wait_for_selector(f"[data-testid=trick] [data-card='{focused}']")
