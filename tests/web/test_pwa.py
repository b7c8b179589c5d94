"""The installable web app (manifest, icons, service worker, offline pages) and the settings
(one-tap play, sound, vibration), on a phone: 390×844, touch, a fresh browser context per test
(a service worker stays registered for as long as its context lives)."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import struct
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from callbreak.i18n import catalogue
from callbreak.server.pwa import build_id, precache

from .conftest import STATIC, free_port, start_server, stop_server

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(**PHONE)
    yield ctx
    ctx.close()


def new_page(ctx: Any) -> Any:
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    return page


FETCH = """async (url) => {
  const r = await fetch(url);
  const bytes = new Uint8Array(await r.arrayBuffer());
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return { status: r.status, type: r.headers.get("content-type"), body: btoa(bin) };
}"""


def fetch(page: Any, url: str) -> tuple[int, str, bytes]:
    """GET through the page (as the browser installing the app does)."""
    r = page.evaluate(FETCH, url)
    return r["status"], r["type"] or "", base64.b64decode(r["body"])


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (raises on anything that is not a PNG)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    w, h = struct.unpack(">II", data[16:24])
    return int(w), int(h)


def rgb_hex(css: str) -> str:
    """'rgb(11, 61, 38)' -> '#0b3d26'."""
    parts = css[css.index("(") + 1 : css.index(")")].split(",")
    return "#" + "".join(f"{int(float(p)):02x}" for p in parts[:3])


def test_manifest_is_valid_and_its_icons_exist(server: str, phone: Any) -> None:
    page = new_page(phone)
    page.goto(server + "/")
    page.wait_for_selector("main h1")
    href = page.evaluate("document.querySelector('link[rel=manifest]').href")
    status, ctype, body = fetch(page, href)
    assert status == 200 and ctype.startswith("application/manifest+json"), (status, ctype)
    m = json.loads(body)
    assert m["name"] == "Callbreak" and m["short_name"] == "Callbreak"
    assert (m["start_url"], m["scope"], m["display"]) == ("/", "/", "standalone")
    # The colours are the page's: the top bar (theme) and the page background (splash screen).
    assert m["theme_color"] == rgb_hex(
        page.evaluate("getComputedStyle(document.querySelector('.topbar')).backgroundColor")
    )
    assert m["theme_color"] == page.evaluate("document.querySelector('meta[name=theme-color]').content")
    assert m["background_color"] == rgb_hex(page.evaluate("getComputedStyle(document.body).backgroundColor"))
    pngs: dict[tuple[str, str], tuple[int, int]] = {}
    for icon in m["icons"]:
        status, ctype, data = fetch(page, icon["src"])
        assert status == 200 and ctype == icon["type"], icon
        if icon["type"] == "image/png":
            pngs[(icon["sizes"], icon["purpose"])] = png_size(data)
        else:
            assert icon["type"] == "image/svg+xml" and data.lstrip().startswith(b"<svg"), icon
    assert pngs == {
        ("192x192", "any"): (192, 192),
        ("512x512", "any"): (512, 512),
        ("512x512", "maskable"): (512, 512),
    }
    # iOS reads the apple-touch-icon link instead of the manifest.
    apple = page.evaluate("document.querySelector('link[rel=apple-touch-icon]').href")
    status, _, data = fetch(page, apple)
    assert status == 200 and png_size(data) == (180, 180)


def test_service_worker_controls_the_page_and_caches_the_shell(server: str, phone: Any) -> None:
    page = new_page(phone)
    page.goto(server + "/matches")  # a page that asks the API (for the past matches)
    page.wait_for_selector("[data-testid=match-list]")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL") == server + "/sw.js"
    assert page.evaluate("navigator.serviceWorker.ready.then(r => r.scope)") == server + "/"
    res = page.request.get(server + "/sw.js")
    assert res.headers["content-type"].startswith("text/javascript")
    assert res.headers["cache-control"] == "no-cache"
    # The cache is named after this build (the package version and every static file).
    build = build_id(STATIC)
    assert f'const BUILD = "{build}";' in res.text()
    keys = page.evaluate("caches.keys()")
    assert keys == [f"callbreak-{build}"]
    page.goto(server + "/rules")  # a page served by the worker, still asking the API nowhere
    page.wait_for_selector("[data-testid=score-example]")
    cached = page.evaluate(
        f"caches.open('callbreak-{build}').then(c => c.keys()).then(rs => rs.map(r => new URL(r.url).pathname))"
    )
    for path in (
        "/",  # (the page of every path of the app: /rules, /calculator, ... are answered with it)
        "/static/app.js",
        "/static/table.js",
        "/static/style.css",
        "/static/settings.js",
        "/static/manifest.webmanifest",
        "/static/icons/icon-192.png",
    ):
        assert path in cached, path
    assert not [p for p in cached if p.startswith(("/api/", "/ws/"))], cached


@pytest.fixture
def own_server() -> Iterator[tuple[str, Any]]:
    """A server of this test's own, which the test stops."""
    tmp = tempfile.mkdtemp(prefix="cb-pwa-")
    port = free_port()
    proc = start_server(port, os.path.join(tmp, "t.sqlite"), os.path.join(tmp, "server.log"))
    yield f"http://127.0.0.1:{port}", proc
    if proc.poll() is None:
        stop_server(proc)


