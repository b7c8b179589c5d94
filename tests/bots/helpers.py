"""Shared helpers for the bot tests."""

from __future__ import annotations

import random

from callbreak import Ruleset


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
