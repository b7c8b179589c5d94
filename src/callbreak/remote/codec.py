"""The Bhoos Callbreak AI tournament's JSON, both ways.

A request carries everything its seat may know: ``playerId``, ``playerIds``
(in order of play), ``cards`` (the seat's hand), ``context`` (``round`` and per
player ``totalPoints``, ``bid``, ``won``), and for ``/play`` also ``played`` (this
trick so far), ``history`` (``[leader index, [four cards from the leader],
winner index]`` per finished trick) and ``timeBudget`` (milliseconds left to the
bot for the round).  A bid of ``0`` means "has not called yet".

`view_to_request` turns a `SeatView` into that JSON; `parse_request` rebuilds the
`SeatView` from the JSON alone (no memory between requests), checking every field:
anything malformed or impossible raises `ValueError` naming the problem.  Its seats
are numbered round the table from the least player id, so that a player keeps its
seat from request to request however the list is started.

>>> from callbreak import Match, Ruleset
>>> m = Match(Ruleset.preset("bhoos"), seed=3)
>>> v = m.view(m.to_act)
>>> path, body = view_to_request(v, time_budget_ms=1500)
>>> path, body["playerIds"], len(body["cards"])
('/bid', ['P0', 'P1', 'P2', 'P3'], 13)
>>> parse_request(path, body, Ruleset.preset("bhoos")).view == v
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, TypedDict

from ..bots.knowledge import Knowledge
from ..cards import CARDS, FULL_DECK, Card, cards_of
from ..round import Round, SeatView, trick_winner
from ..rules import Ruleset

__all__ = [
    "DEFAULT_IDS",
    "Answer",
    "BidRequest",
    "Context",
    "ErrorAnswer",
    "ParsedRequest",
    "PlayRequest",
    "PlayerContext",
    "Reply",
    "card_from_bhoos",
    "card_to_bhoos",
    "parse_request",
    "parse_response",
    "view_to_request",
    "why_illegal_bhoos",
]

DEFAULT_IDS: tuple[str, str, str, str] = ("P0", "P1", "P2", "P3")
_RANKS = "23456789TJQK1"
_RANK_INDEX = {ch: i for i, ch in enumerate(_RANKS)}
_RANK_INDEX["A"] = 12
_SUIT_INDEX = {"S": 0, "H": 1, "D": 2, "C": 3}


class PlayerContext(TypedDict):
    """What a request tells of one player: ``bid`` 0 until it has called.

    >>> PlayerContext(totalPoints=3.2, bid=3, won=1)
    {'totalPoints': 3.2, 'bid': 3, 'won': 1}
    """

    totalPoints: int | float
    bid: int
    won: int


class Context(TypedDict):
    """A request's ``context``: the round (from 1) and each player by id.

    >>> Context(round=1, players={"P0": PlayerContext(totalPoints=0, bid=0, won=0)})["players"]["P0"]["bid"]
    0
    """

    round: int
    players: dict[str, PlayerContext]


class _Request(TypedDict):
    playerId: str
    #: in order of play
    playerIds: list[str]
    #: the seat's hand
    cards: list[str]
    context: Context


class BidRequest(_Request, total=False):
    """The body of ``/bid`` (`view_to_request` writes it; `parse_request` reads and checks one):
    ``timeBudget``, milliseconds left to the bot for the round, is optional here.

    >>> from callbreak import Match
    >>> m = Match(seed=1)
    >>> path, body = view_to_request(m.view(m.to_act))
    >>> path, sorted(body)
    ('/bid', ['cards', 'context', 'playerId', 'playerIds'])
    """

    timeBudget: int


class PlayRequest(_Request):
    """The body of ``/play``: a `BidRequest`'s fields, this trick's cards so far, each finished
    trick as ``[leader index, [four cards from the leader], winner index]``, and ``timeBudget``,
    which the tournament always sends with it.

    >>> from callbreak import Match
    >>> m = Match(seed=1)
    >>> for _ in range(4):
    ...     _ = m.call(2)
    >>> path, body = view_to_request(m.view(m.to_act), time_budget_ms=1400)
    >>> path, body["played"], body["history"], body["timeBudget"]
    ('/play', [], [], 1400)
    """

    timeBudget: int
    played: list[str]
    history: list[tuple[int, list[str], int]]


class Answer(TypedDict):
    """A bot's answer: a call (``/bid``) or a card in the tournament's form (``/play``).

    >>> parse_response("/bid", Answer(value=3))
    3
    """

    value: int | str


class ErrorAnswer(TypedDict):
    """What `callbreak bot serve` answers a request it cannot: the reason, in words.

    >>> ErrorAnswer(error="warming up")
    {'error': 'warming up'}
    """

    error: str


#: what `callbreak bot serve` answers
Reply = Answer | ErrorAnswer


def card_to_bhoos(card: Card | int) -> str:
    """``1S`` for the ace of spades, ``TH`` for the ten of hearts.

    >>> card_to_bhoos(Card.parse("AS")), card_to_bhoos(Card.parse("10H"))
    ('1S', 'TH')
    """
    return CARDS[int(card)].bhoos


def card_from_bhoos(text: object, where: str = "card") -> Card:
    """Read a tournament card: two characters, rank ``1 K Q J T 9..2`` (``A`` also
    accepted), then suit ``S H D C``.

    >>> card_from_bhoos("1S"), card_from_bhoos("TH")
    (Card('AS'), Card('TH'))
    >>> card_from_bhoos("10H")
    Traceback (most recent call last):
    ...
    ValueError: card: unknown card '10H' (cards are two characters like '1S', 'TH', '9D')
    """
    if isinstance(text, str) and len(text) == 2:
        r = _RANK_INDEX.get(text[0])
        s = _SUIT_INDEX.get(text[1])
        if r is not None and s is not None:
            return CARDS[s * 13 + r]
    raise ValueError(f"{where}: unknown card {text!r} (cards are two characters like '1S', 'TH', '9D')")


def why_illegal_bhoos(view: SeatView, answer: int | Card) -> str:
    """Why ``answer`` (a call, or a card) may not be made at ``view``, in the engine's words with
    the card in the tournament's notation ("1S", not "AS"): what `bot check` and the arena tell a
    bot served over HTTP.

    >>> from callbreak import Match
    >>> m = Match(seed=1)
    >>> view = m.view(m.to_act)
    >>> for n in (1, 1, 1, 1): _ = m.act(n)
    >>> view = m.view(m.to_act)
    >>> stranger = next(c for c in CARDS if c not in view.hand)
    >>> why_illegal_bhoos(view, stranger) == f"seat {view.seat} does not hold {stranger.bhoos}"
    True
    """
    why = str(view.why_illegal(answer))
    return why.replace(str(answer), answer.bhoos) if isinstance(answer, Card) else why


def _points_json(p: Decimal) -> int | float:
    return int(p) if p == p.to_integral_value() else float(p)


def view_to_request(
    view: SeatView,
    player_ids: Sequence[str] = DEFAULT_IDS,
    time_budget_ms: int | None = None,
) -> tuple[str, BidRequest | PlayRequest]:
    """The path (``/bid`` or ``/play``) and JSON body the tournament sends ``view.seat``.

    Built from the view alone: the only cards in it are the seat's own hand and
    cards already played.  ``timeBudget`` is sent with both kinds of request when
    given; ``/play`` must have one (the tournament always sends it, and `parse_request`
    refuses a ``/play`` without): a playing view without ``time_budget_ms`` is a `ValueError`.

    >>> from callbreak import Match
    >>> m = Match(seed=1)
    >>> path, body = view_to_request(m.view(m.to_act), time_budget_ms=1500)
    >>> path, body["playerId"], len(body["cards"]), body["context"]["round"], body["timeBudget"]
    ('/bid', 'P2', 13, 1, 1500)
    >>> parse_request(path, body).view.hand == m.view(m.to_act).hand   # the seat's own cards, no others
    True
    """
    if view.phase not in ("calling", "playing") or view.to_act != view.seat:
        raise ValueError(f"seat {view.seat} has nothing to do (phase {view.phase!r}, to act {view.to_act})")
    ids = [str(i) for i in player_ids]
    if len(ids) != 4 or len(set(ids)) != 4:
        raise ValueError(f"player_ids must be four distinct ids, not {player_ids!r}")
    totals = view.totals or (Decimal(0),) * 4
    players = {
        ids[s]: PlayerContext(totalPoints=_points_json(totals[s]), bid=view.calls[s] or 0, won=view.tricks_won[s])
        for s in range(4)
    }
    me, hand = ids[view.seat], [c.bhoos for c in view.hand]
    context = Context(round=view.round_number, players=players)
    if view.phase == "calling":
        bid = BidRequest(playerId=me, playerIds=ids, cards=hand, context=context)
        if time_budget_ms is not None:
            bid["timeBudget"] = int(time_budget_ms)
        return "/bid", bid
    if time_budget_ms is None:
        raise ValueError("a /play request carries the bot's time left (timeBudget): give time_budget_ms")
    play = PlayRequest(
        playerId=me,
        playerIds=ids,
        cards=hand,
        context=context,
        timeBudget=int(time_budget_ms),
        played=[c.bhoos for _, c in view.trick],
        history=[(t.leader, [c.bhoos for c in t.cards], t.winner) for t in view.tricks],
    )
    return "/play", play


@dataclass(frozen=True, slots=True)
class ParsedRequest:
    """A request read back: the seat's view, its time budget (ms, or None) and the ids,
    round the table from the least (the seats of the view are numbered so, whichever
    player the request's ``playerIds`` start with).

    >>> from callbreak import Match
    >>> m = Match(seed=1)
    >>> req = parse_request(*view_to_request(m.view(m.to_act), time_budget_ms=900))
    >>> req.view.seat == m.to_act, req.time_budget_ms, req.player_ids == DEFAULT_IDS
    (True, 900, True)
    """

    view: SeatView
    time_budget_ms: int | None
    player_ids: tuple[str, ...]


def _field(obj: Mapping[str, Any], name: str, where: str = "") -> Any:
    if name not in obj:
        raise ValueError(f"missing field {where}{name!r}")
    return obj[name]


def _int(v: object, name: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        else:
            raise ValueError(f"{name} must be a whole number, not {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        if hi is None:
            raise ValueError(f"{name} must be at least {lo}, not {v}")
        if lo is None:
            raise ValueError(f"{name} must be at most {hi}, not {v}")
        raise ValueError(f"{name} must be in {lo}..{hi}, not {v}")
    return v


def _cards(v: object, name: str) -> list[Card]:
    if not isinstance(v, list):
        raise ValueError(f"{name} must be a list of cards, not {v!r}")
    out = [card_from_bhoos(x, name) for x in v]
    if len(set(out)) != len(out):
        dup = next(c for c in out if out.count(c) > 1)
        raise ValueError(f"{name}: duplicate card {dup.bhoos}")
    return out


def parse_request(path: str, body: object, rules: Ruleset | None = None) -> ParsedRequest:
    """Rebuild the seat's `SeatView` from a ``/bid`` or ``/play`` request alone.

    Raises `ValueError` naming the problem for a missing field, an unknown or
    duplicate card, a hand of the wrong size or holding a played card, a
    history that does not add up (wrong winner, wrong leader, counts that
    disagree with ``context``), or a request for a seat whose turn it is not.

    >>> parse_request("/bid", {"playerId": "a"}, Ruleset.preset("bhoos"))
    Traceback (most recent call last):
    ...
    ValueError: missing field 'playerIds'
    """
    if rules is None:
        rules = Ruleset.preset("bhoos")
    kind = path.rstrip("/").rsplit("/", 1)[-1]
    if kind not in ("bid", "play"):
        raise ValueError(f"unknown request {path!r} (expected /bid or /play)")
    if not isinstance(body, dict):
        raise ValueError("the request body must be a JSON object")

    # --- players ------------------------------------------------------------
    ids = _field(body, "playerIds")
    if not isinstance(ids, list) or len(ids) != 4 or not all(isinstance(i, str) for i in ids):
        raise ValueError(f"playerIds must be a list of four ids, not {ids!r}")
    if len(set(ids)) != 4:
        raise ValueError(f"playerIds repeats an id: {ids!r}")
    me = _field(body, "playerId")
    if me not in ids:
        raise ValueError(f"playerId {me!r} is not one of playerIds")
    # the seats are numbered round the table from the least id, whichever player the list
    # starts with (a server may list them from the round's first player): each player keeps
    # its seat from round to round, so a match can be followed (`callbreak.remote.memory`)
    listed = list(ids)
    shift = ids.index(min(ids))
    ids = ids[shift:] + ids[:shift]
    seat = ids.index(me)

    def wire(s: int) -> int:
        """A seat as the request numbers it (an index into its ``playerIds``)."""
        return (s + shift) % 4

    def as_listed(per_seat: list[int]) -> list[int]:
        """One value a seat, in the order of the request's ``playerIds``."""
        return [per_seat[(w - shift) % 4] for w in range(4)]

    ctx = _field(body, "context")
    if not isinstance(ctx, dict):
        raise ValueError("context must be an object")
    round_number = _int(_field(ctx, "round", "context."), "context.round", 1)
    players = _field(ctx, "players", "context.")
    if not isinstance(players, dict):
        raise ValueError("context.players must be an object")
    if set(players) != set(ids):
        raise ValueError(f"context.players must have exactly the ids {listed!r}, has {sorted(players)!r}")
    totals: list[Decimal] = []
    bids: list[int] = []
    won: list[int] = []
    for pid in ids:
        p = players[pid]
        where = f"context.players.{pid}."
        if not isinstance(p, dict):
            raise ValueError(f"context.players.{pid} must be an object")
        tp = _field(p, "totalPoints", where)
        if isinstance(tp, bool) or not isinstance(tp, (int, float)) or not math.isfinite(tp):
            raise ValueError(f"{where}totalPoints must be a number, not {tp!r}")
        totals.append(Decimal(str(tp)).quantize(Decimal("0.1")))
        b = _int(_field(p, "bid", where), f"{where}bid", 0, 13)
        if b and not rules.min_call <= b <= rules.max_call:
            raise ValueError(f"{where}bid {b} is not a legal call ({rules.min_call}..{rules.max_call})")
        bids.append(b)
        won.append(_int(_field(p, "won", where), f"{where}won", 0, 13))

    budget: int | None = None
    if "timeBudget" in body:
        tb = body["timeBudget"]
        if isinstance(tb, bool) or not isinstance(tb, (int, float)) or not math.isfinite(tb):
            raise ValueError(f"timeBudget must be a number of milliseconds, not {tb!r}")
        budget = int(tb)
    elif kind == "play":
        raise ValueError("missing field 'timeBudget'")

    hand = _cards(_field(body, "cards"), "cards")
    hand_mask = 0
    for c in hand:
        hand_mask |= 1 << c

    if kind == "bid":
        for name in ("played", "history"):
            if body.get(name):
                raise ValueError(f"{name} must be empty in a bid request")
        if len(hand) != 13:
            raise ValueError(f"cards: a hand holds 13 cards when calling, not {len(hand)}")
        if any(won):
            raise ValueError("context: no trick is won before the calls are made")
        if bids[seat]:
            raise ValueError(f"{me} has already called {bids[seat]}")
        n = sum(1 for b in bids if b)
        dealer = (seat - n - 1) % 4
        for k in range(1, 4):
            s = (dealer + k) % 4
            should = s != seat and (s - dealer - 1) % 4 < n
            if bool(bids[s]) != should:
                raise ValueError(
                    f"context: bids must be made in order of play; {ids[s]}'s bid {bids[s]} does not fit"
                )
        calls_done = [(s, bids[s]) for s in ((dealer + 1 + k) % 4 for k in range(n))]
        plays: list[tuple[int, Card]] = []
        history: list[tuple[int, list[Card], int]] = []
        played: list[Card] = []
    else:
        if not all(bids):
            missing = [ids[s] for s in range(4) if not bids[s]]
            raise ValueError(f"context: every player has called before play; no bid for {missing}")
        hist_raw = _field(body, "history")
        if not isinstance(hist_raw, list):
            raise ValueError("history must be a list of tricks")
        if len(hist_raw) > 12:
            raise ValueError(
                f"history has {len(hist_raw)} tricks; at most 12 are finished when a card is asked for"
            )
        history = []
        for i, t in enumerate(hist_raw):
            if not isinstance(t, (list, tuple)) or len(t) != 3:  # (a list from JSON)
                raise ValueError(f"history[{i}] must be [leader index, [four cards], winner index]")
            lead = (_int(t[0], f"history[{i}] leader", 0, 3) - shift) % 4
            tcards = _cards(t[1], f"history[{i}] cards")
            if len(tcards) != 4:
                raise ValueError(f"history[{i}] must hold four cards, not {len(tcards)}")
            win = (_int(t[2], f"history[{i}] winner", 0, 3) - shift) % 4
            history.append((lead, tcards, win))
        played = _cards(_field(body, "played"), "played")
        if len(played) > 3:
            raise ValueError(f"played holds {len(played)} cards; a trick in progress holds at most 3")
        first = history[0][0] if history else (seat - len(played)) % 4
        dealer = (first - 1) % 4
        calls_done = [((dealer + 1 + k) % 4, bids[(dealer + 1 + k) % 4]) for k in range(4)]
        total_calls = sum(bids)
        if total_calls < rules.min_total_calls:
            raise ValueError(
                f"context: the calls total {total_calls}, under min_total_calls; the hand is redealt"
            )
        plays = []
        lead = first
        for i, (hl, tcards, _) in enumerate(history):
            if hl != lead:
                raise ValueError(
                    f"history[{i}]: seat {wire(hl)} leads, but the previous trick was won by seat {wire(lead)}"
                )
            plays.extend(((hl + k) % 4, c) for k, c in enumerate(tcards))
            lead = trick_winner(hl, tcards, rules.trump_index)
            if history[i][2] != lead:
                raise ValueError(f"history[{i}]: the winner is seat {wire(lead)}, not {wire(history[i][2])}")
        if (lead + len(played)) % 4 != seat:
            raise ValueError(
                f"it is not {me}'s turn: seat {wire(lead)} leads this trick and "
                f"{len(played)} card{'' if len(played) == 1 else 's'} {'is' if len(played) == 1 else 'are'} played"
            )
        plays.extend(((lead + k) % 4, c) for k, c in enumerate(played))
        want = 13 - len(history)
        if len(hand) != want:
            raise ValueError(
                f"cards: after {len(history)} tricks the hand holds {want} cards, not {len(hand)}"
            )
        counted = [0, 0, 0, 0]
        for _, _, w in history:
            counted[w] += 1
        if counted != won:
            raise ValueError(
                f"context: tricks won {as_listed(won)} disagree with the history {as_listed(counted)}"
            )

    # --- the cards must add up to one deck --------------------------------------
    seen = hand_mask
    for _, c in plays:
        if seen >> c & 1:
            where = "is in the hand" if hand_mask >> c & 1 else "is played twice"
            raise ValueError(f"card {c.bhoos} {where} and already played")
        seen |= 1 << c

    # --- rebuild a round: own cards are known; others get stand-ins -----------
    dealt: list[int] = [0, 0, 0, 0]
    dealt[seat] = hand_mask
    for s, c in plays:
        dealt[s] |= 1 << c
    pool = cards_of(FULL_DECK & ~seen)
    for s in range(4):
        need = 13 - dealt[s].bit_count()
        if need < 0:
            raise ValueError(f"seat {wire(s)} has played more cards than a hand holds")
        if s != seat:
            for c in pool[:need]:
                dealt[s] |= 1 << c
            pool = pool[need:]
    if dealt[seat].bit_count() != 13:
        raise ValueError(f"cards: the hand and its played cards make {dealt[seat].bit_count()}, not 13")
    build = rules.replace(redeal_without_trump=False, redeal_without_face_card=False, min_total_calls=0)
    rnd = Round(build, dealt, dealer)
    for s, b in calls_done:
        rnd._do_call(s, b)
    for i, (s, c) in enumerate(plays):
        if s == seat and not rnd.legal_mask() >> c & 1:
            where = f"history[{i // 4}]" if i // 4 < len(history) else "played"
            raise ValueError(f"{where}: {me} could not have played {c.bhoos} ({rnd._why_illegal(c)})")
        rnd._do_play(s, int(c))
    if rnd.to_act != seat:  # pragma: no cover - guarded above
        raise ValueError(f"it is not {me}'s turn")
    view = rnd.view(seat)
    # the others' cards: none that its seat had shown it cannot hold, and a deal of the unseen cards
    # that their shown voids leave room for (else a searching bot finds no deal to think on)
    known = Knowledge.from_view(view)
    if known.impossible is not None:
        number, who, card_no = known.impossible
        where = f"history[{number}]" if number < len(history) else "played"
        raise ValueError(
            f"{where}: {ids[who]} could not have played {Card(card_no).bhoos}: its earlier cards showed it holds none such"
        )
    if not known.has_deal():
        raise ValueError(
            "the cards cannot be dealt: the suits the others have shown they lack leave no hand for some unseen cards"
        )
    sudden = rules.rounds is not None and round_number > rules.rounds
    view = replace(
        view,
        rules=rules,
        totals=tuple(totals),
        round_number=round_number,
        rounds=rules.rounds,
        sudden_death=sudden,
    )
    return ParsedRequest(view, budget, tuple(ids))


def parse_response(path: str, body: object) -> int | Card:
    """Read a bot's answer: ``{"value": 3}`` to ``/bid``, ``{"value": "QS"}`` to ``/play``.

    Only the form is checked here; whether the action is legal is up to the caller.

    >>> parse_response("/play", {"value": "1S"}), parse_response("/bid", {"value": 3})
    (Card('AS'), 3)
    """
    if not isinstance(body, dict) or "value" not in body:
        raise ValueError(f"the answer must be an object with a 'value', not {str(body)[:80]!r}")
    v = body["value"]
    if path.endswith("bid"):
        if isinstance(v, str) and v.strip().isdigit():
            v = int(v.strip())
        return _int(v, "the bid", 0, 13)
    return card_from_bhoos(v.strip().upper() if isinstance(v, str) else v, "the card")
