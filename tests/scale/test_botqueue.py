"""Bot decisions on bot workers fed by a queue on Redis (``callbreak serve --bot-queue redis``
and ``callbreak bot-worker``), all real processes on a real PostgreSQL and Redis: a table of
bots plays to its end on the workers' decisions, the same as the local pool's for the same
table seed, with no other seat's card in any request; a worker killed with requests pending
loses none (another takes them over); with no worker at all, the seat plays the lowest legal
action when the table's clock passes the decision's deadline."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from callbreak import Match
from callbreak.cards import Card
from callbreak.round import SeatView, lowest_action
from callbreak.server.autopilot import decision_seed
from callbreak.server.botpool import BotAsk, BotPool, decide
from callbreak.server.botqueue import GROUP, decode_request, stream_key
from callbreak.server.store_pg import PostgresStore
from callbreak.server.table import TableState

from ..server.conftest import Client, CountingMeter, cards_in, play_until
from ..server.driven import DRIVEN, drive, step
from ..server.inprocess import until
from .procs import ScaledServer

QUICK1 = {"preset": "quick", "rounds": 1}
QUEUE = {"CALLBREAK_BOT_QUEUE": "redis", "CALLBREAK_BOT_CLAIM_IDLE": "0.5", "CALLBREAK_BOT_DEADLINE": "60"}


class Worker:
    """``callbreak bot-worker --redis URL`` as a child process (its output in a file)."""

    def __init__(self, redis_url: str, ns: str) -> None:
        self.log = Path(tempfile.mkstemp(prefix="callbreak-botworker-", suffix=".log")[1])
        env = {**os.environ, "CALLBREAK_NAMESPACE": ns, "CALLBREAK_BOT_CLAIM_IDLE": "0.5"}
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "callbreak", "bot-worker", "--redis", redis_url],
                env=env, stdout=out, stderr=subprocess.STDOUT,
            )
        self.name = ""

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while "ready" not in self.output():
            assert self.proc.poll() is None, self.output()
            assert time.monotonic() < deadline, "the bot worker did not start: " + self.output()
            time.sleep(0.05)
        self.name = re.search(r"bot worker (\S+): ready", self.output()).group(1)  # type: ignore[union-attr]

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


@pytest.fixture
def procs(pg_url: str, redis_server: str, ns: str) -> Iterator[dict[str, Any]]:
    made: dict[str, Any] = {"servers": [], "workers": []}

    def worker() -> Worker:
        w = Worker(redis_server, ns)
        made["workers"].append(w)
        w.wait_ready()
        return w

    def server(env: dict[str, str] | None = None, workers: int = 0) -> tuple[ScaledServer, list[Worker]]:
        """A server and ``workers`` bot workers, started side by side."""
        s = ScaledServer(pg_url, redis_server, ns, {**QUEUE, **(env or {})})
        made["servers"].append(s)
        s.launch()
        ws = [Worker(redis_server, ns) for _ in range(workers)]
        made["workers"].extend(ws)
        s.wait_ready()
        for w in ws:
            w.wait_ready()
        return s, ws

    yield {"server": server, "worker": worker, "redis": redis.Redis.from_url(redis_server), "ns": ns, "pg": pg_url}
    for w in made["workers"]:
        w.stop()
    for s in made["servers"]:
        s.stop()


def queue_counts(server: ScaledServer) -> dict[str, float]:
    text = server.get("/metrics").text
    return {m.group(1): float(m.group(2)) for m in re.finditer(r'^callbreak_bot_queue_total\{outcome="(\w+)"\} (\S+)$', text, re.M)}


def bot_decisions(pg: str, table: str) -> tuple[TableState, list[tuple[int, int, SeatView, Any, list[set[Card]]]]]:
    """The table's log replayed: each bot decision (version, seat, the seat's view, the action
    logged, every seat's hand at that moment)."""
    store = PostgresStore(pg)
    try:
        loaded = store.load(table)
    finally:
        store.close()
    assert loaded is not None
    meta, entries = loaded
    st = TableState(meta)
    out = []
    for e in entries:
        if e.get("t") in ("call", "play") and (e.get("auto") == "autoplay" or st.seats[e["seat"]].kind == "bot"):
            assert st.match is not None
            seat = e["seat"]
            hands = [set(h) for h in st.match.round.hands]
            action = Card.parse(e["card"]) if e["t"] == "play" else e["call"]
            out.append((st.v, seat, st.match.view(seat), action, hands))
        st.apply(e)
    return st, out


