"""Each new WebSocket counted against its address's limits before anything else is done for it.

A flood of new sockets from one address (a spectator page reloaded in a loop, a script) is refused
at the handshake: HTTP 429 ``{"error": "rate_limited", ...}``.  Each refusal is one of hundreds a
second, so `Admission` answers it in raw ASGI, outside Starlette: no routing, middleware, request
or response objects.  A socket over the cap of sockets open at once (``too_many_connections``),
or a refusal where the ASGI server cannot answer a handshake with HTTP, is accepted, told the
error and closed with 4429 (docs/protocol.md).  An admitted socket is counted off (`Hub.release`)
when the application is done with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from starlette.types import ASGIApp, Receive, Scope, Send

from .bodies import HttpError
from .protocol import Error, ErrorCode, encode
from .table import TableError
from .transport import handshake

if TYPE_CHECKING:
    from .hub import Hub

__all__ = ["Admission", "denial"]

#: the WebSocket close code of a socket refused after its handshake
REFUSED_CLOSE = 4429


def denial(code: str, message: str) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The headers and body of a refused handshake: the API's error answer.

    >>> headers, body = denial("rate_limited", "wait")
    >>> body, dict(headers)[b"content-type"]
    (b'{"error":"rate_limited","message":"wait"}', b'application/json')
    """
    body = msgspec.json.encode(HttpError(ErrorCode(code), message))
    return [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())], body


class Admission:
    """ASGI middleware: `Hub.admit` for every WebSocket, before ``app`` sees it.

    One address opening sockets in a loop: the first 60 (the burst) reach the app, the rest are
    refused with HTTP 429 at the handshake.

    >>> import asyncio
    >>> from callbreak.server.clock import ManualClock
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"), clock=ManualClock())
    >>> async def app(scope: Scope, receive: Receive, send: Send) -> None:
    ...     await send({"type": "websocket.accept"})
    >>> async def flood(n: int) -> list[dict[str, object]]:
    ...     sent: list[dict[str, object]] = []
    ...     async def send(m: dict[str, object]) -> None: sent.append(m)
    ...     async def receive() -> dict[str, object]: return {"type": "websocket.connect"}
    ...     gate = Admission(app, hub)
    ...     scope = {"type": "websocket", "client": ("10.0.0.9", 5000), "extensions": {"websocket.http.response": {}}}
    ...     for _ in range(n):
    ...         await gate(scope, receive, send)
    ...     return sent
    >>> sent = asyncio.run(flood(100))
    >>> sum(m["type"] == "websocket.accept" for m in sent), sent[-2]["status"]
    (60, 429)
    >>> hub.store.close(); hub.hints.close()
    """

    def __init__(self, app: ASGIApp, hub: Hub) -> None:
        self.app = app
        self.hub = hub

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        ip = client[0] if client else "?"
        try:
            self.hub.admit(ip)
        except TableError as e:
            await self._refuse(scope, receive, send, e)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.hub.release(ip)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send, e: TableError) -> None:
        if e.code == "rate_limited" and "websocket.http.response" in (scope.get("extensions") or {}):
            # the cheapest answer: the handshake refused, nothing accepted
            headers, body = denial(e.code, e.message)
            await send({"type": "websocket.http.response.start", "status": 429, "headers": headers})
            await send({"type": "websocket.http.response.body", "body": body})
            return
        message = await receive()
        if message["type"] != "websocket.connect":
            return  # gone before its handshake
        await send({"type": "websocket.accept", "subprotocol": handshake(scope)[0]})
        await send({"type": "websocket.send", "text": encode(Error(ErrorCode(e.code), e.message))})
        await send({"type": "websocket.close", "code": REFUSED_CLOSE})
