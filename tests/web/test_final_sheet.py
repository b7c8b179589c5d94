"""A whole two-round match on a phone against bots: the round summary and the table behind it agree,
"Final places" carries the whole score sheet, and the bots have names, robot avatars and a level.

One match is played for the module (it takes a while on a busy machine); each test checks one thing
of it.  While it is played, a MutationObserver records what the page shows whenever a round summary
is open, so the check does not race the (short) pause between rounds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from callbreak.bots.names import NAMES
from callbreak.i18n import catalogue

from .helpers import create_table, play_to_end

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}

RECORD_SUMMARIES = """
window.__samples = [];
new MutationObserver(() => {
  const dlg = document.querySelector("[data-testid=round-summary]");
  if (!dlg || window.__samples.length > 3000) return;
  const info = document.querySelector("[data-testid=round-info]");
  const rows = [...dlg.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent));
  const described = document.getElementById(dlg.getAttribute("aria-describedby") || "");
  window.__samples.push({
    title: dlg.querySelector("h2").textContent,
    described: described ? described.textContent : null,
    info: info ? info.textContent : null,
    cards: document.querySelectorAll("[data-testid=hand] [data-card]").length,
    rows,
    metas: [0, 1, 2, 3].map((s) => { const m = document.querySelector(`[data-testid=seat-meta-${s}]`); return m ? m.textContent : null; }),
  });
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


# Records, in the page, whether the server last said seat 0's player is connected.
SEAT0_CONNECTED = """(() => {
  const Native = window.WebSocket;
  window.__seat0 = null;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => {
        const m = JSON.parse(e.data);
        if (m.table && m.table.seats && m.table.seats[0]) window.__seat0 = m.table.seats[0].connected;
      });
    }
  };
})();"""


@pytest.fixture(scope="module")
def finished(server: str, browser: Any) -> Iterator[tuple[Any, str]]:
    ctx = browser.new_context(**PHONE)
    ctx.add_init_script(RECORD_SUMMARIES)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    # tie_break=share: exactly two rounds (a tie at the top would add a sudden-death round)
    table = create_table(
        page, server, preset="quick", rounds="2", tie_break="share", bots="random", name="Bikash"
    )
    page.click("[data-testid=start-btn]")
    page.wait_for_selector("[data-testid=hand] [data-card]")
    play_to_end([page], limit_s=240)
    page.wait_for_selector("[data-testid=final]")
    yield page, table
    ctx.close()


def history(server: str, table: str) -> dict[str, Any]:
    hist: dict[str, Any] = httpx.get(f"{server}/api/tables/{table}/history?format=json").json()
    hist["played"] = [d for d in hist["deals"] if "points" in d]  # not the redealt ones
    return hist


def test_the_round_summary_sits_over_the_round_it_sums_up(finished: tuple[Any, str]) -> None:
    page, _ = finished
    samples = page.evaluate("window.__samples")
    assert samples, "no round summary was seen"
    assert {s["title"] for s in samples} == {"Round 1 summary"}
    for s in samples:
        # the header still says round 1, and the next hand is not dealt on screen yet
        assert s["info"].startswith("Round 1 of 2"), s
        assert s["cards"] == 0, s
        # the seats show the calls and tricks the summary lists
        for seat, (call, won, *_rest) in enumerate(s["rows"]):
            meta = " ".join(s["metas"][seat].split())
            assert f"call {call}" in meta and f"won {won}" in meta, (seat, meta, s["rows"])
        # the player's own round, read with the dialog's name (a keyboard and screen-reader
        # player's try: "Round 1 summary, Next round button" was all that was said)
        call, won, points, _total = s["rows"][0]
        assert s["described"] == f"You: called {call}, won {won}, {points} points.", s
    # and once the summary is gone, round 2 is dealt
    assert page.locator("[data-testid=round-summary]").count() == 0


def test_final_places_carry_the_whole_score_sheet(finished: tuple[Any, str], server: str) -> None:
    page, table = finished
    hist = history(server, table)
    assert len(hist["played"]) == 2
    dialog = page.locator("[data-testid=final]")
    assert dialog.locator("[data-testid=final-places] li").count() == 4
    # the player's result read with the dialog's name (a keyboard player's try: only its buttons were)
    described = dialog.get_attribute("aria-describedby")
    assert described and page.inner_text(f"#{described}").startswith(("You won", "You came")), described
    sheet = dialog.locator("[data-testid=final-sheet]")
    assert sheet.is_visible()
    heads = sheet.locator("thead th").all_inner_texts()
    assert heads[0] == "Round" and heads[1] == "You" and len(heads) == 5
    assert heads[2:] == hist["players"][1:]
    for k, deal in enumerate(hist["played"], 1):
        for s in range(4):
            cell = sheet.locator(f"[data-testid=final-sheet-cell-{k}-{s}]")
            assert cell.locator(".ct").inner_text() == f"{deal['calls'][s]}/{deal['tricks_won'][s]}"
            assert cell.locator(".pts").inner_text() == deal["points"][s]
    for s in range(4):
        assert sheet.locator(f"[data-testid=final-sheet-total-{s}]").inner_text() == hist["totals"][s]
    # the sheet fits the phone: no sideways scrolling inside the dialog
    assert page.evaluate(
        "(() => { const w = document.querySelector('[data-testid=final] .sheet-wrap');"
        " return w.scrollWidth <= w.clientWidth; })()"
    )


def own_text(avatar: Any) -> str:
    """The avatar's own text (not the dealer's chip in it)."""
    return str(
        avatar.evaluate(
            "e => [...e.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('')"
        )
    )


def test_bots_have_names_robot_avatars_and_their_level(finished: tuple[Any, str], server: str) -> None:
    page, table = finished
    names = [page.inner_text(f"[data-testid=felt] .seat[data-seat='{s}'] .name") for s in range(4)]
    assert names[0] == "You"
    bots = names[1:]
    assert len(set(bots)) == 3 and all(n in NAMES for n in bots) and "Bikash" not in bots
    assert bots == history(server, table)["players"][1:]
    # a person shows an initial; a bot a robot face on a coloured disc, and its level
    human = page.locator("[data-testid=avatar-0]")
    assert own_text(human) == "B" and "bot" not in (human.get_attribute("class") or "")
    for s in (1, 2, 3):
        avatar = page.locator(f"[data-testid=avatar-{s}]")
        assert "bot" in (avatar.get_attribute("class") or "")
        assert avatar.locator("svg.robot").count() == 1 and own_text(avatar) == ""
        assert page.inner_text(f"[data-testid=seat-level-{s}]") == "beginner bot"
    colours = {
        page.eval_on_selector(f"[data-testid=avatar-{s}]", "e => getComputedStyle(e).backgroundColor")
        for s in range(4)
    }
    assert len(colours) == 4


def test_a_reloaded_page_shows_every_round_from_the_snapshot(finished: tuple[Any, str], server: str) -> None:
    # a state carries only the latest round: the whole sheet comes once, in the snapshot
    played, table = finished
    hist = history(server, table)
    page = played.context.new_page()  # the same seat, opened afresh (the other tests keep theirs)
    page.set_default_timeout(15_000)
    page.goto(played.url)
    dialog = page.wait_for_selector("[data-testid=final]")
    assert dialog is not None
    for k, deal in enumerate(hist["played"], 1):
        for s in range(4):
            cell = page.locator(f"[data-testid=final-sheet-cell-{k}-{s}]")
            assert cell.locator(".ct").inner_text() == f"{deal['calls'][s]}/{deal['tricks_won'][s]}"
            assert cell.locator(".pts").inner_text() == deal["points"][s]
    # and the Scores button's sheet is the same
    page.click("[data-testid=final-close]")
    page.click("[data-testid=scores-btn]")
    for k, deal in enumerate(hist["played"], 1):
        assert page.locator(f"[data-testid=scoreboard-cell-{k}-0] .pts").inner_text() == deal["points"][0]
    page.close()


def test_the_final_dialogs_buttons_stay_in_view_while_the_sheet_scrolls(
    finished: tuple[Any, str], server: str, browser: Any
) -> None:
    # Found in QA: on a small phone the final places' buttons (rematch, analyse, home) lay below a long
    # score sheet, out of sight until the dialog was scrolled; the dialog opened scrolled to its end
    # (the focus went to a button of its foot); and a message that came in (a rematch offered) drew it
    # again at its top, under the reader's finger.
    page, table = finished
    page.set_viewport_size({"width": 360, "height": 520})
    try:
        page.reload()
        page.wait_for_selector("[data-testid=final]")
        page.wait_for_function("() => document.querySelector('[data-testid=final]').contains(document.activeElement)")
        assert page.evaluate("document.querySelector('[data-testid=final]').scrollTop") == 0
        geometry = """() => {
          const d = document.querySelector('[data-testid=final]'), r = d.getBoundingClientRect();
          const foot = d.querySelector(':scope > .row:last-child').getBoundingClientRect();
          const buttons = [...d.querySelectorAll(':scope > .row:last-child .btn')].map(b => b.getBoundingClientRect());
          const total = d.querySelector('[data-testid=final-sheet] tfoot').getBoundingClientRect();
          return {scrolls: d.scrollHeight > d.clientHeight, top: r.top, bottom: r.bottom, foot: foot.top,
                  buttons: buttons.map(b => [b.top, b.bottom]), total: total.bottom};
        }"""
        g = page.evaluate(geometry)
        assert g["scrolls"], g  # (the sheet is taller than the dialog on this screen)
        assert len(g["buttons"]) >= 4 and all(g["top"] <= t and b <= g["bottom"] + 0.5 for t, b in g["buttons"]), g
        page.evaluate("() => { const d = document.querySelector('[data-testid=final]'); d.scrollTop = d.scrollHeight; }")
        g = page.evaluate(geometry)
        # scrolled to its end, the totals show whole above the buttons
        assert g["total"] <= g["foot"] + 0.5, g
        assert all(g["top"] <= t and b <= g["bottom"] + 0.5 for t, b in g["buttons"]), g
        # a spectator comes: the table's message draws the dialog again, where it was scrolled to
        scrolled = page.evaluate("() => { const d = document.querySelector('[data-testid=final]'); d.dataset.old = '1'; return d.scrollTop; }")
        assert scrolled > 0
        watcher = browser.new_context()
        try:
            watcher.new_page().goto(f"{server}/watch/{table}")
            page.wait_for_function("() => !document.querySelector('[data-testid=final]').dataset.old", timeout=15_000)
        finally:
            watcher.close()
        assert page.evaluate("document.querySelector('[data-testid=final]').scrollTop") == scrolled
    finally:
        page.set_viewport_size(PHONE["viewport"])


def test_a_spectator_follows_the_players_to_their_rematch(server: str, browser: Any) -> None:
    """A newcomer's try: the rematch's table reached the spectator's page, but its final dialog
    offered no way there; and at 360 px its "· watching" fell on a line of its own, below the bar."""
    res = httpx.post(f"{server}/api/tables", json={"rules": {"preset": "quick", "rounds": 1}, "bots": "random",
                                                   "name": "Asha", "play_now": True})  # fmt: skip
    res.raise_for_status()
    made = res.json()
    player = browser.new_context(**PHONE)
    watcher = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True, locale="ne-NP")
    watcher.add_init_script(SEAT0_CONNECTED)
    try:
        page = player.new_page()
        page.set_default_timeout(15_000)
        page.goto(server + made["seat_url"])
        page.wait_for_selector("[data-testid=hand] [data-card]")
        watch = watcher.new_page()
        watch.goto(f"{server}/watch/{made['table']}")
        watch.wait_for_selector("[data-testid=watching]")
        bar = watch.locator(".table-top").bounding_box()
        said = watch.locator("[data-testid=watching]").bounding_box()
        assert bar is not None and said is not None and said["y"] + said["height"] <= bar["y"] + bar["height"], (said, bar)
        play_to_end([page], limit_s=240)
        watch.wait_for_selector("[data-testid=final]")
        again = httpx.post(f"{server}/api/tables/{made['table']}/rematch", json={"token": made["token"]}, timeout=30)
        again.raise_for_status()
        # (the player whose rematch another asked for is told so, not only by the button's words)
        page.wait_for_selector("[data-testid=final] [data-testid=join-rematch]")
        assert page.inner_text("[data-testid=rematch-waiting]") == catalogue("en")["dialog.rematch_waiting"]
        # the player goes (to the rematch, home): not "offline" to those still at the finished table
        # (a Bengali player's try: the host, gone to the rematch, was marked so to a friend)
        page.goto(server + "/")
        watch.wait_for_function("() => window.__seat0 === false")  # (the server told the watcher)
        assert watch.locator(".seat .badge.off").count() == 0
        watch.click("[data-testid=watch-rematch]")
        watch.wait_for_url(f"**/watch/{again.json()['table']}")
        watch.wait_for_selector("[data-testid=watching]")
        assert watch.locator("[data-testid=hand] [data-card]").count() == 0  # (a spectator there too)
    finally:
        player.close()
        watcher.close()
