"""The ASGI middleware in front of a clustered server: a request for a table run by another
process goes there (`cluster.Cluster` forwards it); the rest runs here.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .cluster import Cluster, creates_table
from .outage import UNAVAILABLE
from .store import StoreUnavailable

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from .config import ServerConfig
    from .hub import Hub

__all__ = ["ClusterRouter", "clustered", "route_wait", "table_of"]

#: forwarded HTTP requests: the paths that name a table (or an invite)
_TABLE_PREFIXES = ("/api/tables/", "/ws/")
_INVITE_PREFIX = "/api/join/"


def table_of(path: str) -> str | None:
    """The table id a forwardable path names (None: not one, or an invite code).

    >>> table_of("/api/tables/abc123/start"), table_of("/ws/abc123"), table_of("/api/tables"), table_of("/")
    ('abc123', 'abc123', None, None)
    """
    for p in _TABLE_PREFIXES:
        if path.startswith(p):
            rest = path[len(p) :].split("/", 1)[0]
            return rest or None
    return None



def route_wait(ttl: float) -> float:
    """The longest a request for a table waits for the table's process to be found (its lease
    taken over after ``ttl`` twice, and some room) before the router answers for it itself; a
    proxy in front gives a plain request longer than this (deploy/nginx/callbreak.conf, held to
    it by a test).

    >>> route_wait(3.0)
    11.0
    """
    return ttl * 2 + 5

class ClusterRouter:
    """ASGI middleware: requests for a table owned by another process go there (`Cluster`).

    Until the process has joined the others (its first lease renewal), every request is served
    here:

    >>> from callbreak.server import create_app
    >>> from callbreak.server.config import ServerConfig
    >>> cfg = ServerConfig(db=":memory:", redis="redis://127.0.0.1:6379/0", namespace="cb")
    >>> app = create_app(cfg)
    >>> router = clustered(app, cfg)   # joins the others when the app starts (lifespan)
    >>> type(router).__name__, router.cluster.ready, router.cluster.app is app
    ('ClusterRouter', False, True)
    >>> app.state.hub.store.close(); app.state.hub.hints.close()
    """

    def __init__(self, app: ASGIApp, cluster: Cluster, max_body: int = 16384) -> None:
        self.app = app
        self.cluster = cluster
        cluster.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self.app(scope, self._lifespan(receive), send)
            return
        if "callbreak.forwarded" in scope or not self.cluster.ready:
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        tid = table_of(path)
        if self.cluster.cut_off() and (tid is not None or path.startswith(_INVITE_PREFIX) or (
            kind == "http" and creates_table(scope["method"], path)
        )):
            # Redis does not answer (its liveness key lapsed): whose a table is cannot be known, nor
            # a new table run; said at once (before: a table's request waited 11 s to hear "moving",
            # and a new table was made that no socket could open)
            await _try_later(kind, send, _CUT_OFF)
            return
        if tid is None and kind == "http" and path.startswith(_INVITE_PREFIX):
            code = path[len(_INVITE_PREFIX) :].split("/", 1)[0]
            try:
                tid = self.cluster.hub.store.find_invite(code) if 0 < len(code) <= 32 else None
            except StoreUnavailable:  # (the store's `Outage` says so in the log)
                await _unavailable(send, UNAVAILABLE)
                return
        if kind == "http" and creates_table(scope["method"], path) and tid is None:
            if not await self.cluster.reachable():
                # (before the process takes itself for cut off: a table made now no one could open
                # until Redis is back)
                await _unavailable(send, _CUT_OFF)
                return
            await self._claiming(scope, receive, send)
            return
        if tid is None or (kind == "websocket") != path.startswith("/ws/"):
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + route_wait(self.cluster.ttl)
        body = b"" if kind == "websocket" else await _read_body(receive, self.max_body)
        lost_since: float | None = None  # (when Redis began to fail this request, in a row)
        while True:
            owner = await self.cluster.route(tid)  # (None: Redis does not answer, ask again)
            lost = owner is None  # (what the last answer's trouble was, said if time runs out)
            if not lost:
                lost_since = None
            elif lost_since is None:
                lost_since = loop.time()
            if lost_since is not None and (self.cluster.cut_off() or loop.time() - lost_since > self.cluster.grace):
                # Redis does not answer, for longer than a blip: said now (before: a request in an
                # outage's first seconds, before the process took itself for cut off, waited out the
                # whole deadline, 11 s)
                await _try_later(kind, send, _CUT_OFF)
                return
            if owner == self.cluster.me:
                if kind == "http" and creates_table(scope["method"], path):
                    await self._claiming(scope, _replay(body), send)
                else:
                    await self.app(scope, receive if kind == "websocket" else _replay(body), send)
                return
            if owner is None:
                pass  # ask again, until the deadline
            elif kind == "websocket":
                if await self.cluster.tunnel(owner, tid, scope, receive, send):
                    return
            else:
                reply = await self.cluster.forward_http(owner, tid, scope, body)
                if reply is not None:
                    await send(
                        {
                            "type": "http.response.start",
                            "status": reply["status"],
                            "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in reply["headers"]],
                        }
                    )
                    await send({"type": "http.response.body", "body": reply["body"].encode("latin-1")})
                    return
                if scope["method"] not in ("GET", "HEAD"):
                    # the owner may have done it before it died: the client decides whether to ask again
                    await _unavailable(send)
                    return
            if loop.time() > deadline:
                await _try_later(kind, send, _CUT_OFF if lost else _MOVING)
                return
            await asyncio.sleep(0.1)

    async def _claiming(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run a request that creates a table; let the new table go (`Cluster.let_go`) before
        the response goes out."""
        held: list[Message] = []

        async def hold(message: Message) -> None:
            held.append(message)

        await self.app(scope, receive, hold)
        start = next((m for m in held if m["type"] == "http.response.start"), None)
        if start is not None and start["status"] == 200:
            self.cluster.let_go(b"".join(bytes(m.get("body", b"")) for m in held if m["type"] == "http.response.body"))
        for m in held:
            await send(m)

    def _lifespan(self, receive: Receive) -> Receive:
        async def wrapped() -> Message:
            m = await receive()
            if m["type"] == "lifespan.startup":
                await self.cluster.start()
            elif m["type"] == "lifespan.shutdown":
                await self.cluster.stop()
            return m

        return wrapped


