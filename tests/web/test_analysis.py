"""The post-match analysis in Chromium on a phone, against a real `callbreak serve`:
"Analyse" after the final places, the progress, the summary, the graph, the mistakes
stepping the replay to their trick with the better card shown; a second look (after a
restart of the server) is instant; and the same panel in Nepali, with no English on screen."""

from __future__ import annotations

import math
import os
import re
import tempfile
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import httpx
import msgspec

from callbreak.analysis.engine import grade, shown_losses
from callbreak.analysis.records import GRADES
from callbreak.i18n import catalogue
from callbreak.server.analysis import AnalysisStatus

from .conftest import free_port, start_server, stop_server
from .helpers import create_table, play_to_end
from .test_languages import LOCALES, check_screen, english_patterns

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}

#: every text the analysis' progress line is drawn with, in window.__progress
RECORD_PROGRESS = """
(() => {
  const seen = window.__progress = [];
  new MutationObserver(() => {
    const bar = document.querySelector("[data-testid=analysis-progress]");
    const text = bar && bar.parentElement.innerText;
    if (text && seen[seen.length - 1] !== text) seen.push(text);
  }).observe(document, { childList: true, subtree: true, characterData: true });
})();
"""


def test_analyse_after_the_final_places_on_a_phone(browser: Any) -> None:
    tmp = tempfile.mkdtemp(prefix="cb-analysis-")
    db = os.path.join(tmp, "tables.sqlite")
    env = {**os.environ, "CALLBREAK_ANALYSIS_BUDGET": "40"}
    port = free_port()
    proc = start_server(port, db, os.path.join(tmp, "server.log"), env)
    base = f"http://127.0.0.1:{port}"
    ctx = browser.new_context(**PHONE)
    try:
        page = ctx.new_page()
        page.set_default_timeout(30_000)  # generous: a busy machine
        page.add_init_script(RECORD_PROGRESS)
        table = create_table(page, base, preset="quick", rounds="1", bots="random", name="Asha")
        page.wait_for_selector("[data-testid=lobby]")
        page.tap("[data-testid=start-btn]")
        page.wait_for_selector("[data-testid=hand] [data-card]")
        api = f"{base}/api/tables/{table}/analysis"
        early = httpx.post(api, timeout=10)  # not over yet: refused, nothing started
        assert (early.status_code, early.json()["error"]) == (409, "not_over")
        # Asha calls the lowest call whatever her hand: on most hands a mistake of her own, beside
        # the random bots' (a deal where the analysis found nothing to flag among the bots'
        # decisions alone failed this test once, when the test servers dealt unseeded; the deal
        # is this test's own now, the same every run, and the lowest call keeps it a fair test)
        play_to_end([page], call_choice="lowest")
        never = httpx.get(api, timeout=10)  # over, never asked for
        assert (never.status_code, never.json()["error"]) == (404, "no_analysis")
        # the final places offer the analysis; asked for, it is started at once (a POST: no 404 first)
        failed: list[str] = []
        page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
        page.tap("[data-testid=analyse-btn]")
        page.wait_for_url(f"**/replay/{table}?analyse=1")
        page.wait_for_selector("[data-testid=analysis-progress]")  # it started by itself
        # off the event loop: the server answers while its worker analyses
        assert httpx.get(f"{base}/healthz", timeout=10).status_code == 200
        page.wait_for_selector("[data-testid=analysis-summary]", timeout=180_000)
        assert failed == [], failed
        # every progress line shown said how many deals were done: while none is, the status
        # leaves "done" out (msgspec's omit_defaults) and the page reads it as 0
        shown = page.evaluate("window.__progress")
        assert shown and not any("undefined" in line for line in shown), shown
        # no count before the server's: "0 of 1 rounds", then "0 of 3" (a Bengali player's try)
        assert shown[0].endswith("\nAnalysing…") and len({re.findall(r" of (\d+)", line)[0] for line in shown[1:]}) <= 1, shown
        # the final places best first (in seat order, the winner was read third: a Bengali player's try)
        final = page.inner_text("[data-testid=replay-final]")
        ranks = [int(m) for m in re.findall(r"(\d+)(?:st|nd|rd|th)\b", final)]
        assert len(ranks) == 4 and ranks == sorted(ranks), final
        assert summary_fits(page)
        # a 360 px phone too (found in an accessibility review: its last column was cut off there)
        page.set_viewport_size({"width": 360, "height": 740})
        assert summary_fits(page)
        page.set_viewport_size(PHONE["viewport"])
        # and in Hindi and Bengali at 360 px, English at 430 (above the phones' smaller headings)
        for locale, width in (("hi-IN", 360), ("bn-BD", 360), ("en-US", 430)):
            other = browser.new_context(locale=locale, viewport={"width": width, "height": 740}, is_mobile=True, has_touch=True)
            try:
                look = other.new_page()
                look.goto(page.url)
                look.wait_for_selector("[data-testid=analysis-summary]")
                assert summary_fits(look), (locale, width)
                # the graph's labels big enough to read (a Bengali player's try at 360 px: 9 px)
                assert look.evaluate(SMALLEST) >= 10.5, locale
            finally:
                other.close()
        # a screen reader hears that it is ready, once, not each progress line and the whole result
        # (the section was a live region)
        assert page.get_attribute("[data-testid=analysis]", "aria-live") is None
        assert page.inner_text("[data-testid=analysis-said]") == "The analysis is ready."
        stored = msgspec.json.decode(httpx.get(api, timeout=10).content, type=AnalysisStatus)
        assert stored.state == "ready" and stored.analysis is not None
        assert stored.analysis.seats == (0, 1, 2, 3)
        # every call and card of each deal (a tie at the top of this one-round match adds a
        # sudden-death round)
        deals = {d.deal for d in stored.analysis.decisions}
        assert len(stored.analysis.decisions) == (4 + 52) * len(deals)
        rows = page.locator("[data-testid=analysis-summary] tbody tr")
        assert rows.count() == 4
        # listed: every mistake and blunder, and the player's own small slips too (a Bengali
        # player's try: only slips of their own, and the list held none of them)
        listed = page.eval_on_selector_all(
            "[data-testid=mistake-item]", "els => els.map(e => [e.dataset.deal, e.dataset.trick, e.dataset.seat])"
        )
        want = [
            [str(d.deal), "" if d.trick is None else str(d.trick), str(d.seat)]
            for d in stored.analysis.decisions
            if d.auto is None and (d.grade in ("mistake", "blunder") or (d.grade == "inaccuracy" and d.seat == 0))
        ]
        assert listed == want and any(d.grade == "inaccuracy" and d.seat == 0 for d in stored.analysis.decisions)
        # under the points lost, the most chance of finishing first one of the seat's own decisions
        # gave away, where it comes to 1 % (found in a newcomer's try: a mistake graded by that
        # chance alone showed "0.0/0.0", as if nothing; then a review: the chances' sum passed 100 %)
        worst = {
            s: math.floor(max((d.loss_win for d in stored.analysis.decisions if d.seat == s and d.auto is None),
                              default=0.0) * 100 + 0.5)
            for s in range(4)
        }  # fmt: skip
        assert any(worst.values()) and max(worst.values()) <= 100, worst  # (random bots give some away)
        for seat, pct in worst.items():
            cell = page.locator(f"[data-testid=analysis-summary] tbody tr[data-seat='{seat}'] [data-testid=win-lost]")
            assert cell.all_inner_texts() == ([f"worst: −{pct}% chance of 1st"] if pct else []), (seat, pct)
        assert "Asha" in rows.first.inner_text() or "Asha" in page.inner_text(
            "[data-testid=analysis-summary]"
        )
        # the graph: one line per player, its scale marked, each listed mistake a dot on its player's
        # line (found in a newcomer's try: no scale, and the mistakes only in the list)
        assert page.locator("[data-testid=analysis-graph] polyline").count() == 4
        assert page.locator("[data-testid=analysis-graph] text").all_text_contents()[:3] == ["0%", "50%", "100%"]
        # the players told apart by more than colour: each line drawn its own way, as its legend
        # shows it; and the chances as text, each player's after each round (a keyboard and
        # screen-reader player's try: the graph's lines had colour alone, its chances no words)
        dashes = page.eval_on_selector_all(
            "[data-testid=analysis-graph] polyline", "els => els.map(e => e.getAttribute('stroke-dasharray'))"
        )
        keys = page.eval_on_selector_all(
            ".analysis-legend svg line", "els => els.map(e => e.getAttribute('stroke-dasharray'))"
        )
        assert len(set(dashes)) == 4 and keys == dashes, (dashes, keys)
        chances = page.locator("[data-testid=graph-table]")
        assert not chances.locator("table").is_visible()  # folded, under the graph
        chances.locator("summary").tap()
        rows = chances.locator("tbody tr")
        played = sorted({d for s in stored.analysis.seats for d, _, _ in stored.analysis.curve[s]})
        assert rows.count() == len(played) > 0
        for row, deal in zip(rows.all(), played, strict=True):
            cells = row.locator("td").all_inner_texts()
            want = [
                f"{math.floor([p for d, _, p in stored.analysis.curve[s] if d == deal][-1] * 100 + 0.5)}%"
                for s in stored.analysis.seats
            ]
            assert cells == want, (deal, cells, want)
        # random bots make mistakes: the first one steps the replay to its trick, with the better card
        items = page.locator("[data-testid=mistake-item]")
        assert items.count() > 0
        # each names the loss that set its grade: the points it gave away, or the chance of
        # finishing first where that set it (a Nepali player's try: a blunder said "−0.1 pts") or
        # the points come to 0.0 (a newcomer's try: "−0.0 pts")
        own = [
            d for d in stored.analysis.decisions
            if d.auto is None and (d.grade in ("mistake", "blunder") or (d.grade == "inaccuracy" and d.seat == 0))
        ]  # fmt: skip
        shown = items.all_inner_texts()
        assert len(shown) == len(own)
        for text, d in zip(shown, own, strict=True):
            # (as the page's toFixed(1): the exact value, a half rounded up)
            points = str(Decimal(d.loss_points).quantize(Decimal("0.1"), ROUND_HALF_UP))
            by_win = GRADES.index(grade(*shown_losses(0.0, d.loss_win))) > GRADES.index(grade(*shown_losses(d.loss_points, 0.0)))
            want = f"−{math.floor(d.loss_win * 100 + 0.5)}% chance of 1st" if points == "0.0" or by_win else f"−{points} pts"
            assert text.endswith(f"({want})"), (text, d)
        marks = page.locator("[data-testid=graph-mark]")
        assert sorted((m.get_attribute("data-seat"), m.get_attribute("data-deal"), m.get_attribute("data-trick"))
                      for m in marks.all()) == sorted(
            (str(d.seat), str(d.deal), "" if d.trick is None else str(d.trick)) for d in own
        )  # fmt: skip
        # a tap near a dot (a finger's width off: the dot is a few pixels on a phone) shows that
        # mistake, its losses with their minus signs (a bare "40% chance of finishing first" read
        # as the chance left)
        mark = marks.last
        mark.scroll_into_view_if_needed()  # (a click lands in the viewport only)
        box = mark.bounding_box()
        assert box is not None
        # (a click: Chromium snaps a tap to a near target by itself, as Safari does not; the unseen
        # circle around the dot is what takes a touch there)
        page.mouse.click(box["x"] + box["width"] / 2 + 8, box["y"] + box["height"] / 2)
        where = (mark.get_attribute("data-seat"), mark.get_attribute("data-deal"), mark.get_attribute("data-trick"))
        picked = next(d for d in own if (str(d.seat), str(d.deal), "" if d.trick is None else str(d.trick)) == where)
        page.locator(f"[data-testid=analysis-better][data-taken='{picked.taken}'][data-best='{picked.best}']").wait_for()
        cost = page.locator("[data-testid=analysis-better] p").first.inner_text()
        assert re.match(r"Cost: (0\.0|−\d+\.\d) points expected, (0%|−\d+%) chance", cost), cost
        assert "−" in cost
        item = items.first
        trick = item.get_attribute("data-trick")
        item_seat = item.get_attribute("data-seat")
        item_deal = item.get_attribute("data-deal")
        item.tap()
        better = page.locator("[data-testid=analysis-better]")
        better.wait_for()
        taken, best = better.get_attribute("data-taken"), better.get_attribute("data-best")
        assert taken != best
        pos = page.inner_text("[data-testid=replay-pos]")
        assert (f"trick {trick}" in pos) if trick else ("the calls" in pos)
        # the replay shows the moment of the decision (a newcomer's try: it showed the step after it,
        # the trick done and the card already gone from the hand)
        deals = httpx.get(f"{base}/api/tables/{table}/history?format=json", timeout=10).json()["deals"]
        calls, cards = items.and_(page.locator("[data-trick='']")), items.and_(page.locator(":not([data-trick=''])"))
        assert calls.count() and cards.count()  # (random bots miss both kinds)
        # a call: the calls made before it shown, its own and those after it not made yet (which
        # came before: the analysis's own order of the deal's calls, from the engine)
        call = calls.nth(calls.count() - 1)  # (not the first mistake: that one is on screen already)
        call.tap()
        seat, di = int(call.get_attribute("data-seat") or ""), int(call.get_attribute("data-deal") or "")
        deal = deals[di]
        in_deal = {d.seat: d.step for d in stored.analysis.decisions if d.deal == di and d.kind == "call"}
        assert sorted(in_deal) == [0, 1, 2, 3]
        before = [s for s, step in in_deal.items() if step < in_deal[seat]]
        want = [str(deal["calls"][i]) if i in before else "—" for i in range(4)]
        page.wait_for_function(
            "(want) => JSON.stringify([...document.querySelectorAll('[data-testid=replay-view] tbody tr')].map((r) => r.querySelector('td').textContent)) === JSON.stringify(want)",
            arg=want,
        )
        page.click("[data-testid=replay-next]")  # (from the moment: the calls all made, not the first trick)
        assert "the calls" in page.inner_text("[data-testid=replay-pos]")
        # a card: still in the seat's hand, and on the trick only the cards played before it
        cards.first.tap()
        page.wait_for_function("() => !/^\\d+$/.test(document.querySelector('[data-testid=analysis-better]').dataset.taken)")
        seat, n = int(cards.first.get_attribute("data-seat") or ""), int(cards.first.get_attribute("data-trick") or "")
        played = deals[int(cards.first.get_attribute("data-deal") or "")]["tricks"][n - 1]
        card = page.get_attribute("[data-testid=analysis-better]", "data-taken")
        hand = page.locator(".replay-hands > div").nth(seat)
        assert hand.locator(f"[data-card='{card}']").count() == 1, hand.inner_html()
        on_trick = page.locator("[data-testid=replay-trick] [data-card]").evaluate_all("els => els.map((e) => e.dataset.card)")
        assert on_trick == played["cards"][: (seat - played["leader"]) % 4], (on_trick, played, seat)
        assert "wins" not in page.inner_text("[data-testid=replay-view] .panel")
        page.click("[data-testid=replay-prev]")  # (from the moment: the trick before, not two back)
        assert (f"trick {n - 1} " in page.inner_text("[data-testid=replay-pos]")) if n > 1 else ("the calls" in page.inner_text("[data-testid=replay-pos]"))
        # ▶ tapped at the top of the page brings the step into view, below the analysis' panel (a
        # Bengali player's try: only the line beside ▶ changed, the trick 1,900 pixels down)
        page.evaluate("window.scrollTo(0, 0)")
        assert page.locator("[data-testid=replay-view]").bounding_box()["y"] > 640  # type: ignore[index]
        page.tap("[data-testid=replay-next]")
        page.wait_for_function("() => { const r = document.querySelector('[data-testid=replay-view]').getBoundingClientRect();"
                               " return r.top >= 0 && r.top < innerHeight / 2; }")
        step, view = (page.locator(s).bounding_box() for s in ("[data-testid=replay-next]", "[data-testid=replay-view]"))
        assert step is not None and view is not None and step["y"] >= 0 and step["y"] + step["height"] <= view["y"], (step, view)  # ▶ above it, sticky
        item.tap()  # (the first mistake again, for what follows)
        page.locator(f"[data-testid=analysis-better][data-taken='{taken}'][data-best='{best}']").wait_for()
        if not best.isdigit():  # a card: shown as a card, marked the better one
            assert better.locator(f".better [data-card='{best}']").count() == 1
        # nothing sticks out sideways on the phone
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
        # play that position again: a new table, in that player's seat, with that hand
        replay_url = page.url
        page.tap("[data-testid=practice-btn]")
        page.wait_for_url("**/t/*")
        practice = page.url.rsplit("/", 1)[1]
        assert practice != table
        cards_left = 13 - (int(trick) - 1 if trick else 0)
        page.wait_for_function(
            "(n) => document.querySelectorAll('[data-testid=hand] [data-card]').length === n",
            arg=cards_left,
            timeout=30_000,
        )
        info = httpx.get(f"{base}/api/tables/{practice}", timeout=10).json()
        assert info["state"]["to_act"] == int(item_seat) and info["table"]["rules"]["rounds"] == 1
        # alone with bots, no turn timer (the match had the friends' form's 15 s and 30 s)
        assert (info["table"]["rules"]["card_seconds"], info["table"]["rules"]["call_seconds"]) == (None, None)
        # the bots there take the names the match had at their seats, as the analysis names them
        # (found in newcomers' tries: a bot of the match's name sat at another seat with another's
        # call; then new names read as other players); one the player goes by is not repeated
        was = [s["name"] for s in httpx.get(f"{base}/api/tables/{table}", timeout=10).json()["table"]["seats"]]
        now = [s["name"] for s in info["table"]["seats"]]
        assert now[int(item_seat)] == "Asha"  # (this browser's name, whichever seat it takes)
        for i, name in enumerate(now):
            if i != int(item_seat):
                assert name == (was[i] if was[i] != "Asha" else name) and name != "Asha", (was, now)
        assert len(set(now)) == 4, now
        # the table says the match's round it plays again ("Round 1 of 1" read as a new match: a
        # Bengali player's try), and its end leads back to the analysis it came from
        again = next(d.round for d in stored.analysis.decisions if str(d.deal) == item_deal)
        assert info["table"]["practice"] == {"table": table, "round": again}
        assert page.inner_text("[data-testid=round-info]") == f"Practice: round {again} again"
        play_to_end([page])
        page.tap("[data-testid=back-to-analysis]")
        page.wait_for_url(f"**/replay/{table}?analyse=1")
        page.wait_for_selector("[data-testid=analysis-summary]")
        page.goto(replay_url.split("?")[0])
        # the second look, after a restart, is instant: no button, no progress
        stop_server(proc)
        proc = start_server(port, db, os.path.join(tmp, "server.log"), env)
        page.goto(f"{base}/matches")
        page.wait_for_selector(f"[data-testid=match-item][data-table='{table}'] [data-testid=analyse-link]")
        page.tap(f"[data-testid=match-item][data-table='{table}'] [data-testid=analyse-link]")
        page.wait_for_selector("[data-testid=analysis-summary]", timeout=30_000)
        assert page.locator("[data-testid=analysis-progress]").count() == 0
        # the same analysis read in Nepali (the browser's language): every word and digit in नेपाली
        seats = httpx.get(f"{base}/api/tables/{table}", timeout=10).json()["table"]["seats"]
        in_nepali(browser, f"{base}/replay/{table}", [s["name"] for s in seats if s["kind"] == "bot"])
    finally:
        ctx.close()
        stop_server(proc)


