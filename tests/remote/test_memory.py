"""A served bot remembers the match's earlier rounds across the tournament's requests.

`MatchMemory` is fed what a service reads (`view_to_request`, then `parse_request`): it
hands each seat its own last view of each earlier round of its match, and never a
round of another match under the same ids.  Through `BotService`, a ``hard:opp=2``
bot knows at round 3 the styles that rounds 1 and 2 showed, where a service that
has not served them does not."""

from __future__ import annotations

import json
from typing import Any

import pytest

from callbreak import Card, Match, Ruleset, SeatView
from callbreak.bots.base import Bot
from callbreak.bots.hard import HardBot
from callbreak.bots.knowledge import Knowledge
from callbreak.bots.medium import MediumBot
from callbreak.bots.sparring import SimpleBot
from callbreak.remote.codec import parse_request, view_to_request
from callbreak.remote.memory import CHAINS, MatchMemory, continues
from callbreak.remote.server import BotService

BHOOS = Ruleset.preset("bhoos")
IDS = ("P0", "P1", "P2", "P3")


def served(view: SeatView) -> SeatView:
    """``view`` as a service reads it from the request."""
    return parse_request(*view_to_request(view, time_budget_ms=1500), BHOOS).view


def match_views(seed: int, rounds: int = 3, bot: Bot | None = None) -> list[SeatView]:
    """Each request's view of a match of four ``bot`` (default: SimpleBots), in order."""
    m = Match(BHOOS.replace(rounds=rounds), seed=seed)
    bot = bot or SimpleBot(seed=1)
    out = []
    while not m.is_over:
        v = m.view(m.to_act)
        out.append(served(v))
        m.act(bot.act(v))
    return out


def test_each_seat_gets_its_own_last_view_of_each_earlier_round() -> None:
    views = match_views(4)
    memory = MatchMemory()
    last: dict[tuple[int, int], SeatView] = {}  # (seat, round): its last request's view
    for v in views:
        earlier = memory.note(IDS, v)
        assert earlier == tuple(last[v.seat, r] for r in range(1, v.round_number))
        last[v.seat, v.round_number] = v
    assert [len(last[s, 1].tricks) for s in range(4)] == [12] * 4  # its last card: the 13th trick's


def expect_own_rounds(memory: MatchMemory, matches: list[list[SeatView]]) -> int:
    """Feed the matches' requests to ``memory`` interleaved one by one; assert that each gets
    its own seat's last view of each earlier round of its own match.  Returns the requests."""
    last: list[dict[tuple[int, int], SeatView]] = [{} for _ in matches]
    n = 0
    for i in range(max(len(vs) for vs in matches)):
        for k, vs in enumerate(matches):
            if i < len(vs):
                v = vs[i]
                assert memory.note(IDS, v) == tuple(last[k][v.seat, r] for r in range(1, v.round_number)), (k, i)
                last[k][v.seat, v.round_number] = v
                n += 1
    return n


def test_matches_played_at_once_under_the_same_ids_each_get_their_own_rounds() -> None:
    """Three matches under the same ids, their requests interleaved: each request gets its own
    match's earlier rounds, never another's (told apart by the hand the seat was dealt and by
    the totals)."""
    assert expect_own_rounds(MatchMemory(), [match_views(5), match_views(6), match_views(8)]) > 3 * 150
    # as many as a seat's memory follows at once (CHAINS), each keeps its own
    assert expect_own_rounds(MatchMemory(), [match_views(20 + i) for i in range(CHAINS)]) > CHAINS * 150


def test_beyond_the_matches_followed_at_once_a_match_is_forgotten_never_mixed() -> None:
    """With more matches at once than a seat's memory follows, the one heard from longest ago
    starts afresh: a request gets its own match's rounds or none, never another's."""
    matches = [match_views(30 + i) for i in range(3)]
    memory = MatchMemory(chains=2)
    own: list[set[int]] = [{id(v) for v in vs} for vs in matches]
    got_some = later = 0
    for i in range(max(len(vs) for vs in matches)):
        for k, vs in enumerate(matches):
            if i < len(vs):
                earlier = memory.note(IDS, vs[i])
                assert all(id(e) in own[k] for e in earlier)
                got_some += bool(earlier)
                later += vs[i].round_number > 1
    assert 0 < got_some < later  # some requests found their match, some had it forgotten


