"""Friends see which rules a table plays before they sit down (found in QA: nothing said so)."""

from __future__ import annotations

from typing import Any

from .helpers import create_table


def test_lobby_and_join_page_name_the_rules(server: str, browser: Any) -> None:
    host_ctx, guest_ctx = browser.new_context(), browser.new_context()
    host, guest = host_ctx.new_page(), guest_ctx.new_page()
    create_table(host, server, preset="pagat", card_seconds="30")
    host.wait_for_selector("[data-testid=lobby-rules]")
    assert host.inner_text("[data-testid=lobby-rules]").startswith("Pagat rules · no fixed end · 30 s a card · 30 s a call")
    guest.goto(host.input_value("[data-testid=invite-link]"))
    guest.wait_for_selector("[data-testid=join-rules]")
    assert guest.inner_text("[data-testid=join-rules]").startswith("Pagat rules · no fixed end · 30 s a card · 30 s a call")
    # Once the host has started, the invite link says so and offers to watch instead of a form that fails.
    host.click("[data-testid=start-btn]")
    host.wait_for_selector("[data-testid=round-info]:has-text('Round 1')")
    guest.reload()
    guest.wait_for_selector("[data-testid=join-closed]")
    assert "already started" in guest.inner_text("[data-testid=join-closed]")
    assert guest.locator("[data-testid=join-name]").count() == 0
    host_ctx.close()
    guest_ctx.close()
