"""The bot queue's messages and names: what a table's owner asks a bot worker, and the answer.

In the scaled-out layout (``--bot-queue redis``) a table's owner adds each bot decision to a
Redis stream (`stream_key`) read by the consumer group `GROUP` of ``callbreak bot-worker``
processes on any host; a worker answers on the owner's own channel (`reply_channel`).

A request (`BotRequest`) holds the decision's id, table, version, seat, bot level and seed,
its deadline, and the seat's view as `SeatView.to_dict` writes it: the seat's own hand and
what every seat may see, never another seat's unplayed card.  The answer (`BotReply`) is a
call (an int), a card (``"AS"``) or null (the bot failed: the owner decides itself, and
plays the lowest legal action if that fails too).

>>> from callbreak import Match
>>> from callbreak.server.botpool import BotAsk
>>> m = Match(seed=3)
>>> ask = BotAsk("t1", 4, m.to_act, "medium", 77, m.view(m.to_act))
>>> raw = encode_request(request_of(ask, "cb:bots:r:me", "me:1", deadline_ms=2_000_000_000_000))
>>> req = decode_request(raw)
>>> req.table, req.v, req.seat, req.level, req.seed, view_of(req) == ask.view
('t1', 4, 2, 'medium', 77, True)
>>> decode_reply(encode_reply(BotReply("me:1", action_text(Card.parse("QD")), "w1", False))).action
'QD'
>>> action_of(decode_reply(encode_reply(BotReply("me:1", 3, "w1", True))))
3
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..cards import Card
from ..round import SeatView
from .botpool import BotAsk

__all__ = [
    "GROUP",
    "BotReply",
    "BotRequest",
    "action_of",
    "action_text",
    "decode_reply",
    "decode_request",
    "earlier_of",
    "encode_reply",
    "encode_request",
    "reply_channel",
    "request_of",
    "stream_key",
    "view_of",
]

#: the consumer group of the bot workers on the request stream
GROUP = "workers"


def stream_key(namespace: str) -> str:
    """The request stream of a deployment.

    >>> stream_key("callbreak")
    'callbreak:bots:q'
    """
    return f"{namespace}:bots:q"


def reply_channel(namespace: str, owner: str) -> str:
    """The pub/sub channel on which ``owner`` (a server process) hears its answers.

    >>> reply_channel("callbreak", "host-12-ab")
    'callbreak:bots:r:host-12-ab'
    """
    return f"{namespace}:bots:r:{owner}"


class BotRequest(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """One decision for a bot worker.

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> req = request_of(BotAsk("t1", 4, m.to_act, "medium", 77, m.view(m.to_act)), "r", "me:1", 0)
    >>> req.id, req.table, req.seat, sorted(req.view)[:3]
    ('me:1', 't1', 2, ['calls', 'dealer', 'hand'])
    """

    #: unique per request (the owner's id and a counter): the answer names it
    id: str
    #: where the answer goes (`reply_channel`)
    reply: str
    table: str
    #: the table's version when it asked: the owner uses the answer only while it is still that
    v: int
    seat: int
    level: str
    #: the decision's seed (`autopilot.decision_seed`): the same action on any worker
    seed: int
    #: wall-clock milliseconds (Unix time) after which the owner no longer waits for it
    deadline_ms: int
    #: `SeatView.to_dict` of the seat to act: what that seat may see, nothing more
    view: dict[str, Any]
    #: `SeatView.to_dict` of the seat's view of each finished round of the match, for a bot
    #: that learns from the whole match (`BotAsk.earlier`); else empty
    earlier: list[dict[str, Any]] = []
    #: whether a hard bot's search has the serving wall-clock cap (`BotAsk.capped`)
    capped: bool = True


class BotReply(msgspec.Struct, forbid_unknown_fields=True):
    """A worker's answer.

    >>> BotReply("me:1", "QD", "worker-1", claimed=False)
    BotReply(id='me:1', action='QD', worker='worker-1', claimed=False)
    """

    id: str
    #: a call, a card's text, or None when the bot failed
    action: int | str | None
    #: the worker that decided (its consumer name)
    worker: str
    #: whether the worker took the request over from another that had not answered
    claimed: bool


def request_of(ask: BotAsk, reply: str, rid: str, deadline_ms: int) -> BotRequest:
    """The request for ``ask``: built from the seat's own view only.

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> seat = m.to_act
    >>> req = request_of(BotAsk("t1", 0, seat, "hard", 5, m.view(seat)), "cb:bots:r:me", "me:7", 1_700_000_000_000)
    >>> req.view["hand"] == [str(c) for c in m.view(seat).hand], req.reply, req.deadline_ms
    (True, 'cb:bots:r:me', 1700000000000)
    """
    return BotRequest(
        rid, reply, ask.table, ask.v, ask.seat, ask.level, ask.seed, deadline_ms, ask.view.to_dict(),
        [e.to_dict() for e in ask.earlier], ask.capped,
    )  # fmt: skip


def view_of(req: BotRequest) -> SeatView:
    """The seat's view a request carries (KeyError, TypeError or ValueError when malformed).

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> view = m.view(m.to_act)
    >>> view_of(request_of(BotAsk("t1", 0, m.to_act, "easy", 1, view), "r", "i", 0)) == view
    True
    """
    return SeatView.from_dict(req.view)


def earlier_of(req: BotRequest) -> tuple[SeatView, ...]:
    """The seat's views of the finished rounds a request carries (as `view_of`).

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.round import lowest_action
    >>> from callbreak.server.autopilot import earlier_views
    >>> m = Match(Ruleset.preset("bhoos"), seed=2)
    >>> while m.round_number < 2:
    ...     _ = m.act(lowest_action(m.view(m.to_act)))
    >>> ask = BotAsk("t1", 0, m.to_act, "hard", 1, m.view(m.to_act), earlier_views(m, m.to_act))
    >>> earlier_of(request_of(ask, "r", "i", 0)) == ask.earlier
    True
    """
    return tuple(SeatView.from_dict(e) for e in req.earlier)


_req_enc = msgspec.json.Encoder()
_req_dec = msgspec.json.Decoder(BotRequest)
_rep_dec = msgspec.json.Decoder(BotReply)


def encode_request(req: BotRequest) -> bytes:
    """A request as the stream carries it (JSON).

    >>> encode_request(BotRequest("me:1", "r", "t1", 4, 0, "easy", 9, 0, {}))
    b'{"id":"me:1","reply":"r","table":"t1","v":4,"seat":0,"level":"easy","seed":9,"deadline_ms":0,"view":{}}'
    """
    return _req_enc.encode(req)


def decode_request(raw: bytes | str) -> BotRequest:
    """The request in ``raw``; msgspec.DecodeError (or ValidationError) for anything but a request.

    >>> decode_request(b'{"id":"me:1","reply":"r","table":"t1","v":4,"seat":0,"level":"easy","seed":9,"deadline_ms":0,"view":{}}').v
    4
    >>> decode_request(b'{"id": "me:1"}')
    Traceback (most recent call last):
    ...
    msgspec.ValidationError: Object missing required field `reply`
    """
    return _req_dec.decode(raw)


def encode_reply(rep: BotReply) -> bytes:
    """An answer as the owner's channel carries it (JSON).

    >>> encode_reply(BotReply("me:1", 3, "w1", False))
    b'{"id":"me:1","action":3,"worker":"w1","claimed":false}'
    """
    return _req_enc.encode(rep)


def decode_reply(raw: bytes | str) -> BotReply:
    """The answer in ``raw`` (msgspec.DecodeError or ValidationError for anything else).

    >>> decode_reply(b'{"id":"me:1","action":"AS","worker":"w1","claimed":true}').claimed
    True
    """
    return _rep_dec.decode(raw)


def action_text(action: int | Card | None) -> int | str | None:
    """A bot's action as the answer carries it.

    >>> action_text(Card.parse("TH")), action_text(4), action_text(None)
    ('TH', 4, None)
    """
    return str(action) if isinstance(action, Card) else action


def action_of(rep: BotReply) -> int | Card | None:
    """The action an answer carries (None for a failed bot or a card that does not parse: the
    owner then decides itself, as with no answer).

    >>> action_of(BotReply("i", "AS", "w", False)), action_of(BotReply("i", 2, "w", False))
    (Card('AS'), 2)
    >>> action_of(BotReply("i", "ZZ", "w", False)) is None
    True
    """
    a = rep.action
    if isinstance(a, str):
        try:
            return Card.parse(a)
        except ValueError:
            return None
    return a
