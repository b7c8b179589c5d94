"""No bot ever makes an illegal move, under random rulesets, at every level."""

from __future__ import annotations

import random

import pytest

from callbreak import Card, Match
from callbreak.bots import Bot, make_bot
from callbreak.bots.hard import HardBot
from tests.bots.helpers import random_rules


def _bots(level: str, seed: int) -> list[Bot]:
    if level == "hard":
        return [HardBot(seed=seed + s, iterations=24) for s in range(4)]
    return [make_bot(level, seed=seed + s) for s in range(4)]


def _fuzz(level: str, matches: int, seed: int) -> int:
    rng = random.Random(seed)
    decisions = 0
    for i in range(matches):
        rules = random_rules(rng)
        m = Match(rules, seed=rng.randrange(1 << 30))
        bots = _bots(level, seed * 100 + i)
        rounds_cap = 2
        while not m.is_over:
            seat = m.to_act
            assert seat is not None
            v = m.view(seat)
            a = bots[seat].act(v)
            if v.phase == "calling":
                assert isinstance(a, int) and not isinstance(a, Card)
                assert a in v.legal_calls, (rules, v.legal_calls, a)
            else:
                assert isinstance(a, Card), a
                assert a in v.legal_cards, (rules.to_dict(), v.to_dict(), a)
            m.act(a)  # the engine would raise IllegalAction too
            decisions += 1
            if m.rules.rounds is None and len(m.rounds) >= rounds_cap and len(m.round) == 0:
                m.end()
    return decisions


@pytest.mark.parametrize("level", ["random", "easy", "medium"])
def test_rule_bots_always_legal(level: str) -> None:
    assert _fuzz(level, 60, seed=11) > 5000


def test_hard_always_legal() -> None:
    assert _fuzz("hard", 12, seed=12) > 1000


@pytest.mark.parametrize("level", ["random", "easy", "medium", "hard", "spar-simple", "spar-pimc", "spar-ismcts"])
def test_a_bot_asked_out_of_turn_says_so(level: str) -> None:
    # Found in a newcomer's try: each level failed its own way (IndexError, an argmax of nothing).
    from callbreak.errors import IllegalAction

    class Mixin:
        def act(self, view: object) -> int:
            return 1

    class Mixed(Mixin, Bot):  # (an act from a class before Bot is checked too)
        pass

    m = Match(seed=1, dealer=3)  # seat 0 calls first
    for bot in (make_bot(level, seed=1), Mixed()):
        with pytest.raises(IllegalAction, match="seat 2 is asked to act, but seat 0 is to act now"):
            bot.act(m.view(2))
