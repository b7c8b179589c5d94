"""What an episode is, for every environment: one match, its rules, its first deal and the
rewards of its places (no optional dependency: `callbreak.env.single` uses it without PettingZoo).

>>> ruleset_of("quick").rounds, PLACE_REWARD[1]
(3, 1.0)
"""

from __future__ import annotations

import os
import sys
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


def match_for(rules: Ruleset, seed: int, options: dict[str, Any] | None, *, warn: bool = False) -> Match:
    """The match a ``reset`` starts: ``seed``, and the ``dealt`` hands (one deal: four hand
    masks or card lists) and ``dealer`` of ``options`` where given; with ``warn``, a warning
    names the options it does not know (``reset`` checks its options so, once, before it starts).

    >>> m = match_for(Ruleset(), seed=5, options={"dealer": 2})
    >>> m.round.dealer, m.to_act, match_for(Ruleset(), 5, None).round.hands == match_for(Ruleset(), 5, {}).round.hands
    (2, 3, True)
    >>> m.players
    ['player_0', 'player_1', 'player_2', 'player_3']
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as said:
    ...     warnings.simplefilter("always")
    ...     _ = match_for(Ruleset(), 5, {"delaer": 2, "seat": 1}, warn=True)
    >>> str(said[0].message)
    "reset ignores the options 'delaer', 'seat' (its options: 'dealt', 'dealer')"
    """
    options = options or {}
    unknown = sorted(set(options) - {"dealt", "dealer"})
    if warn and unknown:  # a typo, "delaer", dealt from an unfixed dealer unsaid (PettingZoo's
        # api_test passes an option of its own and wants it taken: a warning, not an error)
        names = ", ".join(repr(k) for k in unknown)
        warnings.warn(
            f"reset ignores the option{'s' if len(unknown) > 1 else ''} {names} (its options: 'dealt', 'dealer')",
            stacklevel=_callers_level(),
        )
    dealt = options.get("dealt")
    # the seats named as PettingZoo's agents are (a history saved from an episode read "Player 1" for
    # player_0 in the analysis: a researcher's try)
    return Match(
        rules, seed=seed, dealer=options.get("dealer"), dealt=None if dealt is None else [dealt], players=AGENTS
    )


#: the code between a researcher's ``reset`` and `match_for`: a warning names the line above it
_ENVS = os.path.dirname(os.path.abspath(__file__)) + os.sep
_WRAPPERS = (os.sep + "pettingzoo" + os.sep, os.sep + "gymnasium" + os.sep)


def _callers_level() -> int:
    """The ``stacklevel`` (for a warning of the function calling this) of the first frame outside
    this package's environments and the PettingZoo and Gymnasium wrappers around them.

    >>> _callers_level()   # (a doctest's line is outside them)
    1
    """
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and (
        frame.f_code.co_filename.startswith(_ENVS) or any(w in frame.f_code.co_filename for w in _WRAPPERS)
    ):
        frame, level = frame.f_back, level + 1
    return level
