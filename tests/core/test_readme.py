"""The README's examples that are not doctests, held to what the commands really print."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from callbreak import __version__
from callbreak.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"


def _block_after(marker: str) -> list[str]:
    """The lines of the first ```text block after ``marker`` in the README."""
    text = README.read_text(encoding="utf-8")
    start = text.index(marker)
    m = re.compile(r"```text\n(.*?)```", re.S).search(text, start)
    assert m is not None, f"no text block after {marker!r}"
    return m.group(1).rstrip("\n").split("\n")


def test_replay_demo_history_is_what_the_readme_shows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    block = _block_after("$ callbreak replay --demo 7 --save demo.txt")
    cut = block.index("...")
    head, tail = block[:cut], block[cut + 1 :]
    assert len(head) > 10 and len(tail) > 2
    path = tmp_path / "demo.txt"
    assert main(["replay", "--demo", "7", "--save", str(path)]) == 0
    capsys.readouterr()
    lines = path.read_text(encoding="utf-8").rstrip("\n").split("\n")
    assert lines[: len(head)] == head
    assert lines[-len(tail) :] == tail


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"callbreak {__version__}"
