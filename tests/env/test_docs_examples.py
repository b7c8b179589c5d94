"""docs/rl.md's examples run as printed, and a seeded one replays: the same output twice."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"


def run(block: str) -> tuple[str, dict[str, Any]]:
    out = io.StringIO()
    names: dict[str, Any] = {}
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(DOC), "exec"), names)
    return out.getvalue(), names


def test_every_example_runs_and_the_seeded_ones_replay() -> None:
    # (the blocks of `>>>` examples are doctests: tests/test_docs.py runs them)
    blocks = [b for b in re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S) if ">>>" not in b]
    assert len(blocks) == 4
    pettingzoo, gym = blocks[0], blocks[1]
    printed, names = run(pettingzoo)
    assert names["env"].unwrapped.match.is_over and printed.startswith("[Decimal(")
    assert run(pettingzoo)[0] == printed  # reset(seed=42) and the seeded action spaces: the same match
    _, names = run(gym)
    assert names["done"] and names["env"].unwrapped.match.is_over
    for block in blocks[2:]:
        run(block)
