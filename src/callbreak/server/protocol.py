"""The online table's WebSocket protocol as types: every message, once.

Client → server messages (`ClientMessage`, tagged by ``type``) are decoded and validated
at the edge by `parse`: a message that is not JSON, not an object, of an unknown type or
with a bad field gets its `ErrorCode` and changes nothing.  Server → client messages
(`ServerMessage`) are these structs too: the small ones (`Error`, `Pong`, `HintMessage`,
`Rematch`) are encoded from them (`encode`); the big ones (`Snapshot`, `EventMessage`,
`Synced`, `TableMessage`) are framed by `snapshot_frame`, `event_frame`, ... around
parts rendered once per audience (their shape is these structs; tests decode every frame a
match sends as `ServerMessage`).  `schema` is the JSON Schema of both directions
(``docs/protocol.schema.json``, written by ``tools/protocol_schema.py``); `ERRORS` gives
every error code its meaning (``docs/protocol.md`` lists them from it).
"""

from __future__ import annotations

import enum
from typing import Annotated, Any, Literal

import msgspec

__all__ = [
    "CLIENT_TYPES",
    "ERRORS",
    "Back",
    "Call",
    "ClientMessage",
    "End",
    "Error",
    "ErrorCode",
    "EventMessage",
    "Hello",
    "Hint",
    "HintMessage",
    "Leave",
    "Ping",
    "Play",
    "Pong",
    "PracticeOf",
    "Ready",
    "Refused",
    "Rematch",
    "RematchAsk",
    "Select",
    "ServerMessage",
    "Snapshot",
    "Start",
    "Synced",
    "TableMessage",
    "WhileAway",
    "encode",
    "error_table",
    "event_frame",
    "parse",
    "schema",
    "snapshot_frame",
    "synced_frame",
    "table_frame",
]


class ErrorCode(enum.StrEnum):
    """Every ``code`` the server sends, in an ``error`` message or an HTTP error body.

    >>> ErrorCode("not_host") is ErrorCode.NOT_HOST, ErrorCode.NOT_HOST == "not_host"
    (True, True)
    >>> ERRORS[ErrorCode.NOT_HOST]
    'only the host may do that (start, end), and the host cannot leave'
    """

    BAD_JSON = "bad_json"
    BAD_MESSAGE = "bad_message"
    BAD_TYPE = "bad_type"
    TOO_LARGE = "too_large"
    RATE_LIMITED = "rate_limited"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    NO_HELLO = "no_hello"
    SPECTATOR = "spectator"
    BAD_TOKEN = "bad_token"
    NO_TABLE = "no_table"
    NOT_HOST = "not_host"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_STATUS = "wrong_status"
    ILLEGAL = "illegal"
    BAD_CALL = "bad_call"
    BAD_CARD = "bad_card"
    BAD_SEAT = "bad_seat"
    SEAT_TAKEN = "seat_taken"
    TABLE_FULL = "table_full"
    NAME_TAKEN = "name_taken"
    NO_PLAYERS = "no_players"
    REMATCH = "rematch"
    NOT_OVER = "not_over"
    BAD_RULES = "bad_rules"
    BAD_BOTS = "bad_bots"
    BAD_FORMAT = "bad_format"
    NO_ANALYSIS = "no_analysis"
    BAD_ENTRY = "bad_entry"
    UPGRADE_REQUIRED = "upgrade_required"
    UNAVAILABLE = "unavailable"
    INTERNAL = "internal"


