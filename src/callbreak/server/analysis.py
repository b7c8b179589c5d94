"""Post-match analysis on the server: run off the event loop, kept with the table.

A finished table's analysis (`callbreak.analysis`, all four seats) is asked for
with ``POST /api/tables/{id}/analysis`` and followed with ``GET`` on the same
path, which answers an `AnalysisStatus`: ``running`` with the deals done so
far, or ``ready`` with the whole `Analysis`.  The work runs in a pool of
worker processes (``analysis_workers``; the event loop never waits for it),
one job per deal of the match, so the progress is counted in deals.  The
result is stored with the table (`Store.save_analysis`) under the settings it
was made with, so every later look, after a restart too, is one read.

A finished match's hand history is public (``/api/tables/{id}/history``), so
its analysis is too: it shows every seat.

>>> AnalysisStatus(state="running", done=1, total=5).state
'running'
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from ..analysis import Analysis, Decision
from ..analysis.engine import analyse_deal, assemble
from ..analysis.hindsight import DoubleDummy
from ..notation import from_json
from .affinity import unpinned, widen
from .store import Store

__all__ = ["AnalysisStatus", "Analyst", "settings_key"]

log = logging.getLogger("callbreak.server")

#: the analysis seed of the server (a stored analysis is reproducible from it and the budget)
SEED = 0


class AnalysisStatus(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The answer of ``/api/tables/{id}/analysis``: ``running`` (``done`` of ``total``
    deals analysed), ``ready`` (with ``analysis``) or ``failed`` (with ``message``: English,
    for the logs; the client words a failure from the state).

    >>> msgspec.json.encode(AnalysisStatus(state="running", done=2, total=5))
    b'{"state":"running","done":2,"total":5}'
    >>> msgspec.json.decode(b'{"state": "failed", "message": "the analysis failed: OSError"}', type=AnalysisStatus)
    AnalysisStatus(state='failed', done=0, total=0, analysis=None, message='the analysis failed: OSError')
    """

    state: Literal["running", "ready", "failed"]
    done: int = 0
    total: int = 0
    analysis: Analysis | None = None
    message: str = ""


def settings_key(budget: int) -> str:
    """The name a stored analysis is kept under: what it was made with.

    >>> settings_key(800)
    'v4:budget=800:seed=0'
    """
    return f"v4:budget={budget}:seed={SEED}"  # v2: hindsight from the first cards; v3: moves made for a seat marked; v4: graded as shown


def _deal_job(history: str, deal: int, budget: int) -> list[dict[str, Any]]:
    """One deal's decisions, in a worker process (plain data across the process boundary)."""
    match = from_json(history)
    return [d.to_dict() for d in analyse_deal(match, deal, None, budget, SEED)]


def _warm() -> None:
    """Load the compiled kernel in a worker (from its disk cache) before the first analysis."""
    from ..match import Match
    from ..rules import Ruleset

    m = Match(Ruleset.preset("quick", rounds=1), seed=0)
    while m.round.phase == "calling":
        m.act(m.round.legal_calls()[0])
    analyse_deal(m, 0, None, 16, SEED, hindsight=False)
    DoubleDummy(0, node_budget=1).max_tricks(m.round)  # the hindsight's search, over budget at once


@dataclass
class _Job:
    total: int
    done: int = 0
    task: asyncio.Task[None] | None = None
    error: str = ""
    parts: dict[int, list[Decision]] = field(default_factory=dict)


class Analyst:
    """Runs and keeps the analyses of finished tables.

    >>> from callbreak.server.store import open_store
    >>> store = open_store(":memory:")
    >>> analyst = Analyst(store, budget=800, workers=1)
    >>> analyst.key, analyst.status("k3Xa9Q")   # never asked for
    ('v4:budget=800:seed=0', None)
    >>> analyst.close(); store.close()
    """

    def __init__(self, store: Store, budget: int, workers: int) -> None:
        self.store = store
        self.budget = budget
        self.key = settings_key(budget)
        self.workers = workers
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.jobs: dict[str, _Job] = {}

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            # spawned, not forked: a fork of a process running an event loop and threads is unsafe
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=widen, initargs=(unpinned(),)
            )
        return self._pool

    def warm(self) -> None:
        """Start a worker and load the kernel there now, so the first analysis does not wait."""
        self._executor().submit(_warm)

    def status(self, table_id: str) -> AnalysisStatus | None:
        """Where the analysis of ``table_id`` stands (None: never asked for)."""
        job = self.jobs.get(table_id)
        if job is not None:
            if job.error:
                return AnalysisStatus(state="failed", done=job.done, total=job.total, message=job.error)
            return AnalysisStatus(state="running", done=job.done, total=job.total)
        body = self.store.load_analysis(table_id, self.key)
        if body is None:
            return None
        analysis = msgspec.json.decode(body, type=Analysis)
        return AnalysisStatus(state="ready", done=1, total=1, analysis=analysis)

    def start(self, table_id: str, history: str, auto: dict[tuple[int, int], str] | None = None) -> AnalysisStatus:
        """Start analysing the finished match of ``history`` (its JSON hand history),
        unless it is stored or running already; the status either way. ``auto``: the
        decisions the server made for a seat (`TableState.auto_decisions`), not graded as the player's."""
        known = self.status(table_id)
        if known is not None and known.state != "failed":
            return known
        match = from_json(history)
        job = _Job(total=len(match.deals))
        self.jobs[table_id] = job
        job.task = asyncio.get_running_loop().create_task(self._run(table_id, history, job, auto or {}))
        return AnalysisStatus(state="running", done=0, total=job.total)

    async def _run(self, table_id: str, history: str, job: _Job, auto: dict[tuple[int, int], str]) -> None:
        loop = asyncio.get_running_loop()
        pool = self._executor()

        async def one(deal: int) -> None:
            rows = await loop.run_in_executor(pool, _deal_job, history, deal, self.budget)
            job.parts[deal] = [Decision.from_dict(r) for r in rows]
            job.done += 1

        try:
            await asyncio.gather(*(one(d) for d in range(job.total)))
            match = from_json(history)
            decisions = [d for i in range(job.total) for d in job.parts[i]]
            analysis = assemble(match, (0, 1, 2, 3), self.budget, SEED, decisions, auto)
            self.store.save_analysis(table_id, self.key, msgspec.json.encode(analysis))
        except Exception as e:  # reported to whoever polls; a new POST tries again
            log.exception("analysis of table %s failed", table_id)
            job.error = f"the analysis failed: {type(e).__name__}"
            return
        self.jobs.pop(table_id, None)

    def close(self) -> None:
        for job in self.jobs.values():
            if job.task is not None:
                job.task.cancel()
        self.jobs.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
