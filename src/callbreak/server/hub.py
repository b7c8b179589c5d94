"""The running server: the registry of live tables, and the messages of their connections.

`Hub` owns every table loaded in this process (a `LiveTable` each, see `live`),
creates, joins, starts and rematches tables, sweeps expired and idle ones, and
dispatches each WebSocket message of a `Conn` (see `conn`) to its table.
"""

import asyncio
import logging
import secrets
import time
import unicodedata
from collections.abc import Awaitable, Callable
from typing import Any

from ..bots import levels
from ..i18n import choose_language, translator
from ..rules import Ruleset
from .analysis import AnalysisStatus, Analyst
from .botpool import LOCAL_AT_ONCE, BotPool, Deciders
from .broker import Broker, LocalBroker, channel
from .clock import Clock, Handle, LoopClock
from .config import ServerConfig
from .conn import NO_HELLO, Conn, nbytes
from .hinting import Hints
from .history import history
from .live import LiveTable
from .meter import Meter
from .protocol import (
    Back,
    Call,
    ClientMessage,
    End,
    Error,
    ErrorCode,
    Event,
    Hello,
    Hint,
    Leave,
    Ping,
    Play,
    Pong,
    Ready,
    Refused,
    Rematch,
    RematchAsk,
    Select,
    Start,
    WhileAway,
    encode,
    parse,
)
from .ratelimit import Bucket
from .recent import AUDIENCES
from .seeding import TableSeeds
from .store import BatchStore, Store, StoreUnavailable, open_store
from .table import (
    ABANDONED,
    ATTEMPT,
    ATTEMPT_RULE,
    BETWEEN,
    EXPIRED,
    FINISHED,
    LOBBY,
    PLAYING,
    TableError,
    TableMeta,
    TableState,
    clean_name,
)
from .writebehind import WriteBehind

__all__ = ["Hub", "new_token"]

log = logging.getLogger("callbreak.server")


def new_token() -> str:
    """A seat token: 192 random bits, URL-safe.

    >>> len(new_token()), new_token() != new_token()
    (32, True)
    """
    return secrets.token_urlsafe(24)


def _too_many_new() -> TableError:
    return TableError("rate_limited", "too many new connections from here; wait a little")


