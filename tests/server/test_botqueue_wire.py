"""The bot queue's request carries only what the seat to act may see, and a worker on another
host rebuilds exactly the view the table had (`SeatView.from_dict`)."""

from __future__ import annotations

import asyncio
import random

import msgspec
import pytest

from callbreak import Match, Ruleset
from callbreak.server.autopilot import earlier_views
from callbreak.server.botpool import BotAsk
from callbreak.server.botqueue import decode_request, earlier_of, encode_request, request_of, view_of

from .conftest import CountingMeter, cards_in
from .inprocess import until


@pytest.mark.parametrize("preset", ["quick", "pagat", "standard"])
def test_every_request_of_a_match_holds_the_seats_own_cards_and_no_other(preset: str) -> None:
    m = Match(Ruleset.preset(preset), seed=11)
    rng = random.Random(4)
    n = 0
    while m.to_act is not None and n < 300:
        seat = m.to_act
        view = m.view(seat)
        raw = encode_request(request_of(BotAsk("t", n, seat, "medium", n, view), "r", f"x:{n}", 0))
        req = decode_request(raw)
        seen = cards_in(msgspec.json.decode(raw))
        others = {str(c) for s, hand in enumerate(m.round.hands) if s != seat for c in hand}
        assert not seen & others, (n, seen & others)
        assert {str(c) for c in view.hand} <= seen
        assert view_of(req) == view
        m.act(rng.choice(view.legal_calls if view.phase == "calling" else view.legal_cards))
        n += 1
    assert n >= 56


def test_a_malformed_request_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError):
        decode_request(b'{"id": "x"}')
    m = Match(seed=1)
    req = request_of(BotAsk("t", 0, m.to_act, "medium", 0, m.view(m.to_act)), "r", "x", 0)
    bad = msgspec.structs.replace(req, view={**req.view, "hand": ["ZZ"]})
    with pytest.raises(ValueError):
        view_of(decode_request(encode_request(bad)))


def test_a_request_carries_the_earlier_rounds_only_as_played_in_the_open() -> None:
    """For a bot that learns from the whole match, a request carries the seat's view of each
    finished round at its end: no hand left, every card of the round in its tricks (all of them
    played face up), and a worker rebuilds exactly those views; other bots' requests carry none."""
    m = Match(Ruleset.preset("bhoos").replace(rounds=3), seed=5)
    rng = random.Random(2)
    checked = 0
    while m.to_act is not None:
        seat = m.to_act
        view = m.view(seat)
        if view.round_number > 1 and checked < 8:
            earlier = earlier_views(m, seat)
            raw = encode_request(request_of(BotAsk("t", 0, seat, "hard", 0, view, earlier), "r", "x", 0))
            sent = msgspec.json.decode(raw)["earlier"]
            assert len(sent) == view.round_number - 1
            assert all(e["hand"] == [] and len(cards_in(e["tricks"])) == 52 for e in sent)
            assert earlier_of(decode_request(raw)) == earlier
            plain = encode_request(request_of(BotAsk("t", 0, seat, "medium", 0, view), "r", "x", 0))
            assert b"earlier" not in plain
            checked += 1
        m.act(rng.choice(view.legal_calls if view.phase == "calling" else view.legal_cards))
    assert checked == 8


async def test_a_bot_queue_out_of_reach_is_said_once_not_at_every_decision(caplog: pytest.LogCaptureFixture) -> None:
    """Found by an operator's try: with Redis gone, every bot decision of every table logged a
    warning (20 lines in 15 s for one table). Said once as it goes; each decision is asked again
    until its deadline (on the table's clock, which the test moves), then falls back to the lowest
    legal action and is counted."""
    import logging

    from callbreak.server.botqueue_redis import RedisBotQueue
    from callbreak.server.clock import ManualClock
    from callbreak.server.config import ServerConfig

    from .conftest import free_port

    meter = CountingMeter()
    clock = ManualClock()
    q = RedisBotQueue(ServerConfig(redis=f"redis://127.0.0.1:{free_port()}/0", namespace="cb"), clock, lambda: meter)
    m = Match(seed=3)
    try:
        with caplog.at_level(logging.WARNING, logger="callbreak"):
            for v in range(5):
                asked = asyncio.ensure_future(q.decide(BotAsk("t1", v, m.to_act, "medium", v, m.view(m.to_act))))
                tries = q._asking.failures + 2
                await until(lambda t=tries: q._asking.failures >= t)  # asked, refused, asked again
                assert not asked.done()  # (waiting for its deadline)
                clock.advance(q.deadline)
                assert await asked is None
    finally:
        await q.redis.aclose()
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and said[0].startswith("bot queue: asking the bot workers"), said
    assert meter.outcomes == ["failed"] * 5
