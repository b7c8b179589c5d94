"""One event loop, one CPU (``CALLBREAK_PIN_CPU``, Linux).

`pin` keeps the calling thread (``callbreak serve``'s event loop) on one CPU, chosen by the
process's number (``--process``), so that the processes of one host each keep a CPU of their
own instead of being moved between them.  What the loop thread starts later inherits its CPU;
`widen` gives a child process (a bot, hint or analysis worker) every CPU the
process had before (``initializer=widen, initargs=(unpinned(),)``), so heavy work never
runs on the loop's CPU by inheritance.

>>> import os
>>> before = os.sched_getaffinity(0)
>>> import threading
>>> got = []
>>> def pinned() -> None:
...     got.append(pin(1))
...     got.append(os.sched_getaffinity(0))
>>> th = threading.Thread(target=pinned); th.start(); th.join()
>>> got[1] == {got[0]} and got[0] in before, os.sched_getaffinity(0) == before  # the thread alone
(True, True)
"""

from __future__ import annotations

import os

__all__ = ["pin", "unpinned", "widen"]

#: the CPUs this process could use before `pin` (None: not pinned)
_before: frozenset[int] | None = None


def pin(process: int) -> int:
    """Keep the calling thread on one CPU of those it may use, the ``process``-th (round the
    list); that CPU.  ValueError where the system cannot pin (not Linux).

    >>> import os, threading
    >>> got = []
    >>> th = threading.Thread(target=lambda: got.append((pin(0), os.sched_getaffinity(0)))); th.start(); th.join()
    >>> got[0][1] == {got[0][0]} == {min(os.sched_getaffinity(0))}
    True
    """
    global _before
    if not hasattr(os, "sched_setaffinity"):
        raise ValueError("CALLBREAK_PIN_CPU needs Linux (sched_setaffinity)")
    allowed = sorted(os.sched_getaffinity(0))
    cpu = allowed[process % len(allowed)]
    if _before is None:
        _before = frozenset(allowed)
    os.sched_setaffinity(0, {cpu})
    return cpu


def unpinned() -> frozenset[int] | None:
    """The CPUs the process had before `pin` (None when nothing was pinned).

    >>> unpinned() is None or len(unpinned()) >= 1
    True
    """
    return _before


def widen(cpus: frozenset[int] | None) -> None:
    """Let the calling process run on ``cpus`` again (None: leave it as it is); a worker
    pool's ``initializer``, with ``initargs=(unpinned(),)`` taken in the server.

    >>> widen(None)
    """
    if cpus:
        os.sched_setaffinity(0, cpus)

