"""Reading the match to analyse: a hand history (text or JSON, `callbreak.notation`) or a
server table's action log (``/api/tables/ID/history?format=log``).

>>> from callbreak import Match, Ruleset
>>> from callbreak.notation import dumps
>>> m = Match(Ruleset.preset("quick"), seed=4)
>>> for a in (2, 3, 2, 3): _ = m.act(a)
>>> load_match(dumps(m)).actions() == m.actions()
True
>>> log = ('{"rules": %s, "seed": 4, "dealer": %d, "players": ["A", "B", "C", "D"], '
...        '"actions": [{"seat": 1, "call": 2}]}') % (__import__("json").dumps(m.rules.to_dict()), m.first_dealer)
>>> load_match(log).actions()
[2]
>>> from callbreak.notation import auto_decisions   # the calls and cards the server made for a seat
>>> auto_decisions(load_match(log.replace('"actions"', '"auto": "0:0 timeout", "actions"')))
{(0, 0): 'timeout'}
>>> load_match(log.replace('"actions"', '"auto": "0:7 timeout", "actions"'))
Traceback (most recent call last):
...
callbreak.errors.HistoryError: the Auto tag: deal 0 has no step 7 (1 action)
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import HistoryError, IllegalAction
from ..match import Match
from ..notation import AUTO_TAG, auto_decisions, from_json, loads
from ..rules import Ruleset
from .practice import Position, start_position

__all__ = ["load_match"]


def load_match(text: str) -> Match:
    """The match of ``text``: a text hand history, its JSON form, or a server log.

    Raises `HistoryError` for anything else, or a log whose actions the engine refuses.

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.notation import dumps, to_json
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=2)
    >>> for a in (2, 3, 2, 3): _ = m.act(a)
    >>> load_match(dumps(m)).round.calls, load_match(to_json(m)).round.calls
    ([3, 2, 3, 2], [3, 2, 3, 2])
    >>> try:
    ...     load_match("{not json")
    ... except HistoryError as e:
    ...     print(str(e)[:8])
    not JSON
    """
    if not text.lstrip().startswith("{"):
        return loads(text)
    try:
        data = json.loads(text)
    except ValueError as e:
        raise HistoryError(f"not JSON: {e}") from None
    if isinstance(data, dict) and "actions" in data and "deals" not in data:
        return _from_log(data)
    return from_json(text)


def _from_log(d: dict[str, Any]) -> Match:
    try:
        if d.get("practice") is not None:  # a practice table: from its position
            m = start_position(Position.from_dict(d["practice"]), int(d["seed"]), d.get("players"))
        else:
            m = Match(
                Ruleset.from_dict(d["rules"]),
                int(d["seed"]),
                dealer=int(d["dealer"]),
                players=d.get("players"),
            )
        for a in d["actions"]:
            m.act(int(a["call"]) if "call" in a else str(a["card"]))
    except (KeyError, TypeError, ValueError, IllegalAction) as e:
        raise HistoryError(f"not a server log of a match: {e}") from None
    if d.get("auto"):  # the calls and cards the server made for a seat: not the player's
        m.tags[AUTO_TAG] = str(d["auto"])
        auto_decisions(m)  # (checked: a HistoryError that says what is wrong)
    return m
