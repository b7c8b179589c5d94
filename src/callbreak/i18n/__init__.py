"""The words people read, in English, नेपाली, हिन्दी and বাংলা: one catalogue per language.

The catalogues are the JSON files beside this module (``en.json``, ``ne.json``, ``hi.json``,
``bn.json``), the one source for the browser client (served at ``/static/i18n/``, read by
``static/i18n.js``) and for the terminal client and CLI (read here).  Each is a flat object::

    "key": "text with {name} placeholders"
    "key": {"one": "...", "other": "..."}     plural forms, picked by the ``count`` parameter

Why a small loader over JSON rather than gettext or Babel: the browser needs the same catalogue,
and JSON is what it reads natively (gettext's ``.po``/``.mo`` would need a converter and a second
copy); the plural rules of these four languages are two forms each (CLDR's ``one``/``other``), a
few lines below that a test holds equal to the browser's ``Intl.PluralRules``; and the core
layer stays free of third-party packages.

Numbers are written in each language's usual digits (`digits`): Devanagari in Nepali, Bengali in
Bengali, Western digits in Hindi (as CLDR's defaults, which the browser's ``Intl.NumberFormat``
uses too).

>>> tr = translator("ne")
>>> tr("seat.n", n=2)
'सिट २'
>>> translator("en")("summary.rounds", count=1), translator("en")("summary.rounds", count=3)
('1 round', '3 rounds')
>>> translator("hi")("table.round_of", round=2, rounds=5)
'राउंड 2/5'
>>> language_from_env({"LANGUAGE": "bn:en", "LANG": "en_US.UTF-8"})
'bn'
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Protocol

__all__ = [
    "DIR",
    "LANGUAGES",
    "Translate",
    "catalogue",
    "choose_language",
    "digits",
    "language_from_accept",
    "language_from_env",
    "placeholders",
    "plural_form",
    "translator",
]

#: where the catalogues are (also served to the browser from here)
DIR = Path(__file__).parent

#: the languages, each named in itself (the order of the menus)
LANGUAGES: dict[str, str] = {"en": "English", "ne": "नेपाली", "hi": "हिन्दी", "bn": "বাংলা"}

#: the digits 0-9 of each language
_DIGITS = {"en": "0123456789", "ne": "०१२३४५६७८९", "hi": "0123456789", "bn": "০১২৩৪৫৬৭৮৯"}
_PLACEHOLDER = re.compile(r"\{(\w+)\}")

Entry = str | dict[str, str]


class Translate(Protocol):
    """What `translator` returns: ``tr(key, **params)``, the text of ``key`` with its placeholders filled.

    >>> tr: Translate = translator("en")
    >>> tr("analysis.progress", done=2, count=5)
    'Analysing… 2 of 5 rounds done.'
    """

    def __call__(self, key: str, /, **params: object) -> str: ...


@cache
def catalogue(lang: str) -> dict[str, Entry]:
    """The catalogue of ``lang`` as stored (a `ValueError` names an unknown language).

    >>> en = catalogue("en")
    >>> en["analysis.progress"]["other"], sorted(catalogue("hi")) == sorted(en)
    ('Analysing… {done} of {count} rounds done.', True)
    >>> try:
    ...     catalogue("fr")
    ... except ValueError as e:
    ...     print(e)
    no language 'fr': choose one of en, ne, hi, bn
    """
    if lang not in LANGUAGES:
        raise ValueError(f"no language {lang!r}: choose one of {', '.join(LANGUAGES)}")
    data = json.loads((DIR / f"{lang}.json").read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{lang}.json is not a JSON object")
    return data


def plural_form(lang: str, count: int) -> str:
    """CLDR's plural category of a whole ``count``: Hindi and Bengali say "one" of 0 and 1.

    >>> [plural_form("en", n) for n in (0, 1, 2)], [plural_form("hi", n) for n in (0, 1, 2)]
    (['other', 'one', 'other'], ['one', 'one', 'other'])
    """
    if lang in ("hi", "bn"):
        return "one" if count in (0, 1) else "other"
    return "one" if count == 1 else "other"


def digits(lang: str, text: object) -> str:
    """``text`` with the ASCII digits written in ``lang``'s digits.

    >>> digits("bn", "-4.2"), digits("hi", 13)
    ('-৪.২', '13')
    """
    table = str.maketrans("0123456789", _DIGITS[lang])
    return str(text).translate(table)


def placeholders(entry: Entry) -> set[str]:
    """The ``{names}`` an entry uses (all of its plural forms together).

    >>> sorted(placeholders(catalogue("en")["analysis.hindsight_lost"])), placeholders("no names here")
    (['best', 'count', 'taken'], set())
    """
    texts = entry.values() if isinstance(entry, dict) else [entry]
    return {m for t in texts for m in _PLACEHOLDER.findall(t)}


def translator(lang: str) -> Translate:
    """``tr(key, **params)`` for ``lang``: the entry with its placeholders filled; numbers in
    the language's digits; a key missing from the language falls back to English.

    >>> translator("en")("analysis.progress", done=1, count=1)
    'Analysing… 1 of 1 round done.'
    >>> "২" in translator("bn")("analysis.progress", done=2, count=5)   # Bengali digits
    True
    >>> try:
    ...     translator("en")("no.such.key")
    ... except KeyError as e:
    ...     print(e)
    "no text for 'no.such.key'"
    """
    own, english = catalogue(lang), catalogue("en")

    def tr(key: str, /, **params: object) -> str:
        entry = own.get(key, english.get(key))
        if entry is None:
            raise KeyError(f"no text for {key!r}")
        if isinstance(entry, dict):
            form = plural_form(lang, int(str(params.get("count", 0))))
            entry = entry.get(form, entry["other"])

        def fill(m: re.Match[str]) -> str:
            if m.group(1) not in params:
                return m.group(0)
            v = params[m.group(1)]
            return digits(lang, v) if isinstance(v, int) and not isinstance(v, bool) else str(v)

        return _PLACEHOLDER.sub(fill, entry)

    return tr


def choose_language(wanted: str | None) -> str:
    """A language code for a tag such as ``hi``, ``ne_NP.UTF-8`` or ``bn-BD``; English otherwise.

    >>> choose_language("ne_NP.UTF-8"), choose_language("fr"), choose_language(None)
    ('ne', 'en', 'en')
    """
    if not wanted:
        return "en"
    base = re.split(r"[-_.@]", wanted.strip().lower(), maxsplit=1)[0]
    return base if base in LANGUAGES else "en"


def language_from_accept(header: str | None) -> str:
    """The language a browser's ``Accept-Language`` asks for: the first of its tags, by weight
    (``q``), that is one of ours (as the web client's ``chooseLanguage`` reads the browser's list);
    English otherwise.

    >>> language_from_accept("ne-NP,ne;q=0.9,en-US;q=0.8,en;q=0.7"), language_from_accept("fr, bn;q=0.5")
    ('ne', 'bn')
    >>> language_from_accept("en-GB,hi;q=0.9"), language_from_accept("hi;q=0, bn;q=0.1"), language_from_accept(None)
    ('en', 'bn', 'en')
    """
    tags: list[tuple[float, int, str]] = []
    for i, part in enumerate((header or "").split(",")):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if tag and weight > 0:
            tags.append((-weight, i, tag))
    for _, _, tag in sorted(tags):
        base = tag.strip().lower().split("-")[0]
        if base in LANGUAGES:
            return base
    return "en"


def language_from_env(env: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for: the first known one of ``LANGUAGE`` (a
    colon-separated list, as gettext reads it), else ``LC_ALL``, ``LC_MESSAGES``, ``LANG``.

    >>> language_from_env({"LANGUAGE": "ne:en", "LANG": "hi_IN.UTF-8"}), language_from_env({"LANG": "bn_BD.UTF-8"})
    ('ne', 'bn')
    >>> language_from_env({"LANGUAGE": "fr:de", "LC_ALL": "C.UTF-8"}), language_from_env({})
    ('en', 'en')
    """
    env = os.environ if env is None else env
    for tag in env.get("LANGUAGE", "").split(":"):
        if tag.lower().startswith("en") or choose_language(tag) != "en":
            return choose_language(tag)
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if env.get(var):
            return choose_language(env[var])
    return "en"
