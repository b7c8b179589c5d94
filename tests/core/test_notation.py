"""Hand histories: round trips, replays, and refusals naming the line."""

from __future__ import annotations

import json
import random
import re

import pytest

from callbreak import HistoryError, Match, Round, Ruleset
from callbreak.notation import dumps, from_dict, from_json, loads, replay_states, to_dict, to_json

from .helpers import deal


def play(m: Match, rng: random.Random, steps: int | None = None, call: int | None = None) -> Match:
    n = 0
    while not m.is_over and (steps is None or n < steps):
        r = m.round
        if r.phase == "calling":
            m.call(call if call is not None else rng.choice(r.legal_calls()))
        else:
            m.play(rng.choice(r.legal_cards()))
        n += 1
    return m


def roundtrip(m: Match) -> str:
    text = dumps(m)
    again = loads(text)
    assert again.state_key() == m.state_key()
    assert dumps(again) == text
    js = to_json(m)
    assert from_json(js).state_key() == m.state_key()
    assert to_json(from_json(js)) == js
    assert from_dict(json.loads(js)).state_key() == m.state_key()
    assert loads(js).state_key() == m.state_key()  # loads accepts the JSON form too
    return text


@pytest.mark.parametrize("preset", ["standard", "quick", "bhoos"])
def test_full_match_roundtrip(preset: str) -> None:
    m = play(
        Match(Ruleset.preset(preset), seed=21, players=["Asha", "Bikash", "Chandra", "Dipa"]),
        random.Random(1),
    )
    m.tags["Event"] = 'Friday "night"'
    m.tags["Date"] = "2026-11-30"
    text = roundtrip(m)
    assert text.startswith('[Event "Friday \\"night\\""]\n[Date "2026-11-30"]\n')
    assert f'[Ruleset "{preset}"]' in text
    assert '[Players "Asha, Bikash, Chandra, Dipa"]' in text
    assert '[Status "over"]' in text
    assert text.count("Trick 13:") == len(m.rounds)
    assert loads(text).tags == m.tags


def test_changes_and_odd_names() -> None:
    rules = Ruleset.preset("pagat", rounds=2, trump="H", max_overtricks=None, card_seconds=None)
    m = play(Match(rules, seed=4, players=["a, b", 'q"uote', "back\\slash", "Dee"]), random.Random(4))
    text = roundtrip(m)
    assert "[Changes " in text
    again = loads(text)
    assert again.rules == rules and again.players == m.players


@pytest.mark.parametrize("steps", [0, 1, 3, 4, 5, 6, 30, 57, 60])
def test_unfinished_roundtrip(steps: int) -> None:
    m = play(Match(seed=5), random.Random(5), steps)
    text = roundtrip(m)
    assert '[Status "playing"]' in text and '[Result "*"]' in text


def test_redeals_roundtrip() -> None:
    # all three kinds of redeal in one match
    rules = Ruleset(redeal_without_trump=True, redeal_without_face_card=True, min_total_calls=8, rounds=2)
    no_trump = deal({1: ("2H", "S")})
    low = " ".join(f"{r}{s}" for s in "SHD" for r in "23456789T").split()[:13]
    no_face = deal({0: (" ".join(low), "")})
    m = Match(rules, seed=6, dealer=0, dealt=[no_trump, no_face])
    assert len(m.redeals) == 2
    for n in (1, 1, 1, 1):
        m.call(n)
    assert len(m.redeals) == 3
    play(m, random.Random(6), call=3)
    text = roundtrip(m)
    assert text.count("Redeal:") == 3
    assert "holds no trump" in text and "holds no face card" in text and "calls total 4, under 8" in text


def test_sudden_death_roundtrip() -> None:
    rules = Ruleset(rounds=1, overtrick_points=0)
    for seed in range(60):
        m = play(Match(rules, seed=seed), random.Random(seed), call=1)
        if len(m.rounds) > 1:
            break
    else:
        pytest.fail("no sudden death found")
    roundtrip(m)


