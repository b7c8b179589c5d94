"""A hint shown on a turn goes once a card of the seat is played, by the player or for them.

Found in a newcomer's try on a phone: a hint asked for stayed on the turn line after the turn's
timer (then a bot) played the seat, hiding "your turn" on later turns and naming a card no longer
in the hand. The server's clock moves only when the test moves it: nothing races the timer.
"""

from __future__ import annotations

from typing import Any

from callbreak.i18n import catalogue

from .driven import CARD_SECONDS, MINE, advance, driven, phone_at_table, wait_for

__all__ = ["driven"]  # the fixture


def test_a_hint_goes_once_the_timer_plays_the_seat(driven: str, browser: Any) -> None:
    ctx, page = phone_at_table(browser, driven)
    wait_for(page, driven, "[data-call]:not([disabled])")
    page.locator("[data-call]:not([disabled])").first.tap()
    wait_for(page, driven, MINE)
    page.locator("[data-testid=hint-btn]").tap()
    page.wait_for_selector("[data-testid=card-hint]")
    advance(page, driven, CARD_SECONDS)  # the turn runs out: the timer plays the seat's card
    page.wait_for_function("() => window.__events.some(e => e.kind === 'play' && e.seat === 0)")
    assert page.locator("[data-testid=card-hint]").count() == 0
    wait_for(page, driven, MINE)  # the next turn: it says so, with no hint of the turn before
    assert page.locator("[data-testid=card-hint]").count() == 0
    assert page.inner_text("[data-testid=turn-line]") == catalogue("en")["turn.your_play"]
    ctx.close()


def test_a_hint_asked_for_with_a_card_lifted_shows_its_reason(driven: str, browser: Any) -> None:
    """A Bengali player's try: with a card lifted, the Hint button's answer was hidden behind the
    "tap again" cue, and the hinted card wore the lifted card's gold ring."""
    ctx, page = phone_at_table(browser, driven)
    wait_for(page, driven, "[data-call]:not([disabled])")
    page.locator("[data-call]:not([disabled])").first.tap()
    wait_for(page, driven, MINE)
    while page.locator(MINE).count() < 2:  # a turn with a choice (else the only card is played)
        page.locator(MINE).first.tap()
        page.locator(MINE).first.tap()
        wait_for(page, driven, MINE)
    lifted = page.locator(MINE).first.get_attribute("data-card")
    page.locator(MINE).first.tap()
    page.wait_for_selector(f"[data-card='{lifted}'][data-selected=true]")
    page.locator("[data-testid=hint-btn]").tap()
    why = page.wait_for_selector("[data-testid=card-hint] .why").inner_text()
    hinted = page.locator("[data-testid=hand] .card.hinted").get_attribute("data-card")
    en = catalogue("en")
    assert why in [v for k, v in en.items() if k.startswith("hint.why.")] or why.startswith("over the deals"), why
    what = page.inner_text("[data-testid=card-hint] .what")
    if hinted == lifted:  # the cue stays on the first line
        assert "again" in what, what
    else:  # the hint whole; the two cards' rings differ
        assert what.startswith(("Hint: the ", "Quick hint: the ")), what  # (a quick one while the kernel warms up)
        ring = page.eval_on_selector(f"[data-card='{hinted}']", "e => getComputedStyle(e).outlineStyle")
        assert ring == "dashed", ring
    ctx.close()
