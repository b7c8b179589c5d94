"""A card lifted on a phone stays lifted through a reload, and the turn's timer plays it.

The first tap on a card lifts it ("tap again to play"); if the turn runs out, the server plays
that card, not the lowest. A reload used to lose the lift: the page drawn afresh showed no card
lifted and told the server so, and the timer then played the lowest card, one the player had not
chosen. The same seat open in the terminal too: the call chosen there used to be cleared by the
page's "no card lifted" each time it reconnected. The server's clock moves only when this test moves it (``CALLBREAK_TEST_HOOKS``), so
nothing races the turn's timer.
"""

from __future__ import annotations

import json
from typing import Any

from websockets.sync.client import connect

from callbreak import Card, Ruleset
from callbreak.round import lowest_card

from .driven import CARD_SECONDS, MINE, advance, driven, phone_at_seat, phone_at_table, wait_for
from .test_phone_hand import SETTLED, WHERE

__all__ = ["driven"]  # the fixture


def my_plays(page: Any) -> list[dict[str, Any]]:
    return list(page.evaluate("window.__events.filter(e => e.kind === 'play' && e.seat === 0)"))


def answered(page: Any, ref: str) -> None:
    """Wait until the server has answered a ping the page sends now, so it has handled all the
    page sent before it (a socket's messages are handled in order)."""
    page.evaluate(
        """(ref) => { window.__probe = null;
      const ws = window.__socket; ws.addEventListener("message", (e) => {
        const m = JSON.parse(e.data); if (m.type === "pong" && m.ref === ref) window.__probe = m; });
      ws.send(JSON.stringify({type: "ping", ref})); }""",
        ref,
    )
    page.wait_for_function("() => window.__probe !== null")


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
    answered(page, "after-the-lift")

    page.reload()
    page.wait_for_selector(f"[data-testid=hand] [data-card='{card}'][data-selected=true]")
    assert "again" in page.inner_text("[data-testid=turn-line]")
    assert page.evaluate("window.__sent.filter(m => m.type === 'select')") == []  # nothing told over it
    advance(page, driven, CARD_SECONDS)  # the turn runs out
    page.wait_for_function("() => window.__events.some(e => e.kind === 'play' && e.seat === 0)")
    (play,) = my_plays(page)
    assert play["card"] == card != str(low) and play["reason"] == "timeout", play
    ctx.close()


def test_a_call_chosen_in_the_terminal_is_not_cleared_by_the_seat_open_in_a_browser_too(
    driven: str, browser: Any
) -> None:
    ctx, page, table, token = phone_at_seat(browser, driven)
    wait_for(page, driven, "[data-call]:not([disabled])")  # the seat's turn to call
    ws_url = driven.replace("http://", "ws://") + f"/ws/{table}"
    with connect(ws_url, subprotocols=["callbreak", f"token.{token}"]) as terminal:  # type: ignore[list-item]
        terminal.send(json.dumps({"type": "hello", "since": 0}))
        terminal.send(json.dumps({"type": "select", "call": 5, "ref": "chosen"}))
        terminal.send(json.dumps({"type": "ping", "ref": "after-the-call"}))
        while json.loads(terminal.recv(timeout=15)).get("ref") != "after-the-call":
            pass
        # the page's socket drops and comes back: it catches up (a "synced") and says what it
        # says then, all answered before its ping
        synced = page.evaluate("window.__synced")
        page.evaluate("window.__socket.close()")
        page.wait_for_function(f"() => window.__synced > {synced}")
        answered(page, "after-the-reconnection")
        assert page.evaluate("window.__sent.filter(m => m.type === 'select')") == []  # nothing lifted, nothing said
        advance(page, driven, 30)  # the call's turn runs out
        page.wait_for_function("() => window.__events.some(e => e.kind === 'call' && e.seat === 0)")
    (call,) = page.evaluate("window.__events.filter(e => e.kind === 'call' && e.seat === 0)")
    assert call["call"] == 5 and call["reason"] == "timeout", call
    ctx.close()


def test_a_card_touched_while_a_bot_plays_the_seat_takes_the_seat_back(driven: str, browser: Any) -> None:
    """A Bengali player's try: with a bot playing her seat (two turns ran out), the hand still
    offered her cards; her tap lifted one, the bot played another a moment later, and her second tap
    was told "not your turn". A card touched on the seat's turn takes the seat back first."""
    ctx, page, _, _ = phone_at_seat(browser, driven)
    wait_for(page, driven, "[data-call]:not([disabled])")
    advance(page, driven, 30)  # the call's turn runs out
    wait_for(page, driven, MINE)
    advance(page, driven, CARD_SECONDS)  # and a card's: a bot takes the seat
    page.wait_for_selector("[data-testid=back-btn]")
    played = len(my_plays(page))
    for _ in range(1000):  # the seat's next turn, its bot about to play (in 0.05 s on this server)
        if page.evaluate("window.__toAct") == 0:
            break
        advance(page, driven, 0.01)
    # (the server's clock still: the bot waits while the page shows the turn, a trick just won
    # by the seat held a moment first)
    page.wait_for_selector(MINE)
    assert page.locator("[data-testid=back-btn]").count() == 1 and len(my_plays(page)) == played
    card = str(page.locator(MINE).last.get_attribute("data-card"))
    page.touchscreen.tap(*page.evaluate(WHERE, card)["face"])  # lifted, and the seat taken back
    page.wait_for_selector("[data-testid=back-btn]", state="detached")
    advance(page, driven, 1.0)  # past the bot's delay: it does not play
    assert len(my_plays(page)) == played
    page.touchscreen.tap(*page.evaluate(WHERE, card)["face"])  # played, as the player's own
    page.wait_for_function(f"() => window.__events.filter(e => e.kind === 'play' && e.seat === 0).length > {played}")
    last = my_plays(page)[-1]
    assert (last["card"], last["reason"]) == (card, None), last
    ctx.close()