def test_end_roundtrips() -> None:
    m = play(Match(Ruleset.preset("pagat"), seed=8), random.Random(8), 120)
    while len(m.round) > 0:
        m.round.pop()
    m.end()
    text = roundtrip(m)
    assert "End: the table ended the match" in text
    # ended before any round
    m0 = Match(Ruleset(rounds=None), seed=1)
    m0.end()
    roundtrip(m0)
    # ended while tied: sudden death follows the End line
    rules = Ruleset(rounds=None, overtrick_points=0)
    for seed in range(60):
        mt = play(Match(rules, seed=seed), random.Random(seed), 56, call=1)
        if len(set(mt.totals)) == 1:
            break
    else:
        pytest.fail("no tie")
    mt.end()
    assert mt.sudden_death
    play(mt, random.Random(1))
    text = roundtrip(mt)
    end_line = text.index("End:")
    assert text.index("Round 2,") > end_line


def test_real_card_deals_are_trusted() -> None:
    m = play(Match(Ruleset.preset("quick"), seed=3), random.Random(3))
    text = dumps(m)
    # swap two cards between hands in round 1 and drop everything after the deal
    head, _, _ = text.partition("Calls:")
    lines = head.rstrip().splitlines()
    h0 = lines[-4].split()
    h1 = lines[-3].split()
    h0[2], h1[2] = h1[2], h0[2]
    lines[-4], lines[-3] = " ".join(h0), " ".join(h1)
    edited = loads(
        "\n".join(lines)
        .replace('[Seed "3"]\n', "")
        .replace('[Status "over"]', '[Status "playing"]')
        .replace('[Result "' + " ".join(map(str, m.places)) + '"]', '[Result "*"]')
    )
    assert [str(c) for c in edited.round.hands[0]] == sorted(
        h0[2:], key=lambda t: edited.round.hands[0][0].parse(t)
    )
    assert edited.seed == 0


def test_replay_states() -> None:
    m = play(Match(Ruleset.preset("quick"), seed=9), random.Random(9))
    steps = list(replay_states(dumps(m)))
    n_actions = len(m.actions())
    assert len(steps) == n_actions + len(m.deals)
    assert [s.action for s in steps if s.action is not None] == m.actions()
    assert steps[-1].round.phase == "over"
    assert steps[-1].totals == tuple(m.totals)
    assert all(s.line is not None for s in steps)
    js_steps = list(replay_states(to_dict(m)))
    assert [s.action for s in js_steps] == [s.action for s in steps]
    assert js_steps[0].line is None


def _base() -> tuple[Match, str]:
    m = play(Match(seed=10, dealer=0), random.Random(10), 30)
    return m, dumps(m)


def _line_of(text: str, start: str) -> int:
    return next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith(start))


def test_illegal_card_names_line() -> None:
    m, text = _base()
    ln = _line_of(text, "Trick 2:")
    lines = text.splitlines()
    parts = lines[ln - 1].split()
    # replace the second card by a card of a hand that is not that seat's
    r = m.round
    leader = r.tricks[1].leader
    wrong = r.dealt[(leader + 2) % 4][0]
    parts[4] = str(wrong)
    lines[ln - 1] = " ".join(parts)
    with pytest.raises(HistoryError) as e:
        loads("\n".join(lines))
    assert e.value.line == ln
    assert "does not hold" in str(e.value) and str(e.value).startswith(f"line {ln}:")


def test_illegal_play_reason() -> None:
    m, text = _base()
    rnd = m.round
    probe = Round(rnd.rules, rnd.dealt, rnd.dealer)
    for k in range(4):
        probe.call(rnd.calls[(rnd.dealer + 1 + k) % 4])  # type: ignore[arg-type]
    lines = text.splitlines()
    for tno, t in enumerate(rnd.tricks):
        for i, card in enumerate(t.cards):
            hand = probe.hands[probe.to_act]  # type: ignore[index]
            bad = [c for c in hand if c not in probe.legal_cards()]
            if bad:
                ln = _line_of(text, f"Trick {tno + 1}:")
                parts = lines[ln - 1].split()
                parts[4 + i] = str(bad[0]) + ("," if i == 3 else "")
                lines[ln - 1] = " ".join(parts)
                with pytest.raises(
                    HistoryError, match=f"line {ln}: seat {probe.to_act} may not play {bad[0]}: "
                ):
                    loads("\n".join(lines))
                return
            probe.play(card)
    pytest.fail("no trick with a choice")