def test_a_late_request_of_a_finished_round_changes_nothing() -> None:
    views = match_views(9)
    memory = MatchMemory()
    for v in views:
        if v.round_number == 3:
            break
        memory.note(IDS, v)
    round3 = next(v for v in views if v.round_number == 3 and v.seat == 1)
    got = memory.note(IDS, round3)
    assert [e.round_number for e in got] == [1, 2]
    stale = [v for v in views if v.round_number == 2 and v.seat == 1][-2]
    assert [e.round_number for e in memory.note(IDS, stale)] == [1]
    assert memory.note(IDS, round3) == got


def test_the_same_request_again_changes_nothing_and_the_least_heard_seat_is_forgotten() -> None:
    views = match_views(7, rounds=2)
    memory = MatchMemory(capacity=4)
    for v in views:
        first = memory.note(IDS, v)
        assert memory.note(IDS, v) == first
    assert len(memory) == memory.matches == 4
    memory.note(("Q0", "Q1", "Q2", "Q3"), views[0])
    assert len(memory) == memory.matches == 4
    # round 2's last request of each seat: the seat heard from last is still known, the one
    # heard from first of the four is forgotten
    assert len(memory.note(IDS, views[-1])) == 1
    assert memory.note(IDS, views[-4]) == ()


def ask(service: BotService, v: SeatView) -> int | Card:
    """The service's answer to ``v``'s request, as an action."""
    path, body = view_to_request(v, time_budget_ms=1500)
    status, answer = service.handle("POST", path, json.dumps(body).encode())
    assert status == 200, answer
    if v.phase == "calling":
        return int(answer["value"])
    return next(c for c in v.legal_cards if c.bhoos == answer["value"])


def test_a_served_hard_bot_knows_the_styles_of_the_rounds_before() -> None:
    """Seat 0 served by ``hard:opp=2`` among three SimpleBots: at round 3's first call the
    service's bot takes the three for simple players; the same request to a service that
    served nothing before finds no evidence."""
    m = Match(BHOOS.replace(rounds=3), seed=3)
    bot = HardBot(seed=1, iterations=300, call_deals=20, opp=2)
    service = BotService(bot, BHOOS, seed=1)
    others = SimpleBot(seed=1)
    v = m.view(m.to_act)
    while not (v.seat == 0 and v.round_number == 3):
        m.act(ask(service, v) if v.seat == 0 else others.act(v))
        v = m.view(m.to_act)
    ask(service, v)
    k = Knowledge.from_view(v)
    assert bot.styles(v, k, 0).tolist() == [0, 1, 1, 1]
    fresh = HardBot(seed=1, iterations=300, call_deals=20, opp=2)
    ask(BotService(fresh, BHOOS, seed=1), v)
    assert fresh.styles(v, k, 0).tolist() == [0, 0, 0, 0]


def test_a_round_continues_the_last_one_seen_with_up_to_three_tricks_unseen() -> None:
    """The seat's last request of a round may come before its last trick (a card played for it,
    a request lost): the next round still follows for some winner of the tricks left, up to three;
    with more left the match cannot be followed, and a round that does not follow is refused."""
    views = match_views(10, rounds=2)
    mine = [v for v in views if v.seat == 2]
    first2 = next(v for v in mine if v.round_number == 2)
    by_left = {13 - len(v.tricks): v for v in mine if v.round_number == 1 and v.phase == "playing"}
    assert [continues(by_left[n], first2) for n in (1, 2, 3, 4)] == [True, True, True, False]
    other = next(v for v in match_views(11, rounds=2) if v.seat == 2 and v.round_number == 2)
    assert not continues(by_left[1], other)


