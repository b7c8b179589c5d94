"""The running server: live tables, their timers and bots, and the connections to them.

`Hub` owns every table loaded in this process.  A `LiveTable` wraps a pure
`TableState` and does what needs a clock: it commits each accepted entry to the
`Store` *before* publishing the events it caused on the `Broker`, runs the turn
timers (the lowest legal card or call on expiry; a bot after two expiries in a
row or a disconnection past the grace period), lets bots act (off the event loop
unless they are instant), and pauses while no player is connected.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Any

import orjson

from ..bots import LEVELS, Bot, levels, make_bot
from ..bots.warmup import KERNEL, serving_bot
from ..cards import Card
from ..round import SeatView
from ..rules import Ruleset
from .broker import Broker, LocalBroker, channel
from .config import ServerConfig
from .store import SQLiteStore, Store
from .table import (
    BETWEEN,
    EXPIRED,
    FINISHED,
    LOBBY,
    PLAYING,
    TableError,
    TableMeta,
    TableState,
    clean_name,
    lowest_call,
    lowest_card,
)

__all__ = ["Conn", "Hub", "LiveTable", "new_token"]

log = logging.getLogger("callbreak.server")

#: bot levels cheap enough to run on the event loop itself
INLINE_LEVELS = {"random"}


def new_token() -> str:
    """A seat token: 192 random bits, URL-safe.

    >>> len(new_token()), new_token() != new_token()
    (32, True)
    """
    return secrets.token_urlsafe(24)


def _dumps(obj: Any) -> str:
    return orjson.dumps(obj).decode()


def now_ms() -> int:
    return int(time.time() * 1000)


def table_bot(level: str, seed: int) -> Bot:
    """A bot of ``level``, or a ``random`` one when that level is not available yet.
    A hard bot answers from the medium level until its kernel is ready
    (`callbreak.bots.warmup.serving_bot`): a served table never waits for a compile."""
    try:
        return serving_bot(level, seed)
    except ValueError:
        return make_bot("random", seed)


class Bucket:
    """A token bucket: ``rate`` per second, at most ``burst`` at once; rate 0 = no limit.

    >>> b = Bucket(rate=1.0, burst=2, now=0.0)
    >>> b.take(now=0.0), b.take(now=0.0), b.take(now=0.0), b.take(now=1.0)
    (True, True, False, True)
    """

    __slots__ = ("burst", "level", "rate", "stamp")

    def __init__(self, rate: float, burst: int, now: float | None = None) -> None:
        self.rate = rate
        self.burst = float(max(burst, 1))
        self.level = self.burst
        self.stamp = time.monotonic() if now is None else now

    def take(self, now: float | None = None) -> bool:
        if self.rate <= 0:
            return True
        t = time.monotonic() if now is None else now
        self.level = min(self.burst, self.level + max(0.0, t - self.stamp) * self.rate)
        self.stamp = t
        if self.level >= 1:
            self.level -= 1
            return True
        return False


class Conn:
    """One WebSocket: its seat (-1 for a spectator), its outgoing queue, its rate limit."""

    def __init__(
        self,
        table: LiveTable,
        seat: int,
        send: Callable[[str], Awaitable[None]],
        config: ServerConfig,
    ) -> None:
        self.table = table
        self.seat = seat
        self._send = send
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.bucket = Bucket(config.msg_rate, config.msg_burst)
        self.limit = config.send_queue
        self.unsubscribe: Callable[[], None] | None = None
        self.closed = False
        self.last_error = 0.0

    def push(self, payload: str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= self.limit:  # too slow to keep up: drop it, it can reconnect
            self.close()
            return
        self.queue.put_nowait(payload)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)

    async def writer(self) -> None:
        while True:
            payload = await self.queue.get()
            if payload is None:
                return
            await self._send(payload)


class LiveTable:
    """A table in play in this process."""

    def __init__(self, hub: Hub, state: TableState, entries: list[dict[str, Any]]) -> None:
        self.hub = hub
        self.state = state
        self.log = entries
        self.conns: dict[int, set[Conn]] = {s: set() for s in (-1, 0, 1, 2, 3)}
        self.connected = [0, 0, 0, 0]
        self.expiries = [0, 0, 0, 0]
        self.deadline: float | None = None
        self.between_deadline: float | None = None
        self._handle: asyncio.Handle | None = None
        self._turn_key: tuple[int, int, int, int] | None = None
        self._turn_deadline: float | None = None
        self._grace: list[asyncio.TimerHandle | None] = [None, None, None, None]
        self._bots: dict[int, Bot] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.last_seen = time.time()
        self._rules_dict = state.meta.rules.to_dict()

    @property
    def id(self) -> str:
        return self.state.id

    @property
    def config(self) -> ServerConfig:
        return self.hub.config

    # --- committing -------------------------------------------------------------------
    def submit(self, entry: dict[str, Any], tokens: tuple[tuple[str, int], ...] = ()) -> list[dict[str, Any]]:
        """Apply, commit, then publish.  `TableError` when refused (nothing changes)."""
        st = self.state
        before = st.status
        events = st.apply(entry)
        if not events:
            return events
        try:
            self.hub.store.append(
                st.id, st.entries - 1, entry, tokens, st.status if st.status != before else None
            )
        except Exception:
            log.exception("table %s: could not commit; reloading it", st.id)
            self.hub.reload(self)
            raise TableError("internal", "the server could not save that; try again") from None
        self.log.append(entry)
        self.schedule()
        self.publish(events)
        return events

    def try_submit(self, entry: dict[str, Any]) -> bool:
        try:
            self.submit(entry)
        except TableError as e:
            log.warning("table %s: %s refused: %s", self.id, entry.get("t"), e)
            return False
        return True

    # --- messages ---------------------------------------------------------------------
    def table_info(self, seat: int) -> dict[str, Any]:
        st = self.state
        return {
            "id": st.id,
            "status": st.status,
            "host": st.meta.host,
            "seats": [
                st.seat_record(i)
                | {
                    "connected": self.connected[i] > 0 if s.kind == "human" else s.kind == "bot",
                    "autoplay": st.autoplay[i] is not None,
                    "ready": st.ready[i],
                }
                for i, s in enumerate(st.seats)
            ],
            "you": seat,
            "rules": self._rules_dict,
            "bots": st.meta.bots,
            "deadline": None if self.deadline is None else int(self.deadline * 1000),
            "to_act": st.to_act,
            "v": st.v,
            "spectators": len(self.conns[-1]),
            "invite": st.meta.invite if seat >= 0 else None,
            "rematch": st.rematch,
        }

    def _audiences(self) -> list[int]:
        broker = self.hub.broker
        return [s for s in (0, 1, 2, 3, -1) if broker.subscribers(channel(self.id, s))]

    def publish(self, events: list[dict[str, Any]]) -> None:
        st = self.state
        t = now_ms()
        audiences = self._audiences()
        states = st.states_json(audiences)
        for seat in audiences:
            table = _dumps(self.table_info(seat))
            state = states[seat]
            ch = channel(self.id, seat)
            for e in events:
                self.hub.broker.publish(
                    ch,
                    f'{{"type":"event","v":{e["v"]},"server_time":{t},"event":{_dumps(e)},'
                    f'"table":{table},"state":{state}}}',
                )

    def publish_table(self) -> None:
        """Tell everyone of a change outside the log (connections, deadlines)."""
        t = now_ms()
        for seat in self._audiences():
            self.hub.broker.publish(
                channel(self.id, seat),
                f'{{"type":"table","v":{self.state.v},"server_time":{t},"table":{_dumps(self.table_info(seat))}}}',
            )

    def snapshot(self, seat: int) -> str:
        st = self.state
        return (
            f'{{"type":"snapshot","v":{st.v},"server_time":{now_ms()},'
            f'"table":{_dumps(self.table_info(seat))},"state":{_dumps(st.state(seat))}}}'
        )

    def catch_up(self, seat: int, since: object) -> list[str]:
        """What a client that last saw version ``since`` needs: the events it missed, or a snapshot."""
        st = self.state
        if (
            not isinstance(since, int)
            or isinstance(since, bool)
            or since <= 0
            or since > st.v
            or st.v - since > self.config.catchup_max
        ):
            return [self.snapshot(seat)]
        t = now_ms()
        table = _dumps(self.table_info(seat))
        out: list[str] = []
        if since < st.v:
            replay = TableState(st.meta)
            for entry in self.log:
                fresh = [e for e in replay.apply(entry) if e["v"] > since]
                if fresh:
                    state = _dumps(replay.state(seat))
                    for e in fresh:
                        out.append(
                            f'{{"type":"event","v":{e["v"]},"server_time":{t},"event":{_dumps(e)},'
                            f'"table":{table},"state":{state}}}'
                        )
        out.append(f'{{"type":"synced","v":{st.v},"server_time":{t},"table":{table}}}')
        return out

    # --- connections -------------------------------------------------------------------
    def active(self) -> bool:
        """Whether any player is connected; with none the table waits for them."""
        st = self.state
        return any(self.connected[i] for i in st.humans())

    def attach(self, conn: Conn) -> None:
        was_active = self.active()
        self.conns[conn.seat].add(conn)
        self.last_seen = time.time()
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
        self.publish_table()

    def detach(self, conn: Conn) -> None:
        if conn not in self.conns[conn.seat]:
            return
        self.conns[conn.seat].discard(conn)
        self.last_seen = time.time()
        seat = conn.seat
        if seat >= 0:
            self.connected[seat] -= 1
            if (
                self.connected[seat] == 0
                and self.state.status in (PLAYING, BETWEEN)
                and self.state.seats[seat].kind == "human"
            ):
                loop = asyncio.get_running_loop()
                self._grace[seat] = loop.call_later(self.config.grace, self._grace_over, seat)
            if not self.active():
                self.freeze()
            elif self.state.status == BETWEEN:
                self.schedule()
        self.publish_table()

    def _grace_over(self, seat: int) -> None:
        self._grace[seat] = None
        if self.connected[seat] == 0 and self.active() and self.state.status in (PLAYING, BETWEEN):
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
        """Arrange what happens next: a bot's move, a timer, the next round."""
        self.pause()
        st = self.state
        if st.status != BETWEEN:
            self.between_deadline = None
        if not self.active():
            return
        cfg = self.config
        loop = asyncio.get_running_loop()
        if st.status == PLAYING:
            m = st.match
            seat = st.to_act
            if m is None or seat is None:
                return
            v = st.v
            if st.seats[seat].kind == "bot" or st.autoplay[seat]:
                self._handle = loop.call_later(cfg.bot_delay, self._bot_turn, v, seat)
                return
            rnd = m.round
            rules = st.meta.rules
            if rnd.phase == "playing" and rules.autoplay_forced and rnd.legal_mask().bit_count() == 1:
                self.deadline = time.time() + cfg.forced_delay
                self._handle = loop.call_later(cfg.forced_delay, self._auto, v, seat, "forced")
                return
            secs = rules.card_seconds if rnd.phase == "playing" else rules.call_seconds
            if secs:
                # the same turn keeps its deadline when something else happens meanwhile
                key = (m.round_number, len(m.redeals), len(rnd), seat)
                if key != self._turn_key or self._turn_deadline is None:
                    self._turn_key = key
                    self._turn_deadline = time.time() + secs * cfg.time_scale
                self.deadline = self._turn_deadline
                delay = max(0.0, self._turn_deadline - time.time())
                self._handle = loop.call_later(delay, self._auto, v, seat, "timeout")
        elif st.status == BETWEEN:
            # every player not replaced by a bot, connected or not: the delay bounds the wait
            waiting = [s for s in st.humans() if not st.autoplay[s] and not st.ready[s]]
            if not waiting:
                self._handle = loop.call_soon(self._next_round, st.v)
                return
            if self.between_deadline is None:
                self.between_deadline = time.time() + cfg.between_rounds
            self.deadline = self.between_deadline
            delay = max(0.0, self.between_deadline - time.time())
            self._handle = loop.call_later(delay, self._next_round, st.v)

    def _next_round(self, v: int) -> None:
        if self.state.v == v and self.state.status == BETWEEN:
            self.try_submit({"t": "next"})

    def _auto(self, v: int, seat: int, reason: str) -> None:
        st = self.state
        if st.v != v or st.to_act != seat or st.match is None:
            return
        rnd = st.match.round
        if rnd.phase == "calling":
            entry: dict[str, Any] = {"t": "call", "seat": seat, "call": lowest_call(rnd.legal_calls()), "auto": reason}
        else:
            card = lowest_card(rnd.legal_cards(), st.meta.rules.trump_index)
            entry = {"t": "play", "seat": seat, "card": str(card), "auto": reason}
        if not self.try_submit(entry):
            return
        if reason == "timeout":
            self.expiries[seat] += 1
            if self.expiries[seat] >= 2 and not st.autoplay[seat]:
                self.try_submit({"t": "autoplay", "seat": seat, "on": True, "reason": "timeout"})

    def bot(self, seat: int) -> Bot:
        b = self._bots.get(seat)
        if b is None:
            b = self._bots[seat] = table_bot(self.state.meta.bots, self.state.meta.seed * 4 + seat)
        return b

    def _bot_turn(self, v: int, seat: int) -> None:
        st = self.state
        if st.v != v or st.to_act != seat or st.match is None:
            return
        view = st.match.view(seat)
        bot = self.bot(seat)
        if st.meta.bots in INLINE_LEVELS or bot.name in INLINE_LEVELS:
            self._bot_done(v, seat, _safe_act(bot, view))
            return
        task = asyncio.get_running_loop().create_task(self._bot_thread(v, seat, bot, view))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _bot_thread(self, v: int, seat: int, bot: Bot, view: SeatView) -> None:
        choice = await asyncio.to_thread(_safe_act, bot, view)
        self._bot_done(v, seat, choice)

    def _bot_done(self, v: int, seat: int, choice: int | Card | None) -> None:
        st = self.state
        if st.v != v or st.to_act != seat or st.match is None:
            return
        auto = "autoplay" if st.seats[seat].kind == "human" else None
        rnd = st.match.round
        entry: dict[str, Any]
        if rnd.phase == "calling":
            n = choice if isinstance(choice, int) and not isinstance(choice, Card) else None
            if n not in rnd.legal_calls():
                n = lowest_call(rnd.legal_calls())
            entry = {"t": "call", "seat": seat, "call": n, "auto": auto}
        else:
            legal = rnd.legal_cards()
            card = choice if isinstance(choice, Card) and choice in legal else lowest_card(legal, rnd.rules.trump_index)
            entry = {"t": "play", "seat": seat, "card": str(card), "auto": auto}
        self.try_submit(entry)

    def human_acts(self, seat: int) -> None:
        """The player is back in charge of the seat."""
        self.expiries[seat] = 0
        if self.state.autoplay[seat]:
            self.try_submit({"t": "autoplay", "seat": seat, "on": False})

    def close(self) -> None:
        self.pause()
        for i, g in enumerate(self._grace):
            if g is not None:
                g.cancel()
                self._grace[i] = None
        for task in list(self._tasks):
            task.cancel()
        for conns in self.conns.values():
            for c in list(conns):
                c.close()


