"""A bot written in Python sits in the arena as ``FILE.py:CLASS``: the Greedy class of
docs/bots.md, saved as a file, played by the command line in worker processes; and every
mistake in such a spec is said before any match."""

from __future__ import annotations

import json
import re
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
    for spec, said in (
        (f"{tmp_path}/missing.py:Greedy", "missing.py: no such file"),
        (f"{greedy}:Greedier", "has no Greedier (its names: Bot, Card, Greedy, Match, Ruleset, SeatView)"),
        (f"{tmp_path}/broken.py:Bot", "importing it failed: ModuleNotFoundError"),
        (f"{tmp_path}/notabot.py:Greedy", "Greedy is not a subclass of callbreak.bots.Bot"),
    ):
        assert main(["arena", spec, "random", "random", "random", "-n", "1", "-q"]) == 2
        out, err = capsys.readouterr()
        assert said in err and "matches in" not in out, (spec, err)
