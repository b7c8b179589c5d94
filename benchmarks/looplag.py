"""Where an action's time goes beyond the server's own handling: the event loop's waits.

One ``callbreak serve`` (the embedded SQLite, or ``--db pg``: PostgreSQL + Redis started on
loopback as the tests do), reached straight (no nginx), loaded step by step with tables of 2
scripted seats + 2 random bots (``loadclient.py``, as ``scale.py throughput``).  During each
step's window, side by side:

- the client's action->event latency (p50 / p99), as ``scale.py throughput`` measures it;
- the server's own time per action (``callbreak_action_seconds``: received to its events
  queued) and per commit (``callbreak_store_append_seconds``), from ``/metrics``: the share
  of each under 2 ms and 0.5 ms;
- a ``ping`` every 10 ms on a spare spectator socket of the first table: its round trip
  (p50 / p99 / max, and how many waited over 15 ms).  A ping costs the server nothing, so
  its waits are the loop's queue: the work of other actions ahead of it;
- a process beside the load sleeping 1 ms in a loop: its worst oversleep (the operating
  system's own scheduling delays on this machine).

    python benchmarks/looplag.py                       # SQLite, 100 and 125 tables
    python benchmarks/looplag.py --db pg --tables 125
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import orjson
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from tests.scale.procs import ScaledServer, start_all  # noqa: E402
from tests.scale.services import Postgres, Redis, fresh_database, namespace  # noqa: E402

import capacity  # noqa: E402
from loadclient import spawn_workers  # noqa: E402
from scale import LOAD_ENV, EmbeddedServer  # noqa: E402

HISTOGRAMS = ("callbreak_action_seconds", "callbreak_store_append_seconds")


def histograms(base: str) -> dict[tuple[str, str], float]:
    """The cumulative bucket counts of `HISTOGRAMS` on the server's ``/metrics``."""
    out: dict[tuple[str, str], float] = {}
    for line in httpx.get(base + "/metrics", timeout=10).text.splitlines():
        for name in HISTOGRAMS:
            if line.startswith(name + "_bucket{"):
                le = line.split('le="', 1)[1].split('"', 1)[0]
                out[(name, le)] = float(line.rsplit(" ", 1)[1])
    return out


def share_within(before: dict[tuple[str, str], float], after: dict[tuple[str, str], float], name: str, le: str) -> float:
    """Of the observations of ``name`` between the two readings, the % within bucket ``le``."""
    total = after[(name, "+Inf")] - before.get((name, "+Inf"), 0.0)
    within = after[(name, le)] - before.get((name, le), 0.0)
    return 100.0 * within / total if total else float("nan")


async def ping_probe(url: str, seconds: float) -> list[float]:
    """Round trips of a ``ping`` sent every 10 ms for ``seconds`` on a spectator socket."""
    rtts: list[float] = []
    sent: dict[int, float] = {}
    async with websockets.connect(url, max_size=None) as ws:
        await ws.send('{"type":"hello","since":0}')

        async def reader() -> None:
            async for raw in ws:
                msg = orjson.loads(raw)
                if msg.get("type") == "pong" and msg.get("ref") in sent:
                    rtts.append(time.monotonic() - sent.pop(msg["ref"]))

        task = asyncio.create_task(reader())
        end = time.monotonic() + seconds
        i = 0
        while time.monotonic() < end:
            i += 1
            sent[i] = time.monotonic()
            await ws.send(orjson.dumps({"type": "ping", "ref": i}).decode())
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)
        task.cancel()
    return sorted(rtts)


def oversleep(seconds: float, out: Any) -> None:
    """(In a process of its own) the worst oversleep of a 1 ms sleep, over ``seconds``."""
    worst = 0.0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t = time.monotonic()
        time.sleep(0.001)
        worst = max(worst, time.monotonic() - t - 0.001)
    out.send(worst)


def pct(xs: list[float], p: float) -> float:
    return 1000 * xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", choices=("sqlite", "pg"), default="sqlite")
    ap.add_argument("--tables", default="100,125", help="tables at each step (in all)")
    ap.add_argument("--think", type=float, default=1.0, help="a scripted seat's mean think (s)")
    ap.add_argument("--warm", type=float, default=3.0)
    ap.add_argument("--window", type=float, default=10.0)
    args = ap.parse_args()

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a `timeout` still stops the services
    tmp = tempfile.mkdtemp(prefix="callbreak-looplag-")
    services: list[Postgres | Redis] = []
    if args.db == "pg":
        pg, rd = Postgres(), Redis()
        services = [pg, rd]
        server: ScaledServer = ScaledServer(fresh_database(pg.url), rd.url, namespace(), LOAD_ENV)
    else:
        server = EmbeddedServer(f"{tmp}/load.db", LOAD_ENV)
    start_all([server])
    deadline = time.monotonic() + 180
    while "kernel is ready" not in server.output() and time.monotonic() < deadline:
        time.sleep(0.2)
    base = f"http://127.0.0.1:{server.port}"
    workers = spawn_workers(base, 2, 1)
    print(f"one process ({'PostgreSQL + Redis' if args.db == 'pg' else 'SQLite'}), straight (no nginx); "
          f"2 scripted seats a table (think {args.think} s mean) + 2 random bots; {args.warm} s warm-up, "
          f"{args.window} s window a step")
    print("| tables | actions/s | client p50 ms | client p99 ms | handled within 2 ms | commits within 0.5 ms "
          "| ping p50 ms | ping p99 ms | ping max ms | pings over 15 ms | 1 ms sleep: worst oversleep ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    have = 0
    first_table = ""
    try:
        for n in (int(x) for x in args.tables.split(",")):
            seats = capacity.make_seats(base, n - have, 2, args.think)
            first_table = first_table or seats[0][0]
            have = n
            workers.add(seats)
            time.sleep(args.warm)
            ours, theirs = mp.Pipe()
            sleeper = mp.get_context("spawn").Process(target=oversleep, args=(args.window, theirs), daemon=True)
            sleeper.start()
            before = histograms(base)

            async def window(url: str = base.replace("http", "ws", 1) + "/ws/" + first_table) -> tuple[dict[str, Any], list[float]]:
                probe = asyncio.create_task(ping_probe(url, args.window))
                m = await asyncio.to_thread(workers.measure, args.window)
                return m, await probe

            m, rtts = asyncio.run(window())
            after = histograms(base)
            worst = float(ours.recv())
            sleeper.join(5)
            lat = m["latency"]
            print(
                f"| {n} | {m['actions'] / m['window']:.0f} | {pct(lat, 0.5):.1f} | {pct(lat, 0.99):.1f} "
                f"| {share_within(before, after, HISTOGRAMS[0], '0.002'):.1f} % "
                f"| {share_within(before, after, HISTOGRAMS[1], '0.0005'):.1f} % "
                f"| {pct(rtts, 0.5):.2f} | {pct(rtts, 0.99):.1f} | {1000 * rtts[-1]:.1f} "
                f"| {sum(r > 0.015 for r in rtts)} of {len(rtts)} | {1000 * worst:.1f} |",
                flush=True,
            )
    finally:
        workers.stop()
        server.stop()
        for service in services:
            service.stop()


if __name__ == "__main__":
    main()
