"""The HTTP API's bodies at the server's edge: the types of every request and answer of
``/api/...`` are `bodies`'; this module reads requests and writes answers with them.

Request bodies are decoded and validated at the edge by `read_body`: a body that is not a
JSON object, has a field the route does not know, or a field of the wrong type is refused
(HTTP 400, or 403 for a token) with an `ErrorCode` and changes nothing.  Answers are these
structs encoded (`answer`); the ones that carry a table (`TableView`, `JoinInfo`) are built
from the same `TableInfo`, `State` and `RoundRow` as the WebSocket's messages.  `schema` is
the JSON Schema of the WebSocket protocol and of these bodies (``docs/protocol.schema.json``,
written by ``tools/protocol_schema.py``); `ROUTES` says which body goes with which route.

>>> read_body(b'{"name": "Asha", "seat": 2}', JoinTable)
JoinTable(name='Asha', seat=2, lang=None, attempt=None)
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

from typing import Any, TypeVar

import msgspec
from starlette.responses import Response

from . import protocol
from .analysis import AnalysisStatus
from .bodies import (
    CreateTable,
    HttpError,
    JoinInfo,
    JoinTable,
    Matches,
    MatchTokens,
    Ok,
    Practice,
    SeatAnswer,
    SeatToken,
    TableView,
)
from .protocol import ErrorCode, _bad_field
from .table import TableError

__all__ = ["ROUTES", "answer", "read_body", "schema"]

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

B = TypeVar("B", bound=msgspec.Struct)


def read_body(raw: bytes, kind: type[B]) -> B:
    """The body of a request, validated as ``kind`` (an empty body is ``{}``); `TableError` otherwise.

    >>> read_body(b'{"seat": 3}', JoinTable), read_body(b"  ", JoinTable)
    (JoinTable(name=None, seat=3, lang=None, attempt=None), JoinTable(name=None, seat=None, lang=None, attempt=None))
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
    ['attempt', 'lang', 'name', 'seat']
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