#: what each code means (``docs/protocol.md`` lists this table; a test holds it complete)
ERRORS: dict[ErrorCode, str] = {
    ErrorCode.BAD_JSON: "the message (or HTTP body) is not JSON, or not a JSON object (HTTP)",
    ErrorCode.BAD_MESSAGE: "a JSON message that is not an object, is empty, or has a bad field "
    "(e.g. `since` not a whole number, `ref` not a string of at most 64 characters or a whole number); "
    "an HTTP body with a field its route does not take, or a field of the wrong type",
    ErrorCode.BAD_TYPE: "no `type`, or a `type` the server does not know",
    ErrorCode.TOO_LARGE: "a message over `max_message` (4,096) bytes of UTF-8, or an HTTP body over `max_body`",
    ErrorCode.RATE_LIMITED: "too many messages on this connection, too many hints being worked out, "
    "too many tables created or joined, or too many new WebSockets from this address (the handshake "
    "is refused: HTTP 429 with this code)",
    ErrorCode.TOO_MANY_CONNECTIONS: "more than `max_sockets_per_ip` WebSockets open from this address "
    "(then closed, 4429)",
    ErrorCode.NO_HELLO: "no `hello` within `hello_timeout` of connecting (then closed, 4408)",
    ErrorCode.SPECTATOR: "a spectator sent an action",
    ErrorCode.BAD_TOKEN: "the seat token is not valid for this table (on connecting: then closed, 4403)",
    ErrorCode.NO_TABLE: "there is no such table or invite (on connecting: then closed, 4404)",
    ErrorCode.NOT_HOST: "only the host may do that (start, end), and the host cannot leave",
    ErrorCode.NOT_YOUR_TURN: "it is another seat's turn (or the turn moved on before a hint was ready)",
    ErrorCode.WRONG_STATUS: "not in the table's present status (e.g. a call between rounds, a join once started)",
    ErrorCode.ILLEGAL: "the engine refuses the call or card (its reason is the message)",
    ErrorCode.BAD_CALL: "a call that is not a whole number",
    ErrorCode.BAD_CARD: "a card that is not a card's text (`AS`, `TH`, `2C`)",
    ErrorCode.BAD_SEAT: "a seat that is not 0..3, or empty",
    ErrorCode.SEAT_TAKEN: "joining a seat someone holds",
    ErrorCode.TABLE_FULL: "joining a table whose seats are all taken",
    ErrorCode.NAME_TAKEN: "joining with the name (but for case) of a player seated at the table",
    ErrorCode.NO_PLAYERS: "starting a table at which nobody is seated",
    ErrorCode.REMATCH: "this table already has a rematch",
    ErrorCode.NOT_OVER: "the hand history is ready once the match is over",
    ErrorCode.BAD_RULES: "a bad rules field or value (the engine's message)",
    ErrorCode.BAD_BOTS: "an unknown bot level",
    ErrorCode.BAD_FORMAT: "a history format other than `text`, `json` or `log`",
    ErrorCode.NO_ANALYSIS: "the match has not been analysed yet (`POST` the same path to start)",
    ErrorCode.BAD_ENTRY: "a log entry the server wrote is malformed (a server bug; no client message causes it)",
    ErrorCode.UPGRADE_REQUIRED: "a plain HTTP request to a table's WebSocket path `/ws/ID` (HTTP 426): "
    "a proxy in front of the server dropped the `Upgrade` and `Connection` headers (it is logged)",
    ErrorCode.UNAVAILABLE: "the database, or (several processes) Redis, does not answer (a restart, a failover): "
    "nothing changed; try again in a moment (HTTP 503 with `Retry-After`; a WebSocket's handshake is refused, "
    "HTTP 403, and an open one is closed with 1013)",
    ErrorCode.INTERNAL: "the server failed to handle the request (it is logged); nothing changed",
}

#: codes after which a table's page cannot go on (the web client stops reconnecting)
FATAL = frozenset({ErrorCode.BAD_TOKEN, ErrorCode.NO_TABLE})

#: a client's reference, echoed in the replies and errors to its message
Ref = Annotated[str, msgspec.Meta(max_length=64)] | int


# --- client → server ------------------------------------------------------------------------
class _Client(msgspec.Struct, tag_field="type", kw_only=True):
    #: echoed in the reply or error to this message
    ref: Ref | None = None


class Hello(_Client, tag="hello"):
    """First message (and again after a gap): the last version seen (0 or none: a snapshot).

    >>> parse('{"type": "hello", "since": 12}')
    Hello(since=12, ref=None)
    >>> msgspec.json.encode(Hello(since=12, ref="h1"))
    b'{"type":"hello","since":12,"ref":"h1"}'
    """

    since: int | None = None


class Ping(_Client, tag="ping"):
    """Keep-alive: answered with a `Pong`.

    >>> parse('{"type": "ping", "ref": 4}')
    Ping(ref=4)
    >>> msgspec.json.encode(Ping())
    b'{"type":"ping","ref":null}'
    """


class Call(_Client, tag="call"):
    """The seat's call.

    >>> parse('{"type": "call", "call": 4}')
    Call(call=4, ref=None)
    >>> msgspec.json.encode(Call(call=4, ref="c1"))
    b'{"type":"call","call":4,"ref":"c1"}'
    """

    call: int


class Play(_Client, tag="play"):
    """The seat's card, as text (``AS``); ``at``, optional: the cards played in the round when its
    player chose it (0..51). A card that reaches the server after more were played (on a slow link
    its turn's timer played for the seat, whose card won the trick: the seat leads again) is refused
    as ``not_your_turn``, not played on that later turn (a reviewer's read of a Bengali player's
    try on a slow link).

    >>> parse('{"type": "play", "card": "QH"}')
    Play(card='QH', at=None, ref=None)
    >>> msgspec.json.encode(Play(card="QH", at=17))
    b'{"type":"play","card":"QH","at":17,"ref":null}'
    """

    card: Annotated[str, msgspec.Meta(max_length=4)]
    at: Annotated[int, msgspec.Meta(ge=0, le=51)] | None = None


