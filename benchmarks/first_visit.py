"""A first visit on a slow phone: what crosses the link, and when the player can read and tap.

A real `callbreak serve` (SQLite), behind a link this script makes on loopback (a shared downstream
of ``--kbit`` kbit/s shared fairly by its connections, the same upstream, ``--rtt`` ms of round trip,
a round trip for each connection's handshake), and a real Chromium on a
phone (390×844, touch, the CPU slowed ``--cpu`` times, an empty cache) whose reader's language is
``--lang``.  The page opens ``/``; the script taps "Play now" as soon as it is on screen, waits for a hand of
cards, then until the service worker has stored the whole app; then opens ``/`` again (the next
visit).

    python benchmarks/first_visit.py              # ne, 400 kbit/s, 400 ms, CPU ×4
    python benchmarks/first_visit.py --lang en

Printed: the moments (ms from the navigation) of the first paint, of the reader's words on screen
(``<html lang>`` set: before it the page shows English), of the home page's "Play now", of the
hand after "Play now", and of the service worker's cache complete; then the bytes on the link, the
page's and the service worker's, with each file the worker fetched in full (status 200) apart from
those it only had confirmed (a 304, no body).  Times vary from run to run (a shared machine, the CPU
throttled): run it a few times.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

# the worker's fetches as events too (on by default since Playwright 1.57; this for the ones before)
os.environ["PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS"] = "1"

from playwright.sync_api import sync_playwright

SRC = str(Path(__file__).resolve().parents[1] / "src")
sys.path.insert(0, SRC)

from callbreak.server.pwa import precache  # noqa: E402

MARKS = """
(() => {
  window.__t = {};
  const mark = (k) => { if (!(k in window.__t)) window.__t[k] = Math.round(performance.now()); };
  const look = () => {
    if (document.documentElement && document.documentElement.lang === window.__lang) mark("words");
    if (document.querySelector("[data-testid=play-now]")) mark("home");
    if (document.querySelector("[data-testid=hand] [data-card]")) mark("hand");
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true });
})();
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Flow:
    """One connection's bytes one way: waiting to cross the link, then written at the far end."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer, self.pending, self.ended = writer, bytearray(), False
        self.on_wire = False  # a segment taken from `pending` is crossing the link


class Link:
    """A slow link on loopback: each direction ``kbit`` kbit/s, shared fairly by the connections
    with bytes to send (a segment of each in turn, as TCP flows share a bottleneck), each segment
    arriving half the round trip after it is sent, and a round trip for each new connection's
    handshake.  ``down`` counts the bytes to the phone."""

    SEGMENT = 1460

    def __init__(self, target: int, kbit: float, rtt_ms: float) -> None:
        self.target, self.rate, self.rtt = target, kbit * 1000 / 8, rtt_ms / 1000
        self.flows: dict[str, list[_Flow]] = {"down": [], "up": []}
        self.down = 0
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        threading.Thread(target=self._run, args=(ready,), daemon=True).start()
        ready.wait()

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.wake = {way: asyncio.Event() for way in self.flows}
        server = self.loop.run_until_complete(asyncio.start_server(self._conn, "127.0.0.1", self.port))
        for way in self.flows:
            self.loop.create_task(self._send(way))
        ready.set()
        self.loop.run_forever()
        server.close()

    async def _send(self, way: str) -> None:
        """The link one way: a segment of each waiting flow in turn, at the link's rate."""
        turn = 0
        while True:
            waiting = [f for f in self.flows[way] if f.pending]
            if not waiting:
                self.wake[way].clear()
                await self.wake[way].wait()
                continue
            flow = waiting[turn % len(waiting)]
            turn += 1
            segment = bytes(flow.pending[: self.SEGMENT])
            del flow.pending[: self.SEGMENT]
            flow.on_wire = True
            await asyncio.sleep(len(segment) / self.rate)  # on the wire
            flow.on_wire = False
            self.loop.call_later(self.rtt / 2, flow.writer.write, segment)
            if flow.ended and not flow.pending:  # (its last segment: the end after it)
                self.loop.call_later(self.rtt / 2, flow.writer.close)

    async def _pipe(self, r: asyncio.StreamReader, w: asyncio.StreamWriter, way: str) -> None:
        flow = _Flow(w)
        self.flows[way].append(flow)
        try:
            while data := await r.read(65536):
                if way == "down":
                    self.down += len(data)
                flow.pending += data
                self.wake[way].set()
        except OSError:
            pass  # (the far end gone: the flow ends)
        flow.ended = True
        if not flow.pending and not flow.on_wire:  # (else the link ends it after its last segment)
            self.loop.call_later(self.rtt / 2, w.close)
        while flow.pending or flow.on_wire:
            await asyncio.sleep(self.rtt)
        self.flows[way].remove(flow)

    async def _conn(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        await asyncio.sleep(self.rtt)  # the handshake
        try:
            sr, sw = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            w.close()
            return
        await asyncio.gather(self._pipe(r, sw, "up"), self._pipe(sr, w, "down"))


def serve(tmp: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    cmd = [sys.executable, "-m", "callbreak", "serve", "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--db", os.path.join(tmp, "t.sqlite"), "--bot-delay", "0.05"]
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    log = open(os.path.join(tmp, "server.log"), "w")  # noqa: SIM115 (the server's, for its life)
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    for _ in range(300):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("callbreak serve did not start")


def finished(r: Any, port: int) -> tuple[str, bool, int, int]:
    """A request as (path, by the service worker, bytes of its body on the link, bytes in all).
    (A file only confirmed, a 304, has no body: the worker's fetch sees the browser's copy, a 200.)"""
    sizes = r.sizes()
    path = r.url.split(str(port), 1)[1]
    return path, r.service_worker is not None, sizes["responseBodySize"], sizes["responseBodySize"] + sizes["responseHeadersSize"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lang", default="ne")
    ap.add_argument("--kbit", type=float, default=400)
    ap.add_argument("--rtt", type=float, default=400)
    ap.add_argument("--cpu", type=float, default=4)
    ap.add_argument("--no-worker", action="store_true", help="the service worker blocked (a browser without one)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="cb-first-visit-")
    proc, port = serve(tmp)
    link = Link(port, a.kbit, a.rtt)
    want = len(precache())
    rows: list[Any] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            ctx = browser.new_context(
                viewport={"width": 390, "height": 844},
                is_mobile=True,
                has_touch=True,
                locale=a.lang,
                service_workers="block" if a.no_worker else "allow",
            )
            ctx.add_init_script(f"window.__lang = {a.lang!r};" + MARKS)
            ctx.on("requestfinished", lambda r: rows.append(finished(r, link.port)))
            page = ctx.new_page()
            page.set_default_timeout(120_000)
            ctx.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": a.cpu})
            page.goto(f"http://127.0.0.1:{link.port}/")
            page.wait_for_selector("[data-testid=play-now]")
            page.select_option("#now-bots", "random")
            tap = page.evaluate("Math.round(performance.now())")
            page.locator("[data-testid=play-now]").tap()  # at once, as a player does
            page.wait_for_selector("[data-testid=hand] [data-card]")
            stored = "caches.keys().then(async (ks) => ks.length === 1 ? (await (await caches.open(ks[0])).keys()).length : 0)"
            while not a.no_worker and page.evaluate(stored) < want:
                page.wait_for_timeout(50)
            sw_done = page.evaluate("Math.round(performance.now())")
            page_bytes = sum(n for _, by_sw, _, n in rows if not by_sw)
            t = page.evaluate("window.__t")
            fcp = page.evaluate(
                "Math.round((performance.getEntriesByName('first-contentful-paint')[0] || {startTime: -1}).startTime)"
            )
            # the next visit: the page again, the worker (where there is one) holding the app
            page.goto(f"http://127.0.0.1:{link.port}/")
            page.wait_for_selector("[data-testid=play-now]")
            again = page.evaluate("window.__t.home")
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
    sw = [r for r in rows if r[1]]
    full = [r for r in sw if r[2] > 0]
    same = [r for r in sw if r[2] == 0]
    sw_bytes = sum(r[3] for r in sw)
    print(f"lang {a.lang}, {a.kbit:g} kbit/s, {a.rtt:g} ms round trip, CPU x{a.cpu:g}, an empty cache")
    print(f"  first paint {fcp} ms; the reader's words {t.get('words')} ms; Play now on screen {t.get('home')} ms")
    print(f"  Play now tapped at {tap} ms: a hand {t['hand'] - tap} ms later")
    print(f"  the service worker's cache complete ({want} files) {sw_done} ms")
    print(f"  the next visit: Play now on screen {again} ms")
    print(f"  bytes to the phone: {link.down / 1024:.0f} KB on the link (headers and the socket's messages too)")
    print(f"    the page's requests {page_bytes / 1024:.0f} KB, the service worker's {sw_bytes / 1024:.0f} KB")
    print(f"    the worker fetched {len(full)} files in full, had {len(same)} confirmed (a 304, no body)")
    for path, _, _, n in sorted(full, key=lambda r: -r[3]):
        print(f"      {n / 1024:6.1f} KB  {path}")


if __name__ == "__main__":
    main()
