"""Take the README's screenshots of the web client into ``docs/screenshots/``.

Run from the repository root: ``python -m tests.web.screenshots`` (needs /usr/bin/chromium).
It starts a real ``callbreak serve`` on a free port with a temporary database.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def _to_my_turn_mid_trick(page: Any) -> None:
    """Play until it is our turn to play with cards already on the trick."""
    for _ in range(60):
        page.wait_for_selector("[data-call]:not([disabled]), [data-testid=hand].my-turn [data-legal=true]")
        if page.locator("[data-call]:not([disabled])").count():
            page.wait_for_selector("[data-testid=hint-line]:not(:has-text('Thinking'))", timeout=5000)
            page.locator("[data-call].suggested, [data-call]:not([disabled])").first.click()
            continue
        page.wait_for_function("() => !document.querySelector('[data-testid=trick][data-winner]')")
        if page.locator("[data-testid=trick] .played").count() >= 2:
            return
        page.locator("[data-testid=hand].my-turn [data-legal=true]").last.click()
        page.wait_for_timeout(150)


#: the table in each language the client speaks besides English (README, docs/i18n.md)
LANGUAGE_SHOTS = {"ne": "ne-NP", "hi": "hi-IN", "bn": "bn-BD"}


def language_shots(browser: Any, base: str) -> None:
    """``table-phone-LANG.png``: a phone whose browser reads LANG, mid-trick at its turn."""
    for lang, locale in LANGUAGE_SHOTS.items():
        ctx = browser.new_context(
            locale=locale, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
        )
        page = ctx.new_page()
        page.set_default_timeout(15_000)
        page.goto(base + "/")
        page.fill("[data-testid=my-name]", "Asha")
        page.select_option("#now-bots", "medium")
        page.select_option("#now-preset", "quick")
        page.click("[data-testid=play-now]")
        _to_my_turn_mid_trick(page)
        page.wait_for_timeout(300)
        page.screenshot(path=str(OUT / f"table-phone-{lang}.png"))
        ctx.close()


def main(argv: list[str] | None = None) -> None:
    """All the screenshots; with ``--languages``, only the table in each language."""
    import sys

    only_languages = "--languages" in (sys.argv[1:] if argv is None else argv)
    from playwright.sync_api import sync_playwright

    from .conftest import ARGS, CHROMIUM, free_port, start_server, stop_server
    from .helpers import create_table, play_to_end

    OUT.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="cb-shots-")
    port = free_port()
    proc = start_server(port, os.path.join(tmp, "t.sqlite"), os.path.join(tmp, "server.log"))
    base = f"http://127.0.0.1:{port}"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            language_shots(browser, base)
            if only_languages:
                browser.close()
                return
            phone = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
            desktop = {"viewport": {"width": 1280, "height": 800}}
            for name, opts in (("table-phone", phone), ("table-desktop", desktop)):
                ctx = browser.new_context(**opts)
                page = ctx.new_page()
                page.set_default_timeout(15_000)
                page.goto(base + "/")
                page.fill("[data-testid=my-name]", "Asha")
                page.select_option("#now-bots", "medium")
                page.click("[data-testid=play-now]")
                if name == "table-phone":  # the call picker, laid over the table while you call
                    page.wait_for_selector("[data-call]:not([disabled])")
                    page.wait_for_selector("[data-testid=hint-line]:not(:has-text('Thinking'))", timeout=5000)
                    page.wait_for_timeout(300)
                    page.screenshot(path=str(OUT / "table-phone-calling.png"))
                _to_my_turn_mid_trick(page)
                page.wait_for_timeout(300)
                page.screenshot(path=str(OUT / f"{name}.png"))
                ctx.close()
            ctx = browser.new_context(**phone)
            page = ctx.new_page()
            page.set_default_timeout(15_000)
            create_table(page, base, preset="quick", rounds="1", bots="medium", name="Asha")
            page.click("[data-testid=start-btn]")
            play_to_end([page])
            page.wait_for_timeout(300)
            page.screenshot(path=str(OUT / "final-places.png"))
            ctx.close()
            ctx = browser.new_context(viewport={"width": 900, "height": 1000})
            page = ctx.new_page()
            page.goto(base + "/calculator")
            for i, n in enumerate(["Asha", "Bikash", "Chandra", "Dipa"]):
                page.fill(f"[data-testid=calc-name-{i}]", n)
            for calls, tricks in (
                ([3, 4, 2, 3], [4, 3, 2, 4]),
                ([2, 2, 3, 4], [2, 3, 4, 4]),
                ([5, 3, 2, 2], [5, 1, 4, 3]),
            ):
                for i, c in enumerate(calls):
                    page.fill(f"[data-testid=calc-call-{i}]", str(c))
                page.click("[data-testid=calc-save-calls]")
                for i, t in enumerate(tricks):
                    page.fill(f"[data-testid=calc-tricks-{i}]", str(t))
                page.click("[data-testid=calc-save-tricks]")
            page.locator("[data-testid=calc-sheet]").scroll_into_view_if_needed()
            page.screenshot(path=str(OUT / "calculator.png"), full_page=True)
            ctx.close()
            browser.close()
    finally:
        stop_server(proc)
    print("\n".join(str(p) for p in sorted(OUT.glob("*.png"))))


if __name__ == "__main__":
    main()
