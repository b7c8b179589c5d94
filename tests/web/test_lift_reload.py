"""A card lifted on a phone stays lifted through a reload, and the turn's timer plays it.

The first tap on a card lifts it ("tap again to play"); if the turn runs out, the server plays
that card, not the lowest. A reload used to lose the lift: the page drawn afresh showed no card
lifted and told the server so, and the timer then played the lowest card, one the player had not
chosen. The server's clock moves only when this test moves it (``CALLBREAK_TEST_HOOKS``), so
nothing races the turn's timer.
"""

from __future__ import annotations

from typing import Any

from callbreak import Card, Ruleset
from callbreak.round import lowest_card

from .driven import CARD_SECONDS, MINE, advance, driven, phone_at_table, wait_for
from .test_phone_hand import SETTLED, WHERE

__all__ = ["driven"]  # the fixture


def my_plays(page: Any) -> list[dict[str, Any]]:
    return list(page.evaluate("window.__events.filter(e => e.kind === 'play' && e.seat === 0)"))


def test_a_card_lifted_before_a_reload_is_shown_lifted_after_it_and_played_when_the_turn_runs_out(
    driven: str, browser: Any
) -> None:
    ctx, page = phone_at_table(browser, driven)
    wait_for(page, driven, "[data-call]:not([disabled])")
    page.locator("[data-call]:not([disabled])").first.tap()
    # a turn with a legal card that is not the one the timer would play by itself
    while True:
        wait_for(page, driven, MINE)
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
