"""Bot decisions in worker processes: a hard bot's search takes tens of milliseconds of CPU,
and in a thread it holds the interpreter lock the event loop needs, so many tables of hard
bots would slow every table of the process.  `BotPool` sends each decision (the seat's
`SeatView`, which holds nothing the seat may not see) to a pool of processes.

Each worker keeps one bot per (level, seed), made as a served table makes it
(`callbreak.bots.warmup.serving_bot`: a hard seat answers at the medium level until the
kernel is compiled); a seat's decisions may land on different workers, so a worker's bots
are as good as the table's own but not the same sequence of random draws.

>>> from callbreak import Match
>>> pool = BotPool(1, warm=False)   # (a server's pool loads the hard bot's kernel at once)
>>> m = Match(seed=3)
>>> view = m.view(m.to_act)
>>> import asyncio
>>> asyncio.run(pool.decide("medium", 7, view)) in view.legal_calls
True
>>> pool.close()
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ..bots import Bot
from ..cards import Card
from ..extras import missing
from ..round import SeatView

__all__ = ["BotPool", "decide"]

log = logging.getLogger("callbreak.server")

_bots: dict[tuple[str, int], Bot] = {}


def decide(level: str, seed: int, view: SeatView) -> int | Card | None:
    """In a worker: the action of the (level, seed) bot for ``view`` (None when it fails)."""
    from ..bots.warmup import serving_bot
    from .autopilot import safe_act

    bot = _bots.get((level, seed))
    if bot is None:
        if level == "hard":
            _warm()
        if len(_bots) > 4096:
            _bots.clear()
        bot = _bots[(level, seed)] = serving_bot(level, seed)
    return safe_act(bot, view)


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
    of the server's event loop, sockets or threads)."""

    def __init__(self, workers: int, warm: bool = True) -> None:
        self.workers = workers
        self.warm = warm
        self._pool = self._new()

    async def decide(self, level: str, seed: int, view: SeatView) -> int | Card | None:
        """The bot's action; a worker that died is replaced and the decision asked again once
        (None if that fails too: the table plays the lowest legal action, as on a timeout)."""
        for _ in range(2):
            pool = self._pool
            try:
                return await asyncio.get_running_loop().run_in_executor(pool, decide, level, seed, view)
            except BrokenProcessPool:
                log.warning("a bot worker died; starting the pool again")
                if self._pool is pool:
                    self._pool = self._new()
        return None

    def _new(self) -> ProcessPoolExecutor:
        pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))
        if self.warm and not missing("bots"):
            # the workers start now and load the hard bot's kernel before a table waits on them
            for _ in range(self.workers):
                pool.submit(_start_warming)
        return pool

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
