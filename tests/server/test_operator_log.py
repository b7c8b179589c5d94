"""What the operator reads at start and in the log: a misspelt setting said, every line with its time.

Found in an operator's try: ``CALLBREAK_CONECT_BURST=400`` (the festival advice's variable, misspelt)
started the server with the default burst and said nothing; uvicorn's own lines ("connection open",
"connection rejected (403 Forbidden)") had no time, most of the log at ``--log-level info``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

from callbreak.server.config import OTHER_VARIABLES, ServerConfig

from .conftest import Client, Server

SRC = Path(__file__).resolve().parents[2] / "src" / "callbreak"
TIMED = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR) \S+: ")


def test_every_variable_the_code_reads_is_a_known_one() -> None:
    read = {  # (the names in the code's strings, not in its examples)
        node.value
        for p in SRC.rglob("*.py")
        for node in ast.walk(ast.parse(p.read_text("utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"CALLBREAK_[A-Z_]+", node.value)
    }
    assert "CALLBREAK_NUMBA_CACHE_DIR" in read
    known = {f"CALLBREAK_{name.upper()}" for name in ServerConfig.__dataclass_fields__} | OTHER_VARIABLES
    assert read - known == set()  # (else `unknown_variables` would warn of a variable that is read)


async def test_a_misspelt_setting_is_said_and_every_line_has_its_time(make_server: Callable[..., Server]) -> None:
    server = make_server(env={"CALLBREAK_CONECT_BURST": "400"}, args=["--log-level", "info"])
    made = server.create(bots="random", name="Asha", play_now=True)
    seat = Client(server, made["table"], made["token"])
    await seat.connect()
    await seat.wait(lambda c: c.state is not None)
    await seat.close()
    out = server.stop()
    assert "CALLBREAK_CONECT_BURST is not a setting (CALLBREAK_CONNECT_BURST?): ignored" in out, out
    web = [line for line in out.splitlines() if "connection open" in line or "connection closed" in line]
    assert web, out  # (uvicorn's own lines)
    warned = [line for line in out.splitlines() if "CALLBREAK_CONECT_BURST" in line]
    assert [line for line in web + warned if not TIMED.match(line)] == []
