"""Timers on a clock the test drives: turn expiry, autoplay, forced cards, grace, between rounds,
lobby expiry and rate limits, each to the exact second, with nothing racing a real timer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from callbreak import Card, Ruleset
from callbreak.remote.client import fallback_action
from callbreak.round import lowest_action
from callbreak.server.clock import ManualClock
from callbreak.server.hub import Hub

from .inprocess import Seat, hub_clock, run_until, start_hub, until

__all__ = ["hub_clock"]  # the fixture

RULES = Ruleset.from_dict({"preset": "quick", "rounds": 3, "call_seconds": 30, "card_seconds": 15})


async def play_for(clock: ManualClock, seconds: float, players: tuple[Seat, ...]) -> None:
    """Move time on by exactly ``seconds`` in steps of 0.1 s, players acting on their turns."""
    for _ in range(round(seconds * 10)):
        for p in players:
            if p.my_turn() and p.state is not None:
                s = p.state
                await p.send({"type": "call", "call": s["legal_calls"][0]} if s["phase"] == "calling" else {"type": "play", "card": s["legal_cards"][0]})
        clock.advance(0.1)


def left(p: Seat, clock: ManualClock) -> float:
    """Seconds to the deadline ``p`` was told of."""
    assert p.info is not None and p.info["deadline"] is not None
    return (p.info["deadline"] - clock.now_ms()) / 1000


def solo(hub: Hub, rules: Ruleset = RULES) -> tuple[str, str]:
    t, tokens = hub.create_table(rules, "random", "Solo", play_now=True)
    return t.id, tokens[0]


async def solo_seat(hub: Hub, rules: Ruleset = RULES) -> Seat:
    """The player of a new `solo` table, connected and greeted."""
    a = Seat(hub, *solo(hub, rules))
    await a.hello()
    return a


def mine(p: Seat, kind: str, seat: int = 0) -> list[dict[str, Any]]:
    return [e for e in p.events(kind) if e["seat"] == seat]


async def test_a_turn_expires_exactly_on_time_with_the_lowest_call_then_card_then_a_bot_takes_over(
    hub_clock: tuple[Hub, ManualClock],
) -> None:
    hub, clock = hub_clock
    a = await solo_seat(hub)
    await run_until(clock, a.my_turn)
    assert a.info is not None and abs(a.info["deadline"] - (clock.now_ms() + 30_000)) <= 1
    legal = list(a.state["legal_calls"])  # type: ignore[index]
    clock.advance(29.9)
    assert mine(a, "call") == []
    clock.advance(0.1)
    (call,) = mine(a, "call")
    assert call["call"] == min(legal) and call["auto"] and call["reason"] == "timeout"
    # the next turn (a card) expires too: the lowest legal card, and a bot takes the seat
    await run_until(
        clock,
        lambda: a.my_turn() and a.state is not None and a.state["phase"] == "playing" and len(a.state["legal_cards"]) > 1,
    )
    hand = [Card.parse(c) for c in a.state["legal_cards"]]  # type: ignore[index]
    n = len(mine(a, "play"))  # a single legal card may have been played for us ("forced")
    clock.advance(14.9)
    assert len(mine(a, "play")) == n
    clock.advance(0.1)
    play = mine(a, "play")[n]
    assert play["reason"] == "timeout" and play["card"] == str(lowest_action_of(hand))
    (on,) = mine(a, "autoplay")
    assert on["on"] and on["reason"] == "timeout" and a.info["seats"][0]["autoplay"]
    # the bot plays the seat after the bot delay, no timer
    await run_until(clock, lambda: a.my_turn())
    clock.advance(0.7)
    assert len(mine(a, "play")) == n + 2 and mine(a, "play")[-1]["reason"] == "autoplay"
    # acting again gives the seat back, and says what was done for it since the player's own last
    # action: the timer's call and card, and the bot's card
    back = await a.send({"type": "back"})
    assert [e["on"] for e in mine(a, "autoplay")] == [True, False] and not a.info["seats"][0]["autoplay"]
    assert [m for m in back if m["type"] == "while_away"] == [{"type": "while_away", "call": call["call"], "cards": 2}], back


async def test_a_player_back_within_the_grace_is_told_what_the_timer_played(hub_clock: tuple[Hub, ManualClock]) -> None:
    """A Nepali player's try: back by the seat's link within the grace, nothing said that the turn's
    timer had played a card for them meanwhile (only a bot's autoplay was told)."""
    hub, clock = hub_clock
    t, tokens = hub.create_table(RULES, "random", "Stay", seats=[(0, "Stay"), (1, "Go")], play_now=True)
    a, b = Seat(hub, t.id, tokens[0]), Seat(hub, t.id, tokens[1])
    await a.hello()
    await b.hello()
    await run_until(clock, lambda: b.my_turn() and b.state is not None and b.state["phase"] == "playing"
                    and len(b.state["legal_cards"]) > 1, (a, b))  # fmt: skip
    assert b.info is not None
    clock.advance((b.info["deadline"] - clock.now_ms()) / 1000 - 5)  # b looks away; then the page goes
    b.leave()
    clock.advance(5)  # the turn runs out, 5 s into the 20 s grace: the timer plays for the seat
    await until(lambda: any(e["reason"] == "timeout" for e in mine(a, "play", 1)))
    assert not mine(a, "autoplay", 1)  # (no bot took the seat: the grace had not run out)
    back = Seat(hub, t.id, tokens[1])
    said = await back.hello(since=b.info["v"])
    assert [m for m in said if m["type"] == "while_away"] == [{"type": "while_away", "call": None, "cards": 1}], said
    assert [m for m in a.read() if m["type"] == "while_away"] == []  # (the seat's own)
    # told once: a reload with nothing new done for the seat is not told it again (a reviewer's read)
    again = Seat(hub, t.id, tokens[1])
    assert [m for m in await again.hello(since=b.info["v"]) if m["type"] == "while_away"] == []


async def test_a_player_who_takes_the_seat_back_by_playing_is_told_what_the_bot_did(
    hub_clock: tuple[Hub, ManualClock],
) -> None:
    """A reviewer's read: the player's own card, read first, started the count again, and the
    player back from a bot by playing was told nothing."""
    hub, clock = hub_clock
    a = await solo_seat(hub)
    await run_until(clock, a.my_turn)
    clock.advance(30)  # the call runs out (the timer's)
    await run_until(clock, lambda: a.my_turn() and a.state is not None and a.state["phase"] == "playing"
                    and len(a.state["legal_cards"]) > 1)  # fmt: skip
    assert a.info is not None
    clock.advance((a.info["deadline"] - clock.now_ms()) / 1000)  # a card runs out too: a bot takes the seat
    a.read()
    assert a.info["seats"][0]["autoplay"]
    await run_until(clock, lambda: len([e for e in mine(a, "play") if e["reason"] == "autoplay"]) == 1)
    await run_until(clock, a.my_turn)  # the seat's turn again: the player plays before the bot does
    done = mine(a, "call") + mine(a, "play")
    call = next(e["call"] for e in done if e["kind"] == "call")
    cards = len([e for e in done if e["kind"] == "play" and e["reason"] in ("timeout", "autoplay")])
    said = await a.send({"type": "play", "card": a.state["legal_cards"][0]})  # type: ignore[index]
    assert [m for m in said if m["type"] == "while_away"] == [{"type": "while_away", "call": call, "cards": cards}], said


def lowest_action_of(hand: list[Card]) -> Card:
    trump = RULES.trump_index
    plain = [c for c in hand if c.suit_index != trump]
    return min(plain, key=lambda c: (c.rank, c.suit_index)) if plain else min(hand, key=lambda c: c.rank)


async def test_the_timer_the_remote_fallback_and_the_shared_definition_play_the_same_lowest_card(
    hub_clock: tuple[Hub, ManualClock],
) -> None:
    hub, clock = hub_clock
    table, token = solo(hub, RULES.replace(rounds=1, autoplay_forced=False))
    live = hub.get(table)
    assert live is not None
    a = Seat(hub, table, token)
    await a.hello()
    checked = 0
    while live.state.status == "playing":
        await run_until(clock, lambda: a.my_turn() or live.state.status != "playing")
        if live.state.status != "playing":
            break
        m = live.state.match
        assert m is not None
        view = m.view(0)
        want = lowest_action(view)
        assert fallback_action(view) == want
        clock.advance(30 if view.phase == "calling" else 15)  # the turn runs out, no later
        done = (mine(a, "call") + mine(a, "play"))[-1]
        assert done["reason"] == "timeout"
        assert (done["card"] if "card" in done else done["call"]) == (str(want) if isinstance(want, Card) else want)
        checked += 1
        await a.send({"type": "back"})  # in charge again: the next expiry is a first one
    assert checked == 14  # the call and 13 cards


async def test_a_single_legal_card_is_played_after_the_forced_delay_and_no_one_else_can_tell(
    hub_clock: tuple[Hub, ManualClock],
) -> None:
    """The server plays a seat's only legal card after a short highlight (0.6 s). Everyone sees
    the turn's deadline and the card's event: both are those of any other turn (the full turn
    timer; a card played, not one played for the seat), so no one learns it was the only one."""
    hub, clock = hub_clock
    table, token = solo(hub, RULES.replace(rounds=1))
    a = Seat(hub, table, token)
    await a.hello()
    watcher = Seat(hub, table)
    await watcher.hello()
    forced = lambda: a.my_turn() and a.state is not None and len(a.state["legal_cards"]) == 1  # noqa: E731
    # play by hand until a turn with a single legal card (the last trick always is one)
    while not forced():
        await play_for(clock, 0.1, (a,))
    watcher.read()
    assert watcher.info is not None and watcher.info["deadline"] == a.info["deadline"]  # type: ignore[index]
    # the turn's timer, as told of every turn to play (not 0.6 s), from the turn's start
    assert 14.8 <= left(a, clock) <= 15
    card = a.state["legal_cards"][0]  # type: ignore[index]
    clock.advance(left(a, clock) - 15 + 0.6 - 0.01)
    assert not any(e["card"] == card for e in mine(a, "play"))
    clock.advance(0.02)  # the deadline sent is in whole milliseconds
    last = mine(a, "play")[-1]
    assert last["card"] == card and last["reason"] is None and not last["auto"]
    assert mine(watcher, "play")[-1] == last


async def test_a_disconnected_player_is_replaced_after_the_grace_and_gets_the_seat_back(
    hub_clock: tuple[Hub, ManualClock],
) -> None:
    hub, clock = hub_clock
    t, tokens = hub.create_table(RULES, "random", "Stay", seats=[(0, "Stay"), (1, "Go")], play_now=True)
    a, b = Seat(hub, t.id, tokens[0]), Seat(hub, t.id, tokens[1])
    await a.hello()
    await b.hello()
    b.leave()
    a.read()
    assert a.info is not None and not a.info["seats"][1]["connected"]
    await play_for(clock, 19.9, (a,))
    assert mine(a, "autoplay", 1) == []
    await play_for(clock, 0.1, (a,))
    assert mine(a, "autoplay", 1)[0]["reason"] == "disconnected"
    await run_until(clock, lambda: any(e["reason"] == "autoplay" for e in mine(a, "call", 1) + mine(a, "play", 1)), (a,))
    b2 = Seat(hub, t.id, tokens[1])
    await b2.hello()
    assert [e["on"] for e in mine(a, "autoplay", 1)] == [True, False]
    assert b2.info is not None and not b2.info["seats"][1]["autoplay"]
    # the player back is told what the bot did meanwhile (a newcomer's try: a call of 3 pinned on a
    # player who came back after a minute, with no word of it), and the others are not
    calls = [e["call"] for e in mine(a, "call", 1) if e["reason"] == "autoplay"]
    cards = [e for e in mine(a, "play", 1) if e["reason"] == "autoplay"]
    told = [m for m in b2.messages if m["type"] == "while_away"]
    assert len(calls) == 1 and told == [{"type": "while_away", "call": calls[0], "cards": len(cards)}], (calls, told)
    assert [m for m in a.messages if m["type"] == "while_away"] == []


async def test_a_turn_keeps_its_deadline_when_something_else_happens(hub_clock: tuple[Hub, ManualClock]) -> None:
    hub, clock = hub_clock
    t, tokens = hub.create_table(RULES, "random", "A", seats=[(0, "A"), (1, "B")], play_now=True)
    a, b = Seat(hub, t.id, tokens[0]), Seat(hub, t.id, tokens[1])
    await a.hello()
    await b.hello()
    await run_until(clock, a.my_turn, (b,))
    assert a.info is not None
    deadline = a.info["deadline"]
    clock.advance(1.0)
    b.leave()  # b goes; after the grace a bot takes b's seat: an event while it is a's turn
    clock.advance(20.0)
    assert mine(a, "autoplay", 1) != [] and a.my_turn() and a.info["deadline"] == deadline


async def test_between_rounds_the_next_deal_waits_for_ready_or_the_delay(hub_clock: tuple[Hub, ManualClock]) -> None:
    hub, clock = hub_clock
    t, tokens = hub.create_table(RULES, "random", "A", seats=[(0, "A"), (1, "B")], play_now=True)
    a, b = Seat(hub, t.id, tokens[0]), Seat(hub, t.id, tokens[1])
    await a.hello()
    await b.hello()
    await run_until(clock, lambda: a.info is not None and a.info["status"] == "between_rounds", (a, b))
    assert 9.5 < left(a, clock) <= 10.0
    await a.send({"type": "ready"})
    clock.advance(left(a, clock) - 0.01)
    a.read()
    b.read()
    assert a.info["status"] == "between_rounds" and b.info is not None and b.info["seats"][0]["ready"]
    clock.advance(0.02)  # b never pressed ready: the delay bounds the wait
    a.read()
    assert a.info["status"] == "playing" and a.events("deal")[-1]["round"] == 2
    # both ready: the next deal at once
    await run_until(clock, lambda: a.info is not None and a.info["status"] == "between_rounds", (a, b))
    await a.send({"type": "ready"})
    await b.send({"type": "ready"})
    clock.advance(0)
    a.read()
    assert a.info["status"] == "playing" and a.events("deal")[-1]["round"] == 3


async def test_without_turn_timers_the_next_deal_waits_for_the_players_next_round(
    hub_clock: tuple[Hub, ManualClock],
) -> None:
    # Found in a keyboard and screen-reader player's try: at a practice table (no turn timers) the
    # round's summary closed on them after 10 s, the next round dealt while it was being read.
    hub, clock = hub_clock
    untimed = RULES.replace(card_seconds=None, call_seconds=None)

    async def the_summary_waits_for(p: Seat) -> None:
        await run_until(clock, lambda: p.info is not None and p.info["status"] == "between_rounds", (p,))
        assert p.info is not None and p.info["deadline"] is None
        clock.advance(3600)
        p.read()
        assert p.info["status"] == "between_rounds"
        await p.send({"type": "ready"})
        clock.advance(0)
        p.read()
        assert p.info["status"] == "playing" and p.events("deal")[-1]["round"] == 2

    await the_summary_waits_for(await solo_seat(hub, untimed))
    # Two friends: the one who went away (a bot plays the seat) does not hold up the one who plays.
    t, tokens = hub.create_table(untimed, "random", "A", seats=[(0, "A"), (1, "B")], play_now=True)
    p, q = Seat(hub, t.id, tokens[0]), Seat(hub, t.id, tokens[1])
    await p.hello()
    await q.hello()
    q.leave()
    await the_summary_waits_for(p)
    assert p.info is not None and p.info["seats"][1]["autoplay"]


async def test_a_player_on_autoplay_still_sees_the_rounds_summary_while_nobody_else_waits(
    hub_clock: tuple[Hub, ManualClock],
) -> None:
    # Found in QA: a slow player whose turn ran out (a bot then played the seat) got no round summary:
    # the next round was dealt the moment the last trick was taken.
    hub, clock = hub_clock
    a = await solo_seat(hub)

    def between(p: Seat = a) -> bool:
        p.read()
        return p.info is not None and p.info["status"] == "between_rounds"

    await run_until(clock, between)  # the player never acts: the timer calls, then a bot plays the seat
    assert a.info is not None and a.info["seats"][0]["autoplay"]
    assert 9.8 < left(a, clock) <= 10.0
    clock.advance(left(a, clock) - 0.01)
    a.read()
    assert a.info["status"] == "between_rounds"
    clock.advance(0.02)  # the delay bounds the wait, as for anyone
    a.read()
    assert a.info["status"] == "playing" and a.events("deal")[-1]["round"] == 2
    # Ready on the summary gives the seat back and deals at once.
    await run_until(clock, between)
    assert a.info["seats"][0]["autoplay"]
    await a.send({"type": "ready"})
    clock.advance(0)
    a.read()
    assert a.info["status"] == "playing" and a.events("deal")[-1]["round"] == 3
    assert not a.info["seats"][0]["autoplay"]
    # With a friend playing, a seat on autoplay does not hold the table: the friend's ready deals.
    t, tokens = hub.create_table(RULES, "random", "A", seats=[(0, "A"), (1, "B")], play_now=True)
    p, q = Seat(hub, t.id, tokens[0]), Seat(hub, t.id, tokens[1])
    await p.hello()
    await q.hello()
    await run_until(clock, lambda: between(p), (p,))
    assert p.info is not None and p.info["seats"][1]["autoplay"] and not p.info["seats"][0]["autoplay"]
    await p.send({"type": "ready"})
    clock.advance(0)
    p.read()
    assert p.info["status"] == "playing" and p.events("deal")[-1]["round"] == 2


async def test_a_lobby_nobody_starts_expires_at_the_first_sweep_after_its_time(tmp_path: Path) -> None:
    hub, clock = await start_hub(tmp_path / "db", lobby_ttl=60.0, sweep_every=15.0)
    try:
        t, tokens = hub.create_table(RULES, "random", "Lonely")
        a = Seat(hub, t.id, tokens[0])
        await a.hello()
        clock.advance(60.0)  # sweeps at 15, 30, 45, 60: not yet past the time to live
        assert a.info is not None and a.info["status"] == "lobby"
        clock.advance(15.0)
        a.read()
        assert a.info["status"] == "expired" and a.events("expired") != []
    finally:
        await hub.shutdown()


async def test_messages_are_rate_limited_per_connection_exactly(tmp_path: Path) -> None:
    hub, clock = await start_hub(tmp_path / "db", msg_rate=5.0, msg_burst=10)
    try:
        t, tokens = hub.create_table(RULES, "random", "Fast")
        a = Seat(hub, t.id, tokens[0])
        got = [m for _ in range(40) for m in await a.send({"type": "ping"})]
        assert sum(m["type"] == "pong" for m in got) == 10
        assert [m["code"] for m in got if m["type"] == "error"] == ["rate_limited"]  # one notice a second
        clock.advance(1.0)
        got = [m for _ in range(40) for m in await a.send({"type": "ping"})]
        assert sum(m["type"] == "pong" for m in got) == 5
    finally:
        await hub.shutdown()


async def test_an_unknown_bot_level_is_refused_and_nothing_is_made(hub_clock: tuple[Hub, ManualClock]) -> None:
    from callbreak.server.table import TableError

    hub, _ = hub_clock
    before = list(hub.store.unfinished())
    try:
        hub.create_table(RULES, "godlike", "X")
    except TableError as e:
        assert e.code == "bad_bots" and "godlike" in e.message and "medium" in e.message
    else:
        raise AssertionError("an unknown level was accepted")
    assert list(hub.store.unfinished()) == before and hub.tables == {}


async def test_a_page_drawn_afresh_is_told_the_card_its_seat_lifted_and_no_one_else_is(
    hub_clock: tuple[Hub, ManualClock],
) -> None:
    """A reload loses the page's lift; the snapshot it then gets names the card the server kept
    (the turn's timer still plays it), to that seat alone, and only on the turn it was lifted on."""
    hub, clock = hub_clock
    table, token = solo(hub, RULES.replace(rounds=1, autoplay_forced=False))
    a = Seat(hub, table, token)
    await a.hello()
    await run_until(clock, a.my_turn)
    await a.send({"type": "call", "call": 2})
    while True:  # to a turn with a choice, playing the turns without one (two of them left to their
        # timers put the seat on autoplay: a bot, not the lift, then played it; one deal in ~15)
        await run_until(clock, a.my_turn)
        legal_now: list[str] = a.state["legal_cards"]  # type: ignore[index]
        if len(legal_now) > 1:
            break
        await a.send({"type": "play", "card": legal_now[0]})
    (first,) = [m for m in await Seat(hub, table, token).hello() if m["type"] == "snapshot"]
    assert first["lifted"] is None  # nothing lifted yet
    legal = [Card.parse(c) for c in a.state["legal_cards"]]  # type: ignore[index]
    lowest = lowest_action(hub.get(table).state.match.view(0))  # type: ignore[union-attr]
    lifted = max((c for c in legal if c != lowest), key=lambda c: c.rank)
    assert [m for m in await a.send({"type": "select", "card": str(lifted)}) if m["type"] == "error"] == []
    reloaded = Seat(hub, table, token)
    (snap,) = [m for m in await reloaded.hello() if m["type"] == "snapshot"]
    assert snap["lifted"] == str(lifted)
    (watching,) = [m for m in await Seat(hub, table).hello() if m["type"] == "snapshot"]
    assert watching["lifted"] is None  # a spectator is never told
    a.leave()  # the page that lifted it is gone; the reloaded one says nothing more
    clock.advance(15)
    play = mine(reloaded, "play")[-1]
    assert play["card"] == str(lifted) != str(lowest) and play["reason"] == "timeout"
    # the next turn: the lift was of the turn before, and a fresh page is told of none
    await reloaded.send({"type": "back"})
    await run_until(clock, reloaded.my_turn)
    (later,) = [m for m in await Seat(hub, table, token).hello() if m["type"] == "snapshot"]
    assert later["lifted"] is None


async def test_a_turn_that_runs_out_plays_the_card_lifted_on_it(hub_clock: tuple[Hub, ManualClock]) -> None:
    """The web hand's first tap lifts a card ("tap again to play") and tells the server
    (``select``): if the turn runs out, that card is played, not the lowest (a newcomer's try:
    the timer played the 5♥ under the lifted Q♥). A lift from an earlier turn is never played."""
    hub, clock = hub_clock
    table, token = solo(hub, RULES.replace(rounds=1, autoplay_forced=False))
    a = Seat(hub, table, token)
    await a.hello()
    await run_until(clock, a.my_turn)
    # a card before the calls, a card not held, not a card: refused, nothing changes
    for card, code in (("AS", "illegal"), ("ZZ", "bad_card")):
        (err,) = [m for m in await a.send({"type": "select", "card": card, "ref": 1}) if m["type"] == "error"]
        assert err["code"] == code and err["ref"] == 1
    # a call chosen (the terminal chooses the suggested call by itself where a timer runs) is
    # made when the turn runs out, and the expiry counts: it tells of no player there
    await a.send({"type": "select", "call": 2})
    clock.advance(30)
    assert mine(a, "call")[-1]["call"] == 2 and hub.get(table).autopilot.expiries[0] == 1  # type: ignore[union-attr]
    checked = 0
    while checked < 2:
        await run_until(clock, lambda: a.my_turn() and len(a.state["legal_cards"]) > 1)  # type: ignore[index]
        await a.send({"type": "back"})  # (turns of one card that ran out meanwhile may have put a bot in the seat)
        legal = [Card.parse(c) for c in a.state["legal_cards"]]  # type: ignore[index]
        lowest = lowest_action(hub.get(table).state.match.view(0))  # type: ignore[union-attr]
        lifted = max((c for c in legal if c != lowest), key=lambda c: c.rank)
        assert [m for m in await a.send({"type": "select", "card": str(lifted)}) if m["type"] == "error"] == []
        noted = hub.get(table).state.auto_decisions()  # type: ignore[union-attr]  # (turns of one card that ran out)
        clock.advance(15)
        play = mine(a, "play")[-1]
        assert play["card"] == str(lifted) != str(lowest) and play["reason"] == "timeout"
        # the player's own choice: an analysis grades it as theirs (it notes no move made for the seat)
        assert hub.get(table).state.auto_decisions() == noted  # type: ignore[union-attr]
        # and no absence: the player was there, slow to put the card down (a Bengali player's
        # try: two such turns, or one after a lost call, handed the seat to a bot)
        assert hub.get(table).autopilot.expiries[0] == 0  # type: ignore[union-attr]
        assert a.info is not None and not a.info["seats"][0]["autoplay"]
        checked += 1
    # a lift kept from an earlier turn, of a card legal and not the lowest now: the timer plays the lowest
    await run_until(clock, lambda: a.my_turn() and len(a.state["legal_cards"]) > 1)  # type: ignore[index]
    await a.send({"type": "back"})
    live = hub.get(table)
    assert live is not None and live.state.match is not None
    lowest = lowest_action(live.state.match.view(0))
    other = next(Card.parse(c) for c in a.state["legal_cards"] if c != str(lowest))  # type: ignore[index]
    earlier = (live.state.match.round_number, len(live.state.match.redeals), len(live.state.match.round) - 4, 0)
    live.autopilot.selected[0] = (other, earlier)
    noted = len(live.state.auto_decisions())
    clock.advance(15)
    assert mine(a, "play")[-1]["card"] == str(lowest) != str(other)
    assert len(live.state.auto_decisions()) == noted + 1  # the timer's own choice: not the player's


async def test_a_table_reloaded_after_a_failed_commit_tells_its_sockets_to_reconnect(tmp_path: Path) -> None:
    """Another writer took the table's next entry (a failover's race): the action is refused, the
    table rebuilt from its log, and its sockets closed with 1012 (service restart), which a client
    takes as "reconnect"; before, 1000 (normal closure), which a client may take as the end."""
    from callbreak.server.store import SQLiteStore

    hub, _ = await start_hub(tmp_path / "t.db")
    try:
        t, tokens = hub.create_table(Ruleset(), bots="random", play_now=True, seats=[(i, f"P{i}") for i in range(4)])
        seat = t.state.to_act
        assert seat is not None
        me = Seat(hub, t.id, tokens[seat])
        await me.hello()
        other = SQLiteStore(str(tmp_path / "t.db"))
        other.append(t.id, t.state.entries, {"t": "call", "seat": seat, "call": 13}, (), None)
        other.close()
        await me.send({"type": "call", "call": 2, "ref": "mine"})
        assert me.conn.closed and me.conn.close_code == 1012, me.conn.close_code
        fresh = hub.get(t.id)
        assert fresh is not None and fresh is not t and fresh.state.match is not None
        assert fresh.state.match.round.calls[seat] == 13  # the log's, not this process's
    finally:
        await hub.shutdown()
