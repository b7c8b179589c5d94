"""Real bot servers for the tests: `callbreak bot serve` in a child process, and
misbehaving bots (stalling, garbage, illegal, failing) on the standard library's HTTP server."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from callbreak.remote.codec import parse_request


class ServedBot:
    def __init__(self, proc: subprocess.Popen[str], url: str) -> None:
        self.proc = proc
        self.url = url

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)


def start_served_bot(level: str = "random", seed: int = 0, rules: str = "bhoos", *more: str) -> ServedBot:
    """`python -m callbreak bot serve --port 0` (and ``more`` options) in a child process; waits
    until /hi says hello."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "callbreak", "bot", "serve", "--bot", level, "--port", "0",
         "--seed", str(seed), "--rules", rules, *more],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    line = proc.stdout.readline()
    url = next((w for w in line.split() if w.startswith("http://")), None)
    if url is None:
        proc.kill()
        raise RuntimeError(f"bot serve did not start: {line!r}")
    end = time.monotonic() + 60
    while time.monotonic() < end:
        try:
            if httpx.get(url + "/hi", timeout=1).status_code == 200:
                return ServedBot(proc, url)
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("bot serve never said hello")


@pytest.fixture(scope="module")
def served_random() -> Iterator[ServedBot]:
    bot = start_served_bot("random", seed=3)
    yield bot
    bot.stop()


class BadBotHandler(BaseHTTPRequestHandler):
    """Answers according to ``server.mode``: stall, slow, share, garbage, illegal, error or wrongtype."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def do_GET(self) -> None:
        self._send(200, b'{"value": "hello"}')

    def do_POST(self) -> None:
        n = int(self.headers.get("Content-Length") or 0)
        body: dict[str, Any] = json.loads(self.rfile.read(n))
        mode: str = self.server.mode  # type: ignore[attr-defined]
        self.server.hits += 1  # type: ignore[attr-defined]
        bid = self.path.endswith("bid")
        if mode == "stall":
            # at once, but for the round's second card: that one is answered only when the test
            # ends, so it outlasts any budget however busy the machine
            server: Any = self.server
            server.cards = 0 if bid else server.cards + 1
            if server.cards == 2:
                server.released.wait(60)
            view = parse_request(self.path, body).view
            answer = 1 if bid else view.legal_cards[0].bhoos
            self._send(200, json.dumps({"value": answer}).encode())
        elif mode == "slow":  # legal answers, each after 50 ms: 0.7 s a round of 14 decisions
            time.sleep(0.05)
            view = parse_request(self.path, body).view
            self._send(200, json.dumps({"value": 1 if bid else view.legal_cards[0].bhoos}).encode())
        elif mode == "share":  # 0.8 of the time it is told it has left, shared over its decisions left (as our served bots)
            view = parse_request(self.path, body).view
            time.sleep(0.8 * body["timeBudget"] / 1000 / (len(view.hand) + bid))
            self._send(200, json.dumps({"value": 1 if bid else view.legal_cards[0].bhoos}).encode())
        elif mode == "garbage":
            self._send(200, b"lol, not json")
        elif mode == "wrongtype":
            self._send(200, b'{"value": [1, 2]}' if bid else b'{"card": "2S"}')
        elif mode == "illegal":
            if bid:
                self._send(200, b'{"value": 0}')
            else:
                held = set(body["cards"])
                other = next(c for c in ("2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS",
                                         "QS", "KS", "1S", "2H", "3H", "4H", "5H", "6H", "7H", "8H",
                                         "9H", "TH", "JH", "QH", "KH", "1H") if c not in held)  # fmt: skip
                self._send(200, json.dumps({"value": other}).encode())
        else:
            self._send(500, b'{"error": "boom"}')

    def _send(self, status: int, data: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass  # the client gave up waiting

    def log_message(self, format: str, *args: Any) -> None:
        pass


class BadBot:
    def __init__(self, mode: str) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), BadBotHandler)
        self.httpd.daemon_threads = True
        self.httpd.mode = mode  # type: ignore[attr-defined]
        self.httpd.hits = 0  # type: ignore[attr-defined]
        self.httpd.cards = 0  # type: ignore[attr-defined]  # (the round's cards asked for so far)
        self.released = self.httpd.released = threading.Event()  # type: ignore[attr-defined]
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def hits(self) -> int:
        return int(self.httpd.hits)  # type: ignore[attr-defined]

    def close(self) -> None:
        self.released.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def bad_bot() -> Iterator[Any]:
    made: list[BadBot] = []

    def make(mode: str) -> BadBot:
        b = BadBot(mode)
        made.append(b)
        return b

    yield make
    for b in made:
        b.close()