class Select(_Client, tag="select"):
    """On the seat's turn: the card its player has lifted, or on its turn to call the call it has
    chosen (the terminal's cursor; neither: none), which the turn's timer plays if it runs out
    (else the lowest legal card or call). Told to no one else.

    >>> parse('{"type": "select", "card": "QH"}'), parse('{"type": "select", "card": null}')
    (Select(card='QH', call=None, ref=None), Select(card=None, call=None, ref=None))
    >>> parse('{"type": "select", "call": 4}').call
    4
    """

    card: Annotated[str, msgspec.Meta(max_length=4)] | None = None
    call: Annotated[int, msgspec.Meta(ge=0, le=13)] | None = None


class Ready(_Client, tag="ready"):
    """Between rounds: ready for the next deal (ignored once it has started).

    >>> parse('{"type": "ready"}'), msgspec.json.encode(Ready())
    (Ready(ref=None), b'{"type":"ready","ref":null}')
    """


class Start(_Client, tag="start"):
    """The host, in the lobby: start (empty seats get bots).

    >>> parse('{"type": "start", "ref": "s"}'), msgspec.json.encode(Start())
    (Start(ref='s'), b'{"type":"start","ref":null}')
    """


class Leave(_Client, tag="leave"):
    """A player (not the host), in the lobby: free the seat; its token stops working.

    >>> parse('{"type": "leave"}'), msgspec.json.encode(Leave())
    (Leave(ref=None), b'{"type":"leave","ref":null}')
    """


class Hint(_Client, tag="hint"):
    """On the seat's turn: a suggested call or card (a `HintMessage`).

    >>> parse('{"type": "hint", "ref": 9}'), msgspec.json.encode(Hint(ref=9))
    (Hint(ref=9), b'{"type":"hint","ref":9}')
    """


class Back(_Client, tag="back"):
    """Take the seat back from the bot playing it.

    >>> parse('{"type": "back"}'), msgspec.json.encode(Back())
    (Back(ref=None), b'{"type":"back","ref":null}')
    """


class RematchAsk(_Client, tag="rematch"):
    """Once the match is over: the same people at a new table (a `Rematch` each).

    >>> parse('{"type": "rematch"}'), msgspec.json.encode(RematchAsk())
    (RematchAsk(ref=None), b'{"type":"rematch","ref":null}')
    """


class End(_Client, tag="end"):
    """The host, between rounds of an endless table (``rules.rounds`` null): end the match.

    >>> parse('{"type": "end"}'), msgspec.json.encode(End())
    (End(ref=None), b'{"type":"end","ref":null}')
    """


ClientMessage = Hello | Ping | Call | Play | Select | Ready | Start | Leave | Hint | Back | RematchAsk | End

#: ``type`` -> its struct
CLIENT_TYPES: dict[str, type[_Client]] = {
    c.__struct_config__.tag: c  # type: ignore[misc]
    for c in (Hello, Ping, Call, Play, Select, Ready, Start, Leave, Hint, Back, RematchAsk, End)
}

#: a bad field of these names has a code of its own (else `bad_message`)
_FIELD_CODES = {"call": ErrorCode.BAD_CALL, "card": ErrorCode.BAD_CARD}

_decoder = msgspec.json.Decoder(ClientMessage)
_any = msgspec.json.Decoder()


