"""Calls and cards committed off the event loop: in order, in batches, told back on the loop.

On PostgreSQL (with ``write_behind`` on: `callbreak.server.config.ServerConfig`) a commit is a
round trip to another process, or another host; the event loop that waited for each
one stalled every table of the process while PostgreSQL was scheduled (a quarter to a third of a
loaded loop's time went there).  A `WriteBehind` takes the common entry (a call, a card: no new
token, no change of the table's status) from the loop, commits it on a thread of its own, many
entries of many tables in one statement, and hands each entry's outcome back to the loop, in
the order the entries came.  A table publishes an entry's events only when it is committed
(`callbreak.server.live.LiveTable`), so no seat ever sees what the store does not hold.

A failed entry fails every later entry of the same table copy (``key``) without reaching the
store (`EntryDropped`): the table reloads from its log, which has no gap.

>>> import asyncio, tempfile
>>> from callbreak.server.store import EntryDropped
>>> class Rows:   # a BatchStore in memory: commits rows, refuses a taken (table, number)
...     def __init__(self) -> None:
...         self.rows: dict[tuple[str, int], dict[str, object]] = {("b", 0): {}}
...     def append_batch(self, rows):
...         out, failed = [], set()
...         for tid, seq, entry, ts in rows:
...             if tid in failed or (tid, seq) in self.rows:
...                 failed.add(tid); out.append(EntryDropped(f"{tid} {seq}")); continue
...             self.rows[tid, seq] = entry; out.append(None)
...         return out
>>> async def main() -> list[tuple[str, bool]]:
...     told: list[tuple[str, bool]] = []
...     wb = WriteBehind(Rows(), asyncio.get_running_loop())
...     a, b = object(), object()
...     for key, tid, seq in ((a, "a", 0), (b, "b", 0), (b, "b", 1), (a, "a", 1)):
...         wb.append(key, (tid, seq, {}, 0.0), lambda err, s=f"{tid}{seq}": told.append((s, err is None)))
...     await asyncio.to_thread(wb.wait, "a"); await asyncio.to_thread(wb.wait, "b")
...     await asyncio.sleep(0)
...     wb.close()
...     return told
>>> asyncio.run(main())   # b0 was taken: b1 is dropped with it, a's entries commit
[('a0', True), ('b0', False), ('b1', False), ('a1', True)]
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from .store import BatchStore, EntryDropped, Row

__all__ = ["Done", "WriteBehind"]

log = logging.getLogger("callbreak.server")

#: what an entry's outcome is told to, on the event loop: None when committed, else why not
Done = Callable[[Exception | None], None]

#: entries committed in one statement, at most
MAX_BATCH = 256


@dataclass(slots=True)
class _Item:
    key: object
    row: Row
    done: Done


class WriteBehind:
    """Commits entries on a thread of its own and tells each outcome on ``loop``, in order.

    ``on_commit(seconds, n)``: ``n`` entries were committed together in ``seconds``.

    >>> import asyncio
    >>> from callbreak.server.store import StoreConflict
    >>> class Taken:   # a store on which every entry is taken
    ...     seen = 0
    ...     def append_batch(self, rows):
    ...         Taken.seen += len(rows)
    ...         return [StoreConflict(f"{r[0]} {r[1]}") for r in rows]
    >>> async def main() -> list[str]:
    ...     told: list[str] = []
    ...     wb = WriteBehind(Taken(), asyncio.get_running_loop())
    ...     key = object()
    ...     wb.append(key, ("t", 3, {}, 0.0), lambda err: told.append(type(err).__name__))
    ...     first = await asyncio.to_thread(wb.wait, "t", key)
    ...     wb.append(key, ("t", 4, {}, 0.0), lambda err: told.append(type(err).__name__))
    ...     await asyncio.to_thread(wb.wait, "t", key)
    ...     wb.close()
    ...     return told + [str(first), str(Taken.seen)]
    >>> asyncio.run(main())   # the first is refused; the second never reaches the store
    ['StoreConflict', 'EntryDropped', 'False', '1']
    """

    def __init__(
        self,
        store: BatchStore,
        loop: asyncio.AbstractEventLoop,
        on_commit: Callable[[float, int], None] | None = None,
    ) -> None:
        self.store = store
        self.loop = loop
        self.on_commit = on_commit
        self._cond = threading.Condition()
        self._queue: deque[_Item] = deque()
        #: entries of each table queued or being committed
        self._pending: dict[str, int] = {}
        #: table copies (keys) with an entry that failed: their later entries fail unsent (one
        #: key per failure of the database or conflict between processes: a handful, kept)
        self._failed: set[object] = set()
        self._closing = False
        #: entries ever queued, and ever finished (committed or failed): what `flush` counts
        self._appended = 0
        self._finished = 0
        self._thread = threading.Thread(target=self._run, name="callbreak-writebehind", daemon=True)
        self._thread.start()

    def append(self, key: object, row: Row, done: Done) -> None:
        """Queue ``row`` (table id, entry number, entry, time stamp) of the table copy ``key``;
        ``done`` is called on the loop with its outcome, after every earlier entry's.
        RuntimeError once closed."""
        with self._cond:
            if self._closing or not self._thread.is_alive():
                raise RuntimeError("the write-behind is closed")
            self._queue.append(_Item(key, row, done))
            self._appended += 1
            self._pending[row[0]] = self._pending.get(row[0], 0) + 1
            self._cond.notify()

    def wait(self, table_id: str, key: object = None) -> bool:
        """Block until no entry of ``table_id`` is queued or being committed (their outcomes may
        not have been told yet); whether the copy ``key`` has had no entry fail.  For what must
        not overtake a table's entries: a commit made on the loop (a new seat, a change of
        status), or a load of the table from the store."""
        with self._cond:
            self._cond.wait_for(lambda: table_id not in self._pending or not self._thread.is_alive())
            return key not in self._failed and table_id not in self._pending

    def flush(self) -> None:
        """Block until every entry queued so far is committed or has failed (not those queued
        meanwhile: a table still playing does not hold it up)."""
        with self._cond:
            target = self._appended
            self._cond.wait_for(lambda: self._finished >= target or not self._thread.is_alive())

    def close(self) -> None:
        """Commit what is queued, then stop the thread (the outcomes are still told on the loop)."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join()

    # --- the thread ----------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._queue) or self._closing)
                if not self._queue:
                    return
                batch = [self._queue.popleft() for _ in range(min(len(self._queue), MAX_BATCH))]
            try:
                self._commit(batch)
            except Exception as e:  # a fault here, not the store's: the batch's tables reload
                log.exception("write-behind: a batch of %d entries failed", len(batch))
                for item in batch:
                    self._failed.add(item.key)
                self._tell_loop([(item.done, e) for item in batch], 0.0, 0)
            finally:  # whatever happened, the batch is no longer pending: nobody waits for ever
                with self._cond:
                    self._finished += len(batch)
                    for item in batch:
                        tid = item.row[0]
                        left = self._pending[tid] - 1
                        if left:
                            self._pending[tid] = left
                        else:
                            del self._pending[tid]
                    self._cond.notify_all()

    def _commit(self, batch: list[_Item]) -> None:
        """Commit ``batch`` (the entries of copies that have not failed) and tell the loop."""
        sent = [item for item in batch if item.key not in self._failed]
        t0 = time.perf_counter()
        try:
            answers = self.store.append_batch([item.row for item in sent]) if sent else []
            if len(answers) != len(sent):
                raise RuntimeError(f"the store answered {len(answers)} outcomes for {len(sent)} entries")
        except Exception as e:  # the store's fault: each entry is told it failed, and why
            log.exception("write-behind: %d entries failed", len(sent))
            answers = [e] * len(sent)
        seconds = time.perf_counter() - t0
        outcome: dict[int, Exception | None] = {id(item): err for item, err in zip(sent, answers, strict=True)}
        told: list[tuple[Done, Exception | None]] = []
        for item in batch:
            err = outcome[id(item)] if id(item) in outcome else self._dropped(item)
            if err is not None:
                self._failed.add(item.key)
            told.append((item.done, err))
        n = len(sent) - sum(err is not None for err in answers)
        # told before the entries stop being pending: whoever `wait`ed finds the outcomes
        # already on their way to the loop, ahead of anything it does next
        self._tell_loop(told, seconds, n)

    def _tell_loop(self, told: list[tuple[Done, Exception | None]], seconds: float, n: int) -> None:
        try:
            self.loop.call_soon_threadsafe(self._tell, told, seconds, n)
        except RuntimeError:  # the loop has closed: nobody is left to tell
            log.warning("write-behind: the event loop closed before %d outcomes were told", len(told))

    @staticmethod
    def _dropped(item: _Item) -> Exception:
        tid, seq = item.row[0], item.row[1]
        return EntryDropped(f"table {tid}: entry {seq} follows an entry that was not committed")

    def _tell(self, told: list[tuple[Done, Exception | None]], seconds: float, n: int) -> None:
        if n and self.on_commit is not None:
            try:
                self.on_commit(seconds, n)
            except Exception:  # a measurement's fault must not keep the outcomes from the tables
                log.exception("write-behind: measuring a commit failed")
        for done, err in told:
            try:
                done(err)
            except Exception:  # one table's fault must not keep the others' outcomes from them
                log.exception("write-behind: telling an outcome failed")
