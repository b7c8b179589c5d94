"""Calls and cards committed without the event loop waiting: in order, in batches, told on the loop.

On PostgreSQL (with ``write_behind`` on: `callbreak.server.config.ServerConfig`) a commit is a
round trip to another process, or another host; an event loop that waits for each one stalls
every table of the process while PostgreSQL is scheduled (a quarter to a third of a loaded
loop's time went there).  A `WriteBehind` takes the common entry (a call, a card: no new token,
no change of the table's status) from its table and sends it to PostgreSQL on a connection of
its own without waiting (`callbreak.server.store.BatchChannel`): the loop goes on with other
tables' work, and when the answer comes (the socket is readable) each entry's outcome is told,
in the order the entries came.  While one statement is on its way the next entries gather, and
go together in the next one (up to `MAX_BATCH`).  A table publishes an entry's events only when
it is committed (`callbreak.server.live.LiveTable`), so no seat ever sees what the store does
not hold.

A failed entry fails every later entry of the same table copy (``key``) without reaching the
store (`EntryDropped`): the table reloads from its log, which has no gap.

The rare commit made on the loop (a new seat, a change of status) or a load of a table must not
overtake the table's entries on their way: `WriteBehind.wait` blocks the loop until they are
answered (the socket waited on directly); `WriteBehind.flush` the same for every entry.

>>> import asyncio, socket
>>> from callbreak.server.store import EntryDropped, StoreConflict
>>> class Rows:   # a BatchStore in memory: a socket pair stands for the connection
...     def __init__(self) -> None:
...         self.rows: dict[tuple[str, int], dict[str, object]] = {("b", 0): {}}
...     def open_channel(self) -> "Channel":
...         return Channel(self)
>>> class Channel:
...     def __init__(self, store: Rows) -> None:
...         self.store, self.out = store, None
...         self.mine, self.peer = socket.socketpair()
...     def fileno(self) -> int:
...         return self.mine.fileno()
...     def send(self, rows) -> None:   # answered at once: the peer writes a byte
...         out, failed = [], set()
...         for tid, seq, entry, ts in rows:
...             if tid in failed or (tid, seq) in self.store.rows:
...                 failed.add(tid); out.append(StoreConflict(f"{tid} {seq}")); continue
...             self.store.rows[tid, seq] = entry; out.append(None)
...         self.out = out; self.peer.send(b"x")
...     def flushed(self) -> bool:
...         return True
...     def poll(self):
...         self.mine.recv(1); out, self.out = self.out, None
...         return out
...     def close(self) -> None:
...         self.mine.close(); self.peer.close()
>>> async def main() -> list[tuple[str, bool]]:
...     told: list[tuple[str, bool]] = []
...     wb = WriteBehind(Rows(), asyncio.get_running_loop())
...     a, b = object(), object()
...     for key, tid, seq in ((a, "a", 0), (b, "b", 0), (b, "b", 1), (a, "a", 1)):
...         wb.append(key, (tid, seq, {}, 0.0), lambda err, s=f"{tid}{seq}": told.append((s, err is None)))
...     ok = wb.wait("b", b)   # blocks until b's entries are answered
...     await asyncio.sleep(0)   # the outcomes are told on the loop
...     wb.close()
...     return told + [("b ok", ok)]
>>> asyncio.run(main())   # b0 was taken: b1 is dropped with it, a's entries commit
[('a0', True), ('b0', False), ('b1', False), ('a1', True), ('b ok', False)]
"""

from __future__ import annotations

import asyncio
import logging
import select
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from .store import BatchChannel, BatchStore, EntryDropped, Row, StoreUnavailable

__all__ = ["Done", "WriteBehind"]

log = logging.getLogger("callbreak.server")

#: what an entry's outcome is told to, on the event loop: None when committed, else why not
Done = Callable[[Exception | None], None]

#: entries committed in one statement, at most
MAX_BATCH = 256

#: seconds `WriteBehind.wait` and `WriteBehind.flush` block the loop for a batch's answer, at most
#: (from when it was sent); past them the batch fails (its tables reload from their logs). A batch
#: is one statement of at most `MAX_BATCH` rows: a database host gone silent costs this once
WAIT_LIMIT = 10.0


@dataclass(slots=True)
class _Item:
    key: object
    row: Row
    done: Done


