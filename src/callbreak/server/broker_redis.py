"""`Broker` over Redis pub/sub (redis-py asyncio): subscribers in any process, on any host.

Every payload this process publishes goes, in publish order, through one connection (a
single sender task drains the queue into pipelines), and every subscription of this process
is one pub/sub connection read by one task: Redis delivers the messages of one publishing
connection to a subscriber in the order it received them, so a subscriber gets a channel's
payloads in publish order.  Delivery is asynchronous: `RedisBroker.publish` returns the number
of this process's subscribers to the channel (the others are Redis's to count).

A connection lost to Redis loses what was in flight: the broker reconnects, subscribes again
and calls ``on_lost``, so its user can make its clients catch up (from the store, as after any
reconnect).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from .outage import Said

__all__ = ["RedisBroker"]

log = logging.getLogger("callbreak.server")


class RedisBroker:
    """`Broker` on the Redis at ``url``; channel names get ``prefix`` (a namespace per deployment).

    Made without a connection (`start` connects; tests/scale run it on a real Redis):

    >>> b = RedisBroker("redis://127.0.0.1:6379/0", prefix="cb:")
    >>> b.url, b.prefix
    ('redis://127.0.0.1:6379/0', 'cb:')
    """

    def __init__(self, url: str, prefix: str = "callbreak:", on_lost: Callable[[], None] | None = None) -> None:
        self.url = url
        self.prefix = prefix
        self.on_lost = on_lost
        self.redis: aioredis.Redis = aioredis.Redis.from_url(url)
        self._subs: dict[str, list[Callable[[str], None]]] = {}
        self._out: deque[tuple[str, str]] = deque()
        self._wake = asyncio.Event()
        self._confirm: dict[str, list[asyncio.Future[None]]] = {}
        self._pubsub: aioredis.client.PubSub | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._closing = False
        self._said = Said("redis subscription")  # (its losses said once, and its return)

    async def start(self) -> None:
        """Connect and start the sender and the reader (on the running loop)."""
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=False)
        # one channel of our own: the pub/sub connection exists before the first subscribe
        await self._pubsub.subscribe(self.prefix + "\x00hello")
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._sender()), loop.create_task(self._reader())]

    async def close(self) -> None:
        self._closing = True
        await self.flush()
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                await t
        if self._pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                # typed as a callable: redis-py annotates `PubSub.aclose` from 8.2 on, not before
                close: Callable[[], Awaitable[None]] = self._pubsub.aclose
                await close()
        with contextlib.suppress(RedisError, OSError):
            await self.redis.aclose()

    async def flush(self, timeout: float = 5.0) -> None:
        """Wait until what was published so far has been handed to Redis."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._out and loop.time() < deadline and self._tasks and not self._tasks[0].done():
            await asyncio.sleep(0.005)

    # --- Broker --------------------------------------------------------------------------
    def publish(self, channel: str, payload: str) -> int:
        self._out.append((self.prefix + channel, payload))
        self._wake.set()
        return len(self._subs.get(channel, ()))

    def subscribe(self, channel: str, callback: Callable[[str], None]) -> Callable[[], None]:
        subs = self._subs.setdefault(channel, [])
        subs.append(callback)
        if len(subs) == 1:
            self._command("subscribe", channel)

        def stop() -> None:
            subs = self._subs.get(channel)
            if subs and callback in subs:
                subs.remove(callback)
                if not subs:
                    del self._subs[channel]
                    self._command("unsubscribe", channel)

        return stop

    def subscribers(self, channel: str) -> int:
        return len(self._subs.get(channel, ()))

    async def join(self, channel: str, callback: Callable[[str], None]) -> Callable[[], None]:
        """`subscribe`, returning once Redis has confirmed the subscription (what is published
        from then on reaches ``callback``)."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._confirm.setdefault(self.prefix + channel, []).append(fut)
        if channel in self._subs:  # subscribed already: Redis confirms a repeated SUBSCRIBE too
            self._command("subscribe", channel)
        stop = self.subscribe(channel, callback)
        await asyncio.wait_for(fut, 10)
        return stop

    # --- the tasks ---------------------------------------------------------------------
    def _command(self, verb: str, channel: str) -> None:
        ps = self._pubsub
        if ps is None:
            raise RuntimeError("RedisBroker.start() first")
        task = asyncio.get_running_loop().create_task(getattr(ps, verb)(self.prefix + channel))
        self._tasks.append(task)
        task.add_done_callback(self._forget)

    def _forget(self, task: asyncio.Task[None]) -> None:
        with contextlib.suppress(ValueError):
            self._tasks.remove(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("redis subscription failed: %s", task.exception())

    async def _sender(self) -> None:
        while True:
            if not self._out:
                self._wake.clear()
                await self._wake.wait()
                continue
            batch = [self._out.popleft() for _ in range(min(len(self._out), 512))]
            try:
                pipe = self.redis.pipeline(transaction=False)
                for ch, payload in batch:
                    pipe.publish(ch, payload)
                await pipe.execute()
            except (RedisError, OSError) as e:
                log.warning("redis publish failed (%d messages lost): %s", len(batch), e)
                self._lost()
                await asyncio.sleep(0.2)

    async def _reader(self) -> None:
        ps = self._pubsub
        assert ps is not None
        while True:
            try:
                msg = await ps.get_message(timeout=None)
            except (RedisError, OSError) as e:
                if self._closing:
                    return
                self._said.failed(e)
                self._lost()
                await asyncio.sleep(0.2)
                continue
            self._said.ok()
            if msg is None:
                continue
            kind = msg["type"]
            channel = _text(msg["channel"])
            if kind == "message":
                subs = self._subs.get(channel[len(self.prefix) :])
                if subs:
                    payload = _text(msg["data"])
                    for cb in tuple(subs):
                        try:
                            cb(payload)
                        except Exception:  # one subscriber's bug must not stop the others' messages
                            log.exception("subscriber of %s failed", channel)
            elif kind == "subscribe":
                for fut in self._confirm.pop(channel, ()):
                    if not fut.done():
                        fut.set_result(None)

    def _lost(self) -> None:
        if self.on_lost is not None:
            try:
                self.on_lost()
            except Exception:
                log.exception("on_lost failed")


def _text(data: bytes | str) -> str:
    return data.decode() if isinstance(data, bytes) else data
