"""The shipped calling model loads and is sane; calls fit the rules; hints are legal."""

from __future__ import annotations

import json
import random
from importlib import resources

import pytest

from callbreak import Match, Round, Ruleset
from callbreak.bots import make_bot
from callbreak.bots.calling import (
    FEATURES,
    CallModel,
    best_call,
    call_values,
    features,
    load_model,
    trick_distribution,
)
from callbreak.bots.hints import hint
from callbreak.cards import mask_of
from tests.bots.helpers import random_rules


def test_data_file_loads_and_distributions_sum_to_one() -> None:
    data = json.loads(resources.files("callbreak.bots").joinpath("data/calls.json").read_text())
    assert set(data["models"]) == {"head", "free"}
    for family in ("head", "free"):
        model = load_model(family)
        assert model.meta["samples"] >= 5000  # trained, not the untrained default
        for mu in (0.0, 0.3, 2.5, 4.75, 9.0, 13.0, 20.0, -3.0):
            d = model.dist_for(mu)
            assert len(d) == 14 and abs(sum(d) - 1) < 1e-9 and min(d) >= 0
        # the distribution follows the estimate
        means = [sum(t * p for t, p in enumerate(model.dist_for(mu))) for mu in (1, 3, 5, 7)]
        assert means == sorted(means) and means[0] < 2 < 4 < means[3]


def test_stronger_hands_expect_more_tricks() -> None:
    model = load_model()
    weak = mask_of(["2S", "3H", "4H", "5H", "6H", "2D", "3D", "4D", "5D", "2C", "3C", "4C", "6C"])
    strong = mask_of(["AS", "KS", "QS", "JS", "TS", "AH", "KH", "AD", "KD", "AC", "2C", "3C", "4C"])
    assert model.mean(weak, 0, 0, 0) < 1.0 < 7.0 < model.mean(strong, 0, 0, 0)
    assert len(features(weak, 0, 0, 0)) == len(FEATURES) == len(model.weights)


def test_bad_model_data_is_rejected() -> None:
    with pytest.raises(ValueError):
        CallModel([0.0] * 3, [[1.0] * 14] * 27, {})
    with pytest.raises(ValueError):
        CallModel([0.0] * len(FEATURES), [[-1.0] * 14] * 27, {})


def test_calls_follow_the_scoring() -> None:
    rnd = Round(Ruleset(), Round.deal_hands(seed=21), dealer=3)
    v = rnd.view(0)
    # a certain 5 tricks: standard calls 5; pagat (bonus at 8, one overtrick allowed) also 5;
    # with missed calls costing nothing, calling high is free
    sure5 = tuple(1.0 if t == 5 else 0.0 for t in range(14))
    assert best_call(v, sure5) == (5, 1.0)
    zero = Round(Ruleset(missed_penalty="zero"), Round.deal_hands(seed=21), dealer=3).view(0)
    spread = tuple(0.2 if 2 <= t <= 6 else 0.0 for t in range(14))  # 2 to 6 tricks, alike
    assert best_call(zero, spread)[0] == 3 > best_call(v, spread)[0] == 2
    vals = call_values(v, sure5)
    assert vals[5] > vals[4] > vals[3] and vals[6] < 0


