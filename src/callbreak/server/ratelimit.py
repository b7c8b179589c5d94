"""Rate limits: a token bucket per connection (messages) and per client IP (tables, joins)."""

from __future__ import annotations

import time

__all__ = ["Bucket"]


class Bucket:
    """A token bucket: ``rate`` per second, at most ``burst`` at once; rate 0 = no limit.

    >>> b = Bucket(rate=1.0, burst=2, now=0.0)
    >>> b.take(now=0.0), b.take(now=0.0), b.take(now=0.0), b.take(now=1.0)
    (True, True, False, True)
    """

    __slots__ = ("burst", "level", "rate", "stamp")

    def __init__(self, rate: float, burst: int, now: float | None = None) -> None:
        self.rate = rate
        self.burst = float(max(burst, 1))
        self.level = self.burst
        self.stamp = time.monotonic() if now is None else now

    def take(self, now: float | None = None) -> bool:
        if self.rate <= 0:
            return True
        t = time.monotonic() if now is None else now
        self.level = min(self.burst, self.level + max(0.0, t - self.stamp) * self.rate)
        self.stamp = t
        if self.level >= 1:
            self.level -= 1
            return True
        return False
