"""Scale-out figures: `callbreak serve` on PostgreSQL + Redis behind Debian's nginx.

Each run starts its own PostgreSQL, Redis and nginx on loopback (as the tests do:
tests/scale/services.py), then:

``throughput``  stepped load (capacity.py; the client is loadclient.py: raw WebSockets in its own
                processes) on 1 process on SQLite (the embedded default, for reference), then
                1 and 2 processes on the same PostgreSQL + Redis, each behind nginx: tables of
                2 scripted seats + 2 random bots are added step by step until a step's p99
                action->event is over ``--bound`` (50 ms); the highest step within it, side by
                side, and the ratio of actions/s; then a seats sweep on 2 processes (playing
                tables + mostly idle seats); every step with each component's CPU.
                ``--pin``: each server's event loop on a CPU of its own (CALLBREAK_PIN_CPU).
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
                that came back (the same client object: no reload, retrying with the page's
                backoff), and reconnections refused at the handshake (nginx's 502 when it holds
                every process down); ``--verbose``: each table's recovery in its phases.

    python benchmarks/scale.py throughput
    python benchmarks/scale.py throughput --configs 1,2 --steps 25,50,75,100,150,200,250 --misses 2
    python benchmarks/scale.py hardbots --tables 100 --duration 30
    python benchmarks/scale.py failover --tables 40 --kills 20
    python benchmarks/scale.py botqueue --tables 20 --workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import signal
import statistics
import subprocess
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

from tests.scale.procs import Nginx, ScaledServer, start_all  # noqa: E402
from tests.scale.services import Postgres, Redis, fresh_database, namespace  # noqa: E402

import capacity  # noqa: E402
import load  # noqa: E402
from loadclient import spawn_workers  # noqa: E402


class EmbeddedServer(ScaledServer):
    """``callbreak serve`` alone on a SQLite file (the embedded default), for reference."""

    def __init__(self, db: str, env: dict[str, str]) -> None:
        super().__init__(db, "", "unused", env)

    def launch(self) -> None:
        self.log = Path(tempfile.mkstemp(prefix="callbreak-serve-", suffix=".log")[1])
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "callbreak", "serve", "--port", str(self.port), "--db", self.pg],
                env=self.env, stdout=out, stderr=subprocess.STDOUT,
            )


#: the servers of the throughput runs: no rate limits (every seat comes from 127.0.0.1), bots at once
LOAD_ENV = {"CALLBREAK_MAX_SOCKETS_PER_IP": "0", "CALLBREAK_BETWEEN_ROUNDS": "0.5", "CALLBREAK_LEASE_TTL": "3"}


def _deployment(kind: str, pg: Postgres, rd: Redis, tmp: str, pin: bool = False) -> list[ScaledServer]:
    """The servers of a configuration; ``pin``: each one's event loop on a CPU of its own
    (``CALLBREAK_PIN_CPU``, the k-th server on the k-th CPU)."""
    def env(k: int) -> dict[str, str]:
        return {**LOAD_ENV, "CALLBREAK_PIN_CPU": "1", "CALLBREAK_PROCESS": str(k)} if pin else LOAD_ENV

    if kind == "sqlite":
        servers: list[ScaledServer] = [EmbeddedServer(f"{tmp}/load.db", env(0))]
    else:
        n = int(kind)
        url, ns = fresh_database(pg.url), namespace()
        servers = [ScaledServer(url, rd.url, ns, env(k)) for k in range(n)]
    start_all(servers)
    # the hard bot's kernel loads in a helper process at start: seconds of CPU, not the load's
    deadline = time.monotonic() + 180
    while not all("kernel is ready" in s.output() for s in servers) and time.monotonic() < deadline:
        time.sleep(0.2)
    return servers


def throughput(args: argparse.Namespace) -> None:
    """Stepped load on 1 process (SQLite, for reference), 1 and 2 processes (PostgreSQL + Redis),
    each behind nginx: the highest step within the bound, side by side; then the seats sweep."""
    steps = [int(x) for x in args.steps.split(",")]
    steps_2 = [int(x) for x in args.steps_2.split(",")] if args.steps_2 else steps
    idle_steps = [int(x) for x in args.idle_steps.split(",") if x.strip()]
    pg, rd = Postgres(), Redis()
    tmp = tempfile.mkdtemp(prefix="callbreak-throughput-")
    results: dict[str, list[capacity.Step]] = {}
    names = {"sqlite": "1 process, SQLite (embedded)", "1": "1 process, PostgreSQL + Redis",
             "2": "2 processes, PostgreSQL + Redis"}
    print(f"bound: p99 action->event <= {args.bound} ms; {args.humans} scripted seats a table (think "
          f"{args.think} s mean) + {4 - args.humans} random bots; steps of {args.warm:g} s warm-up + "
          + (f"{args.repeats} windows of {args.window:g} s (the step's p99: the median of the windows', each "
             "in brackets)" if args.repeats > 1 else f"{args.window:g} s window")
          + f"; {args.clients} client processes; CPU in % of one core "
          f"({os.cpu_count()} cores)" + ("; each server's event loop pinned to a CPU of its own" if args.pin else ""),
          flush=True)
    try:
        for kind in args.configs.split(","):
            servers = _deployment(kind, pg, rd, tmp, args.pin)
            nginx = Nginx([s.port for s in servers], limits=False, worker_connections=16384)  # every load client is 127.0.0.1
            workers = spawn_workers(nginx.base, args.clients, args.seed)
            cpu = capacity.CpuWindow({"servers": [s.proc.pid for s in servers if s.proc],
                                      "postgres": [pg.proc.pid], "redis": [rd.proc.pid], "nginx": [nginx.proc.pid]})
            print(f"\n{names[kind]}\n{capacity.HEAD}\n{capacity.RULE}", flush=True)
            try:
                results[kind] = capacity.run_steps(nginx.base, workers, cpu, steps_2 if kind == "2" else steps,
                                                   args.humans, args.think, args.warm, args.window, args.bound,
                                                   args.misses, max_other=args.max_other, repeats=args.repeats)
            finally:
                workers.stop()
                nginx.stop()
                for s in servers:
                    s.stop()
        sweep: list[capacity.Step] = []
        if args.idle_steps and "2" in results:
            top = capacity.best(results["2"], args.bound)
            active = max(steps[0], (top.tables if top else steps[0]) // 2)
            servers = _deployment("2", pg, rd, tmp, args.pin)
            nginx = Nginx([s.port for s in servers], limits=False, worker_connections=16384)  # every load client is 127.0.0.1
            workers = spawn_workers(nginx.base, args.clients, args.seed)
            cpu = capacity.CpuWindow({"servers": [s.proc.pid for s in servers if s.proc],
                                      "postgres": [pg.proc.pid], "redis": [rd.proc.pid], "nginx": [nginx.proc.pid]})
            print(f"\nseats sweep, 2 processes: {active} playing tables + idle seats (tables of 4 scripted "
                  f"players thinking {args.idle_think:g} s mean)\n{capacity.HEAD}\n{capacity.RULE}", flush=True)
            try:
                sweep = capacity.idle_sweep(nginx.base, workers, cpu, active, args.humans, args.think, idle_steps,
                                            args.idle_think, args.warm, args.window, args.bound, args.misses)
            finally:
                workers.stop()
                nginx.stop()
                for s in servers:
                    s.stop()
    finally:
        pg.stop()
        rd.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n| at p99 <= {args.bound:g} ms | highest step (tables) | connections | actions/s | p99 ms "
          "| CPU %: servers | postgres | redis | nginx | client | other | CPU µs/action: servers | client |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    tops = {k: capacity.best(v, args.bound) for k, v in results.items()}
    for kind, top in tops.items():
        if top is None:
            print(f"| {names[kind]} | none within the bound | | | | | | | | | | | |")
            continue
        c = top.cpu
        print(f"| {names[kind]} | {top.tables} | {top.connections} | {top.actions_per_s} | {top.p99_ms} "
              f"| {c['servers']:.0f} | {c['postgres']:.0f} | {c['redis']:.0f} | {c['nginx']:.0f} | {c['client']:.0f} "
              f"| {c['other']:.0f} | {top.us_per_action('servers'):.0f} | {top.us_per_action('client'):.0f} |")
    one, two = tops.get("1"), tops.get("2")
    if one and two:
        print(f"ratio of actions/s within the bound, 2 processes / 1 (PostgreSQL + Redis): "
              f"{two.actions_per_s / one.actions_per_s:.2f}")
    top = capacity.best(sweep, args.bound)
    if top is not None:
        print(f"most connected seats within the bound, 2 processes: {top.connections} "
              f"({top.tables} playing tables + {top.idle_seats} idle seats, {top.actions_per_s} actions/s, "
              f"p99 {top.p99_ms} ms)")


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
        #: per recovery: when it went down, its tries, when the try that got in began, when its
        #: handshake ended (the router's wait for the lease is in there), when it was live (synced)
        self.phases: list[dict[str, float]] = []
        self.tries = 0
        self.backoff = 0
        self.try_at = 0.0
        self.open_at = 0.0
        self.refused = 0  # reconnections refused at the handshake (nginx's 502 "no live upstreams", …)
        self.live = False
        self.stop = False

    async def run(self) -> None:
        while not self.stop:
            self.tries += 1
            self.try_at = time.monotonic()
            try:
                async with websockets.connect(self.url, max_size=2**22) as ws:
                    self.open_at = time.monotonic()
                    self.backoff = 0
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
            # the page's backoff (static/table.js, `Connection.retry`): 0.4 s, doubling to 8 s, +-25 %
            await asyncio.sleep(min(8.0, 0.4 * 2**self.backoff) * self.rng.uniform(0.75, 1.25))
            self.backoff += 1

    async def on_message(self, ws: Any, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if kind in ("synced", "snapshot"):
            if msg["v"] < self.seen:
                self.lost += self.seen - msg["v"]
            self.v = msg["v"]
            if not self.live:
                self.live = True
                if self.down_since is not None:
                    now = time.monotonic()
                    self.recoveries.append((self.down_since, now - self.down_since))
                    self.phases.append({"down": self.down_since, "tries": self.tries, "try": self.try_at,
                                        "open": self.open_at, "live": now})
                    self.down_since = None
                self.tries = 0
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
                _breakdown(kills[-1][0], seats)
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


def _breakdown(t: float, seats: list[Seat]) -> None:
    """Each table the kill at ``t`` took down, slowest first: seconds from the kill until its socket
    closed (detection), until the try that got in began (the client's retries before it), that
    try's handshake (the router's wait for the lease), and from the handshake to ``synced`` (rebuild)."""
    rows = sorted(
        ((p["live"] - t, p["down"] - t, p["try"] - p["down"], p["open"] - p["try"], p["live"] - p["open"], p["tries"])
         for s in seats for p in s.phases if p["down"] >= t - 1),
        reverse=True,
    )
    print("  total | closed after kill | retries before | handshake | to synced | tries")
    for r in rows:
        print("  " + " | ".join(f"{x:.2f}" if isinstance(x, float) else str(x) for x in r))


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
    t.add_argument("--steps", default="50,100,200,300,400,600,800", help="tables at each step (in all)")
    t.add_argument("--steps-2", default="", help="the 2-process configuration's steps (default: --steps)")
    t.add_argument("--repeats", type=int, default=1,
                   help="windows at each step; the step's p99 is the median of theirs (a stall of the shared "
                        "machine moves one window)")
    t.add_argument("--configs", default="sqlite,1,2", help="sqlite (embedded, 1 process), 1, 2: processes on PG + Redis")
    t.add_argument("--humans", type=int, default=2, help="scripted seats a table (random bots fill the rest)")
    t.add_argument("--think", type=float, default=1.0, help="a scripted seat's mean think (s)")
    t.add_argument("--warm", type=float, default=3.0, help="seconds after a step's tables joined, before its window")
    t.add_argument("--window", type=float, default=10.0, help="seconds measured at each step")
    t.add_argument("--bound", type=float, default=50.0, help="p99 action->event bound (ms)")
    t.add_argument("--clients", type=int, default=2, help="client processes")
    t.add_argument("--idle-steps", default="1000,2000,3000,4000,5000,6000",
                   help="idle seats at each step of the 2-process seats sweep ('' for none)")
    t.add_argument("--idle-think", type=float, default=45.0, help="an idle seat's mean think (s)")
    t.add_argument("--misses", type=int, default=1, help="stop a sweep after this many steps in a row over the bound")
    t.add_argument("--max-other", type=float, default=0.0,
                   help="measure a step's window again (up to 3 times) while other work on a shared machine used "
                        "more than this %% of a core (0: never)")
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--pin", action="store_true",
                   help="CALLBREAK_PIN_CPU=1: each server's event loop on a CPU of its own (the k-th server on the k-th)")
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
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a `timeout` still stops the services
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
