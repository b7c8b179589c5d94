"""Real PostgreSQL, Redis and nginx on loopback for the scale-out tests.

`.ci/run` starts PostgreSQL and Redis once and exports ``CALLBREAK_TEST_PG`` and
``CALLBREAK_TEST_REDIS``; without them (``pytest`` alone on a developer's machine) the
session starts its own from Debian's binaries (``/usr/lib/postgresql/*/bin``,
``/usr/bin/redis-server``) in a temporary directory.  A service that cannot start fails
the tests under CI (``CI=true``); elsewhere it skips them with the reason.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def free_ports(n: int) -> int:
    """The first of ``n`` consecutive free ports."""
    for _ in range(100):
        first = free_port()
        if first + n <= 65536 and all(_free(first + k) for k in range(1, n)):
            return first
    raise RuntimeError(f"no {n} consecutive free ports")


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def unavailable(what: str) -> None:
    """Fail under CI, skip elsewhere: a service the tests need is not there."""
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{what} (CI must provide it: see .ci/run)")
    pytest.skip(what)


def wait_port(port: int, proc: subprocess.Popen[bytes], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
            raise RuntimeError(f"{what} exited: {out}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on port {port}")


class Postgres:
    """A PostgreSQL cluster in a temporary directory, as an unprivileged user when we are root."""

    def __init__(self) -> None:
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            unavailable("PostgreSQL is not installed (apt-get install postgresql)")
        self.bin = Path(bins[-1]).parent
        self.dir = Path(tempfile.mkdtemp(prefix="callbreak-pg-"))
        self.port = free_port()
        self.user = "postgres" if os.getuid() == 0 else None
        if self.user:
            shutil.chown(self.dir, self.user)
        data = self.dir / "data"
        self._run([str(self.bin / "initdb"), "-D", str(data), "-U", "callbreak", "--auth=trust", "-E", "UTF8"])
        self.url = f"postgresql://callbreak@127.0.0.1:{self.port}/postgres"
        self.start()

    def start(self) -> None:
        """Start the server (again, after `halt`: the same port and data)."""
        with (self.dir / "server.log").open("ab") as log:  # (a pipe nobody reads would stop it once full)
            self.proc = subprocess.Popen(
                self._as_user(
                    [str(self.bin / "postgres"), "-D", str(self.dir / "data"), "-p", str(self.port), "-h", "127.0.0.1",
                     "-k", str(self.dir), "-c", "fsync=off", "-c", "synchronous_commit=off",
                     "-c", "full_page_writes=off", "-c", "max_connections=300"]
                ),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        wait_port(self.port, self.proc, f"postgres (its log: {self.dir / 'server.log'})")
        self._wait_accepting()

    def _wait_accepting(self, timeout: float = 30.0) -> None:
        """Until it takes sessions (it listens before its recovery at start-up is over)."""
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                psycopg.connect(self.url, connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _as_user(self, cmd: list[str]) -> list[str]:
        return ["runuser", "-u", self.user, "--", *cmd] if self.user else cmd

    def _run(self, cmd: list[str]) -> None:
        subprocess.run(self._as_user(cmd), check=True, capture_output=True)

    def stop(self) -> None:
        """Stop the server and remove its data."""
        self.halt()
        shutil.rmtree(self.dir, ignore_errors=True)

    def halt(self) -> None:
        """Stop the server, keeping its data (`start` starts it again)."""
        # a fast shutdown (no waiting for sessions to end), sent to the postmaster itself (not runuser)
        pid_file = self.dir / "data" / "postmaster.pid"
        try:
            os.kill(int(pid_file.read_text().split()[0]), signal.SIGINT)
        except (OSError, ValueError, IndexError):
            self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


class Redis:
    def __init__(self) -> None:
        self.exe = shutil.which("redis-server") or "/usr/bin/redis-server"
        if not os.path.exists(self.exe):
            unavailable("redis-server is not installed (apt-get install redis-server)")
        self.port = free_port()
        self.start()
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start it (again, after `stop`: on the same port, empty)."""
        self.proc = subprocess.Popen(
            [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        wait_port(self.port, self.proc, "redis-server")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(20)


def fresh_database(server_url: str) -> str:
    """A new, empty database on the PostgreSQL at ``server_url``: its URL."""
    import psycopg

    name = "t_" + secrets.token_hex(6)
    with psycopg.connect(server_url, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}")
    return server_url.rsplit("/", 1)[0] + "/" + name


def namespace() -> str:
    """A Redis key and channel prefix of its own for one test (channels are not per database)."""
    return "t" + secrets.token_hex(5)
