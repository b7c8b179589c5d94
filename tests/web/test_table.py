"""The table against a real `callbreak serve` process, in Chromium."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from callbreak.i18n import catalogue

from .driven import advance, driven
from .helpers import act_once, create_table, play_to_end
from .test_phone_hand import RECORDER

__all__ = ["driven"]  # the fixture


def final_places(page: Any) -> list[tuple[int, int, str]]:
    items = page.locator("[data-testid=final-places] li")
    out = []
    for i in range(items.count()):
        li = items.nth(i)
        out.append((int(li.get_attribute("data-seat")), int(li.get_attribute("data-place")), li.inner_text()))
    return out


#: each time the hand shows a card the server is about to play by itself (the forced card):
#: whether the page offered anything to do then (the Hint button, a hand to tap)
RECORD_FORCED = """
(() => {
  const seen = window.__forced = [];
  new MutationObserver(() => {
    const card = document.querySelector("[data-testid=hand] .card.forced");
    if (!card) return;
    const hint = document.querySelector("[data-testid=hint-btn]");
    const hand = document.querySelector("[data-testid=hand]");
    const last = seen[seen.length - 1];
    const now = { card: card.dataset.card, hint: !!hint && !hint.disabled, myTurn: hand.classList.contains("my-turn") };
    if (!last || JSON.stringify(last) !== JSON.stringify(now)) seen.push(now);
  }).observe(document, { childList: true, subtree: true, attributes: true });
})();
"""


def test_whole_match_against_bots(server: str, page: Any) -> None:
    page.add_init_script(RECORD_FORCED)
    table = create_table(page, server, preset="quick", rounds="1", bots="random", name="Asha")
    page.wait_for_selector("[data-testid=lobby]")
    page.click("[data-testid=start-btn]")
    page.wait_for_selector("[data-testid=hand] [data-card]")
    assert page.locator("[data-testid=hand] [data-card]").count() == 13
    play_to_end([page])
    # The last card of the round, at least, was the only legal one and was played for Asha; while it
    # waited, the page offered nothing to tap or ask for (a Hint asked then is refused: the card is gone).
    forced = page.evaluate("window.__forced")
    assert forced, "no forced card was shown"
    assert all(not f["hint"] and not f["myTurn"] for f in forced), forced
    places = final_places(page)
    assert len(places) == 4
    hist = httpx.get(f"{server}/api/tables/{table}/history?format=json").json()
    assert hist["status"] == "over"
    assert sorted((seat, place) for seat, place, _ in places) == list(enumerate(hist["places"]))
    for seat, _, text in places:
        assert text.endswith(hist["totals"][seat])
    # The hand history is the replay, in the player's language (the final dialog offered its file,
    # in English notation: a Nepali player's "hand history" button gave a file they could not read);
    # the file downloads from the replay, and the replay viewer steps through the match.
    assert page.locator("[data-testid=final] [data-testid=download-history]").count() == 0
    page.click("[data-testid=replay-btn]")
    page.wait_for_selector("[data-testid=replay-view]")
    with page.expect_download() as dl:
        page.click("[data-testid=download-history]")
    assert "Trick 13" in open(dl.value.path()).read()  # noqa: SIM115
    for _ in range(3):
        page.click("[data-testid=replay-next]")
    assert "trick 3" in page.inner_text("[data-testid=replay-pos]")
    assert page.locator("[data-testid=replay-trick] .card").count() == 4
    # on a phone, the trick scrolled into view (below the analysis' panel), ▶ is still on the
    # screen above it (a Nepali player's try: a scroll down to see each step, back up to tap ▶)
    page.set_viewport_size({"width": 360, "height": 640})
    page.evaluate("document.querySelector('[data-testid=replay-trick]').scrollIntoView({ block: 'center' })")
    trick, step = (page.locator(s).bounding_box() for s in ("[data-testid=replay-trick]", "[data-testid=replay-next]"))
    assert trick is not None and step is not None
    assert step["y"] >= 0 and step["y"] + step["height"] <= trick["y"] and trick["y"] + trick["height"] <= 640, (step, trick)
    page.click("[data-testid=replay-next]")
    assert "trick 4" in page.inner_text("[data-testid=replay-pos]")
    # the trick's winning card is marked (its class had no look: nothing showed who won)
    won = page.locator("[data-testid=replay-trick] .card.win")
    assert won.count() == 1 and won.evaluate("e => getComputedStyle(e).outlineStyle") == "solid"
    # each player's name on its own line above their cards (found in a newcomer's try: beside
    # them, with no room between, the first card touched or covered a Bengali name's last letter)
    beside = page.evaluate("""() => [...document.querySelectorAll(".replay-hands > div")].filter((row) => {
      const name = row.querySelector("strong").getBoundingClientRect(), card = row.querySelector(".card").getBoundingClientRect();
      return name.bottom > card.top;
    }).map((row) => row.querySelector("strong").textContent)""")
    assert beside == [], beside
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url))
    page.goto(f"{server}/matches")
    # the server's word on the match (over: the analysis link), asked with the seat tokens in the
    # body, never in a URL (proxies log URLs: found in an operator's try)
    page.wait_for_selector(f"[data-testid=match-item][data-table='{table}'] [data-testid=analyse-link]")
    assert any(u.endswith("/api/matches") for u in urls) and not [u for u in urls if "token" in u], urls
    # the match's rules in the lobby's words (found in a newcomer's try: a quick table of one round,
    # "Standard rules · 1 round" in its lobby, was "custom" here)
    en = catalogue("en")
    words = page.inner_text(f"[data-testid=match-item][data-table='{table}'] small").split(" · ")
    assert words[1:3] == [en["summary.standard"], en["summary.rounds"]["one"].replace("{count}", "1")], words


def test_play_now_alone_against_bots_waits_for_the_player(server: str, page: Any) -> None:
    """Found in a newcomer's try: a practice game's 30 s call timer made the call 1, then a card,
    then gave the seat to a bot while the newcomer read the rules. Alone against bots there is
    no timer: the table waits, and shows no countdown."""
    page.goto(server + "/")
    page.fill("[data-testid=my-name]", "Asha")
    page.click("[data-testid=play-now]")
    page.wait_for_url("**/t/*")
    page.wait_for_selector("[data-call]:not([disabled])", timeout=30_000)  # the seat's turn to call
    table = page.url.rsplit("/", 1)[1]
    info = httpx.get(f"{server}/api/tables/{table}").json()["table"]
    assert (info["rules"]["card_seconds"], info["rules"]["call_seconds"], info["deadline"]) == (None, None, None)
    assert page.locator(".secs").count() == 0


def test_two_friends_through_an_invite_link(server: str, browser: Any) -> None:
    host_ctx = browser.new_context(viewport={"width": 1000, "height": 800})
    guest_ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    host, guest = host_ctx.new_page(), guest_ctx.new_page()
    for pg in (host, guest):
        pg.set_default_timeout(10_000)
    create_table(host, server, preset="quick", rounds="1", bots="random", name="Asha")
    link = host.input_value("[data-testid=invite-link]")
    assert "/join/" in link
    guest.goto(link)
    guest.wait_for_selector("[data-testid=join-name]")
    assert "Asha" in guest.inner_text("main") and "null" not in guest.inner_text("main")
    guest.fill("[data-testid=join-name]", "<i>Bimal</i>")
    guest.click("[data-testid=join-submit]")
    guest.wait_for_selector("[data-testid=lobby]")
    host.wait_for_selector("text=<i>Bimal</i>")  # names are shown as text, never as markup
    assert host.locator("[data-testid=lobby] i").count() == 0
    table_url = guest.url

    def again_by_the_invite(where: str, ready: str) -> None:
        """The friend opens the invite once more (a newcomer's try: in the lobby the form seated them
        a second time; in play the page offered to watch): back at their seat, the page they left
        not kept in the tab's history."""
        tab = guest_ctx.new_page()
        tab.goto(link)
        tab.wait_for_url(where)
        tab.wait_for_selector(ready)
        # (the tab's history: its blank start, then this page in place of the invite's)
        assert tab.evaluate("history.length") == 2 and tab.locator("[data-testid=join-name]").count() == 0
        tab.close()

    again_by_the_invite(table_url, "[data-testid=lobby]")
    assert host.locator("[data-testid=lobby] li", has_text="<i>Bimal</i>").count() == 1
    host.click("[data-testid=start-btn]")
    for pg in (host, guest):
        pg.wait_for_selector("[data-testid=hand] [data-card]")
    again_by_the_invite(table_url, "[data-testid=hand] [data-card]")
    # watching the table, the friend has the way to their own seat
    watch = guest_ctx.new_page()
    watch.goto(table_url.replace("/t/", "/watch/"))
    watch.wait_for_selector("[data-testid=your-seat-btn]")
    assert watch.evaluate("(() => { const e = document.querySelector('.table-top'); return e.scrollWidth <= e.clientWidth; })()")
    watch.tap("[data-testid=your-seat-btn]")
    watch.wait_for_url(table_url)
    watch.wait_for_selector("[data-testid=hand] [data-card]")
    watch.close()
    # Each sees only its own cards.
    mine = set(
        host.locator("[data-testid=hand] [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    )
    theirs = set(
        guest.locator("[data-testid=hand] [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    )
    assert len(mine) == len(theirs) == 13 and not mine & theirs
    # on the host's computer the seats' words are the page's size, not a phone's (about 11 px at
    # 1280 × 800 in a newcomer's try)
    sizes = host.evaluate("[...document.querySelectorAll('.seat .name, .seat .meta')].map(e => parseFloat(getComputedStyle(e).fontSize))")
    assert min(sizes) >= 15, sizes
    play_to_end([host, guest])
    assert [p[:2] for p in final_places(host)] == [p[:2] for p in final_places(guest)]
    # A rematch with the same people: the host asks, the guest follows the offered link.
    old = host.url
    host.click("[data-testid=rematch-btn]")
    host.wait_for_url(lambda url: url != old and "/t/" in url)
    guest.click("[data-testid=join-rematch]")
    guest.wait_for_url(host.url)
    # the new match waits for the friend: the host starts it from the lobby
    host.wait_for_selector("[data-testid=lobby]")
    assert guest.locator("[data-testid=hand] [data-card]").count() == 0
    host.click("[data-testid=start-btn]")
    for pg in (host, guest):
        pg.wait_for_selector("[data-testid=hand] [data-card]")
    names = guest.locator("[data-testid=felt] .seat .name").all_inner_texts()
    assert "Asha" in names and "You" in names
    # the first match's invite, the one link the friend was sent, leads to the rematch they sit at
    again_by_the_invite(host.url, "[data-testid=hand] [data-card]")
    host_ctx.close()
    guest_ctx.close()


def snapshot_view(page: Any) -> dict[str, Any]:
    return page.evaluate(
        """() => ({
        hand: [...document.querySelectorAll('[data-testid=hand] [data-card]')].map(e => e.dataset.card + e.dataset.legal),
        trick: [...document.querySelectorAll('[data-testid=trick] .played')].map(e => e.dataset.seat + e.querySelector('[data-card]').dataset.card),
        metas: [0, 1, 2, 3].map(s => document.querySelector(`[data-testid=seat-meta-${s}]`).textContent.split(' ·')[0]),
        round: document.querySelector('[data-testid=round-info]').textContent,
      })"""
    )


def test_reload_mid_trick_restores_the_same_state(server: str, page: Any, browser: Any) -> None:
    table = create_table(
        page, server, preset="standard", bots="random", card_seconds="none", call_seconds="none"
    )
    page.click("[data-testid=start-btn]")
    # Play until it is our turn with cards already on the trick (and no finished trick on show).
    for _ in range(200):
        page.wait_for_selector("[data-call]:not([disabled]), [data-testid=hand].my-turn [data-legal=true]")
        if page.locator("[data-call]:not([disabled])").count():
            page.locator("[data-call]:not([disabled])").first.click()
            continue
        page.wait_for_function("() => !document.querySelector('[data-testid=trick][data-winner]')")
        if (
            page.locator("[data-testid=trick] .played").count() > 0
            and page.locator("[data-testid=hand] [data-legal=true]").count() > 1
        ):
            break
        act_once(page)
        page.wait_for_timeout(100)
    before = snapshot_view(page)
    assert before["trick"] and any(c.endswith("true") for c in before["hand"])
    page.reload()
    page.wait_for_selector("[data-testid=hand].my-turn [data-legal=true]")
    assert snapshot_view(page) == before
    # A spectator sees the same table and no hand at all.
    ctx = browser.new_context()
    watcher = ctx.new_page()
    watcher.goto(f"{server}/watch/{table}")
    watcher.wait_for_selector("[data-testid=trick] .played")
    seen = watcher.locator("[data-testid=trick] .played").evaluate_all(
        "els => els.map(e => e.dataset.seat + e.querySelector('[data-card]').dataset.card)"
    )
    assert sorted(seen) == sorted(before["trick"])
    assert watcher.locator("[data-testid=hand]").count() == 0
    assert watcher.locator("[data-card]").count() == len(seen)
    ctx.close()
    # And the game goes on from there.
    legal = page.locator("[data-testid=hand] [data-legal=true]").first
    card = legal.get_attribute("data-card")
    legal.click()
    page.wait_for_selector(f"[data-testid=trick] [data-card='{card}']")
    assert page.locator(f"[data-testid=hand] [data-card='{card}']").count() == 0


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_timeouts_play_for_you_then_a_bot_until_you_are_back(driven: str, browser: Any, lang: str) -> None:
    """A player who does nothing: the timer plays for them (and says so), and after two expiries a
    bot takes the seat until they tap "I'm back". The server's clock is the test's (nothing races a
    real timer)."""
    rules = {"preset": "standard", "call_seconds": 20, "card_seconds": 20}
    res = httpx.post(
        f"{driven}/api/tables", json={"rules": rules, "bots": "random", "name": "Asha", "play_now": True}
    )
    res.raise_for_status()
    data = res.json()
    # (Hindi on a 360 px phone: found in QA, the button's words wrapped and the line cut it)
    ctx = browser.new_context(locale=lang, **({} if lang == "en" else {"viewport": {"width": 360, "height": 740}}))
    ctx.add_init_script(RECORDER)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    # The seat link carries the token in its fragment; the page keeps it and drops it from the address bar.
    page.goto(driven + data["seat_url"])
    page.wait_for_selector("[data-testid=hand] [data-card]")
    assert "#" not in page.url
    # nor is it in the socket's URL, which proxies log (found in an operator's try: nginx's access
    # and error logs held every seat's token): it goes in the handshake
    assert sockets and not [u for u in sockets if data["token"] in u or "token" in u], sockets
    assert page.evaluate(f"localStorage.getItem('callbreak.seat.{data['table']}')") == data["token"]
    # Doing nothing: the timer plays for us (and says so), and after two expiries a bot takes over.
    for _ in range(40):
        if page.locator("[data-testid=autoplay-note]").count():
            break
        advance(page, driven, 2.5)
    page.wait_for_selector("[data-testid=autoplay-note]")
    # the button is whole on the screen: inside its line, not cut by it
    button = page.locator("[data-testid=back-btn]").bounding_box()
    line = page.locator("[data-testid=turn-line]").bounding_box()
    assert button is not None and line is not None
    assert line["y"] <= button["y"] and button["y"] + button["height"] <= line["y"] + line["height"], (button, line)
    assert button["x"] + button["width"] <= page.viewport_size["width"], button
    page.click("[data-testid=back-btn]")
    page.wait_for_selector("[data-testid=autoplay-note]", state="detached")
    ctx.close()


@pytest.mark.parametrize(("lang", "player_1"), [("en", "Player 1"), ("bn", "খেলোয়াড় ১")])
def test_a_host_who_types_no_name_is_a_player_to_the_others_not_you(
    server: str, browser: Any, lang: str, player_1: str
) -> None:
    """The home page's name field left empty: the host is "Player 1" in the host's language (it
    was English in every language), never the screen word "You", which a friend would read as
    the host's name."""
    host_ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale=lang)
    guest_ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    host, guest = host_ctx.new_page(), guest_ctx.new_page()
    for pg in (host, guest):
        pg.set_default_timeout(10_000)
    create_table(host, server, preset="quick", rounds="1", bots="random", name="")
    guest.goto(host.input_value("[data-testid=invite-link]"))
    guest.fill("[data-testid=join-name]", "Bimal")
    guest.tap("[data-testid=join-submit]")
    guest.wait_for_selector("[data-testid=lobby]")
    lobby = guest.inner_text("[data-testid=lobby]")
    assert player_1 in lobby and "You" not in lobby.replace("Bimal (you)", ""), lobby
    host.tap("[data-testid=start-btn]")
    guest.wait_for_selector("[data-testid=hand] [data-card]")
    names = guest.locator("[data-testid=felt] .seat .name").all_inner_texts()
    assert names.count("You") == 1 and player_1 in names, names
    host_ctx.close()
    guest_ctx.close()


def test_back_from_a_match_in_play_leads_back_to_it(server: str, browser: Any) -> None:
    """Back pressed at the table (a newcomer's try): the home page offers the way back to the
    match, drawn with the page; tapping it gives the seat again, the hand as it was."""
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    page.goto(server + "/")
    assert page.locator("[data-testid=resume]").count() == 0  # a first visit: nothing to go back to
    page.select_option("#now-bots", "random")
    page.click("[data-testid=play-now]")
    page.wait_for_selector("[data-testid=hand] [data-card]")
    table = page.url.rsplit("/", 1)[1]
    hand = sorted(page.eval_on_selector_all("[data-testid=hand] [data-card]", "els => els.map(e => e.dataset.card)"))
    page.go_back()
    page.wait_for_selector("[data-testid=play-now]")
    link = page.locator("[data-testid=resume-link]")
    assert link.get_attribute("href") == f"/t/{table}"
    link.tap()
    page.wait_for_selector("[data-testid=hand] [data-card]")
    assert page.url.endswith(f"/t/{table}")
    again = sorted(page.eval_on_selector_all("[data-testid=hand] [data-card]", "els => els.map(e => e.dataset.card)"))
    assert again == hand or set(again) < set(hand)  # (the same hand, less what was played for us meanwhile)
    ctx.close()


def test_the_rules_tapped_in_a_match_show_the_way_back_to_it(server: str, browser: Any) -> None:
    """A Hindi player's try: "Rules" in the top bar, tapped during a match, left the table with no
    way back but the browser's. The rules, the calculator and the list of matches show it."""
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    page.goto(server + "/rules")
    page.wait_for_selector("main h1")
    assert page.locator("[data-testid=resume]").count() == 0  # no match on: nothing to go back to
    page.goto(server + "/")
    page.select_option("#now-bots", "random")
    page.click("[data-testid=play-now]")
    page.wait_for_selector("[data-testid=hand] [data-card]")
    table = page.url.rsplit("/", 1)[1]
    for path in ("/calculator", "/matches", "/rules"):
        page.locator(f".topbar nav a[href='{path}']").tap()
        page.wait_for_url(f"**{path}")
        link = page.locator("[data-testid=resume-link]")
        link.wait_for()
        assert link.get_attribute("href") == f"/t/{table}", path
        assert link.is_visible() and link.bounding_box()["y"] < 300, path  # (at the top, not below the page)
    link.tap()
    page.wait_for_selector("[data-testid=hand] [data-card]")
    assert page.url.endswith(f"/t/{table}")
    ctx.close()


def test_a_seat_link_pasted_with_a_bracket_after_it_still_takes_the_seat(server: str, browser: Any) -> None:
    """A chat's markup can stick a ")" or "." to a pasted link. The token now goes in the
    WebSocket's handshake, where such a character would make the browser refuse the socket: the
    page takes the token's URL-safe part, and a fragment that is no token gives the "no seat" page."""
    res = httpx.post(f"{server}/api/tables", json={"rules": {"preset": "quick"}, "bots": "random", "name": "Asha", "play_now": True})
    res.raise_for_status()
    data = res.json()
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    page.goto(server + data["seat_url"] + ").")
    page.wait_for_selector("[data-testid=hand] [data-card]")
    assert page.evaluate(f"localStorage.getItem('callbreak.seat.{data['table']}')") == data["token"]
    other = ctx.new_page()
    # no such table (found in a newcomer's try: "you have no seat here; ask for an invite")
    other.goto(f"{server}/t/{data['table'][::-1]}#not%20a%20token%20at%20all")
    other.wait_for_selector("text=" + catalogue("en")["error.no_table"])
    assert other.locator("text=" + catalogue("en")["table.no_seat"]).count() == 0
    # a table that is, on a phone that has no seat there
    stranger = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    seatless = stranger.new_page()
    seatless.goto(f"{server}/t/{data['table']}#not%20a%20token%20at%20all")
    seatless.wait_for_selector("[data-testid=no-seat] >> text=" + catalogue("en")["table.no_seat"])
    seatless.wait_for_load_state("networkidle")  # (its table looked up: it is there, so the page stays)
    assert seatless.locator("text=" + catalogue("en")["table.no_seat"]).count() == 1
    stranger.close()
    # the seat link pasted into the home page's box, and an invite link opened with a ")" after it
    other.goto(server + "/")
    other.fill("[data-testid=join-code]", server + data["seat_url"] + ").")
    other.press("[data-testid=join-code]", "Enter")
    other.wait_for_selector("[data-testid=hand] [data-card]")
    assert other.url.endswith(f"/t/{data['table']}")
    friends = httpx.post(f"{server}/api/tables", json={"rules": {"preset": "quick"}, "bots": "random", "name": "Asha"}).json()
    other.goto(f"{server}/join/{friends['invite']})")
    other.wait_for_selector("[data-testid=join-name]")
    ctx.close()
