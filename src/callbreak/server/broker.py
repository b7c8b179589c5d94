"""Fan-out of messages to connections: the `Broker` interface and its in-process default.

The table that owns a game publishes one payload per audience on a channel
(``"<table>/0"`` .. ``"<table>/3"`` for the seats, ``"<table>/watch"`` for
spectators); each connection subscribes to its own channel.  Over Redis the same
interface maps onto PUBLISH / SUBSCRIBE, so connections can live on other
processes than the table.

>>> b = LocalBroker()
>>> got = []
>>> stop = b.subscribe("t/0", got.append)
>>> b.publish("t/0", "hello"), b.publish("t/1", "not for you"), b.subscribers("t/0")
(1, 0, 1)
>>> stop(); b.publish("t/0", "gone"), got
(0, ['hello'])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

__all__ = ["Broker", "LocalBroker", "channel"]


def channel(table_id: str, seat: int) -> str:
    """>>> channel("abc", 2), channel("abc", -1)
    ('abc/2', 'abc/watch')
    """
    return f"{table_id}/{'watch' if seat < 0 else seat}"


class Broker(Protocol):
    """Publish text payloads to channels; subscribers get them in publish order.

    >>> b: Broker = LocalBroker()   # or a RedisBroker: the same three calls
    >>> got = []
    >>> stop = b.subscribe(channel("k3Xa9Q", -1), got.append)
    >>> b.publish("k3Xa9Q/watch", "frame"), b.subscribers("k3Xa9Q/watch"), got
    (1, 1, ['frame'])
    """

    def publish(self, channel: str, payload: str) -> int:
        """Deliver to every subscriber of ``channel``; return how many got it."""

    def subscribe(self, channel: str, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call ``callback`` with each payload; return a function that unsubscribes."""

    def subscribers(self, channel: str) -> int:
        """How many subscribers ``channel`` has now."""


class LocalBroker:
    """`Broker` within one process: callbacks run synchronously, in order.

    >>> b = LocalBroker()
    >>> seen = []
    >>> stops = [b.subscribe("t/0", lambda p, i=i: seen.append((i, p))) for i in (1, 2)]
    >>> b.publish("t/0", "event"), seen
    (2, [(1, 'event'), (2, 'event')])
    >>> stops[0](); b.publish("t/0", "again"), seen[-1], b.subscribers("t/0")
    (1, (2, 'again'), 1)
    """

    def __init__(self) -> None:
        self._subs: dict[str, list[Callable[[str], None]]] = {}

    def publish(self, channel: str, payload: str) -> int:
        subs = self._subs.get(channel)
        if not subs:
            return 0
        for cb in tuple(subs):
            cb(payload)
        return len(subs)

    def subscribe(self, channel: str, callback: Callable[[str], None]) -> Callable[[], None]:
        self._subs.setdefault(channel, []).append(callback)

        def stop() -> None:
            subs = self._subs.get(channel)
            if subs and callback in subs:
                subs.remove(callback)
                if not subs:
                    del self._subs[channel]

        return stop

    def subscribers(self, channel: str) -> int:
        return len(self._subs.get(channel, ()))