async def test_a_table_of_bots_plays_on_the_workers_decisions_the_same_as_the_local_pools(procs: dict[str, Any]) -> None:
    server, (worker,) = procs["server"](workers=1)
    made = server.create(rules=QUICK1, bots="medium", name="Asha", play_now=True)
    p = Client(server, made["table"], made["token"])
    await p.connect()
    await play_until([p], lambda: p.info is not None and p.info["status"] == "over", timeout=90)
    await p.close()
    st, decisions = bot_decisions(procs["pg"], made["table"])
    assert st.status == "over" and len(decisions) >= 39  # 3 bots: 3 calls and 39 cards at least
    counts = queue_counts(server)
    # every bot decision was a worker's answer; none ran out, none came twice
    assert counts.get("answered") == len(decisions), counts
    assert counts.get("expired", 0) == counts.get("ignored", 0) == counts.get("failed", 0) == 0, counts
    # the same table seed gives the same actions in the local pool of worker processes
    pool = BotPool(1, warm=False)
    try:
        for v, seat, view, action, _ in decisions:
            ask = BotAsk(made["table"], v, seat, "medium", decision_seed(st.meta.seed, seat, v), view)
            assert await pool.decide(ask) == action, (v, seat)
    finally:
        await pool.close()
    # each request held the seat's own hand and what everyone may see: no other seat's card
    r: redis.Redis = procs["redis"]
    requests = [decode_request(f[b"r"]) for _, f in r.xrange(stream_key(procs["ns"]))]
    assert len(requests) == len(decisions)
    by_v = {(v, seat): hands for v, seat, _, _, hands in decisions}
    for req in requests:
        hands = by_v[(req.v, req.seat)]
        others = set().union(*(hands[s] for s in range(4) if s != req.seat))
        seen = cards_in(req.view)
        assert seen and not {str(c) for c in others} & seen, (req.v, req.seat)
        assert {str(c) for c in hands[req.seat]} <= seen
    assert worker.proc.poll() is None


async def test_a_worker_killed_with_requests_pending_loses_no_decision(procs: dict[str, Any]) -> None:
    server, (first,) = procs["server"](workers=1)
    made = server.create(rules=QUICK1, bots="medium", name="Asha", play_now=True)
    p = Client(server, made["table"], made["token"])
    await p.connect()
    await play_until([p], lambda: queue_counts(server).get("answered", 0) >= 4, timeout=60)
    # the worker stalls: the next request is delivered to it (it waits in XREADGROUP) and stays
    # there, unanswered; then it is killed
    r: redis.Redis = procs["redis"]
    stream = stream_key(procs["ns"])

    def pending_with_first() -> int:
        return sum(c["pending"] for c in r.xinfo_consumers(stream, GROUP) if c["name"].decode() == first.name)

    def undelivered() -> int:
        return sum(int(g["lag"] or 0) for g in r.xinfo_groups(stream))

    for _ in range(5):  # stopped between two reads (rare), it takes nothing: let it go on, stop it again
        os.kill(first.proc.pid, signal.SIGSTOP)
        await play_until([p], lambda: pending_with_first() >= 1 or undelivered() >= 1, timeout=60)
        if pending_with_first() >= 1:
            break
        os.kill(first.proc.pid, signal.SIGCONT)
        await play_until([p], lambda: undelivered() == 0, timeout=60)
    assert pending_with_first() >= 1
    os.kill(first.proc.pid, signal.SIGKILL)
    first.proc.wait(10)
    stuck = queue_counts(server).get("answered", 0)
    second = procs["worker"]()
    await play_until([p], lambda: p.info is not None and p.info["status"] == "over", timeout=90)
    await p.close()
    assert queue_counts(server).get("answered", 0) > stuck
    _, decisions = bot_decisions(procs["pg"], made["table"])
    counts = queue_counts(server)
    # the second took over what the first held (the first may have answered it just before it
    # stopped: then the second's answer is ignored)
    assert "took over request" in second.output()
    assert counts.get("reclaimed", 0) + counts.get("ignored", 0) >= 1, counts
    assert counts.get("answered") == len(decisions), counts  # each decision answered once and played once
    assert counts.get("expired", 0) == 0, counts
    # nothing left unanswered (the last answer's XACK follows its PUBLISH)
    deadline = time.monotonic() + 30
    while r.xpending(stream, GROUP)["pending"]:
        assert time.monotonic() < deadline, r.xpending(stream, GROUP)
        time.sleep(0.05)


