"""Bot decisions in worker processes: a hard bot's search takes tens of milliseconds of CPU,
and in a thread it holds the interpreter lock the event loop needs, so many tables of hard
bots would slow every table of the process.  `BotPool` sends each decision (the seat's
`SeatView`, which holds nothing the seat may not see) to a pool of processes.

Each worker keeps one bot per level, made as a served table makes it
(`callbreak.bots.warmup.serving_bot`: a hard seat answers at the medium level until the
kernel is compiled), and seeds it for each decision with the decision's own seed
(`autopilot.decision_seed`: the table's seed, the seat and the version): a decision is the
same whichever worker makes it, here or on a bot worker of another host
(`botqueue_redis`), and the same as in a thread (up to the hard search's wall-clock cap).

`Deciders` is what a table asks: `BotPool`, or the Redis queue of bot workers.

>>> from callbreak import Match
>>> pool = BotPool(1, warm=False)   # (a server's pool loads the hard bot's kernel at once)
>>> m = Match(seed=3)
>>> view = m.view(m.to_act)
>>> import asyncio
>>> asyncio.run(pool.decide(BotAsk("t1", 4, m.to_act, "medium", 7, view))) in view.legal_calls
True
>>> asyncio.run(pool.close())
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Protocol

from ..bots import Bot
from ..cards import Card
from ..extras import missing
from ..round import SeatView
from .affinity import unpinned, widen

__all__ = ["LOCAL_AT_ONCE", "BotAsk", "BotPool", "Deciders", "decide"]

log = logging.getLogger("callbreak.server")

_bots: dict[tuple[str, bool], Bot] = {}


#: the bot decisions a table's process makes itself at once, for remote deciders (bot workers)
#: that did not answer by the deadline (`Autopilot`): its CPU bounded when the workers are down
LOCAL_AT_ONCE = 2


@dataclass(frozen=True)
class BotAsk:
    """One decision a table asks for: its table and version (the answer counts only while the
    table is still there), the seat, the bot's level, the decision's seed, the seat's view
    (nothing the seat may not see) and, for a bot that learns from the whole match, the
    seat's views of the match's finished rounds (`autopilot.earlier_views`); ``capped``: whether a
    hard bot's search has the serving wall-clock cap (not at a server started with ``--seed``).

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> ask = BotAsk("t1", 0, m.to_act, "medium", 7, m.view(m.to_act))
    >>> ask.seat, decide(ask.level, ask.seed, ask.view) == decide(ask.level, ask.seed, ask.view)
    (2, True)
    """

    table: str
    v: int
    seat: int
    level: str
    seed: int
    view: SeatView
    earlier: tuple[SeatView, ...] = ()
    capped: bool = True


class Deciders(Protocol):
    """Where a table's bots decide off the event loop: `BotPool` (processes of this host) or
    `callbreak.server.botqueue_redis.RedisBotQueue` (bot workers on any host).

    >>> pool: Deciders = BotPool(1, warm=False)
    >>> pool.waiting, pool.remote
    (0, False)
    >>> import asyncio; asyncio.run(pool.close())
    """

    @property
    def waiting(self) -> int:
        """Decisions asked and not answered yet."""

    @property
    def remote(self) -> bool:
        """Whether the decisions are made elsewhere (bot workers): a decision with no answer
        (None) is then made by the table's own process (`Autopilot`), as with no deciders."""

    async def start(self) -> None:
        """Connect (on the running loop) before the first `decide`."""

    async def decide(self, ask: BotAsk) -> int | Card | None:
        """The bot's action (None: none; a remote decider's, decided by the table's process, else
        the seat plays the lowest legal action)."""

    async def close(self) -> None: ...


def decide(
    level: str, seed: int, view: SeatView, earlier: Sequence[SeatView] = (), capped: bool = True
) -> int | Card | None:
    """In a worker: the action of a ``level`` bot seeded with ``seed`` for ``view``, told the
    ``earlier`` rounds (`autopilot.seeded_act`; None when it fails).  The same arguments give
    the same action, in any process.

    >>> from callbreak import Match
    >>> m = Match(seed=4)
    >>> view = m.view(m.to_act)
    >>> call = decide("medium", 11, view)
    >>> call in view.legal_calls, call == decide("medium", 11, view)
    (True, True)
    """
    from ..bots.warmup import serving_bot
    from .autopilot import seeded_act

    bot = _bots.get((level, capped))
    if bot is None:
        if level == "hard":
            _warm()
        bot = _bots[(level, capped)] = serving_bot(level, seed, capped=capped)
    return seeded_act(bot, seed, view, earlier)


def _start_warming() -> None:
    """A worker's first job: begin loading the hard bot's kernel in the background."""
    from ..bots.warmup import KERNEL

    KERNEL.start()


def _warm() -> None:
    """Before a worker's first hard decision: load the hard bot's kernel (from its cache), so a
    hard seat decided here is the hard bot, not the medium level standing in meanwhile."""
    from ..bots.warmup import KERNEL

    KERNEL.start()
    KERNEL.wait(120)


class BotPool:
    """``workers`` processes deciding for bots (started on first use, with ``spawn``: no copy
    of the server's event loop, sockets or threads).

    >>> import asyncio
    >>> from callbreak import Match
    >>> m = Match(seed=4)
    >>> view = m.view(m.to_act)
    >>> async def ask() -> tuple[object, int]:
    ...     pool = BotPool(1, warm=False)
    ...     try:
    ...         return await pool.decide(BotAsk("t1", 0, m.to_act, "easy", 3, view)), pool.waiting
    ...     finally:
    ...         await pool.close()
    >>> action, waiting = asyncio.run(ask())
    >>> action == decide("easy", 3, view), waiting
    (True, 0)
    """

    def __init__(self, workers: int, warm: bool = True) -> None:
        self.workers = workers
        self.warm = warm
        self._pool = self._new()
        self._waiting = 0

    @property
    def waiting(self) -> int:
        return self._waiting

    @property
    def remote(self) -> bool:
        """No: a decision this host's processes fail would fail here too."""
        return False

    async def start(self) -> None:
        """Nothing to connect: the workers start with the pool."""

    async def decide(self, ask: BotAsk) -> int | Card | None:
        """The bot's action; a worker that died is replaced and the decision asked again once
        (None if that fails too: the table plays the lowest legal action, as on a timeout)."""
        self._waiting += 1
        try:
            for _ in range(2):
                pool = self._pool
                try:
                    return await asyncio.get_running_loop().run_in_executor(
                        pool, decide, ask.level, ask.seed, ask.view, ask.earlier, ask.capped
                    )
                except BrokenProcessPool:
                    log.warning("a bot worker died; starting the pool again")
                    if self._pool is pool:
                        self._pool = self._new()
            return None
        finally:
            self._waiting -= 1

    def _new(self) -> ProcessPoolExecutor:
        pool = ProcessPoolExecutor(
            self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=widen, initargs=(unpinned(),)
        )
        if self.warm and not missing("bots"):
            # the workers start now and load the hard bot's kernel before a table waits on them
            for _ in range(self.workers):
                pool.submit(_start_warming)
        return pool

    async def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
