"""The bot queue's request carries only what the seat to act may see, and a worker on another
host rebuilds exactly the view the table had (`SeatView.from_dict`)."""

from __future__ import annotations

import random

import msgspec
import pytest

from callbreak import Match, Ruleset
from callbreak.server.botpool import BotAsk
from callbreak.server.botqueue import decode_request, encode_request, request_of, view_of

from .conftest import cards_in


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
