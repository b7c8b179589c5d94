"""A phone whose connection stalls, or goes offline, is told so and reconnects by itself.

Found by a newcomer's try on a phone: with the network cut for 20 s the page showed no banner,
its countdown sat at 0 and a card tapped meanwhile read "playing…" with nothing happening; the
socket stayed open and silent (a dead zone, Wi-Fi without internet), and the page's pings came
every 20 s. Now a socket that answers nothing for a few seconds is given up (the page says it is
reconnecting and opens another), and the browser's offline and online events act at once.
"""

from __future__ import annotations

from typing import Any

from .test_phone_hand import open_table, phone

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


def test_a_socket_that_goes_silent_is_given_up_and_the_call_made_again_goes_through(
    server: str, phone: Any
) -> None:
    sockets: list[dict[str, Any]] = []

    def route(ws: Any) -> None:
        """Every socket of the page passes through here; the first one can be made to stall."""
        to_server = ws.connect_to_server()
        me: dict[str, Any] = {"stalled": False, "dropped": [], "url": ws.url}
        sockets.append(me)
        ws.on_message(lambda m: me["dropped"].append(m) if me["stalled"] else to_server.send(m))
        to_server.on_message(lambda m: None if me["stalled"] else ws.send(m))

    phone.route_web_socket("**/ws/**", route)
    page = open_seat(phone, server)
    assert len(sockets) == 1
    sockets[0]["stalled"] = True  # from now on the first socket carries nothing, either way
    page.locator(CALLS).first.tap()  # the call is sent on it, and lost
    page.wait_for_selector(CALLS, state="detached")  # (waiting for the server's word)
    # the page gives the silent socket up (its ping and the call unanswered) and opens another
    # (at once here, so no banner: the next socket works); the picker is back
    page.wait_for_function("() => window.__opened === 2")
    page.wait_for_selector(CALLS)
    assert len(sockets) == 2 and [m for m in sockets[0]["dropped"] if '"call"' in m]
    # after a socket that answered nothing, the next asks another process (a load balancer's key of
    # its own, ?via=1: an operator's try found a hung process's tables waiting on it for the whole hang)
    assert "?" not in sockets[0]["url"] and sockets[1]["url"] == sockets[0]["url"] + "?via=1", sockets
    page.locator(CALLS).first.tap()
    my_call_made(page)


def test_a_phone_that_goes_offline_says_so_at_once_and_reconnects_when_back(server: str, phone: Any) -> None:
    page = open_seat(phone, server)
    phone.set_offline(True)
    page.wait_for_selector("[data-testid=disconnected]", state="visible")
    assert page.evaluate("window.__banners") == 1
    page.locator(CALLS).first.tap()  # not sent: the player is told, and may call again later
    page.wait_for_selector("#toast.show:has-text('Not connected')")
    phone.set_offline(False)
    page.wait_for_selector("[data-testid=disconnected]", state="hidden")
    page.locator(CALLS).first.tap()
    my_call_made(page)
