"""What an episode is, for every environment: one match, its rules, its first deal and the
rewards of its places (no optional dependency: `callbreak.env.single` uses it without PettingZoo).

>>> ruleset_of("quick").rounds, PLACE_REWARD[1]
(3, 1.0)
"""

from __future__ import annotations

import warnings
from typing import Any

from ..match import Match
from ..rules import Ruleset

__all__ = ["AGENTS", "PLACE_REWARD", "match_for", "ruleset_of"]

AGENTS = ("player_0", "player_1", "player_2", "player_3")
"""PettingZoo's agents, the engine's seats 0..3; the match's players are named so too.

>>> AGENTS[0]
'player_0'
"""

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
    >>> m.players
    ['player_0', 'player_1', 'player_2', 'player_3']
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as said:
    ...     warnings.simplefilter("always")
    ...     _ = match_for(Ruleset(), 5, {"delaer": 2})
    >>> str(said[0].message)
    "reset ignores the option 'delaer' (its options: 'dealt', 'dealer')"
    """
    options = options or {}
    unknown = sorted(set(options) - {"dealt", "dealer"})
    if unknown:  # a typo, "delaer", dealt from an unfixed dealer unsaid (PettingZoo's api_test passes
        # an option of its own and wants it taken: a warning, not an error)
        warnings.warn(f"reset ignores the option {unknown[0]!r} (its options: 'dealt', 'dealer')", stacklevel=3)
    dealt = options.get("dealt")
    # the seats named as PettingZoo's agents are (a history saved from an episode read "Player 1" for
    # player_0 in the analysis: a researcher's try)
    return Match(
        rules, seed=seed, dealer=options.get("dealer"), dealt=None if dealt is None else [dealt], players=AGENTS
    )
