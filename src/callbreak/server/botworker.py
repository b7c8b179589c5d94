"""``callbreak bot-worker``: a process deciding for the bots of every table of a deployment,
fed by the bot queue on Redis (`botqueue`, `botqueue_redis`); run any number, on any host.

Each worker is one consumer of the group `botqueue.GROUP` on the request stream.  It waits in
``XREADGROUP … BLOCK`` for one request at a time, decides with the same function as the local
pool (`botpool.decide`: the same level, seed and view give the same action), publishes the
answer on the owner's channel, then ``XACK``\\ s it.  Every ``bot_claim_idle / 2`` seconds it
takes over (``XAUTOCLAIM``) the requests another worker has held unanswered for
``bot_claim_idle`` seconds (a worker killed, or stalled, mid-decision).  A request past its
deadline is acknowledged without deciding: its owner has decided it itself.
Consumers of the group idle for a long time with nothing pending are removed.

With ``--processes N`` the command starts N such processes and starts again any that dies.
"""

from __future__ import annotations

import logging
import os
import secrets
import signal
import socket
import time
from typing import Any

import msgspec
import redis
from redis.exceptions import RedisError, ResponseError

from .botpool import decide
from .botqueue import (
    GROUP,
    BotReply,
    action_text,
    decode_request,
    earlier_of,
    encode_reply,
    stream_key,
    view_of,
)
from .config import ServerConfig
from .outage import Said

__all__ = ["BotWorker", "new_enough"]

log = logging.getLogger("callbreak.botworker")

#: milliseconds one XREADGROUP waits for a request before the loop looks around (claims, stop)
BLOCK_MS = 1000
#: a consumer of the group idle this long with nothing pending is removed (seconds)
FORGET_AFTER = 600.0


