"""OpenSkill (Plackett–Luce) ratings accumulated over arena runs in a JSON file.

A bot is rated under its spec (``hard``, ``http://...``, ``file.py:Class``: a file edited
between runs is still the same spec).  When one bot fills several seats of a match, each
seat is rated as a copy of it and the copies' new ratings are averaged.  The file also keeps
which matches it has rated (under the ``""`` key: each match's bots in their order, rules,
deal, seats and outcome), so a run played again with the same seed counts nothing twice,
while one whose bots played otherwise (another ``--think``, a bot's file edited) counts.

>>> import tempfile, os
>>> from callbreak.arena.runner import run_arena
>>> from callbreak import Ruleset
>>> res = run_arena(["random", "random", "random", "random"], 2, seed=1, rules=Ruleset.preset("quick"))
>>> path = os.path.join(tempfile.mkdtemp(), "r.json")
>>> update_ratings(path, res.records, res.specs, res.rules)[1]   # matches already rated: none
0
>>> sorted(load_ratings(path)), load_ratings(path)["random"]["matches"]
(['random'], 2)
>>> update_ratings(path, res.records, res.specs, res.rules)[1], load_ratings(path)["random"]["matches"]
(2, 2)
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from typing import Any

from ..extras import need
from ..rules import Ruleset
from .runner import MatchRecord

__all__ = ["load_ratings", "match_key", "update_ratings"]


#: the file's key for the matches rated so far (a spec is never empty)
_RATED = ""


def load_ratings(path: str) -> dict[str, dict[str, float]]:
    """The ratings stored at ``path`` by spec ({} when there is no file yet).

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     print(load_ratings(os.path.join(d, "ratings.json")))
    {}
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
    ...     _ = f.write("not json")
    ...     f.flush()
    ...     load_ratings(f.name)
    Traceback (most recent call last):
    ...
    ValueError: ... does not hold ratings: Expecting value: line 1 column 1 (char 0)
    """
    data = _load(path)
    data.pop(_RATED, None)
    return data


def _load(path: str) -> dict[str, Any]:
    if not os.path.exists(path):
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path} does not hold ratings: {e}") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError(f"{path} does not hold ratings")
    return data


def match_key(specs: Sequence[str], rules: Ruleset, rec: MatchRecord) -> str:
    """What makes a match the same match again: its bots in order, its rules, its deal, its seats,
    and how it went (every call, trick and total: the same bots playing otherwise is new evidence).

    >>> from callbreak.arena.runner import run_arena
    >>> res = run_arena(["random"] * 4, 2, seed=1, rules=Ruleset.preset("quick", rounds=1))
    >>> a, b = (match_key(res.specs, res.rules, r) for r in res.records)
    >>> len(a), a == b, a == match_key(res.specs, res.rules, res.records[0])
    (16, False, True)
    """
    what = json.dumps(
        [list(specs), rules.to_dict(), rec.deal_seed, rec.rotation, rec.calls, rec.tricks, rec.totals], sort_keys=True
    )
    return hashlib.blake2b(what.encode(), digest_size=8).hexdigest()


def update_ratings(path: str, records: Sequence[MatchRecord], specs: Sequence[str], rules: Ruleset) -> tuple[Any, int]:
    """Rate every match of ``records`` (in order) not rated before, save to ``path``; return a
    Rich table and the number of matches left out as rated already.

    >>> import os, tempfile
    >>> from callbreak import Ruleset
    >>> from callbreak.arena.runner import run_arena
    >>> specs = ["medium", "easy", "random", "random"]
    >>> res = run_arena(specs, 1, rules=Ruleset.preset("quick", rounds=1), seed=1)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     table, _ = update_ratings(os.path.join(d, "ratings.json"), res.records, specs, res.rules)
    ...     print(sorted(load_ratings(os.path.join(d, "ratings.json"))))
    ['easy', 'medium', 'random']
    >>> type(table).__name__
    'Table'
    """
    need("the arena's ratings", "plot")
    from openskill.models import PlackettLuce
    from rich.table import Table

    model = PlackettLuce()
    data = _load(path)
    rated = set(data.pop(_RATED, {}).get("matches", []))
    again = 0
    for rec in sorted(records, key=lambda r: r.index):
        key = match_key(specs, rules, rec)
        if key in rated:
            again += 1
            continue
        rated.add(key)
        teams = []
        for spec in specs:
            d = data.get(spec, {})
            teams.append([model.rating(mu=d.get("mu"), sigma=d.get("sigma"), name=spec)])
        new = model.rate(teams, ranks=[float(p) for p in rec.places])
        acc: dict[str, list[Any]] = {}
        for spec, team in zip(specs, new):
            acc.setdefault(spec, []).append(team[0])
        for spec, rs in acc.items():
            d = data.setdefault(spec, {"mu": 25.0, "sigma": 25.0 / 3, "matches": 0})
            d["mu"] = sum(r.mu for r in rs) / len(rs)
            d["sigma"] = sum(r.sigma for r in rs) / len(rs)
            d["matches"] = int(d.get("matches", 0)) + 1
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data | {_RATED: {"matches": sorted(rated)}}, f, indent=1, sort_keys=True)
    os.replace(tmp, path)
    table = Table(title=f"OpenSkill ratings ({path})")
    for col in ("bot", "mu", "sigma", "ordinal (mu - 3 sigma)", "matches"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for spec, d in sorted(data.items(), key=lambda kv: -(kv[1]["mu"] - 3 * kv[1]["sigma"])):
        table.add_row(
            spec, f"{d['mu']:.2f}", f"{d['sigma']:.2f}", f"{d['mu'] - 3 * d['sigma']:.2f}", str(d["matches"])
        )
    return table, again
