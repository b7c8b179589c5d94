"""The hard bot's thinking budget: playout counts in seeded runs, a clock only in serving."""

from __future__ import annotations

import pytest

from callbreak import Match, Ruleset
from callbreak.arena.runner import seat_bot
from callbreak.bots.hard import DECISIONS, HardBot
from callbreak.remote.server import BotService


def test_think_scales_the_playout_budgets_and_adds_no_clock() -> None:
    bot = HardBot(seed=1, think=0.6)
    assert (bot.iterations, bot.max_deals, bot.call_deals, bot.time_limit) == (19200, 640, 480, None)
    bot.think_for(0.15)  # from the settings it was made with, not the last ones
    assert (bot.iterations, bot.max_deals, bot.call_deals) == (4800, 160, 120)
    with pytest.raises(ValueError, match="positive"):
        bot.think_for(0)


def test_a_seeded_match_with_a_think_budget_replays() -> None:
    def play() -> list[object]:
        m = Match(Ruleset.preset("quick", rounds=1), seed=9)
        bots = [HardBot(seed=s, think=0.01) for s in range(4)]
        out: list[object] = []
        while (seat := m.to_act) is not None:
            out.append(bots[seat].act(m.view(seat)))
            m.act(out[-1])
        return out

    assert play() == play()


def test_the_arena_gives_hard_seats_the_budget_as_playouts() -> None:
    bot = seat_bot("hard", 0, think=1.5)
    assert isinstance(bot, HardBot) and bot.iterations == 48000 and bot.time_limit is None
    assert seat_bot("medium", 0, think=1.5).name == "medium"  # a level without a budget ignores it


def test_serving_caps_each_decision_at_its_share_of_the_round() -> None:
    service = BotService("hard", think=1.3)
    bot = service._bot()
    assert isinstance(bot, HardBot)
    assert bot.iterations == 41600 and bot.time_limit == pytest.approx(1.3 / DECISIONS)
    with pytest.raises(ValueError, match="positive"):
        BotService("hard", think=-1.0)