class Hub:
    """All the tables of this process, their storage and their fan-out.

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> t, tokens = hub.create_table(Ruleset(), name="Asha")
    >>> hub.tables[t.id] is t, t.state.status, len(tokens)
    (True, 'lobby', 1)
    >>> hub.store.close(); hub.hints.close()
    """

    def __init__(
        self,
        config: ServerConfig,
        store: Store | None = None,
        broker: Broker | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.config = config
        #: every timer, deadline and rate limit reads this clock (tests drive a `ManualClock`)
        self.clock: Clock = clock if clock is not None else LoopClock()
        self.store: Store = store if store is not None else open_store(config.db, config.sync, now=self.clock.time)
        #: calls and cards committed off the event loop, on a store that batches them (PostgreSQL,
        #: with ``write_behind`` on; made by `startup`, on the running loop); None: every commit on the loop
        self.write_behind: WriteBehind | None = None
        self.broker: Broker = broker if broker is not None else LocalBroker()
        self.tables: dict[str, LiveTable] = {}
        #: every new table's seed (its deals and bots' play): `secrets`, or a stream from ``--seed``
        self.seeds = TableSeeds(config.seed, config.process)
        self._sweeper: Handle | None = None
        #: whether `sweep` also closes stale stored tables; a cluster does that itself, each
        #: table under its lease (never one that a living process runs)
        self.sweeps_store = True
        #: set by a cluster (`cluster.Cluster.let_go_table`): a table made here, or loaded here only to
        #: be read, is let go (unloaded, its lease not kept) once that is done, so that the process
        #: its players' requests reach runs it
        self.let_go: Callable[[str], None] | None = None
        #: set by a cluster (`cluster.Cluster.joined`): whether a player away can come back to this
        #: process's tables just now (with Redis away, every new socket is refused): while not, a
        #: turn timer or grace of a seat whose player is away waits (`LiveTable.schedule`)
        self.reachable: Callable[[], bool] = lambda: True
        #: the bot decisions this process makes itself for bot workers that did not answer, at most
        #: `botpool.LOCAL_AT_ONCE` at a time (the workers down at a busy hour: its CPU bounded)
        self.deciding_here = asyncio.Semaphore(LOCAL_AT_ONCE)
        self.create_buckets: dict[str, Bucket] = {}
        #: new WebSockets per client address (a token bucket each; cleared past 100,000 addresses)
        self.connect_buckets: dict[str, Bucket] = {}
        #: open WebSockets per client address (an address leaves the map with its last socket)
        self.sockets_per_ip: dict[str, int] = {}
        #: connections that have not sent their ``hello`` yet: the timer that closes them
        self.awaiting_hello: dict[Conn, Handle] = {}
        #: hints, cached per seat and decision, in their own pool (child processes by default)
        self.hints = Hints(config.hint_workers, config.hint_queue, config.hint_processes)
        #: post-match analyses, in worker processes, kept in the store
        self.analyst = Analyst(self.store, config.analysis_budget, config.analysis_workers)
        #: measurements (`server.metrics` replaces it to serve them on /metrics)
        self.meter = Meter()
        #: where the bots decide: worker processes here, bot workers fed by a queue on Redis,
        #: or (None) a thread per decision
        self.botpool: Deciders | None = None
        if config.bot_queue == "redis":
            from .botqueue_redis import RedisBotQueue

            self.botpool = RedisBotQueue(config, self.clock, lambda: self.meter)
        elif config.bot_processes > 0:
            self.botpool = BotPool(config.bot_processes)

    # --- lifecycle ----------------------------------------------------------------------
    async def startup(self) -> None:
        """Start the sweeper.  No stored table is loaded: each is rebuilt from its log when it
        is first asked for (a player's reconnect, a page, an invite), so a start costs nothing
        per stored table; the sweeper expires or abandons the ones nobody asks for."""
        self._sweeper = self.clock.call_later(self.config.sweep_every, self._sweep_tick)
        if self.config.write_behind and isinstance(self.store, BatchStore) and self.write_behind is None:
            self.write_behind = WriteBehind(self.store, asyncio.get_running_loop(), self._committed)
            self.write_behind.open()
        if self.botpool is not None:
            await self.botpool.start()
        if self.config.analysis_warm:
            self.analyst.warm()

    async def shutdown(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        if self.write_behind is not None:
            self.write_behind.close()  # what was accepted is committed before the store closes
            self.write_behind = None
        for t in list(self.tables.values()):
            t.close()
        self.tables.clear()
        self.hints.close()
        self.analyst.close()
        if self.botpool is not None:
            await self.botpool.close()
        self.store.close()

    def _committed(self, seconds: float, n: int) -> None:
        for _ in range(n):
            self.meter.append(seconds)

    def _sweep_tick(self) -> None:
        self._sweeper = self.clock.call_later(self.config.sweep_every, self._sweep_tick)
        try:
            self.sweep()
        except StoreUnavailable:  # (the store's `Outage` says so in the log): the next sweep comes
            pass
        except Exception:  # the next sweep still comes
            log.exception("sweep failed")

    def sweep(self, now: float | None = None) -> None:
        """Expire lobbies nobody started; abandon unfinished tables no player came back to;
        drop idle finished tables from memory; then the same for stored tables not loaded
        (a bounded number per sweep)."""
        now = self.clock.time() if now is None else now
        cfg = self.config
        for tid, t in list(self.tables.items()):
            st = t.state
            if st.status == LOBBY and now - st.meta.created > cfg.lobby_ttl:
                t.try_submit({"t": "expire"})
            elif (
                st.status in (PLAYING, BETWEEN)
                and cfg.abandon_after > 0
                and not t.active()
                and now - t.last_seen > cfg.abandon_after
            ):
                t.try_submit({"t": "abandon"})
            idle = not any(t.conns.values())
            if idle and (
                st.status == ABANDONED
                or (now - t.last_seen > cfg.unload_after and (st.status in (FINISHED, EXPIRED) or not t.active()))
            ):
                self._unload(tid)
        if self.sweeps_store:
            for tid in self.stale_stored(now):
                self.close_stale(tid)

    def stale_stored(self, now: float) -> list[str]:
        """Stored tables not loaded here that are due to close: lobbies nobody started, matches
        nobody played for ``abandon_after`` (a bounded number)."""
        cfg = self.config
        idle_before = now - cfg.abandon_after if cfg.abandon_after > 0 else float("-inf")
        return [t for t in self.store.stale(now - cfg.lobby_ttl, idle_before, _SWEEP_BATCH) if t not in self.tables]

    def close_stale(self, tid: str) -> None:
        """Load a stored table to expire or abandon it; unload it unless someone came meanwhile."""
        stored = self.get(tid)
        if stored is None:
            return
        stored.try_submit({"t": "expire" if stored.state.status == LOBBY else "abandon"})
        if not any(stored.conns.values()):
            self._unload(tid)

    def _unload(self, tid: str) -> None:
        t = self.tables.pop(tid, None)
        if t is not None:
            t.close()
        self.hints.forget(tid)

    # --- tables ----------------------------------------------------------------------
    def get(self, table_id: str) -> LiveTable | None:
        t = self.tables.get(table_id)
        if t is not None:
            return t
        if not isinstance(table_id, str) or not 4 <= len(table_id) <= 32:
            return None
        if self.write_behind is not None:
            self.write_behind.wait(table_id)  # a copy unloaded a moment ago may still be committing
        loaded = self.store.load(table_id)
        if loaded is None:
            return None
        meta, entries = loaded
        if meta.bots not in levels():  # created with a known level: a stored table is wrong, not random
            raise ValueError(f"table {table_id} names an unknown bot level {meta.bots!r}")
        state = TableState(meta)
        # the log's newest entries also refill the catch-up events, so a client that missed the
        # last events of a process that died (or of this one, before it unloaded the table)
        # catches up from its version instead of a snapshot; only the newest few (each costs a
        # rendering, and a failover rebuilds a dead process's tables one after another)
        keep_from = len(entries) - max(0, min(self.config.catchup_max, _REFILL))
        tail: list[tuple[list[Event], tuple[str, dict[int, str]] | None]] = []
        for i, e in enumerate(entries):
            events = state.apply(e)
            if i >= keep_from and events:
                tail.append((events, state.state_parts(list(AUDIENCES))))
        t = self.tables[table_id] = LiveTable(self, state)
        for events, parts in tail:
            t.recent.record(events, parts)
        return t

    async def settled(self, table_id: str) -> LiveTable | None:
        """`get`, once nothing the table accepted is still on its way to the store: what is read
        from it now (a page, the join page) is what the store holds."""
        while True:
            t = self.get(table_id)
            if t is None or not t.unsettled:
                return t
            await t.settled()

    async def _settled_for(self, t: LiveTable, conn: Conn) -> bool:
        """Wait until ``t`` has nothing on its way to the store; whether it is still the table's
        live copy and ``conn`` still open (the caller acts on it in the same step, no await between)."""
        while t.unsettled:
            await t.settled()
        return t is self.tables.get(t.id) and not conn.closed

    def reload(self, table: LiveTable) -> None:
        """Rebuild a table from the store after a failed commit (memory may be ahead); its
        sockets are closed by the copy's own close (1012: its players reconnect, to the fresh
        copy, or, once the database answers, to one made then)."""
        table.close()
        self.tables.pop(table.id, None)
        self.hints.forget(table.id)
        try:
            self.get(table.id)
        except StoreUnavailable:  # (the store's `Outage` says so in the log): loaded when asked again
            return

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
            b = self.create_buckets[ip] = Bucket(self.config.create_rate, self.config.create_burst, self.clock.monotonic)
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
        practice: dict[str, Any] | None = None,
        bot_names: tuple[str | None, ...] | None = None,
        lang: str | None = None,
    ) -> tuple[LiveTable, dict[int, str]]:
        """A new table with its players seated (and started with ``play_now``); their tokens.
        ``lang``: its maker's language (a tag such as ``hi`` or ``bn-BD``), whose script its
        bots are named in."""
        if bots not in levels():
            raise TableError("bad_bots", f"unknown bot level {bots!r} (levels: {', '.join(levels())})")
        for _ in range(5):
            tid = secrets.token_urlsafe(6)
            if self.store.load(tid) is None:
                break
        meta = TableMeta(
            id=tid,
            # the table's id, a dot, then the secret: a load balancer can send an invite's requests
            # to the process that runs its table (deploy/nginx/callbreak.conf)
            invite=f"{tid}.{secrets.token_urlsafe(6)}",
            rules=rules,
            bots=bots,
            seed=self.seeds.draw(),
            created=self.clock.time(),
            host=host,
            parent=parent,
            practice=practice,
            bot_names=bot_names,
            lang=choose_language(lang),
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
        t = self.tables[tid] = LiveTable(self, state)
        return t, tokens

    def join(
        self, code: str, name: object, seat: object = None, lang: str | None = None, attempt: str | None = None
    ) -> tuple[LiveTable, int, str]:
        """A seat at the table of invite ``code``: ``(table, seat, token)``.  ``attempt``, the
        join's own random text (`bodies.JoinTable.attempt`): a join tried again (its answer lost
        on the way) gets the seat it took, even at a table started since.

        >>> from callbreak.server.config import ServerConfig
        >>> hub = Hub(ServerConfig(db=":memory:"))
        >>> t, _ = hub.create_table(Ruleset(), name="Asha")
        >>> first = hub.join(t.state.meta.invite, "Ritu", attempt="ritu-tapped-0123")
        >>> again = hub.join(t.state.meta.invite, "Ritu", attempt="ritu-tapped-0123")
        >>> first == again, first[1], [s.kind for s in t.state.seats]
        (True, 1, ['human', 'human', 'empty', 'empty'])
        >>> hub.store.close(); hub.hints.close()
        """
        tid = self.store.find_invite(code) if isinstance(code, str) and len(code) <= 32 else None
        t = self.get(tid) if tid else None
        if t is None:
            raise TableError("no_table", "this invite is not valid")
        st = t.state
        if attempt is not None and not ATTEMPT.fullmatch(attempt):  # (before all else: changes nothing)
            raise TableError("bad_message", ATTEMPT_RULE)
        if attempt:
            took = st.seat_of_attempt(attempt)
            if took is not None:
                return t, took, st.seats[took].token
        if st.status != LOBBY:
            raise TableError("wrong_status", "this table has already started")
        free = [i for i, s in enumerate(st.seats) if s.kind == "empty"]
        if seat is None:
            if not free:
                raise TableError("table_full", "every seat is taken")
            seat = free[0]
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
            raise TableError("bad_seat", f"seat must be 0..3, not {seat!r}")
        # (no name given: "Player 2" in the joining player's language, as the web's host is named)
        shown = clean_name(name, translator(choose_language(lang))("calc.player", n=seat + 1))
        if any(s.kind == "human" and s.name and _name_key(s.name) == _name_key(shown) for s in st.seats):
            # (two of one name: "राहुल is calling…" would not say which; found in a newcomer's try)
            raise TableError("name_taken", f"a player called {shown!r} sits at this table already")
        tok = new_token()
        entry: dict[str, object] = {"t": "seat", "seat": seat, "name": shown, "token": tok}
        if attempt:
            entry["attempt"] = attempt
        t.submit(entry, ((tok, seat),))
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
        """The same people at a new table, each human with a new token: started at once for a
        player alone with bots; with friends, in the lobby until the asker (its host) starts it,
        so that no friend's turn runs out while they are still reading the final places."""
        old = self._require(table_id)
        seat = self.seat_for(old, token)
        st = old.state
        if st.status != FINISHED:
            raise TableError("wrong_status", "a rematch comes once the match is over")
        if st.rematch is not None:
            new = self._require(st.rematch)
            return new, seat, new.state.seats[seat].token
        humans = [(i, s.name) for i, s in enumerate(st.seats) if s.kind == "human"]
        bots = tuple(s.name if s.kind == "bot" else None for s in st.seats)  # (who the players played with)
        new, tokens = self.create_table(
            st.meta.rules,
            st.meta.bots,
            play_now=len(humans) == 1,
            parent=st.id,
            seats=humans,
            host=seat,
            bot_names=bots,
            lang=st.meta.lang,
        )
        try:
            old.submit({"t": "rematch", "table": new.id})
        except TableError:
            # the finished table does not point at the new one (its commit failed): nobody could
            # reach the new table, so it is closed now rather than left for the bots to play out
            # (the store down too: the sweep closes it, since no one comes to it)
            new.try_submit({"t": "expire" if new.state.status == LOBBY else "abandon"})
            self._unload(new.id)
            raise
        old.send_after([(channel(old.id, s), encode(Rematch(new.id, tok, s))) for s, tok in tokens.items()])
        return new, seat, tokens[seat]

    def practice(self, table_id: str, deal: int, step: int, name: str | None) -> tuple[LiveTable, int, str]:
        """A new table, started at once, at the position before action ``step`` of deal ``deal``
        of a finished table: the player takes the seat that acted there, bots the others."""
        st = self._require(table_id).state
        if st.status != FINISHED or st.match is None:
            raise TableError("not_over", "a position is played again once the match is over")
        from ..analysis.practice import position_of

        try:
            pos = position_of(st.match, deal, step)
        except ValueError as e:
            raise TableError("bad_message", str(e)) from None
        seat = st.match.deals[deal].actions[step].seat
        t, tokens = self.create_table(
            pos.rules,
            st.meta.bots,
            play_now=True,
            parent=st.id,
            seats=[(seat, clean_name(name, "Player 1"))],
            host=seat,
            # (the bots take the match's names: TableState._a_start; the round is said: TableInfo.practice)
            practice={**pos.to_dict(), "names": "seats", "round": st.match.round_of(deal)},
            lang=st.meta.lang,
        )
        return t, seat, tokens[seat]

    def history(self, table_id: str, fmt: str) -> tuple[str, str]:
        """(media type, text) of a finished match's hand history."""
        return history(self._require(table_id).state, fmt)

    def analysis(self, table_id: str, start: bool) -> AnalysisStatus:
        """Where the analysis of a finished table stands; ``start``: begin it if it is
        neither stored nor running.  `TableError` for an unknown or unfinished table,
        or (``start`` False) an analysis never asked for."""
        known = self.analyst.status(table_id)
        if known is not None and not start:
            return known
        _, text = self.history(table_id, "json")  # the table exists and is over
        if start:
            return self.analyst.start(table_id, text, self._require(table_id).state.auto_decisions())
        raise TableError("no_analysis", "this match has not been analysed yet")

    def matches(self, tokens: list[str]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        only_read: list[str] = []  # loaded here only for this list
        for tok in tokens[:50]:
            found = self.store.find_token(tok) if 16 <= len(tok) <= 64 else None
            if found is None:
                continue
            loaded = found[0] in self.tables
            t = self.get(found[0])
            if not loaded and t is not None:
                only_read.append(t.id)
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
                    "ruleset": st.meta.rules.to_dict(),
                    "totals": None if m is None else [str(p) for p in m.totals],
                    "places": m.places if m is not None and m.is_over else None,
                }
            )
        if self.let_go is not None:
            for tid in only_read:
                self.let_go(tid)
        return out

    # --- WebSocket messages ---------------------------------------------------------------
    def admit(self, ip: str) -> None:
        """Count a new WebSocket from ``ip``; `TableError` ``too_many_connections`` over the cap.
        Each admitted socket is `release`d when it closes."""
        n = self.sockets_per_ip.get(ip, 0)
        cap = self.config.max_sockets_per_ip
        if cap and n >= cap:
            raise TableError("too_many_connections", f"at most {cap} connections at once from one address")
        if self.config.connect_rate > 0:
            b = self.connect_buckets.get(ip)
            if b is None:
                if len(self.connect_buckets) > 100_000:
                    self.connect_buckets.clear()
                b = self.connect_buckets[ip] = Bucket(self.config.connect_rate, self.config.connect_burst, self.clock.monotonic)
            if not b.take():
                raise _too_many_new()
        self.sockets_per_ip[ip] = n + 1

    def over_connect_rate(self, ip: str) -> TableError | None:
        """The error `admit` would refuse a new WebSocket from ``ip`` with for its rate, counting
        nothing (None: within the rate).  The server's cheapest refusal asks it (`sockets`)."""
        b = self.connect_buckets.get(ip)
        return _too_many_new() if b is not None and not b.ready() else None

    def release(self, ip: str) -> None:
        n = self.sockets_per_ip.get(ip, 0) - 1
        if n > 0:
            self.sockets_per_ip[ip] = n
        else:
            self.sockets_per_ip.pop(ip, None)

    def open(
        self,
        table_id: str,
        token: str | None,
        send: Callable[[str], Awaitable[None]],
        close_socket: Callable[[int, str], Awaitable[None]] | None = None,
        abort: Callable[[], None] | None = None,
    ) -> Conn:
        """A connection to a table (see `Conn` for ``send``, ``close_socket`` and ``abort``); it
        must say hello within ``hello_timeout``."""
        t = self._require(table_id)
        seat = -1 if not token else self.seat_for(t, token)
        conn = Conn(t, seat, send, self.config, self.clock, close_socket, abort)
        if self.config.hello_timeout > 0:
            self.awaiting_hello[conn] = self.clock.call_later(self.config.hello_timeout, self._hello_overdue, conn)
        return conn

    def _hello_overdue(self, conn: Conn) -> None:
        if self.awaiting_hello.pop(conn, None) is None or conn.closed:
            return
        self.error(conn, "no_hello", f"send hello within {self.config.hello_timeout:g} s of connecting")
        conn.close(NO_HELLO, "no hello")

    def close(self, conn: Conn) -> None:
        h = self.awaiting_hello.pop(conn, None)
        if h is not None:
            h.cancel()
        if conn.unsubscribe is not None:
            conn.unsubscribe()
            conn.unsubscribe = None
        conn.table.detach(conn)
        conn.close()

    def gone(self, conn: Conn) -> None:
        """The ASGI server reported ``conn``'s disconnect (see `Conn.gone`): close it."""
        conn.gone()
        self.close(conn)

    def error(self, conn: Conn, code: str, message: str, ref: str | int | None = None) -> None:
        conn.push(encode(Error(ErrorCode(code), message, v=conn.table.state.v, ref=ref)))

    async def on_message(self, conn: Conn, raw: str | bytes | None) -> None:
        """Handle one client message; every refusal is an ``error`` message, nothing else.

        The message is validated at the edge (`protocol.parse`): one that is not a valid
        `ClientMessage` is refused with its code before it reaches a table."""
        if not conn.bucket.take():
            now = self.clock.monotonic()
            if now - conn.last_error > 1.0:
                conn.last_error = now
                self.error(conn, "rate_limited", "too many messages; slow down")
            return
        if raw is None:
            return self.error(conn, "bad_message", "empty message")
        if _size(raw) > self.config.max_message:
            return self.error(conn, "too_large", f"messages are at most {self.config.max_message} bytes")
        try:
            msg = parse(raw)
        except Refused as e:
            return self.error(conn, e.code, e.message, e.ref)
        t0 = time.perf_counter()
        try:
            await self._dispatch(conn, msg)
            if isinstance(msg, (Call, Play)):
                self.meter.action(time.perf_counter() - t0)
        except TableError as e:
            self.error(conn, e.code, e.message, msg.ref)
        except Exception:  # a bug must cost one message, not the connection or the server
            # (its kind, not its content: a lifted card is the seat's secret)
            log.exception("table %s: a %s message of seat %s failed", conn.table.id, type(msg).__name__, conn.seat)
            self.error(conn, "internal", "the server could not handle that message", msg.ref)

    async def _dispatch(self, conn: Conn, msg: ClientMessage) -> None:
        t = conn.table
        seat = conn.seat
        if isinstance(msg, Hello):
            h = self.awaiting_hello.pop(conn, None)
            if h is not None:
                h.cancel()
            # (before the seat is given back: a bot played it, or this process saw its player go)
            was_away = seat >= 0 and bool(t.state.autoplay[seat])
            left = t.left_with[seat] if seat >= 0 else None
            if seat >= 0:
                t.left_with[seat] = None  # (read once: a later return counts from its own going)
            if conn.unsubscribe is None:
                t.attach(conn)  # (which may start the timers, and submit: the seat is back)
            # what the table accepted and has not committed yet is not shown: wait until nothing
            # is on its way to the store, then, all in one step of the event loop, the catch-up
            # and the live feed, so nothing is missed or sent twice
            if not await self._settled_for(t, conn):  # reloaded or closed meanwhile: it connects afresh
                conn.close()
                return
            missed = t.catch_up(seat, msg.since)
            if len(missed) > 1 and sum(nbytes(m) for m in missed) > conn.limit // 2:
                missed = [t.snapshot(seat)]  # more than its send buffer should hold: start afresh
            for m in missed:
                conn.push(m)
            if was_away:  # back from a bot's autoplay: all that was done since the player's own last action
                self._tell_away(t, conn, seat)
            elif left is not None:  # back within the grace: what was done since the player went
                self._tell_away(t, conn, seat, since=left)
            if seat >= 0 and t.state.rematch is not None:
                new = self.get(t.state.rematch)
                if new is not None and new.state.seats[seat].kind == "human":
                    conn.push(encode(Rematch(new.id, new.state.seats[seat].token, seat)))
            if conn.unsubscribe is None:
                conn.unsubscribe = self.broker.subscribe(channel(t.id, seat), conn.push)
            return
        if isinstance(msg, Ping):
            conn.push(encode(Pong(self.clock.now_ms(), msg.ref)))
            return
        if seat < 0:
            raise TableError("spectator", "spectators watch; they cannot act")
        # (what was done for the seat, read before the action: the player's own card or call
        # starts the count again)
        away = t.state.away(seat) if t.state.autoplay[seat] else None
        try:
            await self._act(t, conn, seat, msg)
        finally:
            if away is not None:
                self._tell_away(t, conn, seat, away)

    def _tell_away(
        self,
        t: LiveTable,
        conn: Conn,
        seat: int,
        done: tuple[int | None, int] | None = None,
        since: tuple[int, int | None, int] | None = None,
    ) -> None:
        """A seat its player came back to, or took back from a bot by acting: what was done for it
        meanwhile (by the bot, or the turn's timer; ``done``: as read before the player's action;
        ``since``: only what was done after that, as `LiveTable.left_with` holds it), told to the
        player's connection (`WhileAway`), if anything was, during a match being played, and once:
        not again on the next return with nothing new done."""
        if t.state.autoplay[seat] or t.state.status not in (PLAYING, BETWEEN) or t.state.match is None:
            return
        call, cards = t.state.away(seat) if done is None else done
        if since is not None and since[0] == len(t.state.match.deals) - 1:  # (the same deal: what is new)
            call, cards = (call if since[1] is None else None), cards - since[2]
        told = (len(t.state.match.deals) if t.state.match else 0, call, cards)
        if (call is not None or cards) and t.told_away[seat] != told:
            t.told_away[seat] = told
            conn.push(encode(WhileAway(call=call, cards=cards)))

    async def _act(self, t: LiveTable, conn: Conn, seat: int, msg: ClientMessage) -> None:
        """A player's action on its seat."""
        # an action is validated (and committed) first: a refused one changes nothing, not even
        # who plays the seat; an accepted one gives the seat back to its player
        match msg:
            case Call(call=n):
                t.submit({"t": "call", "seat": seat, "call": n})
                t.human_acts(seat)
            case Play(card=card, at=at):
                m = t.state.match
                played = m.round.played_mask.bit_count() if m is not None else 0
                if at is not None and m is not None and t.state.status == PLAYING and played != at:
                    # (chosen for an earlier turn of the seat, which its timer played meanwhile)
                    raise TableError("not_your_turn", f"that card was chosen with {at} cards played; {played} are now")
                t.submit({"t": "play", "seat": seat, "card": card})
                t.human_acts(seat)
            case Select(card=card, call=call):
                t.autopilot.select(seat, card, call)
            case Ready():
                t.submit({"t": "ready", "seat": seat})
                t.human_acts(seat)
            case Leave():
                t.submit({"t": "leave", "seat": seat})
                for c in list(t.conns[seat]):  # the seat's token no longer holds it
                    c.close()
            case Back():
                if t.state.status not in (PLAYING, BETWEEN):
                    raise TableError("wrong_status", f"not now: the table is {t.state.status.replace('_', ' ')}")
                t.human_acts(seat)
            case Start():
                if seat != t.state.meta.host:
                    raise TableError("not_host", "only the host starts the table")
                t.submit({"t": "start"})
            case End():
                if seat != t.state.meta.host:
                    raise TableError("not_host", "only the host ends the match")
                if t.state.meta.rules.rounds is not None:
                    raise TableError("illegal", "this match ends by itself after its rounds")
                t.submit({"t": "end"})
            case RematchAsk():
                new, s, tok = self.rematch(t.id, t.state.seats[seat].token)
                conn.push(encode(Rematch(new.id, tok, s, ref=msg.ref)))
                if self.let_go is not None and not any(new.conns.values()):
                    self.let_go(new.id)
            case Hint():
                if not await self._settled_for(t, conn):  # the hint is for the turn the seat was shown
                    return
                conn.push(await self.hints.message(t, seat, msg.ref))


#: log entries whose events a table loaded from the store keeps for catch-ups: more than what an
#: owner that dies can have committed and not yet sent (a bot's move, a trick, a round's end)
_REFILL = 16

#: stored tables expired or abandoned per sweep, at most (each is loaded to be closed)
_SWEEP_BATCH = 20


def _name_key(name: str) -> str:
    """A name as two players' names are compared: but for case, and for how its letters are
    composed (a Devanagari letter with its nukta typed as one character or as two).

    >>> _name_key("Asha") == _name_key("ASHA"), _name_key("\u095b") == _name_key("\u091c\u093c")
    (True, True)
    """
    return unicodedata.normalize("NFKC", name).casefold()


def _size(raw: str | bytes) -> int:
    """Bytes of a message as UTF-8 (a text frame's characters can take up to 4 bytes each).

    >>> _size("€"), _size(b"ab"), _size("x" * 10)
    (3, 2, 10)
    """
    if isinstance(raw, bytes) or raw.isascii():
        return len(raw)
    return len(raw.encode("utf-8", "surrogatepass"))
