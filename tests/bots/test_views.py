"""Bots see only their view: same view, same seed, same decision; and determinism."""

from __future__ import annotations

import random

import pytest

from callbreak import CallAction, Card, Match, Round, Ruleset
from callbreak.bots import Bot, make_bot
from callbreak.bots.hard import HardBot
from callbreak.cards import FULL_DECK, cards_of

LEVELS = ["random", "easy", "medium", "hard"]


def _bot(level: str, seed: int) -> Bot:
    if level == "hard":
        return HardBot(seed=seed, iterations=300)
    return make_bot(level, seed=seed)


def _twin(rnd: Round, seat: int, rng: random.Random) -> Round | None:
    """The same round with the cards the seat cannot see dealt differently among
    the others, keeping every card they played (None if the plays are not legal there)."""
    played_by = [0, 0, 0, 0]
    for t in rnd.tricks:
        for i, c in enumerate(t.cards):
            played_by[(t.leader + i) % 4] |= 1 << c
    for s, c in rnd.trick_seats:
        played_by[s] |= 1 << c
    others = [s for s in range(4) if s != seat]
    pool = [c for s in others for c in cards_of(rnd.hand_masks[s])]
    rng.shuffle(pool)
    hands = [0, 0, 0, 0]
    hands[seat] = sum(1 << c for c in rnd.dealt[seat])
    pos = 0
    for s in others:
        n = rnd.hand_masks[s].bit_count()
        hands[s] = played_by[s] | sum(1 << c for c in pool[pos : pos + n])
        pos += n
    assert (hands[0] | hands[1] | hands[2] | hands[3]) == FULL_DECK
    actions: list[int | Card] = [a.call if isinstance(a, CallAction) else a.card for a in rnd.actions]
    try:
        return Round.from_actions(rnd.rules, hands, rnd.dealer, actions)
    except ValueError:
        return None


@pytest.mark.parametrize("level", LEVELS)
def test_decision_depends_only_on_the_view(level: str) -> None:
    rng = random.Random(4)
    compared = differed = 0
    for trial in range(40):
        rules = Ruleset(must_head=trial % 2 == 0, max_overtricks=None if trial % 3 else 1)
        rnd = Round(rules, Round.deal_hands(rng.randrange(1 << 30)), dealer=trial % 4)
        bots = [make_bot("medium", seed=s) for s in range(4)]
        stop = rng.randrange(0, 40)
        while len(rnd) < 4 + stop:
            rnd.act(bots[rnd.to_act].act(rnd.view(rnd.to_act)))  # type: ignore[index]
        seat = rnd.to_act
        assert seat is not None
        twin = _twin(rnd, seat, rng)
        if twin is None:
            continue
        assert twin.view(seat) == rnd.view(seat)
        differed += twin.hand_masks != rnd.hand_masks
        a = _bot(level, seed=trial).act(rnd.view(seat))
        b = _bot(level, seed=trial).act(twin.view(seat))
        assert a == b
        compared += 1
    assert compared >= 20 and differed >= 15


@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_same_match(level: str) -> None:
    def run() -> list[object]:
        m = Match(Ruleset.preset("quick", rounds=2), seed=77)
        bots = [_bot(level, seed=10 + s) for s in range(4)]
        log: list[object] = []
        while not m.is_over:
            seat = m.to_act
            assert seat is not None
            a = bots[seat].act(m.view(seat))
            log.append(a)
            m.act(a)
        log.append(tuple(m.totals))
        return log

    assert run() == run()


def test_reset_restarts_the_random_stream() -> None:
    bot = make_bot("random", seed=3)
    rnd = Round(Ruleset(), Round.deal_hands(1), dealer=3)
    first = [bot.act(rnd.view(0)) for _ in range(5)]
    bot.reset()
    assert [bot.act(rnd.view(0)) for _ in range(5)] == first
