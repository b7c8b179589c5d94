"""Scale-out figures: `callbreak serve` on PostgreSQL + Redis behind Debian's nginx.

Each run starts its own PostgreSQL, Redis and nginx on loopback (as the tests do:
tests/scale/services.py), then:

``throughput``  benchmarks/load.py against 1 and then 2 processes behind nginx, the same
                client load, side by side: actions/s and action->event p50/p99.
``hardbots``    one process (embedded SQLite), tables of 1 scripted player + 3 hard bots,
                bot decisions in threads and then in a pool of processes, side by side.
``botqueue``    bot decisions of the same tables (the same views, levels and seeds), asked
                the way a table asks them (one at a time per table, every table at once),
                in the local pool of ``--workers`` processes and then on ``--workers``
                ``callbreak bot-worker`` processes fed by the queue on Redis, side by side:
                the round trip of a decision (asked -> answered, in the asking process),
                p50/p99, and whether both gave the same actions.  One table first (the
                path's own cost), then ``--tables`` at once (queueing for the workers).
``failover``    2 processes behind nginx serving live tables; ``kill -9`` of a random one
                ``--kills`` times at random moments (it is started again at once): actions
                lost, seconds until every table of the dead process is live again, clients
                that came back (the same client object: no reload), and reconnections refused
                at the handshake (nginx's 502 when it holds every process down).

    python benchmarks/scale.py throughput --tables 200 --duration 30
    python benchmarks/scale.py hardbots --tables 100 --duration 30
    python benchmarks/scale.py failover --tables 40 --kills 20
    python benchmarks/scale.py botqueue --tables 20 --workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import orjson
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from tests.scale.procs import Nginx, ScaledServer, start_all  # noqa: E402
from tests.scale.services import Postgres, Redis, fresh_database, namespace  # noqa: E402

import load  # noqa: E402


def throughput(args: argparse.Namespace) -> None:
    pg, rd = Postgres(), Redis()
    rows = []
    try:
        for n in (1, 2):
            servers = [ScaledServer(fresh_database(pg.url), rd.url, namespace(), {"CALLBREAK_LEASE_TTL": "3"})]
            servers += [ScaledServer(servers[0].pg, rd.url, servers[0].env["CALLBREAK_NAMESPACE"]) for _ in range(n - 1)]
            start_all(servers)
            nginx = Nginx([s.port for s in servers], limits=False)  # every load client is 127.0.0.1
            try:
                load.main(["--url", nginx.base, "--tables", str(args.tables), "--humans", "2", "--duration",
                           str(args.duration), "--think", str(args.think), "--procs", "2"])
                rows.append((n, dict(load.LAST_REPORT)))
            finally:
                nginx.stop()
                for s in servers:
                    s.stop()
    finally:
        pg.stop()
        rd.stop()
    print("\n| processes | connections | actions/s (all seats) | p50 ms | p99 ms | errors |")
    print("|---|---|---|---|---|---|")
    for n, r in rows:
        print(f"| {n} | {r['connections']} | {r['all_actions_per_s']} | {r['latency_ms_p50']} | {r['latency_ms_p99']} | {r['errors']} |")
    if len(rows) == 2:
        print(f"ratio of actions/s, 2 processes / 1: {rows[1][1]['all_actions_per_s'] / rows[0][1]['all_actions_per_s']:.2f}")


def hardbots(args: argparse.Namespace) -> None:
    rows = []
    for procs in (0, args.pool):
        os.environ["CALLBREAK_BOT_PROCESSES"] = str(procs)
        load.main(["--tables", str(args.tables), "--humans", "1", "--bots", "hard", "--duration", str(args.duration),
                   "--think", str(args.think), "--procs", "1"])
        rows.append((procs, dict(load.LAST_REPORT)))
    os.environ.pop("CALLBREAK_BOT_PROCESSES", None)
    print("\n| bot decisions | tables | actions/s (all seats) | scripted p50 ms | scripted p99 ms | errors | server CPU % |")
    print("|---|---|---|---|---|---|---|")
    for procs, r in rows:
        where = "threads" if procs == 0 else f"pool of {procs} processes"
        print(f"| {where} | {r['tables']} | {r['all_actions_per_s']} | {r['latency_ms_p50']} | {r['latency_ms_p99']} "
              f"| {r['errors']} | {r['server_cpu_percent']} |")


def decision_asks(tables: int, decisions: int, level: str) -> list[list[Any]]:
    """For each table (a seeded match played on by medium bots), its first ``decisions`` bot
    decisions as a server asks them (`BotAsk`: the seat's view, the decision's seed)."""
    from callbreak import Match, Ruleset
    from callbreak.bots import make_bot
    from callbreak.server.autopilot import decision_seed
    from callbreak.server.botpool import BotAsk

    out = []
    for t in range(tables):
        m = Match(Ruleset.preset("quick"), seed=9000 + t)
        players = [make_bot("medium", 9000 + t * 4 + s) for s in range(4)]
        asks = []
        v = 0
        while m.to_act is not None and len(asks) < decisions:
            seat = m.to_act
            view = m.view(seat)
            asks.append(BotAsk(f"bench{t}", v, seat, level, decision_seed(9000 + t, seat, v), view))
            m.act(players[seat].act(view))
            v += 1
        out.append(asks)
    return out


async def ask_all(deciders: Any, tables: list[list[Any]], warm: int) -> tuple[list[float], list[Any], float]:
    """Every table asks its decisions one after another, all tables at once: each decision's
    round trip in seconds, the actions (table by table), and the wall time."""
    await deciders.start()
    try:
        flat = [a for asks in tables for a in asks]
        for i in range(0, min(warm, len(flat)), 8):  # the workers load what they need first (untimed)
            await asyncio.gather(*(deciders.decide(a) for a in flat[i : i + 8]))
        times: list[float] = []

        async def table(asks: list[Any]) -> list[Any]:
            got = []
            for a in asks:
                t0 = time.perf_counter()
                got.append(await deciders.decide(a))
                times.append(time.perf_counter() - t0)
            return got

        t0 = time.perf_counter()
        actions = await asyncio.gather(*(table(asks) for asks in tables))
        return times, [x for got in actions for x in got], time.perf_counter() - t0
    finally:
        await deciders.close()


async def _remote(cfg: Any, tables: list[list[Any]], warm: int) -> tuple[list[float], list[Any], float]:
    from callbreak.server.botqueue_redis import RedisBotQueue
    from callbreak.server.clock import LoopClock
    from callbreak.server.meter import Meter

    meter = Meter()  # counts nobody reads here
    return await ask_all(RedisBotQueue(cfg, LoopClock(), lambda: meter), tables, warm)


def botqueue(args: argparse.Namespace) -> None:
    import subprocess
    import tempfile

    from callbreak.server.botpool import BotPool
    from callbreak.server.config import ServerConfig

    rd = Redis()
    ns = namespace()
    log = Path(tempfile.mkstemp(prefix="callbreak-botworker-", suffix=".log")[1])
    with log.open("ab") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "callbreak", "bot-worker", "--redis", rd.url, "--processes", str(args.workers)],
            env={**os.environ, "CALLBREAK_NAMESPACE": ns}, stdout=out, stderr=subprocess.STDOUT,
        )
    rows = []
    try:
        deadline = time.monotonic() + 120
        while log.read_text().count(": ready") < args.workers:
            assert time.monotonic() < deadline and worker.poll() is None, log.read_text()
            time.sleep(0.1)
        cfg = ServerConfig(redis=rd.url, namespace=ns, bot_queue="redis", bot_deadline=60.0)
        for count, level, n in ((1, "medium", 160), (args.tables, "medium", args.decisions),
                                (args.tables, "hard", args.hard_decisions)):
            tables = decision_asks(count, n, level)
            warm = 4 * args.workers * (4 if level == "hard" else 1)
            local = asyncio.run(ask_all(BotPool(args.workers), tables, warm))
            queued = asyncio.run(_remote(cfg, tables, warm))
            same = sum(a == b for a, b in zip(local[1], queued[1], strict=True))
            rows.append((count, level, local, queued, same))
    finally:
        worker.terminate()
        worker.wait(30)
        rd.stop()

    def ms(xs: list[float], q: float) -> str:
        xs = sorted(xs)
        return f"{xs[min(len(xs) - 1, int(q * len(xs)))] * 1000:.1f}"

    print(f"\n{args.workers} worker processes either way; the tables ask at once\n")
    print("| tables | level | decisions | local pool p50 ms | p99 ms | Redis workers p50 ms | p99 ms | same actions |")
    print("|---|---|---|---|---|---|---|---|")
    for count, level, local, queued, same in rows:
        print(f"| {count} | {level} | {len(local[0])} | {ms(local[0], 0.5)} | {ms(local[0], 0.99)} | {ms(queued[0], 0.5)} "
              f"| {ms(queued[0], 0.99)} | {same}/{len(local[1])} |")


class Seat:
    """One scripted player of the failover run: plays its turns, and reconnects as the page does."""

    def __init__(self, ws_base: str, table: str, token: str, rng: random.Random) -> None:
        self.url = f"{ws_base}/ws/{table}?token={token}"
        self.rng = rng
        self.v = 0
        self.seen = 0
        self.lost = 0
        self.down_since: float | None = None
        self.recoveries: list[tuple[float, float]] = []  # (when it went down, seconds until live)
        self.refused = 0  # reconnections refused at the handshake (nginx's 502 "no live upstreams", …)
        self.live = False
        self.stop = False

    async def run(self) -> None:
        while not self.stop:
            try:
                async with websockets.connect(self.url, max_size=2**22) as ws:
                    await ws.send(orjson.dumps({"type": "hello", "since": self.v}).decode())
                    async for raw in ws:
                        await self.on_message(ws, orjson.loads(raw))
                        if self.stop:
                            return
            except websockets.InvalidStatus:
                self.refused += 1
            except (OSError, websockets.WebSocketException):
                pass
            if self.live:
                self.live = False
                self.down_since = time.monotonic()
            await asyncio.sleep(0.05)

    async def on_message(self, ws: Any, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if kind in ("synced", "snapshot"):
            if msg["v"] < self.seen:
                self.lost += self.seen - msg["v"]
            self.v = msg["v"]
            if not self.live:
                self.live = True
                if self.down_since is not None:
                    self.recoveries.append((self.down_since, time.monotonic() - self.down_since))
                    self.down_since = None
        if kind == "event":
            self.v = msg["v"]
            self.seen = max(self.seen, self.v)
        if "state" not in msg or "table" not in msg:
            return
        table, state = msg["table"], msg["state"]
        me = table["you"]
        if table["status"] == "between_rounds" and not table["seats"][me]["ready"]:
            await ws.send('{"type":"ready"}')
        elif table["status"] == "playing" and state is not None and state["to_act"] == me:
            if state["phase"] == "calling":
                await ws.send(orjson.dumps({"type": "call", "call": state["legal_calls"][0]}).decode())
            elif len(state["legal_cards"]) > 1:
                await ws.send(orjson.dumps({"type": "play", "card": self.rng.choice(state["legal_cards"])}).decode())


async def failover_run(args: argparse.Namespace) -> None:
    pg, rd = Postgres(), Redis()
    ns = namespace()
    url = fresh_database(pg.url)
    env = {"CALLBREAK_LEASE_TTL": str(args.lease_ttl), "CALLBREAK_BOT_DELAY": "0.05"}
    servers = [ScaledServer(url, rd.url, ns, env) for _ in range(2)]
    start_all(servers)
    nginx = Nginx([s.port for s in servers], limits=False)  # every load client is 127.0.0.1
    rng = random.Random(args.seed)
    seats: list[Seat] = []
    tasks = []
    kills: list[tuple[float, int]] = []
    try:
        rules = {"preset": "standard", "rounds": 20, "card_seconds": 60, "call_seconds": 60}
        for i in range(args.tables):
            made = httpx.post(nginx.base + "/api/tables", json={"rules": rules, "bots": "random", "name": f"F{i}",
                                                                "play_now": True}, timeout=30).json()
            assert "table" in made, made
            seats.append(Seat(nginx.ws_base, made["table"], made["token"], random.Random(args.seed + i)))
        tasks = [asyncio.ensure_future(s.run()) for s in seats]
        await _until(lambda: all(s.live for s in seats), 60)
        for k in range(args.kills):
            await asyncio.sleep(rng.uniform(1.0, 3.0))
            victim = rng.choice(servers)
            assert victim.proc is not None
            victim.kill()
            kills.append((time.monotonic(), k))
            await _until(lambda: all(s.live for s in seats), 60)
            print(f"kill {k + 1}/{args.kills}: every table live again", flush=True)
            # started again once its tables live elsewhere, and the next kill waits until it has
            # loaded the hard bot's kernel (seconds of CPU, on the event loop's interpreter: a
            # process still starting up is slow to take tables over)
            await asyncio.to_thread(victim.start)
            await _until(lambda v=victim: "kernel is ready" in v.output(), 120)
            if args.verbose:
                t = kills[-1][0]
                print([(round(down - t, 2), round(d, 2)) for s in seats for (down, d) in s.recoveries if down >= t - 1])
        for s in seats:
            s.stop = True
    finally:
        for t in tasks:
            t.cancel()
        if args.verbose:
            print("\n".join(x for x in (nginx.dir / "error.log").read_text().splitlines() if "no live upstreams" not in x))
        nginx.stop()
        for s in servers:
            s.stop()
            if args.verbose:
                print(s.output()[-3000:])
        pg.stop()
        rd.stop()
    per_kill = []  # seconds from each kill until every table it took down was live again
    for i, (when, _) in enumerate(kills):
        until = kills[i + 1][0] if i + 1 < len(kills) else float("inf")
        ends = [down + d for s in seats for (down, d) in s.recoveries if when <= down < until]
        if ends:
            per_kill.append(max(ends) - when)
    print("\n| kills | tables | actions lost | all its tables live again: median s | max s | clients back (no reload) "
          "| reconnections refused |")
    print("|---|---|---|---|---|---|---|")
    back = sum(1 for s in seats if s.live or s.stop)
    print(f"| {len(kills)} ({len(per_kill)} took tables down) | {len(seats)} | {sum(s.lost for s in seats)} | "
          f"{statistics.median(per_kill):.2f} | {max(per_kill):.2f} | {back}/{len(seats)} | {sum(s.refused for s in seats)} |")


async def _until(cond: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise TimeoutError("the tables did not come back in time")
        await asyncio.sleep(0.05)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    t = sub.add_parser("throughput")
    t.add_argument("--tables", type=int, default=200)
    t.add_argument("--duration", type=float, default=30.0)
    t.add_argument("--think", type=float, default=0.5)
    h = sub.add_parser("hardbots")
    h.add_argument("--tables", type=int, default=100)
    h.add_argument("--duration", type=float, default=30.0)
    h.add_argument("--think", type=float, default=1.0)
    h.add_argument("--pool", type=int, default=2, help="bot processes in the second run")
    b = sub.add_parser("botqueue")
    b.add_argument("--tables", type=int, default=20)
    b.add_argument("--decisions", type=int, default=40, help="medium decisions per table")
    b.add_argument("--hard-decisions", type=int, default=12, help="hard decisions per table (4 calls, then cards)")
    b.add_argument("--workers", type=int, default=2, help="processes in the pool, and bot-worker processes")
    f = sub.add_parser("failover")
    f.add_argument("--tables", type=int, default=40)
    f.add_argument("--kills", type=int, default=20)
    f.add_argument("--lease-ttl", type=float, default=3.0)
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--verbose", action="store_true", help="print each table's time down after each kill")
    args = ap.parse_args()
    if args.what == "throughput":
        throughput(args)
    elif args.what == "hardbots":
        hardbots(args)
    elif args.what == "botqueue":
        botqueue(args)
    else:
        asyncio.run(failover_run(args))


if __name__ == "__main__":
    main()
