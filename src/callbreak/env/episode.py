"""What an episode is, for every environment: one match, its rules, its first deal and the
rewards of its places (no optional dependency: `callbreak.env.single` uses it without PettingZoo).

>>> ruleset_of("quick").rounds, PLACE_REWARD[1]
(3, 1.0)
"""

from __future__ import annotations

from typing import Any

from ..match import Match
from ..rules import Ruleset

__all__ = ["PLACE_REWARD", "match_for", "ruleset_of"]

PLACE_REWARD = {1: 1.0, 2: 1 / 3, 3: -1 / 3, 4: -1.0}
"""The reward of each place under ``reward="places"``."""


def ruleset_of(ruleset: Ruleset | str | None) -> Ruleset:
    """A `Ruleset` from one, a preset's name, or None (the standard rules); it must fix the rounds.

    >>> ruleset_of("quick").rounds, ruleset_of(None) == Ruleset()
    (3, True)
    >>> try:
    ...     ruleset_of(Ruleset(rounds=None))
    ... except ValueError as e:
    ...     print(e)
    an episode is one match: the ruleset must fix the number of rounds
    """
    if ruleset is None:
        rules = Ruleset()
    elif isinstance(ruleset, str):
        rules = Ruleset.preset(ruleset)
    elif isinstance(ruleset, Ruleset):
        rules = ruleset
    else:
        raise ValueError(f"ruleset must be a Ruleset or a preset's name, not {ruleset!r}")
    if rules.rounds is None:
        raise ValueError("an episode is one match: the ruleset must fix the number of rounds")
    return rules


def match_for(rules: Ruleset, seed: int, options: dict[str, Any] | None) -> Match:
    """The match a ``reset`` starts: ``seed``, and the ``dealt`` hands (one deal: four hand
    masks or card lists) and ``dealer`` of ``options`` where given.

    >>> m = match_for(Ruleset(), seed=5, options={"dealer": 2})
    >>> m.round.dealer, m.to_act, match_for(Ruleset(), 5, None).round.hands == match_for(Ruleset(), 5, {}).round.hands
    (2, 3, True)
    """
    options = options or {}
    dealt = options.get("dealt")
    return Match(rules, seed=seed, dealer=options.get("dealer"), dealt=None if dealt is None else [dealt])