async def test_with_no_worker_the_owner_decides_for_the_bots_after_the_deadline_then_sooner(procs: dict[str, Any]) -> None:
    """An operator's try: with every bot worker down, each bot turn waited the deadline (10 s) and
    then played its lowest legal action: the bots called 1 each. The table's own process decides
    instead, the decision a worker makes; after the first decision that runs out, each waits
    `SILENT_DEADLINE` (1 s), not the whole deadline, until a worker answers again."""
    from callbreak.server.botqueue_redis import SILENT_DEADLINE

    server, _ = procs["server"](DRIVEN | {"CALLBREAK_BOT_DEADLINE": "5"})
    made = server.create(rules={**QUICK1, "call_seconds": 30, "card_seconds": 15}, bots="medium", name="Asha", play_now=True)
    p = Client(server, made["table"], made["token"])
    await p.connect()
    await p.wait(lambda c: c.info is not None and c.state is not None)
    # the first bot turn waits for an answer that never comes: the clock moves 4.8 s, nothing is played
    await drive(server, (p,), lambda: p.state is not None and p.state["to_act"] != 0, players=(p,), seconds=0.1)
    v = p.v
    start = (await step(server, (p,), 4.8))["monotonic"]
    assert p.v == v
    await drive(server, (p,), lambda: p.info is not None and p.info["status"] == "over", players=(p,), seconds=0.25)
    took = (await step(server, (p,), 0))["monotonic"] - start
    await p.close()
    st, decisions = bot_decisions(procs["pg"], made["table"])
    bot_turns = [d for d in decisions if d[1] != 0]
    assert len(bot_turns) >= 39
    # each the bot's own decision, as a worker (or the local pool) makes it, and marked as the bot's
    for v, seat, view, action, _ in bot_turns:
        assert action == decide("medium", decision_seed(st.meta.seed, seat, v), view), (v, seat)
    assert sum(1 for *_, view, action, _ in bot_turns if action != lowest_action(view)) > 0
    store = PostgresStore(procs["pg"])
    try:
        loaded = store.load(made["table"])
    finally:
        store.close()
    assert loaded is not None
    assert {e.get("auto") for e in loaded[1] if e.get("t") in ("call", "play") and e["seat"] != 0} == {None}
    counts = queue_counts(server)
    assert counts.get("expired") == len(bot_turns) and counts.get("answered", 0) == 0, counts
    # the first waited the whole deadline, the others a bot's delay and the silent deadline each
    # (the whole deadline each would be over 5 s a turn)
    delay = float(DRIVEN["CALLBREAK_BOT_DELAY"])
    assert took < 0.3 + len(bot_turns) * (delay + SILENT_DEADLINE + 0.3) + 15, (took, len(bot_turns))
    # said once, not at each of the decisions (an operator's log: 20 lines in 15 s for one table)
    lost = [ln for ln in server.output().splitlines() if "no bot worker answered" in ln]
    assert len(lost) == 1 and "bot queue: the bot workers' answers: lost (" in lost[0], lost
    # and the start's banner says the same (an operator's try: it said that with no worker a bot's
    # turn played the lowest legal action after the deadline)
    (banner,) = [ln for ln in server.output().splitlines() if "bots decide on the bot workers" in ln]
    assert "each table's process decides its bots itself, after 5 s the first time and 1 s each after" in banner
    assert "lowest" not in banner


