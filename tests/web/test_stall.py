"""A phone whose connection stalls, or goes offline, is told so and reconnects by itself.

Found by a newcomer's try on a phone: with the network cut for 20 s the page showed no banner,
its countdown sat at 0 and a card tapped meanwhile read "playing…" with nothing happening; the
socket stayed open and silent (a dead zone, Wi-Fi without internet), and the page's pings came
every 20 s. Now a socket that answers nothing for a few seconds is given up (the page says it is
reconnecting and opens another), and the browser's offline and online events act at once.
"""

from __future__ import annotations

import json
from typing import Any

from callbreak.i18n import catalogue

from .test_phone_hand import PHONE, open_table, phone, where

CALLS = "[data-call]:not([disabled])"
# Records, in the page, every time the banner saying the page is reconnecting shows.
BANNER_WATCH = """() => {
  window.__banners = 0;
  const banner = document.querySelector("[data-testid=disconnected]");
  new MutationObserver(() => { if (!banner.hidden) window.__banners++; })
    .observe(banner, { attributes: true, attributeFilter: ["hidden"] });
}"""

__all__ = ["phone"]  # the fixture


def open_seat(ctx: Any, server: str) -> Any:
    """A one-round table without timers, against random bots, at the seat's call."""
    page = open_table(ctx, server, rounds=1)
    page.set_default_timeout(20_000)
    page.wait_for_selector(CALLS)
    page.evaluate(BANNER_WATCH)
    return page


def my_call_made(page: Any) -> None:
    """Wait until the page shows this seat's call: the picker gone, the seat's meta line a call."""
    page.wait_for_selector(CALLS, state="detached")
    page.wait_for_function("() => /\\d/.test(document.querySelector('[data-testid=seat-bottom] .meta').textContent)")


def stalling(phone: Any) -> list[dict[str, Any]]:
    """Route every socket of ``phone`` through here; each one's "stalled" makes it carry nothing,
    either way (a dead zone, Wi-Fi without internet), keeping what the page sent in "dropped"
    ("sent": what it carried); with "stall_after", it stalls once it has carried a message holding
    that text."""
    sockets: list[dict[str, Any]] = []

    def route(ws: Any) -> None:
        to_server = ws.connect_to_server()
        me: dict[str, Any] = {"stalled": False, "dropped": [], "url": ws.url, "sent": []}
        sockets.append(me)

        def up(m: Any) -> None:
            (me["dropped"] if me["stalled"] else me["sent"]).append(m)
            if not me["stalled"]:
                # (stalled before it is sent: the sync API may hand on the answer while sending)
                me["stalled"] = bool(me.get("stall_after")) and me["stall_after"] in m
                to_server.send(m)

        ws.on_message(up)
        to_server.on_message(lambda m: None if me["stalled"] else ws.send(m))

    phone.route_web_socket("**/ws/**", route)
    return sockets


def test_a_call_sent_on_a_socket_that_goes_silent_is_sent_again_on_the_next(server: str, phone: Any) -> None:
    """A Hindi player's try: a call tapped as the signal went was lost; the picker came back with no
    word of it, and the timer called 1 for them. The page gives the silent socket up, opens another,
    and sends the call again there: the player's call is made, with no second tap."""
    sockets = stalling(phone)
    page = open_seat(phone, server)
    assert len(sockets) == 1
    sockets[0]["stalled"] = True  # from now on the first socket carries nothing, either way
    calls = page.locator(CALLS)
    call = int(str(calls.last.get_attribute("data-call")))
    calls.last.tap()  # the call is sent on it, and lost
    page.wait_for_selector(CALLS, state="detached")  # (waiting for the server's word)
    # the page gives the silent socket up (its ping and the call unanswered) and opens another
    # (at once here, so no banner: the next socket works), and the call goes through on it
    page.wait_for_function("() => window.__opened === 2")
    my_call_made(page)
    assert [m for m in sockets[0]["dropped"] if '"call"' in m]
    assert [json.loads(m) for m in sockets[1]["sent"] if '"call"' in m] == [{"type": "call", "call": call, "ref": "resend"}]
    assert page.evaluate("window.__events.filter(e => e.kind === 'call' && e.seat === 0).map(e => e.call)") == [call]
    assert page.locator(CALLS).count() == 0
    # after a socket that answered nothing, the next asks another process (a load balancer's key of
    # its own, ?via=1: an operator's try found a hung process's tables waiting on it for the whole hang)
    assert "?" not in sockets[0]["url"] and sockets[1]["url"] == sockets[0]["url"] + "?via=1", sockets


