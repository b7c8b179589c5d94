"""``CALLBREAK_PIN_CPU``: a real ``callbreak serve`` keeps its event loop on one CPU, chosen by its
process number, and the worker processes it starts keep every CPU."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

from .conftest import Server, workers_of


def test_the_loop_is_pinned_and_its_worker_processes_are_not(tmp_path: Path) -> None:
    """The analysis worker starts after the pin (the server's startup, ``CALLBREAK_ANALYSIS_WARM``):
    without `affinity.widen` it would inherit the loop's one CPU. The bot pool's worker starts
    before it."""
    every = os.sched_getaffinity(0)
    assert len(every) >= 2, "this test needs a machine with 2 CPUs or more"
    expected = sorted(every)[3 % len(every)]
    server = Server(
        tmp_path / "t.db",
        env={
            "CALLBREAK_PIN_CPU": "1",
            "CALLBREAK_PROCESS": "3",
            "CALLBREAK_BOT_PROCESSES": "1",
            "CALLBREAK_ANALYSIS_WARM": "1",
        },
    )
    server.start()
    try:
        assert server.proc is not None
        pid = server.proc.pid
        # the main thread (its id is the process's) runs the event loop
        assert os.sched_getaffinity(pid) == {expected}
        # a worker starts with the CPU of the thread that spawned it, and widens its own as it starts
        deadline = time.monotonic() + 60
        cpus: list[set[int]] = []
        while not (len(cpus) == 2 and all(c == every for c in cpus)) and time.monotonic() < deadline:
            time.sleep(0.1)
            with contextlib.suppress(ProcessLookupError):
                cpus = [os.sched_getaffinity(p) for p in workers_of(pid)]
        assert len(cpus) == 2, "the bot pool's and the analysis's worker processes did not start"
        assert cpus == [every, every]
    finally:
        # the workers may still be loading the kernel: they would hold the server's output open
        if server.proc is not None:
            for child in workers_of(server.proc.pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child, signal.SIGKILL)
        out = server.stop()
    assert f"event loop pinned to CPU {expected} (CALLBREAK_PIN_CPU)" in out


def test_unpinned_by_default(tmp_path: Path) -> None:
    every = os.sched_getaffinity(0)
    server = Server(tmp_path / "t.db")
    server.start()
    try:
        assert server.proc is not None
        assert os.sched_getaffinity(server.proc.pid) == every
    finally:
        out = server.stop()
    assert "event loop pinned" not in out
