"""One WebSocket connection to a table: its seat, its outgoing queue, its rate limit.

The queue is bounded in bytes (`ServerConfig.send_buffer`): a client that stops reading falls
behind, and once its queue would pass the bound it is dropped (close code `TOO_SLOW`; it can
reconnect and catch up).  A close always ends the socket: what is queued is sent and then a close
frame, but a socket that takes nothing (a writer stuck in ``send``) is aborted at once when the
client is dropped for falling behind, and `ServerConfig.close_timeout` after any other close.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from .clock import Clock, Handle
from .config import ServerConfig
from .ratelimit import Bucket

if TYPE_CHECKING:
    from .live import LiveTable

__all__ = ["NORMAL", "NO_HELLO", "TOO_SLOW", "TOO_SLOW_REASON", "Conn", "nbytes"]

#: close codes: a normal close, a client dropped for falling too far behind, one that never said hello
NORMAL = 1000
#: the table is rebuilt from the store (a commit that failed): reconnect, as after a restart
RESTART = 1012
TOO_SLOW = 4008
NO_HELLO = 4408
TOO_SLOW_REASON = "too far behind: reconnect to catch up"


def nbytes(payload: str) -> int:
    """The payload's size as UTF-8.

    >>> nbytes('{"a":1}'), nbytes("€")
    (7, 3)
    """
    return len(payload) if payload.isascii() else len(payload.encode("utf-8", "surrogatepass"))


class Conn:
    """One WebSocket: its seat (-1 for a spectator), its outgoing queue, its rate limit.

    ``send`` sends one text message; ``close_socket(code, reason)`` sends the close frame;
    ``abort`` drops the connection at once (the transport, whatever it still holds).

    >>> from callbreak.server.clock import ManualClock
    >>> conn = Conn(None, 0, None, ServerConfig(send_buffer=20), ManualClock())   # type: ignore[arg-type]
    >>> conn.push('{"type":"pong"}'); conn.queued_bytes, conn.take()
    (15, ['{"type":"pong"}'])
    >>> conn.push("x" * 21); conn.closed, conn.close_code == TOO_SLOW, conn.close_reason   # too far behind
    (True, True, 'too far behind: reconnect to catch up')
    """

    def __init__(
        self,
        table: LiveTable,
        seat: int,
        send: Callable[[str], Awaitable[None]],
        config: ServerConfig,
        clock: Clock,
        close_socket: Callable[[int, str], Awaitable[None]] | None = None,
        abort: Callable[[], None] | None = None,
    ) -> None:
        self.table = table
        self.seat = seat
        self._send = send
        self._close_socket = close_socket
        self._abort = abort
        self._clock = clock
        self._close_timeout = config.close_timeout
        self.queue: deque[tuple[str, int]] = deque()
        #: bytes (UTF-8) waiting in the queue; never more than `limit`
        self.queued_bytes = 0
        self.limit = config.send_buffer
        self.bucket = Bucket(config.msg_rate, config.msg_burst, clock.monotonic)
        self.unsubscribe: Callable[[], None] | None = None
        self.closed = False
        self.close_code = NORMAL
        self.close_reason = ""
        self.aborted = False
        self.last_error = float("-inf")
        self._wake = asyncio.Event()
        self._sending = False
        self._gone = False
        self._close_timer: Handle | None = None

    def push(self, payload: str) -> None:
        """Queue a message; past the byte budget the client is dropped instead."""
        if self.closed:
            return
        size = nbytes(payload)
        if self.queued_bytes + size > self.limit:
            self.close(TOO_SLOW, TOO_SLOW_REASON, drop=True)
            return
        self.queue.append((payload, size))
        self.queued_bytes += size
        self._wake.set()

    def take(self) -> list[str]:
        """Every queued message, taken off the queue (for a reader without a writer: tests)."""
        out = [p for p, _ in self.queue]
        self.queue.clear()
        self.queued_bytes = 0
        return out

    def close(self, code: int = NORMAL, reason: str = "", drop: bool = False) -> None:
        """Close: send what is queued, then the close frame.  ``drop``: forget the queue, and abort
        a socket that is stuck taking a message.  Either way the socket is aborted if it has not
        closed within ``close_timeout``."""
        if self.closed:
            return
        self.closed = True
        self.close_code, self.close_reason = code, reason
        self._wake.set()
        if drop:
            self.take()
            if self._sending:  # it takes nothing: a close frame would wait behind the stuck message
                self.abort()
                return
        if not self._gone:
            self._close_timer = self._clock.call_later(self._close_timeout, self.abort)

    def gone(self) -> None:
        """The ASGI server reported the disconnect.  When the peer closed first, the socket is
        over: no abort is due.  After a close of ours it is reported at once, while the socket
        still waits for the peer's answer: the abort at the close timeout stays due."""
        if self.closed:
            return
        self._gone = True

    def abort(self) -> None:
        """Drop the connection now (unless it has already ended)."""
        if self._gone or self.aborted:
            return
        self.aborted = True
        if self._abort is not None:
            self._abort()

    async def writer(self) -> None:
        """Send the queue in order until closed, then the close frame."""
        while True:
            if not self.queue:
                if self.closed:
                    break
                self._wake.clear()
                await self._wake.wait()
                continue
            payload, size = self.queue.popleft()
            self.queued_bytes -= size
            self._sending = True
            try:
                await self._send(payload)
            finally:
                self._sending = False
        if self._close_socket is not None:
            # the peer answers a close frame; one that does not is aborted at the close timeout
            await self._close_socket(self.close_code, self.close_reason)
