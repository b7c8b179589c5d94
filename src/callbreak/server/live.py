"""A table in play in this process: it commits, publishes, and keeps the table's clock.

A `LiveTable` wraps a pure `TableState` and does what needs a clock: it commits
each accepted entry to the `Store` *before* publishing the events it caused on
the `Broker`, runs the turn timers (its `Autopilot` plays the card or call the
player chose, else the lowest legal one, on expiry, and a bot after two expiries in
a row or a disconnection past the grace period), and pauses while no player is connected.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import msgspec

from ..cards import Card
from .autopilot import Autopilot
from .broker import channel
from .clock import Clock, Handle
from .config import ServerConfig
from .conn import RESTART, Conn
from .protocol import (
    Event,
    PracticeOf,
    SeatInfo,
    TableInfo,
    event_frame,
    snapshot_frame,
    synced_frame,
    table_frame,
)
from .recent import AUDIENCES, Recent
from .store import EntryDropped, StoreUnavailable
from .table import BETWEEN, IDLE_ROUNDS, PLAYING, TableError, TableState

if TYPE_CHECKING:
    from .hub import Hub

__all__ = ["WRITTEN_BEHIND", "LiveTable", "dumps"]

#: the entries committed off the event loop when the store batches them (the hot path); the
#: rest (seats, starts, rematches, autoplay, ready...) commit on the loop before anyone is told
WRITTEN_BEHIND = frozenset({"call", "play"})
#: seconds between two looks, while a seat's player cannot come back (`Hub.reachable`), at whether they can
HELD_RECHECK = 1.0

log = logging.getLogger("callbreak.server")


@dataclass(slots=True)
class _Out:
    """What a table sends once it may: the entry (None: nothing of the log) and its frames."""

    entry: dict[str, Any] | None
    frames: list[tuple[str, str]]
    done: bool = False


def dumps(obj: Any) -> str:
    """JSON text (msgspec: the protocol's structs, and plain data).

    >>> dumps({"t": "call", "seat": 2, "call": 3})
    '{"t":"call","seat":2,"call":3}'
    >>> from callbreak.server.protocol import ReadyEvent
    >>> dumps(ReadyEvent(v=7, seat=2))
    '{"kind":"ready","v":7,"seat":2}'
    """
    return msgspec.json.encode(obj).decode()


class LiveTable:
    """A table in play in this process.

    An action is applied, stored, then published; a refused one changes nothing:

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> t, tokens = hub.create_table(Ruleset(), name="Asha", play_now=True)
    >>> seat, v = t.state.to_act, t.state.v
    >>> [type(e).__name__ for e in t.submit({"t": "call", "seat": seat, "call": 2})], t.state.v - v
    (['Called'], 1)
    >>> t.submit({"t": "call", "seat": seat, "call": 3})
    Traceback (most recent call last):
    ...
    callbreak.server.table.TableError: not_your_turn: it is seat ...'s turn
    >>> t.state.v - v
    1
    >>> hub.store.close(); hub.hints.close()
    """

    def __init__(self, hub: Hub, state: TableState) -> None:
        self.hub = hub
        self.state = state
        self.conns: dict[int, set[Conn]] = {s: set() for s in (-1, 0, 1, 2, 3)}
        self.connected = [0, 0, 0, 0]
        self.deadline: float | None = None
        self.between_deadline: float | None = None
        self._handle: Handle | None = None
        self._turn_key: tuple[int, int, int, int] | None = None
        self._turn_deadline: float | None = None
        #: the turn of a seat whose player cannot come back just now stands still (`schedule`)
        self._held = False
        self._grace: list[Handle | None] = [None, None, None, None]
        #: what each seat's player was last told was done for them (`Hub._tell_away`): not told again
        self.told_away: list[tuple[int, int | None, int] | None] = [None, None, None, None]
        #: what had been done for each seat (the deal, its call, its cards: `TableState.away`) when its
        #: player's last connection went, in this process (None: not seen to go)
        self.left_with: list[tuple[int, int | None, int] | None] = [None, None, None, None]
        #: spectators come and go in numbers: the count is told at most every
        #: ``presence_every`` seconds, and only when it changed
        self._presence: Handle | None = None
        self._told_spectators = 0
        self.autopilot = Autopilot(self)
        self.last_seen = self.clock.time()
        self._rules_dict = state.meta.rules.to_dict()
        #: where a table playing a position again comes from (one made before the round was kept:
        #: none); the table's meta, set as it is made
        made = state.meta.practice or {}
        self._practice = (
            PracticeOf(table=state.meta.parent, round=made["round"])
            if state.meta.parent is not None and isinstance(made.get("round"), int)
            else None
        )
        #: the newest events, rendered for every audience, for catch-ups
        self.recent = Recent(self.config.catchup_max)
        self._sheet: tuple[tuple[int, int], str] | None = None
        #: what was accepted and rendered, in order, each sent once it (and all before it) is
        #: committed; and who waits for it to empty (`settled`)
        self._outbox: deque[_Out] = deque()
        self._settled: list[asyncio.Future[None]] = []
        #: this copy of the table, to the write-behind (a failed entry fails this copy's later ones)
        self._key = object()
        self._closed = False

    @property
    def id(self) -> str:
        return self.state.id

    @property
    def catchup_work(self) -> int:
        """Log entries visited by catch-ups so far (it grows with what clients missed)."""
        return self.recent.work

    @property
    def clock(self) -> Clock:
        return self.hub.clock

    @property
    def config(self) -> ServerConfig:
        return self.hub.config

    # --- committing -------------------------------------------------------------------
    def submit(self, entry: dict[str, Any], tokens: tuple[tuple[str, int], ...] = ()) -> list[Event]:
        """Apply, commit, then publish.  `TableError` when refused (nothing changes).

        The events are rendered at once (the state right after them) and sent once the entry is
        committed, after every earlier entry's: with a write-behind (PostgreSQL), a call or a
        card (`WRITTEN_BEHIND`) commits off the loop and this returns before it is sent; any
        other entry commits here, after the table's entries still being committed.  Whatever
        fails between the entry's apply and its hand-over (a commit, a rendering) reloads the
        table from its log: memory is never ahead of the log with nothing on its way there."""
        if self._closed:  # a copy unloaded or reloaded: the table's live copy is another one, or none
            raise TableError("internal", "this table was reloaded; try again")
        st = self.state
        before = st.status
        events = st.apply(entry)
        if not events:
            return events
        wb = self.hub.write_behind
        try:
            self.schedule()  # first: the deadline it sets is in what is rendered
            out = _Out(entry, self._render(events))
            if wb is not None and entry["t"] in WRITTEN_BEHIND and not tokens and st.status == before:
                row = (st.id, st.entries - 1, entry, self.hub.clock.time())
                wb.append(self._key, row, partial(self._committed, out))
                self._outbox.append(out)  # told on the loop, later: never before this
                return events
            if wb is not None and not wb.wait(st.id, self._key):
                raise EntryDropped(f"table {st.id}: an earlier entry was not committed")
            t0 = time.perf_counter()
            self.hub.store.append(st.id, st.entries - 1, entry, tokens, st.status if st.status != before else None)
            self.hub.meter.append(time.perf_counter() - t0)
        except StoreUnavailable as e:  # (no traceback: the store's `Outage` says when it answers again)
            log.warning("table %s: could not commit (%s); reloading it", st.id, e)
            self.hub.reload(self)
            raise TableError("unavailable", "the database does not answer: that was not saved; try again") from None
        except Exception:
            log.exception("table %s: could not commit; reloading it", st.id)
            self.hub.reload(self)
            raise TableError("internal", "the server could not save that; try again") from None
        out.done = True
        self._outbox.append(out)
        self._drain()
        return events

    def _committed(self, out: _Out, err: Exception | None) -> None:
        """The write-behind's word on an entry (on the loop, in the order of the entries)."""
        if err is not None:
            if not self._closed:
                # (the entry's kind and seat, not its card: a card not yet told to anyone)
                e = out.entry or {}
                t, seat = e.get("t"), e.get("seat")
                log.warning("table %s: could not commit a %s of seat %s (%s); reloading it", self.id, t, seat, err)
                self.hub.reload(self)
            return
        out.done = True
        self._drain()

    def _drain(self) -> None:
        """Send, in order, what is committed and has nothing uncommitted before it."""
        box = self._outbox
        broker = self.hub.broker
        while box and box[0].done:
            out = box.popleft()
            if not self._closed:  # a copy unloaded or reloaded meanwhile tells nobody
                for ch, frame in out.frames:
                    broker.publish(ch, frame)
        if not box:
            for w in self._settled:
                if not w.done():
                    w.set_result(None)
            self._settled.clear()

    @property
    def told(self) -> int:
        """Entries of the table's log whose events this copy has sent (each once the store held
        it); the others it accepted are on their way to the store.

        >>> from callbreak.rules import Ruleset
        >>> from callbreak.server.config import ServerConfig
        >>> from callbreak.server.hub import Hub
        >>> hub = Hub(ServerConfig(db=":memory:"))
        >>> t, _ = hub.create_table(Ruleset(), name="Asha", play_now=True)
        >>> t.told == t.state.entries == len(hub.store.load(t.id)[1])   # committed on the loop: at once
        True
        >>> hub.store.close(); hub.hints.close()
        """
        return self.state.entries - sum(1 for out in self._outbox if out.entry is not None)

    @property
    def unsettled(self) -> bool:
        """Whether anything accepted here is still waiting to be committed or sent (never, once
        this copy is closed: what it had waiting is the store's, or lost with the copy)."""
        return bool(self._outbox) and not self._closed

    async def settled(self) -> None:
        """Wait until everything accepted here is committed and sent: what a snapshot or a
        catch-up shows must be what the store holds (at once when nothing is waiting)."""
        while self.unsettled:
            w: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._settled.append(w)
            await w

    def send_after(self, frames: list[tuple[str, str]]) -> None:
        """Publish ``frames`` (channel, text) once the events accepted before them are sent."""
        self._outbox.append(_Out(None, frames, done=True))
        self._drain()

    def try_submit(self, entry: dict[str, Any]) -> bool:
        try:
            self.submit(entry)
        except TableError as e:
            log.warning("table %s: %s refused: %s", self.id, entry.get("t"), e)
            return False
        return True

    # --- messages ---------------------------------------------------------------------
    def table_info(self, seat: int) -> TableInfo:
        st = self.state
        seats = []
        for i, s in enumerate(st.seats):
            record = st.seat_record(i)
            seats.append(
                SeatInfo(
                    name=record.name,
                    kind=record.kind,
                    level=record.level,
                    connected=self.connected[i] > 0 if s.kind == "human" else s.kind == "bot",
                    autoplay=st.autoplay[i] is not None,
                    ready=st.ready[i],
                )
            )
        return TableInfo(
            id=st.id,
            status=st.status,
            host=st.meta.host,
            seats=seats,
            you=seat,
            rules=self._rules_dict,
            bots=st.meta.bots,
            deadline=None if self.deadline is None else int(self.deadline * 1000),
            to_act=st.to_act,
            v=st.v,
            spectators=len(self.conns[-1]),
            invite=self._invite(seat),
            rematch=st.rematch,
            practice=self._practice,
        )

    def _invite(self, seat: int) -> str | None:
        """The invite, a player's to share (a spectator is not told it)."""
        return self.state.meta.invite if seat >= 0 else None

    def tables_json(self, seats: list[int]) -> dict[int, str]:
        """`table_info` of several seats as JSON text, the shared part built once (a seat's own
        part: who it is, and for a player the invite).

        >>> from callbreak.rules import Ruleset
        >>> from callbreak.server.config import ServerConfig
        >>> from callbreak.server.hub import Hub
        >>> hub = Hub(ServerConfig(db=":memory:"))
        >>> t, _ = hub.create_table(Ruleset(), name="Asha", play_now=True)
        >>> all(text == dumps(t.table_info(s)) for s, text in t.tables_json([0, 2, -1]).items())
        True
        >>> hub.store.close(); hub.hints.close()
        """
        info = self.table_info(-1)
        out: dict[int, str] = {}
        for seat in seats:
            info.you = seat
            info.invite = self._invite(seat)
            out[seat] = dumps(info)
        return out

    def _audiences(self) -> list[int]:
        broker = self.hub.broker
        return [s for s in (0, 1, 2, 3, -1) if broker.subscribers(channel(self.id, s))]

    def _render(self, events: list[Event]) -> list[tuple[str, str]]:
        """The frames of ``events`` for each audience, with the state right after them (and kept
        for catch-ups)."""
        st = self.state
        t = self.clock.now_ms()
        audiences = self._audiences()
        entry = self.recent.record(events, st.state_parts(list(AUDIENCES)))
        self._told_spectators = len(self.conns[-1])
        tables = self.tables_json(audiences)
        out: list[tuple[str, str]] = []
        for seat in audiences:
            table = tables[seat]
            state = entry.state(seat)
            ch = channel(self.id, seat)
            for v, event in entry.events:
                out.append((ch, event_frame(v, t, event, table, state)))
        return out

    def publish_table(self) -> None:
        """Tell everyone of a change outside the log (connections, deadlines)."""
        t = self.clock.now_ms()
        self._told_spectators = len(self.conns[-1])
        audiences = self._audiences()
        v = self.state.v
        self.send_after(
            [(channel(self.id, seat), table_frame(v, t, table)) for seat, table in self.tables_json(audiences).items()]
        )

    def snapshot(self, seat: int) -> str:
        st = self.state
        lifted = self.autopilot.lifted(seat)
        return snapshot_frame(
            st.v,
            self.clock.now_ms(),
            dumps(self.table_info(seat)),
            dumps(st.state(seat)),
            self.sheet_json(),
            None if lifted is None else str(lifted) if isinstance(lifted, Card) else lifted,
        )

    def sheet_json(self) -> str:
        """The score sheet as JSON, rendered once per finished round (every snapshot carries it,
        and an endless table's grows: a stream of spectators must not render it each time)."""
        m = self.state.match
        key = (id(m), 0 if m is None else len(m.round_points))
        if self._sheet is None or self._sheet[0] != key:
            self._sheet = (key, dumps(self.state.sheet()))
        return self._sheet[1]

    def catch_up(self, seat: int, since: object) -> list[str]:
        """What a client that last saw version ``since`` needs: the events it missed (each with
        the state right after it), or a snapshot when it missed more than the recent events kept."""
        st = self.state
        if not isinstance(since, int) or isinstance(since, bool) or since <= 0 or since > st.v:
            return [self.snapshot(seat)]
        missed = self.recent.missed(since) if since < st.v else []
        if missed is None:
            return [self.snapshot(seat)]
        t = self.clock.now_ms()
        table = dumps(self.table_info(seat))
        out: list[str] = []
        for entry in missed:
            state = entry.state(seat)
            for v, event in entry.events:
                if v > since:
                    out.append(event_frame(v, t, event, table, state))
        out.append(synced_frame(st.v, t, table))
        return out

    # --- connections -------------------------------------------------------------------
    def active(self) -> bool:
        """Whether any player is connected; with none the table waits for them."""
        st = self.state
        return any(self.connected[i] for i in st.humans())

    def attach(self, conn: Conn) -> None:
        was_active = self.active()
        self.conns[conn.seat].add(conn)
        self.last_seen = self.clock.time()
        seat = conn.seat
        if seat >= 0:
            self.connected[seat] += 1
            if self.connected[seat] == 1:
                g = self._grace[seat]
                if g is not None:
                    g.cancel()
                    self._grace[seat] = None
                if self.state.autoplay[seat] == "disconnected":
                    self.try_submit({"t": "autoplay", "seat": seat, "on": False})
        if not was_active and self.active():
            self.schedule()
        self._presence_changed(seat)

    def detach(self, conn: Conn) -> None:
        if conn not in self.conns[conn.seat]:
            return
        self.conns[conn.seat].discard(conn)
        self.last_seen = self.clock.time()
        seat = conn.seat
        if seat >= 0:
            self.connected[seat] -= 1
            if (
                self.connected[seat] == 0
                and not self._closed
                and self.state.status in (PLAYING, BETWEEN)
                and self.state.seats[seat].kind == "human"
            ):
                self._grace[seat] = self.clock.call_later(self.config.grace, self._grace_over, seat)
                if self.state.match is not None:
                    self.left_with[seat] = (len(self.state.match.deals) - 1, *self.state.away(seat))
            if not self.active():
                self.freeze()
            elif self.state.status == BETWEEN:
                self.schedule()
        self._presence_changed(seat)

    def _presence_changed(self, seat: int) -> None:
        """A player's connection is told at once; spectators' comings and goings as a count,
        at most once every ``presence_every`` seconds (never a message to all per arrival)."""
        if seat >= 0:
            self.publish_table()
        elif self._presence is None:
            self._presence = self.clock.call_later(self.config.presence_every, self._tell_presence)

    def _tell_presence(self) -> None:
        self._presence = None
        if len(self.conns[-1]) != self._told_spectators:
            self.publish_table()

    def _held_recheck(self) -> None:
        """A held turn (`schedule`) looked at again: once its player can come back, its whole
        time starts, and everyone is told (the page back, and the others' rings)."""
        self.schedule()
        if not self._held:
            self.publish_table()

    def _turn_over(self, v: int, seat: int) -> None:
        """The turn's time ran out: played for the seat, unless its player is away and cannot
        come back just now (then held: `schedule`)."""
        if not self.connected[seat] and not self.hub.reachable():
            self.schedule()
            return
        self.autopilot.auto(v, seat, "timeout")

    def _grace_over(self, seat: int, held: bool = False) -> None:
        self._grace[seat] = None
        if self.connected[seat] or self.state.status not in (PLAYING, BETWEEN):
            return
        if not self.hub.reachable():
            # (the player cannot come back just now: the grace waits, then runs whole: `schedule`)
            self._grace[seat] = self.clock.call_later(HELD_RECHECK, self._grace_over, seat, True)
        elif held:
            self._grace[seat] = self.clock.call_later(self.config.grace, self._grace_over, seat)
        elif self.active():
            self.try_submit({"t": "autoplay", "seat": seat, "on": True, "reason": "disconnected"})

    # --- the clock ---------------------------------------------------------------------
    def pause(self) -> None:
        """Stop the clock (until the next `schedule`)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self.deadline = None

    def freeze(self) -> None:
        """Nobody is here: stop, and give the seat to act a full timer when someone is back."""
        self.pause()
        self._turn_deadline = None

    def schedule(self) -> None:
        """Arrange what happens next: a bot's move, a timer, the next round (nothing on a closed copy)."""
        self.pause()
        held_before, self._held = self._held, False
        if self._closed:
            return
        st = self.state
        if st.status != BETWEEN:
            self.between_deadline = None
        if not self.active():
            return
        cfg = self.config
        if st.status == PLAYING:
            m = st.match
            seat = st.to_act
            if m is None or seat is None:
                return
            v = st.v
            if st.seats[seat].kind == "bot" or st.autoplay[seat]:
                self._handle = self.clock.call_later(cfg.bot_delay, self.autopilot.bot_turn, v, seat)
                return
            rnd = m.round
            rules = st.meta.rules
            forced = rnd.phase == "playing" and rules.autoplay_forced and rnd.legal_mask().bit_count() == 1
            secs = rules.card_seconds if rnd.phase == "playing" else rules.call_seconds
            if not forced and secs and not self.connected[seat] and not self.hub.reachable():
                # the seat's player is away and cannot come back just now (Redis away: every new
                # socket refused): its timer waits, and starts afresh once they can (an operator's
                # try: a page reloaded in a Redis outage found its turn played by the timer before
                # it could get back in)
                self._turn_deadline = None
                self._handle = self.clock.call_later(HELD_RECHECK, self._held_recheck)
                self._held = True
                if not held_before:
                    self.publish_table()  # (the seat's time stands still: no ring left running out)
                return
            if secs:
                # the same turn keeps its deadline when something else happens meanwhile; a turn of
                # one legal card is told the same deadline as any other (everyone sees it: a
                # shorter one would tell the others that the seat has one legal card)
                key = (m.round_number, len(m.redeals), len(rnd), seat)
                if key != self._turn_key or self._turn_deadline is None:
                    self._turn_key = key
                    self._turn_deadline = self.clock.time() + secs * cfg.time_scale
                self.deadline = self._turn_deadline
            if forced:
                self._handle = self.clock.call_later(cfg.forced_delay, self.autopilot.auto, v, seat, "forced")
            elif self._turn_deadline is not None and secs:
                delay = max(0.0, self._turn_deadline - self.clock.time())
                self._handle = self.clock.call_later(delay, self._turn_over, v, seat)
        elif st.status == BETWEEN:
            # every player not replaced by a bot, connected or not: the delay bounds the wait; when
            # every player's seat is on autoplay, those still connected (a slow player whose turn ran
            # out sees the round's summary; nobody else is kept waiting by it)
            playing = [s for s in st.humans() if not st.autoplay[s]]
            awaited = playing or [s for s in st.humans() if self.connected[s]]
            waiting = [s for s in awaited if not st.ready[s]]
            if not waiting:
                self._handle = self.clock.call_later(0, self._next_round, st.v)
                return
            if playing and st.meta.rules.untimed:
                # a table without turn timers does not hurry its players through the round's
                # summary either: the next deal waits for their "Next round" (a screen reader's
                # user had it closed on them after 10 s at a practice table)
                return
            if self.between_deadline is None:
                self.between_deadline = self.clock.time() + cfg.between_rounds
            self.deadline = self.between_deadline
            delay = max(0.0, self.between_deadline - self.clock.time())
            self._handle = self.clock.call_later(delay, self._next_round, st.v)

    def _next_round(self, v: int) -> None:
        st = self.state
        if st.v != v or st.status != BETWEEN:
            return
        m = st.match
        if st.meta.rules.rounds is None and st.idle_rounds >= IDLE_ROUNDS and m is not None and m.ended_at is None:
            # an endless table nobody is playing: it ends (a tie at the top still plays its sudden death)
            self.try_submit({"t": "end", "reason": "idle"})
        else:
            self.try_submit({"t": "next"})

    def human_acts(self, seat: int) -> None:
        """The player is back in charge of the seat (while there is a match to play)."""
        self.autopilot.human_acts(seat)
        if self.state.autoplay[seat] and self.state.status in (PLAYING, BETWEEN):
            self.try_submit({"t": "autoplay", "seat": seat, "on": False})

    def close(self) -> None:
        """This copy of the table stops (unloaded, rebuilt from its log, or the process stops): its
        sockets are closed with 1012, service restart, so that every client reconnects and
        catches up with the table wherever it runs next (1000, normal closure, read as "done")."""
        self._closed = True
        for w in self._settled:
            if not w.done():
                w.set_result(None)
        self._settled.clear()
        self.pause()
        if self._presence is not None:
            self._presence.cancel()
            self._presence = None
        for i, g in enumerate(self._grace):
            if g is not None:
                g.cancel()
                self._grace[i] = None
        self.autopilot.close()
        for conns in self.conns.values():
            for c in list(conns):
                c.close(RESTART, "the table moves: reconnect")
