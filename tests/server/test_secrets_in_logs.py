"""What the server logs, and what travels to bot workers, keeps the hands hidden.

The table's seed deals every hand of its match. A bot decision's seed goes on the bot queue
and into the bot, whose `repr` shows it; a failing bot is logged. Found in review: the decision's
seed was ``((table_seed * 4 + seat) << 32) + v``, so a log line of a failing bot gave away every
hand of the match.
"""

from __future__ import annotations

import logging

import pytest
import websockets

from callbreak import Match, Ruleset
from callbreak.bots import Bot
from callbreak.cards import Card
from callbreak.round import SeatView
from callbreak.server.autopilot import decision_seed, seeded_act

from .conftest import Client, Server


class Failing(Bot):
    name = "failing"

    def act(self, view: SeatView) -> int | Card:
        raise RuntimeError("no idea")


def test_a_failing_bots_log_line_does_not_give_the_tables_seed_away(caplog: pytest.LogCaptureFixture) -> None:
    table_seed = 8_123_456_789
    m = Match(Ruleset(), seed=table_seed)
    seat, v = m.to_act, 17
    seed = decision_seed(table_seed, seat, v)
    with caplog.at_level(logging.ERROR, logger="callbreak.server"):
        assert seeded_act(Failing(0), seed, m.view(seat)) is None
    (record,) = caplog.records
    text = caplog.text
    assert "failing" in record.getMessage()  # the bot is named by its level
    assert str(seed) not in text and str(table_seed) not in text
    # nor can the table's seed be read from the decision's (as from the old formula)
    assert ((seed - v) >> 32) // 4 != table_seed and seed >> 34 != table_seed
    # and the decision seeds of one table do not differ by the version alone
    assert decision_seed(table_seed, seat, v + 1) - seed != 1


async def test_no_seat_token_is_logged_even_at_debug_level(make_server) -> None:  # type: ignore[no-untyped-def]
    """An operator's try: at ``--log-level debug`` the web server logged each WebSocket's
    handshake, its seat token with it ("sec-websocket-protocol: callbreak, token.Wq…"): anyone
    reading the log could play that seat."""
    server: Server = make_server(args=["--log-level", "debug"])
    made = server.create(rules={"preset": "quick"}, bots="random", name="Asha", play_now=True)
    a = Client(server, made["table"], made["token"])
    await a.connect()
    await a.wait(lambda c: c.state is not None, timeout=30)
    await a.close()
    # a client of before gives its token in the URL, which the web server logs at info level (a
    # reviewer's read)
    async with websockets.connect(f"{server.ws_base}/ws/{made['table']}?token={made['token']}") as old:
        await old.send('{"type": "hello", "since": 0}')
        await old.recv()
    out = server.stop()
    assert "?token=***" in out
    assert "token.***" in out  # (the handshake was logged: the test saw what it checks)
    assert made["token"] not in out
