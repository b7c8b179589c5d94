"""What a served bot may remember of a match across the tournament's requests.

A request of the Bhoos protocol carries the round in progress only, and `BotService`
resets its bot before each one, so that an answer depends on the request (and the
seed) alone.  A bot that learns from a whole match (`HardBot`'s ``opp=2``: each
other seat's style, from its cards over the match) needs the earlier rounds.
`MatchMemory` keeps, per seat of a match (its ``playerIds``, in their order, and the seat), the
last view the seat was asked about in each round, and hands a request the views of
the match's earlier rounds (`Bot.recall`).

A new round continues a remembered match only where its totals are the last
round's totals plus that round's points, for some way of giving the tricks that were
still to play when the seat last saw it; anything else (round 1, a gap, another
match under the same ids, a service started mid-match) starts the seat's memory
afresh, which costs a bot the earlier rounds and nothing more.

>>> from callbreak import Match, Ruleset
>>> from callbreak.bots import make_bot
>>> m = Match(Ruleset.preset("bhoos"), seed=3)
>>> bots = [make_bot("medium", s) for s in range(4)]
>>> memory = MatchMemory()
>>> ids = ("P0", "P1", "P2", "P3")
>>> while m.round_number < 3:
...     v = m.view(m.to_act)
...     earlier = memory.note(ids, v)
...     _ = m.act(bots[v.seat].act(v))
>>> v = m.view(m.to_act)
>>> [(e.round_number, len(e.tricks)) for e in memory.note(ids, v)]   # rounds 1 and 2, at the seat's last card
[(1, 12), (2, 12)]
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from ..round import SeatView
from ..scoring import score

__all__ = ["CAPACITY", "MatchMemory", "continues"]

#: the seats (of matches) remembered at once; the one unheard of longest is forgotten first
CAPACITY = 4096


def continues(last: SeatView, now: SeatView) -> bool:
    """Whether ``now`` (a request's view) can be of the round after ``last`` (this
    seat's last view of a round) in the same match: the next round number, and totals
    that ``last``'s totals and its round's points give, for some winner of each trick
    that was still to play (at most three: else the match cannot be followed).

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.round import lowest_action
    >>> m = Match(Ruleset.preset("bhoos"), seed=3)
    >>> last = None
    >>> while m.round_number == 1:
    ...     v = m.view(m.to_act)
    ...     last = v if v.seat == 0 else last
    ...     _ = m.act(lowest_action(v))
    >>> v = m.view(0)
    >>> continues(last, v), continues(v, v)
    (True, False)
    """
    if now.round_number != last.round_number + 1 or last.totals is None or now.totals is None:
        return False
    if any(c is None for c in last.calls):
        return False
    left = 13 - len(last.tricks)
    if not 0 <= left <= 3:
        return False
    for winners in itertools.product(range(4), repeat=left):
        won = list(last.tricks_won)
        for w in winners:
            won[w] += 1
        totals = [t + score(c or 0, n, last.rules) for t, c, n in zip(last.totals, last.calls, won)]
        if all(a == b for a, b in zip(totals, now.totals)):
            return True
    return False


@dataclass
class _Seat:
    """One seat of one match: its last view of each finished round, and of the round in progress."""

    earlier: list[SeatView] = field(default_factory=list)
    now: SeatView | None = None


class MatchMemory:
    """The last view of each round of the matches a service answers (see the module).

    Thread-safe: a service answers its connections in parallel.

    >>> from callbreak import Match
    >>> memory = MatchMemory(capacity=1)
    >>> v = Match(seed=1).view(0)
    >>> memory.note(("a", "b", "c", "d"), v), memory.note(("e", "f", "g", "h"), v), len(memory)
    ((), (), 1)
    """

    def __init__(self, capacity: int = CAPACITY) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._seats: OrderedDict[tuple[str, ...], _Seat] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._seats)

    def note(self, player_ids: tuple[str, ...], view: SeatView) -> tuple[SeatView, ...]:
        """Remember ``view`` (asked of seat ``view.seat`` of the match of ``player_ids``)
        and return the seat's last views of the match's earlier rounds, oldest first."""
        key = (*player_ids, str(view.seat))
        with self._lock:
            seat = self._seats.pop(key, None)
            if seat is None or seat.now is None or view.round_number <= 1:
                seat = _Seat()
            elif view.round_number == seat.now.round_number and view.totals == seat.now.totals:
                pass  # the same round, later (or the same request again)
            elif continues(seat.now, view):
                seat.earlier.append(seat.now)
            else:
                seat = _Seat()
            if seat.now is None or _progress(view) >= _progress(seat.now) or seat.now.round_number != view.round_number:
                seat.now = view
            self._seats[key] = seat
            while len(self._seats) > self.capacity:
                self._seats.popitem(last=False)
            return tuple(seat.earlier)


def _progress(view: SeatView) -> int:
    """How far into its round a view is: cards played, and the calls."""
    return 4 * len(view.tricks) + len(view.trick) + sum(c is not None for c in view.calls)
