"""The rules page's drawn examples say in words what their rings show (found in QA)."""

from __future__ import annotations

from typing import Any


def test_example_cards_are_labelled_legal_not_allowed_or_winning(static_url: str, page: Any) -> None:
    page.goto(static_url + "/rules")
    page.wait_for_selector("[data-testid=rule-example]")
    labels = page.eval_on_selector_all(
        "[data-testid=rule-example] .card",
        "els => els.map(e => [e.className, e.getAttribute('aria-label')])",
    )
    for cls, label in labels:
        if " legal" in cls:
            assert label.endswith("(legal)"), label
        elif "illegal" in cls:
            assert label.endswith("(not allowed)"), label
        elif " win" in cls:
            assert label.endswith("(wins)"), label
    assert [label for _, label in labels if label.endswith("(wins)")] == ["2 of spades (wins)"]
    # No "Your hand" heading above an empty hand.
    empty = page.eval_on_selector_all(
        "[data-testid=rule-example] .hint",
        "els => els.filter(e => e.textContent.startsWith('Your hand') && !e.nextElementSibling.children.length).length",
    )
    assert empty == 0