async def test_a_worker_that_answers_again_ends_the_short_wait(ns: str, redis_server: str) -> None:
    """The other half: a decision run out makes the queue wait `SILENT_DEADLINE` only; a worker's
    answer makes it wait the whole deadline again (busy workers keep their time)."""
    from callbreak.server.botqueue_redis import SILENT_DEADLINE, RedisBotQueue
    from callbreak.server.clock import ManualClock
    from callbreak.server.config import ServerConfig

    clock = ManualClock()
    meter = CountingMeter()
    q = RedisBotQueue(ServerConfig(redis=redis_server, namespace=ns, bot_deadline=5.0), clock, lambda: meter)
    m = Match(seed=5)
    seat = m.to_act
    assert seat is not None
    ask = BotAsk("t1", 0, seat, "medium", 7, m.view(seat))
    worker = None
    try:
        await q.start()
        first = asyncio.ensure_future(q.decide(ask))
        await until(lambda: q.waiting == 1)
        clock.advance(4.9)
        assert q.waiting == 1 and not q.silent  # (still waiting: its deadline is 5 s)
        clock.advance(0.2)
        assert await first is None and q.silent
        second = asyncio.ensure_future(q.decide(ask))
        await until(lambda: q.waiting == 1)
        clock.advance(SILENT_DEADLINE + 0.01)
        assert await second is None
        worker = Worker(redis_server, ns)  # a worker back (the table's clock stands still meanwhile)
        worker.wait_ready()
        got = await asyncio.wait_for(q.decide(ask), 60)
        assert got == decide("medium", 7, m.view(seat)) and not q.silent
        assert meter.outcomes.count("expired") == 2 and "answered" in meter.outcomes, meter.outcomes
    finally:
        await q.close()
        if worker is not None:
            worker.stop()


def test_a_worker_answers_a_request_skips_one_past_its_deadline_and_drops_one_that_is_not_one(
    redis_server: str, ns: str
) -> None:
    from callbreak import Match
    from callbreak.server.botpool import decide
    from callbreak.server.botqueue import decode_reply, encode_request, request_of
    from callbreak.server.botworker import BotWorker
    from callbreak.server.config import ServerConfig

    lines: list[str] = []
    w = BotWorker(ServerConfig(redis=redis_server, namespace=ns), say=lines.append)
    w.ensure_group()
    r = redis.Redis.from_url(redis_server)
    ps = r.pubsub(ignore_subscribe_messages=True)
    ps.subscribe(f"{ns}:answers")
    assert ps.get_message(timeout=5) is None  # (the subscription's confirmation)
    m = Match(seed=2)
    ask = BotAsk("t", 0, m.to_act, "medium", 99, m.view(m.to_act))
    now = int(time.time() * 1000)
    stream = stream_key(ns)
    r.xadd(stream, {"r": b"not a request"})
    r.xadd(stream, {"r": encode_request(request_of(ask, f"{ns}:answers", "o:1", now - 1))})
    r.xadd(stream, {"r": encode_request(request_of(ask, f"{ns}:answers", "o:2", now + 60_000))})
    for _ in range(3):
        w.step()
    msg = ps.get_message(timeout=10)
    assert msg is not None
    rep = decode_reply(msg["data"])
    assert (rep.id, rep.action, rep.worker, rep.claimed) == ("o:2", decide("medium", 99, ask.view), w.name, False)
    assert ps.get_message(timeout=0.2) is None  # one answer only
    assert (w.decided, w.skipped) == (1, 1)
    assert r.xpending(stream, GROUP)["pending"] == 0  # all three acknowledged
    ps.close()


def test_a_worker_forgets_consumers_gone_for_good_and_keeps_one_holding_a_request(redis_server: str, ns: str) -> None:
    from callbreak.server.botworker import FORGET_AFTER, BotWorker
    from callbreak.server.config import ServerConfig

    w = BotWorker(ServerConfig(redis=redis_server, namespace=ns), say=lambda line: None)
    w.ensure_group()
    r = redis.Redis.from_url(redis_server)
    stream = stream_key(ns)
    r.xadd(stream, {"r": b"a request"})
    r.xreadgroup(GROUP, "died-holding-a-request", {stream: ">"}, count=1)
    r.xgroup_createconsumer(stream, GROUP, "died-with-nothing")
    r.xgroup_createconsumer(stream, GROUP, w.name)

    def consumers() -> dict[str, tuple[int, int]]:
        """name: (pending, idle ms)"""
        return {c["name"].decode(): (c["pending"], c["idle"]) for c in r.xinfo_consumers(stream, GROUP)}

    assert set(consumers()) == {"died-holding-a-request", "died-with-nothing", w.name}
    # the default (10 minutes) forgets none of them: they were all seen a moment ago
    assert w.forget_idle() == [] and FORGET_AFTER == 600.0
    deadline = time.monotonic() + 10
    while min(idle for _, idle in consumers().values()) < 5:  # every one idle past the 1 ms used below
        assert time.monotonic() < deadline
        time.sleep(0.002)
    assert w.forget_idle(after=0.001) == ["died-with-nothing"]
    # the one holding a request keeps it (another worker takes it over); this worker stays
    assert consumers().keys() == {"died-holding-a-request", w.name}
    assert consumers()["died-holding-a-request"][0] == 1


