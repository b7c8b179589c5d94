"""The arena: duplicate dealing, parallel runs, statistics on known records, faults, the command."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from callbreak import Card, Ruleset, SeatView
from callbreak.arena.runner import MatchRecord, RunResult, Task, play_match, run_arena, tasks_for
from callbreak.arena.stats import mean_ci
from callbreak.arena.summary import summarize
from callbreak.bots import Bot, make_bot
from callbreak.cli import main

QUICK = Ruleset.preset("bhoos").replace(rounds=2)


def record(i: int, group: int, totals: list[float], calls: list[int], tricks: list[int]) -> MatchRecord:
    from callbreak.arena.stats import win_shares

    return MatchRecord(
        index=i, group=group, rotation=i % 4, deal_seed=0, seats=[0, 1, 2, 3], totals=totals, rounds=2,
        round_points=[[t / 2 for t in totals]] * 2, calls=[[c, c] for c in calls],
        tricks=[[t, t] for t in tricks], made=[[t >= c, t >= c] for c, t in zip(calls, tricks)],
        times=[[0.001, 0.003]] * 4, round_times=[[0.004, 2.0]] * 4, faults=[[], [], [], []],
        places=[1, 2, 3, 4], win_share=win_shares(totals),
    )  # fmt: skip


def test_summary_on_known_records() -> None:
    recs = [
        record(0, 0, [10, 10, 0, -4], [3, 2, 4, 1], [3, 1, 4, 5]),
        record(1, 1, [6, 2, 8, 0], [3, 2, 4, 1], [3, 1, 4, 5]),
        record(2, 2, [2, 0, 1, 3], [3, 2, 4, 1], [3, 1, 4, 5]),
    ]
    res = RunResult(["a", "b", "c", "d"], QUICK, 3, 0, False, 1.5, 1, recs)
    s = summarize(res)
    a, b = s.bots[0], s.bots[1]
    assert s.unit == "match" and s.units == 3
    assert a.points == 6.0 and a.points_ci == pytest.approx(4.3027 * 4 / 3**0.5, rel=1e-4)
    assert a.points_per_round == 3.0
    assert a.win_share == pytest.approx(0.5 / 3) and b.win_share == pytest.approx(0.5 / 3)
    assert s.bots[2].win_share == pytest.approx(1 / 3) and s.bots[3].win_share == pytest.approx(1 / 3)
    assert a.made_pct == 100.0 and b.made_pct == 0.0
    assert a.mean_call == 3 and s.bots[3].mean_tricks == 5
    assert a.time_mean_ms == pytest.approx(2.0) and a.time_p99_ms == pytest.approx(3.0)
    assert a.rounds_over_budget == 3  # one round of each match took 2 s against a 1.5 s budget


def test_duplicate_ci_is_over_deal_groups() -> None:
    recs = [record(i, i // 4, [float(i), 0, 0, 0], [1] * 4, [1] * 4) for i in range(8)]
    res = RunResult(["a", "b", "c", "d"], QUICK, 8, 0, True, 1.5, 1, recs)
    s = summarize(res)
    assert s.unit == "deal group" and s.units == 2
    # group means of bot a: (0+1+2+3)/4 = 1.5 and (4+5+6+7)/4 = 5.5
    assert (s.bots[0].points, s.bots[0].points_ci) == mean_ci([1.5, 5.5])
    assert s.table().caption.startswith("± is the 95 % CI over 2 deal groups.")
    one = summarize(RunResult(["a", "b", "c", "d"], QUICK, 4, 0, True, 1.5, 1, recs[:4]))
    assert one.table().caption.startswith("± is the 95 % CI over 1 deal group.")  # (was "1 deal groups")


def test_tasks_rotate_through_every_seat() -> None:
    ts = tasks_for(8, 3, True)
    assert [(t.group, t.rotation) for t in ts] == [(g, r) for g in range(2) for r in range(4)]
    assert ts[0].deal_seed == ts[3].deal_seed != ts[4].deal_seed
    assert len(tasks_for(5, 0, True)) == 8 and len(tasks_for(5, 0, False)) == 5


@pytest.mark.parametrize("level", ["random", "easy"])
def test_duplicate_identical_bots_give_identical_results(level: str) -> None:
    res = run_arena([level] * 4, matches=8, seed=6, duplicate=True, rules=QUICK)
    s = summarize(res)
    first = s.bots[0]
    for b in s.bots[1:]:
        assert (b.points, b.points_ci, b.win_share, b.made_pct, b.mean_call, b.mean_tricks) == (
            first.points, first.points_ci, first.win_share, first.made_pct, first.mean_call, first.mean_tricks,
        )  # fmt: skip
    # within a deal group the four matches are the same match, seen from rotated seats
    for g in range(2):
        group = [r for r in res.records if r.group == g]
        by_seat = [[r.totals[r.seats.index(s)] for s in range(4)] for r in group]
        assert all(x == by_seat[0] for x in by_seat)
    assert first.win_share == 0.25


def test_different_bots_in_duplicate_differ() -> None:
    res = run_arena(["random", "random", "random", "random"], matches=4, seed=1, duplicate=False, rules=QUICK)
    assert len({tuple(r.totals) for r in res.records}) > 1


def test_jobs_2_equals_jobs_1() -> None:
    a = run_arena(["random"] * 4, matches=8, seed=2, jobs=1, duplicate=True, rules=QUICK)
    b = run_arena(["random"] * 4, matches=8, seed=2, jobs=2, duplicate=True, rules=QUICK)
    strip = [(r.index, r.totals, r.calls, r.tricks, r.places, r.win_share, r.faults) for r in a.records]
    assert strip == [
        (r.index, r.totals, r.calls, r.tricks, r.places, r.win_share, r.faults) for r in b.records
    ]


class Cheat(Bot):
    """Plays the first card of its hand, legal or not, and calls 99."""

    name = "cheat"

    def act(self, view: SeatView) -> int | Card:
        return 99 if view.phase == "calling" else view.hand[0]


class Crasher(Bot):
    name = "crasher"

    def act(self, view: SeatView) -> int | Card:
        raise RuntimeError("oops")


def test_local_faults_are_counted_and_the_match_finishes() -> None:
    bots = [Cheat(0), Crasher(0), make_bot("random", 1), make_bot("random", 2)]
    rec = play_match(bots, QUICK, Task(0, 0, 0, 5))
    assert rec.rounds == 2
    kinds0 = {f["kind"] for f in rec.faults[0]}
    assert kinds0 == {"illegal"} and len(rec.faults[0]) >= 2  # at least the two calls
    assert len(rec.faults[1]) == len(rec.times[1]) and rec.faults[1][0]["kind"] == "error"
    assert rec.faults[2] == [] and rec.faults[3] == []


class Flaky(Bot):
    """Plays its lowest legal card, and raises at every trick 7 (a bot builder's try)."""

    name = "flaky"

    def act(self, view: SeatView) -> int | Card:
        if view.phase == "calling":
            return view.legal_calls[0]
        if len(view.tricks) == 6:
            raise RuntimeError("boom")
        return min(view.legal_cards)


class Strings(Bot):
    """Answers its cards as text ("2C"), as a newcomer's bot might."""

    name = "strings"

    def act(self, view: SeatView) -> int | Card:
        return view.legal_calls[0] if view.phase == "calling" else str(view.legal_cards[0])  # type: ignore[return-value]


def test_what_the_arena_played_for_a_faulting_bot_is_not_graded_as_the_bots() -> None:
    """A bot builder's try: the cards the arena played for a bot that raised were graded in the
    analysis of the match's history as the bot's own ("good"), in its accuracy; the history now
    marks them (its ``Auto`` tag) and the analysis leaves them out. Each fault says its match and
    decision (it said only the round)."""
    from callbreak.analysis import analyse
    from callbreak.notation import auto_decisions, from_json

    rules = Ruleset.preset("quick", rounds=1)
    rec = play_match([Flaky(0), make_bot("random", 1), make_bot("random", 2), make_bot("random", 3)], rules,
                     Task(7, 7, 0, 5), history=True)
    assert [(f["kind"], f["match"], f["round"], f["decision"]) for f in rec.faults[0]] == [("error", 7, 1, "trick 7")]
    assert rec.history is not None
    m = from_json(rec.history)
    made_for = auto_decisions(m)
    ((deal, step),) = made_for
    assert made_for == {(deal, step): "fault"} and m.deals[deal].actions[step].seat == 0
    a = analyse(m, seats=[0], budget=8, hindsight=False)
    (faulted,) = [d for d in a.decisions if (d.deal, d.step) == (deal, step)]
    assert faulted.trick == 7 and faulted.auto == "fault"
    assert sum(a.summaries[0].grades.values()) == len(a.decisions) - 1  # the bot's own graded, not the arena's


def test_a_card_answered_as_text_is_a_fault_as_the_bots_contract_says() -> None:
    """A bot builder's try: a card answered as "2C" was taken silently (a call answered "1" was a
    fault, and `Bot.play` refuses the same card): each is a fault, the match goes on."""
    rec = play_match([Strings(0), make_bot("random", 1), make_bot("random", 2), make_bot("random", 3)],
                     Ruleset.preset("quick", rounds=1), Task(0, 0, 0, 5))
    assert len(rec.faults[0]) == 13 and {f["kind"] for f in rec.faults[0]} == {"illegal"}
    assert re.search(r"a card is a Card \(Card.parse\('\w\w'\)\), not text", rec.faults[0][0]["detail"]), rec.faults[0]


@pytest.mark.parametrize("bots", [["easy"] * 3, ["easy"] * 5])
def test_the_arena_says_four_bots_are_needed(bots: list[str], capsys: Any) -> None:
    """Three bots were "the following arguments are required: BOT", five "unrecognized arguments"."""
    with pytest.raises(SystemExit) as e:
        main(["arena", *bots, "-n", "1"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert f"four bots are needed, one a seat, in seat order: {len(bots)} given" in err, err


def test_the_arena_says_which_bot_faulted_and_where(tmp_path: Path, capsys: Any) -> None:
    """A bot file that raises is named with its first error's place (before: only a count in
    the table's last column, the run otherwise looking sound), its name as written (``:Boom:``
    was an emoji), and the run exits 1: it never played (a script or CI learns it; it exited 0)."""
    f = tmp_path / "bad.py"
    f.write_text(
        "from callbreak.bots import Bot\n\n\nclass Boom(Bot):\n    name = 'boom'\n\n"
        "    def act(self, view):\n        raise RuntimeError('boom')\n",
        encoding="utf-8",
    )
    assert main(["arena", f"{f}:Boom", "random", "random", "random", "-n", "1", "--rules", "quick", "-q"]) == 1
    err = capsys.readouterr().err
    (line,) = [x for x in err.splitlines() if x.startswith("warning:")]
    assert line.startswith(f"warning: {f}:Boom: ") and "\N{COLLISION SYMBOL}" not in err, line
    assert "of its decisions faulted (error " in line, line
    assert line.endswith("the first: error in match 0, round 1, the call: RuntimeError (at bad.py:8, in act): boom"), line
    assert f"error: {f}:Boom faulted on every decision: it never played" in err, err


def test_a_bot_that_faults_now_and_then_fails_the_run_only_when_strict(tmp_path: Path, capsys: Any) -> None:
    f = tmp_path / "calls.py"
    f.write_text(
        "from callbreak.bots import Bot\n\n\nclass NoCalls(Bot):\n    name = 'nocalls'\n\n"
        "    def act(self, view):\n        if view.phase == 'calling':\n            raise RuntimeError('no call')\n"
        "        return view.legal_cards[0]\n",
        encoding="utf-8",
    )
    run = ["arena", f"{f}:NoCalls", "random", "random", "random", "-n", "1", "--rules", "quick", "-q"]
    assert main(run) == 0
    assert "warning:" in capsys.readouterr().err
    assert main([*run, "--strict"]) == 1
    assert f"error: {f}:NoCalls faulted (above)" in capsys.readouterr().err


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="four bots"):
        run_arena(["random"] * 3, 1)
    with pytest.raises(ValueError, match="unknown bot level"):
        run_arena(["random", "random", "random", "grandmaster"], 1)
    with pytest.raises(ValueError, match="fixed number of rounds"):
        run_arena(["random"] * 4, 1, rules=Ruleset.preset("pagat"))


def test_arena_command(tmp_path: Path, capsys: Any) -> None:
    out_json, out_png, ratings = tmp_path / "r.json", tmp_path / "r.png", tmp_path / "ratings.json"
    rc = main(["arena", "random", "random", "random", "random", "-n", "4", "--duplicate", "--rules", "quick",
               "--seed", "3", "-q", "--json", str(out_json), "--plot", str(out_png), "--ratings", str(ratings)])  # fmt: skip
    assert rc == 0
    text = capsys.readouterr().out
    assert "points/match" in text and "win share" in text and "OpenSkill" in text
    data = json.loads(out_json.read_text())
    assert data["ci_unit"] == "deal group" and data["matches"] == 4 and len(data["bots"]) == 4
    assert len(data["match_records"]) == 4
    assert out_png.read_bytes()[:4] == b"\x89PNG"
    assert json.loads(ratings.read_text())["random"]["matches"] == 4
    assert main(["arena", "random", "random", "random", "nobody", "-q"]) == 2


def test_a_run_played_again_is_not_rated_twice(tmp_path: Path, capsys: Any) -> None:
    """The same seed replays the same matches: rating them again would count the same evidence
    twice (before, the matches and the confidence grew with each rerun)."""
    ratings = tmp_path / "ratings.json"
    argv = ["arena", "random", "easy", "random", "random", "-n", "2", "--rules", "quick", "--rounds", "1", "-q",
            "--ratings", str(ratings)]  # fmt: skip
    assert main(argv) == 0
    first = json.loads(ratings.read_text())
    assert first["easy"]["matches"] == 2
    capsys.readouterr()
    assert main(argv) == 0
    assert json.loads(ratings.read_text()) == first
    assert "2 of these matches were rated before" in capsys.readouterr().err
    assert main([*argv, "--seed", "9"]) == 0
    assert json.loads(ratings.read_text())["easy"]["matches"] == 4
    # the same seed, a bot's file edited to play otherwise: new matches, rated
    bot = tmp_path / "caller.py"
    code = "from callbreak.bots import Bot\n\n\nclass Caller(Bot):\n    name = 'caller'\n\n    def act(self, view):\n"
    bot.write_text(code + "        return view.legal_calls[0] if view.phase == 'calling' else view.legal_cards[0]\n")
    again = [*argv[:2], f"{bot}:Caller", *argv[3:]]
    assert main(again) == 0
    bot.write_text(code + "        return view.legal_calls[-1] if view.phase == 'calling' else view.legal_cards[-1]\n")
    run = subprocess.run([sys.executable, "-m", "callbreak", *again], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr  # (a process of its own, as each run is: the file read afresh)
    assert json.loads(ratings.read_text())[f"{bot}:Caller"]["matches"] == 4
    assert "rated before" not in run.stderr


def test_each_matchs_hand_history_is_kept_for_analysis(tmp_path: Path, capsys: Any) -> None:
    from callbreak.notation import from_json

    argv = ["arena", "medium", "easy", "random", "random", "-n", "4", "--rules", "quick", "--seed", "5", "-q"]
    games, again = tmp_path / "games", tmp_path / "again"
    assert main([*argv, "--jobs", "2", "--histories", str(games), "--json", str(tmp_path / "r.json")]) == 0
    assert "hand histories written to" in capsys.readouterr().out
    records = json.loads((tmp_path / "r.json").read_text())["match_records"]
    assert sorted(p.name for p in games.iterdir()) == [f"match-{i:04d}.json" for i in range(4)]
    for rec in records:
        m = from_json((games / f"match-{rec['index']:04d}.json").read_text())
        assert m.is_over and [float(m.totals[s]) for s in rec["seats"]] == rec["totals"]
        # each bot by its label in the arena's table: two of a kind told apart
        assert [m.players[s] for s in rec["seats"]] == ["medium", "easy", "random #1", "random #2"]
        # the fields the docs name, by bot (found in a bot builder's try: no "made", no "round_points")
        for i, s in enumerate(rec["seats"]):
            assert rec["made"][i] == [r.tricks_won[s] >= (r.calls[s] or 0) for r in m.rounds]
            assert rec["round_points"][i] == [float(points[s]) for points in m.round_points]
    # one process writes the same histories; the analysis reads them
    assert main([*argv, "--histories", str(again)]) == 0
    assert all((games / p.name).read_text() == p.read_text() for p in again.iterdir())
    # a folder of an earlier run's histories is refused (they would stay mixed in), before any match
    capsys.readouterr()
    assert main([*argv, "--histories", str(games)]) == 2
    out, err = capsys.readouterr()
    assert "holds an earlier run's histories" in err and "points/match" not in out
    assert main(["analyse", str(games / "match-0001.json"), "--seat", "0", "--budget", "20", "--no-hindsight"]) == 0
    # a file where the folder should be is said before any match
    (tmp_path / "taken").write_text("")
    with pytest.raises(SystemExit):
        main([*argv, "--histories", str(tmp_path / "taken")])
    assert "cannot write into" in capsys.readouterr().err


def test_run_arena_takes_a_presets_name_and_refuses_bad_counts_clearly() -> None:
    """A researcher's try: ``rules="quick"`` (as the command line and the environments take rules)
    failed with "'str' object has no attribute 'rounds'", ``jobs=0`` was taken, and ``matches=4.5``
    gave a TypeError from inside."""
    import numpy as np

    by_name = run_arena(["random"] * 4, np.int64(2), rules="quick", seed=np.int64(1), jobs=np.int32(1))
    assert by_name.rules == Ruleset.preset("quick")
    assert [r.totals for r in by_name.records] == [r.totals for r in run_arena(["random"] * 4, 2, rules=Ruleset.preset("quick"), seed=1).records]
    for kwargs, said in (
        ({"jobs": 0}, "jobs must be a whole number from 1, not 0"),
        ({"jobs": 1.5}, "jobs must be a whole number"),
        ({"rules": 3}, "rules must be a Ruleset or a preset's name, not 3"),
        ({"rules": "nonsense"}, "nonsense"),
    ):
        with pytest.raises(ValueError, match=said):
            run_arena(["random"] * 4, 2, **kwargs)  # type: ignore[arg-type]
    for matches in (4.5, 0, True):
        with pytest.raises(ValueError, match="matches must be a whole number from 1"):
            run_arena(["random"] * 4, matches)  # type: ignore[arg-type]
