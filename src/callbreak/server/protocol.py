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
    "Ready",
    "Refused",
    "Rematch",
    "RematchAsk",
    "ServerMessage",
    "Snapshot",
    "Start",
    "Synced",
    "TableMessage",
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
    """Every ``code`` the server sends, in an ``error`` message or an HTTP error body."""

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
    NO_PLAYERS = "no_players"
    REMATCH = "rematch"
    NOT_OVER = "not_over"
    BAD_RULES = "bad_rules"
    BAD_BOTS = "bad_bots"
    BAD_FORMAT = "bad_format"
    NO_ANALYSIS = "no_analysis"
    BAD_ENTRY = "bad_entry"
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
    ErrorCode.NO_PLAYERS: "starting a table at which nobody is seated",
    ErrorCode.REMATCH: "this table already has a rematch",
    ErrorCode.NOT_OVER: "the hand history is ready once the match is over",
    ErrorCode.BAD_RULES: "a bad rules field or value (the engine's message)",
    ErrorCode.BAD_BOTS: "an unknown bot level",
    ErrorCode.BAD_FORMAT: "a history format other than `text`, `json` or `log`",
    ErrorCode.NO_ANALYSIS: "the match has not been analysed yet (`POST` the same path to start)",
    ErrorCode.BAD_ENTRY: "a log entry the server wrote is malformed (a server bug; no client message causes it)",
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
    """First message (and again after a gap): the last version seen (0 or none: a snapshot)."""

    since: int | None = None


class Ping(_Client, tag="ping"):
    """Keep-alive: answered with a `Pong`."""


class Call(_Client, tag="call"):
    """The seat's call."""

    call: int


class Play(_Client, tag="play"):
    """The seat's card, as text (``AS``)."""

    card: Annotated[str, msgspec.Meta(max_length=4)]


class Ready(_Client, tag="ready"):
    """Between rounds: ready for the next deal (ignored once it has started)."""


class Start(_Client, tag="start"):
    """The host, in the lobby: start (empty seats get bots)."""


class Leave(_Client, tag="leave"):
    """A player (not the host), in the lobby: free the seat; its token stops working."""


class Hint(_Client, tag="hint"):
    """On the seat's turn: a suggested call or card (a `HintMessage`)."""


class Back(_Client, tag="back"):
    """Take the seat back from the bot playing it."""


class RematchAsk(_Client, tag="rematch"):
    """Once the match is over: the same people at a new table (a `Rematch` each)."""


class End(_Client, tag="end"):
    """The host, between rounds of an endless table (``rules.rounds`` null): end the match."""


ClientMessage = Hello | Ping | Call | Play | Ready | Start | Leave | Hint | Back | RematchAsk | End

#: ``type`` -> its struct
CLIENT_TYPES: dict[str, type[_Client]] = {
    c.__struct_config__.tag: c  # type: ignore[misc]
    for c in (Hello, Ping, Call, Play, Ready, Start, Leave, Hint, Back, RematchAsk, End)
}

#: a bad field of these names has a code of its own (else `bad_message`)
_FIELD_CODES = {"call": ErrorCode.BAD_CALL, "card": ErrorCode.BAD_CARD}

_decoder = msgspec.json.Decoder(ClientMessage)
_any = msgspec.json.Decoder()


class Refused(Exception):
    """A message refused at the edge: its `code`, a text for people, and its valid ``ref``."""

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
class _Strict(msgspec.Struct, forbid_unknown_fields=True):
    pass


class SeatInfo(_Strict):
    name: str | None
    kind: Literal["human", "bot", "empty"]
    level: str | None
    connected: bool
    autoplay: bool
    ready: bool


class TableInfo(_Strict):
    """``TABLE``: the table as this connection may see it."""

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


class RoundRow(_Strict):
    """One finished round of the score sheet."""

    round: int
    dealer: int
    calls: list[int | None]
    tricks_won: list[int]
    points: list[str]


class TrickRecord(_Strict):
    leader: int
    cards: list[str]
    winner: int | None


class State(_Strict):
    """``STATE``: the engine's view for this seat (spectators: seat -1, no hand)."""

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
    name: str | None
    kind: Literal["human", "bot", "empty"]
    level: str | None


class Seated(_Event, tag="seated"):
    seat: int
    name: str


class Left(_Event, tag="left"):
    seat: int


class Started(_Event, tag="start"):
    seats: list[SeatRecord]


