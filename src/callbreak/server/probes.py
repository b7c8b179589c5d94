"""``/readyz`` and ``/metrics``: what a load balancer and Prometheus ask a server process.

``/healthz`` (in `app`) says the process answers; ``/readyz`` says it should be sent players:
its startup is done, its store answers, and (with ``--redis``) it has joined the others.
``/metrics`` is Prometheus's text (`metrics.PromMeter`) when prometheus-client is installed.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .hub import Hub
from .outage import Said

__all__ = ["STATUS", "Probes"]

#: what a process's own status port answers (`Probes`)
STATUS = frozenset({"/healthz", "/readyz", "/metrics"})


class Probes:
    """ASGI middleware answering ``/readyz`` and ``/metrics`` for ``hub``'s process.

    >>> import asyncio
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> from starlette.applications import Starlette
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> probes = Probes(Starlette(), hub)
    >>> sent = []
    >>> async def send(message):
    ...     sent.append(message)
    >>> asyncio.run(probes({"type": "http", "path": "/readyz", "method": "GET", "headers": []}, None, send))
    >>> sent[0]["status"], sent[1]["body"]   # before the app's startup
    (503, b'{"ready":false,"why":"starting"}')
    >>> probes.started = True   # (what the lifespan's startup sets)
    >>> probes.ready()
    (True, 'ok')
    >>> hub.store.close(); hub.hints.close()
    """

    def __init__(
        self, app: ASGIApp, hub: Hub, joined: Callable[[], bool] | None = None, status_port: int | None = None
    ) -> None:
        self.app = app
        self.hub = hub
        self.joined = joined
        #: this process's own port (``serve --status-port``): it answers the probes, nothing else
        self.status_port = status_port
        self.started = False
        self._said = Said("readiness: the store")
        self.render: Callable[[], bytes] | None = None
        if importlib.util.find_spec("prometheus_client") is not None:
            from .metrics import PromMeter

            meter = PromMeter(hub)
            hub.meter = meter
            self.render = meter.render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, self._watch_startup(send))
            return
        path = scope.get("path")
        server = scope.get("server")
        if self.status_port is not None and server is not None and server[1] == self.status_port and path not in STATUS:
            if scope["type"] == "websocket":  # (refused before its handshake)
                await send({"type": "websocket.close", "code": 1008})
            else:
                await _respond(send, 404, b"this port answers /healthz, /readyz and /metrics only", b"text/plain")
            return
        if scope["type"] == "http" and path == "/readyz":
            ok, why = self.ready()
            body = orjson.dumps({"ready": ok, "why": why})
            await _respond(send, 200 if ok else 503, body, b"application/json")
            return
        if scope["type"] == "http" and path == "/metrics":
            if self.render is None:
                await _respond(send, 404, b"metrics need `pip install 'callbreak[scale]'`", b"text/plain")
            else:
                await _respond(send, 200, self.render(), b"text/plain; version=0.0.4; charset=utf-8")
            return
        await self.app(scope, receive, send)

    def ready(self) -> tuple[bool, str]:
        if not self.started:
            return False, "starting"
        if self.joined is not None and not self.joined():
            return False, "not joined to the other processes"
        try:
            self.hub.store.status("-")
        except Exception as e:  # any failure of the store means: send no players here
            self._said.failed(e)  # (said once, again each minute, and once it answers)
            return False, "the store does not answer"
        self._said.ok()
        return True, "ok"

    def _watch_startup(self, send: Send) -> Send:
        async def wrapped(message: Message) -> None:
            if message["type"] == "lifespan.startup.complete":
                self.started = True
            elif message["type"] == "lifespan.shutdown.complete":
                self.started = False
            await send(message)

        return wrapped


async def _respond(send: Send, status: int, body: bytes, media: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", media)]})
    await send({"type": "http.response.body", "body": body})
