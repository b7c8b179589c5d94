"""The load benchmarks' client: many scripted seats on raw WebSockets, as cheap as we can make them.

A seat is one asyncio `Protocol` on a TCP socket: the HTTP upgrade written by hand, frames
parsed from a `bytearray` (the server's frames are never masked; ours carry the all-zero
mask key, which the protocol allows and which leaves the payload as it is), no
permessage-deflate (the server does not offer it by default), one `orjson.loads` a message.
No library's per-frame machinery, no task per seat.

A seat plays legal moves after a think (uniform in ``[0, 2 * think]``) and times its own
action -> its event.  One seat a table is its *reporter*, which counts every call and play
of the table (the table's actions/s, bots included).

`Worker` runs in a child process (`spawn_workers`) and takes commands on a pipe:
``("add", [(table, token, think, reporter), ...])`` connects seats,
``("measure", seconds)`` zeroes the counters, waits and answers what happened in the window
(latencies, actions, errors, this process's CPU seconds), ``("stop",)`` ends it.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import random
import resource
import time
from multiprocessing.connection import Connection
from typing import Any, cast
from urllib.parse import urlsplit

import orjson

__all__ = ["Workers", "spawn_workers"]

_HELLO = b'{"type":"hello","since":0}'
_READY = b'{"type":"ready"}'


def frame(payload: bytes) -> bytes:
    """A masked text frame with the all-zero mask key (so the payload goes as it is).

    >>> frame(b"hi")
    b'\\x81\\x82\\x00\\x00\\x00\\x00hi'
    """
    n = len(payload)
    if n < 126:
        head = bytes((0x81, 0x80 | n))
    elif n < 65536:
        head = bytes((0x81, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x81, 0x80 | 127)) + n.to_bytes(8, "big")
    return head + b"\x00\x00\x00\x00" + payload


class Stats:
    def __init__(self) -> None:
        self.latency: list[float] = []
        self.actions = 0  # the reporters' tables' calls and plays
        self.errors: list[str] = []
        self.connected = 0
        self.closed = 0


class Seat(asyncio.Protocol):
    """One scripted seat on its own socket."""

    def __init__(self, host: str, path: str, think: float, reporter: bool, rng: random.Random, stats: Stats) -> None:
        self.host = host
        self.path = path
        self.think = think
        self.reporter = reporter
        self.rng = rng
        self.stats = stats
        self.buf = bytearray()
        self.upgraded = False
        self.transport: asyncio.Transport | None = None
        self.open = asyncio.get_running_loop().create_future()
        self.me = -1
        self.v = 0
        self.pending = -1  # the version we last answered (act or ready), so we answer it once
        self.sent_at = 0.0
        self.frag = bytearray()

    # --- the socket ------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's transports are not subclasses
        self.transport.write(
            f"GET {self.path} HTTP/1.1\r\nHost: {self.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.open.done():
            self.open.set_exception(ConnectionError(f"closed before the upgrade: {exc!r}"))
        elif self.transport is not None:
            self.stats.closed += 1
        self.transport = None

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buf[: buf.find(b"\r\n")])
            del buf[: end + 4]
            if b" 101 " not in status:
                self.open.set_exception(ConnectionError(status.decode(errors="replace")))
                assert self.transport is not None
                self.transport.close()
                return
            self.upgraded = True
            self.stats.connected += 1
            self.open.set_result(None)
            self.send(_HELLO)
        while len(buf) >= 2:
            b0, b1 = buf[0], buf[1]
            n = b1 & 0x7F
            at = 2
            if n == 126:
                if len(buf) < 4:
                    return
                n, at = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n, at = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < at + n:
                return
            payload = bytes(buf[at : at + n])
            del buf[: at + n]
            op = b0 & 0x0F
            if op in (0, 1):
                if not b0 & 0x80:  # a fragment: keep until the last one
                    self.frag += payload
                    continue
                if self.frag:
                    payload, self.frag = bytes(self.frag) + payload, bytearray()
                self.on_message(payload)
            elif op == 9 and self.transport is not None:  # ping
                self.transport.write(bytes((0x8A, 0x80 | len(payload))) + b"\x00\x00\x00\x00" + payload)
            elif op == 8 and self.transport is not None:  # close: answer it and let the server end it
                self.transport.write(b"\x88\x80\x00\x00\x00\x00")

    def send(self, payload: bytes) -> None:
        if self.transport is not None:
            self.transport.write(frame(payload))

    def close(self) -> None:
        if self.transport is not None:
            self.transport.write(b"\x88\x82\x00\x00\x00\x00\x03\xe8")
            self.transport.close()
            self.transport = None

    # --- the player ------------------------------------------------------------------
    def on_message(self, raw: bytes) -> None:
        msg = orjson.loads(raw)
        kind = msg["type"]
        if kind == "event":
            self.v = msg["v"]
            ev = msg["event"]
            if ev["kind"] in ("call", "play"):
                if self.reporter:
                    self.stats.actions += 1
                if self.sent_at and ev.get("seat") == self.me:
                    self.stats.latency.append(time.monotonic() - self.sent_at)
                    self.sent_at = 0.0
        elif kind == "snapshot":
            self.v = msg["v"]
        elif kind == "error":
            self.stats.errors.append(f"{msg.get('code')}: {msg.get('message')}")
            self.sent_at = 0.0
            return
        else:
            return
        table = msg["table"]
        me = self.me = table["you"]
        status = table["status"]
        if status == "between_rounds":
            if not table["seats"][me]["ready"] and self.pending != self.v:
                self.pending = self.v
                self.send(_READY)
            return
        state = msg["state"]
        if status != "playing" or state is None or state["to_act"] != me or self.pending == self.v:
            return
        if state["phase"] == "calling":
            out = b'{"type":"call","call":%d}' % self.rng.choice(state["legal_calls"][:5])
        elif len(state["legal_cards"]) > 1:  # one legal card: the server plays it
            out = b'{"type":"play","card":"%s"}' % self.rng.choice(state["legal_cards"]).encode()
        else:
            return
        self.pending = self.v
        asyncio.get_running_loop().call_later(self.rng.uniform(0, 2 * self.think), self._act, out, self.v)

    def _act(self, out: bytes, v: int) -> None:
        if self.v == v and self.transport is not None:
            self.sent_at = time.monotonic()
            self.send(out)


async def _worker_main(base: str, pipe: Connection, seed: int) -> None:
    loop = asyncio.get_running_loop()
    url = urlsplit(base)
    host, port = url.hostname or "127.0.0.1", url.port or 80
    rng = random.Random(seed)
    stats = Stats()
    seats: list[Seat] = []

    async def connect(table: str, token: str, think: float, reporter: bool) -> None:
        path = f"/ws/{table}?token={token}"
        for attempt in range(5):
            seat = Seat(f"{host}:{port}", path, think, reporter, random.Random(rng.random()), stats)
            try:
                await loop.create_connection(lambda s=seat: s, host, port)  # type: ignore[misc]
                await asyncio.wait_for(seat.open, 30)
                seats.append(seat)
                return
            except (OSError, ConnectionError, TimeoutError) as e:
                if attempt == 4:
                    stats.errors.append(f"connect: {e!r}")
                await asyncio.sleep(0.2)

    while True:
        cmd = await loop.run_in_executor(None, pipe.recv)
        if cmd[0] == "add":
            todo = cmd[1]
            for i in range(0, len(todo), 50):  # 50 at a time
                await asyncio.gather(*(connect(*s) for s in todo[i : i + 50]))
            pipe.send(("added", len(seats), stats.errors[-3:]))
        elif cmd[0] == "measure":
            stats.latency.clear()
            stats.actions = 0
            errors0, closed0 = len(stats.errors), stats.closed
            u0 = resource.getrusage(resource.RUSAGE_SELF)
            t0 = time.monotonic()
            await asyncio.sleep(cmd[1])
            u1 = resource.getrusage(resource.RUSAGE_SELF)
            pipe.send(
                {
                    "window": time.monotonic() - t0,
                    "latency": list(stats.latency),
                    "actions": stats.actions,
                    "errors": stats.errors[errors0:],
                    "closed": stats.closed - closed0,
                    "connected": len(seats),
                    "cpu_s": (u1.ru_utime + u1.ru_stime) - (u0.ru_utime + u0.ru_stime),
                }
            )
        else:
            for s in seats:
                s.close()
            await asyncio.sleep(0.2)
            pipe.send(("stopped",))
            return


def _worker(base: str, pipe: Connection, seed: int) -> None:
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    asyncio.run(_worker_main(base, pipe, seed))


class Workers:
    """The client processes of one benchmark run, each holding its share of the seats."""

    def __init__(self, base: str, n: int, seed: int) -> None:
        ctx = mp.get_context("spawn")  # a fresh interpreter: none of the parent's memory or threads
        self.pipes: list[Connection] = []
        self.procs: list[Any] = []
        for k in range(n):
            ours, theirs = ctx.Pipe()
            p = ctx.Process(target=_worker, args=(base, theirs, seed * 1000 + k), daemon=True)
            p.start()
            self.pipes.append(ours)
            self.procs.append(p)
        self._next = 0

    @property
    def pids(self) -> list[int]:
        return [int(p.pid) for p in self.procs]

    def add(self, seats: list[tuple[str, str, float, bool]]) -> tuple[int, list[str]]:
        """Connect ``seats`` (table, token, think, reporter), spread over the processes."""
        shares: list[list[tuple[str, str, float, bool]]] = [[] for _ in self.pipes]
        for s in seats:
            shares[self._next % len(shares)].append(s)
            self._next += 1
        for pipe, share in zip(self.pipes, shares):
            pipe.send(("add", share))
        connected, errors = 0, []
        for pipe in self.pipes:
            _, n, errs = pipe.recv()
            connected += n
            errors += errs
        return connected, errors

    def measure(self, seconds: float) -> dict[str, Any]:
        """Every process's window of ``seconds``, together."""
        for pipe in self.pipes:
            pipe.send(("measure", seconds))
        parts = [pipe.recv() for pipe in self.pipes]
        return {
            "window": max(p["window"] for p in parts),
            "latency": sorted(x for p in parts for x in p["latency"]),
            "actions": sum(p["actions"] for p in parts),
            "errors": [e for p in parts for e in p["errors"]],
            "closed": sum(p["closed"] for p in parts),
            "connected": sum(p["connected"] for p in parts),
            "cpu_s": sum(p["cpu_s"] for p in parts),
        }

    def stop(self) -> None:
        for pipe in self.pipes:
            try:
                pipe.send(("stop",))
                pipe.recv()
            except (OSError, EOFError):
                pass
        for p in self.procs:
            p.join(5)
            if p.is_alive():
                p.kill()


def spawn_workers(base: str, n: int = 2, seed: int = 1) -> Workers:
    """``n`` client processes against ``base`` (``http://host:port``)."""
    return Workers(base, n, seed)
