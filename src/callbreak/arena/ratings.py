"""OpenSkill (Plackett–Luce) ratings accumulated over arena runs in a JSON file.

A bot is rated under its spec (``hard``, ``http://...``).  When one bot fills
several seats of a match, each seat is rated as a copy of it and the copies'
new ratings are averaged.

>>> import tempfile, os
>>> from callbreak.arena.runner import run_arena
>>> from callbreak import Ruleset
>>> res = run_arena(["random", "random", "random", "random"], 2, seed=1, rules=Ruleset.preset("quick"))
>>> path = os.path.join(tempfile.mkdtemp(), "r.json")
>>> _ = update_ratings(path, res.records, res.specs)
>>> sorted(load_ratings(path)), load_ratings(path)["random"]["matches"]
(['random'], 2)
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from ..extras import need
from .runner import MatchRecord

__all__ = ["load_ratings", "update_ratings"]


def load_ratings(path: str) -> dict[str, dict[str, float]]:
    """The ratings stored at ``path`` ({} when there is no file yet).

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


def update_ratings(path: str, records: Sequence[MatchRecord], specs: Sequence[str]) -> Any:
    """Rate every match of ``records`` (in order), save to ``path``, return a Rich table.

    >>> import os, tempfile
    >>> from callbreak import Ruleset
    >>> from callbreak.arena.runner import run_arena
    >>> specs = ["medium", "easy", "random", "random"]
    >>> res = run_arena(specs, 1, rules=Ruleset.preset("quick", rounds=1), seed=1)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     table = update_ratings(os.path.join(d, "ratings.json"), res.records, specs)
    ...     print(sorted(load_ratings(os.path.join(d, "ratings.json"))))
    ['easy', 'medium', 'random']
    >>> type(table).__name__
    'Table'
    """
    need("the arena's ratings", "plot")
    from openskill.models import PlackettLuce
    from rich.table import Table

    model = PlackettLuce()
    data = load_ratings(path)
    for rec in sorted(records, key=lambda r: r.index):
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
        json.dump(data, f, indent=1, sort_keys=True)
    os.replace(tmp, path)
    table = Table(title=f"OpenSkill ratings ({path})")
    for col in ("bot", "mu", "sigma", "ordinal (mu - 3 sigma)", "matches"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for spec, d in sorted(data.items(), key=lambda kv: -(kv[1]["mu"] - 3 * kv[1]["sigma"])):
        table.add_row(
            spec, f"{d['mu']:.2f}", f"{d['sigma']:.2f}", f"{d['mu'] - 3 * d['sigma']:.2f}", str(d["matches"])
        )
    return table
