"""A seat at an online table of ``callbreak serve``, through the browser's protocol (``docs/protocol.md``).

`parse_join_url` reads an invite (``/join/CODE``: the client joins with ``POST /api/join/CODE``)
or a seat URL (``/t/ID#TOKEN``: the client takes back its seat).  `OnlineGame` keeps one
WebSocket open, reconnects by itself when it drops (asking for the events it missed with
``hello``/``since``), and turns the server's ``state`` (this seat's view only) into the same
`TableModel` the local game shows.

>>> t = parse_join_url("http://127.0.0.1:8000/join/AbC123")
>>> t.base, t.code, t.table
('http://127.0.0.1:8000', 'AbC123', None)
>>> t = parse_join_url("https://cards.example.org/t/tbl9#tok_en-1")
>>> t.base, t.table, t.token, t.ws_url("tbl9")
('https://cards.example.org', 'tbl9', 'tok_en-1', 'wss://cards.example.org/ws/tbl9')
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import re
import time
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import quote, urlsplit

import msgspec

from ..bots.names import in_script, level_name
from ..cards import Card
from ..errors import IllegalAction
from ..i18n import catalogue
from ..round import SeatView, Trick
from ..rules import Ruleset
from ..server.bodies import HttpError, JoinTable, SeatAnswer
from ..server.protocol import (
    FATAL,
    Autoplay,
    Back,
    Call,
    Called,
    ClientMessage,
    Dealt,
    End,
    Error,
    ErrorCode,
    Event,
    EventMessage,
    Hello,
    HintMessage,
    MatchOver,
    Ping,
    Play,
    Played,
    Ready,
    Redealt,
    Rematch,
    RematchAsk,
    RoundOver,
    RoundRow,
    Seated,
    SeatInfo,
    Select,
    ServerMessage,
    Snapshot,
    Start,
    Started,
    State,
    Synced,
    TableInfo,
    TableMessage,
    TrickDone,
    WhileAway,
)
from .game import LEVEL_KEYS, Game, RoundSummary, TableModel, refusal
from .render import NOTES
from .words import current, tr

__all__ = ["JoinTarget", "OnlineGame", "away_text", "parse_join_url", "view_of"]

#: the ref of a "select" message: its refusals (the turn moved on) are not shown
LIFT = "lift"
#: every message of the server, as the protocol's types (`callbreak.server.protocol`; a field this
#: client does not know, a newer server's, is passed over)
_decoder = msgspec.json.Decoder(ServerMessage)
_SAME_VERSION = "run the same version of callbreak as the server"


class _Kind(msgspec.Struct):
    kind: str


class _Peek(msgspec.Struct):
    """What names a message's kind, read first: a message, an event or an error code this client
    does not know (a newer server's) is passed over, not taken for a broken server."""

    type: str
    event: _Kind | None = None
    code: str | None = None
    message: str = ""


class _OtherEvent(msgspec.Struct):
    """An event of a kind this client does not know: its version, table and state still count."""

    v: int
    server_time: int
    table: TableInfo
    state: State | None


_peek = msgspec.json.Decoder(_Peek)
_other_event = msgspec.json.Decoder(_OtherEvent)
_TYPES = frozenset(t.__struct_config__.tag for t in typing.get_args(ServerMessage))
_KINDS = frozenset(t.__struct_config__.tag for t in typing.get_args(Event))
_CODES = frozenset(c.value for c in ErrorCode)


def server_refusal(code: str, message: str) -> str:
    """A refusal of the server in the player's language, worded from its code (the server's
    message is English, for logs), as the web client words it; the message where the code
    has no words (a newer server's).

    >>> server_refusal("not_your_turn", "it is seat 0's turn")
    'It is not your turn.'
    >>> server_refusal("some_new_code", "a newer server's refusal")
    "a newer server's refusal"
    """
    key = f"error.{code}"
    return tr(key) if key in catalogue("en") else message


@dataclass(frozen=True)
class JoinTarget:
    """Where to sit: the server's base URL and an invite code, or a table and its seat token.

    >>> t = parse_join_url("https://cards.example/t/k3Xa9Q#s3cret")
    >>> t.base, t.table, t.token, t.code
    ('https://cards.example', 'k3Xa9Q', 's3cret', None)
    >>> t.ws_url(t.table), subprotocols(t.token)
    ('wss://cards.example/ws/k3Xa9Q', ['callbreak', 'token.s3cret'])
    """

    base: str
    code: str | None = None
    table: str | None = None
    token: str | None = None

    def ws_url(self, table: str, via: int = 0) -> str:
        """The table's WebSocket (the seat's token goes in the handshake: `subprotocols`);
        ``via``: after that many tries in a row with no answer, a key of its own for the load
        balancer, so that it asks another process (one that hangs still accepts connections).

        >>> JoinTarget("http://h:8000", table="abc").ws_url("abc"), JoinTarget("https://h").ws_url("abc", via=2)
        ('ws://h:8000/ws/abc', 'wss://h/ws/abc?via=2')
        """
        scheme = "wss" if self.base.startswith("https:") else "ws"
        host = self.base.split("://", 1)[1]
        return f"{scheme}://{host}/ws/{quote(table, safe='')}" + (f"?via={via}" if via else "")


def away_text(call: int | None, cards: int) -> str:
    """What was done for the seat while its player was away (by a bot or the turn's timer: `WhileAway`), in words.

    >>> away_text(3, 9)
    'While you were away, a call of 3 was made and 9 cards were played for you.'
    >>> away_text(None, 1), away_text(2, 0)
    ('While you were away, 1 card was played for you.', 'While you were away, a call of 2 was made for you.')
    """
    if call is not None and cards:
        return tr("table.away_both", call=call, count=cards)
    if call is not None:
        return tr("table.away_called", call=call)
    return tr("table.away_played", count=cards)


def subprotocols(token: str) -> list[str]:
    """What the handshake offers: the protocol, and the seat's token beside it (never in the URL,
    which proxies log; ``callbreak.server.transport.handshake`` reads it).

    >>> subprotocols("s3cret")
    ['callbreak', 'token.s3cret']
    """
    return ["callbreak", f"token.{token}"]


#: what a chat may stick to a pasted link's end (a ")" or "."): never part of a code or a token
_TRAILING = re.compile(r"[^A-Za-z0-9_-]+$")


def parse_join_url(url: str) -> JoinTarget:
    """An invite URL ``…/join/CODE`` or a seat URL ``…/t/ID#TOKEN``.

    >>> parse_join_url("localhost:8000/join/XYZ").base
    'http://localhost:8000'
    >>> parse_join_url("http://h/t/abc")
    Traceback (most recent call last):
    ...
    ValueError: the seat URL http://h/t/abc has no token after '#': copy the whole link
    >>> parse_join_url("http://h/watch/abc")
    Traceback (most recent call last):
    ...
    ValueError: http://h/watch/abc is not a table link: give an invite (/join/CODE) or your seat (/t/ID#TOKEN)

    A link pasted with a chat's ")" or "." after it is read without them:

    >>> parse_join_url("http://h/join/k3Xa9Q.Qm2-7xYp).").code, parse_join_url("http://h/t/k3Xa9Q#s3cret-_1).").token
    ('k3Xa9Q.Qm2-7xYp', 's3cret-_1')

    So is one in angle brackets, as mail writes links; an invite code alone says what is missing:

    >>> parse_join_url("<http://h/join/k3Xa9Q.Qm2>").code
    'k3Xa9Q.Qm2'
    >>> parse_join_url("k3Xa9Qm2.Qm2-7xYp")
    Traceback (most recent call last):
    ...
    ValueError: k3Xa9Qm2.Qm2-7xYp is an invite code alone: give the whole invite link (http://…/join/k3Xa9Qm2.Qm2-7xYp), which names the server
    >>> parse_join_url("cards.local")   # (a host alone is no code)
    Traceback (most recent call last):
    ...
    ValueError: cards.local is not a table link: give an invite (/join/CODE) or your seat (/t/ID#TOKEN)
    """
    text = url.strip()
    if text.startswith("<") and text.endswith(">"):
        text = text[1:-1].strip()
    if re.fullmatch(r"[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{8}", text):  # (the server's codes: `Hub.create_table`)
        raise ValueError(f"{text} is an invite code alone: give the whole invite link (http://…/join/{text}), which names the server")
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"{url} is not an http(s) link to a callbreak server")
    base = f"{parts.scheme}://{parts.netloc}"
    segs = [s for s in parts.path.split("/") if s]
    if len(segs) == 2 and segs[0] == "join":
        return JoinTarget(base, code=_TRAILING.sub("", segs[1]))
    if len(segs) == 2 and segs[0] == "t":
        token = _TRAILING.sub("", parts.fragment)
        if not token:
            raise ValueError(f"the seat URL {url} has no token after '#': copy the whole link")
        return JoinTarget(base, table=_TRAILING.sub("", segs[1]), token=token)
    raise ValueError(
        f"{url} is not a table link: give an invite (/join/CODE) or your seat (/t/ID#TOKEN)"
    )


