"""The first paint in the reader's language: on a slow phone's link the catalogue came over a
second after the page, and until then the top bar and "Loading…" were in English for a Nepali
reader. The server words the page by the browser's ``Accept-Language``; the client words it the
same way once its catalogue is in (a second copy of ``translatePage``, held to it here)."""

from __future__ import annotations

from typing import Any

from callbreak.i18n import catalogue

from .test_phone_hand import PHONE

HEADER = """() => [document.documentElement.lang, document.querySelector("header.topbar").outerHTML,
  document.querySelector("main").textContent, document.title]"""
#: every word of the static page that `translatePage` sets (but for "Loading…", which the page's
#: own drawing replaces): each element's text, each attribute
WORDED = """() => [document.documentElement.lang,
  ...[...document.querySelectorAll("[data-i18n]:not(main *)")].map((e) => e.textContent),
  ...["aria-label", "title", "content"].flatMap((a) => [...document.querySelectorAll(`[data-i18n-${a}]`)].map((e) => e.getAttribute(a)))]"""


def test_a_nepali_readers_first_paint_is_in_nepali_before_the_catalogue_comes(server: str, browser: Any) -> None:
    ctx = browser.new_context(**PHONE, locale="ne-NP")
    held: list[Any] = []
    try:
        page = ctx.new_page()
        page.route("**/static/i18n/ne.json", lambda route: held.append(route))  # (the slow link: not in yet)
        page.goto(server + "/", wait_until="domcontentloaded")
        page.wait_for_function("() => document.querySelector('header.topbar') !== null")
        assert held  # the page asked for it, and has not got it
        lang, header, main, title = page.evaluate(HEADER)
        ne = catalogue("ne")
        assert (lang, main, title) == ("ne", ne["page.loading"], ne["title.home"])
        for key in ("nav.rules", "nav.calculator", "nav.matches", "home.title"):
            assert f">{ne[key]}<" in header, key
        assert f'aria-label="{ne["settings.title"]}"' in header and "Rules" not in header
        served = page.evaluate(WORDED)
        held[0].continue_()
        page.wait_for_selector("[data-testid=play-now]")
        page.evaluate("async () => (await import('/static/i18n.js')).translatePage()")
        assert page.evaluate(WORDED) == served  # the client words it the same
    finally:
        ctx.close()


def test_a_language_chosen_on_the_device_is_the_first_paints(server: str, browser: Any) -> None:
    """A review's find: a reader who chose English on a Nepali phone got a Nepali first paint on
    every load (the server went by the browser's language), then English. The page keeps the choice
    in a cookie, and the server words the page by it. (No service worker here: each page from the
    server, its catalogue held back.)"""
    ctx = browser.new_context(**PHONE, locale="ne-NP", service_workers="block")
    held: list[Any] = []
    try:
        page = ctx.new_page()
        page.goto(server + "/")
        page.wait_for_selector("[data-testid=play-now]")
        with page.expect_navigation():
            page.evaluate("async () => (await import('/static/i18n.js')).setLanguage('en')")  # (the settings' choice)
        page.wait_for_selector("[data-testid=play-now]")
        page.route("**/static/i18n/en.json", lambda route: held.append(route))
        page.goto(server + "/rules", wait_until="domcontentloaded")
        page.wait_for_function("() => document.querySelector('header.topbar') !== null")
        assert held  # (the page's words not in yet)
        lang, header, _, _ = page.evaluate(HEADER)
        en = catalogue("en")
        assert lang == "en" and f">{en['nav.rules']}<" in header, header
    finally:
        for route in held:
            route.continue_()
        ctx.close()
