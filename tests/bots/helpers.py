"""Shared helpers for the bot tests."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import numpy as np

from callbreak import Round, Ruleset


def random_rules(rng: random.Random) -> Ruleset:
    """A random but valid Ruleset covering the play and scoring variants."""
    min_call = rng.choice([1, 2])
    max_call = rng.choice([max(min_call, 8), 12, 13, max(min_call, rng.randint(1, 13))])
    return Ruleset(
        min_call=min_call,
        max_call=max_call,
        must_head=rng.random() < 0.7,
        head_after_cut=rng.random() < 0.5,
        must_undertrump=rng.random() < 0.3,
        trump=rng.choice("SHDC"),
        trump_lead=rng.choice(["any", "not_first_trick", "after_broken"]),
        overtrick_points=rng.choice(["0.1", "0"]),
        max_overtricks=rng.choice([None, None, 0, 1, 3]),
        missed_penalty=rng.choice(["call", "shortfall", "zero"]),
        bonus_call=rng.choice([None, 8, 5]),
        redeal_without_trump=rng.random() < 0.2,
        min_total_calls=rng.choice([0, 0, 8]),
        rounds=rng.choice([1, 2, None]),
    )


def called_round(rng: random.Random) -> tuple[Ruleset, Round]:
    """A random deal under random rules (never redealt), with random calls made:
    the round is in its playing phase."""
    rules = random_rules(rng).replace(redeal_without_trump=False, min_total_calls=0)
    rnd = Round(rules, Round.deal_hands(rng.randrange(1 << 30)), dealer=rng.randrange(4))
    while rnd.phase == "calling":
        rnd.call(rng.choice(rnd.legal_calls()))
    return rules, rnd


def trick_array(cards: Iterable[int]) -> np.ndarray[Any, np.dtype[np.int64]]:
    """The kernel's form of a trick in progress: four int64 slots, unused ones 0."""
    trick = np.zeros(4, dtype=np.int64)
    for i, c in enumerate(cards):
        trick[i] = c
    return trick


def medium_match_views(match: Any) -> Iterable[Any]:
    """Each view of ``match`` (a `callbreak.Match`) at the seat to act, as four
    medium bots play it to the end; the bot acts after the caller has looked."""
    from callbreak.bots.medium import MediumBot

    bots = [MediumBot(seed=s) for s in range(4)]
    while not match.is_over:
        seat = match.to_act
        assert seat is not None
        view = match.view(seat)
        yield view
        match.act(bots[seat].act(view))
