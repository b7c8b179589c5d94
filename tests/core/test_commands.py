"""`callbreak replay` and `callbreak score`, run through the real command-line entry point."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from callbreak.cli import main
from callbreak.notation import dumps, loads


def run(
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    stdin: str | None = None,
    monkeypatch: pytest.MonkeyPatch | None = None,
) -> tuple[int, str, str]:
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# --- replay ---------------------------------------------------------------------


def test_replay_demo_saves_and_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "demo.txt"
    code, out, err = run(["replay", "--demo", "5", "--save", str(path)], capsys)
    assert code == 0 and "saved" in err
    m = loads(path.read_text())
    assert m.is_over and m.seed == 5
    for name in m.players:
        assert name in out
    assert "Final standings" in out and "Round 3 result" in out
    # every trick is shown with its winner
    assert out.count("│ 13 │") == len(m.rounds)
    code, out2, _ = run(["replay", str(path)], capsys)
    assert code == 0 and out2.splitlines()[-5:] == out.splitlines()[-5:]


def test_replay_json_and_history(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "demo.json"
    assert run(["replay", "--demo", "6", "--rules", "pagat", "--save", str(path)], capsys)[0] == 0
    data = json.loads(path.read_text())
    assert data["format"] == "callbreak-history" and data["status"] == "over"
    code, out, _ = run(["replay", str(path), "--history"], capsys)
    assert code == 0 and out.startswith('[Event "Demo: four random bots"]')
    assert "End: the table ended the match" in out  # pagat has no fixed end: the demo stops after 5 rounds
    code, out, _ = run(["replay", str(path), "--summary"], capsys)
    assert code == 0 and "Led by" not in out and "Round 1 result" in out
    # a history converted: JSON to text and back, the same match
    text, again = tmp_path / "demo.txt", tmp_path / "again.json"
    assert run(["replay", str(path), "--summary", "--save", str(text)], capsys)[0] == 0
    assert text.read_text().startswith('[Event "Demo: four random bots"]')
    assert run(["replay", str(text), "--summary", "--save", str(again)], capsys)[0] == 0
    assert json.loads(again.read_text()) == data


def test_replay_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["replay", str(tmp_path / "none.txt")], capsys)
    assert code == 2 and "cannot read" in err
    bad = tmp_path / "bad.txt"
    bad.write_text('[Seed "1"]\n[Dealer "0"]\nRound 1, dealer 3\n')
    code, _, err = run(["replay", str(bad)], capsys)
    assert code == 2 and "line 3: hand 0 is missing" in err
    code, _, err = run(["replay"], capsys)
    assert code == 2 and "--demo" in err
    code, _, err = run(["replay", "--demo", "1", "--rules", "poker"], capsys)
    assert code == 2 and "unknown preset" in err


def test_replay_unfinished(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from callbreak import Match

    m = Match(seed=3, players=["A", "B", "C", "D"])
    for _ in range(4):
        m.call(2)
    for _ in range(6):
        m.play(m.round.legal_cards()[0])
    p = tmp_path / "h.txt"
    p.write_text(dumps(m))
    code, out, _ = run(["replay", str(p)], capsys)
    assert code == 0 and "in progress" in out


def test_replay_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from callbreak import Match

    code, out, _ = run(["replay", "-"], capsys, stdin=dumps(Match(seed=2)), monkeypatch=monkeypatch)
    assert code == 0 and "Round 1" in out


def test_console_script() -> None:
    """The installed `callbreak` entry point runs the same command in a real process."""
    proc = subprocess.run(
        [sys.executable, "-m", "callbreak", "replay", "--demo", "2", "--history"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert loads(proc.stdout).seed == 2


# --- score ----------------------------------------------------------------------

ROUNDS = "3 4 2 3 / 4 3 2 4; 2 2 3 4 / 2 3 4 4"


def test_score_rounds_and_save(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sheet.json"
    code, out, _ = run(
        ["score", "--players", "A,B,C,D", "--rules", "quick", "--rounds", ROUNDS, "--save", str(path)], capsys
    )
    assert code == 0
    assert "+3.1 → 3.1" in out and "-4.0 → -4.0" in out and "+4.0 → 7.1" in out
    assert "After round 2 of 3." in out
    d = json.loads(path.read_text())
    assert d["totals"] == ["5.1", "-1.9", "5.1", "7.1"] and d["places"] == [2, 4, 2, 1]
    code, out, _ = run(["score", "--load", str(path), "--rounds", "1 1 1 1 / 4 3 3 3", "--json"], capsys)
    assert code == 0 and json.loads(out)["places"] == [2, 4, 3, 1]


def test_score_errors_save_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sheet.json"
    code, _, err = run(
        ["score", "--players", "A,B,C,D", "--rounds", "1 1 1 1 / 4 4 4 4", "--save", str(path)], capsys
    )
    assert code == 2 and "round 1: the tricks add up to 16" in err and not path.exists()
    code, _, err = run(["score", "--players", "A,B,C", "--rounds", ROUNDS], capsys)
    assert code == 2 and "four players" in err
    code, _, err = run(
        ["score", "--players", "A,B,C,D", "--rules", "bhoos", "--rounds", "9 1 1 1 / 4 3 3 3"], capsys
    )
    assert code == 2 and "calls are 1 to 8" in err
    code, _, err = run(["score", "--players", "A,B,C,D", "--set", "rounds=99", "--rounds", ROUNDS], capsys)
    assert code == 2 and "rounds" in err
    code, _, err = run(
        ["score", "--players", "A,B,C,D", "--rules", "quick", "--rounds", ROUNDS + "; " + ROUNDS], capsys
    )
    assert code == 2 and "round 4: the match is over after 3 rounds" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    code, _, err = run(["score", "--load", str(bad)], capsys)
    assert code == 2 and "not valid JSON" in err


def test_score_interactive(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    typed = (
        "\n".join(
            [
                "Asha",
                "",
                "Asha",
                "Bikash",
                "Chandra",
                "Dipa",  # an empty and a repeated name are re-asked
                "poker",
                "standard",  # a bad preset is re-asked
                "rounds=banana",  # a bad rule is said in words, and re-asked
                "rounds=1",
                "",
                "4 4 x 4",
                "14 1 1 1",
                "3 3 3 3",  # bad calls are re-asked
                "4 4 4 4",
                "4 4 3 2",  # bad tricks are re-asked; Asha and Bikash tie at 3.1
                "3 3 3 3",
                "5 3 3 2",  # round 2 is a sudden-death round
            ]
        )
        + "\n"
    )
    path = tmp_path / "s.json"
    code, out, _ = run(["score", "--save", str(path)], capsys, stdin=typed, monkeypatch=monkeypatch)
    assert code == 0
    assert "Asha is taken" in out and "a name, please" in out and "unknown preset" in out
    said = " ".join(out.split())  # (as the console wraps it)
    assert "rounds must be a whole number from 1 to 20, or none (no fixed end), not 'banana'" in said
    assert "whole numbers" in out and "calls are 1 to 13" in out and "add up to 16" in out
    assert "Round 2 (sudden death) calls" in out
    assert out.count("The match is over: Asha wins.") == 1  # the final sheet is printed once
    assert out.count("call · won, then points") == 2  # one sheet after each of the two rounds
    d = json.loads(path.read_text())
    assert d["players"] == ["Asha", "Bikash", "Chandra", "Dipa"]
    assert len(d["rounds"]) == 2 and d["places"].count(1) == 1


def test_score_interactive_undo_and_done(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # undo at round 2's calls removes round 1; undo at the tricks goes back to the calls, said so
    typed = "A\nB\nC\nD\n\n\n1 1 1 1\n4 3 3 3\nundo\n2 2 2 2\nundo\n2 2 2 2\n4 3 3 3\ndone\n"
    code, out, _ = run(["score", "--json"], capsys, stdin=typed, monkeypatch=monkeypatch)
    assert code == 0
    assert "round 1 removed" in out and "round 1's calls removed: enter them again" in out
    d = json.loads(out[out.index("{") :])
    assert d["rounds"] == [{"calls": [2, 2, 2, 2], "tricks": [4, 3, 3, 3]}]


def test_engine_benchmark_runs() -> None:
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "engine.py"), "--seconds", "0.05"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    for row in ("bare loop", "public API", "fast path", "Round.playout", "Round.copy()", "pop()"):
        assert row in proc.stdout


def test_score_set_accepts_none_and_booleans_as_words(capsys: pytest.CaptureFixture[str]) -> None:
    # Found in QA: `--set rounds=none` (as `callbreak play --set` takes it) was refused.
    argv = ["score", "--players", "A,B,C,D", "--set", "rounds=none", "--set", "must_head=False", "--json"]
    code, out, err = run([*argv, "--rounds", "1 1 1 1 / 4 3 3 3"], capsys)
    assert code == 0, err
    sheet = json.loads(out)
    assert sheet["rules"]["changes"]["rounds"] is None


def test_score_interactive_stopped_says_so_and_saves_nothing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Found in QA: end of input during the set-up exited 1 without a word.
    path = tmp_path / "s.json"
    code, _, err = run(["score", "--save", str(path)], capsys, stdin="A\nB\n", monkeypatch=monkeypatch)
    assert code == 1 and "nothing saved" in err and not path.exists()

    def interrupt() -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr("builtins.input", interrupt)
    code, _, err = run(["score", "--players", "A,B,C,D", "--rules", "quick", "--save", str(path)], capsys)
    assert code == 130 and "interrupted: nothing saved" in err and not path.exists()


def test_score_interactive_interrupted_keeps_the_rounds_entered(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Ctrl-C two rounds into a festival's game lost both (a newcomer's try): with --save, the rounds
    entered are saved, and --load goes on from them."""
    path = tmp_path / "s.json"
    answers = iter(["3 4 2 3", "4 3 2 4", "2 2 3 4", "2 3 4 4", "1 1"])  # the third round's calls half typed

    def typed() -> str:
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None

    monkeypatch.setattr("builtins.input", typed)
    code, _, err = run(["score", "--players", "A,B,C,D", "--rules", "quick", "--save", str(path)], capsys)
    assert code == 130, err
    assert f"interrupted: 2 rounds entered, saved to {path}" in err, err
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["rounds"] == [{"calls": [3, 4, 2, 3], "tricks": [4, 3, 2, 4]}, {"calls": [2, 2, 3, 4], "tricks": [2, 3, 4, 4]}]
    code, out, err = run(["score", "--load", str(path), "--rounds", "1 1 1 1 / 4 3 3 3", "--json"], capsys)
    assert code == 0 and len(json.loads(out)["rounds"]) == 3, err
