"""Dialogs on the table page work from the keyboard (found in QA: Escape did nothing after a click)."""

from __future__ import annotations

from typing import Any


def test_scores_dialog_takes_the_focus_keeps_it_and_escape_closes_it(server: str, page: Any) -> None:
    page.goto(server + "/")
    page.select_option("#now-bots", "random")
    page.click("[data-testid=play-now]")
    page.wait_for_selector("[data-testid=scores-btn]")
    page.click("[data-testid=scores-btn]")
    page.wait_for_selector("[data-testid=scores]")
    inside = "() => !!document.activeElement.closest('[data-testid=scores]')"
    page.wait_for_function(inside, timeout=2000)
    for key in ("Tab", "Tab", "Shift+Tab", "Tab"):
        page.keyboard.press(key)
        assert page.evaluate(inside), f"the focus left the dialog after {key}"
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-testid=scores]", state="detached", timeout=2000)
    assert page.evaluate("document.activeElement.dataset.testid") == "scores-btn"
    # the top bar is redrawn on every change of the table: the button keeps the focus
    page.wait_for_selector("[data-call]:not([disabled])", state="attached", timeout=15000)
    page.evaluate("window.__bar = document.querySelector('[data-testid=scores-btn]')")
    # our call, by a click that does not move the focus (as a bot's move would not)
    page.evaluate("document.querySelector('[data-call]:not([disabled])').click()")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=scores-btn]') !== window.__bar", timeout=10000
    )
    assert page.evaluate("document.activeElement.dataset.testid") == "scores-btn"
