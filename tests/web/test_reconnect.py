"""A server killed mid-match: the page shows a banner, then reconnects by itself."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .conftest import free_port, start_server, stop_server
from .driven import CARD_SECONDS, MINE, advance, driven, phone_at_table, wait_for
from .helpers import play_card, wait_free_turn
from .test_phone_hand import PHONE, RECORDER

__all__ = ["driven"]  # the fixture


def test_server_killed_and_restarted(browser: Any, tmp_path: Path) -> None:
    port = free_port()
    db, log = str(tmp_path / "t.sqlite"), str(tmp_path / "server.log")
    proc = start_server(port, db, log)
    ctx = browser.new_context(viewport={"width": 1000, "height": 800})
    page = ctx.new_page()
    page.set_default_timeout(10_000)
    try:
        page.goto(f"http://127.0.0.1:{port}/")
        page.select_option("#now-bots", "random")
        page.click("[data-testid=play-now]")
        page.wait_for_selector("[data-call]")
        page.locator("[data-call]:not([disabled])").first.click()
        wait_free_turn(page)
        hand = page.locator("[data-testid=hand] [data-card]").evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        page.wait_for_selector("[data-testid=disconnected]:not([hidden])")
        assert "reconnecting" in page.inner_text("[data-testid=disconnected]")
        proc = start_server(port, db, log)
        page.wait_for_selector("[data-testid=disconnected][hidden]", state="attached", timeout=20_000)
        page.wait_for_selector("[data-testid=hand].my-turn [data-legal=true]")
        assert (
            page.locator("[data-testid=hand] [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
            == hand
        )
        card = page.locator("[data-testid=hand] [data-legal=true]").first.get_attribute("data-card")
        page.locator("[data-testid=hand] [data-legal=true]").first.click()
        page.wait_for_selector(f"[data-testid=trick] [data-card='{card}']")
    finally:
        ctx.close()
        stop_server(proc)


def test_a_player_back_after_the_grace_is_told_what_the_bot_did(driven: str, browser: Any) -> None:
    """Found in a newcomer's try: a friend away for a minute came back to a call of 3 and nine
    tricks played in their name, with no word of it. Back, the page says what the bot did."""
    import httpx

    from callbreak.i18n import catalogue

    rules = {"preset": "standard", "rounds": 1, "card_seconds": 15, "call_seconds": 30}
    made = httpx.post(f"{driven}/api/tables", json={"rules": rules, "bots": "random", "name": "Asha"}).json()
    friend = httpx.post(f"{driven}{made['invite_url'].replace('/join/', '/api/join/')}", json={"name": "Bimal"}).json()
    ctx_a, ctx_b = browser.new_context(**PHONE), browser.new_context(**PHONE)
    asha, bimal = ctx_a.new_page(), ctx_b.new_page()
    bimal.goto(driven + friend["seat_url"])  # (the friend stays: the table goes on while someone is there)
    asha.goto(driven + made["seat_url"])
    asha.tap("[data-testid=start-btn]")
    asha.wait_for_selector("[data-testid=hand] [data-card]")
    asha.close()
    table = made["table"]

    def seen() -> dict[str, Any]:  # the table as a spectator sees it
        state: dict[str, Any] = httpx.get(f"{driven}/api/tables/{table}").json()["state"]
        return state

    def asha_acted_by_bot() -> bool:
        st = seen()
        return st["calls"][made["seat"]] is not None and st["hand_sizes"][made["seat"]] < 13

    for _ in range(600):  # the grace (20 s), then the bots' turns and the friend's timers
        if asha_acted_by_bot():
            break
        assert httpx.post(f"{driven}/test/clock", json={"advance": 1.0}, timeout=30).status_code == 200
    assert asha_acted_by_bot()
    back = ctx_a.new_page()
    back.goto(driven + made["seat_url"])
    back.wait_for_selector("[data-testid=hand]")
    en = catalogue("en")
    start = str(en["table.away_both"]["other"]).split("{")[0]  # type: ignore[index]
    back.wait_for_function("(t) => (document.querySelector('#toast .toast-text') || {}).textContent?.startsWith(t)", arg=start)
    said = back.inner_text("#toast .toast-text")
    st = seen()
    played = 13 - st["hand_sizes"][made["seat"]]
    assert said == f"While you were away, a call of {st['calls'][made['seat']]} was made and {played} card{'s were' if played > 1 else ' was'} played for you.", said
    ctx_a.close()
    ctx_b.close()


def test_the_seat_s_own_link_carries_the_game_to_another_device(driven: str, browser: Any) -> None:
    """Found in a newcomer's try: the home page spoke of "your own seat link (to carry on from
    another device)", and no page showed it. The scores dialog gives it; another device opening
    it plays the same seat."""
    from .driven import phone_at_seat

    # the page as on plain http at a network address (a server for friends at home): no
    # navigator.clipboard there (the test keeps it aside to read what was copied)
    hide = "window.__clipboard = navigator.clipboard; Object.defineProperty(navigator, 'clipboard', { value: undefined });"
    ctx, page, table, _ = phone_at_seat(browser, driven, scripts=(hide,))
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=driven)
    page.tap("[data-testid=scores-btn]")
    shown = page.input_value("[data-testid=seat-link]")  # (shown too, to copy by hand)
    page.tap("[data-testid=copy-seat-link]")
    page.wait_for_function("() => document.querySelector('#toast.show .toast-text')?.textContent === 'Copied.'")
    link = page.evaluate("window.__clipboard.readText()")
    assert link == shown and link.startswith(f"{driven}/t/{table}#"), link
    hand = sorted(page.locator("[data-testid=hand] [data-card]").evaluate_all("els => els.map(e => e.dataset.card)"))
    other = browser.new_context(viewport={"width": 1280, "height": 800})
    desk = other.new_page()
    desk.goto(link)
    desk.wait_for_selector("[data-testid=hand] [data-card]")
    assert sorted(desk.locator("[data-testid=hand] [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")) == hand
    # that device's record knows its seat (kept without one from a link: the analysis lists the
    # player's own slips by it, a reviewer's read)
    recorded = desk.evaluate(f"() => JSON.parse(localStorage.getItem('callbreak.tables')).find((r) => r.table === '{table}').seat")
    assert recorded == 0, recorded
    other.close()
    ctx.close()


@contextlib.contextmanager
def asha_and_a_friend(driven: str, browser: Any, **rules: object) -> Iterator[tuple[dict[str, Any], Any, Any]]:
    """A one-round table of Asha (this phone, its page recorded) and a friend who stays at it (so
    the table goes on while Asha is away), started, at Asha's call: the table as made, Asha's
    context and page."""
    import httpx

    table_rules = {"preset": "standard", "rounds": 1, "card_seconds": CARD_SECONDS, "call_seconds": 30, **rules}
    made = httpx.post(f"{driven}/api/tables", json={"rules": table_rules, "bots": "random", "name": "Asha"}).json()
    friend = httpx.post(f"{driven}{made['invite_url'].replace('/join/', '/api/join/')}", json={"name": "Bimal"}).json()
    ctx, other = browser.new_context(**PHONE), browser.new_context(**PHONE)
    try:
        ctx.add_init_script(RECORDER)
        other.new_page().goto(driven + friend["seat_url"])
        page = ctx.new_page()
        page.goto(driven + made["seat_url"])
        page.tap("[data-testid=start-btn]")
        wait_for(page, driven, "[data-call]:not([disabled])")
        yield made, ctx, page
    finally:
        ctx.close()
        other.close()


def test_a_card_tapped_offline_that_the_timer_beat_is_said_not_to_have_gone(driven: str, browser: Any) -> None:
    """A Hindi player's try: a card tapped with the phone offline ("your card goes as soon as the
    connection is back"), the turn's timer played another before it was back (a friend still at
    the table), and the tapped card was back in the hand with only "1 card was played for you" to
    say why. The page says the card did not reach the table in time, with what was done for the seat."""
    import httpx

    with asha_and_a_friend(driven, browser, autoplay_forced=False) as (made, ctx, page):
        page.locator("[data-call]:not([disabled])").first.tap()
        for _ in range(13):  # to a turn with a choice of cards
            wait_for(page, driven, MINE)
            if page.locator(MINE).count() > 1:
                break
            play_card(page, str(page.locator(MINE).first.get_attribute("data-card")), tap=True)
        card = str(page.locator(MINE).first.get_attribute("data-card"))  # (the timer plays the lowest)
        seat = made["seat"]
        plays = f"() => window.__events.filter(e => e.kind === 'play' && e.seat === {seat}).map(e => e.card)"
        before = page.evaluate(plays)
        ctx.set_offline(True)
        page.wait_for_selector("[data-testid=disconnected]", state="visible")
        play_card(page, card, tap=True)
        page.wait_for_selector("[data-testid=hand] .card.sending")
        r = httpx.post(f"{driven}/test/clock", json={"advance": CARD_SECONDS + 1}, timeout=30)
        assert r.status_code == 200, r.text
        ctx.set_offline(False)
        page.wait_for_function(f"() => ({plays})().length > {len(before)}")
        (played,) = page.evaluate(plays)[len(before):]
        assert played != card  # (the timer's card, not the one tapped)
        name = "async (c) => (await import('/static/util.js')).cardName(c)"
        said, instead = page.evaluate(name, card), page.evaluate(name, played)
        page.wait_for_selector("#toast.show:has-text('did not reach the table in time')")
        assert page.inner_text("#toast .toast-text") == (
            f"Your {said} did not reach the table in time: the {instead} was played for you."
        )
        assert page.locator(f"[data-testid=hand] [data-card='{card}']:not(.sending)").count() == 1


#: the page put out of sight (another app in front), or back in view
SIGHT = """(hidden) => {
  Object.defineProperty(document, "hidden", { value: hidden, configurable: true });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_what_the_timer_did_while_the_page_was_out_of_sight_is_said_when_it_is_back(driven: str, browser: Any) -> None:
    """A Hindi player's try: his page behind another app (the socket up), the timer played his 2♣;
    its toast had gone before he looked, and nothing else said it. Back in view, the page says it."""
    ctx, page = phone_at_table(browser, driven)
    try:
        wait_for(page, driven, "[data-call]:not([disabled])")
        page.locator("[data-call]:not([disabled])").first.tap()
        wait_for(page, driven, MINE)
        page.evaluate(SIGHT, True)
        advance(page, driven, CARD_SECONDS + 1)
        (played,) = page.evaluate("() => window.__events.filter(e => e.kind === 'play' && e.seat === 0 && e.auto).map(e => e.card)")
        said = page.evaluate("async (c) => (await import('/static/util.js')).cardName(c)", played)
        page.wait_for_selector("#toast.show", state="hidden")  # (its toast gone, unseen)
        page.evaluate(SIGHT, False)
        page.wait_for_selector("#toast.show")
        assert page.inner_text("#toast .toast-text") == f"Time ran out: the {said} was played for you."
    finally:
        ctx.close()


def test_what_was_done_for_a_seat_while_away_told_out_of_sight_is_said_again_in_view(driven: str, browser: Any) -> None:
    """A phone offline with the page behind another app: the seat's call was made for it; the
    page got back in (the network back, the page still out of sight) and said so in a toast no
    one saw, and nothing said it again. Back in view, the page says it again."""
    import httpx

    with asha_and_a_friend(driven, browser) as (made, ctx, page):
        page.evaluate(SIGHT, True)
        ctx.set_offline(True)
        page.wait_for_selector("[data-testid=disconnected]", state="visible")
        seat = made["seat"]
        for _ in range(120):  # the grace, then the call's timer (or the seat's bot)
            if httpx.get(f"{driven}/api/tables/{made['table']}").json()["state"]["calls"][seat] is not None:
                break
            assert httpx.post(f"{driven}/test/clock", json={"advance": 1.0}, timeout=30).status_code == 200
        call = httpx.get(f"{driven}/api/tables/{made['table']}").json()["state"]["calls"][seat]
        assert call is not None
        ctx.set_offline(False)
        said = f"While you were away, a call of {call} was made for you."
        page.wait_for_selector(f"#toast.show:has-text('{said}')")  # told out of sight ...
        page.wait_for_selector("#toast.show", state="hidden")  # ... and gone, unseen
        page.evaluate(SIGHT, False)
        page.wait_for_selector("#toast.show")
        assert page.inner_text("#toast .toast-text") == said
