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
    "Matches",
    "Ok",
    "SeatAnswer",
    "SeatToken",
    "TableView",
    "answer",
    "read_body",
    "schema",
]

#: a name as typed (the server cleans it: control characters out, at most 24 characters)
Name = Annotated[str, msgspec.Meta(max_length=200)]
#: a seat token (32 characters; longer ones are refused without a look-up)
Token = Annotated[str, msgspec.Meta(max_length=64)]


# --- requests --------------------------------------------------------------------------------
class _Body(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class CreateTable(_Body):
    """``POST /api/tables``: every field optional."""

    #: `Ruleset` fields, optionally with ``preset`` (checked by the engine: ``bad_rules``)
    rules: dict[str, Any] | None = None
    #: ``random``, ``easy``, ``medium`` or ``hard`` (``bad_bots``)
    bots: str = "medium"
    name: Name | None = None
    #: the other three seats are bots and the match starts at once
    play_now: bool = False


class JoinTable(_Body):
    """``POST /api/join/CODE``: ``seat`` absent or null: the first free one."""

    name: Name | None = None
    seat: int | None = None


class SeatToken(_Body):
    """``POST /api/tables/ID/start`` (the host) and ``/rematch`` (any player): the seat's token."""

    token: Token


class Practice(_Body):
    """``POST /api/tables/ID/practice``: a new table at the position before action ``step``
    (0-based, calls included) of deal ``deal`` of a finished match; the player takes the seat
    that acted there."""

    deal: Annotated[int, msgspec.Meta(ge=0)]
    step: Annotated[int, msgspec.Meta(ge=0)]
    name: Name | None = None


# --- answers ---------------------------------------------------------------------------------
class SeatAnswer(msgspec.Struct):
    """A seat at a table (created, joined or the rematch): its token and the links to share."""

    table: str
    seat: int
    token: str
    invite: str
    invite_url: str
    watch_url: str
    seat_url: str


class TableView(msgspec.Struct):
    """``GET /api/tables/ID``: the table as a spectator sees it."""

    table: TableInfo
    state: State | None
    sheet: list[RoundRow]
    watch_url: str


class JoinInfo(msgspec.Struct):
    """``GET /api/join/CODE``: what the join page shows."""

    table: str
    status: str
    seats: list[SeatInfo]
    rules: dict[str, Any]
    bots: str
    host: int
    watch_url: str


class Ok(msgspec.Struct):
    ok: bool = True


class MatchRow(msgspec.Struct):
    """One table of ``GET /api/matches``: ``created`` in epoch ms, ``rules`` a preset name or ``custom``."""

    table: str
    seat: int
    status: str
    created: int
    players: list[str | None]
    rules: str
    totals: list[str] | None
    places: list[int] | None


class Matches(msgspec.Struct):
    """``GET /api/matches?token=T1,T2``: the tables of these seat tokens (at most 50)."""

    matches: list[MatchRow]


class HttpError(msgspec.Struct):
    """Every 4xx/5xx answer of the API."""

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
    """The body of a request, validated as ``kind`` (an empty body is ``{}``); `TableError` otherwise."""
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
    """A struct as a JSON response."""
    return Response(_encoder.encode(body), status_code=status, media_type="application/json")


def schema() -> dict[str, Any]:
    """The JSON Schema of the WebSocket protocol (`protocol.schema`) and of the HTTP API's bodies,
    with ``x-http`` naming each route's request and answer."""
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