#: the graph's smallest label as drawn (px)
SMALLEST = """() => {
  const graph = document.querySelector("[data-testid=analysis-graph]");
  const scale = graph.getBoundingClientRect().width / graph.viewBox.baseVal.width;
  return Math.min(...[...graph.querySelectorAll("text")].map((e) => parseFloat(e.getAttribute("font-size")) * scale));
}"""


def summary_fits(page: Any) -> bool:
    """Whether the summary's figures all show on the phone's width: its box does not scroll
    sideways and ends inside the screen; no word of its headings and names is broken across
    lines to get there (a newcomer's try at 360 px in Hindi: "आ/शा", "सटीक/ता"); and where the
    headings' row is out of sight (a phone held upright: each player a block of figures, the
    seven columns' 10 px headings ran together), each figure shows its column's name, in words
    of at least 11 px."""
    scroll, width, right, screen, broken = page.evaluate(
        """() => {
          const box = document.querySelector("[data-testid=analysis-summary]").parentElement;
          const broken = [];
          const hidden = getComputedStyle(box.querySelector("thead")).position === "absolute";
          if (hidden) {
            for (const td of box.querySelectorAll("tbody td")) {
              const label = getComputedStyle(td, "::before");
              // (shown, with no words for a screen reader: `"label" / ""`, the column's heading is read)
              if (!label.content.startsWith(JSON.stringify(td.dataset.label)) || parseFloat(label.fontSize) < 11) broken.push(`label: ${td.dataset.label} (${label.content})`);
            }
          }
          for (const th of box.querySelectorAll(hidden ? "tbody th" : "th")) {
            for (const word of th.textContent.split(/\\s+/).filter(Boolean)) {
              const walk = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
              for (let n = walk.nextNode(); n; n = walk.nextNode()) {
                const at = n.textContent.indexOf(word);
                if (at < 0) continue;
                const r = document.createRange();
                r.setStart(n, at); r.setEnd(n, at + word.length);
                const tops = new Set([...r.getClientRects()].map((b) => Math.round(b.top)));
                if (tops.size > 1) broken.push(word);
                break;
              }
            }
          }
          return [box.scrollWidth, box.clientWidth, box.getBoundingClientRect().right, window.innerWidth, broken];
        }"""
    )
    assert broken == [], broken
    return bool(scroll <= width and right <= screen)