def _cards(xs: Sequence[str]) -> tuple[Card, ...]:
    return tuple(Card.parse(x) for x in xs)


def _trick(leader: int, cards: Sequence[str], winner: int | None) -> Trick:
    """A whole trick the server told (its four cards from the leader's, and its winner).

    >>> _trick(2, ["KH", "3H", "AH", "5H"], 0).cards[2]
    Card('AH')
    >>> _trick(2, ["KH"], None)
    Traceback (most recent call last):
    ...
    ValueError: a whole trick has four cards and a winner
    """
    if len(cards) != 4 or winner is None:
        raise ValueError("a whole trick has four cards and a winner")
    c = _cards(cards)
    return Trick(leader, (c[0], c[1], c[2], c[3]), winner)


def view_of(state: State) -> SeatView:
    """The engine's `SeatView` of the server's ``state`` message part (this seat's view).

    >>> import json, msgspec
    >>> from callbreak import Match
    >>> v = Match(seed=3).view(2)
    >>> part = msgspec.json.decode(json.dumps(v.to_dict() | {"places": None, "last_round": None}), type=State)
    >>> view_of(part) == v
    True
    """
    def dec(xs: Sequence[str] | None) -> tuple[Decimal, ...] | None:
        return None if xs is None else tuple(Decimal(x) for x in xs)

    sizes = state.hand_sizes
    if len(sizes) != 4 or len(state.calls) != 4 or len(state.tricks_won) != 4:
        raise ValueError("a state has four seats' hand sizes, calls and tricks")
    return SeatView(
        seat=state.seat,
        rules=Ruleset.from_dict(state.rules),
        dealer=state.dealer,
        phase=state.phase,
        to_act=state.to_act,
        hand=_cards(state.hand),
        hand_sizes=(sizes[0], sizes[1], sizes[2], sizes[3]),
        calls=tuple(state.calls),
        tricks_won=tuple(state.tricks_won),
        leader=state.leader if state.leader is not None else state.dealer,
        trick=tuple((s, Card.parse(c)) for s, c in state.trick),
        tricks=tuple(_trick(t.leader, t.cards, t.winner) for t in state.tricks),
        legal_calls=tuple(state.legal_calls),
        legal_cards=_cards(state.legal_cards),
        points=dec(state.points),
        totals=dec(state.totals),
        round_number=state.round_number,
        rounds=state.rounds,
        sudden_death=state.sudden_death,
    )