async def _read_body(receive: Receive, limit: int) -> bytes:
    """The request's body, read whole (a little past ``limit``: the app refuses it with its own error)."""
    body = b""
    while True:
        m = await receive()
        if m["type"] != "http.request":
            return body
        body += bytes(m.get("body", b""))
        if not m.get("more_body", False) or len(body) > limit:
            return body


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()
        return {"type": "http.disconnect"}

    return receive


#: the 503's words while a table's owner changes, and while this process cannot reach Redis
_MOVING = "the table is moving to another server; try again"
_CUT_OFF = "this server cannot reach the others (Redis does not answer): try again in a moment"


async def _try_later(kind: str, send: Send, message: str) -> None:
    """Ask the client to try again later: a socket closed with 1013, a request answered 503 with ``message``."""
    if kind == "websocket":
        await send({"type": "websocket.close", "code": 1013, "reason": "try again later"})
    else:
        await _unavailable(send, message)


async def _unavailable(send: Send, message: str = _MOVING) -> None:
    body = orjson.dumps({"error": "unavailable", "message": message})
    await send(
        {
            "type": "http.response.start",
            "status": 503,
            "headers": [(b"content-type", b"application/json"), (b"retry-after", b"1")],
        }
    )
    await send({"type": "http.response.body", "body": body})


def clustered(app: Starlette, config: ServerConfig) -> ClusterRouter:
    """``app`` (from `create_app`) joined to the processes on ``config.redis``.

    >>> from callbreak.server import create_app
    >>> from callbreak.server.config import ServerConfig
    >>> cfg = ServerConfig(db=":memory:", redis="redis://127.0.0.1:6379/0", namespace="cb")
    >>> app = create_app(cfg)
    >>> router = clustered(app, cfg)   # joins the others when the app starts (lifespan)
    >>> router.app is app, router.cluster.ns, router.cluster.ttl
    (True, 'cb', 3.0)
    >>> app.state.hub.store.close(); app.state.hub.hints.close()
    """
    hub: Hub = app.state.hub
    return ClusterRouter(app, Cluster(hub, config.redis, config.namespace, config.lease_ttl), config.max_body)
