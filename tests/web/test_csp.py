"""The web client under the server's Content-Security-Policy: no violation and no console
error on the home, table, rules and calculator pages; the service worker and manifest load."""

from __future__ import annotations

from typing import Any

import httpx

from callbreak.server.headers import CSP

from .conftest import CSP_VIOLATIONS
from .helpers import ACTIONABLE, act_once

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def test_every_page_works_under_the_csp_without_a_violation(server: str, browser: Any) -> None:
    assert httpx.get(server + "/").headers["content-security-policy"] == CSP
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(server + "/")
        page.wait_for_selector("[data-testid=play-now]")
        # the service worker registers and controls the page; the manifest loads
        page.wait_for_function("() => navigator.serviceWorker && navigator.serviceWorker.controller !== null", timeout=20_000)
        assert page.evaluate("fetch('/static/manifest.webmanifest').then(r => r.json()).then(m => m.name)")
        # a table: play the first turns
        page.select_option("#now-bots", "random")
        page.select_option("#now-preset", "quick")
        page.tap("[data-testid=play-now]")
        page.wait_for_url("**/t/**")
        played = []
        for _ in range(200):
            if len(played) >= 2:
                break
            page.wait_for_selector(ACTIONABLE, timeout=30_000)
            what = act_once(page)
            if what is not None and what.startswith("play"):
                played.append(what)
        assert len(played) == 2, played
        for path, ready in (("/rules", "[data-testid=score-example]"), ("/calculator", "[data-testid=calc-name-0]")):
            page.goto(server + path)
            page.wait_for_selector(ready)
        page.goto(server + "/")
        page.wait_for_selector("[data-testid=play-now]")
        assert errors == [] and CSP_VIOLATIONS == [], (errors, CSP_VIOLATIONS)
    finally:
        ctx.close()


def test_the_policy_is_in_force(server: str, browser: Any) -> None:
    """An inline script or style put into the page is refused, and the probe sees it."""
    ctx = browser.unwatched.new_context()
    try:
        page = ctx.new_page()
        page.add_init_script(
            """document.addEventListener("securitypolicyviolation",
                 (e) => (window.__csp = window.__csp || []).push(e.violatedDirective));"""
        )
        page.goto(server + "/rules")
        page.wait_for_selector("[data-testid=score-example]")
        page.evaluate("""() => {
            const s = document.createElement('script'); s.textContent = 'window.__inline = 1'; document.body.append(s);
            const st = document.createElement('style'); st.textContent = 'body { display: none }'; document.head.append(st);
        }""")
        page.wait_for_function("() => (window.__csp || []).length >= 2")
        assert page.evaluate("window.__inline") is None
        assert sorted(set(page.evaluate("window.__csp"))) == ["script-src-elem", "style-src-elem"]
        assert page.locator("body").is_visible()
    finally:
        ctx.close()
