"""The lobby on a phone: the invite goes through the share sheet (or Copy / WhatsApp / SMS without
one), a link that names this machine says so, and the lobby names the preset and the bots' level."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from .driven import driven
from .helpers import create_table

__all__ = ["driven"]  # the fixture

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}

# Chromium on Linux has no navigator.share: a recording one stands in for the system share sheet.
RECORDING_SHARE = """
window.__shared = [];
Object.defineProperty(navigator, "share", {
  configurable: true,
  value: (data) => { window.__shared.push(data); return Promise.resolve(); },
});
"""


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(**PHONE)
    yield ctx
    ctx.close()


def lobby(ctx: Any, server: str, **options: str) -> Any:
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    create_table(page, server, **options)
    page.wait_for_selector("[data-testid=lobby]")
    return page


def test_the_share_sheet_gets_the_invite_link(server: str, phone: Any) -> None:
    phone.add_init_script(RECORDING_SHARE)
    page = lobby(phone, server)
    link = page.input_value("[data-testid=invite-link]")
    assert "/join/" in link
    share = page.locator("[data-testid=share-invite]")
    assert "primary" in (share.get_attribute("class") or "")
    assert page.locator("[data-testid=copy-invite]").is_visible()  # Copy stays, as the second choice
    assert page.locator("[data-testid=share-whatsapp]").count() == 0
    share.tap()
    page.wait_for_function("() => window.__shared.length === 1")
    shared = page.evaluate("window.__shared")
    assert shared == [{"title": "Callbreak", "text": "Join my Callbreak table", "url": link}]


def test_without_a_share_sheet_copy_whatsapp_and_sms_are_offered(server: str, phone: Any) -> None:
    phone.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page = lobby(phone, server)
    assert page.evaluate("typeof navigator.share") == "undefined"
    assert page.locator("[data-testid=share-invite]").count() == 0
    link = page.input_value("[data-testid=invite-link]")
    copy = page.locator("[data-testid=copy-invite]")
    assert "primary" in (copy.get_attribute("class") or "")
    wa = page.get_attribute("[data-testid=share-whatsapp]", "href") or ""
    sms = page.get_attribute("[data-testid=share-sms]", "href") or ""
    assert wa == "https://wa.me/?text=" + quote(f"Join my Callbreak table: {link}", safe="")
    assert sms.startswith("sms:") and quote(link, safe="") in sms
    copy.tap()
    page.wait_for_function("() => document.querySelector('#toast.show .toast-text')?.textContent === 'Copied.'")
    assert page.evaluate("navigator.clipboard.readText()") == link


def test_a_link_to_this_machine_says_how_to_serve_on_the_network(server: str, phone: Any) -> None:
    assert "127.0.0.1" in server  # the fixture serves on the loopback address, as `callbreak serve` does
    page = lobby(phone, server)
    warning = page.locator("[data-testid=invite-local-warning]")
    assert warning.is_visible()
    text = warning.inner_text()
    assert "127.0.0.1" in text and "cannot open it" in text
    assert "callbreak serve --host 0.0.0.0" in text and "network address" in text
    # a friend who sat down by the link is not told the host's part (a newcomer's try)
    guest = phone.browser.new_context(**PHONE).new_page()
    guest.goto(page.input_value("[data-testid=invite-link]"))
    guest.fill("[data-testid=join-name]", "Bimal")
    guest.click("[data-testid=join-submit]")
    guest.wait_for_selector("[data-testid=lobby] [data-testid=invite-link]")
    assert guest.locator("[data-testid=invite-local-warning]").count() == 0
    guest.context.close()
    # the rule itself, on the module the lobby uses: only links to this machine are warned about
    verdicts = page.evaluate(
        """async () => {
          const m = await import("/static/lobby.js");
          const urls = ["http://127.0.0.1:8000/join/a", "http://localhost:8000/join/a", "http://[::1]:8000/join/a",
            "http://127.0.3.4/join/a", "http://0.0.0.0:8000/join/a", "http://LOCALHOST./join/a",
            "http://192.168.1.20:8000/join/a", "http://10.0.0.5/join/a", "https://cards.example.org/join/a",
            "http://127.example.org/join/a"];
          return urls.map((u) => m.localLinkWarning(u) !== null);
        }"""
    )
    assert verdicts == [True, True, True, True, True, True, False, False, False, False]


def test_the_lobby_names_the_preset_and_the_bots_level(server: str, phone: Any) -> None:
    page = lobby(phone, server, preset="quick", bots="easy")
    assert page.inner_text("[data-testid=lobby-rules]").startswith("Quick rules · 3 rounds")
    assert page.inner_text("[data-testid=lobby-seat-0]") == "Asha (you)"
    for seat in (1, 2, 3):
        assert (
            page.inner_text(f"[data-testid=lobby-seat-{seat}]")
            == "empty · easy bot unless a friend sits here"
        )
    assert "easy bots" in page.inner_text("[data-testid=start-btn]")
    # the host's Start is on the first screen of the phone, above the invite
    start = page.locator("[data-testid=start-btn]").bounding_box()
    assert start is not None and start["y"] + start["height"] <= 844
    assert start["y"] < page.locator("[data-testid=invite]").bounding_box()["y"]
    # every seat taken: no bots to announce (a Hindi players' try: "Start: empty seats get medium
    # bots" with four friends seated)
    import httpx

    code = page.input_value("[data-testid=invite-link]").rstrip("/").rsplit("/", 1)[1]
    for name in ("Bimal", "Chandra", "Dipa"):
        httpx.post(f"{server}/api/join/{code}", json={"name": name}, timeout=30).raise_for_status()
    page.wait_for_selector("[data-testid=lobby-seat-3] >> text=Dipa")
    assert page.inner_text("[data-testid=start-btn]") == "Start"


def test_a_seat_left_from_another_client_is_offered_again_by_the_invite(server: str, phone: Any) -> None:
    """A friend seated on the phone leaves the seat from the terminal (its own socket): the phone's
    page hears its token refused and forgets it, so the invite offers the seat again, not a way
    back to a seat the server no longer gives (a reviewer's read)."""
    import json

    import httpx
    from websockets.sync.client import connect

    made = httpx.post(f"{server}/api/tables", json={"rules": {"preset": "quick", "rounds": 1}, "bots": "random", "name": "Asha"}).json()
    invite = server + made["invite_url"]
    page = phone.new_page()
    page.goto(invite)
    page.fill("[data-testid=join-name]", "Bimal")
    page.click("[data-testid=join-submit]")
    page.wait_for_selector("[data-testid=lobby]")
    table = made["table"]
    token = page.evaluate(f"localStorage.getItem('callbreak.seat.{table}')")
    with connect(server.replace("http://", "ws://") + f"/ws/{table}", subprotocols=["callbreak", f"token.{token}"]) as ws:  # type: ignore[list-item]
        ws.send(json.dumps({"type": "hello", "since": 0}))
        ws.send(json.dumps({"type": "leave"}))
        page.wait_for_function(f"() => localStorage.getItem('callbreak.seat.{table}') === null")
    page.goto(invite)
    page.wait_for_selector("[data-testid=join-name]")


def join_with_its_answer_lost(server: str, phone: Any) -> tuple[dict[str, Any], Any]:
    """Asha's table, and Bimal's phone at its invite, whose tap on "Take a seat" the server does
    while its answer never reaches the page (its route drops it): (the table made, the page showing
    the error)."""
    import httpx

    made = httpx.post(f"{server}/api/tables", json={"rules": {"preset": "quick", "rounds": 1}, "bots": "random", "name": "Asha"}).json()
    page = phone.new_page()
    page.set_default_timeout(15_000)
    page.goto(server + made["invite_url"])
    lost: list[int] = []

    def lose_the_first_answer(route: Any) -> None:
        if route.request.method == "POST" and not lost:
            lost.append(route.fetch().status)  # the server does the join ...
            route.abort("connectionreset")  # ... and its answer never reaches the page
        else:
            route.continue_()

    page.route("**/api/join/*", lose_the_first_answer)
    page.fill("[data-testid=join-name]", "Bimal")
    page.locator("[data-testid=join-submit]").tap()
    page.wait_for_function("() => document.querySelector('form .error')?.textContent.length > 0")
    assert lost == [200]
    return dict(made), page


def test_a_join_whose_answer_was_lost_takes_one_seat_when_tapped_again(server: str, phone: Any) -> None:
    """A friend taps "Take a seat"; the server seats them, but its answer is lost on the way (a
    phone's network; here the page's route drops it once the server has answered); they see the
    error, tap again, and are at the table in the seat the first tap took. (Before joins carried
    their own random text, the second tap was refused: "a player called Bimal sits at this table
    already", a seat they could not reach; with no name it took a second seat.)"""
    import httpx

    made, page = join_with_its_answer_lost(server, phone)
    code = made["invite_url"].rstrip("/").rsplit("/", 1)[1]
    seats = httpx.get(f"{server}/api/join/{code}").json()["seats"]
    assert [s["name"] for s in seats if s and s["kind"] == "human"] == ["Asha", "Bimal"]
    page.locator("[data-testid=join-submit]").tap()
    page.wait_for_selector("[data-testid=lobby]")
    seats = httpx.get(f"{server}/api/join/{code}").json()["seats"]
    assert [s["name"] for s in seats if s and s["kind"] == "human"] == ["Asha", "Bimal"]
    table = made["table"]
    token = page.evaluate(f"localStorage.getItem('callbreak.seat.{table}')")
    assert token and page.locator("[data-testid=lobby-seat-1]").inner_text().count("Bimal") == 1
    # a second join from the same tab, once this one was answered, is a join of its own
    assert page.evaluate(f"sessionStorage.getItem('callbreak.join.{code}')") is None


def test_a_join_whose_answer_was_lost_reaches_its_seat_after_the_table_started(server: str, phone: Any) -> None:
    """The answer to a friend's tap on "Take a seat" is lost; the host starts the table; the
    friend reloads the invite: the page takes them to their seat at the table, not to "Watch" (a
    reviewer's read: a reloaded page offered no way to the seat its first try took)."""
    import httpx

    made, page = join_with_its_answer_lost(server, phone)
    started = httpx.post(f"{server}/api/tables/{made['table']}/start", json={"token": made["token"]})
    assert started.status_code == 200, started.text
    page.reload()
    page.wait_for_url(f"**/t/{made['table']}")
    page.wait_for_selector("[data-testid=hand] [data-card]")
    token = page.evaluate(f"localStorage.getItem('callbreak.seat.{made['table']}')")
    seats = httpx.get(f"{server}/api/tables/{made['table']}").json()["table"]["seats"]
    assert token and [s["kind"] for s in seats] == ["human", "human", "bot", "bot"]


def test_an_expired_invite_says_what_to_do_next(driven: str, browser: Any) -> None:
    """A Hindi friend opens an invite whose table expired unstarted: the page says so, says what
    to do (ask for a new link, or play against bots), and its button leads to the start page
    (it was a dead end: the one line and nothing to tap)."""
    import httpx

    from callbreak.i18n import catalogue

    made = httpx.post(f"{driven}/api/tables", json={"rules": {"preset": "quick", "rounds": 1}, "bots": "random", "name": "Asha"}).json()
    httpx.post(f"{driven}/test/clock", json={"advance": 31 * 60}, timeout=30).raise_for_status()  # (past the lobby's 30 minutes)
    ctx = browser.new_context(**PHONE, locale="hi-IN")
    try:
        page = ctx.new_page()
        page.set_default_timeout(15_000)
        page.goto(driven + made["invite_url"])
        hindi = catalogue("hi")
        assert page.locator("[data-testid=join-closed]").inner_text() == hindi["table.expired"]
        assert page.locator("[data-testid=join-next]").inner_text() == hindi["join.expired_next"]
        assert page.locator("[data-testid=join-name]").count() == 0
        home = page.locator("[data-testid=join-home]")
        assert home.inner_text() == hindi["page.back_home"]
        home.tap()
        page.wait_for_selector("[data-testid=play-now]")
    finally:
        ctx.close()