@pytest.mark.parametrize(
    "edit,fragment",
    [
        (lambda t: t.replace("Calls:", "Callz:", 1), "cannot read"),
        (lambda t: t.replace('[Seed "10"]', '[Seed "ten"]'), "seed"),
        (lambda t: t.replace('[Dealer "0"]', "[Dealer 0]"), "tag is written"),
        (lambda t: t.replace("Round 1, dealer 0", "Round 1, dealer 2"), "dealer"),
        (lambda t: t.replace("Round 1, dealer 0", "Round 3, dealer 0"), "round 1"),
        (lambda t: t.replace("Trick 2:", "Trick 3:"), "expected trick 2"),
        (lambda t: t.replace('[Ruleset "standard"]', '[Ruleset "poker"]'), "unknown preset"),
        (
            lambda t: t.replace('[Ruleset "standard"]', '[Ruleset "standard"]\n[Changes "rounds=99"]'),
            "rounds",
        ),
        (lambda t: t.replace('[Status "playing"]', '[Status "over"]'), "still playing"),
        (lambda t: t + "Points: 1 2 3 4\n", "once the round is over"),
        (lambda t: t + '[Late "tag"]\n', "before the first round"),
        (lambda t: "Calls: 1 2 3 4\n" + t, "expected a tag"),
        (lambda t: t.replace('[Players "', '[Players "Extra, '), "four player names"),
    ],
)
def test_refusals(edit: object, fragment: str) -> None:
    _, text = _base()
    bad = edit(text)  # type: ignore[operator]
    assert bad != text
    with pytest.raises(HistoryError, match=fragment) as e:
        loads(bad)
    assert e.value.line is not None


def test_bad_calls_and_cards() -> None:
    _, text = _base()
    ln = _line_of(text, "Calls:")
    lines = text.splitlines()
    lines[ln - 1] = "Calls: 14 1 1 1"
    with pytest.raises(HistoryError, match=f"line {ln}: .*cannot call 14"):
        loads("\n".join(lines))
    lines[ln - 1] = "Calls: 1 1 1"
    with pytest.raises(HistoryError, match=f"line {ln}: four calls"):
        loads("\n".join(lines))
    ln = _line_of(text, "Hand 1:")
    lines = text.splitlines()
    lines[ln - 1] = lines[ln - 1].replace(lines[ln - 1].split()[2], "ZZ", 1)
    with pytest.raises(HistoryError, match=f"line {ln}: not a card"):
        loads("\n".join(lines))
    lines = text.splitlines()
    h0 = lines[ln - 2].split()[2]
    lines[ln - 1] = lines[ln - 1].replace(lines[ln - 1].split()[2], h0, 1)
    with pytest.raises(HistoryError, match=rf"line {ln}: {h0} is dealt to seats 0 and 1"):
        loads("\n".join(lines))
    lines = text.splitlines()
    lines[ln - 1] = " ".join(lines[ln - 1].split()[:-1])
    with pytest.raises(HistoryError, match=rf"line {ln}: seat 1 holds 12 cards"):
        loads("\n".join(lines))
    lines = text.splitlines()
    parts = lines[ln - 1].split()
    parts[3] = parts[2]
    lines[ln - 1] = " ".join(parts)
    with pytest.raises(HistoryError, match=rf"line {ln}: seat 1's hand repeats"):
        loads("\n".join(lines))


def test_wrong_results_refused() -> None:
    m = play(Match(Ruleset.preset("quick"), seed=11), random.Random(11))
    text = dumps(m)
    ln = _line_of(text, "Points:")
    lines = text.splitlines()
    lines[ln - 1] = "Points: 1 1 1 1"
    with pytest.raises(HistoryError, match=f"line {ln}: the points are"):
        loads("\n".join(lines))
    lines = text.splitlines()
    ln = _line_of(text, "Totals:")
    lines[ln - 1] = "Totals: 0 0 0 0"
    with pytest.raises(HistoryError, match=f"line {ln}: the totals are"):
        loads("\n".join(lines))
    lines = text.splitlines()
    ln = _line_of(text, "Trick 1:")
    head, _, _ = lines[ln - 1].rpartition(",")
    w = int(lines[ln - 1].split()[-2])
    lines[ln - 1] = f"{head}, {(w + 1) % 4} wins"
    with pytest.raises(HistoryError, match=f"line {ln}: seat {w} wins this trick"):
        loads("\n".join(lines))
    bad_places = text.replace("Places: " + " ".join(map(str, m.places)), "Places: 4 4 4 4")
    with pytest.raises(HistoryError, match="places"):
        loads(bad_places)
    # the JSON form's totals of the whole match, and its players' names, are checked too
    d = to_dict(m)
    for key, value, said in (
        ("totals", [1, 2, 3, 4], r"totals: the match's totals are \["),
        ("totals", "garbage", "totals: four values"),
        ("totals", ["sNaN", "0", "0", "0"], "totals: not numbers"),
        ("players", [1, 2, 3, 4], r"players: four player names, not \[1, 2, 3, 4\]"),
    ):
        with pytest.raises(HistoryError, match=said):
            from_dict(d | {key: value})
    assert from_dict(d).totals == m.totals