def test_pages_load_offline_after_a_first_visit(own_server: tuple[str, Any], phone: Any) -> None:
    base, proc = own_server
    page = new_page(phone)
    page.goto(base + "/")
    page.wait_for_selector("[data-testid=play-now]")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    # Offline, and the server gone too: whatever loads now comes from the worker's cache.
    stop_server(proc)
    phone.set_offline(True)
    page.reload()
    page.wait_for_selector("[data-testid=play-now]")
    assert page.inner_text("main h1") == "Callbreak"
    page.goto(base + "/rules")  # never opened online
    page.wait_for_selector("[data-testid=score-example]")
    assert page.locator("[data-testid=score-example]").count() >= 10
    page.goto(base + "/calculator")
    page.wait_for_selector("[data-testid=calc-name-0]")
    page.fill("[data-testid=calc-name-0]", "Asha")
    assert page.input_value("[data-testid=calc-name-0]") == "Asha"
    # A table needs the server: it says so plainly (and the menu still works).
    page.goto(base + "/t/abcdefgh")
    page.wait_for_selector("[data-testid=offline]")
    assert page.inner_text("main h1") == "You are offline"
    page.tap(".topbar nav a[href='/rules']")
    page.wait_for_selector("[data-testid=score-example]")



def test_a_first_visit_sends_each_file_once_and_keeps_the_readers_words_offline(
    own_server: tuple[str, Any], browser: Any
) -> None:
    """A Nepali reader's first visit on a slow phone (a newcomer's try): the service worker, installing,
    fetched every file again past the browser's copies (181 KB beside the page's 71 KB). Now no file
    the page loaded crosses the link again, the worker fetches only what the page has not (the other
    pages' code, the other languages' words), and offline, with the server gone, the page is in Nepali."""
    base, proc = own_server
    ctx = browser.new_context(**PHONE, locale="ne-NP")
    sent: dict[str, list[str]] = {"page": [], "worker": []}  # the paths each had sent with a body

    def finished(r: Any) -> None:
        if r.sizes()["responseBodySize"] > 0:
            sent["worker" if r.service_worker else "page"].append(r.url.removeprefix(base))

    ctx.on("requestfinished", finished)
    want = set(precache(STATIC))
    installed = {"fetches": 0}

    def last_of_install(r: Any) -> bool:
        """The worker's last install fetch has finished (each seen here, as in `finished`)."""
        installed["fetches"] += r.service_worker is not None
        return installed["fetches"] >= len(want)

    try:
        page = new_page(ctx)
        with ctx.expect_event("requestfinished", last_of_install, timeout=60_000):
            page.goto(base + "/")
            page.wait_for_selector("[data-testid=play-now]")
        # (the worker takes the page once its install, which stores every file, is over)
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        build = build_id(STATIC)
        stored = f"""caches.open('callbreak-{build}').then(c => c.keys()).then(rs => rs.map(r => new URL(r.url).pathname))"""
        cached = set(page.evaluate(stored))
        assert want <= cached, want - cached
        # the home page's files and the table's code (asked for before "Play now": test_stall.py)
        assert {"/", "/static/app.js", "/static/style.css", "/static/i18n/ne.json", "/static/table.js"} <= set(sent["page"])
        assert "/static/i18n/en.json" not in sent["page"]  # (the reader's words alone)
        assert set(sent["page"]) & set(sent["worker"]) == set(), sent
        assert {"/static/calculator.js", "/static/i18n/hi.json"} <= set(sent["worker"])  # (the worker's fetches are seen)
        # offline, and the server gone: the page comes from the worker, in the reader's words
        stop_server(proc)
        ctx.set_offline(True)
        page.reload()
        page.wait_for_selector("[data-testid=play-now]")
        assert page.evaluate("document.documentElement.lang") == "ne"
        assert page.inner_text(".topbar nav a[href='/rules']") == catalogue("ne")["nav.rules"]
    finally:
        ctx.close()


