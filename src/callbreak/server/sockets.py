"""Time-outs for HTTP sockets that never finish a request (slowloris).

uvicorn bounds an idle keep-alive connection (``timeout_keep_alive``) and the size
of an unfinished request head (``h11_max_incomplete_event_size``), but not the time
a client may take to send that head: a socket that sends half a header line, or
nothing at all, is held for ever.  `header_timeout_protocol` gives uvicorn's h11
protocol that time-out: a connection whose request head is not complete within
``seconds`` of its opening (or of the end of its previous response) is closed; and a
head larger than the limit is refused even when it arrives in one piece.

It also refuses a WebSocket handshake from an address over its rate of new sockets
(``refuse_upgrade``: `Hub.over_connect_rate`) with HTTP 429 as soon as the request head is read,
before uvicorn builds a WebSocket protocol, a scope and a task for it: a flood of new sockets
from one address costs the server as little as an HTTP request can.  A handshake that came
through a proxy (``X-Forwarded-For``) goes on to `admission.Admission`, which knows its
client's address.

`QuietDenialWebSockets` is uvicorn's WebSocket protocol, less a log line per refused handshake.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .admission import denial

if TYPE_CHECKING:
    from .table import TableError

#: an address's refusal of a new WebSocket (`Hub.over_connect_rate`), or None
Refusal = Callable[[str], "TableError | None"]

__all__ = ["QuietDenialWebSockets", "header_timeout_protocol"]


@functools.lru_cache(maxsize=16)
def _raw_denial(code: str, message: str) -> bytes:
    r"""A whole HTTP 429 answer refusing a WebSocket handshake (built once per message).

    >>> _raw_denial("rate_limited", "wait").split(b"\r\n")[0]
    b'HTTP/1.1 429 Too Many Requests'
    """
    headers, body = denial(code, message)
    lines = [b"HTTP/1.1 429 Too Many Requests", *(k + b": " + v for k, v in headers), b"connection: close"]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


class _HeaderTimeoutH11(H11Protocol):
    header_timeout = 10.0
    max_header = 16384
    refuse_upgrade: Refusal | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_bytes = 0

    def _arm(self) -> None:
        self._disarm()
        self._head_bytes = 0
        self._head_timer = self.loop.call_later(self.header_timeout, self._head_overdue)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_overdue(self) -> None:
        self._head_timer = None
        # still waiting for (the rest of) a request head: nobody is served by this socket
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:
            # h11 bounds only a head that arrives in pieces; this bounds one that arrives whole
            end = data.find(b"\r\n\r\n")
            self._head_bytes += len(data) if end < 0 else end
            if self._head_bytes > self.max_header:
                self._disarm()
                self.send_400_response("Request head too large")
                return
        super().data_received(data)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE:  # a whole request head arrived (or an upgrade)
            self._disarm()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        refuse = self.refuse_upgrade
        if refuse is not None and self.client is not None and all(k != b"x-forwarded-for" for k, _ in self.headers):
            e = refuse(self.client[0])
            if e is not None:
                self._deny(e)
                return
        super().handle_websocket_upgrade(event)

    def _deny(self, e: TableError) -> None:
        # written whole, without h11's state machine: the socket is closed at once
        self.transport.write(_raw_denial(e.code, e.message))
        self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()


def header_timeout_protocol(seconds: float, max_header: int = 16384, refuse_upgrade: Refusal | None = None) -> type[H11Protocol]:
    """uvicorn's h11 protocol, closing a socket whose request head takes longer than ``seconds``,
    answering 400 to one larger than ``max_header`` bytes, and 429 to a WebSocket handshake that
    ``refuse_upgrade`` refuses for its address.

    >>> proto = header_timeout_protocol(10.0, max_header=8192)
    >>> issubclass(proto, H11Protocol), proto.header_timeout, proto.max_header, proto.refuse_upgrade
    (True, 10.0, 8192, None)
    """
    return type(
        "HeaderTimeoutH11",
        (_HeaderTimeoutH11,),
        {"header_timeout": float(seconds), "max_header": max_header, "refuse_upgrade": staticmethod(refuse_upgrade) if refuse_upgrade else None},
    )


class QuietDenialWebSockets(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (the one it picks when ``websockets`` is installed), marking a
    handshake refused with an HTTP answer (``websocket.http.response``) as complete.  uvicorn
    (0.54) does not, and so logs "ASGI callable returned without completing handshake" for every
    refusal: under a flood of new sockets (refused with 429, `admission.Admission`) that line,
    hundreds a second, cost more than the refusal itself."""

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.http.response.body" and not message.get("more_body", False):
            self.handshake_complete = True