def test_last_round_behind_calls_bolder() -> None:
    m = Match(Ruleset.preset("quick"), seed=5)
    bots = [make_bot("medium", seed=s) for s in range(4)]
    while m.round_number < 3:
        m.act(bots[m.to_act].act(m.view(m.to_act)))  # type: ignore[index]
    seat = m.to_act
    assert seat is not None
    v = m.view(seat)
    d = trick_distribution(v)
    from dataclasses import replace

    ahead = replace(v, totals=tuple(30 if s == seat else 0 for s in range(4)))  # type: ignore[misc]
    # 4 points behind everyone before the last round: a call one higher may still win the match
    behind = replace(v, totals=tuple(0 if s == seat else 4 for s in range(4)))  # type: ignore[misc]
    assert best_call(behind, d)[0] == 7 > best_call(ahead, d)[0] == 6


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_hints_are_legal(level: str) -> None:
    rng = random.Random(9)
    seen_call = seen_card = 0
    for i in range(6):
        rules = random_rules(rng).replace(rounds=1)
        m = Match(rules, seed=i)
        bots = [make_bot("medium", seed=s) for s in range(4)]
        while not m.is_over:
            seat = m.to_act
            assert seat is not None
            v = m.view(seat)
            if rng.random() < (0.3 if level == "medium" else 0.08):
                h = hint(v, level=level)
                if v.phase == "calling":
                    assert h.call in v.legal_calls and h.chance is not None and 0 <= h.chance <= 1
                    seen_call += 1
                else:
                    assert h.card in v.legal_cards and h.reason
                    seen_card += 1
                assert set(h.to_dict()) == {"call", "chance", "card", "reason", "why", "mean", "than", "quick", "level"}
                assert h.level == level  # no warm-up gate here: the level asked for answers
            m.act(bots[seat].act(v))
    assert seen_call and seen_card


def test_the_hard_hints_call_is_the_hard_bots_call() -> None:
    """A Bengali player's try: the hint said call 4 (the calling model's best call, the medium
    level's), the analysis after the match "call 5 was better". The hard hint's call is the hard
    level's call search's (the analysis' best in 34 of 40 first calls where the model's was in 26:
    `benchmarks/hint_calls.py`)."""
    from callbreak.bots.hard import HardBot
    from callbreak.bots.hints import _seed_of

    differ = 0
    for seed in range(12):
        m = Match(Ruleset.preset("bhoos"), seed=seed)
        v = m.view(m.to_act)
        h = hint(v)
        assert h.call == HardBot(seed=_seed_of(v)).act(v) and h.level == "hard", seed
        differ += h.call != hint(v, level="medium").call
    assert differ  # (a hint of its own: not the model's call under another name)


def test_hint_needs_a_turn() -> None:
    rnd = Round(Ruleset(), Round.deal_hands(seed=1), dealer=3)
    with pytest.raises(ValueError):
        hint(rnd.view(2))
    with pytest.raises(ValueError):
        hint(rnd.view(0), level="expert")


def test_every_reason_a_hint_gives_has_words_and_every_worded_reason_is_given() -> None:
    from callbreak.bots.medium import WHY
    from callbreak.i18n import catalogue

    worded = {k.removeprefix("hint.why.") for k in catalogue("en") if k.startswith("hint.why.")}
    assert worded == set(WHY) | {"call", "call_first", "search", "quick"}


def test_a_hard_call_hint_that_aims_at_first_place_says_so_with_the_searchs_own_chance() -> None:
    """A one-round match: to finish first the hard level's search calls 4 on a hand the calling
    model expects 2.6 tricks of (a Hindi friend's try: "Suggested: 4 · 4% chance to make it", the
    model's chance beside the search's call, read as a mistake). The chance is the share of the
    search's own playouts in which the call was made, and the reason says what the call is for;
    in a match's first round of five the same seat's call is an ordinary one."""
    from callbreak.bots.hard import HardBot
    from callbreak.bots.hints import _seed_of

    m = Match(Ruleset.preset("quick", rounds=1), seed=14)
    view = m.view(m.to_act)
    h = hint(view)
    model_call, _ = best_call(view)
    assert (h.call, h.why, model_call) == (4, "call_first", 2)
    bot = HardBot(seed=_seed_of(view))  # (the hint's own bot)
    assert bot.act(view) == 4 and h.chance == bot.made_rates[4]
    assert 0.0 < h.chance < 0.5 and bot.made_rates[2] > 0.5
    assert "finishing first" in h.reason
    five = Match(Ruleset.preset("standard"), seed=14)
    assert hint(five.view(five.to_act)).why == "call"
    # the calling model's own call, seldom made (pagat: one overtrick at most), is no long shot
    # (a reviewer's read: every hard call under 50 % was said to aim at first place)
    pagat = Match(Ruleset.preset("pagat"), seed=1)
    view = pagat.view(pagat.to_act)
    h = hint(view)
    assert h.call == best_call(view)[0] and h.chance < 0.5 and h.why == "call"
