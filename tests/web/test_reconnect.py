"""A server killed mid-match: the page shows a banner, then reconnects by itself."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

from .conftest import free_port, start_server, stop_server
from .helpers import wait_free_turn


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
