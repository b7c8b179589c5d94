"""The HTTP API's bodies as types: every request and answer of ``/api/...``, once.

Plain `msgspec` structs over the WebSocket protocol's types (`protocol`), with nothing of the
web server: the server validates requests and encodes answers with them (`api.read_body`,
`api.answer`), and a client (the terminal's online table) encodes its requests and decodes the
answers with the same types.

>>> from msgspec.json import decode, encode
>>> encode(JoinTable(name="Asha", seat=2))
b'{"name":"Asha","seat":2}'
>>> decode(b'{"table": "k3Xa9Q", "seat": 2, "token": "tok", "invite": "8hJq2w", "invite_url": "/join/8hJq2w",'
...        b' "watch_url": "/watch/k3Xa9Q", "seat_url": "/t/k3Xa9Q#tok"}', type=SeatAnswer).seat
2
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from .protocol import ErrorCode, RoundRow, SeatInfo, State, TableInfo

__all__ = [
    "CreateTable",
    "HttpError",
    "JoinInfo",
    "JoinTable",
    "MatchRow",
    "MatchTokens",
    "Matches",
    "Ok",
    "Practice",
    "SeatAnswer",
    "SeatToken",
    "TableView",
]

#: a name as typed (the server cleans it: control characters out, at most 32 characters)
Name = Annotated[str, msgspec.Meta(max_length=200)]
#: a seat token (32 characters; longer ones are refused without a look-up)
Token = Annotated[str, msgspec.Meta(max_length=64)]
#: a join's own random text (`JoinTable.attempt`): 16 to 64 letters, digits, "-" or "_" (the
#: table checks it whole, `table.ATTEMPT`: this pattern is searched, and lets a final newline by)
Attempt = Annotated[str, msgspec.Meta(min_length=16, max_length=64, pattern="^[A-Za-z0-9_-]+$")]


# --- requests --------------------------------------------------------------------------------
class _Body(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class CreateTable(_Body, omit_defaults=True):
    """``POST /api/tables``: every field optional; ``lang``, the maker's language, in whose script
    the table's bots are named ("मीना", not "Meena": a Hindi player's try).

    >>> msgspec.json.decode(b'{"rules": {"preset": "nepal"}, "bots": "hard", "name": "Asha", "play_now": true}', type=CreateTable)
    CreateTable(rules={'preset': 'nepal'}, bots='hard', name='Asha', play_now=True, lang=None)
    >>> msgspec.json.decode(b"{}", type=CreateTable)   # every field has a default
    CreateTable(rules=None, bots='medium', name=None, play_now=False, lang=None)
    >>> msgspec.json.encode(CreateTable(name="Asha"))   # (what is not said is left out: a server of before knows no lang)
    b'{"name":"Asha"}'
    """

    #: `Ruleset` fields, optionally with ``preset`` (checked by the engine: ``bad_rules``)
    rules: dict[str, Any] | None = None
    #: ``random``, ``easy``, ``medium`` or ``hard`` (``bad_bots``)
    bots: str = "medium"
    name: Name | None = None
    #: the other three seats are bots and the match starts at once
    play_now: bool = False
    lang: Annotated[str, msgspec.Meta(max_length=16)] | None = None


class JoinTable(_Body, omit_defaults=True):
    """``POST /api/join/CODE``: ``seat`` absent or null: the first free one; ``lang``, the
    joining player's language, in which a player who gives no name is named ("खेलाडी २", not
    "Player 2": a Nepali player's try, from the terminal, which asks no name); ``attempt``, a
    random text the client makes once for a join and sends again with every try of it: a try
    whose answer was lost (a phone's network, a proxy's 504) and is made again gets the seat the
    first one took, its token again, and takes no second seat (a player who tapped "Take a seat"
    twice sat in two seats, or was refused their own name). Kept with the seat, as secret as its
    token.

    >>> msgspec.json.decode(b'{"name": "Ritu"}', type=JoinTable)
    JoinTable(name='Ritu', seat=None, lang=None, attempt=None)
    >>> msgspec.json.encode(JoinTable(name="Ritu"))   # (what is not said is left out: a server of before knows no lang)
    b'{"name":"Ritu"}'
    >>> try:
    ...     msgspec.json.decode(b'{"seat": true}', type=JoinTable)
    ... except msgspec.ValidationError as e:
    ...     print(e)
    Expected `int | null`, got `bool` - at `$.seat`
    >>> try:
    ...     msgspec.json.decode(b'{"attempt": "a b"}', type=JoinTable)
    ... except msgspec.ValidationError as e:
    ...     print(e)
    Expected `str` of length >= 16 - at `$.attempt`
    """

    name: Name | None = None
    seat: int | None = None
    lang: Annotated[str, msgspec.Meta(max_length=16)] | None = None
    attempt: Attempt | None = None


class SeatToken(_Body):
    """``POST /api/tables/ID/start`` (the host) and ``/rematch`` (any player): the seat's token.

    >>> msgspec.json.decode(b'{"token": "Qm9vb3Rva2VuLWZvci1zZWF0LTAxMjM0NTY"}', type=SeatToken).token
    'Qm9vb3Rva2VuLWZvci1zZWF0LTAxMjM0NTY'
    >>> try:
    ...     msgspec.json.decode(b'{"token": "' + b"x" * 65 + b'"}', type=SeatToken)
    ... except msgspec.ValidationError as e:
    ...     print(e)
    Expected `str` of length <= 64 - at `$.token`
    """

    token: Token


class MatchTokens(_Body):
    """``POST /api/matches``: the seat tokens whose tables to list (at most 50), in the body: a
    URL's query is kept by proxies and their logs.

    >>> msgspec.json.decode(b'{"tokens": ["Qm9vb3Rva2VuLWZvci1zZWF0LTAxMjM0NTY"]}', type=MatchTokens).tokens
    ['Qm9vb3Rva2VuLWZvci1zZWF0LTAxMjM0NTY']
    >>> try:
    ...     msgspec.json.decode(msgspec.json.encode(MatchTokens(["t"] * 51)), type=MatchTokens)
    ... except msgspec.ValidationError as e:
    ...     print(e)
    Expected `array` of length <= 50 - at `$.tokens`
    """

    tokens: Annotated[list[Token], msgspec.Meta(max_length=50)]


class Practice(_Body):
    """``POST /api/tables/ID/practice``: a new table at the position before action ``step``
    (0-based, calls included) of deal ``deal`` of a finished match; the player takes the seat
    that acted there.

    >>> msgspec.json.decode(b'{"deal": 2, "step": 9, "name": "Asha"}', type=Practice)
    Practice(deal=2, step=9, name='Asha')
    >>> try:
    ...     msgspec.json.decode(b'{"deal": -1, "step": 0}', type=Practice)
    ... except msgspec.ValidationError as e:
    ...     print(e)
    Expected `int` >= 0 - at `$.deal`
    """

    deal: Annotated[int, msgspec.Meta(ge=0)]
    step: Annotated[int, msgspec.Meta(ge=0)]
    name: Name | None = None


# --- answers ---------------------------------------------------------------------------------
class SeatAnswer(msgspec.Struct):
    """A seat at a table (created, joined or the rematch): its token and the links to share.

    >>> a = SeatAnswer("k3Xa9Q", 1, "tok", "8hJq2w", "/join/8hJq2w", "/watch/k3Xa9Q", "/t/k3Xa9Q#tok")
    >>> msgspec.json.encode(a)
    b'{"table":"k3Xa9Q","seat":1,"token":"tok","invite":"8hJq2w","invite_url":"/join/8hJq2w","watch_url":"/watch/k3Xa9Q","seat_url":"/t/k3Xa9Q#tok"}'
    >>> msgspec.json.decode(msgspec.json.encode(a), type=SeatAnswer) == a
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
    >>> msgspec.json.encode(info)
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

    >>> msgspec.json.encode(Ok())
    b'{"ok":true}'
    """

    ok: bool = True


class MatchRow(msgspec.Struct):
    """One table of ``GET /api/matches``: ``created`` in epoch ms, ``rules`` a preset name or ``custom``,
    ``ruleset`` every field of the rules (a quick table of one round is ``custom`` by name).

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> t, tokens = hub.create_table(Ruleset(), name="Asha", play_now=True)
    >>> row = msgspec.convert(hub.matches([tokens[0]])[0], MatchRow)
    >>> row.seat, row.status, row.players[0], row.rules, row.totals, row.places
    (0, 'playing', 'Asha', 'standard', ['0.0', '0.0', '0.0', '0.0'], None)
    >>> row.ruleset["rounds"], row.ruleset["overtrick_points"]
    (5, '0.1')
    >>> hub.store.close(); hub.hints.close()
    """

    table: str
    seat: int
    status: str
    created: int
    players: list[str | None]
    rules: str
    ruleset: dict[str, Any]
    totals: list[str] | None
    places: list[int] | None


class Matches(msgspec.Struct):
    """``POST /api/matches`` (``GET /api/matches?token=T1,T2`` for pages of before): the tables of
    these seat tokens (at most 50).

    >>> m = Matches([MatchRow("k3Xa9Q", 0, "over", 1_700_000_000_000, ["Asha", "Ritu", "Maya", "Rahul"],
    ...                       "standard", {"rounds": 5}, ["9.2", "-3.0", "12.1", "4.0"], [2, 4, 1, 3])])
    >>> msgspec.json.decode(msgspec.json.encode(m), type=Matches) == m
    True
    >>> msgspec.json.encode(Matches([]))   # no token matched
    b'{"matches":[]}'
    """

    matches: list[MatchRow]


class HttpError(msgspec.Struct):
    """Every 4xx/5xx answer of the API.

    >>> msgspec.json.encode(HttpError(ErrorCode.NO_TABLE, "there is no such table"))
    b'{"error":"no_table","message":"there is no such table"}'
    >>> msgspec.json.decode(b'{"error": "no_table", "message": "there is no such table"}', type=HttpError).error
    <ErrorCode.NO_TABLE: 'no_table'>
    """

    error: ErrorCode
    message: str
