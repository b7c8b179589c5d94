"""Bot decisions in worker processes (``CALLBREAK_BOT_PROCESSES``): a table of bots plays to
its end with its decisions made off the server's event loop, and a worker killed with
``kill -9`` costs no decision."""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Callable

from ..server.conftest import Client, Server, play_until, workers_of


def decisions(server: Server) -> float:
    m = re.search(r"^callbreak_bot_decision_seconds_count (\S+)$", server.get("/metrics").text, re.M)
    assert m, "no bot decision metric"
    return float(m.group(1))


async def test_bots_decide_in_worker_processes(make_server: Callable[..., Server]) -> None:
    server = make_server({"CALLBREAK_BOT_PROCESSES": "2"})
    made = server.create(rules={"preset": "quick", "rounds": 1}, bots="medium", name="Asha", play_now=True)
    p = Client(server, made["table"], made["token"])
    await p.connect()
    await play_until([p], lambda: decisions(server) >= 6, timeout=60)
    assert server.proc is not None
    workers = workers_of(server.proc.pid)
    assert len(workers) >= 1
    killed = 0
    for w in workers:  # every worker dies: the next decisions go to a new pool
        try:
            os.kill(w, signal.SIGKILL)
            killed += 1
        except ProcessLookupError:  # a child that ended between the listing and now
            pass
    assert killed >= 1
    before = decisions(server)
    await play_until([p], lambda: p.info is not None and p.info["status"] == "over", timeout=120)
    assert decisions(server) > before
    assert set(workers_of(server.proc.pid)).isdisjoint(workers)
    assert p.state is not None and p.state["places"] is not None
    await p.close()
