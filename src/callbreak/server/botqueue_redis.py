"""The table owner's end of the bot queue on Redis (``--bot-queue redis``): `Deciders` whose
decisions are made by ``callbreak bot-worker`` processes on any host.

Why Redis streams with a consumer group, and not a task library: one round trip each way
and no broker of its own.  The owner ``XADD``\\ s a request (`botqueue.BotRequest`: only
what the seat may see) to the deployment's stream, trimmed to ``bot_queue_max`` entries; the
workers, blocked in ``XREADGROUP``, get it at once, one request each, decide, ``PUBLISH``
the answer on this process's reply channel and ``XACK``.  A request left unanswered by a
worker that died or stalls is taken over by another (``XAUTOCLAIM`` after
``bot_claim_idle`` seconds: `callbreak.server.botworker`).

The owner waits for an answer until ``bot_deadline`` seconds on the table's clock (the
`ManualClock` in tests), then gives up and decides itself (`Autopilot`: the same bot, in a thread
of the table's process, at most `LOCAL_AT_ONCE` at a time; a hard seat as medium until this
process has loaded the hard bot's kernel); while no worker has answered in time since a decision
ran out, it waits ``SILENT_DEADLINE`` seconds only (the workers down: a bot's turn is not 10 s
each), and the request says so (a worker skips it past then: never decided twice).  A request Redis
does not take is asked again every ``ASK_AGAIN`` seconds until then (Redis restarting: a decision
waits it out).  An answer is used once, by the decision still waiting for it (a second answer
to the same request, or one after the deadline, is ignored), and the table uses it only if
it is still at the version it asked at (`Autopilot`): nothing is played twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable

import msgspec
import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

from ..cards import Card
from .botpool import BotAsk
from .botqueue import GROUP, action_of, decode_reply, encode_request, reply_channel, request_of, stream_key
from .clock import Clock, Handle
from .config import ServerConfig
from .meter import Meter
from .outage import Said

__all__ = ["ANSWERS_CLIENT", "RedisBotQueue", "ensure_group"]

log = logging.getLogger("callbreak.server")

#: the Redis client name of a table owner's bot-queue connections (the answers' channel among them)
ANSWERS_CLIENT = "callbreak-bot-answers"

#: seconds between two readings of the queue's depth (for the metrics)
DEPTH_EVERY = 1.0
#: seconds between two tries of a request Redis did not take (until the decision's deadline)
ASK_AGAIN = 0.25
#: the deadline (seconds, at most ``bot_deadline``) of a decision asked while the workers are
#: silent: no answer since a decision ran out
SILENT_DEADLINE = 1.0


async def ensure_group(r: aioredis.Redis, stream: str) -> None:
    """The workers' consumer group on ``stream`` (made with the stream if missing)."""
    try:
        await r.xgroup_create(stream, GROUP, id="$", mkstream=True)
    except ResponseError as e:
        if "BUSYGROUP" not in str(e):
            raise


