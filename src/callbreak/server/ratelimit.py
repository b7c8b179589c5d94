"""Rate limits: a token bucket per connection (messages) and per client IP (tables, joins)."""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["Bucket"]


class Bucket:
    """A token bucket: ``rate`` per second, at most ``burst`` at once; rate 0 = no limit.
    ``monotonic`` is the clock it reads (`Clock.monotonic`).

    >>> from callbreak.server.clock import ManualClock
    >>> clock = ManualClock()
    >>> b = Bucket(rate=1.0, burst=2, monotonic=clock.monotonic)
    >>> b.take(), b.take(), b.take()
    (True, True, False)
    >>> clock.advance(1.0); b.take(), b.take()
    (True, False)
    >>> b.ready(); clock.advance(1.0); b.ready(), b.ready()
    False
    (True, True)
    """

    __slots__ = ("burst", "level", "monotonic", "rate", "stamp")

    def __init__(self, rate: float, burst: int, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = float(max(burst, 1))
        self.level = self.burst
        self.monotonic = monotonic
        self.stamp = monotonic()

    def ready(self) -> bool:
        """Whether `take` would succeed now (nothing is taken)."""
        if self.rate <= 0:
            return True
        return self.level + max(0.0, self.monotonic() - self.stamp) * self.rate >= 1

    def take(self) -> bool:
        if self.rate <= 0:
            return True
        t = self.monotonic()
        self.level = min(self.burst, self.level + max(0.0, t - self.stamp) * self.rate)
        self.stamp = t
        if self.level >= 1:
            self.level -= 1
            return True
        return False
