"""The names bots sit down with: one rule for the web tables and the terminal.

Bots are named from `NAMES` (first names familiar to players in Nepal, India and
Bangladesh), drawn in an order fixed by the table's seed, so the same table (or
the same ``callbreak play --seed``) always gives the same names.  A bot never
takes a name a person at the table uses (compared without case, as a whole and
by its first word), and no two bots share one.

>>> bot_names(["Asha", None, "Bimal", None], seed=7)
('Asha', 'Chandra', 'Bimal', 'Rahul')
>>> bot_names(["Asha", None, "Bimal", None], seed=7) == bot_names(["Asha", None, "Bimal", None], seed=7)
True
>>> bot_names(["chandra k", None, None, None], seed=7)  # not a second Chandra
('chandra k', 'Rahul', 'Ritu', 'Hari')
"""

from __future__ import annotations

import random
from collections.abc import Sequence

__all__ = ["LEVEL_NAMES", "NAMES", "bot_names", "level_name", "same_person"]

NAMES: tuple[str, ...] = (
    "Aarav",
    "Anika",
    "Arjun",
    "Bina",
    "Chandra",
    "Dipak",
    "Farhan",
    "Gita",
    "Hari",
    "Ishaan",
    "Kabir",
    "Laxmi",
    "Maya",
    "Meena",
    "Nabin",
    "Nusrat",
    "Pooja",
    "Priya",
    "Rahul",
    "Rina",
    "Ritu",
    "Sagar",
    "Sita",
    "Suman",
    "Tanvir",
    "Tara",
)
"""Bots' names: short (at most 7 letters, for narrow screens) and all different."""

#: how each bot level is called on screen
LEVEL_NAMES = {"random": "beginner", "easy": "easy", "medium": "medium", "hard": "hard"}


def level_name(level: str) -> str:
    """>>> level_name("random"), level_name("hard")
    ('beginner', 'hard')
    """
    return LEVEL_NAMES.get(level, level)


def _keys(name: str) -> set[str]:
    folded = name.casefold().strip()
    words = folded.split()
    return {folded, words[0]} if words else set()


def same_person(a: str, b: str) -> bool:
    """Whether two names would be read as one person's: the same but for case, or the same
    first word (the rule by which no bot takes a name like a person's at its table).

    >>> same_person("Asha", "asha"), same_person("Asha K", "Asha"), same_person("Asha", "Ashan")
    (True, True, False)
    """
    return bool(_keys(a) & _keys(b))


def bot_names(seats: Sequence[str | None], seed: int, avoid: Sequence[str] = ()) -> tuple[str, ...]:
    """The four seats' names: a person's name as given, a bot (``None``) named by the rule;
    no bot takes a name of ``avoid`` either (a practice table's: the match's players, who sat
    at other seats of the position).

    ``seed`` fixes the order the names are drawn in (a table's seed, a local match's seed).

    >>> names = bot_names(["Asha", None, None, None], seed=7)
    >>> names[0], len(set(names)), names == bot_names(["Asha", None, None, None], seed=7)
    ('Asha', 4, True)
    >>> clear = bot_names(["Asha", None, None, None], seed=7, avoid=names[1:])
    >>> set(clear[1:]) & set(names[1:])
    set()
    """
    if len(seats) != 4:
        raise ValueError(f"a table has four seats, not {len(seats)}")
    if len(avoid) > 4:
        raise ValueError(f"at most four names to avoid (a match's players), not {len(avoid)}")
    taken: set[str] = set()
    for name in [*seats, *avoid]:
        if name is not None:
            taken |= _keys(name)
    order = list(NAMES)
    # a stream of its own: the names say nothing of the deal drawn from the same seed
    random.Random(f"bot names {seed}").shuffle(order)
    free = iter(n for n in order if not _keys(n) & taken)
    # 26 names, at most 3 people and 4 to avoid: 7 * 2 keys can rule out at most 14 of them
    return tuple(name if name is not None else next(free) for name in seats)