def _optional(name: str) -> ModuleType | None:
    """A module another engineer may not have written yet."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _safe_act(bot: Bot, view: SeatView) -> int | Card | None:
    try:
        return bot.act(view)
    except Exception:
        log.exception("bot %r failed", bot)
        return None


class Hub:
    """All the tables of this process, their storage and their fan-out."""

    def __init__(
        self, config: ServerConfig, store: Store | None = None, broker: Broker | None = None
    ) -> None:
        self.config = config
        self.store: Store = store if store is not None else SQLiteStore(config.db, config.sync)
        self.broker: Broker = broker if broker is not None else LocalBroker()
        self.tables: dict[str, LiveTable] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self.create_buckets: dict[str, Bucket] = {}
        self._last_gc = time.monotonic()

    # --- lifecycle ----------------------------------------------------------------------
    async def startup(self) -> None:
        for tid in self.store.unfinished():
            try:
                self.get(tid)
            except Exception:
                log.exception("table %s could not be rebuilt", tid)
        if self.config.gc_every > 0:
            # the tables loaded so far stay: leave them out of every collection, and run the
            # full (oldest-generation) collection on our schedule instead of Python's
            gc.collect()
            gc.freeze()
            g0, g1, _ = gc.get_threshold()
            gc.set_threshold(g0, g1, 1_000_000_000)
        self._last_gc = time.monotonic()
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever())

    async def shutdown(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        for t in list(self.tables.values()):
            t.close()
        self.tables.clear()
        self.store.close()

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.config.sweep_every)
            try:
                self.sweep()
            except Exception:
                log.exception("sweep failed")

    def sweep(self, now: float | None = None) -> None:
        """Expire lobbies nobody started; drop idle finished tables from memory."""
        now = time.time() if now is None else now
        if self.config.gc_every > 0 and time.monotonic() - self._last_gc > self.config.gc_every:
            self._last_gc = time.monotonic()
            gc.collect()
        for tid, t in list(self.tables.items()):
            st = t.state
            if st.status == LOBBY and now - st.meta.created > self.config.lobby_ttl:
                t.try_submit({"t": "expire"})
            idle = not any(t.conns.values())
            if idle and now - t.last_seen > self.config.unload_after and (
                st.status in (FINISHED, EXPIRED) or not t.active()
            ):
                t.close()
                del self.tables[tid]

    # --- tables ----------------------------------------------------------------------
    def get(self, table_id: str) -> LiveTable | None:
        t = self.tables.get(table_id)
        if t is not None:
            return t
        if not isinstance(table_id, str) or not 4 <= len(table_id) <= 32:
            return None
        loaded = self.store.load(table_id)
        if loaded is None:
            return None
        meta, entries = loaded
        state = TableState(meta)
        for e in entries:
            state.apply(e)
        t = self.tables[table_id] = LiveTable(self, state, entries)
        return t

    def reload(self, table: LiveTable) -> None:
        """Rebuild a table from the store after a failed commit (memory may be ahead)."""
        conns = [c for cs in table.conns.values() for c in cs]
        table.close()
        self.tables.pop(table.id, None)
        fresh = self.get(table.id)
        if fresh is None:
            return
        for c in conns:
            c.close()

    def _require(self, table_id: str) -> LiveTable:
        t = self.get(table_id)
        if t is None:
            raise TableError("no_table", "there is no such table")
        return t

    def allow_create(self, ip: str) -> bool:
        b = self.create_buckets.get(ip)
        if b is None:
            if len(self.create_buckets) > 100_000:
                self.create_buckets.clear()
            b = self.create_buckets[ip] = Bucket(self.config.create_rate, self.config.create_burst)
        return b.take()

    def create_table(
        self,
        rules: Ruleset,
        bots: str = "medium",
        name: object = None,
        play_now: bool = False,
        parent: str | None = None,
        seats: list[tuple[int, str]] | None = None,
        host: int = 0,
    ) -> tuple[LiveTable, dict[int, str]]:
        """A new table with its players seated (and started with ``play_now``); their tokens."""
        if bots not in LEVELS and bots not in levels():
            raise TableError("bad_bots", f"unknown bot level {bots!r} (levels: {', '.join(LEVELS)})")
        for _ in range(5):
            tid = secrets.token_urlsafe(6)
            if self.store.load(tid) is None:
                break
        meta = TableMeta(
            id=tid,
            invite=secrets.token_urlsafe(6),
            rules=rules,
            bots=bots,
            seed=secrets.randbits(62),
            created=time.time(),
            host=host,
            parent=parent,
        )
        if seats is None:
            seats = [(0, clean_name(name, "Player 1"))]
        state = TableState(meta)
        entries: list[dict[str, Any]] = []
        tokens: dict[int, str] = {}
        for seat, pname in seats:
            tok = new_token()
            tokens[seat] = tok
            entries.append({"t": "seat", "seat": seat, "name": pname, "token": tok})
        if play_now:
            entries.append({"t": "start"})
        for e in entries:
            state.apply(e)
        self.store.create(meta, entries, [(tok, s) for s, tok in tokens.items()], state.status)
        t = self.tables[tid] = LiveTable(self, state, entries)
        return t, tokens

    def join(self, code: str, name: object, seat: object = None) -> tuple[LiveTable, int, str]:
        tid = self.store.find_invite(code) if isinstance(code, str) and len(code) <= 32 else None
        t = self.get(tid) if tid else None
        if t is None:
            raise TableError("no_table", "this invite is not valid")
        st = t.state
        if st.status != LOBBY:
            raise TableError("wrong_status", "this table has already started")
        free = [i for i, s in enumerate(st.seats) if s.kind == "empty"]
        if seat is None:
            if not free:
                raise TableError("table_full", "every seat is taken")
            seat = free[0]
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
            raise TableError("bad_seat", f"seat must be 0..3, not {seat!r}")
        tok = new_token()
        t.submit(
            {"t": "seat", "seat": seat, "name": clean_name(name, f"Player {seat + 1}"), "token": tok},
            ((tok, seat),),
        )
        return t, seat, tok

    def seat_for(self, t: LiveTable, token: object) -> int:
        """The seat a token holds at table ``t``; `TableError` otherwise."""
        if isinstance(token, str) and 16 <= len(token) <= 64:
            seat = t.state.seat_of_token(token)
            if seat is not None:
                return seat
        raise TableError("bad_token", "that seat token is not valid for this table")

    def start_table(self, table_id: str, token: object) -> LiveTable:
        t = self._require(table_id)
        seat = self.seat_for(t, token)
        if seat != t.state.meta.host:
            raise TableError("not_host", "only the host starts the table")
        t.submit({"t": "start"})
        return t

    def rematch(self, table_id: str, token: object) -> tuple[LiveTable, int, str]:
        """The same people at a new table (started at once); each human gets a new token."""
        old = self._require(table_id)
        seat = self.seat_for(old, token)
        st = old.state
        if st.status != FINISHED:
            raise TableError("wrong_status", "a rematch comes once the match is over")
        if st.rematch is not None:
            new = self._require(st.rematch)
            return new, seat, new.state.seats[seat].token
        humans = [(i, s.name) for i, s in enumerate(st.seats) if s.kind == "human"]
        new, tokens = self.create_table(
            st.meta.rules, st.meta.bots, play_now=True, parent=st.id, seats=humans, host=seat
        )
        old.submit({"t": "rematch", "table": new.id})
        for s, tok in tokens.items():
            self.broker.publish(
                channel(old.id, s), _dumps({"type": "rematch", "table": new.id, "token": tok, "seat": s})
            )
        return new, seat, tokens[seat]

    def history(self, table_id: str, fmt: str) -> tuple[str, str]:
        """(media type, text) of a finished match's hand history."""
        t = self._require(table_id)
        st = t.state
        if st.status != FINISHED or st.match is None:
            raise TableError("not_over", "the hand history is ready once the match is over")
        m = st.match
        log_doc = {
            "table": st.id,
            "rules": st.meta.rules.to_dict(),
            "seed": m.seed,
            "dealer": m.first_dealer,
            "players": m.players,
            "actions": st.actions(),
            "totals": [str(p) for p in m.totals],
            "places": m.places,
        }
        if fmt == "log":
            return "application/json", _dumps(log_doc)
        notation = _optional("callbreak.notation")
        if fmt == "text":
            fn = getattr(notation, "dumps", None)
            if fn is not None:
                with contextlib.suppress(Exception):
                    return "text/plain; charset=utf-8", str(fn(m))
            return "text/plain; charset=utf-8", _text_history(log_doc)
        if fmt == "json":
            fn = getattr(notation, "to_json", None)
            if fn is not None:
                with contextlib.suppress(Exception):
                    out = fn(m)
                    return "application/json", out if isinstance(out, str) else _dumps(out)
            return "application/json", _dumps(log_doc)
        raise TableError("bad_format", "format is text, json or log")

    def matches(self, tokens: list[str]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for tok in tokens[:50]:
            found = self.store.find_token(tok) if 16 <= len(tok) <= 64 else None
            if found is None:
                continue
            t = self.get(found[0])
            if t is None or t.state.seat_of_token(tok) is None:
                continue
            st = t.state
            m = st.match
            out.append(
                {
                    "table": st.id,
                    "seat": found[1],
                    "status": st.status,
                    "created": int(st.meta.created * 1000),
                    "players": [s.name for s in st.seats],
                    "rules": st.meta.rules.name,
                    "totals": None if m is None else [str(p) for p in m.totals],
                    "places": m.places if m is not None and m.is_over else None,
                }
            )
        return out

    # --- WebSocket messages ---------------------------------------------------------------
    def open(self, table_id: str, token: str | None, send: Callable[[str], Awaitable[None]]) -> Conn:
        t = self._require(table_id)
        seat = -1 if not token else self.seat_for(t, token)
        return Conn(t, seat, send, self.config)

    def close(self, conn: Conn) -> None:
        if conn.unsubscribe is not None:
            conn.unsubscribe()
            conn.unsubscribe = None
        conn.table.detach(conn)
        conn.close()

    def error(self, conn: Conn, code: str, message: str, ref: object = None) -> None:
        msg: dict[str, Any] = {"type": "error", "code": code, "message": message, "v": conn.table.state.v}
        if ref is not None:
            msg["ref"] = ref
        conn.push(_dumps(msg))

    async def on_message(self, conn: Conn, raw: str | bytes | None) -> None:
        """Handle one client message; every refusal is an ``error`` message, nothing else."""
        if not conn.bucket.take():
            now = time.monotonic()
            if now - conn.last_error > 1.0:
                conn.last_error = now
                self.error(conn, "rate_limited", "too many messages; slow down")
            return
        if raw is None:
            return self.error(conn, "bad_message", "empty message")
        if len(raw) > self.config.max_message:
            return self.error(conn, "too_large", f"messages are at most {self.config.max_message} bytes")
        try:
            msg = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return self.error(conn, "bad_json", "a message is one JSON object")
        if not isinstance(msg, dict):
            return self.error(conn, "bad_message", "a message is one JSON object")
        ref = msg.get("ref")
        if not (ref is None or (isinstance(ref, (str, int)) and not isinstance(ref, bool) and len(str(ref)) <= 64)):
            ref = None
        kind = msg.get("type")
        try:
            await self._dispatch(conn, kind, msg, ref)
        except TableError as e:
            self.error(conn, e.code, e.message, ref)
        except Exception:  # a bug must cost one message, not the connection or the server
            log.exception("table %s: message %r failed", conn.table.id, kind)
            self.error(conn, "internal", "the server could not handle that message", ref)

    async def _dispatch(self, conn: Conn, kind: object, msg: dict[str, Any], ref: object) -> None:
        t = conn.table
        seat = conn.seat
        if kind == "hello":
            # all in one step of the event loop: attach (which may start the timers), then
            # the catch-up, then the live feed, so nothing is missed or sent twice
            if conn.unsubscribe is None:
                t.attach(conn)
            for m in t.catch_up(seat, msg.get("since")):
                conn.push(m)
            if seat >= 0 and t.state.rematch is not None:
                new = self.get(t.state.rematch)
                if new is not None and new.state.seats[seat].kind == "human":
                    tok = new.state.seats[seat].token
                    conn.push(_dumps({"type": "rematch", "table": new.id, "token": tok, "seat": seat}))
            if conn.unsubscribe is None:
                conn.unsubscribe = self.broker.subscribe(channel(t.id, seat), conn.push)
            return
        if kind == "ping":
            conn.push(_dumps({"type": "pong", "server_time": now_ms(), "ref": ref}))
            return
        if not isinstance(kind, str) or kind not in _SEAT_MESSAGES:
            raise TableError("bad_type", f"unknown message type {str(kind)[:32]!r}")
        if seat < 0:
            raise TableError("spectator", "spectators watch; they cannot act")
        if kind == "call":
            t.human_acts(seat)
            t.submit({"t": "call", "seat": seat, "call": msg.get("call")})
        elif kind == "play":
            t.human_acts(seat)
            t.submit({"t": "play", "seat": seat, "card": msg.get("card")})
        elif kind == "ready":
            t.human_acts(seat)
            t.submit({"t": "ready", "seat": seat})
        elif kind == "leave":
            t.submit({"t": "leave", "seat": seat})
            for c in list(t.conns[seat]):  # the seat's token no longer holds it
                c.close()
        elif kind == "back":
            t.human_acts(seat)
        elif kind == "start":
            if seat != t.state.meta.host:
                raise TableError("not_host", "only the host starts the table")
            t.submit({"t": "start"})
        elif kind == "end":
            if seat != t.state.meta.host:
                raise TableError("not_host", "only the host ends the match")
            if t.state.meta.rules.rounds is not None:
                raise TableError("illegal", "this match ends by itself after its rounds")
            t.submit({"t": "end"})
        elif kind == "rematch":
            new, s, tok = self.rematch(t.id, t.state.seats[seat].token)
            conn.push(_dumps({"type": "rematch", "table": new.id, "token": tok, "seat": s, "ref": ref}))
        elif kind == "hint":
            await self._hint(conn, ref)

    async def _hint(self, conn: Conn, ref: object) -> None:
        t = conn.table
        st = t.state
        seat = conn.seat
        if st.to_act != seat or st.match is None:
            raise TableError("not_your_turn", "a hint is for your turn")
        v = st.v
        view = st.match.view(seat)
        data: dict[str, Any]
        hints = _optional("callbreak.bots.hints")
        fn = getattr(hints, "hint", None)
        result: Any = None
        if fn is not None:
            try:
                KERNEL.start()
                result = await asyncio.to_thread(fn, view, until_ready=KERNEL)
            except Exception:
                log.exception("hint failed")
                result = None
        if result is not None and hasattr(result, "to_dict"):
            data = dict(result.to_dict())
        elif isinstance(result, dict):
            data = dict(result)
        else:
            choice = await asyncio.to_thread(_safe_act, table_bot(st.meta.bots, v), view)
            data = {"call": None, "chance": None, "card": None, "reason": "", "level": st.meta.bots}
            if isinstance(choice, Card):
                data["card"] = str(choice)
            elif isinstance(choice, int):
                data["call"] = choice
        data.update({"type": "hint", "v": v, "ref": ref})
        conn.push(_dumps(data))


_SEAT_MESSAGES = {"call", "play", "ready", "back", "leave", "start", "end", "rematch", "hint"}


def _text_history(doc: dict[str, Any]) -> str:
    lines = [
        f"# Callbreak match at table {doc['table']}",
        f"# rules {orjson.dumps(doc['rules']).decode()}",
        f"# seed {doc['seed']} dealer {doc['dealer']}",
        f"# players {' | '.join(doc['players'])}",
    ]
    for a in doc["actions"]:
        lines.append(f"{a['seat']} {'call ' + str(a['call']) if 'call' in a else 'play ' + a['card']}")
    lines.append(f"# totals {' '.join(doc['totals'])}")
    lines.append(f"# places {' '.join(str(p) for p in doc['places'])}")
    return "\n".join(lines) + "\n"
