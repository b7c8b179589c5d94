"""The Bhoos tournament JSON: the documented examples, round trips, and every kind of bad request."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from callbreak import Card, Match, Ruleset
from callbreak.bots import make_bot
from callbreak.remote.codec import (
    BidRequest,
    Context,
    PlayerContext,
    PlayRequest,
    card_from_bhoos,
    parse_request,
    parse_response,
    view_to_request,
)

FIXTURES = Path(__file__).parent / "fixtures"
BHOOS = Ruleset.preset("bhoos")


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return data


def cards(*texts: str) -> tuple[Card, ...]:
    return tuple(sorted(Card.parse(t) for t in texts))


def test_documented_bid_example_is_read_exactly() -> None:
    p = parse_request("/bid", load("bhoos_bid_example.json"), BHOOS)
    v = p.view
    # The seats run round the table from the least id, P0, so P3 (listed first) is seat 3; the three
    # others have bid, so P3 is the dealer and calls last.
    assert p.player_ids == ("P0", "P2", "P1", "P3")
    assert (v.seat, v.dealer, v.phase, v.to_act) == (3, 3, "calling", 3)
    assert v.calls == (3, 3, 3, None)
    assert v.hand == cards("AS", "TS", "8S", "7S", "6S", "4S", "3S", "9H", "6H", "5H", "AC", "AD", "JD")
    assert v.legal_calls == tuple(range(1, 9))  # the bhoos preset: calls 1..8
    assert p.time_budget_ms is None  # the documented /bid carries no timeBudget


def test_documented_play_example_is_refused_with_a_reason() -> None:
    # The starter code's /play example is illustrative: P3 has no bid, 13 cards after 2 tricks, QS twice.
    body = load("bhoos_play_example.json")
    with pytest.raises(ValueError, match=r"no bid for \['P3'\]"):
        parse_request("/play", body, BHOOS)
    body["context"]["players"]["P3"]["bid"] = 2
    with pytest.raises(ValueError, match="after 2 tricks the hand holds 11 cards, not 13"):
        parse_request("/play", body, BHOOS)
    body["cards"].remove("KH")
    body["cards"].remove("JH")
    with pytest.raises(
        ValueError, match=r"tricks won \[0, 2, 0, 0\] disagree with the history \[0, 0, 0, 2\]"
    ):
        parse_request("/play", body, BHOOS)
    body["context"]["players"]["P1"]["won"] = 0
    body["context"]["players"]["P3"]["won"] = 2
    with pytest.raises(ValueError, match="QS is in the hand and already played"):
        parse_request("/play", body, BHOOS)


def test_repaired_play_example_is_read_exactly() -> None:
    p = parse_request("/play", load("bhoos_play_example_repaired.json"), BHOOS)
    v = p.view
    assert (v.seat, v.dealer, v.leader, v.phase, v.to_act) == (1, 0, 3, "playing", 1)
    assert p.time_budget_ms == 1202
    assert v.calls == (3, 3, 3, 2)
    assert v.tricks_won == (0, 0, 0, 2)
    assert [(t.leader, [str(c) for c in t.cards], t.winner) for t in v.tricks] == [
        (1, ["TS", "KS", "AS", "5S"], 3),
        (3, ["QS", "6S", "TH", "2S"], 3),
    ]
    assert [(s, str(c)) for s, c in v.trick] == [(3, "2H"), (0, "8H")]
    assert v.hand_sizes == (10, 11, 11, 10)  # P3 led 2H and P0 played 8H
    # P1 must follow hearts and head the 8H.
    assert v.legal_cards == cards("JH", "KH")


def test_cards_in_tournament_notation() -> None:
    assert card_from_bhoos("1S") == Card.parse("AS")
    assert card_from_bhoos("TH") == Card.parse("10H")
    for bad in ("10H", "AX", "", "1s", 5, None, "ZZ"):
        with pytest.raises(ValueError, match="unknown card"):
            card_from_bhoos(bad)


def positions(rules: Ruleset, seeds: range) -> list[Any]:
    out = []
    for seed in seeds:
        m = Match(rules.replace(rounds=2), seed=seed)
        bots = [make_bot("random", seed * 4 + i) for i in range(4)]
        while not m.is_over:
            seat = m.to_act
            assert seat is not None
            v = m.view(seat)
            out.append(v)
            m.act(bots[seat].act(v))
    return out


VARIANTS = {
    "bhoos": Ruleset.preset("bhoos"),
    "standard": Ruleset.preset("standard"),
    "pagat": Ruleset.preset("pagat"),
    "hearts trump, after broken, undertrump": Ruleset(
        trump="H", trump_lead="after_broken", must_undertrump=True
    ),
    "no heading, min call 2, not first trick": Ruleset(
        must_head=False, min_call=2, trump_lead="not_first_trick"
    ),
    "redeals, min total 8": Ruleset(
        redeal_without_trump=True, redeal_without_face_card=True, min_total_calls=8
    ),
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_round_trip_view_request_view(name: str) -> None:
    rules = VARIANTS[name].replace(rounds=2)
    for v in positions(rules, range(4)):
        path, body = view_to_request(v, ("a", "b", "c", "d"), time_budget_ms=900)
        body = json.loads(json.dumps(body))  # exactly what goes over the wire
        p = parse_request(path, body, rules)
        assert p.view == v
        assert p.time_budget_ms == 900


def test_requests_never_carry_hidden_cards() -> None:
    for v in positions(BHOOS, range(3)):
        _, body = view_to_request(v, time_budget_ms=1500)
        text = json.dumps(body)
        allowed = {c.bhoos for c in v.hand} | {c.bhoos for c in v.played}
        mentioned = {c.bhoos for c in map(Card, range(52)) if f'"{c.bhoos}"' in text}
        assert mentioned <= allowed


def test_later_round_totals_and_sudden_death_survive() -> None:
    from dataclasses import replace
    from decimal import Decimal

    m = Match(BHOOS, seed=4)
    v = m.view(m.to_act)  # type: ignore[arg-type]
    totals = (Decimal("12.3"), Decimal("12.3"), Decimal("-4"), Decimal("0.5"))
    v = replace(v, round_number=6, sudden_death=True, totals=totals)  # a tie after 5 rounds
    path, body = view_to_request(v)
    assert [body["context"]["players"][p]["totalPoints"] for p in body["playerIds"]] == [12.3, 12.3, -4, 0.5]
    back = parse_request(path, json.loads(json.dumps(body)), BHOOS).view
    assert back == v and back.sudden_death and back.totals == totals


def mutate(body: dict[str, Any], fn: Any) -> dict[str, Any]:
    b = copy.deepcopy(body)
    fn(b)
    return b


def _set(path: list[Any], value: Any) -> Any:
    def f(b: dict[str, Any]) -> None:
        obj = b
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value

    return f


def _del(path: list[Any]) -> Any:
    def f(b: dict[str, Any]) -> None:
        obj = b
        for k in path[:-1]:
            obj = obj[k]
        del obj[path[-1]]

    return f


PLAY = load("bhoos_play_example_repaired.json")
BID = load("bhoos_bid_example.json")

BAD_PLAYS = [
    (_set(["cards", 0], "XH"), "unknown card 'XH'"),
    (_set(["cards", 0], "JH"), "duplicate card JH"),
    (_set(["cards", 0], "QS"), "QS is in the hand and already played"),
    (lambda b: b["cards"].pop(), "hand holds 11 cards, not 10"),
    (lambda b: b["cards"].append("2C"), "hand holds 11 cards, not 12"),
    (_del(["history"]), "missing field 'history'"),
    (_del(["played"]), "missing field 'played'"),
    (_del(["timeBudget"]), "missing field 'timeBudget'"),
    (_del(["cards"]), "missing field 'cards'"),
    (_del(["playerId"]), "missing field 'playerId'"),
    (_del(["context", "players", "P2", "won"]), "missing field context.players.P2.'won'"),
    (_del(["context", "round"]), "missing field context.'round'"),
    (_set(["context", "round"], 0), "context.round must be at least 1, not 0"),
    (_set(["playerId"], "P9"), "not one of playerIds"),
    (_set(["playerIds", 0], "P1"), "repeats an id"),
    (_set(["history", 1, 2], 0), "the winner is seat 3, not 0"),
    (_set(["history", 1, 0], 2), "seat 2 leads, but the previous trick was won by seat 3"),
    (_set(["history", 0, 1, 3], "5S5"), "unknown card"),
    (_set(["history", 0, 1], ["TS", "KS", "1S"]), "must hold four cards"),
    (_set(["played"], ["2H"]), "it is not P1's turn"),
    (_set(["played", 1], "2H"), "duplicate card 2H"),
    (_set(["context", "players", "P3", "won"], 1), "tricks won"),
    (_set(["context", "players", "P3", "bid"], 9), "not a legal call"),
    (_set(["context", "players", "P3", "bid"], "two"), "whole number"),
    (_set(["context", "players", "P3", "totalPoints"], "x"), "must be a number"),
    (_set(["timeBudget"], "soon"), "timeBudget must be a number"),
    # P1 followed the spade lead with TH in trick 2; holding 9S it must have followed suit
    (_set(["cards", 7], "9S"), "history[1]: P1 could not have played TH (you must follow spades)"),
]


@pytest.mark.parametrize(("fn", "message"), BAD_PLAYS)
def test_bad_play_requests_name_the_problem(fn: Any, message: str) -> None:
    parse_request("/play", PLAY, BHOOS)  # the base request is good
    with pytest.raises(ValueError, match=None) as e:
        parse_request("/play", mutate(PLAY, fn), BHOOS)
    assert message in str(e.value)


BAD_BIDS = [
    (_set(["context", "players", "P3", "bid"], 2), "P3 has already called 2"),
    (_set(["context", "players", "P2", "bid"], 0), "bids must be made in order of play"),
    (_set(["context", "players", "P0", "won"], 1), "no trick is won before the calls"),
    (lambda b: b["cards"].pop(), "a hand holds 13 cards when calling, not 12"),
    (_set(["cards", 3], "1S"), "duplicate card 1S"),
    (_set(["cards"], None), "cards must be a list of cards"),
    (_del(["context"]), "missing field 'context'"),
    (_set(["context", "players"], {"P3": {}}), "exactly the ids"),
    (_set(["played"], ["2H"]), "played must be empty in a bid request"),
]


@pytest.mark.parametrize(("fn", "message"), BAD_BIDS)
def test_bad_bid_requests_name_the_problem(fn: Any, message: str) -> None:
    with pytest.raises(ValueError) as e:
        parse_request("/bid", mutate(BID, fn), BHOOS)
    assert message in str(e.value)


@pytest.mark.parametrize("body", [None, [], "x", 3])
def test_body_must_be_an_object(body: Any) -> None:
    with pytest.raises(ValueError, match="JSON object"):
        parse_request("/bid", body, BHOOS)


def test_unknown_path() -> None:
    with pytest.raises(ValueError, match="unknown request"):
        parse_request("/fold", BID, BHOOS)


def test_responses() -> None:
    assert parse_response("/bid", {"value": 3}) == 3
    assert parse_response("/play", {"value": "TH"}) == Card.parse("TH")
    for path, body in (("/bid", {"value": "x"}), ("/play", {"value": 3}), ("/play", {}), ("/bid", [3])):
        with pytest.raises(ValueError):
            parse_response(path, body)


def _paths(o: Any, pre: tuple[Any, ...] = ()) -> Any:
    yield pre
    if isinstance(o, dict):
        for k, v in o.items():
            yield from _paths(v, (*pre, k))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from _paths(v, (*pre, i))


def test_fuzzed_requests_are_read_or_refused_with_value_error() -> None:
    """Random damage to real requests: every result is a consistent view or a ValueError."""
    import random

    reqs = [view_to_request(v, time_budget_ms=1000) for v in positions(BHOOS, range(2))]
    values: list[Any] = [None, True, 0, -1, 3, 13, 2**70, 1.5, float("inf"), "", "x", "1S", "AS", "P0",
                         [], [1], ["1S"], {}, {"a": 1}, [[1, ["1S", "2S", "3S", "4S"], 1]], "13"]  # fmt: skip
    rng = random.Random(7)
    read = 0
    for _ in range(3000):
        path, body = rng.choice(reqs)
        b = copy.deepcopy(body)
        for _ in range(rng.randint(1, 3)):
            p = rng.choice(list(_paths(b)))
            if not p:
                continue
            parent = b
            for k in p[:-1]:
                parent = parent[k]
            if rng.random() < 0.25 and isinstance(parent, dict):
                del parent[p[-1]]
            else:
                parent[p[-1]] = copy.deepcopy(rng.choice(values))
        try:
            v = parse_request(path, b, BHOOS).view
        except ValueError:
            continue
        read += 1
        assert v.legal_calls if v.phase == "calling" else v.legal_cards, b
        assert len(set(v.hand) | set(v.played)) == len(v.hand) + len(v.played)
    assert read > 0  # some damage is harmless (a total changed, a bid changed), and is read


def _listed_from(body: dict[str, Any], k: int) -> dict[str, Any]:
    """``body`` with its ``playerIds`` listed from the k-th player on, the history's seat
    indexes renumbered to match (the same position, sent another way)."""
    b = copy.deepcopy(body)
    ids = b["playerIds"]
    b["playerIds"] = ids[k:] + ids[:k]
    b["history"] = [[(lead - k) % 4, cards, (win - k) % 4] for lead, cards, win in b["history"]]
    return b


@pytest.mark.parametrize("k", [1, 2, 3])
def test_play_request_listed_from_another_player_reads_the_same_and_errors_name_its_own_order(k: int) -> None:
    base = parse_request("/play", PLAY, BHOOS)
    body = _listed_from(PLAY, k)
    ids = body["playerIds"]
    assert ids[0] != "P0"
    parsed = parse_request("/play", body, BHOOS)
    assert (parsed.player_ids, parsed.view) == (base.player_ids, base.view)

    def at(pid: str) -> int:
        return int(ids.index(pid))

    cases: list[tuple[Any, str]] = [
        (_set(["history", 1, 2], at("P0")), f"the winner is seat {at('P3')}, not {at('P0')}"),
        (_set(["history", 1, 0], at("P2")), f"seat {at('P2')} leads, but the previous trick was won by seat {at('P3')}"),
        (_set(["played"], ["2H"]), f"it is not P1's turn: seat {at('P3')} leads this trick and 1 card is played"),
        (
            _set(["context", "players", "P3", "won"], 1),
            f"tricks won {[int(p == 'P3') for p in ids]} disagree with the history {[2 * int(p == 'P3') for p in ids]}",
        ),
        (_set(["context", "players"], {"P3": {}}), f"exactly the ids {ids!r}"),
    ]
    for fn, message in cases:
        with pytest.raises(ValueError) as e:
            parse_request("/play", mutate(body, fn), BHOOS)
        assert message in str(e.value)


def test_the_wire_types_name_every_field_a_request_has_and_the_reader_needs() -> None:
    """`BidRequest` and `PlayRequest` are the bodies' one definition: what `view_to_request` writes
    has exactly their fields (a /bid's ``timeBudget`` only when given; a /play always has one, and
    a playing view without a budget is refused), the tournament's documented examples have them
    too, and a body without any required one is refused by `parse_request`, naming it."""
    bid_example, play_example = load("bhoos_bid_example.json"), load("bhoos_play_example_repaired.json")
    assert set(bid_example) == BidRequest.__required_keys__
    assert BidRequest.__optional_keys__ == {"timeBudget"}
    assert set(play_example) == PlayRequest.__required_keys__ and not PlayRequest.__optional_keys__
    assert set(bid_example["context"]) == Context.__required_keys__
    assert set(next(iter(bid_example["context"]["players"].values()))) == PlayerContext.__required_keys__
    kinds = set()
    for v in positions(BHOOS, range(2)):
        for budget in (None, 900):
            if v.phase == "playing" and budget is None:
                with pytest.raises(ValueError, match="timeBudget"):
                    view_to_request(v)
                continue
            path, body = view_to_request(v, time_budget_ms=budget)
            kind = {"/bid": BidRequest, "/play": PlayRequest}[path]
            kinds.add(path)
            assert set(body) == kind.__required_keys__ | ({"timeBudget"} if budget else set()), (path, sorted(body))
            assert parse_request(path, json.loads(json.dumps(body)), BHOOS).view.hand == v.hand  # read back whole
            for key in kind.__required_keys__:
                short = {k: x for k, x in body.items() if k != key}
                with pytest.raises(ValueError, match=key):
                    parse_request(path, short, BHOOS)
    assert kinds == {"/bid", "/play"}


def _players(won: dict[str, int]) -> dict[str, Any]:
    return {"round": 1, "players": {p: {"totalPoints": 0, "bid": 2, "won": won.get(p, 0)} for p in ("P0", "P1", "P2", "P3")}}


#: P1 led the 2H and the three others trumped it: the nine hearts P1 has not seen have no hand
NO_DEAL = {
    "playerId": "P1", "playerIds": ["P0", "P1", "P2", "P3"],
    "cards": ["KH", "JH", "4H", "JC", "9C", "7C", "6C", "5C", "8D", "3D", "TS", "2C"],
    "played": ["6D"], "history": [[1, ["2H", "3S", "4S", "5S"], 0]], "timeBudget": 1500,
    "context": _players({"P0": 1}),
}  # fmt: skip
#: P2 trumped the heart lead (it has no heart), then led a heart
SHOWN_VOID = {
    "playerId": "P1", "playerIds": ["P0", "P1", "P2", "P3"],
    "cards": ["KH", "JH", "4D", "JC", "9C", "7C", "6C", "5C", "8D", "3D", "TS"],
    "played": [], "history": [[1, ["2H", "3S", "4H", "5H"], 2], [2, ["6H", "7H", "8H", "9H"], 1]], "timeBudget": 1500,
    "context": _players({"P1": 1, "P2": 1}),
}  # fmt: skip


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (NO_DEAL, "the cards cannot be dealt: the suits the others have shown they lack leave no hand for some unseen cards"),
        (SHOWN_VOID, "history[1]: P2 could not have played 6H: its earlier cards showed it holds none such"),
    ],
)
def test_the_others_cards_must_be_ones_they_could_hold(body: dict[str, Any], message: str) -> None:
    """Found in a bot builder's try: both were read, and the first made the served ``hard`` bot
    fail with HTTP 500 (no deal to think on) where the docs promise a 400 naming the problem."""
    with pytest.raises(ValueError) as e:
        parse_request("/play", body, BHOOS)
    assert str(e.value) == message
    # the same, its players listed from another (the seats are numbered from the least id): the
    # player named is still the one who played the card
    renamed = json.loads(json.dumps(body).replace('"P0"', '"Z"'))
    with pytest.raises(ValueError) as e:
        parse_request("/play", renamed, BHOOS)
    assert str(e.value) == message.replace("P0", "Z")
    from callbreak.remote.server import BotService

    status, answer = BotService("hard", BHOOS, seed=0).handle("POST", "/play", json.dumps(body).encode())
    assert (status, answer) == (400, {"error": message}), answer
