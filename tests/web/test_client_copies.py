"""The web client's unavoidable copies of Python tables, held to the originals.

The client draws the presets' rules (home page, calculator, lobby) and the bots' level names
without asking the server; these tests load the client's own modules in Chromium and compare.
"""

from __future__ import annotations

from typing import Any

import msgspec

from callbreak import PRESETS, Ruleset
from callbreak.bots.names import LEVEL_NAMES
from callbreak.server.table import NAME_MAX
from callbreak.tui.online import away_text


def test_the_clients_presets_are_the_engines(static_url: str, page: Any) -> None:
    page.goto(static_url + "/rules")
    got = page.evaluate(
        """async (names) => {
          const m = await import("/static/util.js");
          return Object.fromEntries(names.map((n) => [n, m.presetRules(n)]));
        }""",
        list(PRESETS),
    )
    assert set(got) == set(PRESETS)
    for name in PRESETS:
        assert got[name] == Ruleset.preset(name).to_dict(), name


def test_the_clients_level_names_are_the_bots(static_url: str, page: Any) -> None:
    page.goto(static_url + "/rules")
    got = page.evaluate('async () => (await import("/static/avatars.js")).LEVEL_NAMES')
    assert got == LEVEL_NAMES


def test_the_clients_bot_names_are_the_bots(static_url: str, page: Any) -> None:
    """The bots' names in each script, and a name read in the reader's script, as the Python side has them."""
    from callbreak.bots.names import WRITTEN, in_script

    page.goto(static_url + "/rules")
    assert page.evaluate('async () => (await import("/static/avatars.js")).BOT_NAMES') == {k: list(v) for k, v in WRITTEN.items()}
    names = [form for key, forms in WRITTEN.items() for form in (key, *forms)] + ["Asha", "আশা"]
    cases = [[name, lang] for name in names for lang in ("en", "ne", "hi", "bn")]
    got = page.evaluate('async (cases) => { const m = await import("/static/avatars.js"); return cases.map(([n, l]) => m.botNameIn(n, l)); }', cases)
    assert got == [in_script(name, lang) for name, lang in cases]


def test_the_clients_rounding_of_the_analysis_figures_is_the_analysis(static_url: str, page: Any) -> None:
    """The figures the page shows are those the grades are taken on (`records.half_up`)."""
    from callbreak.analysis.records import half_up
    from callbreak.analysis.report import _dec, _pct

    xs = [0.0, 0.005, 0.045, 0.05, 0.125, 0.145, 0.245, 0.2449, 0.25, 1.15, 1.149, 1.25, 2.449, 2.45, 0.675]
    page.goto(static_url + "/rules")
    got = page.evaluate("""async (xs) => { const m = await import("/static/analysis.js");
        return xs.map((x) => [m.halfUp(x, 1), m.halfUp(x, 2), m.dec(x), m.pct(x)]); }""", xs)
    assert got == [[half_up(x, 1), half_up(x, 2), _dec("en", x), _pct("en", x)] for x in xs]


def test_the_loss_the_page_names_for_a_grade_is_the_one_that_sets_it(static_url: str, page: Any) -> None:
    """A mistake's list line names the loss that set its grade (`engine.grade`: the worse of the
    two; a Nepali player's try: a "blunder" said "−0.1 pts", its −25% chance of finishing first
    being what made it one); where both set it, the points."""
    from callbreak.analysis.engine import THRESHOLDS, grade, shown_losses
    from callbreak.analysis.records import GRADES

    points = [0.0, 0.04, 0.1, 0.45, 0.5, 1.2, 1.25, 2.0, 2.449, 2.45, 3.0, 6.0]
    wins = [0.0, 0.004, 0.05, 0.1, 0.125, 0.2449, 0.245, 0.25, 0.4, 0.9]
    cases = [(p, w) for p in points for w in wins]
    page.goto(static_url + "/rules")
    got = page.evaluate(
        """async ([cases, thresholds]) => { const m = await import("/static/analysis.js");
        return cases.map(([p, w]) => m.gradedBy({ loss_points: p, loss_win: w }, thresholds)); }""",
        [cases, THRESHOLDS],
    )
    want = []
    for p, w in cases:
        sp, sw = shown_losses(p, w)
        by_points, by_win = GRADES.index(grade(sp, 0.0)), GRADES.index(grade(0.0, sw))
        assert GRADES.index(grade(sp, sw)) == max(by_points, by_win)
        want.append("win" if by_win > by_points else "points")
    assert got == want
    assert {"win", "points"} <= set(got)