def test_a_call_that_arrived_before_the_socket_went_silent_is_not_sent_again(server: str, phone: Any) -> None:
    """The call reached the server, and its answer was lost: the next socket's catch-up shows the
    call made, and nothing is sent again."""
    sockets = stalling(phone)
    page = open_seat(phone, server)
    sockets[0]["stall_after"] = '"call"'  # the call goes through, then the socket carries nothing
    synced = page.evaluate("window.__synced")
    calls = page.locator(CALLS)
    call = int(str(calls.first.get_attribute("data-call")))
    calls.first.tap()
    page.wait_for_function("() => window.__opened === 2")
    my_call_made(page)
    page.wait_for_function(f"() => window.__synced > {synced}")  # (the next socket caught up: a resend would be sent by now)
    page.evaluate("() => new Promise((done) => setTimeout(done, 0))")  # (and the page's handler of it has run)
    sent = [json.loads(m) for m in sockets[0]["sent"] if '"call"' in m]
    assert [(m["type"], m["call"]) for m in sent] == [("call", call)] and sent[0]["ref"].startswith("act-"), sent
    assert not [m for m in sockets[1]["sent"] if '"call"' in m]
    made = page.evaluate("window.__events.filter(e => e.kind === 'call' && e.seat === 0).map(e => [e.v, e.call])")
    assert {tuple(m) for m in made} == {(made[0][0], call)}  # (the catch-up may bring an event twice)


def test_a_card_played_on_a_socket_that_goes_silent_is_played_on_the_next(server: str, phone: Any) -> None:
    sockets = stalling(phone)
    page = open_seat(phone, server)
    page.locator(CALLS).first.tap()
    my_call_made(page)
    page.wait_for_selector("[data-testid=hand].my-turn [data-legal=true]")
    card = str(page.locator("[data-testid=hand].my-turn [data-legal=true]").last.get_attribute("data-card"))
    sockets[-1]["stalled"] = True
    spot = where(page, card)
    page.touchscreen.tap(*spot["face"])  # lifted
    page.touchscreen.tap(*where(page, card)["face"])  # played: sent on the silent socket, and lost
    page.wait_for_function("() => window.__opened === 2")
    page.wait_for_function(f"() => window.__events.some(e => e.kind === 'play' && e.seat === 0 && e.card === {card!r})")
    assert [m for m in sockets[0]["dropped"] if '"play"' in m]
    assert [json.loads(m)["card"] for m in sockets[1]["sent"] if '"play"' in m] == [card]
    assert page.evaluate("window.__events.filter(e => e.kind === 'play' && e.seat === 0).map(e => e.card)") == [card]


def test_a_phone_that_goes_offline_says_so_at_once_and_sends_the_call_tapped_when_back(
    server: str, phone: Any
) -> None:
    """A Bengali player's try: a call tapped with the phone offline was lost ("try again in a
    moment"), the suggested call still lit as if it were the one chosen, and the timer called 1.
    The call tapped is kept, marked as the player's, and made once the phone is back."""
    sockets = stalling(phone)  # (only to see what each socket carried)
    page = open_seat(phone, server)
    phone.set_offline(True)
    page.wait_for_selector("[data-testid=disconnected]", state="visible")
    assert page.evaluate("window.__banners") == 1
    calls = page.locator(CALLS)
    call = int(str(calls.last.get_attribute("data-call")))
    calls.last.tap()
    page.wait_for_selector("#toast.show:has-text('your move is sent as soon as it is back')")
    chosen = page.locator("[data-call].chosen")
    assert chosen.count() == 1 and chosen.get_attribute("data-call") == str(call)
    assert chosen.get_attribute("aria-label") == f"Call {call} (yours: on its way)"
    assert page.locator(CALLS).count() == 0  # (no second call while this one waits)
    phone.set_offline(False)
    page.wait_for_selector("[data-testid=disconnected]", state="hidden")
    my_call_made(page)
    assert page.evaluate("window.__events.filter(e => e.kind === 'call' && e.seat === 0).map(e => e.call)") == [call]
    assert [json.loads(m) for s in sockets for m in s["sent"] if '"call"' in m] == [
        {"type": "call", "call": call, "ref": "resend"}
    ]
    # a card the same way
    page.wait_for_selector("[data-testid=hand].my-turn [data-legal=true]")
    if page.locator("#toast.show [data-testid=toast-close]").count():  # (the call's, put away as a player would)
        page.tap("#toast.show [data-testid=toast-close]")
        page.wait_for_selector("#toast.show", state="detached")
    card = str(page.locator("[data-testid=hand].my-turn [data-legal=true]").last.get_attribute("data-card"))
    page.touchscreen.tap(*where(page, card)["face"])  # lifted
    phone.set_offline(True)
    page.wait_for_selector("[data-testid=disconnected]", state="visible")
    page.touchscreen.tap(*where(page, card)["face"])  # played, offline
    # said for as long as it waits, on the line under the table, once (a toast said it again beside
    # it: a Bengali player's try), the card marked in the hand (a newcomer on a slow phone took the
    # tap for lost: the card sat in the hand like any other)
    page.wait_for_selector("[data-testid=turn-line]:has-text('no connection: your card goes as soon as it is back')")
    assert page.locator("#toast.show:has-text('your move is sent as soon as it is back')").count() == 0
    sending = page.locator("[data-testid=hand] .card.sending")
    assert sending.count() == 1 and sending.get_attribute("data-card") == card
    said = page.evaluate("async (c) => (await import('/static/util.js')).cardName(c)", card)
    assert sending.get_attribute("aria-label") == f"{said}, played: on its way"
    phone.set_offline(False)
    page.wait_for_function(f"() => window.__events.some(e => e.kind === 'play' && e.seat === 0 && e.card === {card!r})")
    plays = [json.loads(m) for s in sockets for m in s["sent"] if '"play"' in m]
    assert [(m["type"], m["card"], m["ref"]) for m in plays] == [("play", card, "resend")] and isinstance(plays[0]["at"], int)


