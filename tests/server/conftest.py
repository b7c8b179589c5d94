"""A real `callbreak serve` process on a free loopback port, and a WebSocket test client."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import websockets

from callbreak.server.meter import Meter

from ..seeds import process_of_test, seed_of_test

FAST = {
    "CALLBREAK_TIME_SCALE": "1",
    "CALLBREAK_BOT_DELAY": "0",
    "CALLBREAK_FORCED_DELAY": "0.05",
    "CALLBREAK_GRACE": "30",
    "CALLBREAK_BETWEEN_ROUNDS": "0.3",
    "CALLBREAK_CREATE_RATE": "0",
    "CALLBREAK_MSG_RATE": "0",
    "CALLBREAK_CONNECT_RATE": "0",
}

CARD_RE = re.compile(r"^(?:[2-9TJQKA][SHDC])$")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``python -m callbreak serve`` as a child process."""

    def __init__(self, db: Path, env: dict[str, str] | None = None, args: list[str] | None = None) -> None:
        self.db = db
        self.port = free_port()
        # seeded deals (`callbreak serve --seed`): each test meets its own deals and bot play, the
        # same every run; each of its servers is a process of its own on that seed
        seeded = {"CALLBREAK_SEED": str(seed_of_test()), "CALLBREAK_PROCESS": str(process_of_test())}
        self.env = {**os.environ, **FAST, **seeded, **(env or {})}
        #: more options of ``callbreak serve``
        self.args = args or []
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "callbreak", "serve", "--port", str(self.port), "--db", str(self.db), *self.args],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                out = self.proc.stdout.read().decode() if self.proc.stdout else ""
                raise RuntimeError(f"server exited: {out}")
            try:
                if httpx.get(self.base + "/healthz", timeout=0.5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("server did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> str:
        out = ""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(5)
            if self.proc.stdout:
                out = self.proc.stdout.read().decode(errors="replace")
        return out

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def post(self, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        return httpx.post(self.base + path, json=body or {}, timeout=10)

    def get(self, path: str) -> httpx.Response:
        return httpx.get(self.base + path, timeout=10)

    def create(self, **body: Any) -> dict[str, Any]:
        r = self.post("/api/tables", body)
        assert r.status_code == 200, r.text
        return dict(r.json())


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    servers: list[Server] = []

    def make(env: dict[str, str] | None = None, db: Path | None = None, args: list[str] | None = None) -> Server:
        s = Server(db or tmp_path / "callbreak.db", env, args)
        s.start()
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.stop()


@pytest.fixture
def server(make_server: Callable[..., Server]) -> Server:
    return make_server()


class Client:
    """A real WebSocket client that keeps every message it receives."""

    def __init__(self, server: Server, table: str, token: str | None = None) -> None:
        self.server = server
        self.table = table
        self.token = token
        self.ws: Any = None
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.v = 0
        self.state: dict[str, Any] | None = None
        self.info: dict[str, Any] | None = None
        self.seat = -1
        self._reader: asyncio.Task[None] | None = None
        self._new = asyncio.Event()
        self.closed = False

    async def connect(self, since: int | None = None, via: int = 0, open_timeout: float = 10) -> None:
        """Open the table's socket and say hello; ``via``: the load balancer's other key, as a
        client asks after tries with no answer (`TimeoutError` after ``open_timeout`` s)."""
        url = f"{self.server.ws_base}/ws/{self.table}" + (f"?via={via}" if via else "")
        # the seat's token in the handshake, as the web page and the terminal give it (a URL's
        # ?token=, from clients of before, is still taken: tests/server/test_security.py)
        offered = ["callbreak", f"token.{self.token}"] if self.token else ["callbreak"]
        self.ws = await websockets.connect(url, max_size=2**22, subprotocols=offered, open_timeout=open_timeout)
        self.closed = False
        self._reader = asyncio.get_running_loop().create_task(self._read())
        with contextlib.suppress(websockets.ConnectionClosed):  # refused: the error is read
            await self.send({"type": "hello", "since": self.v if since is None else since})

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self.raw.append(raw)
                msg = orjson.loads(raw)
                self.messages.append(msg)
                if "v" in msg and msg["type"] in ("event", "snapshot", "synced"):
                    if msg["type"] == "event":
                        assert msg["v"] == self.v + 1 or msg["v"] <= self.v, (self.v, msg["v"])
                    self.v = max(self.v, msg["v"]) if msg["type"] != "snapshot" else msg["v"]
                if "state" in msg:
                    self.state = msg["state"]
                if "table" in msg and isinstance(msg["table"], dict):
                    self.info = msg["table"]
                    self.seat = msg["table"]["you"]
                self._new.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = True
            self._new.set()

    async def send(self, msg: dict[str, Any] | str | bytes) -> None:
        await self.ws.send(msg if isinstance(msg, (str, bytes)) else orjson.dumps(msg).decode())

    async def wait(self, pred: Callable[[Client], bool], timeout: float = 10.0) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while not pred(self):
            if self.closed:
                raise AssertionError("connection closed while waiting")
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise AssertionError(f"timed out; last messages: {self.messages[-3:]}")
            self._new.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._new.wait(), left)

    async def next_error(self, timeout: float = 5.0) -> dict[str, Any]:
        start = len(self.messages)
        await self.wait(lambda c: any(m["type"] == "error" for m in c.messages[start:]), timeout)
        return next(m for m in self.messages[start:] if m["type"] == "error")

    def my_turn(self) -> bool:
        return (
            self.info is not None
            and self.info["status"] == "playing"
            and self.state is not None
            and self.state["to_act"] == self.seat
            and self.seat >= 0
        )

    async def act_once(self) -> None:
        assert self.state is not None
        if self.state["phase"] == "calling":
            await self.send({"type": "call", "call": self.state["legal_calls"][-1 if self.seat % 2 else 0]})
        else:
            await self.send({"type": "play", "card": self.state["legal_cards"][0]})

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await self._reader


def workers_of(pid: int) -> list[int]:
    """The worker processes of a server's pools: its children started by multiprocessing's spawn (not its
    resource tracker)."""
    out = subprocess.run(["ps", "-ww", "--ppid", str(pid), "-o", "pid=,args="], capture_output=True, text=True).stdout
    return [int(line.split()[0]) for line in out.splitlines() if "spawn_main" in line]


async def play_until(
    clients: list[Client], done: Callable[[], bool], timeout: float = 60.0, leave_forced: bool = False
) -> None:
    """Each client plays its turns (first legal call or card) until ``done()``.

    ``leave_forced``: do not play a single legal card (the server plays it).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    acted: dict[int, int] = {}
    while not done():
        if loop.time() > deadline:
            raise AssertionError("the match did not finish in time")
        for i, c in enumerate(clients):
            if c.my_turn() and acted.get(i) != c.v and not c.closed:
                if leave_forced and c.state is not None and len(c.state["legal_cards"]) == 1:
                    continue
                with contextlib.suppress(websockets.ConnectionClosed):  # it may be reconnecting
                    v = c.v
                    await c.act_once()
                    acted[i] = v
        await asyncio.sleep(0.005)


def cards_in(obj: Any) -> set[str]:
    """Every card text anywhere in a message."""
    out: set[str] = set()
    if isinstance(obj, str):
        if CARD_RE.match(obj):
            out.add(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            out |= cards_in(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= cards_in(v)
    return out


async def two_players(
    server: Server,
    rules: dict[str, Any],
    names: tuple[str, str] = ("A", "B"),
    seat: int | None = None,
    watch: bool = False,
    start: bool = True,
) -> tuple[dict[str, Any], dict[str, Any], Client, Client, Client]:
    """A table created by one player and joined by another (at ``seat``), both connected,
    with a spectator when ``watch``; started by the host when ``start``."""
    made = server.create(rules=rules, bots="random", name=names[0])
    body: dict[str, Any] = {"name": names[1]} if seat is None else {"name": names[1], "seat": seat}
    joined = server.post(f"/api/join/{made['invite']}", body).json()
    a = Client(server, made["table"], made["token"])
    b = Client(server, made["table"], joined["token"])
    spectator = Client(server, made["table"])
    for c in (a, b, spectator) if watch else (a, b):
        await c.connect()
    if start:
        await a.send({"type": "start"})
    return made, joined, a, b, spectator


class CountingMeter(Meter):
    """A meter that keeps the bot queue's outcomes, in order."""

    def __init__(self) -> None:
        self.outcomes: list[str] = []

    def bot_queue(self, outcome: str) -> None:
        self.outcomes.append(outcome)