class RedisBotQueue:
    """`Deciders` over the Redis at ``config.redis``; timers on ``clock``; counts on ``meter()``.

    Made without a connection (`start` connects):

    >>> from callbreak.server.clock import ManualClock
    >>> from callbreak.server.meter import Meter
    >>> q = RedisBotQueue(ServerConfig(redis="redis://127.0.0.1:6379/0", namespace="cb"), ManualClock(), Meter)
    >>> q.stream, q.channel.startswith("cb:bots:r:"), q.waiting
    ('cb:bots:q', True, 0)
    """

    def __init__(self, config: ServerConfig, clock: Clock, meter: Callable[[], Meter]) -> None:
        self.url = config.redis
        self.deadline = config.bot_deadline
        self.maxlen = config.bot_queue_max
        self.stream = stream_key(config.namespace)
        self.me = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        self.channel = reply_channel(config.namespace, self.me)
        self.clock = clock
        self.meter = meter
        # named, so that an operator (or a test) tells its connections apart in CLIENT LIST
        self.redis: aioredis.Redis = aioredis.Redis.from_url(self.url, client_name=ANSWERS_CLIENT)
        self._pubsub: aioredis.client.PubSub | None = None
        self._ids = itertools.count(1)
        self._waiting: dict[str, asyncio.Future[int | Card | None]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        # (said once as Redis goes, each minute while away, once back: not at every bot's decision)
        self._asking = Said(
            "bot queue: asking the bot workers (asked again until each decision's deadline, then this "
            "process decides)"
        )
        #: no worker has answered since a decision ran out: decisions wait `SILENT_DEADLINE` only
        self.silent = False
        #: the requests Redis refused and has not taken since (at their deadline: `failed`, not `expired`)
        self._refused: set[str] = set()
        self._answered = Said("bot queue: the bot workers' answers")

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @property
    def remote(self) -> bool:
        """Yes: the bot workers decide (a decision they leave unanswered is made by this process)."""
        return True

    async def start(self) -> None:
        await ensure_group(self.redis, self.stream)
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(self.channel)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._reader()), loop.create_task(self._depth())]

    async def decide(self, ask: BotAsk) -> int | Card | None:
        rid = f"{self.me}:{next(self._ids)}"
        fut: asyncio.Future[int | Card | None] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = fut
        deadline = min(self.deadline, SILENT_DEADLINE) if self.silent else self.deadline
        timer: Handle = self.clock.call_later(deadline, self._expire, rid, ask)
        try:
            # (stamped with the deadline it has: a worker skips it past then, and so never decides
            # what this process has decided itself meanwhile)
            req = request_of(ask, self.channel, rid, int((time.time() + deadline) * 1000))
            while not fut.done():  # (done: the deadline passed with Redis away, `_expire`)
                try:
                    await self.redis.xadd(self.stream, {"r": encode_request(req)}, maxlen=self.maxlen, approximate=True)
                except (RedisError, OSError) as e:
                    # asked again until the deadline (an operator's try: Redis restarted in a second,
                    # and each bot decision then in flight was given up)
                    self._asking.failed(e)
                    self._refused.add(rid)
                    await asyncio.sleep(ASK_AGAIN)
                else:
                    self._refused.discard(rid)
                    self._asking.ok()
                    break
            return await fut
        finally:
            timer.cancel()
            self._waiting.pop(rid, None)
            self._refused.discard(rid)

    def _expire(self, rid: str, ask: BotAsk) -> None:
        fut = self._waiting.pop(rid, None)
        if fut is None or fut.done():
            return
        self.silent = True  # (the next decisions wait less, until a worker answers)
        if rid in self._refused:
            # never asked: Redis was away all along (said by `_asking`)
            self.meter().bot_queue("failed")
        else:
            # (said once as the workers stop answering, each minute, once they answer again: with no
            # worker running, every bot decision of every table expires)
            self._answered.failed(TimeoutError(
                f"no bot worker answered seat {ask.seat} of table {ask.table} at version {ask.v} in "
                f"{self.deadline:g} s; this process decides for the bots meanwhile (after {SILENT_DEADLINE:g} s"
                " each, until a worker answers)"
            ))  # fmt: skip
            self.meter().bot_queue("expired")
        fut.set_result(None)

    def _answer(self, raw: bytes | str) -> None:
        try:
            rep = decode_reply(raw)
        except (msgspec.DecodeError, msgspec.ValidationError) as e:
            log.warning("bot queue: an answer that is not one (%s)", e)
            return
        fut = self._waiting.pop(rep.id, None)
        if fut is None or fut.done():  # a second answer to one request, or one after the deadline
            self.meter().bot_queue("ignored")
            return
        self.silent = False  # (a worker answers in time: the decisions wait for the workers again)
        self.meter().bot_queue("answered")
        self._answered.ok()
        if rep.claimed:
            self.meter().bot_queue("reclaimed")
        fut.set_result(action_of(rep))

    async def _reader(self) -> None:
        ps = self._pubsub
        assert ps is not None
        said = Said("bot queue: the answers' channel")  # (its losses said once, and its return)
        while True:
            try:
                msg = await ps.get_message(ignore_subscribe_messages=True, timeout=None)
            except (RedisError, OSError) as e:
                # what was in flight is lost: those decisions end at their deadline
                said.failed(e)
                await asyncio.sleep(0.2)
                continue
            said.ok()
            if msg is not None and msg["type"] == "message":
                self._answer(msg["data"])

    async def _depth(self) -> None:
        """The requests in the stream not answered yet (waiting for a worker, or with one)."""
        while True:
            await asyncio.sleep(DEPTH_EVERY)
            try:
                groups = await self.redis.xinfo_groups(self.stream)
            except (RedisError, OSError):
                continue
            for g in groups:
                name = g.get("name")
                if name in (GROUP, GROUP.encode()):
                    lag = g.get("lag")
                    self.meter().bot_queue_depth(int(g.get("pending") or 0) + int(lag or 0))

    async def close(self) -> None:
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                await t
        for fut in self._waiting.values():
            if not fut.done():
                fut.set_result(None)
        self._waiting.clear()
        if self._pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                # typed as a callable: redis-py annotates `PubSub.aclose` from 8.2 on, not before
                close: Callable[[], Awaitable[None]] = self._pubsub.aclose
                await close()
        with contextlib.suppress(RedisError, OSError):
            await self.redis.aclose()