class Refused(Exception):
    """A message refused at the edge: its `code`, a text for people, and its valid ``ref``.

    >>> try:
    ...     parse('{"type": "play", "card": "QHQHQ", "ref": "p7"}')
    ... except Refused as e:
    ...     print(e.code.value, e.ref, "|", e.message)
    bad_card p7 | bad play message: Expected `str` of length <= 4 - at `$.card`
    """

    def __init__(self, code: ErrorCode, message: str, ref: str | int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.ref = ref


def parse(raw: str | bytes) -> ClientMessage:
    """One client message, validated; `Refused` with its code otherwise.

    >>> parse('{"type": "call", "call": 3, "ref": 7}')
    Call(call=3, ref=7)
    >>> for bad in ('{x', '[1]', '{"type": "dance"}', '{"type": "call", "call": "3", "ref": "r"}',
    ...             '{"type": "play"}', '{"type": "hello", "since": "x"}'):
    ...     try:
    ...         parse(bad)
    ...     except Refused as e:
    ...         print(e.code.value, e.ref)
    bad_json None
    bad_message None
    bad_type None
    bad_call r
    bad_card None
    bad_message None
    """
    try:
        return _decoder.decode(raw)
    except msgspec.ValidationError as e:
        problem = str(e)
    except msgspec.DecodeError:
        raise Refused(ErrorCode.BAD_JSON, "a message is one JSON object") from None
    # the slow path, for refusals only: which code, and the ref to echo
    obj = _any.decode(raw)
    if not isinstance(obj, dict):
        raise Refused(ErrorCode.BAD_MESSAGE, "a message is one JSON object")
    ref = obj.get("ref")
    if not (isinstance(ref, str) and len(ref) <= 64) and not (isinstance(ref, int) and not isinstance(ref, bool)):
        ref = None
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_TYPES:
        raise Refused(ErrorCode.BAD_TYPE, f"unknown message type {str(kind)[:32]!r}", ref)
    field = _bad_field(problem)
    code = _FIELD_CODES.get(field, ErrorCode.BAD_MESSAGE)
    raise Refused(code, f"bad {kind} message: {problem}", ref)


def _bad_field(problem: str) -> str:
    """The top-level field a msgspec validation message is about ('' if none).

    >>> _bad_field("Expected `int`, got `str` - at `$.call`"), _bad_field("Object missing required field `card`")
    ('call', 'card')
    """
    if " - at `$." in problem:
        return problem.rsplit(" - at `$.", 1)[1].split("`")[0].split(".")[0].split("[")[0]
    if "missing required field `" in problem:
        return problem.split("missing required field `", 1)[1].split("`")[0]
    return ""


# --- server → client: the parts -------------------------------------------------------------
class _Strict(msgspec.Struct):
    """A part of a server → client message.  A client reading it passes over a field it does not
    know (a newer server's), so these decode leniently; the server sends no field but these
    structs' own: `schema` says so (``additionalProperties: false``), and the tests hold every
    frame a match sends to the committed schema."""


def _server_parts() -> set[str]:
    """The names of every server → client struct (`_Strict` and what derives from it)."""
    out: set[str] = set()
    todo: list[type] = [_Strict]
    while todo:
        subs: list[type] = todo.pop().__subclasses__()
        for sub in subs:
            out.add(sub.__name__)
            todo.append(sub)
    return out


class SeatInfo(_Strict):
    """One seat as a table's page shows it.

    >>> msgspec.json.decode('{"name": "Ritu", "kind": "bot", "level": "medium", "connected": true,'
    ...                     ' "autoplay": false, "ready": false}', type=SeatInfo)
    SeatInfo(name='Ritu', kind='bot', level='medium', connected=True, autoplay=False, ready=False)
    """

    name: str | None
    kind: Literal["human", "bot", "empty"]
    level: str | None
    connected: bool
    autoplay: bool
    ready: bool


class PracticeOf(_Strict):
    """Where a table that plays a position again comes from: the finished match's table, and the
    round of it the position is in (a newcomer's try: the table said "Round 1 of 1").

    >>> msgspec.json.decode('{"table": "k3Xa9Q", "round": 2}', type=PracticeOf)
    PracticeOf(table='k3Xa9Q', round=2)
    """

    table: str
    round: int


class TableInfo(_Strict):
    """``TABLE``: the table as this connection may see it.

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> t, tokens = hub.create_table(Ruleset(), name="Asha")
    >>> info = msgspec.convert(t.table_info(0), TableInfo)
    >>> info.status, info.seats[0].name, [s.kind for s in info.seats], info.you, info.rules["rounds"]
    ('lobby', 'Asha', ['human', 'empty', 'empty', 'empty'], 0, 5)
    >>> hub.store.close(); hub.hints.close()
    """

    id: str
    status: Literal["lobby", "playing", "between_rounds", "over", "expired", "abandoned"]
    host: int
    seats: list[SeatInfo]
    you: int
    rules: dict[str, Any]
    bots: str
    deadline: int | None
    to_act: int | None
    v: int
    spectators: int
    invite: str | None
    rematch: str | None
    practice: PracticeOf | None = None  # (a table of before, or any other: none)


class RoundRow(_Strict):
    """One finished round of the score sheet.

    >>> row = msgspec.json.decode('{"round": 1, "dealer": 0, "calls": [3, 2, 4, 3],'
    ...     ' "tricks_won": [4, 1, 5, 3], "points": ["3.1", "-2.0", "4.1", "3.0"]}', type=RoundRow)
    >>> row.calls, row.points
    ([3, 2, 4, 3], ['3.1', '-2.0', '4.1', '3.0'])
    """

    round: int
    dealer: int
    calls: list[int | None]
    tricks_won: list[int]
    points: list[str]


class TrickRecord(_Strict):
    """One trick of the round: who led, the cards in play order, who won it.

    >>> msgspec.json.decode('{"leader": 2, "cards": ["KH", "3H", "AH", "2S"], "winner": 1}', type=TrickRecord)
    TrickRecord(leader=2, cards=['KH', '3H', 'AH', '2S'], winner=1)
    """

    leader: int
    cards: list[str]
    winner: int | None


class State(_Strict):
    """``STATE``: the engine's view for this seat (spectators: seat -1, no hand).

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> t, tokens = hub.create_table(Ruleset(), name="Asha", play_now=True)
    >>> state = msgspec.convert(t.state.state(0), State)
    >>> state.phase, state.seat, len(state.hand), state.hand_sizes, state.legal_cards
    ('calling', 0, 13, [13, 13, 13, 13], [])
    >>> msgspec.convert(t.state.state(-1), State).hand   # a spectator sees no hand
    []
    >>> hub.store.close(); hub.hints.close()
    """

    seat: int
    rules: dict[str, Any]
    dealer: int
    phase: Literal["calling", "playing", "redeal", "over"]
    to_act: int | None
    hand: list[str]
    hand_sizes: list[int]
    calls: list[int | None]
    tricks_won: list[int]
    leader: int | None
    trick: list[tuple[int, str]]
    tricks: list[TrickRecord]
    legal_calls: list[int]
    legal_cards: list[str]
    points: list[str] | None
    totals: list[str] | None
    round_number: int
    rounds: int | None
    sudden_death: bool
    places: list[int] | None
    last_round: RoundRow | None


class _Event(_Strict, tag_field="kind"):
    v: int


class SeatRecord(_Strict):
    """Who sat at a seat when the match started (a `Started` event's seats).

    >>> msgspec.json.decode('{"name": "Maya", "kind": "bot", "level": "hard"}', type=SeatRecord)
    SeatRecord(name='Maya', kind='bot', level='hard')
    """

    name: str | None
    kind: Literal["human", "bot", "empty"]
    level: str | None


class Seated(_Event, tag="seated"):
    """``seated``: a player took a seat in the lobby.

    >>> msgspec.json.decode('{"kind": "seated", "v": 2, "seat": 1, "name": "Ritu"}', type=Event)
    Seated(v=2, seat=1, name='Ritu')
    """

    seat: int
    name: str


class Left(_Event, tag="left"):
    """``left``: a player freed a seat in the lobby.

    >>> msgspec.json.decode('{"kind": "left", "v": 3, "seat": 1}', type=Event)
    Left(v=3, seat=1)
    """

    seat: int


class Started(_Event, tag="start"):
    """``start``: the match started, with these seats.

    >>> e = msgspec.json.decode('{"kind": "start", "v": 4, "seats": [{"name": "Asha", "kind": "human", "level": null},'
    ...     ' {"name": "Ritu", "kind": "bot", "level": "easy"}]}', type=Event)
    >>> type(e).__name__, [s.kind for s in e.seats]
    ('Started', ['human', 'bot'])
    """

    seats: list[SeatRecord]


class Dealt(_Event, tag="deal"):
    """``deal``: a round was dealt.

    >>> msgspec.json.decode('{"kind": "deal", "v": 5, "round": 1, "dealer": 0, "sudden_death": false}', type=Event)
    Dealt(v=5, round=1, dealer=0, sudden_death=False)
    """

    round: int
    dealer: int
    sudden_death: bool


Reason = Literal["timeout", "autoplay"] | None


class Called(_Event, tag="call"):
    """``call``: a seat called (``auto`` with its ``reason`` when the server called for it).

    >>> msgspec.json.decode('{"kind": "call", "v": 6, "round": 1, "seat": 1, "call": 3, "auto": false, "reason": null}',
    ...                     type=Event)
    Called(v=6, round=1, seat=1, call=3, auto=False, reason=None)
    """

    round: int
    seat: int
    call: int
    auto: bool
    reason: Reason


class Played(_Event, tag="play"):
    """``play``: a seat played a card (``auto`` with its ``reason`` when the server played it).

    >>> msgspec.json.decode('{"kind": "play", "v": 11, "round": 1, "seat": 2, "card": "7C", "auto": true,'
    ...                     ' "reason": "timeout"}', type=Event)
    Played(v=11, round=1, seat=2, card='7C', auto=True, reason='timeout')
    """

    round: int
    seat: int
    card: str
    auto: bool
    reason: Reason


class TrickDone(_Event, tag="trick"):
    """``trick``: a trick was won.

    >>> e = msgspec.json.decode('{"kind": "trick", "v": 14, "round": 1, "number": 1, "winner": 3,'
    ...                         ' "cards": [[1, "KH"], [2, "3H"], [3, "AH"], [0, "5H"]]}', type=Event)
    >>> e.winner, e.cards[2]
    (3, (3, 'AH'))
    """

    round: int
    number: int
    winner: int
    cards: list[tuple[int, str]]


class Redealt(_Event, tag="redeal"):
    """``redeal``: the round was dealt again (e.g. the calls' total was too low).

    >>> msgspec.json.decode('{"kind": "redeal", "v": 9, "round": 1, "dealer": 1, "calls": [1, 1, 1, 1]}', type=Event)
    Redealt(v=9, round=1, dealer=1, calls=[1, 1, 1, 1])
    """

    round: int
    dealer: int
    calls: list[int | None]


class RoundOver(_Event, tag="round_over"):
    """``round_over``: a round's score.

    >>> e = msgspec.json.decode('{"kind": "round_over", "v": 70, "round": 1, "calls": [3, 2, 4, 3],'
    ...     ' "tricks_won": [4, 1, 5, 3], "points": ["3.1", "-2.0", "4.1", "3.0"],'
    ...     ' "totals": ["3.1", "-2.0", "4.1", "3.0"], "next_sudden_death": false}', type=Event)
    >>> type(e).__name__, e.points
    ('RoundOver', ['3.1', '-2.0', '4.1', '3.0'])
    """

    round: int
    calls: list[int | None]
    tricks_won: list[int]
    points: list[str]
    totals: list[str]
    next_sudden_death: bool


class ReadyEvent(_Event, tag="ready"):
    """``ready``: a seat is ready for the next deal.

    >>> msgspec.json.decode('{"kind": "ready", "v": 71, "seat": 0}', type=Event)
    ReadyEvent(v=71, seat=0)
    """

    seat: int


class Autoplay(_Event, tag="autoplay"):
    """``autoplay``: a bot took over a seat (``on``) or gave it back.

    >>> msgspec.json.decode('{"kind": "autoplay", "v": 30, "seat": 2, "on": true, "reason": "disconnected"}', type=Event)
    Autoplay(v=30, seat=2, on=True, reason='disconnected')
    """

    seat: int
    on: bool
    reason: Literal["timeout", "disconnected"] | None


class MatchOver(_Event, tag="match_over"):
    """``match_over``: the places (1 = first, by seat) and the totals.

    >>> e = msgspec.json.decode('{"kind": "match_over", "v": 400, "places": [2, 4, 1, 3],'
    ...     ' "totals": ["9.2", "-3.0", "12.1", "4.0"], "reason": null}', type=Event)
    >>> e.places, e.reason
    ([2, 4, 1, 3], None)
    """

    places: list[int]
    totals: list[str]
    reason: Literal["idle"] | None


class TieBreak(_Event, tag="tie_break"):
    """``tie_break``: the match ended level; a sudden-death round follows.

    >>> msgspec.json.decode('{"kind": "tie_break", "v": 401, "totals": ["9.2", "9.2", "1.0", "4.0"]}', type=Event)
    TieBreak(v=401, totals=['9.2', '9.2', '1.0', '4.0'])
    """

    totals: list[str]


class RematchEvent(_Event, tag="rematch"):
    """``rematch``: the table's rematch is this table.

    >>> msgspec.json.decode('{"kind": "rematch", "v": 402, "table": "k3Xa9Q"}', type=Event)
    RematchEvent(v=402, table='k3Xa9Q')
    """

    table: str


class Expired(_Event, tag="expired"):
    """``expired``: the table timed out in the lobby.

    >>> msgspec.json.decode('{"kind": "expired", "v": 3}', type=Event)
    Expired(v=3)
    """

    pass


class Abandoned(_Event, tag="abandoned"):
    """``abandoned``: no player came back to the unfinished table.

    >>> msgspec.json.decode('{"kind": "abandoned", "v": 57}', type=Event)
    Abandoned(v=57)
    """

    pass


Event = (
    Seated
    | Left
    | Started
    | Dealt
    | Called
    | Played
    | TrickDone
    | Redealt
    | RoundOver
    | ReadyEvent
    | Autoplay
    | MatchOver
    | TieBreak
    | RematchEvent
    | Expired
    | Abandoned
)


# --- server → client: the messages ----------------------------------------------------------
class _Server(_Strict, tag_field="type"):
    pass


class Snapshot(_Server, tag="snapshot"):
    """The whole table as this connection may see it (and the score sheet).

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> t, tokens = hub.create_table(Ruleset(), name="Asha", play_now=True)
    >>> snap = msgspec.json.decode(t.snapshot(0), type=ServerMessage)
    >>> type(snap).__name__, snap.table.status, snap.state.phase, len(snap.state.hand), snap.sheet
    ('Snapshot', 'playing', 'calling', 13, [])
    >>> hub.store.close(); hub.hints.close()
    """

    v: int
    server_time: int
    table: TableInfo
    state: State | None
    sheet: list[RoundRow]
    #: the card this seat's player has lifted on its turn now, or the call it has chosen (`Select`),
    #: which the turn's timer plays if it runs out: a page drawn afresh (a reload) shows it chosen
    #: again. Null for everyone else, and when none is chosen.
    lifted: str | int | None = None


class EventMessage(_Server, tag="event"):
    """One event of the log, filtered for this seat, with the state right after it.

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.broker import channel
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> t, tokens = hub.create_table(Ruleset(), name="Asha")
    >>> frames = []
    >>> stop = hub.broker.subscribe(channel(t.state.id, 0), frames.append)   # seat 0's connection
    >>> _ = hub.join(t.state.meta.invite, "Ritu")
    >>> msg = msgspec.json.decode(frames[0], type=ServerMessage)
    >>> type(msg).__name__, msg.event, [s.name for s in msg.table.seats[:2]], msg.state
    ('EventMessage', Seated(v=2, seat=1, name='Ritu'), ['Asha', 'Ritu'], None)
    >>> hub.store.close(); hub.hints.close()
    """

    v: int
    server_time: int
    event: Event
    table: TableInfo
    state: State | None


class Synced(_Server, tag="synced"):
    """After ``hello``: the connection is up to date.

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> t, tokens = hub.create_table(Ruleset(), name="Asha", play_now=True)
    >>> synced = msgspec.json.decode(t.catch_up(0, t.state.v)[-1], type=ServerMessage)
    >>> type(synced).__name__, synced.v == t.state.v, synced.table.you
    ('Synced', True, 0)
    >>> hub.store.close(); hub.hints.close()
    """

    v: int
    server_time: int
    table: TableInfo


class TableMessage(_Server, tag="table"):
    """A change outside the game (connections, deadlines, spectators).

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> t, tokens = hub.create_table(Ruleset(), name="Asha")
    >>> frame = table_frame(t.state.v, 1000, msgspec.json.encode(t.table_info(-1)).decode())
    >>> msg = msgspec.json.decode(frame, type=ServerMessage)
    >>> type(msg).__name__, msg.server_time, msg.table.you, msg.table.invite   # a spectator sees no invite
    ('TableMessage', 1000, -1, None)
    >>> hub.store.close(); hub.hints.close()
    """

    v: int
    server_time: int
    table: TableInfo


class HintMessage(_Server, tag="hint"):
    """The answer to a `Hint`: a call (with its chance of being made) or a card.

    Why, as a code a client words in its reader's language (`callbreak.bots.base.Hint.say`):
    ``why`` (the catalogues' ``hint.why.<why>``), ``mean`` (a call hint's tricks to expect),
    ``than`` (the card a search hint does better than), ``quick`` (a medium hint while the
    hard level warms up); ``reason`` is its English wording.

    >>> hint = HintMessage(v=12, call=None, chance=None, card="AS", reason="cash a top trump", level="hard", ref=9,
    ...                    why="cash_top_trump")
    >>> msgspec.json.decode(encode(hint), type=ServerMessage) == hint
    True
    >>> encode(HintMessage(v=3, call=4, chance=0.82, card=None, reason="...", level="hard", why="call", mean=4.43))
    '{"type":"hint","v":3,"call":4,"chance":0.82,"card":null,"reason":"...","level":"hard","ref":null,"why":"call","mean":4.43,"than":null,"quick":false}'
    """

    v: int
    call: int | None
    chance: float | None
    card: str | None
    reason: str
    level: str
    ref: Ref | None = None
    why: str = ""
    mean: float | None = None
    than: str | None = None
    quick: bool = False


class Error(_Server, tag="error", omit_defaults=True):
    """A refusal: nothing changed.  ``v`` is the table's version (absent before a connection
    has a table); ``ref`` echoes the refused message's.

    >>> err = Error(ErrorCode.NOT_YOUR_TURN, "it is seat 2 to play", v=17, ref="p3")
    >>> encode(err)
    '{"type":"error","code":"not_your_turn","message":"it is seat 2 to play","v":17,"ref":"p3"}'
    >>> msgspec.json.decode(encode(err), type=ServerMessage) == err
    True
    """

    code: ErrorCode
    message: str
    v: int | None = None
    ref: Ref | None = None


class Pong(_Server, tag="pong"):
    """The answer to a `Ping`: the server's clock (milliseconds), and the ping's ``ref``.

    >>> encode(Pong(server_time=1_700_000_000_000, ref=4))
    '{"type":"pong","server_time":1700000000000,"ref":4}'
    >>> msgspec.json.decode(encode(Pong(server_time=5, ref=4)), type=ServerMessage)
    Pong(server_time=5, ref=4)
    """

    server_time: int
    ref: Ref | None = None


class Rematch(_Server, tag="rematch", omit_defaults=True):
    """Private to its seat: its token at the rematch table.

    >>> encode(Rematch(table="k3Xa9Q", token="tok-of-seat-2", seat=2))
    '{"type":"rematch","table":"k3Xa9Q","token":"tok-of-seat-2","seat":2}'
    >>> msgspec.json.decode(encode(Rematch(table="k3Xa9Q", token="t", seat=2)), type=ServerMessage).seat
    2
    """

    table: str
    token: str
    seat: int
    ref: Ref | None = None


class WhileAway(_Server, tag="while_away"):
    """Private to its seat, as its player comes back (a `Hello`) or takes it back from a bot:
    what was done for it (by a bot on autoplay, or by the turn's timer) since the player's own
    last action in the deal being played (the call made, None: none; the cards played), so that
    no call is pinned on a player who does not know of it.

    >>> encode(WhileAway(call=3, cards=9))
    '{"type":"while_away","call":3,"cards":9}'
    """

    call: int | None
    cards: int


ServerMessage = Snapshot | EventMessage | Synced | TableMessage | HintMessage | Error | Pong | Rematch | WhileAway

_encoder = msgspec.json.Encoder()


def encode(msg: ServerMessage) -> str:
    """A server message as JSON text.

    >>> encode(Error(ErrorCode.NOT_HOST, "only the host starts the table", v=3))
    '{"type":"error","code":"not_host","message":"only the host starts the table","v":3}'
    >>> encode(Pong(server_time=5))
    '{"type":"pong","server_time":5,"ref":null}'
    """
    return _encoder.encode(msg).decode()


# The big messages are framed around JSON parts rendered once per audience (a table's
# `TableInfo`, a seat's `State`, an event): the same shapes as the structs above.
def snapshot_frame(
    v: int, server_time: int, table: str, state: str, sheet: str, lifted: str | int | None = None
) -> str:
    """A `Snapshot` as JSON text, around its parts (each already JSON; ``lifted``, a card's text
    or a call).

    >>> frame = snapshot_frame(3, 1000, '{"id": "k3Xa9Q"}', "null", "[]")
    >>> frame
    '{"type":"snapshot","v":3,"server_time":1000,"table":{"id": "k3Xa9Q"},"state":null,"sheet":[],"lifted":null}'
    >>> msgspec.json.decode(frame)["table"]
    {'id': 'k3Xa9Q'}
    >>> msgspec.json.decode(snapshot_frame(3, 1000, "{}", "null", "[]", "QH"))["lifted"]
    'QH'
    """
    card = "null" if lifted is None else _encoder.encode(lifted).decode()
    return (
        f'{{"type":"snapshot","v":{v},"server_time":{server_time},"table":{table},"state":{state},'
        f'"sheet":{sheet},"lifted":{card}}}'
    )


def event_frame(v: int, server_time: int, event: str, table: str, state: str) -> str:
    """An `EventMessage` as JSON text, around its parts (each already JSON).

    >>> frame = event_frame(5, 1000, '{"kind": "ready", "v": 5, "seat": 0}', '{"id": "k3Xa9Q"}', "null")
    >>> frame
    '{"type":"event","v":5,"server_time":1000,"event":{"kind": "ready", "v": 5, "seat": 0},"table":{"id": "k3Xa9Q"},"state":null}'
    >>> msgspec.json.decode(frame)["event"]
    {'kind': 'ready', 'v': 5, 'seat': 0}
    """
    return f'{{"type":"event","v":{v},"server_time":{server_time},"event":{event},"table":{table},"state":{state}}}'


def synced_frame(v: int, server_time: int, table: str) -> str:
    """A `Synced` message as JSON text, around its table (already JSON).

    >>> synced_frame(7, 1000, '{"id": "k3Xa9Q"}')
    '{"type":"synced","v":7,"server_time":1000,"table":{"id": "k3Xa9Q"}}'
    """
    return f'{{"type":"synced","v":{v},"server_time":{server_time},"table":{table}}}'


def table_frame(v: int, server_time: int, table: str) -> str:
    """A `TableMessage` as JSON text, around its table (already JSON).

    >>> table_frame(7, 1000, '{"id": "k3Xa9Q"}')
    '{"type":"table","v":7,"server_time":1000,"table":{"id": "k3Xa9Q"}}'
    """
    return f'{{"type":"table","v":{v},"server_time":{server_time},"table":{table}}}'


# --- documentation -----------------------------------------------------------------------------
def schema() -> dict[str, Any]:
    """The JSON Schema of the protocol: ``client`` and ``server`` messages, with shared ``$defs``.

    >>> s = schema()
    >>> s["anyOf"], sorted(s["$defs"]["ClientMessage"]["discriminator"]["mapping"])[:4]
    ([{'$ref': '#/$defs/ClientMessage'}, {'$ref': '#/$defs/ServerMessage'}], ['back', 'call', 'end', 'hello'])
    >>> "not_host: only the host may do that" in s["$defs"]["ErrorCode"]["description"]
    True
    """
    (client, server), defs = msgspec.json.schema_components([ClientMessage, ServerMessage])
    for name in _server_parts() & set(defs):  # (what the server sends: no other field; see `_Strict`)
        defs[name]["additionalProperties"] = False
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "callbreak online table protocol (WebSocket /ws/ID)",
        "description": "Generated from callbreak.server.protocol by tools/protocol_schema.py; see docs/protocol.md.",
        "anyOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
        "$defs": {
            **defs,
            "ClientMessage": client,
            "ServerMessage": server,
            "ErrorCode": {**defs["ErrorCode"], "description": "; ".join(f"{c.value}: {m}" for c, m in ERRORS.items())},
        },
    }


def error_table() -> str:
    """The error codes as a Markdown table (``docs/protocol.md`` carries it).

    >>> print(error_table()[:140])
    | code | meaning |
    |---|---|
    | `bad_json` | the message (or HTTP body) is not JSON, or not a JSON object (HTTP) |
    | `bad_message` | a JSON m
    """
    rows = ["| code | meaning |", "|---|---|"]
    rows += [f"| `{c.value}` | {m} |" for c, m in ERRORS.items()]
    return "\n".join(rows) + "\n"
