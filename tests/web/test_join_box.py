"""The home's join box takes a seat link too (found in QA: "/t/ID#TOKEN" pasted there was refused)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any


def test_seat_link_pasted_in_the_join_box_takes_the_seat(server: str, browser: Any) -> None:
    body = json.dumps({"play_now": True, "bots": "random", "name": "Asha"}).encode()
    req = urllib.request.Request(
        server + "/api/tables", data=body, headers={"content-type": "application/json"}
    )
    res = json.loads(urllib.request.urlopen(req, timeout=10).read())
    ctx = browser.new_context()  # another device: no seat stored
    page = ctx.new_page()
    page.goto(server + "/")
    page.fill("[data-testid=join-code]", server + res["seat_url"])
    page.press("[data-testid=join-code]", "Enter")
    page.wait_for_selector("[data-testid=hand] [data-card]")
    assert page.url.endswith(f"/t/{res['table']}")  # the token left the address bar
    ctx.close()
