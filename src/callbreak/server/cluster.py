"""Many `callbreak serve` processes, one owner per live table: leases in Redis, and forwarding.

Each process has an id and a liveness key in Redis (``alive:<id>``, renewed every third of
``lease_ttl``).  A table's lease (``lease:<table>``) names the process that runs it: its
timers, its bots, its commits.  The lease is held while its holder is alive; a process that
asks for a table whose holder's liveness key has expired takes the lease (a Lua script: read,
check, set in one step), rebuilds the table from the store's log and runs it from there.  So
a process killed with ``kill -9`` hands its tables on ``lease_ttl`` seconds later, and its
players reconnect and catch up from the log.  Two owners can never both commit entry N of a
table (the store's unique key); an owner that finds its lease taken drops its copy.

A request that lands on a process that does not own its table is forwarded to the owner over
Redis (`RedisBroker`, one channel per process), where it runs through the owner's own ASGI
app: an HTTP request as a whole, a WebSocket as a tunnel (each client message to the owner,
each frame back, in order).  A tunnelled connection is a connection like any other at the
owner, so presence, turn timers, catch-up and rate limits are exactly those of one process.
When the owner dies the tunnel is closed (1012, "service restart") and the client reconnects.

`Cluster` holds the leases and tunnels; `router.ClusterRouter` is the ASGI middleware that routes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import orjson
import redis
import redis.asyncio as aioredis
from redis.exceptions import RedisError
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect

from .broker_redis import RedisBroker
from .config import redacted
from .outage import Said
from .store import StoreUnavailable
from .transport import handshake, offered_subprotocols

if TYPE_CHECKING:
    from .hub import Hub

__all__ = ["REDIS_GRACE", "Cluster", "creates_table", "reach_redis"]

#: the most seconds Redis may fail a request's every try, in a row, before the request is answered
#: "try again" (`Cluster.grace`: the lease's time, at most this)
REDIS_GRACE = 5.0

log = logging.getLogger("callbreak.server")

#: KEYS: leases; ARGV: me, the liveness key prefix, a lease's expiry (ms). Each lease becomes
#: ours if it was free, ours (renewed), or its holder is dead (moved). In one call for many
#: (a renewal: one command and one small answer, not one of each per table). Returns, flat,
#: {index, owner, moved} of each lease not simply renewed: nothing when every lease was ours.
_ACQUIRE_MANY = """
local out = {}
for i, key in ipairs(KEYS) do
  local cur = redis.call('GET', key)
  if cur == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[3])
  elseif cur and redis.call('EXISTS', ARGV[2] .. cur) == 1 then
    out[#out + 1] = i; out[#out + 1] = cur; out[#out + 1] = 0
  else
    redis.call('SET', key, ARGV[1], 'PX', ARGV[3])
    out[#out + 1] = i; out[#out + 1] = ARGV[1]; out[#out + 1] = cur and 1 or 0
  end
end
return out
"""

#: KEYS[1] the lease; ARGV[1] me: delete it if it is ours
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

def creates_table(method: str, path: str) -> bool:
    """Whether a request makes a new table (which its process then lets go: `Cluster.let_go`).

    >>> creates_table("POST", "/api/tables"), creates_table("POST", "/api/tables/abc/rematch"), creates_table("GET", "/api/tables")
    (True, True, False)
    >>> creates_table("POST", "/api/tables/abc/practice")
    True
    """
    return method == "POST" and (
        path == "/api/tables" or (path.startswith("/api/tables/") and path.endswith(("/rematch", "/practice")))
    )


class _Tunnel:
    """The owner's end of a forwarded WebSocket: the ASGI ``receive`` and ``send`` of the app."""

    def __init__(self, cluster: Cluster, tid: str, origin: str) -> None:
        self.cluster = cluster
        self.id = tid
        self.origin = origin
        self.inbox: asyncio.Queue[Message] = asyncio.Queue()
        self.inbox.put_nowait({"type": "websocket.connect"})
        self.done = False
        #: `transport.ExposeAbort` finds ``send.__self__.transport.abort``
        self.transport = self

    async def receive(self) -> Message:
        return await self.inbox.get()

    async def send(self, message: Message) -> None:
        if self.done:
            raise RuntimeError("the tunnel is closed")
        kind = message["type"]
        if kind == "websocket.accept":
            self.cluster.tell(self.origin, {"k": "acc", "id": self.id, "o": self.cluster.me})
        elif kind == "websocket.send":
            text = message.get("text")
            if text is None:
                text = bytes(message.get("bytes") or b"").decode("utf-8", "replace")
            self.cluster.tell(self.origin, {"k": "f", "id": self.id, "t": text})
        elif kind == "websocket.close":
            self.cluster.tell(
                self.origin, {"k": "cls", "id": self.id, "code": message.get("code", 1000), "r": message.get("reason", "")}
            )
            self.end()

    def abort(self) -> None:
        self.cluster.tell(self.origin, {"k": "abort", "id": self.id})
        self.end()

    def end(self) -> None:
        """The socket is over: the app's next ``receive`` is the disconnect."""
        if not self.done:
            self.done = True
            self.inbox.put_nowait({"type": "websocket.disconnect", "code": 1006})


def reach_redis(url: str) -> None:
    """Ping the Redis at ``url`` once (a process starting up); a RuntimeError says what is
    wrong, its password never shown.

    >>> reach_redis("redis://:pw@127.0.0.1:1/0")
    Traceback (most recent call last):
    ...
    RuntimeError: cannot reach Redis at redis://:***@127.0.0.1:1/0: Error 111 connecting to 127.0.0.1:1. Connection refused.
    """
    client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
    try:
        client.ping()
    except (RedisError, OSError) as e:
        raise RuntimeError(f"cannot reach Redis at {redacted(url)}: {e}") from None
    finally:
        client.close()


class Cluster:
    """This process's place among the others: its leases, its forwarded requests and tunnels.

    Made without a connection (it joins when the app starts; tests/scale run it on real Redis):

    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> cluster = Cluster(hub, "redis://127.0.0.1:6379/0", namespace="cb", lease_ttl=3.0)
    >>> cluster.joined(), cluster.owned, cluster.moves
    (False, set(), 0)
    >>> hub.store.close(); hub.hints.close()
    """

    def __init__(self, hub: Hub, redis_url: str, namespace: str = "callbreak", lease_ttl: float = 3.0) -> None:
        self.hub = hub
        self.app: ASGIApp | None = None
        self.ns = namespace
        self.ttl = lease_ttl
        self.me = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        self.redis: aioredis.Redis = aioredis.Redis.from_url(redis_url)
        self.broker = RedisBroker(redis_url, prefix=f"{namespace}:", on_lost=self._lost)
        #: tables whose lease this process holds
        self.owned: set[str] = set()
        self._route_said = Said("cluster: redis, finding a table's process")
        #: owned tables found not loaded by the last renewal
        self._gone: set[str] = set()
        #: replies and frames awaited by requests and tunnels that started here
        self._waiting: dict[str, asyncio.Queue[dict[str, Any]]] = {}
        self._waiting_owner: dict[str, str] = {}
        #: tunnels into this process's app (the owner's ends)
        self._tunnels: dict[str, _Tunnel] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._renewer: asyncio.Task[None] | None = None
        self._acquire_many: Any = None
        self._release: Any = None
        self.ready = False
        self._beaten = -math.inf  # (time.monotonic() of the last renewal of the liveness key)
        #: counters for the metrics: leases taken from a dead process, tables dropped
        self.moves = 0
        self.on_move: Callable[[], None] | None = None

    def joined(self) -> bool:
        """Whether this process is serving with the others: it joined, and its liveness key was
        last renewed within its time to live (a Redis that stopped answering makes it not ready,
        as its leases run out: a load balancer's readiness check then sends players elsewhere)."""
        return self.ready and time.monotonic() - self._beaten < self.ttl

    def cut_off(self) -> bool:
        """Whether this process has lost Redis: joined once, and its liveness key not renewed for
        twice its time to live (its leases surely lapsed; a loop late by less, on a busy host,
        is not taken for it).

        >>> from callbreak.server import create_app
        >>> from callbreak.server.config import ServerConfig
        >>> hub = create_app(ServerConfig(db=":memory:")).state.hub
        >>> c = Cluster(hub, "redis://127.0.0.1:6379/0", lease_ttl=3.0)
        >>> c.cut_off()   # (not joined yet: nothing to lose)
        False
        >>> c.ready, c._beaten = True, time.monotonic() - 7.0
        >>> c.cut_off(), c.joined()
        (True, False)
        >>> hub.store.close(); hub.hints.close()
        """
        return self.ready and time.monotonic() - self._beaten > 2 * self.ttl

    def key(self, *parts: str) -> str:
        return ":".join((self.ns, *parts))

    # --- lifecycle -------------------------------------------------------------------
    async def start(self) -> None:
        self._acquire_many = self.redis.register_script(_ACQUIRE_MANY)
        self._release = self.redis.register_script(_RELEASE)
        self.on_move = self.hub.meter.move
        self.hub.sweeps_store = False
        self.hub.let_go = self.let_go_table
        self.hub.reachable = self.joined
        await self._beat()
        await self.broker.start()
        await self.broker.join(f"p/{self.me}", self._on_message)
        self._renewer = asyncio.get_running_loop().create_task(self._renew_loop())
        self.ready = True

    async def stop(self) -> None:
        """Hand every lease back (a restart: the others take the tables at once), once every
        entry accepted here is committed (the next owner loads it from the store)."""
        self.ready = False
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
        for t in list(self._tunnels.values()):
            t.end()
        if self.hub.write_behind is not None:
            self.hub.write_behind.flush()  # on the loop: blocks until each entry is answered
        if self.owned:
            log.info("cluster: stopping: handing back the leases of %d table(s) to the other processes", len(self.owned))
        with contextlib.suppress(RedisError, OSError):  # (unreachable: the leases expire in lease_ttl)
            for tid in list(self.owned):
                await self._release(keys=[self.key("lease", tid)], args=[self.me])
            await self.redis.delete(self.key("alive", self.me))
        self.owned.clear()
        for task in list(self._tasks):
            task.cancel()
        await self.broker.close()
        with contextlib.suppress(RedisError, OSError):
            await self.redis.aclose()

    async def _beat(self) -> None:
        await self.redis.set(self.key("alive", self.me), "1", px=int(self.ttl * 1000))
        self._beaten = time.monotonic()

    async def _renew_loop(self) -> None:
        loop = asyncio.get_running_loop()
        said = Said("cluster: redis")  # (its losses said once, and its return)
        next_sweep = loop.time() + self.hub.config.sweep_every
        while True:
            await asyncio.sleep(self.ttl / 3)
            try:
                await self._beat()
                await self._renew()
                await self._watch()
                if loop.time() >= next_sweep:
                    next_sweep = loop.time() + self.hub.config.sweep_every
                    await self._sweep_stored()
                said.ok()
                self._route_said.ok()  # (Redis answers: an outage the requests met is over too, asked or not)
            except (RedisError, OSError) as e:
                said.failed(e)
            except StoreUnavailable:  # (the store's `Outage` says so in the log): the next round comes
                pass
            except Exception:  # the next round still comes
                log.exception("cluster: renewal failed")

    async def _renew(self) -> None:
        """Keep the leases of the tables loaded here; hand back those unloaded; drop a copy
        whose lease another process holds."""
        hub = self.hub
        gone = self.owned - set(hub.tables)
        # unloaded for a whole round (not between a lease taken and the table loaded): hand it back
        for tid in gone & self._gone:
            await self._release(keys=[self.key("lease", tid)], args=[self.me])
            self.owned.discard(tid)
        self._gone = gone - self._gone
        loaded = list(hub.tables)
        for tid, owner in zip(loaded, await self.acquire_many(loaded)):
            if owner != self.me:
                log.warning("table %s: owned by %s now; dropping this copy", tid, owner)
                hub._unload(tid)

    async def _sweep_stored(self) -> None:
        """Expire or abandon the stale stored tables (`Hub.sweep` leaves them to the cluster),
        each only once its lease is ours: a table that a living process runs (a player there
        thinking without a turn timer, say) is that process's to close, never this one's."""
        hub = self.hub
        for tid in hub.stale_stored(hub.clock.time()):
            if await self.acquire(tid) == self.me and tid not in hub.tables:
                hub.close_stale(tid)

    async def _watch(self) -> None:
        """End the tunnels whose other end's process is dead."""
        peers = {self._waiting_owner[i] for i in self._waiting if i in self._waiting_owner}
        peers |= {t.origin for t in self._tunnels.values()}
        if not peers:
            return
        order = sorted(peers)
        alive = await self.redis.exists(*[self.key("alive", p) for p in order]) if len(order) == 1 else None
        dead: set[str] = set()
        if alive is not None:
            if not alive:
                dead.add(order[0])
        else:
            pipe = self.redis.pipeline(transaction=False)
            for p in order:
                pipe.exists(self.key("alive", p))
            for p, n in zip(order, await pipe.execute()):
                if not n:
                    dead.add(p)
        for i, owner in list(self._waiting_owner.items()):
            if owner in dead and i in self._waiting:
                self._waiting[i].put_nowait({"k": "dead"})
        for t in list(self._tunnels.values()):
            if t.origin in dead:
                t.end()

    def _lost(self) -> None:
        """Redis lost messages: every tunnel's order is broken; end them (clients reconnect)."""
        for q in self._waiting.values():
            q.put_nowait({"k": "dead"})
        for t in list(self._tunnels.values()):
            t.end()

    # --- leases ----------------------------------------------------------------------
    async def acquire(self, tid: str) -> str:
        """The process that owns ``tid`` now: this one if the lease was free, ours, or its
        holder's liveness key has expired."""
        return (await self.acquire_many([tid]))[0]

    async def acquire_many(self, tids: list[str]) -> list[str]:
        """`acquire` of every table of ``tids`` in one script call (a renewal of this process's
        leases: one command and, when every lease was ours, an empty answer; not one command,
        one answer to parse and one wake-up of the loop per table)."""
        if not tids:
            return []
        answer = await self._acquire_many(keys=[self.key("lease", tid) for tid in tids], args=self._lease_args())
        owners: list[bytes | str] = [self.me] * len(tids)
        moved = [0] * len(tids)
        for j in range(0, len(answer), 3):
            i = int(answer[j]) - 1
            owners[i] = answer[j + 1]
            moved[i] = int(answer[j + 2])
        return [self._took(tid, owner, m) for tid, owner, m in zip(tids, owners, moved, strict=True)]

    def _lease_args(self) -> list[str | int]:
        return [self.me, self.key("alive", ""), int(self.ttl * 10_000)]

    def _took(self, tid: str, owner_raw: bytes | str, moved: int) -> str:
        """What the lease script answered for ``tid``: this process's record of it updated."""
        owner = owner_raw.decode() if isinstance(owner_raw, bytes) else str(owner_raw)
        if owner == self.me and tid not in self.owned:
            copy = self.hub.tables.get(tid)
            if copy is not None:
                # a copy loaded here before the lease was ours may be behind the log: rebuild it
                # (once the copy's own entries on their way to the store are there); a store that
                # does not answer cannot say: the copy goes (loaded again when asked for)
                try:
                    if self.hub.write_behind is not None:
                        self.hub.write_behind.wait(tid)
                    stored = self.hub.store.load(tid)
                except StoreUnavailable:
                    stored = None
                if stored is None or len(stored[1]) != copy.state.entries:
                    self.hub._unload(tid)
            self.owned.add(tid)
            if moved:
                log.info("table %s: taken over (no process held its lease: the one that ran it is gone, or Redis lost its keys)", tid)
                self.moves += 1
                if self.on_move is not None:
                    self.on_move()
        elif owner != self.me and tid in self.owned:
            self.owned.discard(tid)
        return owner

    # --- messages between processes ----------------------------------------------------
    def tell(self, proc: str, msg: dict[str, Any]) -> None:
        self.broker.publish(f"p/{proc}", orjson.dumps(msg).decode())

    def _on_message(self, payload: str) -> None:
        msg = orjson.loads(payload)
        kind = msg["k"]
        rid = msg["id"]
        if kind == "http":
            self._spawn(self._serve_http(msg))
        elif kind == "open":
            self._open_tunnel(msg)
        elif kind == "m":
            t = self._tunnels.get(rid)
            if t is not None and not t.done:
                t.inbox.put_nowait({"type": "websocket.receive", "text": msg["t"]})
        elif kind == "x":
            t = self._tunnels.get(rid)
            if t is not None:
                t.end()
        else:  # a reply or a frame for a request or tunnel that started here
            q = self._waiting.get(rid)
            if q is not None:
                q.put_nowait(msg)
            elif kind == "acc":  # a tunnel we gave up waiting for: its owner's end must not stay
                self.tell(msg["o"], {"k": "x", "id": rid})

    async def _mine(self, tid: str) -> bool:
        """Whether this process owns ``tid`` (asking Redis when it is not known to be ours)."""
        return tid in self.owned or await self.acquire(tid) == self.me

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _scope(self, msg: dict[str, Any], kind: str) -> Scope:
        path: str = msg["path"]
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in msg["headers"]]
        return {
            "type": kind,
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "scheme": "http" if kind == "http" else "ws",
            "method": msg.get("method", "GET"),
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": msg["qs"].encode("latin-1"),
            "headers": headers,
            "client": tuple(msg["client"]) if msg.get("client") else None,
            "server": None,
            "subprotocols": offered_subprotocols(headers),
            "state": {},
            "callbreak.forwarded": msg["from"],
        }

    async def _serve_http(self, msg: dict[str, Any]) -> None:
        origin, rid = msg["from"], msg["id"]
        if self.app is None or not await self._mine(msg["table"]):
            self.tell(origin, {"k": "moved", "id": rid})
            return
        body: bytes = msg["body"].encode("latin-1")
        sent = False
        status = 500
        headers: list[list[str]] = []
        chunks: list[bytes] = []

        async def receive() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # the client stays until the response is whole
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers.extend([k.decode("latin-1"), v.decode("latin-1")] for k, v in message.get("headers", ()))
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        scope = self._scope(msg, "http")
        makes = creates_table(msg.get("method", "GET"), msg["path"])
        if makes:
            # (its answer is read here, `let_go`: not gzipped, whatever the browser takes)
            scope["headers"] = [(k, v) for k, v in scope["headers"] if k.lower() != b"accept-encoding"]
        try:
            await self.app(scope, receive, send)
            if status == 200 and makes:
                self.let_go(b"".join(chunks))
        except Exception:
            log.exception("forwarded request %s %s failed", msg.get("method"), msg["path"])
            status, headers, chunks = 500, [["content-type", "text/plain"]], [b"internal error"]
        self.tell(
            origin, {"k": "resp", "id": rid, "status": status, "headers": headers, "body": b"".join(chunks).decode("latin-1")}
        )

    def _open_tunnel(self, msg: dict[str, Any]) -> None:
        origin, rid = msg["from"], msg["id"]
        app = self.app
        if app is None:
            self.tell(origin, {"k": "moved", "id": rid})
            return
        # registered at once: the client's next messages queue in its inbox meanwhile
        tunnel = self._tunnels[rid] = _Tunnel(self, rid, origin)

        async def run() -> None:
            if not await self._mine(msg["table"]):
                self._tunnels.pop(rid, None)
                self.tell(origin, {"k": "moved", "id": rid})
                return
            try:
                await app(self._scope(msg, "websocket"), tunnel.receive, tunnel.send)
            except Exception:
                log.exception("tunnelled socket of table %s failed", msg["table"])
            finally:
                if not tunnel.done:
                    self.tell(origin, {"k": "cls", "id": rid, "code": 1011, "r": ""})
                    tunnel.done = True
                self._tunnels.pop(rid, None)

        self._spawn(run())

    def let_go(self, body: bytes) -> None:
        """Unload the table a create or rematch response names, before the client hears of it,
        and hold no lease of it: it is in the store, and the first process that a request naming
        it reaches takes it (behind nginx, the one that all of that table's requests reach:
        deploy/nginx/callbreak.conf hashes on the table; so its players are served there, not
        forwarded).  A new table has nothing to run before a player connects."""
        tid = orjson.loads(body).get("table")
        if isinstance(tid, str):
            self.let_go_table(tid)

    def let_go_table(self, tid: str) -> None:
        """Unload ``tid`` unless this process holds its lease (then it runs it, and keeps it)."""
        if tid not in self.owned:
            self.hub._unload(tid)

    # --- the forwarding end ------------------------------------------------------------
    @property
    def grace(self) -> float:
        """The seconds Redis may fail a request's every try, in a row, before the request is
        answered "try again" (a blip or a quick restart is waited out, an outage said soon):
        the lease's time, at most ``REDIS_GRACE``.

        >>> from callbreak.server import create_app
        >>> from callbreak.server.config import ServerConfig
        >>> hub = create_app(ServerConfig(db=":memory:")).state.hub
        >>> Cluster(hub, "redis://127.0.0.1:1/0", lease_ttl=3.0).grace, Cluster(hub, "redis://127.0.0.1:1/0", lease_ttl=30.0).grace
        (3.0, 5.0)
        >>> hub.store.close(); hub.hints.close()
        """
        return min(self.ttl, REDIS_GRACE)

    async def reachable(self) -> bool:
        """Whether Redis answers now (a new table is made only then: its first request needs a lease).

        >>> import asyncio
        >>> from callbreak.server import create_app
        >>> from callbreak.server.config import ServerConfig
        >>> hub = create_app(ServerConfig(db=":memory:")).state.hub
        >>> asyncio.run(Cluster(hub, "redis://127.0.0.1:1/0", lease_ttl=0.3).reachable())   # (nothing listens there)
        False
        >>> hub.store.close(); hub.hints.close()
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.grace
        while True:
            try:
                await asyncio.wait_for(self.redis.ping(), 1.0)  # (a Redis that hangs: not the socket's own wait)
            except (RedisError, OSError) as e:  # (TimeoutError is an OSError)
                self._route_said.failed(e)
                if loop.time() >= deadline:
                    return False
                await asyncio.sleep(0.1)
                continue
            return True

    async def route(self, tid: str) -> str | None:
        """The owner of ``tid`` (taking the lease when it is free or its holder is dead), or None
        while Redis does not answer (whose table it is cannot be known: the caller asks again)."""
        try:
            owner = await self.acquire(tid)
        except (RedisError, OSError) as e:
            self._route_said.failed(e)  # (said once, again each minute: a request retries many times)
            return None
        self._route_said.ok()
        return owner

    async def forward_http(self, owner: str, tid: str, scope: Scope, body: bytes) -> dict[str, Any] | None:
        """Send the request to ``owner``; its response, or None if the owner died or no longer
        owns the table (the caller routes again)."""
        rid = secrets.token_hex(8)
        q = self._waiting[rid] = asyncio.Queue()
        self._waiting_owner[rid] = owner
        try:
            self.tell(
                owner,
                {
                    "k": "http",
                    "id": rid,
                    "from": self.me,
                    "table": tid,
                    "method": scope["method"],
                    "path": scope["path"],
                    "qs": scope.get("query_string", b"").decode("latin-1"),
                    "headers": [[k.decode("latin-1"), v.decode("latin-1")] for k, v in scope.get("headers", ())],
                    "client": list(scope["client"]) if scope.get("client") else None,
                    "body": body.decode("latin-1"),
                },
            )
            self.hub.meter.forwarded("http")
            reply = await q.get()  # the owner answers, says the table moved, or is found dead
            return reply if reply["k"] == "resp" else None
        finally:
            self._waiting.pop(rid, None)
            self._waiting_owner.pop(rid, None)

    async def tunnel(self, owner: str, tid: str, scope: Scope, receive: Receive, send: Send) -> bool:
        """Carry the client's WebSocket to ``owner``'s app.  False if the owner did not take
        it (dead, or the lease moved) before the client was accepted: the caller routes again."""
        rid = secrets.token_hex(8)
        q = self._waiting[rid] = asyncio.Queue()
        self._waiting_owner[rid] = owner
        try:
            self.tell(
                owner,
                {
                    "k": "open",
                    "id": rid,
                    "from": self.me,
                    "table": tid,
                    "path": scope["path"],
                    "qs": scope.get("query_string", b"").decode("latin-1"),
                    "headers": [[k.decode("latin-1"), v.decode("latin-1")] for k, v in scope.get("headers", ())],
                    "client": list(scope["client"]) if scope.get("client") else None,
                },
            )
            first = await self._answer(owner, q)
            if first is None or first["k"] != "acc":
                return False
            self.hub.meter.forwarded("ws")
            await send({"type": "websocket.accept", "subprotocol": handshake(scope)[0]})
            await self._pipe(owner, rid, q, receive, send)
            return True
        finally:
            self._waiting.pop(rid, None)
            self._waiting_owner.pop(rid, None)

    async def _answer(self, owner: str, q: asyncio.Queue[dict[str, Any]]) -> dict[str, Any] | None:
        """The owner's first answer to an ``open``, or None once the owner is found dead (its
        liveness key gone: asked every 0.2 s, so that a socket waiting on a dead owner is routed
        again as soon as its lease can be taken) or has not answered within ``min(1, ttl)`` s."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + min(1.0, self.ttl)
        while True:
            try:
                return await asyncio.wait_for(q.get(), max(0.0, min(0.2, deadline - loop.time())))
            except TimeoutError:
                if loop.time() >= deadline or not await self.redis.exists(self.key("alive", owner)):
                    return None

    async def _pipe(
        self, owner: str, rid: str, q: asyncio.Queue[dict[str, Any]], receive: Receive, send: Send
    ) -> None:
        async def upstream() -> None:
            while True:
                m = await receive()
                if m["type"] == "websocket.disconnect":
                    self.tell(owner, {"k": "x", "id": rid})
                    return
                if m["type"] == "websocket.receive":
                    text = m.get("text")
                    if text is None:
                        text = bytes(m.get("bytes") or b"").decode("utf-8", "replace")
                    self.tell(owner, {"k": "m", "id": rid, "t": text})

        async def downstream() -> None:
            while True:
                m = await q.get()
                kind = m["k"]
                if kind == "f":
                    await send({"type": "websocket.send", "text": m["t"]})
                elif kind == "cls":
                    await send({"type": "websocket.close", "code": m["code"], "reason": m["r"]})
                    return
                elif kind == "abort":
                    await send({"type": "websocket.close", "code": 1011, "reason": ""})
                    return
                elif kind == "dead":  # the owner is gone: the client reconnects, to the next owner
                    await send({"type": "websocket.close", "code": 1012, "reason": "service restart"})
                    return

        up = asyncio.ensure_future(upstream())
        down = asyncio.ensure_future(downstream())
        try:
            await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if down.done() and not up.done():
                # our close was sent: the client's answer (or the server's report) ends the socket;
                # a client that never answers is let go after 5 s
                await asyncio.wait({up}, timeout=5)
            for t in (up, down):
                t.cancel()
                try:
                    await t
                except (asyncio.CancelledError, OSError, RuntimeError, WebSocketDisconnect):
                    pass  # (the client gone while a frame or the close was on its way: nothing to say)
                except Exception:  # a fault of the tunnel's own: the socket is closed all the same
                    log.exception("socket %s: the tunnel to %s failed", rid, owner)
