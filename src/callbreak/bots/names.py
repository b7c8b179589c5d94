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

A table's bots are named in its players' script (`WRITTEN`: Devanagari for Nepali and Hindi,
Bengali for Bengali; a Hindi player's try read "Meena", "Dipak" on every Hindi screen), and a
name is the same person's in any of its scripts (the try found a bot "Sita" beside a player "सीता"):

>>> bot_names(["सीता", None, None, None], seed=9, lang="hi")
('सीता', 'आरव', 'माया', 'तनवीर')
>>> bot_names(["सीता", None, None, None], seed=9)   # not "Sita" (it was: 'Sita', 'Aarav', 'Maya')
('सीता', 'Aarav', 'Maya', 'Tanvir')
"""

from __future__ import annotations

import random
from collections.abc import Sequence

__all__ = ["LEVEL_NAMES", "NAMES", "WRITTEN", "bot_names", "in_script", "level_name", "same_person", "written"]

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
    "Usha",
)
"""Bots' names: short (at most 7 letters, for narrow screens) and all different."""

#: each of `NAMES` as it is written in Devanagari (Nepali, Hindi) and in Bengali
WRITTEN: dict[str, tuple[str, str]] = {
    "Aarav": ("आरव", "আরভ"),
    "Anika": ("अनिका", "আনিকা"),
    "Arjun": ("अर्जुन", "অর্জুন"),
    "Bina": ("बीना", "বীণা"),  # (not "बिना": the word "without")
    "Chandra": ("चन्द्र", "চন্দ্র"),
    "Dipak": ("दीपक", "দীপক"),
    "Farhan": ("फरहान", "ফারহান"),
    "Gita": ("गीता", "গীতা"),
    "Hari": ("हरि", "হরি"),
    "Ishaan": ("ईशान", "ঈশান"),
    "Kabir": ("कबीर", "কবীর"),
    "Laxmi": ("लक्ष्मी", "লক্ষ্মী"),
    "Maya": ("माया", "মায়া"),
    "Meena": ("मीना", "মীনা"),
    "Nabin": ("नवीन", "নবীন"),
    "Nusrat": ("नुसरत", "নুসরাত"),
    "Pooja": ("पूजा", "পূজা"),
    "Priya": ("प्रिया", "প্রিয়া"),
    "Rahul": ("राहुल", "রাহুল"),
    "Rina": ("रीना", "রিনা"),
    "Ritu": ("रितु", "ঋতু"),
    "Sagar": ("सागर", "সাগর"),
    "Sita": ("सीता", "সীতা"),
    "Suman": ("सुमन", "সুমন"),
    "Tanvir": ("तनवीर", "তানভীর"),
    "Usha": ("उषा", "ঊষা"),  # (not "Tara": in Bengali "তারা" is "they", and "তারা পিঠ জিতেছে" read "they won the trick")
}

#: the languages whose players read the names in another script: its place in `WRITTEN`
_SCRIPT = {"ne": 0, "hi": 0, "bn": 1}

#: every way a name of `NAMES` is written, casefolded, to all of them
_FORMS: dict[str, frozenset[str]] = {
    form: forms for forms in (frozenset({latin.casefold(), *others}) for latin, others in WRITTEN.items()) for form in forms
}

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
    keys = {folded, words[0]} if words else set()
    return keys.union(*(_FORMS.get(k, ()) for k in keys))  # (a bot's name, in any script)


def written(name: str, lang: str) -> str:
    """``name`` (one of `NAMES`) as a player of ``lang`` reads it; any other name as it is.

    >>> written("Meena", "hi"), written("Meena", "bn"), written("Meena", "en"), written("Asha", "ne")
    ('मीना', 'মীনা', 'Meena', 'Asha')
    """
    script = _SCRIPT.get(lang)
    return name if script is None or name not in WRITTEN else WRITTEN[name][script]


def in_script(name: str, lang: str) -> str:
    """A bot's name, as written in any of its scripts, as a reader of ``lang`` reads it (a table's
    bots are named in its maker's script: a Hindi player at a Bengali host's table read "দীপক");
    any other name as it is.

    >>> in_script("দীপক", "hi"), in_script("दीपक", "en"), in_script("Dipak", "bn"), in_script("Asha", "hi")
    ('दीपक', 'Dipak', 'দীপক', 'Asha')
    """
    for key, forms in WRITTEN.items():
        if name == key or name in forms:
            return written(key, lang)
    return name


def same_person(a: str, b: str) -> bool:
    """Whether two names would be read as one person's: the same but for case, or the same
    first word (the rule by which no bot takes a name like a person's at its table).

    >>> same_person("Asha", "asha"), same_person("Asha K", "Asha"), same_person("Asha", "Ashan")
    (True, True, False)
    >>> same_person("Sita", "सीता"), same_person("সীতা দাস", "Sita"), same_person("Sita", "Gita")
    (True, True, False)
    """
    return bool(_keys(a) & _keys(b))


def bot_names(seats: Sequence[str | None], seed: int, avoid: Sequence[str] = (), lang: str = "en") -> tuple[str, ...]:
    """The four seats' names: a person's name as given, a bot (``None``) named by the rule, as
    a player of ``lang`` reads it (`written`); no bot takes a name of ``avoid`` either (a
    practice table's: the match's players, who sat at other seats of the position).

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
    return tuple(name if name is not None else written(next(free), lang) for name in seats)
