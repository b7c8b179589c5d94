"""Prometheus metrics of one server process (prometheus-client, the ``scale`` extra).

>>> from callbreak.server.config import ServerConfig
>>> from callbreak.server.hub import Hub
>>> hub = Hub(ServerConfig(db=":memory:"))
>>> m = PromMeter(hub); m.action(0.002); m.append(0.0004); m.move(); m.bot_queue("answered")
>>> text = m.render().decode()
>>> "callbreak_actions_total 1.0" in text, "callbreak_lease_moves_total 1.0" in text
(True, True)
>>> "callbreak_live_tables 0.0" in text, "callbreak_connections 0.0" in text
(True, True)
>>> 'callbreak_bot_queue_total{outcome="answered"} 1.0' in text, "callbreak_bot_waiting 0.0" in text
(True, True)
>>> hub.store.close(); hub.hints.close()
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from .meter import Meter

if TYPE_CHECKING:
    from .hub import Hub

__all__ = ["CONTENT_TYPE", "PromMeter"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

#: seconds: the action→event budget is 50 ms; a hard bot takes tens of milliseconds
_FAST = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0)
_BOT = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class PromMeter(Meter):
    """`Meter` into a registry of its own; `render` is the text of ``/metrics``.

    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> meter = PromMeter(hub)
    >>> meter.append(0.002)
    >>> [line for line in meter.render().decode().splitlines()
    ...  if line.startswith(("callbreak_live_tables ", "callbreak_store_append_seconds_count"))]
    ['callbreak_live_tables 0.0', 'callbreak_store_append_seconds_count 1.0']
    >>> hub.store.close(); hub.hints.close()
    """

    def __init__(self, hub: Hub) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        Gauge("callbreak_connections", "open WebSocket connections to tables", registry=r).set_function(
            lambda: sum(len(c) for t in hub.tables.values() for c in t.conns.values())
        )
        Gauge("callbreak_live_tables", "tables loaded (run) by this process", registry=r).set_function(
            lambda: len(hub.tables)
        )
        self.actions = Counter("callbreak_actions", "players' calls and plays handled", registry=r)
        self.latency = Histogram(
            "callbreak_action_seconds",
            "a player's action: received to its events queued for every connection (or handed to the write-behind)",
            buckets=_FAST,
            registry=r,
        )
        self.appends = Histogram("callbreak_store_append_seconds", "one entry committed", buckets=_FAST, registry=r)
        self.bots = Histogram("callbreak_bot_decision_seconds", "a bot's decision, queueing included", buckets=_BOT, registry=r)
        Gauge("callbreak_bot_waiting", "bot decisions asked by this process and not answered yet", registry=r).set_function(
            lambda: 0 if hub.botpool is None else hub.botpool.waiting
        )
        self.queue = Counter(
            "callbreak_bot_queue",
            "bot decisions sent to the bot workers on Redis, by outcome (answered, reclaimed, expired, failed, ignored)",
            ["outcome"],
            registry=r,
        )
        self.depth = Gauge("callbreak_bot_queue_depth", "requests in the bot queue not answered yet (every owner's)", registry=r)
        self.moves = Counter("callbreak_lease_moves", "tables taken over from a dead process", registry=r)
        self.forwards = Counter(
            "callbreak_forwarded", "requests and sockets carried to their table's owner", ["kind"], registry=r
        )

    def action(self, seconds: float) -> None:
        self.actions.inc()
        self.latency.observe(seconds)

    def append(self, seconds: float) -> None:
        self.appends.observe(seconds)

    def bot(self, seconds: float) -> None:
        self.bots.observe(seconds)

    def move(self) -> None:
        self.moves.inc()

    def bot_queue(self, outcome: str) -> None:
        self.queue.labels(outcome).inc()

    def bot_queue_depth(self, requests: int) -> None:
        self.depth.set(requests)

    def forwarded(self, kind: str) -> None:
        self.forwards.labels(kind).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
