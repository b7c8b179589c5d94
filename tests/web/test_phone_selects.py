"""Every choice in the home page's and the calculator's menus reads whole on a 390 px phone
(found on a phone: the Rules menu showed "Standard (5 rou…"), and the calculator names the presets
as the home page does."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}

# For every visible <select>: the options whose text is wider than the room the closed menu gives
# its text (its inner width less the padding and the arrow, 24 px).
CUT_OFF = """() => {
  const ctx = document.createElement("canvas").getContext("2d");
  const out = [];
  for (const sel of document.querySelectorAll("select")) {
    if (!sel.getClientRects().length) continue;
    const cs = getComputedStyle(sel);
    ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 24;
    for (const o of sel.options) {
      const w = ctx.measureText(o.text).width;
      if (w > room) out.push(`${sel.id}: "${o.text}" needs ${Math.ceil(w)} px, has ${Math.floor(room)}`);
    }
  }
  return out;
}"""


@pytest.fixture
def phone_page(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.set_default_timeout(10_000)
    yield page
    ctx.close()


def test_home_menus_show_their_whole_choice(static_url: str, phone_page: Any) -> None:
    page = phone_page
    page.goto(static_url + "/")
    page.wait_for_selector("[data-testid=play-now]")
    page.click("details.rules-fields summary")  # "More rules": those menus too
    page.wait_for_selector("#f-direction", state="visible")
    assert page.evaluate(CUT_OFF) == []
    assert page.locator("select:visible").count() >= 20


def test_calculator_presets_are_named_as_on_the_home_page(static_url: str, phone_page: Any) -> None:
    page = phone_page
    page.goto(static_url + "/calculator")
    page.wait_for_selector("[data-testid=calc-preset]")
    labels = page.locator("[data-testid=calc-preset] option").all_inner_texts()
    assert labels == [
        "Standard (5 rounds)",
        "Quick (3 rounds)",
        "Pagat's Call Bridge",
        "Bhoos (calls up to 8)",
        "Custom",
    ]
    assert page.evaluate(CUT_OFF) == []