class BotWorker:
    """One worker: a consumer of the bot queue of ``config.namespace`` on ``config.redis``.

    Made without a connection (`run` connects and serves until stopped):

    >>> w = BotWorker(ServerConfig(redis="redis://127.0.0.1:6379/0", namespace="cb"))
    >>> w.stream, w.decided, w.claimed, w.skipped
    ('cb:bots:q', 0, 0, 0)
    """

    def __init__(self, config: ServerConfig, say: Any = None) -> None:
        self.config = config
        self.stream = stream_key(config.namespace)
        self.name = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        self.redis = redis.Redis.from_url(config.redis, socket_timeout=BLOCK_MS / 1000 + 10)
        self.say = say or (lambda line: print(line, flush=True))
        self.stopping = False
        #: decisions made, requests taken over from another worker, requests skipped as too old
        self.decided = 0
        self.claimed = 0
        self.skipped = 0
        self._next_claim = 0.0
        self._next_forget = 0.0

    def ensure_group(self, start: str = "$") -> None:
        """The workers' group on the stream, made if missing: reading from ``start`` ("$": what
        comes next; "0": the whole stream, for a Redis that restarted and lost the group while
        tables went on asking)."""
        try:
            self.redis.xgroup_create(self.stream, GROUP, id=start, mkstream=True)
        except ResponseError as e:
            if "BUSYGROUP" not in str(e):
                raise

    def run(self) -> int:
        """Serve until SIGTERM or SIGINT (the decision in hand is finished first)."""
        signal.signal(signal.SIGTERM, self._stop)
        signal.signal(signal.SIGINT, self._stop)
        from ..bots.warmup import KERNEL
        from ..extras import missing

        if not missing("bots"):
            KERNEL.start()  # hard decisions wait for the kernel once, at the first, not per worker start
        while not self.stopping:
            try:
                version = str(self.redis.info("server").get("redis_version", "0"))
                self.ensure_group()
                break
            except (RedisError, OSError) as e:
                self.say(f"bot worker {self.name}: Redis is out of reach ({e}); trying again")
                time.sleep(1.0)
        else:
            return 0
        if not new_enough(version):
            self.say(f"bot worker {self.name}: Redis {version} is too old: the bot queue needs 6.2 or later (XAUTOCLAIM)")
            return 2
        self.say(f"bot worker {self.name}: ready (stream {self.stream}, group {GROUP})")
        said = Said(f"bot worker {self.name}: redis")  # (once as it goes, each minute, once back: not every try)
        while not self.stopping:
            try:
                self.step()
            except (RedisError, OSError) as e:
                if isinstance(e, ResponseError) and "NOGROUP" in str(e):
                    self.say(f"bot worker {self.name}: Redis lost the group {GROUP} (restarted?); making it again")
                    try:
                        self.ensure_group(start="0")
                        continue
                    except (RedisError, OSError) as again:
                        e = again
                said.failed(e)
                time.sleep(0.5)
            else:
                said.ok()
        self.say(
            f"bot worker {self.name}: stopped after {self.decided} decisions "
            f"({self.claimed} taken over, {self.skipped} past their deadline)"
        )
        return 0

    def _stop(self, signum: int, frame: object) -> None:
        self.stopping = True

    def step(self) -> None:
        """Take over what others left, then wait for one new request and answer it."""
        now = time.monotonic()
        if now >= self._next_claim:
            self._next_claim = now + self.config.bot_claim_idle / 2
            self.reclaim()
        if now >= self._next_forget:
            self._next_forget = now + 60
            self.forget_idle()
        got: Any = self.redis.xreadgroup(GROUP, self.name, {self.stream: ">"}, count=1, block=BLOCK_MS)
        for _stream, entries in got or ():
            for entry_id, fields in entries:
                self.handle(entry_id, fields, claimed=False)

    def reclaim(self) -> None:
        """Answer the requests other workers have held past ``bot_claim_idle``."""
        idle_ms = int(self.config.bot_claim_idle * 1000)
        start: Any = "0-0"
        while True:
            reply: Any = self.redis.xautoclaim(self.stream, GROUP, self.name, idle_ms, start_id=start, count=16)
            start, entries = reply[0], reply[1]
            for entry_id, fields in entries:
                if fields is None:  # trimmed from the stream meanwhile
                    continue
                self.handle(entry_id, fields, claimed=True)
            if start in (b"0-0", "0-0") or not entries:
                return

    def handle(self, entry_id: bytes | str, fields: dict[Any, Any], claimed: bool) -> None:
        raw = fields.get(b"r", fields.get("r"))
        try:
            req = decode_request(raw if raw is not None else b"")
            view = view_of(req)
            earlier = earlier_of(req)
        except (msgspec.DecodeError, msgspec.ValidationError, KeyError, TypeError, ValueError) as e:
            log.warning("bot worker %s: request %s is not one (%s); dropped", self.name, entry_id, e)
            self.redis.xack(self.stream, GROUP, entry_id)
            return
        if time.time() * 1000 > req.deadline_ms:
            self.skipped += 1
            self.redis.xack(self.stream, GROUP, entry_id)
            return
        if claimed:
            self.claimed += 1
            self.say(f"bot worker {self.name}: took over request {req.id} (table {req.table}, version {req.v})")
        action = decide(req.level, req.seed, view, earlier, req.capped)
        self.decided += 1
        # answer first, acknowledge after: a worker that dies between the two costs a second
        # answer (ignored by the owner), never a lost one
        self.redis.publish(req.reply, encode_reply(BotReply(req.id, action_text(action), self.name, claimed)))
        self.redis.xack(self.stream, GROUP, entry_id)

    def forget_idle(self, after: float = FORGET_AFTER) -> list[str]:
        """Remove the group's consumers gone for good: idle more than ``after`` seconds with
        nothing pending (a consumer holding a request keeps it until another worker takes it
        over); never this worker.  The names removed."""
        consumers: Any = self.redis.xinfo_consumers(self.stream, GROUP)
        gone = []
        for c in consumers:
            name = c["name"].decode() if isinstance(c["name"], bytes) else str(c["name"])
            if c.get("pending", 0) == 0 and c.get("idle", 0) > after * 1000 and name != self.name:
                self.redis.xgroup_delconsumer(self.stream, GROUP, name)
                gone.append(name)
        return gone


def new_enough(version: str) -> bool:
    """Whether a Redis of ``version`` has what the bot queue uses (``XAUTOCLAIM``: 6.2).

    >>> new_enough("7.0.15"), new_enough("6.2.0"), new_enough("6.0.16"), new_enough("garbage")
    (True, True, False, False)
    """
    try:
        parts = tuple(int(x) for x in version.split(".")[:2])
    except ValueError:
        return False
    return parts >= (6, 2)
