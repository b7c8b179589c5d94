"""``callbreak analyse``: a history file in, a summary and the mistakes out, JSON on request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from callbreak import Card, Ruleset
from callbreak.analysis import Analysis
from callbreak.cli import main
from callbreak.commands.replay import demo_match
from callbreak.notation import dumps


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("h") / "match.txt"
    path.write_text(dumps(demo_match(4, Ruleset.preset("quick", rounds=1), "random")), encoding="utf-8")
    return path


def test_analyse_prints_the_summary_and_writes_json(
    history: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # a terminal's usual width: every header whole, none cut short
    out = tmp_path / "a.json"
    assert main(["analyse", str(history), "--seat", "2", "--budget", "40", "--json", str(out)]) == 0
    said = capsys.readouterr()
    printed = said.out
    assert "Accuracy" in printed and "South" in printed  # seat 2 of the demo's North, East, South, West
    # fewer playouts than the grades are set for: said (a researcher's try took its noise for mistakes)
    assert "note: 40 playouts a decision, fewer than the 800 the grades are set for" in " ".join(said.err.split())
    assert "…" not in printed and max(len(line) for line in printed.splitlines()) <= 80
    a = Analysis.from_dict(json.loads(out.read_text(encoding="utf-8")))
    assert a.seats == (2,) and a.budget == 40 and len(a.decisions) == 14
    # a random player makes mistakes, and the table lists each with the better option
    assert a.mistakes(2)
    assert "mistakes and blunders" in printed and a.mistakes(2)[0].best in printed


def test_without_hindsight_no_card_reads_as_not_solved(
    history: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A researcher's try: with ``--no-hindsight`` every mistake's hindsight read "not solved (too
    early)", late cards too; the column is left out, and the record says hindsight was not asked."""
    monkeypatch.setenv("COLUMNS", "160")
    out = tmp_path / "a.json"
    assert main(["analyse", str(history), "--seat", "2", "--budget", "40", "--no-hindsight", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    a = Analysis.from_dict(json.loads(out.read_text(encoding="utf-8")))
    assert a.mistakes(2) and "mistakes and blunders" in printed
    assert a.hindsight is False and "Hindsight" not in printed and "not solved" not in printed
    assert main(["analyse", str(history), "--seat", "2", "--budget", "40"]) == 0
    assert "Hindsight" in capsys.readouterr().out  # (with it, the column is there)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seat", "4"], "seat number 0..3"),
        (["--budget", "0"], "a whole number from 1 is needed, not '0'"),
        (["--seed", "-1"], "a whole number from 0 is needed, not '-1'"),
        (["--json", "/no/such/folder/a.json"], "no folder"),
    ],
)
def test_bad_arguments_are_refused_with_a_message(
    history: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(["analyse", str(history), *args])
    except SystemExit as stop:  # (refused by the parser, as every command's counts and seeds are)
        code = stop.code
    assert code == 2
    assert message in capsys.readouterr().err


def test_an_unreadable_history_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("this is not a history\n", encoding="utf-8")
    assert main(["analyse", str(bad)]) == 2
    assert "bad.txt" in capsys.readouterr().err
    assert main(["analyse", str(tmp_path / "missing.txt")]) == 2
    # another program's JSON (the arena's results) is no match to analyse
    results = tmp_path / "results.json"
    results.write_text('{"matches": 4, "bots": []}', encoding="utf-8")
    assert main(["analyse", str(results)]) == 2
    assert "not a callbreak history" in capsys.readouterr().err
    # a history of no deal is refused by both readers (found in a bot builder's try: the analysis
    # showed four players of 100 % accuracy, the replay a deal of seed 0)
    empty = tmp_path / "empty.json"
    empty.write_text('{"format": "callbreak-history", "version": 1}', encoding="utf-8")
    for command in ("analyse", "replay"):
        assert main([command, str(empty)]) == 2
        assert "the history has no deal" in capsys.readouterr().err


def test_a_server_log_is_analysed_like_its_history(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from callbreak.server.history import history as server_history
    from callbreak.server.table import TableMeta, TableState

    st = TableState(
        TableMeta(
            id="t1", invite="i1", rules=Ruleset.preset("quick", rounds=1), bots="random", seed=8, created=0.0
        )
    )
    st.apply({"t": "seat", "seat": 0, "name": "Asha", "token": "a-seat-token-of-16+"})
    st.apply({"t": "start"})
    assert st.match is not None
    from callbreak.bots import make_bot

    bots = [make_bot("random", s) for s in range(4)]
    while not st.match.is_over:
        seat = st.match.to_act
        assert seat is not None
        action = bots[seat].act(st.match.view(seat))
        play = isinstance(action, Card)  # a Card is an int too: ask for it first
        st.apply(
            {"t": "play", "seat": seat, "card": str(action)}
            if play
            else {"t": "call", "seat": seat, "call": action}
        )
    _, log = server_history(st, "log")
    _, text = server_history(st, "text")
    (tmp_path / "log.json").write_text(log, encoding="utf-8")
    (tmp_path / "h.txt").write_text(text, encoding="utf-8")
    for name in ("log.json", "h.txt"):
        out = tmp_path / f"{name}.analysis.json"
        assert (
            main(["analyse", str(tmp_path / name), "--seat", "0", "--budget", "30", "--json", str(out)]) == 0
        )
    capsys.readouterr()
    a = json.loads((tmp_path / "log.json.analysis.json").read_text(encoding="utf-8"))
    b = json.loads((tmp_path / "h.txt.analysis.json").read_text(encoding="utf-8"))
    assert a == b and len(a["decisions"]) == 14