def test_the_clients_longest_name_is_the_servers(static_url: str, page: Any) -> None:
    page.goto(static_url + "/")
    assert page.evaluate('async () => (await import("/static/util.js")).NAME_MAX') == NAME_MAX
    page.wait_for_selector("[data-testid=my-name]")
    assert page.get_attribute("[data-testid=my-name]", "maxlength") == str(NAME_MAX)


def test_the_clients_words_for_a_bots_turns_while_away_are_the_terminals(static_url: str, page: Any) -> None:
    cases = [(3, 9), (2, 1), (None, 1), (None, 5), (4, 0)]
    page.goto(static_url + "/rules")
    got = page.evaluate(
        'async (cases) => { const m = await import("/static/util.js"); return cases.map(([c, n]) => m.awayText(c, n)); }', cases
    )
    assert got == [away_text(c, n) for c, n in cases]


def test_the_clients_words_for_a_hints_reason_are_the_bots(static_url: str, page: Any) -> None:
    from callbreak import Card
    from callbreak.bots import Hint
    from callbreak.bots.medium import WHY
    from callbreak.i18n import LANGUAGES
    from callbreak.server.hinting import hint_message

    ace, two, ten = Card.parse("AS"), Card.parse("2S"), Card.parse("10H")
    hints = [Hint(card=ace, why=w, level="medium") for w in WHY]
    hints += [
        Hint(card=ace, why="cannot_win", quick=True),
        Hint(card=ten, why="search", than=two, level="hard"),
        # call hints at the edges of their rounding (a half in the shown digit)
        Hint(call=4, chance=0.8249, why="call", mean=4.25, level="hard"),
        Hint(call=1, chance=0.005, why="call", mean=0.95),
        Hint(call=7, chance=1.0, why="call", mean=7.0),
        Hint(call=4, chance=0.177, why="call_first", mean=2.63, level="hard"),
        Hint(card=ace, why="a_newer_servers_reason"),  # no words for it here: none shown
        Hint(call=2, chance=0.5),  # no reason
    ]
    messages = [msgspec.to_builtins(hint_message(5, h)) for h in hints]
    for lang in LANGUAGES:
        page.goto(static_url + "/rules")
        page.evaluate("(code) => localStorage.setItem('callbreak.lang', JSON.stringify(code))", lang)
        page.goto(static_url + "/rules")
        got = page.evaluate(
            'async (ms) => { const m = await import("/static/util.js"); return ms.map((h) => m.hintReason(h)); }',
            messages,
        )
        assert got == [h.say(lang) for h in hints], lang  # (the cards as their faces show them: "10♥")
    assert got[-1] == "" and "10♥" in got[len(WHY) + 1] and "2♠" in got[len(WHY) + 1]


def test_the_terminals_words_for_a_rule_are_the_home_pages(static_url: str, page: Any) -> None:
    """A table's changed rules, as the terminal's header words them, read as the home page's
    form offers them: each field's label and each of its values' words, in every language."""
    from callbreak.i18n import LANGUAGES
    from callbreak.tui import words
    from callbreak.tui.render import rule_words

    checked = 0
    try:
        for lang in LANGUAGES:
            page.goto(static_url + "/rules")
            page.evaluate("(code) => localStorage.setItem('callbreak.lang', JSON.stringify(code))", lang)
            page.goto(static_url + "/rules")
            form = page.evaluate(
                """async () => {
                  const m = await import("/static/home.js");
                  return m.CUSTOM.flatMap(([f, label, opts]) =>
                    opts.map(([v, w]) => [f, m.parseField(f, String(v)), `${label}: ${w}`]));
                }"""
            )
            words.use(lang)
            for field, value, shown in form:
                if field == "overtrick_points":  # as `Ruleset.describe` gives it: "0.1"
                    value = str(Ruleset.preset("standard", overtrick_points=value).overtrick_points)
                assert rule_words(field, value) == shown, (lang, field, value)
                checked += 1
    finally:
        words.use("en")
    assert checked > 4 * 60
