"""A whole match in every language on a phone: no English left on screen, nothing cut or overflowing.

The language comes from the browser's own (Playwright's ``locale``: ``navigator.languages``), as
on a first visit.  At every step of a "Play now" match (quick rules, beginner bots) the test reads
what is on screen (the visible text, and the names controls give screen readers) and fails on any
text that is an English catalogue entry whose translation differs (an entry with placeholders is
matched as a pattern), and on any visible text that leaves the screen's width, is cut inside its
own box, or sticks out of the box that clips it.  Then the rules and calculator pages, the same way.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Error as PlaywrightError

from callbreak.bots.names import NAMES, written
from callbreak.i18n import LANGUAGES, catalogue, digits, plural_form, translator

from .helpers import ACTIONABLE, create_table, play_card

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LOCALES = {"en": "en-US", "ne": "ne-NP", "hi": "hi-IN", "bn": "bn-BD"}

#: what is on screen: visible texts, the labels of visible controls, and the boxes of the
#: elements holding visible text that leave the screen, are cut, or stick out of their clip
SCREEN = """() => {
  const vw = window.innerWidth, out = { texts: [], bad: [] };
  // (out of sight for a screen reader alone, as .sr-only is: a table's headings row on a phone)
  const clipped = (el) => { for (let p = el; p; p = p.parentElement) if (getComputedStyle(p).clip === "rect(0px, 0px, 0px, 0px)") return true; return false; };
  const shown = (el) => {
    if (!el || el.closest(".sr-only, .skip:not(:focus), [hidden], [aria-hidden=true]") || clipped(el)) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
  };
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const text = n.textContent.trim(), el = n.parentElement;
    if (!text || !shown(el) || el.closest("script, style, noscript, option")) continue;
    if (!el.closest("code")) out.texts.push(text);  // (code: a rule's field name, a command)
    // the text's own box (a Range), not its element's: the element may hold other things
    const range = document.createRange();
    range.selectNodeContents(n);
    const r = range.getBoundingClientRect(), name = `${el.tagName.toLowerCase()}.${el.className} "${text.slice(0, 40)}"`;
    if (r.width === 0) continue;
    if (el.closest(".trick-area[class*=collect-]")) continue;  // a won trick flying off to its winner
    if (r.left < -1 || r.right > vw + 1) out.bad.push(`${name} leaves the screen: ${Math.round(r.left)}..${Math.round(r.right)}`);
    const cs = getComputedStyle(el);
    if (cs.textOverflow === "ellipsis" && el.scrollWidth > el.clientWidth + 1) out.bad.push(`${name} is cut short (ellipsis)`);
    // the first box around it that clips: the text stays inside it (a scrolling box is fine)
    for (let p = el; p && p !== document.body; p = p.parentElement) {
      const pcs = getComputedStyle(p);
      if (pcs.overflowX === "visible" && pcs.overflowY === "visible") continue;
      if (["auto", "scroll"].includes(pcs.overflowX) || ["auto", "scroll"].includes(pcs.overflowY)) break;
      const q = p.getBoundingClientRect();
      // (a line's box is its font's full height, taller than the ink of Devanagari and Bengali
      // set with a tight line-height: a third of a line up or down is not a line cut off)
      const slack = Math.min(r.height, parseFloat(cs.fontSize) * 1.6) / 3;
      if (r.left < q.left - 1 || r.right > q.right + 1 || r.top < q.top - slack || r.bottom > q.bottom + slack)
        out.bad.push(`${name} is cut by ${p.tagName.toLowerCase()}.${p.className}`);
      break;
    }
  }
  for (const el of document.querySelectorAll("[aria-label], [title], [placeholder]")) {
    if (!shown(el)) continue;
    for (const a of ["aria-label", "title", "placeholder"]) if (el.getAttribute(a)) out.texts.push(el.getAttribute(a));
  }
  for (const o of document.querySelectorAll("select option")) if (shown(o.parentElement)) out.texts.push(o.text.trim());
  return out;
}"""


# Each text in the hint's reason line (its own text put back after): those cut short
FITS = """(texts) => {
  const el = document.querySelector("[data-testid=card-hint] .why"), kept = el.textContent, long = [];
  for (const text of texts) {
    el.textContent = text;
    if (el.scrollWidth > el.clientWidth + 1) long.push(text);
  }
  el.textContent = kept;
  return long;
}"""


def english_patterns(lang: str) -> list[tuple[str, re.Pattern[str]]]:
    """The English entries a screen in ``lang`` must not show: each whose translation differs,
    as a whole-text pattern (placeholders match anything), if its fixed words hold a word."""
    english, own = catalogue("en"), catalogue(lang)
    out = []
    for key, entry in english.items():
        if own[key] == entry:
            continue
        for text in entry.values() if isinstance(entry, dict) else [entry]:
            fixed = re.sub(r"\{\w+\}", "", text)
            if not re.search(r"[A-Za-z]{2,}", fixed):
                continue
            parts = re.split(r"\{\w+\}", text)
            pattern = ".{1,30}?".join(re.escape(p) for p in parts)  # a name, a card, a number
            out.append((key, re.compile(rf"\s*{pattern}\s*", re.S)))
    return out


def check_screen(page: Any, lang: str, patterns: list[tuple[str, re.Pattern[str]]], where: str) -> None:
    got = page.evaluate(SCREEN)
    english = sorted({f"{key}: {t!r}" for t in got["texts"] for key, p in patterns if p.fullmatch(t)})
    assert english == [], f"{lang}, {where}: English on screen: {english}"
    assert got["bad"] == [], f"{lang}, {where}: {got['bad']}"


def play_match(page: Any, lang: str, patterns: list[tuple[str, re.Pattern[str]]]) -> set[str]:
    """Play the seat until the final places show, checking the screen at each step."""
    seen: set[str] = set()
    plays = 0
    for _ in range(400):
        page.wait_for_selector(ACTIONABLE, timeout=20_000)
        if page.locator("[data-testid=final-places]").count():
            check_screen(page, lang, patterns, "final places")
            return seen
        if page.locator("[data-testid=ready-btn]").count():
            if "summary" not in seen:
                check_screen(page, lang, patterns, "round summary")
            seen.add("summary")
            with contextlib.suppress(PlaywrightError):  # redrawn meanwhile (the others got ready): look again
                page.locator("[data-testid=ready-btn]").click(timeout=2000)
            continue
        calls = page.locator("[data-call]:not([disabled])")
        if calls.count():
            page.wait_for_selector("[data-testid=hint-line]:not(:empty)")
            check_screen(page, lang, patterns, "calling")
            seen.add("calling")
            with contextlib.suppress(PlaywrightError):  # the picker was redrawn meanwhile: look again
                calls.first.click(timeout=2000)
            if "called" not in seen and not page.locator("[data-call]:not([disabled])").count():
                # the player's own call read out in the polite "you" of the language (a keyboard
                # player's try: "तपाईंले १ कल गर्यो", the form for a third person)
                you = catalogue(lang)["seat.you"]
                mine = translator(lang)("announce.called_you", name=you, call=digits(lang, 1))
                page.wait_for_function(
                    "(text) => [...document.querySelectorAll('[data-testid=announce] p')].some((p) => p.textContent === text)", arg=mine
                )
                seen.add("called")
            continue
        legal = page.locator("[data-testid=hand].my-turn [data-legal=true]")
        if legal.count() > 1 and "hint" not in seen:
            # a hint's reason, worded in the page's language (they were English prose, then left out)
            page.locator("[data-testid=hint-btn]").click()
            why = page.wait_for_selector("[data-testid=card-hint] .why", timeout=60_000).inner_text()
            own, tr = catalogue(lang), translator(lang)
            reasons = [v for k, v in own.items() if k.startswith("hint.why.") and isinstance(v, str)]
            assert any(r.split("{")[0] in why for r in reasons), why
            check_screen(page, lang, patterns, "a hint")
            # every reason a card hint gives fits its line on this phone, uncut
            long = page.evaluate(FITS, [tr(k, card="10♥", than="10♦") for k in own if k.startswith("hint.why.")
                                        and k not in ("hint.why.call", "hint.why.call_first", "hint.why.quick")])
            assert long == [], f"{lang}: {long}"
            seen.add("hint")
        if legal.count():
            plays += 1
            if plays % 3 == 1:  # (every third turn: the screen changes little between two)
                check_screen(page, lang, patterns, "playing")
            seen.add("playing")
            with contextlib.suppress(PlaywrightError):  # played for us (a forced card) or redrawn meanwhile
                play_card(page, str(legal.first.get_attribute("data-card", timeout=1000)))
    raise AssertionError("the match did not finish")


@pytest.mark.parametrize("lang", ["ne", "hi", "bn"])  # (English: test_pages.py, test_table.py, ...)
def test_a_whole_match_in_each_language(server: str, browser: Any, lang: str) -> None:
    ctx = browser.new_context(locale=LOCALES[lang], **PHONE)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    own = catalogue(lang)
    patterns = english_patterns(lang)
    page.goto(server + "/")
    # The browser's language chose the page's: words, lang attribute, digits and plurals as the
    # Python side has them (the terminal client reads the same catalogues).
    page.wait_for_selector(f"[data-testid=play-now]:has-text('{own['home.play_now']}')")
    assert page.evaluate("document.documentElement.lang") == lang
    forms = page.evaluate(
        """async (lang) => { const m = await import("/static/i18n.js");
             return [...Array(31).keys()].map(n => [new Intl.PluralRules(lang).select(n), m.num(n)]); }""",
        lang,
    )
    assert forms == [[plural_form(lang, n), digits(lang, n)] for n in range(31)]
    check_screen(page, lang, patterns, "home")
    page.click("details.rules-fields > summary")  # every rule a host can set, in two columns
    check_screen(page, lang, patterns, "home, more rules")
    # a table of two rounds (a summary between them, then the final places: all a match shows, in
    # two thirds of the quick preset's time), started by its host alone, the bots in the other seats
    create_table(page, server, preset="quick", rounds="2", bots="random", name={"ne": "आशा", "hi": "आशा", "bn": "আশা"}[lang])
    page.tap("[data-testid=start-btn]")
    page.wait_for_selector("[data-testid=hand] [data-card]")
    assert (
        page.locator("[data-testid=round-info]").inner_text().startswith(own["table.round_of"].split("{")[0])
    )
    # the bots are named in the language's script (a Hindi player's try: "Meena", "Dipak")
    bots = [page.locator(f"[data-testid=seat-{p}] .name").inner_text() for p in ("left", "top", "right")]
    assert set(bots) <= {written(n, lang) for n in NAMES} and len(set(bots)) == 3, bots
    seen = play_match(page, lang, patterns)
    assert seen == {"calling", "called", "playing", "summary", "hint"}
    verdict = page.locator("[data-testid=final] strong").first.inner_text()
    assert verdict == own["dialog.you_won"] or verdict.startswith(own["dialog.you_came"].split("{")[0])
    for path, title in (("/rules", "rules.p01"), ("/calculator", "calc.title")):
        page.goto(server + path)
        page.wait_for_selector(f"main h1:has-text('{own[title]}')")
        check_screen(page, lang, patterns, path)
    # the match in the list of this device's matches: its date in the language's digits too (found
    # in a newcomer's try: "2026-12-05 15:13:19" above a Nepali line of Devanagari digits)
    page.goto(server + "/matches")
    date = page.locator("[data-testid=match-item] strong").first.inner_text()
    assert re.search(r"\d", date) and date == digits(lang, date), date
    assert not re.search(r"[A-Za-z]", date), date  # (Bengali's "PM" was in Latin letters)
    # the day before the month, or the year first where Chromium has no dates of the language
    # (Nepali: its fallback, English, put the American month first)
    y, m, d = page.evaluate(
        "async () => { const r = (await import('/static/seats.js')).allRecords()[0]; const d = new Date(r.created);"
        " return [d.getFullYear(), d.getMonth() + 1, d.getDate()]; }"
    )
    want = f"{y}-{m:02d}-{d:02d} " if lang == "ne" else f"{d}/{m}/{y}, "
    assert date.startswith(digits(lang, want)), (date, want)
    check_screen(page, lang, patterns, "/matches")
    ctx.close()


def test_a_friend_reads_the_bots_names_in_the_script_of_their_own_language(server: str, browser: Any) -> None:
    """A Bengali player's try: at a Bengali host's table, the Hindi friend read the bots' names in
    Bengali letters ("দীপক की बारी…"). Each reads a bot's name in their own script; a person's name
    as that person wrote it."""
    made = httpx.post(f"{server}/api/tables", json={"rules": {"preset": "quick", "rounds": 1}, "bots": "random",
                                                     "name": "করিম", "lang": "bn"}, timeout=30).json()
    friend = httpx.post(f"{server}{made['invite_url'].replace('/join/', '/api/join/')}", json={"name": "प्रिया", "lang": "hi"},
                        timeout=30).json()
    host, guest = (browser.new_context(locale=LOCALES[lang], **PHONE) for lang in ("bn", "hi"))
    try:
        pages = {"bn": host.new_page(), "hi": guest.new_page()}
        pages["hi"].goto(server + friend["seat_url"])
        pages["bn"].goto(server + made["seat_url"])
        pages["bn"].tap("[data-testid=start-btn]")
        seen = {}
        for lang, page in pages.items():
            page.wait_for_selector("[data-testid=hand] [data-card]")
            seen[lang] = {p: page.inner_text(f"[data-testid=seat-{p}] .name") for p in ("left", "top", "right")}
        bots = {written(n, "bn"): n for n in NAMES}
        host_bots = [name for name in seen["bn"].values() if name in bots]
        assert len(host_bots) == 2 and "প্রিয়া" not in seen["bn"].values() and "प्रिया" in seen["bn"].values(), seen
        # the friend: the same bots, in Devanagari; the host's own name as he wrote it
        assert sorted(n for n in seen["hi"].values() if n != "করিম") == sorted(written(bots[b], "hi") for b in host_bots), seen
        assert "করিম" in seen["hi"].values()
    finally:
        host.close()
        guest.close()


#: the numbers of an ordered list in each language (Hindi: Western digits, as its text)
LIST_DIGITS = {"en": "decimal", "hi": "decimal", "ne": "devanagari", "bn": "bengali"}


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_page_in_each_language(static_url: str, browser: Any, lang: str) -> None:
    """Every page that needs no table, with every fold open and the settings dialog over it."""
    ctx = browser.new_context(locale=LOCALES[lang], **PHONE)
    page = ctx.new_page()
    patterns = english_patterns(lang)
    for path in ("/", "/rules", "/calculator", "/matches", "/join/nothing"):
        page.goto(static_url + path)
        page.wait_for_selector("main h1")
        assert page.evaluate("document.documentElement.lang") == lang
        for fold in page.locator("details:not([open]) > summary").all():
            fold.click()
        check_screen(page, lang, patterns, path)
        # a numbered list counts in the reader's digits (found in a newcomer's try: "1. 2." beside
        # Bengali text on the rules page)
        styles = page.evaluate("[...document.querySelectorAll('ol')].map(e => getComputedStyle(e).listStyleType)")
        assert set(styles) <= {LIST_DIGITS[lang]}, (path, styles)
    # and a list the page draws without numbers stays so: the analysis' mistakes, the final places
    # (found in a newcomer's try: "१. २." hung outside the analysis panel, cut by its edge)
    unnumbered = page.evaluate("""() => ["analysis-mistakes", "places", ""].map((cls) => {
      const ol = document.createElement("ol"); ol.className = cls; document.querySelector("main").append(ol);
      const style = getComputedStyle(ol).listStyleType; ol.remove(); return style; })""")
    assert unnumbered == ["none", "none", LIST_DIGITS[lang]], unnumbered
    page.click("[data-testid=settings-btn]")
    page.wait_for_selector("[data-testid=settings]")
    check_screen(page, lang, patterns, "settings")
    ctx.close()


def test_language_chosen_in_settings_is_kept_on_this_device(static_url: str, browser: Any) -> None:
    """English first (the browser's language); हिन्दी chosen in the settings of any page words
    every page after it, also a new tab, and whatever the browser says."""
    ctx = browser.new_context(locale="en-GB", **PHONE)
    page = ctx.new_page()
    page.goto(static_url + "/rules")
    page.wait_for_selector("main h1:has-text('How to play Callbreak')")
    page.click("[data-testid=settings-btn]")
    with page.expect_navigation():
        page.select_option("[data-testid=setting-lang]", "hi")
    page.wait_for_selector(f"main h1:has-text('{catalogue('hi')['rules.p01']}')")
    assert page.evaluate("localStorage.getItem('callbreak.lang')") == json.dumps("hi")
    # the settings open again in the new language, for the rest of them (before: they vanished)
    page.wait_for_selector("[data-testid=settings]")
    assert page.inner_text("#settings-title") == catalogue("hi")["settings.title"]
    page.click("[data-testid=settings-close]")
    page.reload()
    page.wait_for_selector(f"main h1:has-text('{catalogue('hi')['rules.p01']}')")
    assert page.locator("[data-testid=settings]").count() == 0  # once only
    other = ctx.new_page()
    other.goto(static_url + "/calculator")
    other.wait_for_selector(f"main h1:has-text('{catalogue('hi')['calc.title']}')")
    assert other.locator(".topbar nav a[href='/rules']").inner_text() == catalogue("hi")["nav.rules"]
    other.click("[data-testid=settings-btn]")
    assert other.locator("[data-testid=setting-lang]").input_value() == "hi"
    ctx.close()


def test_a_persons_avatar_shows_the_first_letter_as_it_is_read(static_url: str, page: Any) -> None:
    """A Hindi player's try: "क्षितिज" showed "क" (the first code point: half the conjunct); a
    letter is shown with its vowel sign, as it is read ("क्षि", "सी")."""
    page.goto(static_url + "/rules")
    got = page.evaluate(
        """async (names) => { const m = await import("/static/avatars.js");
             return names.map((name) => m.avatarOf({ name, kind: "human" }, 0).textContent); }""",
        ["क्षितिज", "श्री", "asha", "সীতা", "👩🏽 Asha", ""],
    )
    assert got == ["क्षि", "श्री", "A", "সী", "👩🏽", "?"]


def test_a_join_with_no_name_is_told_in_the_pages_language(server: str, browser: Any) -> None:
    """A Hindi player's try: the empty name got the browser's own "Please fill out this field."
    (in the browser's language), not the page's Hindi words."""
    made = httpx.post(f"{server}/api/tables", json={"rules": {"preset": "quick"}, "bots": "random", "name": "Asha"}).json()
    ctx = browser.new_context(locale="en-US", **PHONE)  # a browser in English, the page in Hindi
    ctx.add_init_script("localStorage.setItem('callbreak.lang', JSON.stringify('hi'))")
    page = ctx.new_page()
    page.goto(server + made["invite_url"])
    page.fill("[data-testid=join-name]", "")
    page.locator("[data-testid=join-submit]").tap()
    page.wait_for_selector(f"form .error:has-text('{catalogue('hi')['join.type_name']}')")
    assert page.evaluate("document.querySelector('[data-testid=join-name]').validationMessage") == ""
    ctx.close()