def test_the_same_deals_played_again_under_the_same_ids_are_another_match() -> None:
    """A duplicate deal: the same cards dealt again, played otherwise, after the first match
    (or beside it).  The second match gets its own rounds, never the first's, though its seats
    hold the same hands: its calls and tricks part from the first's."""
    first, again = match_views(40), match_views(40, bot=MediumBot(seed=2))
    memory = MatchMemory()
    expect_own_rounds(memory, [first])
    expect_own_rounds(memory, [again])
    both = MatchMemory()
    expect_own_rounds(both, [first, again])


def test_the_matches_remembered_are_bounded_over_all_seats() -> None:
    """``capacity`` counts the matches of all seats together: three matches at once under the
    same ids (12 seat matches) in a memory of 6 never hold more than 6: a seat heard from
    longest ago is forgotten whole (here two of its matches at once, leaving 5)."""
    memory = MatchMemory(capacity=6)
    expect_all = [match_views(50 + i, rounds=2) for i in range(3)]
    for i in range(max(len(vs) for vs in expect_all)):
        for vs in expect_all:
            if i < len(vs):
                memory.note(IDS, vs[i])
                assert memory.matches <= 6
    assert memory.matches == 5


def listed_from(body: dict[str, Any], first: int) -> dict[str, Any]:
    """``body`` with ``playerIds`` listed from seat ``first`` round the table (its history's
    indices renumbered to match), as a server that starts the list elsewhere would send it."""
    out = json.loads(json.dumps(body))
    ids = out["playerIds"]
    out["playerIds"] = ids[first:] + ids[:first]
    out["history"] = [[(lead - first) % 4, cards, (win - first) % 4] for lead, cards, win in body.get("history", [])]
    if "history" not in body:
        del out["history"]
    return out


def test_a_server_that_lists_the_players_from_each_rounds_first_caller_is_followed() -> None:
    """Ids listed from the round's first caller (so each player's index moves every round):
    every request reads back as the same view as when listed from the least id, and the
    memory follows the match (each seat gets its own last view of each earlier round); the
    ids are named so that the least is not seat 0's."""
    ids = ["m", "b", "x", "a"]
    m = Match(BHOOS.replace(rounds=3), seed=4)
    bot = SimpleBot(seed=1)
    memory = MatchMemory()
    last: dict[tuple[str, int], SeatView] = {}
    moved = set()
    while not m.is_over:
        v = m.view(m.to_act)
        path, body = view_to_request(v, ids, time_budget_ms=1500)
        first = (v.dealer + 1) % 4
        moved.add(first)
        got = parse_request(path, listed_from(body, first), BHOOS)
        want = parse_request(path, listed_from(body, ids.index("a")), BHOOS)
        assert got == want and got.player_ids == ("a", "m", "b", "x")
        assert got.view.seat == (v.seat + 1) % 4 and got.view.hand == v.hand
        me = ids[v.seat]
        earlier = memory.note(got.player_ids, got.view)
        assert earlier == tuple(last[me, r] for r in range(1, v.round_number))
        last[me, v.round_number] = got.view
        m.act(bot.act(v))
    assert len(moved) == 3


def test_a_request_listed_from_another_player_with_a_bad_history_names_its_own_indices() -> None:
    """The errors speak of seats as the request numbers them, not as they are renumbered."""
    m = Match(BHOOS, seed=4)
    bot = SimpleBot(seed=1)
    while len(m.round.tricks) < 2:
        m.act(bot.act(m.view(m.to_act)))
    v = m.view(m.to_act)
    path, body = view_to_request(v, ["d", "c", "b", "a"], time_budget_ms=1500)
    assert path == "/play" and "history" in body
    lead, cards, winner = body["history"][1]
    body["history"][1] = (lead, cards, (winner + 1) % 4)
    with pytest.raises(ValueError, match=rf"history\[1\]: the winner is seat {v.tricks[1].winner}, not"):
        parse_request(path, body, BHOOS)
