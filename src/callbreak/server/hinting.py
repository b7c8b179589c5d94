"""Hints for the seat to act: one computation per seat and decision, in their own pool
(of child processes, by default).

A hint is a hard search (thousands of playouts).  `Hints` works each one out once per
(table, seat, version): a repeated request gets the cached answer or joins the one in
progress.  The work runs in a small thread pool of its own (``hint_workers`` threads),
so bots, which think in the default pool, never wait behind hints; at most
``hint_queue`` hints wait or run at once (more are refused with ``rate_limited``); and a
hint whose decision is gone before its turn in the pool comes is skipped, not computed.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

from ..bots import Hint
from ..bots.hints import hint
from ..bots.warmup import KERNEL
from ..round import SeatView
from .affinity import unpinned, widen
from .live import LiveTable
from .protocol import HintMessage, encode
from .table import TableError

__all__ = ["Hints", "hint_message"]

_GONE = "the turn moved on before the hint was ready"

#: how much lower a hint process's CPU priority is than the server's (`os.nice`)
HINT_NICE = 10

#: the most seconds a new hint process waits for its kernel before its first hint
CHILD_LOAD_WAIT = 30.0


def _child_start(cpus: frozenset[int] | None) -> None:
    """A hint process: on every CPU the server had before its loop was pinned (`widen`), at a
    lower CPU priority than the server (a hint is worth less than the tables' moves), loading the
    hard kernel quietly (hints answer at the medium level until it is ready; the server has said so)."""
    widen(cpus)
    os.nice(HINT_NICE)
    KERNEL.start(_quiet)
    # (the child is made once the server's kernel is ready, its cache on disk: a load of seconds,
    # which the first hint waits for rather than answer at the medium level; CI's find)
    KERNEL.wait(CHILD_LOAD_WAIT)


def _quiet(message: str) -> None:
    del message


def hint_message(v: int, hint: Hint, ref: str | int | None = None) -> HintMessage:
    """The `hint` message of ``hint`` at the table's version ``v``: why as a code the
    client words (`Hint.say`), with its numbers rounded as `Hint.say` words them.

    >>> from callbreak.cards import Card
    >>> m = hint_message(7, Hint(call=4, chance=0.8249, why="call", mean=4.249, level="hard"))
    >>> m.call, m.chance, m.mean, m.why, m.reason
    (4, 0.825, 4.2, 'call', 'this hand should take about 4.2 tricks; 83% chance to make 4')
    """
    return HintMessage(
        v,
        hint.call,
        None if hint.chance is None else round(hint.chance, 3),
        None if hint.card is None else str(hint.card),
        hint.reason,
        hint.level,
        ref,
        hint.why,
        None if hint.mean is None else round(hint.mean, 1),
        None if hint.than is None else str(hint.than),
        hint.quick,
    )


def _child_hint(view: SeatView) -> tuple[int, Hint]:
    return os.getpid(), hint(view, until_ready=KERNEL)


class Hints:
    """The hints of every table of a hub: a cache per seat, a bounded pool of work.

    ``processes``: each hint is worked out in a child process (as many as ``workers``, started at
    the first hint), so its Python work never holds this process's GIL against the event loop; the
    pool's threads only wait for them.  Without, the threads work the hints out themselves.

    >>> import asyncio
    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> t, tokens = hub.create_table(Ruleset(), name="Asha", play_now=True)
    >>> hints = Hints(workers=1, queue=16)
    >>> try:   # a hint is for the seat to act (its search is `callbreak.bots.hints.hint`)
    ...     asyncio.run(hints.hint(t, (t.state.to_act + 1) % 4))
    ... except TableError as e:
    ...     print(e.code, "|", e.message)
    not_your_turn | a hint is for your turn
    >>> hints.pending(), hints.computed, len(hints)
    (0, 0, 0)
    >>> hints.close(); hub.store.close(); hub.hints.close()
    """

    def __init__(self, workers: int = 1, queue: int = 16, processes: bool = False) -> None:
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="callbreak-hint")
        self.workers = workers
        self.processes = processes
        self._children: Executor | None = None
        self.queue = queue
        #: (table, seat) -> (version, the hint of that decision, done or in progress)
        self._cache: dict[tuple[str, int], tuple[int, asyncio.Future[Hint | None]]] = {}
        self._pending = 0
        self._lock = threading.Lock()
        #: how many hints were actually worked out (tests and benchmarks read it)
        self.computed = 0
        #: the process ids of the children that have worked hints out
        self.children: set[int] = set()

    def __len__(self) -> int:
        return len(self._cache)

    def pending(self) -> int:
        """Hints waiting for the pool or being worked out."""
        return self._pending

    async def message(self, t: LiveTable, seat: int, ref: str | int | None) -> str:
        """The ``hint`` message for ``seat``, whose turn it is (`TableError` otherwise).

        The hard level answers (from the medium level, and saying so, while its kernel
        warms up); a failure is the caller's to report, never a made-up hint.
        """
        result = await self.hint(t, seat)
        return encode(hint_message(t.state.v, result, ref))

    async def hint(self, t: LiveTable, seat: int) -> Hint:
        st = t.state
        if st.to_act != seat or st.match is None:
            raise TableError("not_your_turn", "a hint is for your turn")
        key = (t.id, seat)
        cached = self._cache.get(key)
        if cached is not None and cached[0] == st.v:
            fut = cached[1]
        else:
            if cached is not None:
                cached[1].cancel()  # an older decision's hint: not started, it never will be
            if self._pending >= self.queue:
                raise TableError("rate_limited", "many hints are being worked out; ask again in a moment")
            view = st.match.view(seat)
            KERNEL.start()
            fut = asyncio.get_running_loop().run_in_executor(self.executor, self._work, t, st.v, view)
            self._pending += 1
            fut.add_done_callback(self._done)
            self._cache[key] = (st.v, fut)
        try:
            result = await asyncio.shield(fut)
        except asyncio.CancelledError:
            if fut.cancelled():
                raise TableError("not_your_turn", _GONE) from None
            raise
        if result is None:
            raise TableError("not_your_turn", _GONE)
        return result

    def _done(self, fut: asyncio.Future[Hint | None]) -> None:
        self._pending -= 1

    def _work(self, t: LiveTable, v: int, view: SeatView) -> Hint | None:
        if t.state.v != v:  # the seat has acted (or the table moved on): nobody needs it
            return None
        # the child is used once this process's kernel is ready: its cache is on disk by then, so
        # the child loads it instead of compiling it a second time (until then the hint is the
        # medium level's quick one, worked out here)
        use_child = self.processes and KERNEL.ready
        with self._lock:
            self.computed += 1
            if use_child and self._children is None:
                self._children = ProcessPoolExecutor(
                    self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_child_start,
                    initargs=(unpinned(),),
                )
        if use_child and self._children is not None:
            pid, result = self._children.submit(_child_hint, view).result()
            if not result.quick:
                self.children.add(pid)  # (the processes whose hints were given)
                return result
            # (the child still loading the kernel from this process's cache, seconds: this process
            # has it, and works the hard hint out here meanwhile, not the medium level's quick one)
        return hint(view, until_ready=KERNEL)

    def forget(self, table_id: str) -> None:
        """Drop a table's hints (it is unloaded)."""
        for seat in range(4):
            cached = self._cache.pop((table_id, seat), None)
            if cached is not None:
                cached[1].cancel()

    def close(self) -> None:
        for _, fut in self._cache.values():
            fut.cancel()
        self._cache.clear()
        self.executor.shutdown(wait=False, cancel_futures=True)
        if self._children is not None:
            self._children.shutdown(wait=True, cancel_futures=True)
            self._children = None
