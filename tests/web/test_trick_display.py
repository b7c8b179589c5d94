"""When you are asked to answer a trick, its cards are on the table (found in QA: the finished
trick was still held in the middle while the next lead, the one you must follow, stayed hidden)."""

from __future__ import annotations

import json
from typing import Any

from .helpers import wait_free_turn


def test_the_lead_you_answer_is_shown(server: str, page: Any) -> None:
    states: list[dict[str, Any]] = []

    def on_ws(ws: Any) -> None:
        def frame(payload: str | bytes) -> None:
            msg = json.loads(payload)
            if msg.get("state"):
                states.append(msg["state"])

        ws.on("framereceived", frame)

    page.on("websocket", on_ws)
    page.goto(server + "/")
    page.select_option("#now-bots", "random")
    page.click("[data-testid=play-now]")
    page.locator("[data-call]").first.click()
    checked = 0
    for _ in range(13):
        wait_free_turn(page)
        # Seats say in words what the numbers are (found in QA: "2 / 3" with the meaning in a tooltip).
        assert page.inner_text("[data-testid=seat-bottom] .meta").startswith("call ")
        page.wait_for_timeout(800)  # longer than a collect, shorter than holding a finished trick
        trick = states[-1]["trick"]
        if trick and states[-1]["to_act"] == states[-1]["seat"]:
            shown = page.eval_on_selector_all(
                "[data-testid=trick] .played [data-card]", "els => els.map(e => e.dataset.card)"
            )
            assert shown == [card for _, card in trick]
            checked += 1
            if checked == 2:
                return
        legal = page.locator("[data-testid=hand].my-turn [data-legal=true]")
        if legal.count():
            legal.first.click()
    assert checked, "never answered a trick"
