"""One WebSocket connection to a table: its seat, its outgoing queue, its rate limit."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from .clock import Clock
from .config import ServerConfig
from .ratelimit import Bucket

if TYPE_CHECKING:
    from .live import LiveTable

__all__ = ["TOO_SLOW", "Conn"]

TOO_SLOW = 4008


class Conn:
    """One WebSocket: its seat (-1 for a spectator), its outgoing queue, its rate limit."""

    def __init__(
        self,
        table: LiveTable,
        seat: int,
        send: Callable[[str], Awaitable[None]],
        config: ServerConfig,
        clock: Clock,
    ) -> None:
        self.table = table
        self.seat = seat
        self._send = send
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.bucket = Bucket(config.msg_rate, config.msg_burst, clock.monotonic)
        self.limit = config.send_queue
        self.unsubscribe: Callable[[], None] | None = None
        self.closed = False
        self.last_error = float("-inf")

    def push(self, payload: str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= self.limit:  # too slow to keep up: drop it, it can reconnect
            self.close()
            return
        self.queue.put_nowait(payload)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)

    async def writer(self) -> None:
        while True:
            payload = await self.queue.get()
            if payload is None:
                return
            await self._send(payload)