async def test_the_owner_joins_its_answers_channel_again_after_losing_it(procs: dict[str, Any]) -> None:
    from callbreak.server.botqueue_redis import ANSWERS_CLIENT

    server, _ = procs["server"]({"CALLBREAK_BOT_DEADLINE": "5"}, workers=1)
    made = server.create(rules=QUICK1, bots="medium", name="Asha", play_now=True)
    p = Client(server, made["table"], made["token"])
    await p.connect()
    await play_until([p], lambda: queue_counts(server).get("answered", 0) >= 4, timeout=60)
    r: redis.Redis = procs["redis"]
    # Redis drops the owner's subscription to its answers' channel (as when Redis restarts)
    subscribed = [c for c in r.client_list() if c.get("name") == ANSWERS_CLIENT and int(c.get("sub", 0)) > 0]
    assert len(subscribed) == 1, r.client_list()
    r.client_kill_filter(_id=subscribed[0]["id"])
    at_kill = queue_counts(server).get("answered", 0)
    await play_until([p], lambda: p.info is not None and p.info["status"] == "over", timeout=120)
    await p.close()
    assert "bot queue: the answers' channel: lost (" in server.output()
    assert "bot queue: the answers' channel: back after" in server.output()  # (said once it is back)
    again = [c for c in r.client_list() if c.get("name") == ANSWERS_CLIENT and int(c.get("sub", 0)) > 0]
    assert len(again) == 1 and again[0]["id"] != subscribed[0]["id"], again
    _, decisions = bot_decisions(procs["pg"], made["table"])
    counts = queue_counts(server)
    # the workers' answers reach the owner again; at most the one in flight at the cut was lost
    # (its seat played the lowest legal action at the deadline)
    assert counts.get("answered", 0) >= at_kill + 10, (at_kill, counts)
    assert counts.get("expired", 0) <= 1 and counts.get("answered", 0) + counts.get("expired", 0) == len(decisions), counts


def test_a_worker_that_loses_redis_says_so_once_and_once_back(ns: str) -> None:
    """An operator's try: the worker wrote a line at each try (every half second) while Redis was away."""
    from .procs import until
    from .services import Redis

    own = Redis()
    worker = Worker(own.url, ns)
    try:
        worker.wait_ready()
        own.stop()
        until(lambda: f"bot worker {worker.name}: redis: lost (" in worker.output(), 60, worker.output)
        own.start()
        until(lambda: f"bot worker {worker.name}: redis: back after" in worker.output(), 60, worker.output)
        tries = int(re.search(r"redis: back after [\d.]+ s \((\d+) failed tries\)", worker.output()).group(1))  # type: ignore[union-attr]
        lines = [ln for ln in worker.output().splitlines() if f"bot worker {worker.name}: redis" in ln]
        assert tries >= 1 and len(lines) == 2, (tries, lines)  # however many tries failed, two lines said it
        assert worker.proc.poll() is None
    finally:
        worker.stop()
        own.stop()


async def test_a_decision_waits_out_a_quick_restart_of_redis(ns: str) -> None:
    """An operator's try: Redis restarted in a second, and the bot decision then in flight was
    played at once as the lowest legal action (`outcome="failed"`). It is asked again until Redis
    takes it, and the worker's answer is played. The table's clock stands still: no deadline."""
    from callbreak.bots import make_bot
    from callbreak.server.botqueue_redis import RedisBotQueue
    from callbreak.server.clock import ManualClock
    from callbreak.server.config import ServerConfig

    from .services import Redis

    own = Redis()
    worker = Worker(own.url, ns)
    meter = CountingMeter()
    q = RedisBotQueue(ServerConfig(redis=own.url, namespace=ns), ManualClock(), lambda: meter)
    m = Match(seed=5)
    seat = m.to_act
    assert seat is not None
    try:
        worker.wait_ready()
        await q.start()
        own.stop()
        asked = asyncio.ensure_future(q.decide(BotAsk("t1", 0, seat, "medium", 7, m.view(seat))))
        await until(lambda: q._asking.failures >= 2)  # refused, and asked again
        assert not asked.done()
        own.start()
        got = await asyncio.wait_for(asked, 60)
        assert got == make_bot("medium", seed=7).act(m.view(seat))  # the worker's own answer
        assert meter.outcomes == ["answered"], meter.outcomes
    finally:
        await q.close()
        worker.stop()
        own.stop()