def in_nepali(browser: Any, url: str, bots: list[str]) -> None:
    """The stored analysis on a phone whose browser reads Nepali: the summary, the graph and a
    mistake in detail show no English catalogue text, and numbers in Devanagari digits; the bots
    (``bots``: their names at the table, in English) named in Devanagari, as the table names them."""
    from callbreak.bots.names import written

    ne = catalogue("ne")
    ctx = browser.new_context(locale=LOCALES["ne"], **PHONE)
    try:
        page = ctx.new_page()
        page.set_default_timeout(30_000)
        page.goto(url)
        page.wait_for_selector("[data-testid=analysis-summary]")
        assert ne["analysis.col_accuracy"] in page.inner_text("[data-testid=analysis-summary] thead")
        final = page.inner_text("[data-testid=replay-final]")
        assert len(bots) == 3 and all(written(b, "ne") in final and b not in final for b in bots), (bots, final)
        assert summary_fits(page)
        page.set_viewport_size({"width": 360, "height": 740})
        assert summary_fits(page)
        page.set_viewport_size(PHONE["viewport"])
        numbers = "".join(page.locator("[data-testid=analysis-summary] td").all_inner_texts())
        assert "%" in numbers and not re.search("[0-9]", numbers) and re.search("[०-९]", numbers)
        label = page.get_attribute("[data-testid=analysis-graph]", "aria-label")
        assert label == ne["analysis.graph_aria"].replace("{label}", ne["analysis.graph_label"]), label
        # one who sat at no seat of the match has no "own" slips (a Bengali player's try on a second
        # phone: "and your minor mistakes", none listed)
        assert page.inner_text("h3:has(+ [data-testid=analysis-mistakes])") == ne["analysis.mistakes_all"]
        item = page.locator("[data-testid=mistake-item]").first
        grades = (ne["analysis.grade.mistake"], ne["analysis.grade.blunder"])
        assert item.inner_text().startswith(grades)
        # read out with the cards' names, in Nepali ("A♠, better 4♠" was read "A black spade suit")
        said = str(item.get_attribute("aria-label"))
        assert said.startswith(grades) and not re.search("[♠♥♦♣]", said), said
        item.focus()
        page.keyboard.press("Enter")
        page.locator("[data-testid=analysis-better]").wait_for()
        # the focus on the verdict (it stayed on the list's button, scrolled off the top), the way
        # to play the position again the next Tab
        assert page.evaluate("document.activeElement.closest('[data-testid=analysis-better]') !== null")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.dataset.testid") == "practice-btn"
        assert page.inner_text("[data-testid=practice-btn]").startswith(ne["analysis.practice"][:6])
        check_screen(page, "ne", english_patterns("ne"), "analysis")
    finally:
        ctx.close()