def test_a_returning_players_pages_come_from_the_worker_without_waiting_on_the_network(
    own_server: tuple[str, Any], phone: Any
) -> None:
    """A reload on a silent link (Wi-Fi without internet, a dead zone) showed nothing for 6 s, the
    worker waiting on the network first; a slow link waited a round trip on every visit. The app's
    page is the same for every path and changes with the build only: the worker answers it from its
    cache at once and asks the network nothing, here with the server stopped but still listening."""
    base, proc = own_server
    page = new_page(phone)
    page.goto(base + "/")
    page.wait_for_selector("[data-testid=play-now]")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    paths = {"/rules": "[data-testid=score-example]", "/t/abcdefgh": "main", "/": "[data-testid=play-now]"}
    asked: list[str] = []  # every request for one of those pages that reaches the network (the worker's too)

    def route(r: Any) -> None:
        if r.request.url.removeprefix(base).split("?")[0] in paths:
            asked.append(r.request.url)
        r.continue_()

    phone.route(f"{base}/**", route)
    os.kill(proc.pid, signal.SIGSTOP)  # silent: the port takes a connection, nothing answers
    try:
        for path, shown in paths.items():
            page.goto(base + path, wait_until="commit")
            page.wait_for_selector(shown)
        assert page.evaluate("location.pathname") == "/"
        assert asked == [], asked
    finally:
        os.kill(proc.pid, signal.SIGCONT)

INIT = """
(() => {
  const log = [];
  window.__log = log;
  const realVibrate = navigator.vibrate;
  if (realVibrate) {
    navigator.vibrate = function (pattern) { log.push(["vibrate", pattern]); return realVibrate.call(navigator, pattern); };
  }
  const RealAudio = window.AudioContext;
  window.AudioContext = class extends RealAudio {
    constructor(...a) { super(...a); log.push(["audio"]); }
  };
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...a) { log.push(["tone", this.frequency.value]); return start.apply(this, a); };
  // What the server said, next to what the page did (the table's own handler runs after this one).
  const RealWS = window.WebSocket;
  window.WebSocket = class extends RealWS {
    constructor(...a) {
      super(...a);
      this.addEventListener("message", (e) => {
        const m = JSON.parse(e.data);
        if (m.type !== "event") return;
        const st = m.state;
        log.push(["event", m.event.kind, m.event.winner ?? null, m.table.you, st.to_act]);
      });
    }
  };
})();
"""

TURN, TRICK = [60], [40, 50, 40]


def set_switches(page: Any, **want: bool) -> None:
    """Open the settings with the gear and tap each switch that is not as wanted."""
    page.tap("[data-testid=settings-btn]")
    page.wait_for_selector("[data-testid=settings]")
    for name, on in want.items():
        box = page.locator(f"[data-testid=setting-{name}]")
        if box.is_checked() != on:
            page.tap(f"label[for=set-{name}]")
        assert box.is_checked() == on, name
    page.tap("[data-testid=settings-close]")
    page.wait_for_selector("[data-testid=settings]", state="detached")


WON = "() => __log.some(e => e[0] === 'event' && e[1] === 'trick' && e[2] === e[3])"


def play_until_a_trick_won(page: Any) -> list[list[Any]]:
    """Play now against random bots; call and play like a person (the first enabled call, the first
    legal card, "Next round") until we have won a trick.  Returns the log."""
    page.select_option("#now-bots", "random")
    page.tap("[data-testid=play-now]")
    page.wait_for_selector("[data-testid=hand] [data-card]")
    actionable = (
        "[data-call]:not([disabled]), [data-testid=hand].my-turn [data-legal=true], [data-testid=ready-btn]"
    )
    for _ in range(1000):
        if page.evaluate(WON):
            return list(page.evaluate("__log"))
        assert not page.locator("[data-testid=final-places]").count(), "a whole match without a trick won"
        with contextlib.suppress(PlaywrightError):  # the page moved on between the look and the tap
            target = page.locator(actionable)
            if target.count():
                target.first.tap(timeout=2000)
                continue
        with contextlib.suppress(PlaywrightError):
            page.wait_for_function(
                f"() => ({WON})() || document.querySelector({json.dumps(actionable)})", timeout=5000
            )
    raise AssertionError("no trick won in time")


