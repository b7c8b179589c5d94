"""One table's whole state, rebuilt from its append-only log: pure, no I/O, no clock.

A table is its `TableMeta` (rules, bots' level, seed) plus a list of log entries
(people seated, start, calls, cards, ready, ...).  `TableState.apply` checks an
entry against the state, changes nothing when it is refused (`TableError`), and
otherwise returns the public events it caused, numbered by the table's event
version ``v``.  Replaying the same entries always gives the same state and the
same events, so any process can rebuild a table from the log, and a reconnecting
client can be sent exactly the events it missed.

>>> from callbreak import Ruleset
>>> meta = TableMeta(id="t", invite="i", rules=Ruleset.preset("quick"), bots="random", seed=3, created=0.0)
>>> t = TableState(meta)
>>> t.apply({"t": "seat", "seat": 0, "name": "Asha", "token": "x" * 22})
[Seated(v=1, seat=0, name='Asha')]
>>> [type(e).__name__ for e in t.apply({"t": "start"})]
['Started', 'Dealt']
>>> t.status, [s.kind for s in t.seats], t.v
('playing', ['human', 'bot', 'bot', 'bot'], 3)
>>> seat = t.match.to_act
>>> t.apply({"t": "call", "seat": (seat + 1) % 4, "call": 3})
Traceback (most recent call last):
...
callbreak.server.table.TableError: not_your_turn: it is seat ...'s turn
>>> "hand" in t.state(-1) and t.state(-1)["hand"]
[]
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ..bots.names import bot_names, same_person
from ..cards import Card
from ..errors import IllegalAction
from ..i18n import choose_language
from ..match import Match
from ..notation import next_step
from ..round import OVER, REDEAL, Round
from ..rules import Ruleset
from .protocol import (
    Abandoned,
    Autoplay,
    Called,
    Dealt,
    Event,
    Expired,
    Left,
    MatchOver,
    Played,
    ReadyEvent,
    Redealt,
    RematchEvent,
    RoundOver,
    RoundRow,
    Seated,
    SeatRecord,
    Started,
    TieBreak,
    TrickDone,
)
from .render import StateRender

__all__ = [
    "ABANDONED",
    "IDLE_ROUNDS",
    "NAME_MAX",
    "Seat",
    "Status",
    "TableError",
    "TableMeta",
    "TableState",
    "clean_name",
]

NAME_MAX = 32  # (a full name in Devanagari or Bengali script: 24 cut "…বন্দ্যোপাধ্যায়" mid-word)
#: an endless table (``rules.rounds`` None) ends after this many rounds in a row at whose end
#: every player's seat was played by a bot (autoplay): nobody is playing it
IDLE_ROUNDS = 3
#: where a table is: seats being taken, a round being played, between two rounds, over, expired
#: in the lobby, or abandoned (unfinished, and no player came back: `ServerConfig.abandon_after`)
Status = Literal["lobby", "playing", "between_rounds", "over", "expired", "abandoned"]
LOBBY: Final = "lobby"
PLAYING: Final = "playing"
BETWEEN: Final = "between_rounds"
FINISHED: Final = "over"
EXPIRED: Final = "expired"
ABANDONED: Final = "abandoned"


class TableError(ValueError):
    """A refused request: ``code`` for programs, the text for people.

    >>> e = TableError("seat_taken", "someone holds that seat")
    >>> e.code, e.message, str(e)
    ('seat_taken', 'someone holds that seat', 'seat_taken: someone holds that seat')
    """

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")


def clean_name(name: object, default: str = "Player") -> str:
    """A display name: text only, control characters removed, at most `NAME_MAX` characters.

    >>> clean_name("  Asha\\x00\\n <b>K</b> ")
    'Asha <b>K</b>'
    >>> clean_name("x" * 40) == "x" * 32, clean_name(None, "Player 2"), clean_name("\\u202e\\u200b")
    (True, 'Player 2', 'Player')
    """
    if not isinstance(name, str):
        return default
    kept = "".join(
        " " if ch.isspace() else ch for ch in name if not unicodedata.category(ch).startswith("C") or ch.isspace()
    )
    text = " ".join(kept.split())[:NAME_MAX].strip()
    return text or default


@dataclass
class TableMeta:
    """What a table is created with; everything else is in its log.

    >>> from callbreak.rules import Ruleset
    >>> meta = TableMeta(id="k3Xa9Q", invite="8hJq2w", rules=Ruleset(), bots="hard", seed=7, created=1_700_000_000.0)
    >>> d = meta.to_dict()
    >>> d["bots"], d["rules"]["rounds"], d["host"], "practice" in d
    ('hard', 5, 0, False)
    >>> TableMeta.from_dict(d) == meta
    True
    """

    id: str
    invite: str
    rules: Ruleset
    bots: str
    seed: int
    created: float
    host: int = 0
    parent: str | None = None
    #: a practice table starts at this position (`callbreak.analysis.practice.Position`, as data)
    practice: dict[str, Any] | None = None
    #: a rematch's bots keep the names they had, seat by seat (None: a seat that had no bot)
    bot_names: tuple[str | None, ...] | None = None
    #: the language of the player who made the table: its bots are named in its script
    lang: str = "en"

    def to_dict(self) -> dict[str, Any]:
        d = {
            "id": self.id,
            "invite": self.invite,
            "rules": self.rules.to_dict(),
            "bots": self.bots,
            "seed": self.seed,
            "created": self.created,
            "host": self.host,
            "parent": self.parent,
        }
        if self.practice is not None:
            d["practice"] = self.practice
        if self.bot_names is not None:
            d["bot_names"] = list(self.bot_names)
        if self.lang != "en":
            d["lang"] = self.lang
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TableMeta:
        return cls(
            id=d["id"],
            invite=d["invite"],
            rules=Ruleset.from_dict(d["rules"]),
            bots=d["bots"],
            seed=int(d["seed"]),
            created=float(d["created"]),
            host=int(d.get("host", 0)),
            parent=d.get("parent"),
            practice=d.get("practice"),
            bot_names=tuple(d["bot_names"]) if isinstance(d.get("bot_names"), list) and len(d["bot_names"]) == 4 else None,
            lang=choose_language(d.get("lang")),  # (a record of before: English, as its names were)
        )


@dataclass
class Seat:
    """One seat of a table: who holds it, and (hidden from ``repr``) its token and the random
    text of the join that took it (`bodies.JoinTable.attempt`; "" for none).

    >>> Seat("Asha", "human", "s3cret", "join-try-0123456789"), Seat().kind
    (Seat(name='Asha', kind='human'), 'empty')
    """

    name: str = ""
    kind: Literal["empty", "human", "bot"] = "empty"
    token: str = field(default="", repr=False)
    attempt: str = field(default="", repr=False)


#: why the server made a call or played a card for a seat: its turn ran out, a bot plays the
#: seat, or the card was its only legal one (None: the seat's own)
Auto = Literal["timeout", "autoplay", "forced"] | None


def _auto_arg(entry: dict[str, Any]) -> Auto:
    """An entry's ``auto``: why the server acted for the seat.

    >>> _auto_arg({"auto": "timeout"}), _auto_arg({})
    ('timeout', None)
    >>> _auto_arg({"auto": "bored"})
    Traceback (most recent call last):
    ...
    callbreak.server.table.TableError: bad_entry: auto is timeout, autoplay, forced or none, not 'bored'
    """
    auto = entry.get("auto")
    if auto is None or auto == "timeout" or auto == "autoplay" or auto == "forced":
        return auto
    raise TableError("bad_entry", f"auto is timeout, autoplay, forced or none, not {auto!r}")


#: a join's own random text (`bodies.JoinTable.attempt`, whose pattern is this one's), and what
#: a refusal of one says
ATTEMPT: Final = re.compile(r"[A-Za-z0-9_-]{16,64}")
ATTEMPT_RULE: Final = "a join's attempt is 16 to 64 letters, digits, '-' or '_'"


def _attempt_arg(entry: dict[str, Any]) -> str:
    """A seat entry's ``attempt``: `ATTEMPT` whole, else "" (none). `Hub.join` refuses a join of any
    other (a final newline too: the body's pattern, a search, lets one through); a log of before
    that holds one still loads, its seat kept, with no attempt to find it by (a reviewer's read:
    refused here, the table would not load).

    >>> _attempt_arg({}), _attempt_arg({"attempt": "a" * 16}), _attempt_arg({"attempt": "a" * 16 + "\\n"})
    ('', 'aaaaaaaaaaaaaaaa', '')
    """
    attempt = entry.get("attempt", "")
    return attempt if isinstance(attempt, str) and ATTEMPT.fullmatch(attempt) else ""


def _seat_arg(entry: dict[str, Any]) -> int:
    seat = entry.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
        raise TableError("bad_seat", f"seat must be 0..3, not {seat!r}")
    return seat


class TableState:
    """The state of one table: lobby seats, the `Match`, its version (events so far), its actions and flags."""

    def __init__(self, meta: TableMeta) -> None:
        self.meta = meta
        self.seats = [Seat() for _ in range(4)]
        self.status: Status = LOBBY
        self.match: Match | None = None
        #: the version: events so far (the events themselves are sent, stored and forgotten)
        self._v = 0
        #: the match's calls and cards at this table, in order: ``(seat, "call" | "card", value)``
        #: (tuples of atoms, which the garbage collector stops tracking)
        self._actions: list[tuple[int, str, int | str]] = []
        self._auto: dict[tuple[int, int], str] = {}  # (deal, step): why the server acted for the seat
        self.entries = 0
        #: why a bot is playing a human's seat ("timeout", "disconnected") or None
        self.autoplay: list[Literal["timeout", "disconnected"] | None] = [None, None, None, None]
        #: what a bot did for each seat since its autoplay last began, in the last deal it played
        #: for it: (the deal's number, the call it made or None, the cards it played); the player
        #: is told once back (`away`)
        self._away: list[tuple[int, int | None, int]] = [(-1, None, 0)] * 4
        self.ready = [False, False, False, False]
        self.rematch: str | None = None
        #: rounds in a row that ended with every player's seat on autoplay
        self.idle_rounds = 0
        self._render = StateRender()

    @property
    def id(self) -> str:
        return self.meta.id

    @property
    def v(self) -> int:
        """The version: how many events the table has had."""
        return self._v

    @property
    def to_act(self) -> int | None:
        if self.status != PLAYING or self.match is None:
            return None
        return self.match.to_act

    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.kind == "human"]

    def seat_of_token(self, token: str) -> int | None:
        if not token.isascii():
            return None
        for i, s in enumerate(self.seats):
            if s.kind == "human" and secrets.compare_digest(s.token, token):
                return i
        return None

    def seat_of_attempt(self, attempt: str) -> int | None:
        """The seat that the join of random text ``attempt`` took (`bodies.JoinTable.attempt`),
        if it still holds it.

        >>> from callbreak import Ruleset
        >>> st = TableState(TableMeta(id="t", invite="i", rules=Ruleset(), bots="medium", seed=1, created=0.0))
        >>> _ = st.apply({"t": "seat", "seat": 2, "name": "Ritu", "token": "r" * 22, "attempt": "a" * 16})
        >>> st.seat_of_attempt("a" * 16), st.seat_of_attempt("b" * 16), st.seat_of_attempt("")
        (2, None, None)
        """
        if not attempt or not attempt.isascii():
            return None
        for i, s in enumerate(self.seats):
            if s.kind == "human" and s.attempt and secrets.compare_digest(s.attempt, attempt):
                return i
        return None

    # --- applying entries ---------------------------------------------------------------
    def apply(self, entry: dict[str, Any]) -> list[Event]:
        """Apply one log entry; return its events (the protocol's `Event` types, numbered by
        the table's version).  `TableError` leaves the state unchanged."""
        kind = entry.get("t")
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise TableError("bad_entry", f"unknown entry {kind!r}")
        new = handler(self, entry)
        if not new:  # nothing changed (a repeated "ready"): not an entry of the log
            return new
        self.entries += 1
        for e in new:
            self._v += 1
            e.v = self._v
        return new

    def _need(self, *statuses: str) -> None:
        if self.status not in statuses:
            raise TableError("wrong_status", f"not now: the table is {self.status.replace('_', ' ')}")

    def _a_seat(self, e: dict[str, Any]) -> list[Event]:
        self._need(LOBBY)
        seat = _seat_arg(e)
        if self.seats[seat].kind != "empty":
            raise TableError("seat_taken", f"seat {seat} is taken")
        token = e.get("token")
        if not isinstance(token, str) or len(token) < 16:
            raise TableError("bad_token", "a seat needs a token")
        name = clean_name(e.get("name"), f"Player {seat + 1}")
        self.seats[seat] = Seat(name, "human", token, _attempt_arg(e))
        return [Seated(v=0, seat=seat, name=name)]

    def _a_leave(self, e: dict[str, Any]) -> list[Event]:
        self._need(LOBBY)
        seat = _seat_arg(e)
        if self.seats[seat].kind != "human":
            raise TableError("bad_seat", f"seat {seat} is empty")
        if seat == self.meta.host:
            raise TableError("not_host", "the host cannot leave the table; it expires unstarted")
        self.seats[seat] = Seat()
        return [Left(v=0, seat=seat)]

    def _a_start(self, e: dict[str, Any]) -> list[Event]:
        self._need(LOBBY)
        if not self.humans():
            raise TableError("no_players", "nobody is seated")
        position = None
        if self.meta.practice is not None:  # a position to play again (the engine replays it)
            from ..analysis.practice import Position

            position = Position.from_dict(self.meta.practice)
        # empty seats get bots, named by the shared rule (from the table's seed, never a person's
        # name); at a practice table made since the rule below (its position says "names":
        # "seats"), each takes the name the match had at that seat, as the analysis says it
        # (found in a newcomer's try: new names there read as other players), but one read as the
        # practising player's; a practice table made before keeps the names it was dealt
        humans = [s.name if s.kind == "human" else None for s in self.seats]
        # a rematch's bots keep their names, seat by seat (a Bengali player's try: "the same
        # players" were three new names), unless a player here now goes by one of them
        mine = [n for n in humans if n is not None]
        kept = [
            k if h is None and k and not any(same_person(k, m) for m in mine) else h
            for h, k in zip(humans, self.meta.bot_names or (None,) * 4, strict=True)
        ]
        names = bot_names(kept, self.meta.seed, position.players if position is not None else (), lang=self.meta.lang)
        practice = self.meta.practice or {}
        if position is not None and practice.get("names") == "seats" and len(position.players) == 4:
            mine = [n for n in humans if n is not None]
            names = tuple(
                p if humans[i] is None and p and not any(same_person(p, m) for m in mine) else names[i]
                for i, p in enumerate(position.players)
            )
        seats = [Seat(names[i], "bot") if s.kind == "empty" else s for i, s in enumerate(self.seats)]
        players = [s.name for s in seats]
        # (the match first: one that cannot start leaves the lobby's seats as they were)
        if position is not None:
            from ..analysis.practice import start_position

            match = start_position(position, self.meta.seed, players)
        else:
            match = Match(self.meta.rules, self.meta.seed, players=players)
        self.seats[:] = seats
        self.match = match
        self.status = PLAYING
        return [Started(v=0, seats=[self.seat_record(i) for i in range(4)]), self._deal_event()]

    def seat_level(self, seat: int) -> str | None:
        """A bot seat's level (the table's ``bots``); None for a person or an empty seat."""
        return self.meta.bots if self.seats[seat].kind == "bot" else None

    def seat_record(self, seat: int) -> SeatRecord:
        """What everyone may know of a seat: its name, kind and (a bot's) level."""
        s = self.seats[seat]
        return SeatRecord(name=s.name, kind=s.kind, level=self.seat_level(seat))

    def _deal_event(self) -> Dealt:
        m = self.match
        assert m is not None
        return Dealt(v=0, round=m.round_number, dealer=m.round.dealer, sudden_death=m.sudden_death)

    def _turn(self, e: dict[str, Any]) -> tuple[Match, int]:
        self._need(PLAYING)
        seat = _seat_arg(e)
        m = self.match
        assert m is not None
        if m.to_act != seat:
            raise TableError("not_your_turn", f"it is seat {m.to_act}'s turn")
        return m, seat

    def _a_call(self, e: dict[str, Any]) -> list[Event]:
        m, seat = self._turn(e)
        auto = _auto_arg(e)
        n = e.get("call")
        if not isinstance(n, int) or isinstance(n, bool):
            raise TableError("bad_call", f"a call is a whole number, not {n!r}")
        rnd, redeals, number = m.round, len(m.redeals), m.round_number
        if rnd.phase != "calling":
            raise TableError("illegal", "no call now: the cards are being played")
        at = next_step(m)
        try:
            m.call(n)
        except IllegalAction as err:
            raise TableError("illegal", str(err)) from None
        self._actions.append((seat, "call", n))
        self._note_auto(at, None if e.get("lifted") else auto)  # (a chosen call the timer made: the player's)
        self._done_for(seat, at[0], None if e.get("lifted") else auto, call=n)
        told = None if auto == "forced" else auto
        out: list[Event] = [Called(v=0, round=number, seat=seat, call=n, auto=told is not None, reason=told)]
        if len(m.redeals) > redeals or rnd.phase == REDEAL:
            out.append(Redealt(v=0, round=number, dealer=rnd.dealer, calls=list(rnd.calls)))
            out.append(self._deal_event())
        return out

    def _a_play(self, e: dict[str, Any]) -> list[Event]:
        m, seat = self._turn(e)
        auto = _auto_arg(e)
        text = e.get("card")
        if not isinstance(text, str) or len(text) > 4:
            raise TableError("bad_card", f"a card is text like 'AS', not {text!r}")
        try:
            card = Card.parse(text)
        except ValueError as err:
            raise TableError("bad_card", str(err)) from None
        rnd, number = m.round, m.round_number
        if rnd.phase != "playing":
            raise TableError("illegal", "no card now: the calls are being made")
        at = next_step(m)
        try:
            action = rnd.play(card)
        except IllegalAction as err:
            raise TableError("illegal", str(err)) from None
        self._actions.append((seat, "card", str(card)))
        self._note_auto(at, None if e.get("lifted") else auto)  # (a lifted card the timer played: the player's)
        self._done_for(seat, at[0], None if e.get("lifted") else auto, card=True)
        # a seat's only legal card, played for it, is told as a card its player played: everyone
        # sees the event, and no one else may learn that the seat had one legal card (its own
        # client knows it from its hand)
        told = None if auto == "forced" else auto
        out: list[Event] = [Played(v=0, round=number, seat=seat, card=str(card), auto=told is not None, reason=told)]
        if action.winner is not None:
            t = rnd.last_trick
            assert t is not None and t.winner is not None
            cards = [(t.seat_of(i), str(c)) for i, c in enumerate(t.cards)]
            out.append(TrickDone(v=0, round=number, number=len(rnd.tricks), winner=t.winner, cards=cards))
        if rnd.phase == OVER:
            idle = all(self.autoplay[i] is not None for i in self.humans())
            self.idle_rounds = self.idle_rounds + 1 if idle else 0
            out.append(self._round_over(rnd, number))
            if m.is_over:
                self.status = FINISHED
                out.append(self._match_over())
            else:
                self.status = BETWEEN
                self.ready = [False] * 4
        return out

    def _round_over(self, rnd: Round, number: int) -> RoundOver:
        m = self.match
        assert m is not None
        return RoundOver(
            v=0,
            round=number,
            calls=list(rnd.calls),
            tricks_won=list(rnd.tricks_won),
            points=[str(p) for p in rnd.points()],
            totals=[str(p) for p in m.totals],
            next_sudden_death=m.sudden_death,
        )

    def _match_over(self, reason: Literal["idle"] | None = None) -> MatchOver:
        m = self.match
        assert m is not None
        return MatchOver(v=0, places=list(m.places), totals=[str(p) for p in m.totals], reason=reason)

    def _a_ready(self, e: dict[str, Any]) -> list[Event]:
        if self.status == PLAYING:  # a late "ready" after the deal started: nothing to do
            return []
        self._need(BETWEEN)
        seat = _seat_arg(e)
        if self.seats[seat].kind != "human":
            raise TableError("bad_seat", "only a player can be ready")
        if self.ready[seat]:
            return []
        self.ready[seat] = True
        return [ReadyEvent(v=0, seat=seat)]

    def _a_next(self, e: dict[str, Any]) -> list[Event]:
        self._need(BETWEEN)
        self.status = PLAYING
        self.ready = [False] * 4
        return [self._deal_event()]

    def _a_end(self, e: dict[str, Any]) -> list[Event]:
        self._need(BETWEEN)
        m = self.match
        assert m is not None
        reason = e.get("reason")
        if reason is not None and reason != "idle":
            raise TableError("bad_entry", f"an end's reason is idle or none, not {reason!r}")
        try:
            m.end()
        except IllegalAction as err:
            raise TableError("illegal", str(err)) from None
        if m.is_over:
            self.status = FINISHED
            return [self._match_over(reason)]
        return [TieBreak(v=0, totals=[str(p) for p in m.totals])]

    def _a_autoplay(self, e: dict[str, Any]) -> list[Event]:
        seat = _seat_arg(e)
        on = e.get("on")
        reason = e.get("reason") if on else None
        if not isinstance(on, bool) or (on and reason != "timeout" and reason != "disconnected"):
            raise TableError("bad_entry", "autoplay needs on, and a reason: timeout or disconnected")
        if self.seats[seat].kind != "human":
            raise TableError("bad_seat", "bots need no autoplay")
        if bool(self.autoplay[seat]) == on:
            return []
        self.autoplay[seat] = reason
        return [Autoplay(v=0, seat=seat, on=on, reason=reason)]

    def _done_for(self, seat: int, deal: int, auto: Auto, call: int | None = None, card: bool = False) -> None:
        """Count a call or card made for a player's ``seat`` in deal number ``deal``, by a bot on
        autoplay or by the turn's timer (``auto``; a choice of the player's that the timer made
        is not counted); the player's own action starts the count again, as a new deal does (a
        call of the round before is not this round's)."""
        if self.seats[seat].kind != "human" or auto == "forced":
            return
        if auto is None:
            self._away[seat] = (-1, None, 0)
            return
        was, made, cards = self._away[seat]
        if was != deal:
            made, cards = None, 0
        self._away[seat] = (deal, call if call is not None else made, cards + card)

    def away(self, seat: int) -> tuple[int | None, int]:
        """What was done for ``seat`` (by a bot on autoplay, or by the turn's timer) since its
        player's own last action, in the deal being played: the call made (None: none) and the
        cards played.

        >>> from callbreak.rules import Ruleset
        >>> st = TableState(TableMeta("k3Xa9Q", "8hJq2w", Ruleset.preset("quick", rounds=1), "random", 7, 0.0))
        >>> for e in ({"t": "seat", "seat": 0, "name": "Asha", "token": "a-seat-token-0123"}, {"t": "start"},
        ...           {"t": "autoplay", "seat": 0, "on": True, "reason": "disconnected"}):
        ...     _ = st.apply(e)
        >>> while st.away(0)[1] < 2:   # a bot plays for seat 0 (its player away) until its second card
        ...     seat = st.to_act
        ...     view = st.match.view(seat)
        ...     action = {"t": "call", "call": view.legal_calls[0]} if view.phase == "calling" else {"t": "play", "card": str(view.legal_cards[0])}
        ...     _ = st.apply({**action, "seat": seat, "auto": "autoplay" if seat == 0 else None})
        >>> st.away(0)
        (1, 2)

        A new deal counts afresh (the round before's call is not this round's):

        >>> st = TableState(TableMeta("k3Xa9Q", "8hJq2w", Ruleset.preset("quick", rounds=2), "random", 7, 0.0))
        >>> for e in ({"t": "seat", "seat": 0, "name": "Asha", "token": "a-seat-token-0123"}, {"t": "start"},
        ...           {"t": "autoplay", "seat": 0, "on": True, "reason": "disconnected"}):
        ...     _ = st.apply(e)
        >>> while len(st.match.deals) < 2 or len(st.match.view(0).hand) == 13:   # round 1, then round 2 to seat 0's first card
        ...     if st.status == "between_rounds":
        ...         _ = st.apply({"t": "next"})
        ...         continue
        ...     seat = st.to_act
        ...     view = st.match.view(seat)
        ...     action = {"t": "call", "call": view.legal_calls[-1]} if view.phase == "calling" else {"t": "play", "card": str(view.legal_cards[0])}
        ...     _ = st.apply({**action, "seat": seat, "auto": "autoplay" if seat == 0 else None})
        >>> st.away(0) == (st.match.round.calls[0], 1)
        True

        A hand redealt (the calls too low) takes its calls with it:

        >>> st = TableState(TableMeta("k3Xa9Q", "8hJq2w", Ruleset.preset("quick", rounds=1, min_total_calls=10), "random", 7, 0.0))
        >>> for e in ({"t": "seat", "seat": 0, "name": "Asha", "token": "a-seat-token-0123"}, {"t": "start"},
        ...           {"t": "autoplay", "seat": 0, "on": True, "reason": "disconnected"}):
        ...     _ = st.apply(e)
        >>> while len(st.match.deals) == 1:   # every seat calls 1: the hand is dealt again
        ...     _ = st.apply({"t": "call", "call": 1, "seat": st.to_act, "auto": "autoplay" if st.to_act == 0 else None})
        >>> st.away(0)
        (None, 0)

        The turn's timer counts too (the player away, not yet for long enough to hand the seat to
        a bot), until the player acts again:

        >>> st = TableState(TableMeta("k3Xa9Q", "8hJq2w", Ruleset.preset("quick", rounds=1), "random", 7, 0.0))
        >>> for e in ({"t": "seat", "seat": 0, "name": "Asha", "token": "a-seat-token-0123"}, {"t": "start"}):
        ...     _ = st.apply(e)
        >>> def turn(auto=None):   # the next action, seat 0's by the timer (``auto``) or its player
        ...     seat = st.to_act
        ...     view = st.match.view(seat)
        ...     action = {"t": "call", "call": view.legal_calls[0]} if view.phase == "calling" else {"t": "play", "card": str(view.legal_cards[0])}
        ...     return st.apply({**action, "seat": seat, "auto": auto if seat == 0 else None})
        >>> while st.match.round.phase == "calling":
        ...     _ = turn()
        >>> while st.away(0)[1] < 2:
        ...     _ = turn("timeout")
        >>> st.away(0)
        (None, 2)
        >>> while st.away(0)[1]:
        ...     _ = turn()
        >>> st.away(0)
        (None, 0)
        """
        deal, call, cards = self._away[seat]
        if self.match is None or deal != len(self.match.deals) - 1:
            return None, 0  # (of a deal before this one: a round over, or a hand redealt)
        return call, cards

    def _a_rematch(self, e: dict[str, Any]) -> list[Event]:
        self._need(FINISHED)
        table = e.get("table")
        if self.rematch is not None or not isinstance(table, str):
            raise TableError("rematch", "this table already has a rematch")
        self.rematch = table
        return [RematchEvent(v=0, table=table)]

    def _a_abandon(self, e: dict[str, Any]) -> list[Event]:
        self._need(PLAYING, BETWEEN)
        self.status = ABANDONED
        return [Abandoned(v=0)]

    def _a_expire(self, e: dict[str, Any]) -> list[Event]:
        self._need(LOBBY)
        self.status = EXPIRED
        return [Expired(v=0)]

    # --- what a seat sees ---------------------------------------------------------------
    def state(self, seat: int) -> dict[str, Any] | None:
        """``seat``'s view (``-1``: a spectator, no hand) as JSON-safe data; None in the lobby."""
        m = self.match
        if m is None:
            return None
        d = m.view(seat).to_dict()
        if self.status in (BETWEEN, ABANDONED):
            d["to_act"] = None
            d["legal_calls"] = []
            d["legal_cards"] = []
        d["places"] = m.places if m.is_over else None
        if m.rounds:
            last = m.rounds[-1]
            d["last_round"] = {
                "round": len(m.rounds),
                "dealer": last.dealer,
                "calls": list(last.calls),
                "tricks_won": list(last.tricks_won),
                "points": [str(p) for p in m.round_points[-1]],
            }
        else:
            d["last_round"] = None
        return d

    def sheet(self) -> list[RoundRow]:
        """The score sheet: every finished round's dealer, calls, tricks and points (the same
        figures as its ``round_over`` event).  Sent once, in a snapshot; a state carries only
        the latest round (``last_round``), so it does not grow with the match.

        >>> from callbreak import Ruleset
        >>> t = TableState(TableMeta("t", "i", Ruleset.preset("quick", rounds=1), "random", 3, 0.0))
        >>> for e in ({"t": "seat", "seat": 0, "name": "Asha", "token": "x" * 22}, {"t": "start"}):
        ...     _ = t.apply(e)
        >>> t.sheet()
        []
        >>> while t.status == "playing":
        ...     v = t.match.view(t.match.to_act)
        ...     _ = t.apply({"t": "call", "seat": v.seat, "call": v.legal_calls[0]} if v.phase == "calling"
        ...                 else {"t": "play", "seat": v.seat, "card": str(v.legal_cards[0])})
        >>> [(row.round, sum(row.tricks_won)) for row in t.sheet()]
        [(1, 13)]
        """
        m = self.match
        if m is None:
            return []
        return [
            RoundRow(
                round=i + 1,
                dealer=r.dealer,
                calls=list(r.calls),
                tricks_won=list(r.tricks_won),
                points=[str(p) for p in pts],
            )
            for i, (r, pts) in enumerate(zip(m.rounds, m.round_points))
        ]

    def state_parts(self, seats: list[int]) -> tuple[str, dict[int, str]] | None:
        """`state` of several seats as JSON text in two parts: the public ``head`` (shared) and
        each seat's ``tail`` (its hand and legal moves); ``head + "," + tail`` is a seat's whole
        state (`render.StateRender`).  None in the lobby (the state is null)."""
        m = self.match
        if m is None:
            return None
        return self._render.parts(m, self.status in (BETWEEN, ABANDONED), seats)

    def states_json(self, seats: list[int]) -> dict[int, str]:
        """`state` of several seats as JSON text, sharing the work on the public part.

        The same data as ``orjson.dumps(self.state(seat))`` (keys in another order).

        >>> from callbreak import Ruleset
        >>> t = TableState(TableMeta("t", "i", Ruleset(), "random", 1, 0.0))
        >>> t.states_json([0, -1])
        {0: 'null', -1: 'null'}
        """
        parts = self.state_parts(seats)
        if parts is None:
            return {s: "null" for s in seats}
        head, tails = parts
        return {s: head + "," + tails[s] for s in seats}

    def _note_auto(self, at: tuple[int, int], auto: Auto) -> None:
        if auto == "timeout" or auto == "autoplay":  # ("forced": the only legal card, the player's all the same)
            self._auto[at] = auto

    def auto_decisions(self) -> dict[tuple[int, int], str]:
        """The calls and cards the server made for a seat, by (deal, step), with why ("timeout",
        "autoplay"): an analysis leaves them out of the player's figures.

        >>> from callbreak.rules import Ruleset
        >>> st = TableState(TableMeta("k3Xa9Q", "8hJq2w", Ruleset.preset("quick", rounds=1), "random", 7, 0.0))
        >>> for e in ({"t": "seat", "seat": 0, "name": "Asha", "token": "a-seat-token-0123"}, {"t": "start"}):
        ...     _ = st.apply(e)
        >>> r = st.match.round
        >>> _ = st.apply({"t": "call", "seat": r.to_act, "call": 1, "auto": "timeout"})
        >>> _ = st.apply({"t": "call", "seat": r.to_act, "call": 2})
        >>> _ = st.apply({"t": "call", "seat": r.to_act, "call": 3, "auto": "timeout", "lifted": True})  # chosen
        >>> st.auto_decisions()
        {(0, 0): 'timeout'}
        """
        return dict(self._auto)

    def actions(self) -> list[dict[str, int | str]]:
        """The match's actions in order, as ``{"seat", "call"}`` / ``{"seat", "card"}``."""
        return [{"seat": seat, kind: value} for seat, kind, value in self._actions]


_HANDLERS = {
    "seat": TableState._a_seat,
    "leave": TableState._a_leave,
    "start": TableState._a_start,
    "call": TableState._a_call,
    "play": TableState._a_play,
    "ready": TableState._a_ready,
    "next": TableState._a_next,
    "end": TableState._a_end,
    "autoplay": TableState._a_autoplay,
    "rematch": TableState._a_rematch,
    "expire": TableState._a_expire,
    "abandon": TableState._a_abandon,
}