def _empty_view(seat: int, rules: Ruleset) -> SeatView:
    return SeatView(
        seat=seat, rules=rules, dealer=0, phase="lobby", to_act=None, hand=(), hand_sizes=(0, 0, 0, 0),
        calls=(None, None, None, None), tricks_won=(0, 0, 0, 0), leader=0, trick=(), tricks=(),
        legal_calls=(), legal_cards=(), points=None, rounds=rules.rounds,
    )


class OnlineGame(Game):
    """This terminal at one seat of an online table.

    ``reconnect_delays``: the waits before each try to reconnect (the last one repeats).
    """

    def __init__(
        self,
        target: JoinTarget,
        name: str = "",
        *,
        reconnect_delays: Sequence[float] = (0.3, 0.7, 1.5, 3.0, 5.0),
        open_timeout: float = 8.0,
    ) -> None:
        self.target = target
        self.name = name
        self.reconnect_delays = tuple(reconnect_delays) or (1.0,)
        self.open_timeout = open_timeout
        self.table_id = target.table
        self.token = target.token
        self.seat = -1
        self.fatal: str | None = None
        self.v = 0
        #: the table as the server last told it, and this seat's view of the round
        self.table: TableInfo | None = None
        self.state: State | None = None
        self._seat_view: SeatView | None = None  # (the state's, made once as it comes)
        self._table_rules = Ruleset()
        self.connected = False
        self.connects = 0
        self.error = ""
        self._clock_offset = 0.0  # server time minus local time, seconds
        self._last_trick: Trick | None = None
        #: the card the server kept chosen for this seat's turn, as the last snapshot said (any
        #: event after it: the turn has moved on, or may have)
        self._lifted: Card | None = None
        self._lifted_call: int | None = None  # (the same, of a call)
        #: this seat's turn ran out, and the player has not acted since
        self._timed_out = False
        self._log: list[str] = []
        self._round_rows: dict[int, tuple[tuple[int | None, ...], tuple[int | None, ...]]] = {}
        #: each finished round's points: the snapshot's sheet, then each round_over event
        self._round_points: dict[int, tuple[Decimal, ...]] = {}
        self._acked = 0
        self._ws: Any = None
        self._closed = False
        self.rematch_offer: tuple[str, str] | None = None
        self._want_rematch = False
        self._switch_to: tuple[str, str] | None = None
        self._notify: Callable[[], None] = lambda: None

    # --- what the screen shows ----------------------------------------------------------
    @property
    def seat_url(self) -> str | None:
        if self.table_id is None or self.token is None:
            return None
        return f"{self.target.base}/t/{self.table_id}#{self.token}"

    def _rules(self) -> Ruleset:
        return self._table_rules if self.table is not None else Ruleset()

    def _view(self) -> SeatView:
        if self._seat_view is not None:
            return self._seat_view
        return _empty_view(max(self.seat, 0), self._rules())

    def _set_state(self, state: State | None) -> None:
        """The seat's state as the server told it (a `ValueError` for one that is no position)."""
        self._seat_view = None if state is None else view_of(state)
        self.state = state

    def _seats(self) -> list[SeatInfo]:
        return self.table.seats if self.table is not None else []

    def _names(self) -> tuple[str, str, str, str]:
        seats = self._seats()
        unnamed = [tr("seat.n", n=i + 1) for i in range(4)]
        # (a bot's name in the reader's script: a table's bots are named in its maker's)
        names = [(in_script(s.name, current()) if s.kind == "bot" and s.name else s.name) or unnamed[i]
                 for i, s in enumerate(seats[:4])]
        names += unnamed[len(names) :]
        if 0 <= self.seat < 4 and names[self.seat] in ("", unnamed[self.seat]):
            names[self.seat] = tr("seat.you")
        return names[0], names[1], names[2], names[3]

    def _labels(self) -> tuple[str, str, str, str]:
        seats = self._seats()
        level = self.table.bots if self.table is not None else ""
        out: list[str] = []
        for i in range(4):
            s = seats[i] if i < len(seats) else None
            kind = s.kind if s is not None else "empty"
            if s is not None and kind == "bot":
                lv = s.level or level
                name = tr(f"level.{lv}") if lv in LEVEL_KEYS else level_name(lv)
                label = tr("tui.bot_label", level=name) if lv else tr("bot.bot")
            elif s is not None and kind == "human":
                label = tr("tui.you_label") if i == self.seat else tr("tui.o_player")
                if s.autoplay:
                    label += " · " + tr("tui.o_autoplay_tag")
                elif not s.connected:
                    label += " · " + tr("tui.o_away_tag")
            else:
                label = tr("join.empty_seat")
            out.append(label)
        return out[0], out[1], out[2], out[3]

    def _summaries(self) -> tuple[RoundSummary, ...]:
        st = self.state
        if st is None:
            return ()
        planned = self._rules().rounds
        totals = [Decimal(0)] * 4
        out: list[RoundSummary] = []
        for number in sorted(self._round_points):
            pts = self._round_points[number]
            totals = [a + b for a, b in zip(totals, pts)]
            calls, tricks = self._round_rows.get(number, ((None,) * 4, (None,) * 4))
            out.append(
                RoundSummary(
                    number=number, calls=calls, tricks=tricks, points=pts, totals=tuple(totals),
                    sudden_death=planned is not None and number > planned,
                )
            )
        return tuple(out)

    @property
    def status(self) -> str:
        return self.table.status if self.table is not None else ""

    @property
    def pending_summary(self) -> RoundSummary | None:
        if self.status not in ("between_rounds", "over"):
            return None
        rows = self._summaries()
        # (each message carries the table as it is after the whole step: the match may be over a
        # message before the last round's figures come; an older round is not the one to show.
        # Between rounds the state is already the next round's: there the newest figures are it)
        now = self.state.round_number if self.state is not None else None
        if self.status == "over" and rows and now is not None and rows[-1].number < now:
            return None
        if rows and rows[-1].number > self._acked:
            return rows[-1]
        return None

    def model(self) -> TableModel:
        view = self._view()
        places = None
        if self.state is not None and self.state.places and self.status == "over":
            places = tuple(self.state.places)
        table = self.table
        deadline = table.deadline if table is not None else None
        waiting = ""
        status = self.status
        if status == "lobby":
            taken = sum(1 for s in self._seats() if s.kind != "empty")
            if table is not None and self.seat == table.host:
                waiting = tr("tui.o_lobby_host", taken=taken)
            else:
                waiting = tr("tui.o_lobby", taken=taken)
        elif status == "between_rounds":
            waiting = tr("tui.o_between")
        elif status == "expired":
            waiting = tr("tui.o_expired")
        elif status == "abandoned":
            waiting = tr("table.abandoned")
        # one line, the most pressing first (found in QA: at 80 columns the line wrapped and the
        # second half, the link, was lost); the link names the table, so the table's id goes then
        note = []
        if self._on_autoplay():
            note.append(tr("tui.o_autoplay"))
        elif self._timed_out and status == "playing":
            note.append(tr("tui.o_timed_out_note"))
        if status == "over":
            note.append(tr("tui.o_rematch") if self.rematch_offer is None else tr("tui.o_rematch_ready"))
        # (the link where it fits: once over, the rematch is what the line is for, and while a bot
        # plays the seat, taking it back; there the table's id, which a cut link would lose)
        if self.seat_url and status != "over" and not self._on_autoplay():
            note.append(tr("tui.o_rejoin", url=self.seat_url))
        elif self.table_id:
            note.append(tr("tui.o_table", id=self.table_id))
        return TableModel(
            seat=max(self.seat, 0),
            view=view,
            names=self._names(),
            labels=self._labels(),
            last_trick=self._last_trick if not view.trick and view.tricks else None,
            summaries=self._summaries(),
            places=places,
            log=tuple(self._log[-8:]),
            deadline=None if deadline is None else deadline / 1000 - self._clock_offset,
            status=NOTES.join(note),
            error=self.error,
            connected=self.connected,
            waiting=waiting,
            lifted=self._lifted if self._lifted is not None else self._lifted_call,
        )

    # --- acting ----------------------------------------------------------------------------
    def _on_autoplay(self) -> bool:
        """Whether the server's bot plays this seat now."""
        seats = self._seats()
        return 0 <= self.seat < len(seats) and seats[self.seat].autoplay

    def _send(self, msg: ClientMessage) -> None:
        ws = self._ws
        if ws is None or not self.connected:
            raise IllegalAction(tr("tui.o_not_connected"))
        loop = asyncio.get_running_loop()
        task = loop.create_task(ws.send(msgspec.json.encode(msg).decode()))
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[None]) -> None:
        """A message sent, or not: the connection fell as it went, so it is said (the turn is
        still the player's once the client is back, and a choice is told again then).

        >>> async def lost() -> None:
        ...     raise ConnectionError("the socket closed")
        >>> async def send() -> str:
        ...     game = OnlineGame(parse_join_url("http://h/t/k3Xa9Q#s3cret"))
        ...     task = asyncio.get_running_loop().create_task(lost())
        ...     await asyncio.wait([task])
        ...     game._sent(task)
        ...     return game.error
        >>> asyncio.run(send())
        'not connected to the table: reconnecting…'
        """
        if not task.cancelled() and task.exception() is not None:
            self.error = tr("tui.o_not_connected")
            self._notify()

    def lift(self, choice: Card | int | None) -> None:
        """Tell the server the card or the call chosen on this turn (played if the turn runs out)."""
        with contextlib.suppress(IllegalAction):  # (not connected: the timer plays the lowest card)
            if isinstance(choice, Card) or choice is None:
                self._send(Select(card=None if choice is None else str(choice), ref=LIFT))
            else:
                self._send(Select(call=choice, ref=LIFT))

    def submit(self, action: int | Card) -> None:
        view = self._view()
        if self.status != "playing":
            raise IllegalAction(tr("tui.o_not_turn"))
        why = refusal(view, action)
        if why is not None:
            raise IllegalAction(why)
        self.error = ""
        if isinstance(action, Card):  # (with the cards played: the server plays it on no later turn)
            self._send(Play(card=str(action), at=len(view.played)))
        else:
            self._send(Call(call=int(action)))

    def _host(self) -> int | None:
        return self.table.host if self.table is not None else None

    def start_table(self) -> None:
        if self.status != "lobby":
            raise IllegalAction(tr("tui.o_started"))
        if self.seat != self._host():
            raise IllegalAction(tr("tui.o_host_starts"))
        self._send(Start())

    def acknowledge_round(self) -> None:
        rows = self._summaries()
        if rows:
            self._acked = max(self._acked, rows[-1].number)
        if self.status == "between_rounds":
            with contextlib.suppress(IllegalAction):
                self._send(Ready())
                self._timed_out = False  # (a player who said ready is there: the count starts again)

    def _ready_again(self) -> None:
        """Between rounds, the ``ready`` of a summary the player closed, told again on a new
        connection where the server has none: it went as the socket fell, or was not sent for
        want of one (a table without turn timers waits for it, with no delay to end the wait:
        a reviewer's read found the terminal waiting there for ever)."""
        seats = self._seats()
        rows = self._summaries()
        if (
            self.status == "between_rounds"
            and 0 <= self.seat < len(seats)
            and not seats[self.seat].ready
            and rows
            and rows[-1].number <= self._acked
        ):
            with contextlib.suppress(IllegalAction):
                self._send(Ready())

    def end_match(self) -> None:
        if self._rules().rounds is not None:
            raise IllegalAction(tr("tui.o_ends_itself"))
        if self.status != "between_rounds":
            raise IllegalAction(tr("tui.o_ends_between"))
        if self.seat != self._host():
            raise IllegalAction(tr("tui.o_host_ends"))
        self._send(End())

    def take_back(self) -> None:
        """Take the seat back from the bot the server put in it (``back``)."""
        if not self._on_autoplay():
            raise IllegalAction(tr("tui.o_not_turn"))
        self._timed_out = False  # (the server counts the timeouts afresh)
        self._send(Back())

    def rematch(self) -> None:
        """Once the match is over: the same players at a new table (the server's ``rematch``)."""
        if self.status != "over":
            raise IllegalAction(tr("tui.o_rematch_when"))
        self._want_rematch = True
        if self.rematch_offer is not None:
            self._switch_to = self.rematch_offer
            ws = self._ws
            if ws is not None:
                # wake the reader so it moves to the new table
                self._send(Ping())
            return
        self._send(RematchAsk())

    def _move_to_rematch(self) -> None:
        assert self._switch_to is not None
        self.table_id, self.token = self._switch_to
        self._switch_to = None
        self.rematch_offer = None
        self._want_rematch = False
        self.v = 0
        self.table = None
        self._set_state(None)
        self.error = ""
        self._last_trick = None
        self._lifted = self._lifted_call = None
        self._timed_out = False
        self._round_rows = {}
        self._round_points = {}
        self._acked = 0
        self._log.append(tr("tui.o_rematch_log"))

    def close(self) -> None:
        self._closed = True
        ws = self._ws
        if ws is not None:
            with contextlib.suppress(RuntimeError):
                asyncio.get_running_loop().create_task(ws.close())

    # --- the connection ----------------------------------------------------------------------
    async def _join(self) -> None:
        import httpx

        code = self.target.code
        assert code is not None
        # (the language only with no name, and not English, the server's own: it names the player;
        # a server of before knows no `lang`, refuses the body, and is asked again without it)
        ask = JoinTable(name=self.name or None, lang=None if self.name or current() == "en" else current())
        async with httpx.AsyncClient(base_url=self.target.base, timeout=self.open_timeout) as client:
            for body in (ask, JoinTable()) if ask.lang else (ask,):
                r = await client.post(
                    f"/api/join/{quote(code, safe='')}",
                    content=msgspec.json.encode(body),
                    headers={"content-type": "application/json"},
                )
                if r.status_code != 400:
                    break
        if r.status_code != 200:
            try:
                err = msgspec.json.decode(r.content, type=HttpError)
                message = server_refusal(err.error, err.message)
            except msgspec.DecodeError:  # not the API's answer (a proxy's page, say)
                message = tr("error.http", status=r.status_code)
            raise IllegalAction(tr("tui.o_join_failed", why=message))
        try:
            seat = msgspec.json.decode(r.content, type=SeatAnswer)
        except msgspec.DecodeError as e:
            raise IllegalAction(tr("tui.o_join_failed", why=f"the server's answer is not a seat ({e})")) from None
        self.table_id, self.token, self.seat = seat.table, seat.token, seat.seat

    async def join(self) -> None:
        """Take a seat by the invite (before the screen opens: a refusal is told on the command
        line, in the player's language, with no screen flashing up and closing); ``fatal`` says
        why it failed.  Nothing to do with a seat link."""
        import httpx

        if self.table_id is None:
            try:
                await self._join()
            except (IllegalAction, OSError, httpx.HTTPError) as e:
                self.fatal = self.join_failure(e)

    def join_failure(self, e: Exception) -> str:
        """What a failed join says: the server's refusal worded from its code, or the network's."""
        if isinstance(e, IllegalAction):
            return str(e)
        return tr("tui.o_join_failed", why=f"{tr('error.network')} ({self.target.base}: {e})")

    async def run(self, notify: Callable[[], None]) -> None:
        import httpx
        import websockets
        from websockets.asyncio.client import connect
        from websockets.typing import Subprotocol

        self._notify = notify
        if self.table_id is None:
            try:
                await self._join()
            except (IllegalAction, OSError, httpx.HTTPError) as e:
                self.fatal = self.join_failure(e)
                notify()
                return
        host = urlsplit(self.target.base).hostname or ""
        options: dict[str, Any] = {"open_timeout": self.open_timeout, "ping_interval": 10}
        if host in ("127.0.0.1", "localhost", "::1") and "proxy" in inspect.signature(connect).parameters:
            options["proxy"] = None  # websockets >= 15 would otherwise honour proxy settings on loopback
        failures = 0
        silent = 0  # tries in a row whose handshake got no answer: the next asks another process
        while not self._closed:
            assert self.table_id is not None and self.token is not None
            url = self.target.ws_url(self.table_id, via=silent)
            switching = False
            try:
                offered = [Subprotocol(p) for p in subprotocols(self.token)]
                async with connect(url, subprotocols=offered, **options) as ws:
                    self._ws = ws
                    await ws.send(msgspec.json.encode(Hello(since=self.v)).decode())
                    async for raw in ws:
                        if not self.connected:
                            self.connected = True
                            self.connects += 1
                            failures = silent = 0
                        self.receive(raw)
                        if self.fatal:
                            self.connected = False
                            self._ws = None
                            notify()
                            return
                        if self._switch_to is not None:
                            self._move_to_rematch()
                            switching = True
                            notify()
                            break
                        notify()
                    code = ws.close_code
                if switching:
                    continue
                if code in (4403, 4404):
                    self.fatal = self.fatal or server_refusal("bad_token" if code == 4403 else "no_table", "")
                    notify()
                    return
            except TimeoutError:  # (a process that hangs still accepts the connection)
                silent += 1
            except (OSError, websockets.exceptions.WebSocketException):
                pass
            self._ws = None
            if self._closed:
                break
            self.connected = False
            notify()
            await asyncio.sleep(self.reconnect_delays[min(failures, len(self.reconnect_delays) - 1)])
            failures += 1
        self.connected = False

    def receive(self, raw: str | bytes) -> None:
        """Take one message of the server (its JSON text).  A message, event or error code this
        client does not know (a newer server's) is passed over; one it knows but cannot read
        ends the game with the reason: nothing is guessed.

        >>> game = OnlineGame(parse_join_url("http://h/t/k3Xa9Q#s3cret"))
        >>> game.receive('{"type": "pong", "server_time": 1700000000000, "ref": null, "new": 1}')
        >>> game.receive('{"type": "notice", "text": "a newer server"}')
        >>> game.receive('{"type": "error", "code": "slow_down", "message": "slow down"}')
        >>> game.fatal, game.error
        (None, 'slow down')
        >>> game.receive('{"type": "pong", "server_time": "soon"}')
        >>> game.fatal
        'the server sent a message this terminal cannot read (Expected `int`, got `str` - at `$.server_time`): run the same version of callbreak as the server'
        """
        try:
            peek = _peek.decode(raw)
            if peek.type not in _TYPES:
                return
            if peek.type == "error" and peek.code not in _CODES:
                self.error = peek.message or str(peek.code)
                return
            if peek.type == "event" and (peek.event is None or peek.event.kind not in _KINDS):
                other = _other_event.decode(raw)
                self._on_event(other.v, other.server_time, other.table, other.state, None)
                return
            self._handle(_decoder.decode(raw))
        except (msgspec.DecodeError, ValueError) as e:
            self.fatal = f"the server sent a message this terminal cannot read ({e}): " + _SAME_VERSION

    def _handle(self, msg: ServerMessage) -> None:
        if isinstance(msg, WhileAway):  # (the player back: what was done for the seat meanwhile)
            self._log.append(away_text(msg.call, msg.cards))
            return
        if not isinstance(msg, (Error, HintMessage, Rematch)):
            self._clock_offset = msg.server_time / 1000 - time.time()
        if isinstance(msg, Error):
            if msg.ref == LIFT:  # a choice the turn outran: nothing to tell
                return
            if msg.code in FATAL:
                self.fatal = server_refusal(msg.code, msg.message)
            self.error = server_refusal(msg.code, msg.message)
            return
        if isinstance(msg, Rematch):
            if msg.table != self.table_id:
                self.rematch_offer = (msg.table, msg.token)
                if self._want_rematch:
                    self._switch_to = self.rematch_offer
            return
        if isinstance(msg, (Snapshot, Synced, TableMessage)):
            self._set_table(msg.table)
            if isinstance(msg, Snapshot):
                self.v = msg.v
                self._set_state(msg.state)
                lifted = msg.lifted
                self._lifted = Card.parse(lifted) if isinstance(lifted, str) else None
                self._lifted_call = lifted if isinstance(lifted, int) else None
                self._last_trick = None
                self._round_rows, self._round_points = {}, {}
                for row in msg.sheet:
                    self._add_round(row)
                self._from_state()
            elif isinstance(msg, Synced):
                self.v = max(self.v, msg.v)
            if isinstance(msg, (Snapshot, Synced)):
                self._ready_again()
            return
        if isinstance(msg, EventMessage):
            self._on_event(msg.v, msg.server_time, msg.table, msg.state, msg.event)

    def _on_event(self, v: int, server_time: int, table: TableInfo, state: State | None, event: Event | None) -> None:
        """An event (None: of a kind this client does not know), with the table and state after it."""
        self._clock_offset = server_time / 1000 - time.time()
        if v <= self.v:
            return
        if v > self.v + 1 and self._ws is not None:
            # a gap: ask again for what was missed
            task = asyncio.get_running_loop().create_task(self._ws.send(msgspec.json.encode(Hello(since=self.v)).decode()))
            task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)
            return
        self.v = v
        self._lifted = self._lifted_call = None
        self._set_table(table)
        before = self.state
        self._set_state(state)
        if event is not None:
            self._event(event, before)
        self._from_state()

    def _set_table(self, table: TableInfo) -> None:
        try:
            rules = Ruleset.from_dict(table.rules)
        except (ValueError, TypeError) as e:
            self.fatal = f"this terminal cannot play the table's rules ({e}): " + _SAME_VERSION
            return
        was_auto = self._on_autoplay()
        self.table, self._table_rules = table, rules
        if table.you >= 0:
            self.seat = table.you
        if was_auto and not self._on_autoplay():
            # the seat back from the server's bot (Enter here, or the browser): the server counts the
            # timeouts afresh, whatever this terminal took in meanwhile (a timeout told late)
            self._timed_out = False

    def _from_state(self) -> None:
        st = self.state
        if st is not None and st.last_round is not None:
            last = st.last_round
            self._round_rows[last.round] = (tuple(last.calls), tuple(last.tricks_won))

    def _add_round(self, row: RoundRow | RoundOver) -> None:
        """One finished round of the score sheet (a snapshot's ``sheet`` row or a ``round_over``)."""
        self._round_rows[row.round] = (tuple(row.calls), tuple(row.tricks_won))
        self._round_points[row.round] = tuple(Decimal(p) for p in row.points)

    def _event(self, e: Event, before: State | None = None) -> None:
        """Log event ``e`` (``before``: this seat's state before it)."""
        names = self._names()

        def who(seat: int) -> str:
            return names[seat] if 0 <= seat < 4 else "?"

        def auto(e: Called | Played) -> str:
            if e.seat == self.seat:  # (its own timeout is said under the hand until it acts itself)
                self._timed_out = e.reason == "timeout" or (self._timed_out and (e.reason == "autoplay" or only()))
            if e.auto:
                return " " + tr("tui.o_timed_out" if e.reason == "timeout" else "tui.o_auto")
            # this seat's only legal card, which the server played for it (told to everyone as a
            # card played: no one else may learn it was the only one), is said so, as offline
            return " " + tr("tui.only_card") if only() else ""

        def only() -> bool:
            """Whether the event is this seat's only legal card, which the server played for it
            (no act of the player's: a timeout before it still counts)."""
            return (
                isinstance(e, Played)
                and e.seat == self.seat
                and before is not None
                and before.phase == "playing"
                and before.to_act == self.seat
                and before.legal_cards == [e.card]
                and self._rules().autoplay_forced
            )

        if isinstance(e, Called):
            self._log.append(tr("tui.log_call", name=who(e.seat), call=e.call) + auto(e))
        elif isinstance(e, Played):
            self._log.append(tr("tui.log_play", name=who(e.seat), card=Card.parse(e.card).symbol) + auto(e))
        elif isinstance(e, TrickDone):
            self._last_trick = _trick(e.cards[0][0] if e.cards else 0, [card for _, card in e.cards], e.winner)
            self._log.append(tr("tui.log_trick", name=who(e.winner)))
        elif isinstance(e, RoundOver):
            self._add_round(e)
            self._log.append(tr("tui.o_round_over", round=e.round))
        elif isinstance(e, Dealt):
            self._last_trick = None
            yours = e.dealer == self.seat and who(e.dealer) == tr("seat.you")  # ("You deal", not "You deals")
            self._log = [tr("tui.log_deal_you" if yours else "tui.log_deal", round=e.round, name=who(e.dealer))]
        elif isinstance(e, Redealt):
            self._log.append(tr("tui.log_redeal"))
        elif isinstance(e, Seated):
            self._log.append(tr("tui.o_sat", name=e.name))
        elif isinstance(e, Started):
            self._log.append(tr("tui.o_starts"))
        elif isinstance(e, MatchOver):
            self._log.append(tr("tui.o_over"))
        elif isinstance(e, Autoplay) and e.on:
            self._log.append(tr("tui.o_on_autoplay", name=who(e.seat)))
