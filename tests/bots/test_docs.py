"""The Python bot example in docs/bots.md runs as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def test_python_bot_example_runs() -> None:
    text = DOC.read_text()
    section = text.split("## Writing a bot in Python", 1)[1].split("\n## ", 1)[0]
    code = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("totals:") and "places:" in out.stdout
