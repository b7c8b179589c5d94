"""Whether the database answers, and what a process does while it does not.

The `Store` is called on the server's one event loop. A database that stops answering (a restart,
a failover, a host gone) must not hold that loop: with the pool's own wait (30 s) on every call,
each socket that reconnected and each readiness probe froze the whole process, its liveness probe
included, and after the database came back the pool's reconnections, backing off, took minutes.

`Outage` is the store's memory of the last failure: once a call finds the database silent, every
call fails at once (`StoreUnavailable`) while a thread of its own tries a fresh connection every
`RETRY_EVERY` seconds; the first that connects renews the store's connections (``recover``) and
lets calls through again. The players' pages reconnect meanwhile with their own backoff.

>>> tries = []
>>> def probe() -> None:
...     tries.append(1)
...     if len(tries) < 2: raise OSError("connection refused")
>>> o = Outage(probe, recover=lambda: None, every=0.01)
>>> o.check()                       # answering: nothing happens
>>> o.failed(OSError("connection refused"))
>>> try:
...     o.check()
... except StoreUnavailable as e:
...     print(e)
the database does not answer (connection refused); trying again every 0.01 s
>>> o.wait_answering(5.0), len(tries), o.down
(True, 2, False)
>>> o.close()
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from .store import StoreUnavailable

__all__ = ["RETRY_EVERY", "UNAVAILABLE", "Outage", "Said"]

#: what a client is told while the database does not answer (its address and its driver's words stay
#: in the log)
UNAVAILABLE = "the database does not answer: nothing was changed; try again in a moment"

log = logging.getLogger("callbreak.server")

#: seconds between two tries of a database that does not answer
RETRY_EVERY = 1.0


class Outage:
    """A database's outage as its store met it (see the module's docstring): ``probe`` tries a
    fresh connection (raising when it cannot), ``recover`` renews the store's connections once
    one is made, ``lost`` lets go of the store's connections as the outage begins; all run on the
    outage's own thread, never on the caller's.

    >>> o = Outage(probe=lambda: None, recover=lambda: None)
    >>> o.down, o.check()
    (False, None)
    >>> o.close()
    """

    def __init__(
        self,
        probe: Callable[[], None],
        recover: Callable[[], None],
        lost: Callable[[], None] = lambda: None,
        every: float = RETRY_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._probe = probe
        self._recover = recover
        self._lost = lost
        self.every = every
        self._clock = clock
        self._lock = threading.Lock()
        self._why = ""
        self._since: float | None = None
        self._answering = threading.Event()
        self._answering.set()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def down(self) -> bool:
        """Whether the database is taken not to answer now."""
        return not self._answering.is_set()

    def check(self) -> None:
        """Fail at once (`StoreUnavailable`) while the database does not answer."""
        if not self._answering.is_set():
            raise StoreUnavailable(f"the database does not answer ({self._why}); trying again every {self.every:g} s")

    def failed(self, error: BaseException) -> None:
        """A call found the database silent (``error``): from now on calls fail at once until a
        fresh connection can be made."""
        with self._lock:
            if not self._answering.is_set() or self._stop.is_set():
                return
            self._why = " ".join(str(error).split())[:200] or type(error).__name__
            self._since = self._clock()
            self._answering.clear()
            log.warning("the database does not answer (%s): calls fail at once until it does", self._why)
            self._thread = threading.Thread(target=self._retry, name="callbreak-store-outage", daemon=True)
            self._thread.start()

    def _retry(self) -> None:
        try:
            self._lost()
        except Exception as e:  # (letting go of what the outage broke: the tries go on all the same)
            log.warning("the database does not answer: letting go of its connections failed (%s)", e)
        while not self._stop.wait(self.every):
            try:
                self._probe()
                self._recover()
            except Exception as e:  # still down (or not yet able to renew): the next try, later
                self._why = " ".join(str(e).split())[:200] or type(e).__name__
                continue
            since = self._since if self._since is not None else self._clock()
            log.warning("the database answers again, after %.1f s", self._clock() - since)
            self._answering.set()
            return

    def wait_answering(self, timeout: float) -> bool:
        """Wait until the database answers again (True), or ``timeout`` seconds (False)."""
        return self._answering.wait(timeout)

    def close(self) -> None:
        """Stop trying (the store is closing)."""
        self._stop.set()
        t = self._thread
        if t is not None and t is not threading.current_thread():
            t.join(timeout=5)


class Said:
    """A failure that repeats while a service is away (every try of a loop that reconnects),
    said once as it begins, again every ``every`` seconds while it lasts, and once as it ends,
    instead of at every try (an operator's log held some 180 lines for 15 s of Redis away, and
    nothing once it was back).

    >>> now = [0.0]
    >>> said = Said("redis subscription", every=60.0, clock=lambda: now[0])
    >>> said.failed(OSError("Connection refused")); now[0] = 5.0; said.failed(OSError("Connection refused"))
    >>> said.failures, said.down
    (2, True)
    >>> now[0] = 15.0; said.ok(); said.down
    False
    """

    def __init__(self, what: str, every: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.what = what
        self.every = every
        self._clock = clock
        self._since: float | None = None
        self._told = 0.0
        self.failures = 0

    @property
    def down(self) -> bool:
        return self._since is not None

    def failed(self, error: BaseException) -> None:
        now = self._clock()
        self.failures += 1
        if self._since is None:
            self._since = self._told = now
            log.warning("%s: lost (%s); trying again", self.what, error)
        elif now - self._told >= self.every:
            self._told = now
            log.warning("%s: still lost after %.0f s (%s)", self.what, now - self._since, error)

    def ok(self) -> None:
        if self._since is not None:
            log.warning("%s: back after %.1f s (%d failed tries)", self.what, self._clock() - self._since, self.failures)
            self._since = None
            self.failures = 0