class Dealt(_Event, tag="deal"):
    round: int
    dealer: int
    sudden_death: bool


Reason = Literal["timeout", "forced", "autoplay"] | None


class Called(_Event, tag="call"):
    round: int
    seat: int
    call: int
    auto: bool
    reason: Reason


class Played(_Event, tag="play"):
    round: int
    seat: int
    card: str
    auto: bool
    reason: Reason


class TrickDone(_Event, tag="trick"):
    round: int
    number: int
    winner: int
    cards: list[tuple[int, str]]


class Redealt(_Event, tag="redeal"):
    round: int
    dealer: int
    calls: list[int | None]


class RoundOver(_Event, tag="round_over"):
    round: int
    calls: list[int | None]
    tricks_won: list[int]
    points: list[str]
    totals: list[str]
    next_sudden_death: bool


class ReadyEvent(_Event, tag="ready"):
    seat: int


class Autoplay(_Event, tag="autoplay"):
    seat: int
    on: bool
    reason: Literal["timeout", "disconnected"] | None


class MatchOver(_Event, tag="match_over"):
    places: list[int]
    totals: list[str]
    reason: Literal["idle"] | None


class TieBreak(_Event, tag="tie_break"):
    totals: list[str]


class RematchEvent(_Event, tag="rematch"):
    table: str


class Expired(_Event, tag="expired"):
    pass


class Abandoned(_Event, tag="abandoned"):
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
    """The whole table as this connection may see it (and the score sheet)."""

    v: int
    server_time: int
    table: TableInfo
    state: State | None
    sheet: list[RoundRow]


class EventMessage(_Server, tag="event"):
    """One event of the log, filtered for this seat, with the state right after it."""

    v: int
    server_time: int
    event: Event
    table: TableInfo
    state: State | None


class Synced(_Server, tag="synced"):
    """After ``hello``: the connection is up to date."""

    v: int
    server_time: int
    table: TableInfo


class TableMessage(_Server, tag="table"):
    """A change outside the game (connections, deadlines, spectators)."""

    v: int
    server_time: int
    table: TableInfo


class HintMessage(_Server, tag="hint"):
    """The answer to a `Hint`: a call (with its chance of being made) or a card."""

    v: int
    call: int | None
    chance: float | None
    card: str | None
    reason: str
    level: str
    ref: Ref | None = None


class Error(_Server, tag="error", omit_defaults=True):
    """A refusal: nothing changed.  ``v`` is the table's version (absent before a connection
    has a table); ``ref`` echoes the refused message's."""

    code: ErrorCode
    message: str
    v: int | None = None
    ref: Ref | None = None


class Pong(_Server, tag="pong"):
    server_time: int
    ref: Ref | None = None


class Rematch(_Server, tag="rematch", omit_defaults=True):
    """Private to its seat: its token at the rematch table."""

    table: str
    token: str
    seat: int
    ref: Ref | None = None


ServerMessage = Snapshot | EventMessage | Synced | TableMessage | HintMessage | Error | Pong | Rematch

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
def snapshot_frame(v: int, server_time: int, table: str, state: str, sheet: str) -> str:
    return f'{{"type":"snapshot","v":{v},"server_time":{server_time},"table":{table},"state":{state},"sheet":{sheet}}}'


def event_frame(v: int, server_time: int, event: str, table: str, state: str) -> str:
    return f'{{"type":"event","v":{v},"server_time":{server_time},"event":{event},"table":{table},"state":{state}}}'


def synced_frame(v: int, server_time: int, table: str) -> str:
    return f'{{"type":"synced","v":{v},"server_time":{server_time},"table":{table}}}'


def table_frame(v: int, server_time: int, table: str) -> str:
    return f'{{"type":"table","v":{v},"server_time":{server_time},"table":{table}}}'


# --- documentation -----------------------------------------------------------------------------
def schema() -> dict[str, Any]:
    """The JSON Schema of the protocol: ``client`` and ``server`` messages, with shared ``$defs``."""
    (client, server), defs = msgspec.json.schema_components([ClientMessage, ServerMessage])
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
    """The error codes as a Markdown table (``docs/protocol.md`` carries it)."""
    rows = ["| code | meaning |", "|---|---|"]
    rows += [f"| `{c.value}` | {m} |" for c, m in ERRORS.items()]
    return "\n".join(rows) + "\n"
