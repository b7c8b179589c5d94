"""Load benchmark of `callbreak serve`: many tables of scripted WebSocket players on loopback.

Starts a real server process (its own SQLite file in a temporary directory) unless
``--url`` is given, creates ``--tables`` tables, seats ``--humans`` scripted players at
each (the other seats are ``random`` bots, to measure the server rather than a bot),
and lets them play legal moves after a short think for ``--duration`` seconds.  It
reports tables, connections, actions per second, the p50/p99 latency from sending an
action to receiving its event, errors, and the server process's CPU and memory.

    python benchmarks/load.py --tables 500 --humans 2 --duration 60

The clients run in ``--procs`` processes (asyncio + the ``websockets`` library).

Measured on the project's shared 2-core machine (2026-11-30, 60 s windows, server and
clients on the same two cores, permessage-deflate on):

| tables x scripted seats (+bots) | connections | actions/s | p50 ms | p99 ms | errors | server CPU | RSS |
|---|---|---|---|---|---|---|---|
| 500 x 2 (+2 random) | 1000 | 1147 | 0.86 | 9.8 | 0 | 32 % | 213 MiB |
| 250 x 4 | 1000 | 286 | 1.0 | 5.9 | 0 | 20 % | 145 MiB |
| 750 x 2 (+2 random), 45 s | 1500 | 1697 | 2.0 | 89 | 0 | 50 % | 266 MiB |
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import httpx
import orjson
import websockets

#: the report of the last `main` run (benchmarks/scale.py reads it)
LAST_REPORT: dict[str, Any] = {}

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def proc_cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_memory_mib(pid: int) -> tuple[float, float]:
    rss = hwm = 0.0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) / 1024
    return rss, hwm


class Player:
    """One scripted seat: plays its turn after a think, times action → event."""

    def __init__(self, url: str, think: float, stop_at: float, rng: random.Random, stats: dict[str, Any]) -> None:
        self.url = url
        self.think = think
        self.stop_at = stop_at
        self.rng = rng
        self.stats = stats
        self.v = 0
        self.seat = -1
        self.sent_at: float | None = None
        self.pending_v: int | None = None
        self.ws: Any = None
        self.turn_task: asyncio.Task[None] | None = None

    async def run(self, ready: asyncio.Event, go: asyncio.Event) -> None:
        try:
            self.ws = await websockets.connect(
                self.url, max_size=2**22, compression="deflate" if self.stats["deflate"] else None
            )
        except Exception as e:
            self.stats["errors"].append(f"connect: {e!r}")
            ready.set()
            return
        self.stats["connected"] += 1
        ready.set()
        await go.wait()
        await self.ws.send('{"type":"hello","since":0}')
        try:
            async for raw in self.ws:
                self.on_message(orjson.loads(raw))
                if time.monotonic() > self.stop_at:
                    break
        except websockets.ConnectionClosed as e:
            if time.monotonic() < self.stop_at:
                self.stats["errors"].append(f"closed: {e!r}")
        finally:
            if self.turn_task is not None:
                self.turn_task.cancel()
            await self.ws.close()

    def on_message(self, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        self.stats["messages"] += 1
        if kind == "error":
            self.stats["errors"].append(f"error: {msg.get('code')}: {msg.get('message')}")
            self.sent_at = None
            return
        if kind == "event":
            if msg["v"] != self.v + 1:
                self.stats["errors"].append(f"gap: {self.v} -> {msg['v']}")
            self.v = msg["v"]
            ev = msg["event"]
            if ev["kind"] in ("call", "play"):
                self.stats["table_actions_seen"] += 1
            if self.sent_at is not None and ev.get("seat") == self.seat and ev["kind"] in ("call", "play"):
                self.stats["latency"].append(time.monotonic() - self.sent_at)
                self.stats["actions"] += 1
                self.sent_at = None
        elif kind == "snapshot":
            self.v = msg["v"]
        else:
            return
        table = msg["table"]
        state = msg["state"]
        self.seat = table["you"]
        if table["status"] == "between_rounds" and not table["seats"][self.seat]["ready"] and self.pending_v != -self.v:
            self.pending_v = -self.v
            self.turn_task = asyncio.ensure_future(self.ws.send('{"type":"ready"}'))  # type: ignore[arg-type]
        if (
            table["status"] == "playing"
            and state is not None
            and state["to_act"] == self.seat
            and self.pending_v != self.v
            and not (state["phase"] == "playing" and len(state["legal_cards"]) == 1)  # the server plays it
        ):
            self.pending_v = self.v
            choice: str
            if state["phase"] == "calling":
                choice = orjson.dumps({"type": "call", "call": self.rng.choice(state["legal_calls"][:5])}).decode()
            else:
                choice = orjson.dumps({"type": "play", "card": self.rng.choice(state["legal_cards"])}).decode()
            self.turn_task = asyncio.ensure_future(self.act(choice, self.v))

    async def act(self, payload: str, v: int) -> None:
        await asyncio.sleep(self.rng.uniform(0, 2 * self.think))
        if self.v != v or time.monotonic() > self.stop_at:
            return
        self.sent_at = time.monotonic()
        await self.ws.send(payload)


async def client_main(
    base: str,
    seats: list[tuple[str, str]],
    think: float,
    ramp_end: float,
    duration: float,
    seed: int,
    deflate: bool,
) -> dict[str, Any]:
    stats: dict[str, Any] = {
        "connected": 0, "actions": 0, "table_actions_seen": 0, "messages": 0, "latency": [], "errors": [], "deflate": deflate
    }
    ws_base = base.replace("http", "ws", 1)
    rng = random.Random(seed)
    stop_at = ramp_end + duration
    players = [
        Player(f"{ws_base}/ws/{table}?token={token}", think, stop_at, random.Random(rng.random()), stats)
        for table, token in seats
    ]
    go = asyncio.Event()
    tasks = []
    for i in range(0, len(players), 50):  # connect 50 at a time
        readies = []
        for p in players[i : i + 50]:
            ready = asyncio.Event()
            readies.append(ready)
            tasks.append(asyncio.ensure_future(p.run(ready, go)))
        for r in readies:
            await r.wait()
    await asyncio.sleep(max(0.0, ramp_end - time.monotonic()))
    go.set()
    # measure only the steady window: drop what happened in the first seconds
    warm = time.monotonic() + min(5.0, duration / 4)
    while time.monotonic() < warm:
        await asyncio.sleep(0.1)
    stats["latency"].clear()
    stats["actions"] = 0
    stats["table_actions_seen"] = 0
    stats["window"] = stop_at - warm
    await asyncio.sleep(max(0.0, stop_at - time.monotonic()))
    done = stats["actions"], list(stats["latency"]), stats["table_actions_seen"]
    for p in players:
        if p.ws is not None:
            await p.ws.close()
    await asyncio.gather(*tasks, return_exceptions=True)
    stats["actions"], stats["latency"], stats["table_actions_seen"] = done
    return stats


def _run_clients(args: tuple[str, list[tuple[str, str]], float, float, float, int, bool], out: Any) -> None:
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    import resource

    stats = asyncio.run(client_main(*args))
    use = resource.getrusage(resource.RUSAGE_SELF)
    stats["cpu_s"] = use.ru_utime + use.ru_stime
    out.put(stats)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--humans", type=int, default=2, help="scripted players per table (1-4); bots fill the rest")
    ap.add_argument("--duration", type=float, default=60.0, help="seconds of measured play")
    ap.add_argument("--think", type=float, default=1.0, help="mean think time of a scripted player (s)")
    ap.add_argument("--procs", type=int, default=2, help="client processes")
    ap.add_argument("--bots", default="random")
    ap.add_argument("--url", default=None, help="an already running server (else one is started)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--server-nice", type=int, default=0, help="niceness change for the server (negative needs root)"
    )
    ap.add_argument(
        "--no-deflate", action="store_true", help="do not ask for permessage-deflate (browsers do ask)"
    )
    args = ap.parse_args(argv)

    tmp = tempfile.mkdtemp(prefix="callbreak-load-")
    server: subprocess.Popen[bytes] | None = None
    base = args.url
    try:
        if base is None:
            port = free_port()
            env = {
                **os.environ,
                "CALLBREAK_CREATE_RATE": "0",
                "CALLBREAK_MSG_RATE": "0",
                "CALLBREAK_CONNECT_RATE": "0",  # every scripted seat connects from 127.0.0.1
                "CALLBREAK_BOT_DELAY": "0",
                "CALLBREAK_BETWEEN_ROUNDS": "0.5",
            }
            nice = args.server_nice
            server = subprocess.Popen(
                [sys.executable, "-m", "callbreak", "serve", "--port", str(port), "--db", f"{tmp}/load.db"],
                env=env,
                stdout=subprocess.DEVNULL,
                preexec_fn=(lambda: os.nice(nice)) if nice else None,
            )
            base = f"http://127.0.0.1:{port}"
            for _ in range(200):
                try:
                    if httpx.get(base + "/healthz", timeout=0.5).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.05)
        t0 = time.monotonic()
        seats: list[tuple[str, str]] = []
        rules = {"preset": "standard", "rounds": 20, "card_seconds": 60, "call_seconds": 60}
        with httpx.Client(base_url=base, timeout=30) as http:
            for i in range(args.tables):
                made = http.post("/api/tables", json={"rules": rules, "bots": args.bots, "name": f"L{i}"}).json()
                seats.append((made["table"], made["token"]))
                for h in range(1, args.humans):
                    j = http.post(f"/api/join/{made['invite']}", json={"name": f"L{i}.{h}"}).json()
                    seats.append((made["table"], j["token"]))
                http.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]})
        created = time.monotonic() - t0
        ramp_end = time.monotonic() + 5 + len(seats) / 400
        chunks = [seats[i :: args.procs] for i in range(args.procs)]
        ctx = mp.get_context("fork")
        q = ctx.Queue()
        procs = [
            ctx.Process(
                target=_run_clients,
                args=((base, c, args.think, ramp_end, args.duration, args.seed + k, not args.no_deflate), q),
            )
            for k, c in enumerate(chunks)
        ]
        for p in procs:
            p.start()
        pid = server.pid if server is not None else None
        # server CPU over the measured window (after the warm-up the clients also skip)
        warm = min(5.0, args.duration / 4)
        time.sleep(max(0.0, ramp_end - time.monotonic()) + warm)
        cpu0 = proc_cpu_seconds(pid) if pid else 0.0
        load0 = os.getloadavg()[0]
        w0 = time.monotonic()
        results = [q.get() for _ in procs]
        w1 = time.monotonic()
        cpu1 = proc_cpu_seconds(pid) if pid else 0.0
        print(f"server pid {pid}: cpu {cpu0:.2f} -> {cpu1:.2f} s over {w1 - w0:.1f} s", file=sys.stderr)
        mem = proc_memory_mib(pid) if pid else (0.0, 0.0)
        for p in procs:
            p.join()
        lat = sorted(x for r in results for x in r["latency"])
        actions = sum(r["actions"] for r in results)
        window = max(r["window"] for r in results)
        errors = [e for r in results for e in r["errors"]]
        connected = sum(r["connected"] for r in results)

        def pct(p: float) -> float:
            return lat[min(len(lat) - 1, int(p * len(lat)))] * 1000 if lat else float("nan")

        report = {
            "tables": args.tables,
            "connections": connected,
            "seats_per_table": f"{args.humans} scripted + {4 - args.humans} {args.bots} bots",
            "think_mean_s": args.think,
            "permessage_deflate": not args.no_deflate,
            "window_s": round(window, 1),
            "scripted_actions": actions,
            "scripted_actions_per_s": round(actions / window, 1),
            "all_actions_per_s": round(sum(r["table_actions_seen"] for r in results) / args.humans / window, 1),
            "latency_ms_p50": round(pct(0.50), 2),
            "latency_ms_p99": round(pct(0.99), 2),
            "latency_ms_max": round(lat[-1] * 1000, 2) if lat else None,
            "latency_ms_mean": round(statistics.fmean(lat) * 1000, 2) if lat else None,
            "errors": len(errors),
            "error_samples": errors[:5],
            "server_cpu_percent": round(100 * (cpu1 - cpu0) / (w1 - w0), 1) if pid else None,
            "server_rss_mib": round(mem[0], 1),
            "server_peak_rss_mib": round(mem[1], 1),
            "client_cpu_s_total": round(sum(r["cpu_s"] for r in results), 1),
            "setup_s": round(created, 1),
            "machine_load_avg_1min": f"{load0:.1f} -> {os.getloadavg()[0]:.1f} ({os.cpu_count()} cpus)",
            "server_nice": args.server_nice,
        }
        LAST_REPORT.clear()
        LAST_REPORT.update(report)
        for k, v in report.items():
            print(f"{k:24} {v}")
        ok = connected >= args.tables * args.humans and not errors
        return 0 if ok else 1
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