class WriteBehind:
    """Commits entries without the loop waiting, and tells each outcome on ``loop``, in order.
    Everything runs on the loop's thread: no thread of its own, no lock.

    ``on_commit(seconds, n)``: ``n`` entries were committed together in ``seconds`` (sent to
    answered).  A channel that breaks fails its batch (the tables reload from their logs); the
    next batch opens another.

    >>> import asyncio
    >>> loop = asyncio.new_event_loop()
    >>> wb = WriteBehind(None, loop)   # nothing queued: closes at once
    >>> wb.close(); wb.append(object(), ("t1", 1, {"t": "call", "seat": 0, "call": 2}, 0.0), print)
    Traceback (most recent call last):
    RuntimeError: the write-behind is closed
    >>> loop.close()
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
        self._queue: deque[_Item] = deque()
        #: entries of each table waiting or on their way
        self._pending: dict[str, int] = {}
        #: table copies (keys) with an entry that failed: their later entries fail unsent (one
        #: key per failure of the database or conflict between processes: a handful, kept)
        self._failed: set[object] = set()
        self._closing = False
        #: entries ever queued, and ever finished (committed or failed): what `flush` counts
        self._appended = 0
        self._finished = 0
        self._channel: BatchChannel | None = None
        #: the batch on its way (all its items, in order), the ones sent among them, when
        self._batch: list[_Item] | None = None
        self._sent: list[_Item] = []
        self._sent_at = 0.0
        self._writing = False
        self._kicked = False
        self._fd = -1

    def append(self, key: object, row: Row, done: Done) -> None:
        """Queue ``row`` (table id, entry number, entry, time stamp) of the table copy ``key``;
        ``done`` is called on the loop with its outcome, after every earlier entry's.
        RuntimeError once closed."""
        if self._closing:
            raise RuntimeError("the write-behind is closed")
        self._queue.append(_Item(key, row, done))
        self._appended += 1
        self._pending[row[0]] = self._pending.get(row[0], 0) + 1
        if self._batch is None and not self._kicked:
            # sent at the loop's next turn: what the rest of this turn appends goes with it
            self._kicked = True
            self.loop.call_soon(self._kick)

    def open(self) -> None:
        """Connect now (at the server's start), so that the first entry does not wait for it;
        a later batch connects again if the connection broke."""
        self._open()

    def wait(self, table_id: str, key: object = None) -> bool:
        """Block the loop until no entry of ``table_id`` is waiting or on its way (their outcomes
        are then told on the loop, after what is already scheduled); whether the copy ``key``
        has had no entry fail.  For what must not overtake a table's entries: a commit made on
        the loop (a new seat, a change of status), or a load of the table from the store."""
        while table_id in self._pending:
            self._step()
        return key not in self._failed

    def flush(self) -> None:
        """Block the loop until every entry queued so far is committed or has failed."""
        target = self._appended
        while self._finished < target:
            self._step()

    def close(self) -> None:
        """Commit what is queued, then close the channel (the outcomes are still told on the loop)."""
        self._closing = True
        self.flush()
        self._close_channel()

    # --- on the loop ---------------------------------------------------------------------
    def _kick(self) -> None:
        self._kicked = False
        if self._batch is None:
            self._send_next()

    def _send_next(self) -> None:
        """Send the next batch, if any and none is on its way."""
        while self._batch is None and self._queue:
            batch = [self._queue.popleft() for _ in range(min(len(self._queue), MAX_BATCH))]
            sent = [item for item in batch if item.key not in self._failed]
            if not sent:
                self._finish(batch, sent, [])
                continue
            try:
                channel = self._open()
                channel.send([item.row for item in sent])
                flushed = channel.flushed()
            except StoreUnavailable as e:  # (the store's `Outage` says so in the log): each is told why
                log.warning("write-behind: %d entries failed (%s)", len(sent), e)
                self._close_channel()
                self._finish(batch, sent, [e] * len(sent))
                continue
            except Exception as e:  # the connection's fault: each entry is told it failed, and why
                log.exception("write-behind: %d entries failed", len(sent))
                self._close_channel()
                self._finish(batch, sent, [e] * len(sent))
                continue
            self._batch, self._sent, self._sent_at = batch, sent, time.perf_counter()
            if not flushed:
                self._writing = True
                self.loop.add_writer(self._fd, self._writable)

    def _open(self) -> BatchChannel:
        if self._channel is None:
            self._channel = self.store.open_channel()
            self._fd = self._channel.fileno()
            self.loop.add_reader(self._fd, self._readable)
        return self._channel

    def _close_channel(self) -> None:
        channel, self._channel = self._channel, None
        if channel is None:
            return
        self.loop.remove_reader(self._fd)
        self.loop.remove_writer(self._fd)
        self._writing = False
        try:
            channel.close()
        except Exception:  # closing a broken connection: nothing more to lose
            log.exception("write-behind: closing the channel failed")

    def _writable(self) -> None:
        channel = self._channel
        if channel is None:
            return
        try:
            done = channel.flushed()
        except Exception as e:
            self._broken(e)
            return
        if done:
            self._writing = False
            self.loop.remove_writer(self._fd)

    def _readable(self) -> None:
        channel = self._channel
        if channel is None:
            return
        try:
            answers = channel.poll()
        except Exception as e:
            self._broken(e)
            return
        if answers is None:
            return
        batch, sent = self._batch, self._sent
        self._batch, self._sent = None, []
        if batch is None:  # an answer to nothing sent: the connection is not what it should be
            self._broken(RuntimeError("the store answered with no batch on its way"))
            return
        if len(answers) != len(sent):
            wrong = RuntimeError(f"the store answered {len(answers)} outcomes for {len(sent)} entries")
            log.warning("write-behind: %s; their tables reload", wrong)
            self._close_channel()
            answers = [wrong] * len(sent)
        seconds = time.perf_counter() - self._sent_at
        n = sum(err is None for err in answers)
        if n and self.on_commit is not None:
            try:
                self.on_commit(seconds, n)
            except Exception:  # a measurement's fault must not keep the outcomes from the tables
                log.exception("write-behind: measuring a commit failed")
        self._finish(batch, sent, answers)
        self._send_next()

    def _broken(self, e: Exception) -> None:
        """The channel failed: its batch fails (the tables reload), the next one opens another."""
        log.warning("write-behind: the connection failed (%s)", e)
        batch, sent = self._batch, self._sent
        self._batch, self._sent = None, []
        self._close_channel()
        if batch is not None:
            self._finish(batch, sent, [e] * len(sent))
        self._send_next()

    def _finish(self, batch: list[_Item], sent: list[_Item], answers: list[Exception | None]) -> None:
        """Tell each entry of ``batch`` its outcome (``answers``: those of the entries ``sent``,
        in order; the others were dropped), on the loop's next turn; then they are no longer
        pending."""
        outcome = dict(zip(map(id, sent), answers, strict=True))
        told: list[tuple[Done, Exception | None]] = []
        for item in batch:
            err = outcome[id(item)] if id(item) in outcome else self._dropped(item)
            if err is not None:
                self._failed.add(item.key)
            told.append((item.done, err))
            tid = item.row[0]
            left = self._pending[tid] - 1
            if left:
                self._pending[tid] = left
            else:
                del self._pending[tid]
        self._finished += len(batch)
        self.loop.call_soon(self._tell, told)

    def _step(self) -> None:
        """One blocking step of `wait` and `flush`: send what waits, else wait on the channel's
        socket (the loop is not running) and take what came."""
        if self._batch is None:
            if not self._queue:
                raise RuntimeError("nothing is on its way, yet entries are pending")  # a bug: never wait for ever
            self._kicked = False
            self._send_next()
            return
        if self._channel is None:
            raise RuntimeError("a batch is on its way with no channel")
        left = self._sent_at + WAIT_LIMIT - time.perf_counter()
        if left <= 0:  # PostgreSQL holds the statement (a lock, a stalled host): give the batch up
            self._broken(TimeoutError(f"PostgreSQL did not answer a batch within {WAIT_LIMIT:g} s"))
            return
        poller = select.poll()  # not select.select: a server's sockets take fds past 1023
        poller.register(self._fd, select.POLLIN | (select.POLLOUT if self._writing else 0))
        for _, ready in poller.poll(left * 1000):
            if ready & select.POLLOUT:
                self._writable()
            if ready & ~select.POLLOUT:  # an answer, or the connection's end
                self._readable()

    @staticmethod
    def _dropped(item: _Item) -> Exception:
        tid, seq = item.row[0], item.row[1]
        return EntryDropped(f"table {tid}: entry {seq} follows an entry that was not committed")

    @staticmethod
    def _tell(told: list[tuple[Done, Exception | None]]) -> None:
        for done, err in told:
            try:
                done(err)
            except Exception:  # one table's fault must not keep the others' outcomes from them
                log.exception("write-behind: telling an outcome failed")