def test_json_errors() -> None:
    m = play(Match(seed=12), random.Random(12), 20)
    d = to_dict(m)
    d["deals"][0]["tricks"][1]["cards"][0] = "XX"
    with pytest.raises(HistoryError, match=r"deals\[0\]\.tricks\[1\]: not a card"):
        from_dict(d)
    with pytest.raises(HistoryError, match="not valid JSON"):
        from_json("{nope")
    with pytest.raises(HistoryError, match="not a callbreak history"):
        from_dict({"format": "pgn"})
    with pytest.raises(HistoryError):
        loads(42)  # type: ignore[arg-type]


def test_other_files_are_not_taken_for_a_match_at_its_start() -> None:
    # another program's JSON (the arena's results), an empty object, an empty file: each refused,
    # where each used to load as a new match, and `callbreak replay` showed it with status 0
    for text, said in (
        ('{"matches": 4, "bots": ["easy"], "seed": 0}', "no format and no deals (keys: bots, matches, seed)"),
        ("{}", "no format and no deals (keys: none)"),
        ("", "the history is empty"),
        ("  \n\n", "the history is empty"),
    ):
        with pytest.raises(HistoryError, match=re.escape(said)):
            loads(text)
    d = to_dict(play(Match(seed=12), random.Random(12), 20))
    for version in (99, 0, "1", True):
        with pytest.raises(HistoryError, match=f"history version {re.escape(repr(version))}: this program reads version 1"):
            from_dict({**d, "version": version})
    # a hand-written history with deals and no format still loads
    del d["format"], d["version"]
    assert from_dict(d).state_key() == from_json(to_json(from_dict(d))).state_key()


def test_comments_and_blank_lines_ignored() -> None:
    m, text = _base()
    noisy = "# a comment\n\n" + text.replace("\n", "\n\n  ")
    assert loads(noisy).state_key() == m.state_key()


def _paths(o: object, p: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    out = [p]
    if isinstance(o, dict):
        for k, v in o.items():
            out += _paths(v, (*p, k))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            out += _paths(v, (*p, i))
    return out


def test_fuzz_damaged_histories_give_history_error() -> None:
    """Damaged histories (text and JSON) are refused with HistoryError, never another exception."""
    import contextlib
    import copy

    m = play(Match(seed=3), random.Random(0), 150)
    base = to_dict(m)
    lines = dumps(m).splitlines()
    rng = random.Random(1)
    values: list[object] = [
        None,
        0,
        -1,
        5,
        99,
        "x",
        "AS",
        [],
        {},
        [1, 2],
        True,
        1.5,
        "0.1",
        [None] * 4,
        ["AS"] * 4,
    ]
    paths = [p for p in _paths(base) if p]
    for _ in range(600):
        d = copy.deepcopy(base)
        p = rng.choice(paths)
        o: object = d
        for k in p[:-1]:
            o = o[k]  # type: ignore[index]
        o[p[-1]] = rng.choice(values)  # type: ignore[index]
        with contextlib.suppress(HistoryError):
            from_dict(d)
    for _ in range(600):
        ls = list(lines)
        j = rng.randrange(len(ls))
        op = rng.randrange(4)
        if op == 0:
            del ls[j]
        elif op == 1:
            ls[j] = ls[j][: rng.randrange(len(ls[j]) + 1)]
        elif op == 2:
            ls.insert(j, rng.choice(ls))
        else:
            w = ls[j].split()
            if w:
                w[rng.randrange(len(w))] = rng.choice(["AS", "x", "-", "99", "0", "1", ",", '"'])
            ls[j] = " ".join(w)
        try:
            loads("\n".join(ls))
        except HistoryError as e:
            assert e.line is None or 1 <= e.line <= len(ls)