def test_sound_and_vibration_on_your_turn_and_a_trick_won(server: str, phone: Any) -> None:
    phone.add_init_script(INIT)
    page = new_page(phone)
    page.goto(server + "/")
    page.wait_for_selector("[data-testid=play-now]")
    set_switches(page, oneTap=True, sound=True, vibrate=True)
    # Turning sound on plays it once (vibration is on by default here: it was not turned on).
    assert page.evaluate("__log.filter(e => e[0] !== 'audio')") == [["tone", 660]]
    page.evaluate("__log.length = 0")
    log = play_until_a_trick_won(page)
    # Split the log at each event: what the page did in answer to it.
    answers: list[tuple[list[Any], list[Any]]] = []
    for e in log:
        if e[0] == "event":
            answers.append((e, []))
        elif e[0] != "audio":
            assert answers, f"{e} before any event"
            answers[-1][1].append(e)
    won = 0
    turns = 0
    for (_, kind, winner, you, to_act), did in answers:
        if kind == "trick" and winner == you:
            won += 1
            assert did == [["tone", 784], ["tone", 1047], ["vibrate", TRICK]], did
        elif did:
            # Any other cue is the turn's, and only when the turn is ours.
            assert did == [["tone", 660], ["vibrate", TURN]], did
            assert to_act == you
            turns += 1
    assert won == 1  # the log ends with the trick won
    assert turns >= 1


def test_with_sound_and_vibration_off_nothing_plays(server: str, phone: Any) -> None:
    phone.add_init_script(INIT)
    page = new_page(phone)
    page.goto(server + "/")
    page.wait_for_selector("[data-testid=play-now]")
    set_switches(page, oneTap=True, sound=False, vibrate=False)
    log = play_until_a_trick_won(page)
    events = [e for e in log if e[0] == "event"]
    assert any(e[1] == "trick" and e[2] == e[3] for e in events)
    assert any(e[4] == e[3] for e in events), "never our turn"
    assert [e for e in log if e[0] != "event"] == []  # no tone, no vibration, no AudioContext at all


def test_settings_persist_across_reloads(static_url: str, phone: Any) -> None:
    page = new_page(phone)
    page.goto(static_url + "/rules")
    page.wait_for_selector("main h1")
    # The gear is a 44 px target on the top bar's one line, inside the screen.
    gear = page.locator("[data-testid=settings-btn]").bounding_box()
    brand = page.locator(".brand").bounding_box()
    assert gear["width"] >= 44 and gear["height"] >= 44 and gear["x"] + gear["width"] <= 390
    assert abs((gear["y"] + gear["height"] / 2) - (brand["y"] + brand["height"] / 2)) < 4
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.tap("[data-testid=settings-btn]")
    page.wait_for_selector("[data-testid=settings]")
    # The defaults: two taps to play a card, no sound, vibration on (this browser can vibrate).
    assert [page.is_checked(f"[data-testid=setting-{n}]") for n in ("oneTap", "sound", "vibrate")] == [
        False,
        False,
        True,
    ]
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-testid=settings]", state="detached")
    set_switches(page, oneTap=True, sound=True, vibrate=False)
    stored = {"oneTap": True, "sound": True, "vibrate": False}
    assert page.evaluate("JSON.parse(localStorage.getItem('callbreak.settings'))") == stored
    page.reload()
    page.wait_for_selector("main h1")
    page.tap("[data-testid=settings-btn]")
    assert [page.is_checked(f"[data-testid=setting-{n}]") for n in stored] == list(stored.values())
    # Other modules read them through getSettings().
    got = page.evaluate("import('/static/settings.js').then(m => m.getSettings())")
    assert got == stored


def test_a_device_that_cannot_vibrate_is_not_offered_vibration(static_url: str, phone: Any) -> None:
    phone.add_init_script("delete Navigator.prototype.vibrate;")
    page = new_page(phone)
    page.goto(static_url + "/")
    page.wait_for_selector("main h1")
    page.tap("[data-testid=settings-btn]")
    box = page.locator("[data-testid=setting-vibrate]")
    assert box.is_disabled() and not box.is_checked()
    assert "cannot vibrate" in page.inner_text("[data-testid=settings]")
    assert page.evaluate("import('/static/settings.js').then(m => m.getSettings().vibrate)") is False
    # Bad input is refused and changes nothing.
    err = page.evaluate(
        "import('/static/settings.js').then(m => { try { m.setSetting('sound', 'yes'); return ''; }"
        " catch (e) { return e.message; } })"
    )
    assert "true or false" in err
    assert page.evaluate("localStorage.getItem('callbreak.settings')") is None
