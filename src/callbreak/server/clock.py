"""The server's one source of time: every timer, deadline and rate limit reads it.

`LoopClock` is the real one (wall time, `time.monotonic`, the running asyncio
loop's ``call_later``); `ManualClock` is time that tests move by hand, running the
callbacks that fall due in order, so a timer test never races a real timer.

>>> clock = ManualClock(start=1000.0)
>>> fired = []
>>> h = clock.call_later(2.0, fired.append, "two")
>>> _ = clock.call_later(1.0, fired.append, "one")
>>> _ = clock.call_later(5.0, fired.append, "five")
>>> clock.advance(2.0); fired, clock.time(), clock.now_ms()
(['one', 'two'], 1002.0, 1002000)
>>> clock.call_later(1.0, fired.append, "never").cancel(); clock.advance(10); fired
['one', 'two', 'five']
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["Clock", "Handle", "LoopClock", "ManualClock"]


class Handle(Protocol):
    """A scheduled callback; `cancel` stops it if it has not run.

    >>> clock = ManualClock()
    >>> fired = []
    >>> h = clock.call_later(1.0, fired.append, "late")
    >>> h.cancel(); clock.advance(2.0); fired, clock.pending()
    ([], 0)
    """

    def cancel(self) -> None: ...


class Clock:
    """Wall time, monotonic time and delayed calls.

    >>> class Frozen(Clock):   # a clock needs time, monotonic and call_later; now_ms comes with it
    ...     def time(self) -> float:
    ...         return 1_700_000_000.25
    >>> Frozen().now_ms()
    1700000000250
    """

    def time(self) -> float:
        """Wall-clock seconds since the epoch (what deadlines sent to clients are in)."""
        raise NotImplementedError

    def monotonic(self) -> float:
        """Seconds that never go back (for intervals and rate limits)."""
        raise NotImplementedError

    def call_later(self, delay: float, fn: Callable[..., Any], *args: Any) -> Handle:
        """Run ``fn(*args)`` after ``delay`` seconds (at once for 0 or less, after the current step)."""
        raise NotImplementedError

    def now_ms(self) -> int:
        """Wall-clock milliseconds."""
        return int(self.time() * 1000)


class LoopClock(Clock):
    """The real clock: `time.time`, `time.monotonic`, the running event loop's timers.

    >>> import asyncio
    >>> async def main():
    ...     clock, fired = LoopClock(), []
    ...     clock.call_later(0, fired.append, "now")
    ...     await asyncio.sleep(0)
    ...     return fired, clock.monotonic() > 0, clock.now_ms() > 1_600_000_000_000
    >>> asyncio.run(main())
    (['now'], True, True)
    """

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, fn: Callable[..., Any], *args: Any) -> Handle:
        loop = asyncio.get_running_loop()
        if delay <= 0:
            return loop.call_soon(fn, *args)
        return loop.call_later(delay, fn, *args)


class _Timer:
    __slots__ = ("args", "cancelled", "fn", "when")

    def __init__(self, when: int, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.when = when
        self.fn = fn
        self.args = args
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock(Clock):
    """Time that moves only when `advance` moves it; due callbacks run in time order.
    Time is kept in whole microseconds, so 0.59 s and then 0.01 s reach a 0.6 s timer.

    >>> clock = ManualClock(start=50.0)
    >>> fired = []
    >>> _ = clock.call_later(0.6, fired.append, "0.6 s")
    >>> clock.advance(0.59); clock.advance(0.01); fired, clock.time(), clock.monotonic()
    (['0.6 s'], 50.6, 0.6)
    >>> _ = clock.call_later(1, lambda: clock.call_later(1, fired.append, "chained")); clock.pending()
    1
    >>> clock.advance(5); fired
    ['0.6 s', 'chained']
    """

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._start = start
        self._elapsed = 0  # microseconds
        self._queue: list[tuple[int, int, _Timer]] = []
        self._seq = itertools.count()

    def time(self) -> float:
        return self._start + self._elapsed / 1e6

    def monotonic(self) -> float:
        return self._elapsed / 1e6

    def call_later(self, delay: float, fn: Callable[..., Any], *args: Any) -> Handle:
        timer = _Timer(self._elapsed + max(0, round(delay * 1e6)), fn, args)
        heapq.heappush(self._queue, (timer.when, next(self._seq), timer))
        return timer

    def pending(self) -> int:
        """How many callbacks are scheduled and not cancelled."""
        return sum(1 for _, _, t in self._queue if not t.cancelled)

    def advance(self, seconds: float = 0.0) -> None:
        """Move time on by ``seconds``, running every callback due by then (also those
        scheduled meanwhile), each with the clock at its own time."""
        end = self._elapsed + max(0, round(seconds * 1e6))
        while self._queue and self._queue[0][0] <= end:
            when, _, timer = heapq.heappop(self._queue)
            if timer.cancelled:
                continue
            self._elapsed = max(self._elapsed, when)
            timer.fn(*timer.args)
        self._elapsed = end
