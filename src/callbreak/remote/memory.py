"""What a served bot may remember of a match across the tournament's requests.

A request of the Bhoos protocol carries the round in progress only, and `BotService`
resets its bot before each one, so that an answer depends on the request (and the
seed) alone.  A bot that learns from a whole match (`HardBot`'s ``opp=2``: each
other seat's style, from its cards over the match) needs the earlier rounds.
`MatchMemory` keeps, per seat of a match (its ``playerIds`` round the table from the least,
as `callbreak.remote.codec.parse_request` numbers the seats, and the seat), the
last view the seat was asked about in each round, and hands a request the views of
the match's earlier rounds (`Bot.recall`).

A request belongs to a remembered match when it is of the round in progress there
(the same round number and totals, and the seat dealt the same hand), or when it
`continues` that match's last round: its totals are the last round's totals plus
that round's points, for some way of giving the tricks that were still to play when
the seat last saw it.  Several matches under the same ids are followed at once (a
tournament may run games of the same players in parallel); anything else (round 1,
a gap, a service started mid-match) starts a match afresh, which costs a bot the
earlier rounds and nothing more.

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
from dataclasses import dataclass

from ..bots.knowledge import Knowledge
from ..round import SeatView
from ..scoring import score

__all__ = ["CAPACITY", "CHAINS", "MatchMemory", "continues", "dealt"]

#: the matches of all seats remembered at once (each a few views of 2 kB or so); the seat
#: unheard of longest is forgotten first
CAPACITY = 4096
#: the matches of one seat under the same ids followed at once
CHAINS = 8


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


def dealt(view: SeatView) -> int:
    """The seat's hand as dealt for the view's round, as a mask: the cards it holds and those
    it has played (`Knowledge`; a fingerprint of the round for the seat: two games under the
    same ids deal it alike only by chance, or by a duplicate deal).

    >>> from callbreak import Match
    >>> m = Match(seed=1)
    >>> v = m.view(m.to_act)
    >>> bin(dealt(v)).count("1"), dealt(v) == sum(1 << int(c) for c in v.hand)
    (13, True)
    """
    k = Knowledge.from_view(view)
    return k.hand | k.played_by[view.seat]


@dataclass(frozen=True)
class _Round:
    """The seat's last view of one round, with its hand as dealt (`dealt`)."""

    view: SeatView
    hand: int


@dataclass
class _Chain:
    """One match of one seat: its last view of each finished round, and of the round in progress."""

    earlier: list[_Round]
    now: _Round

    def views(self) -> tuple[SeatView, ...]:
        return tuple(r.view for r in self.earlier)


class MatchMemory:
    """The last view of each round of the matches a service answers (see the module).

    Per seat of the same ids it follows up to ``chains`` matches at once (a tournament may run
    several games of the same players in parallel): a request belongs to the match whose round
    in progress dealt the seat the same hand (with the same round number and totals, and the
    same calls and tricks so far), else to the one match whose last round it `continues`, else
    it starts one (the match followed longest ago is dropped).  A request of a round a match has
    finished changes nothing.  Thread-safe: a service answers its connections in parallel.

    >>> from callbreak import Match
    >>> memory = MatchMemory(capacity=1)
    >>> v = Match(seed=1).view(0)
    >>> memory.note(("a", "b", "c", "d"), v), memory.note(("e", "f", "g", "h"), v), len(memory)
    ((), (), 1)
    """

    def __init__(self, capacity: int = CAPACITY, chains: int = CHAINS) -> None:
        """``capacity``: the matches of all seats kept at once; ``chains``: of one seat."""
        if capacity < 1 or chains < 1:
            raise ValueError("capacity and chains must be at least 1")
        self.capacity = capacity
        self.chains = chains
        self._seats: OrderedDict[tuple[str, ...], list[_Chain]] = OrderedDict()
        self._held = 0  # the matches of all seats
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """The seats remembered."""
        return len(self._seats)

    @property
    def matches(self) -> int:
        """The matches remembered, of all seats together (at most ``capacity``)."""
        return self._held

    def note(self, player_ids: tuple[str, ...], view: SeatView) -> tuple[SeatView, ...]:
        """Remember ``view`` (asked of seat ``view.seat`` of the match of ``player_ids``)
        and return the seat's last views of the match's earlier rounds, oldest first."""
        key = (*player_ids, str(view.seat))
        now = _Round(view, dealt(view))
        with self._lock:
            chains = self._seats.pop(key, [])
            self._seats[key] = chains
            self._held -= len(chains)
            try:
                return self._find(chains, now)
            finally:
                self._held += len(chains)
                while self._held > self.capacity and len(self._seats) > 1:
                    self._held -= len(self._seats.popitem(last=False)[1])

    def _find(self, chains: list[_Chain], now: _Round) -> tuple[SeatView, ...]:
        """`note` for one seat's ``chains`` (updated in place)."""
        for c in chains:
            if _same_deal(c.now, now):  # the round in progress
                if _progress(now.view) >= _progress(c.now.view):
                    c.now = now
                return self._keep(chains, c)
        for c in chains:
            for i, e in enumerate(c.earlier):
                if _same_deal(e, now):
                    return c.views()[:i]  # a late request of a finished round: nothing changes
        after = [c for c in chains if continues(c.now.view, now.view)]
        if len(after) == 1:  # (two matches it could continue: neither is taken)
            chain = after[0]
            chain.earlier.append(chain.now)
            chain.now = now
        else:
            chain = _Chain([], now)
        return self._keep(chains, chain)

    def _keep(self, chains: list[_Chain], chain: _Chain) -> tuple[SeatView, ...]:
        """Make ``chain`` the most recent of ``chains`` (dropping the oldest beyond
        ``self.chains``) and return its earlier rounds."""
        rest = [c for c in chains if c is not chain]
        chains[:] = rest[max(0, len(rest) - self.chains + 1) :]
        chains.append(chain)
        return chain.views()


def _same_deal(a: _Round, b: _Round) -> bool:
    """Whether ``a`` and ``b`` can be views of the same round of the same match: the same
    number, totals and hand dealt (a deal that is redealt is never asked about), calls that
    agree where both are made, and one's finished tricks the start of the other's (two games
    of a duplicate deal part once their play does)."""
    x, y = a.view, b.view
    if x.round_number != y.round_number or x.totals != y.totals or a.hand != b.hand:
        return False
    if any(p is not None and q is not None and p != q for p, q in zip(x.calls, y.calls)):
        return False
    n = min(len(x.tricks), len(y.tricks))
    return x.tricks[:n] == y.tricks[:n]


def _progress(view: SeatView) -> int:
    """How far into its round a view is: cards played, and the calls."""
    return 4 * len(view.tricks) + len(view.trick) + sum(c is not None for c in view.calls)
