"""On a phone the score sheet's header shows whole names, not "Chand…" (found in QA)."""

from __future__ import annotations

from typing import Any


def test_calculator_header_is_not_cut_on_a_phone(static_url: str, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    page.goto(static_url + "/calculator")
    for i, name in enumerate(["Asha", "Bimal", "Chandra", "Dipa"]):
        page.fill(f"[data-testid=calc-name-{i}]", name)
    cut = page.eval_on_selector_all(
        "[data-testid=calc-sheet] thead th",
        "els => els.filter(e => e.scrollWidth > e.clientWidth || getComputedStyle(e).textOverflow === 'ellipsis')"
        ".map(e => e.textContent)",
    )
    assert cut == []
    ctx.close()
