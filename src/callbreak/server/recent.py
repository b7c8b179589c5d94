"""A table's recent events, rendered once for every audience: what a reconnecting client missed.

Each accepted log entry is kept with the events it caused (as JSON) and the state right after it,
as one public ``head`` shared by every audience and a small ``tail`` per seat (its hand and legal
moves).  A catch-up walks back from the newest entry only as far as the client's ``since``, so it
costs what was missed, never the length of the log; a client further behind than the entries kept
(`ServerConfig.catchup_max` events; a process that loads a table from the store refills them from
the log's newest entries, so a client of a process that died catches up on the next one) gets a
snapshot instead.

>>> from callbreak.server.protocol import ReadyEvent
>>> r = Recent(limit=3)
>>> for v in (1, 2, 3, 4):
...     _ = r.record([ReadyEvent(v=v, seat=0)], None)
>>> r.first_v, len(r), [e.first_v for e in r.missed(2) or []], r.work
(2, 3, [3, 4], 2)
>>> r.missed(0) is None, r.work
(True, 2)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from .protocol import Event

__all__ = ["AUDIENCES", "Entry", "Recent"]

#: every audience of a table: the four seats and the spectators (-1)
AUDIENCES = (0, 1, 2, 3, -1)


@dataclass(frozen=True, slots=True)
class Entry:
    """One log entry's events (``(v, JSON)``) and the state after it (None: null, the lobby).

    >>> e = Entry(events=((7, '{"kind":"ready","v":7,"seat":2}'),), head='{"seat":', tails={0: '0}', -1: '-1}'})
    >>> e.first_v, e.state(0), e.state(-1)
    (7, '{"seat":,0}', '{"seat":,-1}')
    >>> Entry(((3, "{}"),), None, {}).state(2)   # in the lobby: no state
    'null'
    """

    events: tuple[tuple[int, str], ...]
    head: str | None
    tails: dict[int, str]

    @property
    def first_v(self) -> int:
        return self.events[0][0]

    def state(self, seat: int) -> str:
        """The JSON text of ``seat``'s state right after this entry."""
        return "null" if self.head is None else self.head + "," + self.tails[seat]


class Recent:
    """The newest entries of a table, at most ``limit`` events in all.

    >>> from callbreak.server.protocol import ReadyEvent
    >>> r = Recent(limit=10)
    >>> for v in (5, 6, 7):
    ...     _ = r.record([ReadyEvent(v=v, seat=v - 5)], None)
    >>> [e.events for e in r.missed(5)]
    [((6, '{"kind":"ready","v":6,"seat":1}'),), ((7, '{"kind":"ready","v":7,"seat":2}'),)]
    >>> r.missed(1) is None   # further behind than the entries kept: a snapshot instead
    True
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._entries: deque[Entry] = deque()
        self._events = 0
        #: entries visited by catch-ups so far (a count, for tests and benchmarks)
        self.work = 0

    def __len__(self) -> int:
        return self._events

    @property
    def first_v(self) -> int | None:
        """The oldest event kept (None: none)."""
        return self._entries[0].first_v if self._entries else None

    def record(self, events: Sequence[Event], parts: tuple[str, dict[int, str]] | None) -> Entry:
        """Keep an entry's ``events`` and its state ``parts`` (`TableState.state_parts`)."""
        head, tails = parts if parts is not None else (None, {})
        entry = Entry(tuple((e.v, msgspec.json.encode(e).decode()) for e in events), head, tails)
        if self.limit <= 0:
            return entry
        self._entries.append(entry)
        self._events += len(entry.events)
        while self._events > self.limit and len(self._entries) > 1:
            self._events -= len(self._entries.popleft().events)
        return entry

    def missed(self, since: int) -> list[Entry] | None:
        """The entries with an event after ``since``, oldest first; None when some of those
        events are no longer kept (the client needs a snapshot)."""
        first = self.first_v
        if first is None or first > since + 1:
            return None
        out: list[Entry] = []
        for entry in reversed(self._entries):
            self.work += 1
            out.append(entry)
            if entry.first_v <= since + 1:
                break
        out.reverse()
        return out

    def clear(self) -> None:
        self._entries.clear()
        self._events = 0
