"""The HTTP bot of docs/bots.md is complete: it runs, passes `bot check`, and plays legal matches."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from callbreak import Ruleset
from callbreak.arena.check import check_bot
from callbreak.arena.runner import run_arena
from callbreak.arena.summary import summarize

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "bhoos_bot.py"


def test_docs_show_the_example_file_verbatim() -> None:
    doc = (ROOT / "docs" / "bots.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    assert EXAMPLE.read_text() in blocks


def test_the_example_bot_plays_legally() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, str(EXAMPLE), str(port)])
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                httpx.get(url + "/hi", timeout=0.5)
                break
            except httpx.HTTPError:
                time.sleep(0.05)
        rep = check_bot(url, positions=30)
        assert rep.ok, [r for r in rep.results if not r.ok]
        # a malformed request gets its 400, not a dropped connection (the warnings' other kind, an
        # answer slower than its share of the budget, is the machine's: a busy CI's 134 ms)
        (malformed,) = [r for r in rep.results if r.name == "malformed request → 400"]
        assert malformed.ok, malformed
        assert all(w.detail.endswith("ms per decision)") for w in rep.warnings), rep.warnings
        res = run_arena(
            [url, "random", "random", "random"], 4, seed=8, rules=Ruleset.preset("bhoos", rounds=2)
        )
        assert summarize(res).bots[0].faults == {}
    finally:
        proc.kill()
        proc.wait()
