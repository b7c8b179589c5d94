"""The HTTP API's bodies as types: every request and answer of ``/api/...``, once.

Request bodies are decoded and validated at the edge by `read_body`: a body that is not a
JSON object, has a field the route does not know, or a field of the wrong type is refused
(HTTP 400, or 403 for a token) with an `ErrorCode` and changes nothing.  Answers are these
structs encoded (`answer`); the ones that carry a table (`TableView`, `JoinInfo`) are built
from the same `TableInfo`, `State` and `RoundRow` as the WebSocket's messages.  `schema` is
the JSON Schema of the WebSocket protocol and of these bodies (``docs/protocol.schema.json``,
written by ``tools/protocol_schema.py``); `ROUTES` says which body goes with which route.

>>> read_body(b'{"name": "Asha", "seat": 2}', JoinTable)
JoinTable(name='Asha', seat=2)
>>> for bad in (b'[1]', b'{"seat": "two"}', b'{"colour": "red"}', b'{x'):
...     try:
...         read_body(bad, JoinTable)
...     except TableError as e:
...         print(e.code)
bad_json
bad_seat
bad_message
bad_json
>>> answer(Ok()).body
b'{"ok":true}'
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

import msgspec
from starlette.responses import Response

from . import protocol
from .analysis import AnalysisStatus
from .protocol import ErrorCode, RoundRow, SeatInfo, State, TableInfo, _bad_field
from .table import TableError

__all__ = [
    "ROUTES",
    "CreateTable",
    "HttpError",
    "JoinInfo",
    "JoinTable",
    "MatchRow",
    "MatchTokens",
    "Matches",
    "Ok",
    "SeatAnswer",
    "SeatToken",
    "TableView",
    "answer",
    "read_body",
    "schema",
]

#: a name as typed (the server cleans it: control characters out, at most 32 characters)
Name = Annotated[str, msgspec.Meta(max_length=200)]
#: a seat token (32 characters; longer ones are refused without a look-up)
Token = Annotated[str, msgspec.Meta(max_length=64)]


# --- requests --------------------------------------------------------------------------------
class _Body(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class CreateTable(_Body):
    """``POST /api/tables``: every field optional.

    >>> read_body(b'{"rules": {"preset": "nepal"}, "bots": "hard", "name": "Asha", "play_now": true}', CreateTable)
    CreateTable(rules={'preset': 'nepal'}, bots='hard', name='Asha', play_now=True)
    >>> read_body(b"", CreateTable)   # every field has a default
    CreateTable(rules=None, bots='medium', name=None, play_now=False)
    """

    #: `Ruleset` fields, optionally with ``preset`` (checked by the engine: ``bad_rules``)
    rules: dict[str, Any] | None = None
    #: ``random``, ``easy``, ``medium`` or ``hard`` (``bad_bots``)
    bots: str = "medium"
    name: Name | None = None
    #: the other three seats are bots and the match starts at once
    play_now: bool = False


class JoinTable(_Body):
    """``POST /api/join/CODE``: ``seat`` absent or null: the first free one.

    >>> read_body(b'{"name": "Ritu"}', JoinTable)
    JoinTable(name='Ritu', seat=None)
    >>> try:
    ...     read_body(b'{"seat": true}', JoinTable)
    ... except TableError as e:
    ...     print(e.code)
    bad_seat
    """

    name: Name | None = None
    seat: int | None = None


class SeatToken(_Body):
    """``POST /api/tables/ID/start`` (the host) and ``/rematch`` (any player): the seat's token.

    >>> read_body(b'{"token": "Qm9vb3Rva2VuLWZvci1zZWF0LTAxMjM0NTY"}', SeatToken).token
    'Qm9vb3Rva2VuLWZvci1zZWF0LTAxMjM0NTY'
    >>> try:
    ...     read_body(b'{"token": "' + b"x" * 65 + b'"}', SeatToken)
    ... except TableError as e:
    ...     print(e.code)
    bad_token
    """

    token: Token


class MatchTokens(_Body):
    """``POST /api/matches``: the seat tokens whose tables to list (at most 50), in the body: a
    URL's query is kept by proxies and their logs.

    >>> read_body(b'{"tokens": ["Qm9vb3Rva2VuLWZvci1zZWF0LTAxMjM0NTY"]}', MatchTokens).tokens
    ['Qm9vb3Rva2VuLWZvci1zZWF0LTAxMjM0NTY']
    >>> try:
    ...     read_body(b'{"tokens": ' + str(["t"] * 51).replace("'", '"').encode() + b'}', MatchTokens)
    ... except TableError as e:
    ...     print(e.code)
    bad_message
    """

    tokens: Annotated[list[Token], msgspec.Meta(max_length=50)]


class Practice(_Body):
    """``POST /api/tables/ID/practice``: a new table at the position before action ``step``
    (0-based, calls included) of deal ``deal`` of a finished match; the player takes the seat
    that acted there.

    >>> read_body(b'{"deal": 2, "step": 9, "name": "Asha"}', Practice)
    Practice(deal=2, step=9, name='Asha')
    >>> try:
    ...     read_body(b'{"deal": -1, "step": 0}', Practice)
    ... except TableError as e:
    ...     print(e.code, "|", e.message)
    bad_message | bad request body: Expected `int` >= 0 - at `$.deal`
    """

    deal: Annotated[int, msgspec.Meta(ge=0)]
    step: Annotated[int, msgspec.Meta(ge=0)]
    name: Name | None = None


# --- answers ---------------------------------------------------------------------------------
class SeatAnswer(msgspec.Struct):
    """A seat at a table (created, joined or the rematch): its token and the links to share.

    >>> a = SeatAnswer("k3Xa9Q", 1, "tok", "8hJq2w", "/join/8hJq2w", "/watch/k3Xa9Q", "/t/k3Xa9Q#tok")
    >>> answer(a).body
    b'{"table":"k3Xa9Q","seat":1,"token":"tok","invite":"8hJq2w","invite_url":"/join/8hJq2w","watch_url":"/watch/k3Xa9Q","seat_url":"/t/k3Xa9Q#tok"}'
    >>> msgspec.json.decode(answer(a).body, type=SeatAnswer) == a
    True
    """

    table: str
    seat: int
    token: str
    invite: str
    invite_url: str
    watch_url: str
    seat_url: str


class TableView(msgspec.Struct):
    """``GET /api/tables/ID``: the table as a spectator sees it.

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> t, tokens = hub.create_table(Ruleset(), name="Asha", play_now=True)
    >>> view = msgspec.convert({"table": t.table_info(-1), "state": t.state.state(-1), "sheet": t.state.sheet(),
    ...                         "watch_url": f"/watch/{t.id}"}, TableView)
    >>> view.table.status, [s.kind for s in view.table.seats], view.state.hand, view.state.hand_sizes
    ('playing', ['human', 'bot', 'bot', 'bot'], [], [13, 13, 13, 13])
    >>> hub.store.close(); hub.hints.close()
    """

    table: TableInfo
    state: State | None
    sheet: list[RoundRow]
    watch_url: str


class JoinInfo(msgspec.Struct):
    """``GET /api/join/CODE``: what the join page shows.

    >>> info = msgspec.convert({"table": "k3Xa9Q", "status": "lobby", "seats": [], "rules": {"rounds": 5},
    ...                         "bots": "medium", "host": 0, "watch_url": "/watch/k3Xa9Q"}, JoinInfo)
    >>> answer(info).body
    b'{"table":"k3Xa9Q","status":"lobby","seats":[],"rules":{"rounds":5},"bots":"medium","host":0,"watch_url":"/watch/k3Xa9Q"}'
    """

    table: str
    status: str
    seats: list[SeatInfo]
    rules: dict[str, Any]
    bots: str
    host: int
    watch_url: str


class Ok(msgspec.Struct):
    """The answer of a request that has nothing more to say.

    >>> answer(Ok()).body, answer(Ok()).status_code
    (b'{"ok":true}', 200)
    """

    ok: bool = True


class MatchRow(msgspec.Struct):
    """One table of ``GET /api/matches``: ``created`` in epoch ms, ``rules`` a preset name or ``custom``.

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> t, tokens = hub.create_table(Ruleset(), name="Asha", play_now=True)
    >>> row = msgspec.convert(hub.matches([tokens[0]])[0], MatchRow)
    >>> row.seat, row.status, row.players[0], row.rules, row.totals, row.places
    (0, 'playing', 'Asha', 'standard', ['0.0', '0.0', '0.0', '0.0'], None)
    >>> hub.store.close(); hub.hints.close()
    """

    table: str
    seat: int
    status: str
    created: int
    players: list[str | None]
    rules: str
    totals: list[str] | None
    places: list[int] | None


class Matches(msgspec.Struct):
    """``POST /api/matches`` (``GET /api/matches?token=T1,T2`` for pages of before): the tables of
    these seat tokens (at most 50).

    >>> m = Matches([MatchRow("k3Xa9Q", 0, "over", 1_700_000_000_000, ["Asha", "Ritu", "Maya", "Rahul"],
    ...                       "standard", ["9.2", "-3.0", "12.1", "4.0"], [2, 4, 1, 3])])
    >>> msgspec.json.decode(answer(m).body, type=Matches) == m
    True
    >>> answer(Matches([])).body   # no token matched
    b'{"matches":[]}'
    """

    matches: list[MatchRow]


class HttpError(msgspec.Struct):
    """Every 4xx/5xx answer of the API.

    >>> r = answer(HttpError(ErrorCode.NO_TABLE, "there is no such table"), 404)
    >>> r.status_code, r.body
    (404, b'{"error":"no_table","message":"there is no such table"}')
    """

    error: ErrorCode
    message: str


#: route -> (request body, answer); None: no body
ROUTES: dict[str, tuple[type[msgspec.Struct] | None, type[msgspec.Struct]]] = {
    "POST /api/tables": (CreateTable, SeatAnswer),
    "GET /api/tables/ID": (None, TableView),
    "GET /api/join/CODE": (None, JoinInfo),
    "POST /api/join/CODE": (JoinTable, SeatAnswer),
    "POST /api/tables/ID/start": (SeatToken, Ok),
    "POST /api/tables/ID/rematch": (SeatToken, SeatAnswer),
    "GET /api/matches": (None, Matches),
    "POST /api/matches": (MatchTokens, Matches),
    "GET /api/tables/ID/analysis": (None, AnalysisStatus),
    "POST /api/tables/ID/analysis": (None, AnalysisStatus),
    "POST /api/tables/ID/practice": (Practice, SeatAnswer),
}

#: a bad field of these names has a code of its own (else ``bad_message``)
_FIELD_CODES = {
    "rules": ErrorCode.BAD_RULES,
    "bots": ErrorCode.BAD_BOTS,
    "seat": ErrorCode.BAD_SEAT,
    "token": ErrorCode.BAD_TOKEN,
}

B = TypeVar("B", bound=_Body)


def read_body(raw: bytes, kind: type[B]) -> B:
    """The body of a request, validated as ``kind`` (an empty body is ``{}``); `TableError` otherwise.

    >>> read_body(b'{"seat": 3}', JoinTable), read_body(b"  ", JoinTable)
    (JoinTable(name=None, seat=3), JoinTable(name=None, seat=None))
    >>> try:
    ...     read_body(b'{"bots": 3}', CreateTable)
    ... except TableError as e:
    ...     print(e.code, "|", e.message)
    bad_bots | bad request body: Expected `str`, got `int` - at `$.bots`
    """
    try:
        return msgspec.json.decode(raw if raw.strip() else b"{}", type=kind)
    except msgspec.ValidationError as e:
        problem = str(e)
    except msgspec.DecodeError:
        raise TableError(ErrorCode.BAD_JSON, "the body must be a JSON object") from None
    field = _bad_field(problem)
    if not field and problem.startswith("Expected `object`"):
        raise TableError(ErrorCode.BAD_JSON, "the body must be a JSON object")
    code = _FIELD_CODES.get(field, ErrorCode.BAD_MESSAGE)
    raise TableError(code, f"bad request body: {problem}")


_encoder = msgspec.json.Encoder()


def answer(body: msgspec.Struct, status: int = 200) -> Response:
    """A struct as a JSON response.

    >>> r = answer(Ok(), 201)
    >>> r.status_code, r.media_type, r.body
    (201, 'application/json', b'{"ok":true}')
    """
    return Response(_encoder.encode(body), status_code=status, media_type="application/json")


def schema() -> dict[str, Any]:
    """The JSON Schema of the WebSocket protocol (`protocol.schema`) and of the HTTP API's bodies,
    with ``x-http`` naming each route's request and answer.

    >>> s = schema()
    >>> s["x-http"]["POST /api/join/CODE"]
    {'request': {'$ref': '#/$defs/JoinTable'}, 'answer': {'$ref': '#/$defs/SeatAnswer'}, 'error': {'$ref': '#/$defs/HttpError'}}
    >>> sorted(s["$defs"]["JoinTable"]["properties"])
    ['name', 'seat']
    """
    doc = protocol.schema()
    types = sorted({t for pair in ROUTES.values() for t in pair if t is not None} | {HttpError}, key=lambda t: t.__name__)
    _, defs = msgspec.json.schema_components(types)
    for name, d in defs.items():
        doc["$defs"].setdefault(name, d)
    doc["title"] = "callbreak online table protocol (WebSocket /ws/ID) and HTTP API (/api/...)"

    def ref(t: type[msgspec.Struct] | None) -> dict[str, str] | None:
        return None if t is None else {"$ref": f"#/$defs/{t.__name__}"}

    doc["x-http"] = {
        route: {"request": ref(req), "answer": ref(ans), "error": ref(HttpError)} for route, (req, ans) in ROUTES.items()
    }
    return doc
