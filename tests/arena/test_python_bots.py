"""A bot written in Python sits in the arena as ``FILE.py:CLASS``: the Greedy class of
docs/bots.md, saved as a file, played by the command line in worker processes; and every
mistake in such a spec is said before any match."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from callbreak.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def greedy_file(folder: Path) -> Path:
    section = DOC.read_text().split("## Writing a bot in Python", 1)[1].split("\n## ", 1)[0]
    path = folder / "greedy.py"
    path.write_text(re.findall(r"```python\n(.*?)```", section, re.S)[0])
    return path


def test_the_docs_bot_plays_in_the_arena_from_its_file(tmp_path: Path, capsys: Any) -> None:
    spec = f"{greedy_file(tmp_path)}:Greedy"
    out = tmp_path / "r.json"
    argv = ["arena", spec, "random", "random", "random", "-n", "4", "--rules", "quick", "--jobs", "2", "-q"]
    assert main([*argv, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "totals:" not in printed  # the file's demo under `if __name__ == "__main__":` did not run
    data = json.loads(out.read_text())
    greedy = data["bots"][0]
    assert greedy["spec"] == spec and greedy["matches"] == 4 and greedy["faults"] == {}
    assert greedy["win_share"] > 0.5  # (greedy beats three random players)
    # the same seed, one process: the same matches
    assert main([*argv[:-3], "--jobs", "1", "-q", "--json", str(tmp_path / "again.json")]) == 0
    again = json.loads((tmp_path / "again.json").read_text())
    assert [r["totals"] for r in again["match_records"]] == [r["totals"] for r in data["match_records"]]


def test_a_bad_python_spec_is_said_before_the_matches(tmp_path: Path, capsys: Any) -> None:
    greedy = greedy_file(tmp_path)
    (tmp_path / "broken.py").write_text("import no_such_module_here\n")
    (tmp_path / "notabot.py").write_text("class Greedy:\n    pass\n")
    (tmp_path / "noact.py").write_text("from callbreak.bots import Bot\nclass Idle(Bot):\n    pass\n")
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(3)\n")
    for spec, said in (
        (f"{tmp_path}/missing.py:Greedy", "missing.py: no such file"),
        (f"{greedy}:Greedier", "has no Greedier (its bots: Greedy)"),
        (f"{tmp_path}/broken.py:Bot", "importing it failed: ModuleNotFoundError"),
        (f"{tmp_path}/notabot.py:Greedy", "Greedy is not a subclass of callbreak.bots.Bot"),
        (f"{tmp_path}/noact.py:Idle", "Idle does not define act(view)"),
        (f"{tmp_path}/exits.py:Bot", "importing it failed: SystemExit: 3"),
        (str(greedy), f"a bot in a Python file is named FILE.py:CLASS, {greedy}:MyBot"),  # (its class forgotten)
    ):
        assert main(["arena", spec, "random", "random", "random", "-n", "1", "-q"]) == 2
        out, err = capsys.readouterr()
        assert said in err and "points/match" not in out, (spec, err)


def test_your_own_bot_is_served_over_http(tmp_path: Path, capsys: Any) -> None:
    spec = f"{greedy_file(tmp_path)}:Greedy"
    proc = subprocess.Popen(
        [sys.executable, "-m", "callbreak", "bot", "serve", "--bot", spec, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert f"serving the {spec!r} bot" in line, (line, proc.stderr.read() if proc.poll() is not None else "")
        url = re.findall(r"http://\S+", line)[0]
        report = tmp_path / "check.json"
        assert main(["bot", "check", url, "--positions", "10", "--json", str(report)]) == 0
        assert "PASS" in capsys.readouterr().out
    finally:
        proc.terminate()
        proc.wait(30)
    # what cannot be served is said at once
    for argv, said in (
        (["--bot", f"{tmp_path}/missing.py:Greedy"], "missing.py: no such file"),
        (["--bot", "medium", "--think", "1"], "--think is a setting of the hard bot, not of 'medium'"),
    ):
        assert main(["bot", "serve", "--port", "0", *argv]) == 2
        assert said in capsys.readouterr().err


def test_the_docs_bot_is_clean_under_mypy_strict(tmp_path: Path) -> None:
    """A bot builder types their bot: the docs' example passes ``mypy --strict`` as written (found in
    a try: ``m.to_act`` is ``int | None``, and the example indexed with it)."""
    greedy = greedy_file(tmp_path)
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), str(greedy)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0 and "Success" in run.stdout, run.stdout + run.stderr
