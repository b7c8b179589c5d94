"""``callbreak serve --workers 2``: two processes on one port, joined through Redis; a worker
killed with ``kill -9`` is started again, and its tables move to the other."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import redis

from ..server.conftest import Client, play_until
from .procs import until
from .services import free_port, free_ports


def children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "--ppid", str(pid), "-o", "pid="], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def pid_at(port: int) -> int | None:
    """The pid of the process answering on ``port`` (None: nothing answers)."""
    try:
        return int(httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).json()["pid"])
    except httpx.HTTPError:
        return None


async def test_two_workers_on_one_port(pg_url: str, redis_server: str, ns: str, tmp_path: Path) -> None:
    port, status = free_port(), free_ports(2)
    env = {**os.environ, "CALLBREAK_NAMESPACE": ns, "CALLBREAK_LEASE_TTL": "1.5", "CALLBREAK_BOT_DELAY": "0",
           "CALLBREAK_CREATE_RATE": "0", "CALLBREAK_MSG_RATE": "0"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "callbreak", "serve", "--port", str(port), "--db", pg_url, "--redis", redis_server,
         "--workers", "2", "--status-port", str(status)],
        env=env, stdout=(tmp_path / "out.txt").open("wb"), stderr=subprocess.STDOUT,
    )
    r = redis.Redis.from_url(redis_server)
    alive = lambda: len(r.keys(f"{ns}:alive:*"))  # noqa: E731
    last: list[int] = []
    try:
        until(lambda: alive() == 2)
        workers = children(proc.pid)
        assert len(workers) == 2
        base = f"http://127.0.0.1:{port}"
        # each worker alone on a port of its own: its readiness and its metrics
        until(lambda: {pid_at(status), pid_at(status + 1)} == set(workers))
        for k in (0, 1):
            assert httpx.get(f"http://127.0.0.1:{status + k}/readyz").json()["ready"] is True
            assert "callbreak_live_tables " in httpx.get(f"http://127.0.0.1:{status + k}/metrics").text
            assert httpx.get(f"http://127.0.0.1:{status + k}/api/matches").status_code == 404  # (the probes only)

        class Front:
            ws_base = f"ws://127.0.0.1:{port}"

        made = httpx.post(base + "/api/tables", json={"rules": {"preset": "quick", "rounds": 1}, "bots": "random",
                                                      "play_now": True}).json()
        assert r.get(f"{ns}:lease:{made['table']}") is None  # its maker let it go
        p = Client(Front, made["table"], made["token"])  # type: ignore[arg-type]
        await p.connect()  # the worker this socket reached took it
        owner = r.get(f"{ns}:lease:{made['table']}")
        assert owner is not None
        await play_until([p], lambda: p.v >= 10, timeout=30)
        victim = int(owner.decode().split("-")[-2])
        assert victim in workers
        slot = status if pid_at(status) == victim else status + 1
        assert pid_at(slot) == victim
        metrics = httpx.get(f"http://127.0.0.1:{slot}/metrics").text
        assert "callbreak_live_tables 1.0" in metrics and "callbreak_connections 1.0" in metrics, metrics
        os.kill(victim, signal.SIGKILL)
        await p.wait(lambda c: c.closed, timeout=10)
        until(lambda: len(children(proc.pid)) == 2 and victim not in children(proc.pid))  # started again
        until(lambda: pid_at(slot) in set(children(proc.pid)) - set(workers))  # on the dead one's port
        for _ in range(100):
            try:
                await p.connect()
                break
            except OSError:
                time.sleep(0.05)
        await play_until([p], lambda: p.info is not None and p.info["status"] == "over", timeout=60)
        until(lambda: alive() == 2)  # the new worker joined; the dead one's key expired
        await p.close()
        last = children(proc.pid)
    finally:
        proc.terminate()
        proc.wait(20)
    assert len(last) == 2
    for pid in last:  # SIGTERM to the parent stops its workers
        until(lambda pid=pid: not os.path.exists(f"/proc/{pid}"), timeout=10)  # type: ignore[misc]


@pytest.mark.parametrize("workers", [2, 1])
def test_processes_on_a_sqlite_file_joined_on_redis_say_so(redis_server: str, ns: str, tmp_path: Path, workers: int) -> None:
    """`--workers 2` on a SQLite file works on one host, and says what it is (before: nothing,
    though an operator's crowd wants PostgreSQL); one process joined on Redis says the file is
    what every process joined must use (an operator's other shell had lost `CALLBREAK_DB`, and
    its process served from a file of its own, silently). With the bots on bot workers, what
    happens with none answering is said once (a reviewer's read: said by no process of
    `--workers 2`, once its children stopped repeating it)."""
    out = tmp_path / "out.txt"
    env = {**os.environ, "CALLBREAK_NAMESPACE": ns, "CALLBREAK_BOT_QUEUE": "redis"}
    db = tmp_path / "t.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "callbreak", "serve", "--port", str(free_port()), "--db", str(db), "--redis", redis_server,
         "--workers", str(workers)],
        env=env, stdout=out.open("wb"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    said_it = f"the 2 processes share the SQLite file {db}" if workers == 2 else f"must use this same SQLite file, {db}"
    r = redis.Redis.from_url(redis_server)
    try:
        until(lambda: said_it.encode() in out.read_bytes(), what=lambda: out.read_text())
        assert "--db postgresql://" in out.read_text()
        until(lambda: len(r.keys(f"{ns}:alive:*")) == workers, what=lambda: out.read_text())  # every process serving
        banner = [ln for ln in out.read_text().splitlines() if "bots decide on the bot workers" in ln]
        assert len(banner) == 1 and "each table's process decides its bots itself" in banner[0], banner
    finally:
        proc.terminate()
        proc.wait(timeout=30)