# Records, in the page, whether the felt ever said it was connecting.
SAW_CONNECTING = """() => {
  window.__connecting = false;
  new MutationObserver(() => {
    if (document.querySelector("[data-testid=felt] .center-msg")) window.__connecting = true;
  }).observe(document, { subtree: true, childList: true });
}"""


def test_on_a_slow_link_play_now_keeps_the_home_pages_look_then_says_it_is_connecting(
    server: str, browser: Any
) -> None:
    """A newcomer's try on a slow phone: after "Play now" the home page was drawn on the table's
    dark felt for seconds, its words near invisible, while the table's code came; then the felt
    stood empty, with no word, until the table's first message."""
    ctx = browser.new_context(service_workers="block", **PHONE)
    try:
        page = ctx.new_page()
        page.set_default_timeout(20_000)
        held: list[Any] = []
        page.route("**/static/table.js*", lambda route: held.append(route))  # the table's code held back: a slow link
        # (the home page asks for it once drawn, before any tap: it is on its way at the tap)
        with page.expect_request(lambda r: "/static/table.js" in r.url):
            page.goto(server + "/")
        page.wait_for_selector("[data-testid=play-now]")
        page.locator("[data-testid=play-now]").tap()
        page.wait_for_url("**/t/**")
        assert page.evaluate("document.body.dataset.page") == "home"  # the home page's look, while it shows
        page.evaluate(SAW_CONNECTING)
        held[0].continue_()
        page.wait_for_selector("[data-testid=hand] [data-card]")
        assert page.evaluate("document.body.dataset.page") == "table"
        assert page.evaluate("window.__connecting")  # the felt said so before the table's first word
    finally:
        ctx.close()


def test_the_readers_words_come_before_the_apps_code(server: str, browser: Any) -> None:
    """A Nepali reader's first visit on a slow phone (a newcomer's try): the page stood in English
    for 2 s more than it had to, its words asked for only once the whole app's code was in. They are
    asked for as soon as the words' own small script is in: with the app's code held back, the top
    bar is in Nepali; the home page comes with the code."""
    ctx = browser.new_context(service_workers="block", locale="ne-NP", **PHONE)
    try:
        page = ctx.new_page()
        page.set_default_timeout(20_000)
        held: list[Any] = []
        page.route("**/static/app.js*", lambda route: held.append(route))  # the app's code on its way
        page.goto(server + "/", wait_until="commit")
        rules = catalogue("ne")["nav.rules"]
        page.wait_for_function(
            "(rules) => document.querySelector(\".topbar nav a[href='/rules']\")?.textContent === rules", arg=rules
        )
        assert held and page.locator("[data-testid=play-now]").count() == 0  # (the app's code is not in)
        assert page.evaluate("document.documentElement.lang") == "ne"
        held[0].continue_()
        page.wait_for_selector("[data-testid=play-now]")
        assert page.inner_text("[data-testid=play-now]") == catalogue("ne")["home.play_now"]
    finally:
        ctx.close()


def test_the_home_page_asks_for_the_tables_code_before_play_now(server: str, browser: Any) -> None:
    """A slow phone's first visit (400 kbit/s): after "Play now" the player waited for the table's
    code as well as its first message (a hand 3.8 s after the tap, 3.1 s now: benchmarks/first_visit.py). The pages that lead to a table ask for its code once drawn; the
    others (the rules) do not spend a slow link on it."""
    ctx = browser.new_context(**PHONE)
    try:
        page = ctx.new_page()
        page.set_default_timeout(20_000)
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url.split("?")[0].removeprefix(server)))
        page.goto(server + "/rules")
        page.wait_for_selector("[data-testid=score-example]")
        # the service worker is installed once the page has decided (and fetched what it asked for)
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        assert "/static/table.js" not in asked
        page.goto(server + "/")
        page.wait_for_selector("[data-testid=play-now]")
        # with no tap: the table's module and its own imports (the hand, the dialogs)
        page.wait_for_function(
            """() => ["table", "hand", "dialogs"].every((m) =>
                 performance.getEntriesByType("resource").some((e) => e.name.includes(`/static/${m}.js`)))"""
        )
        assert page.locator("[data-testid=play-now]").count() == 1  # (still the home page)
    finally:
        ctx.close()
