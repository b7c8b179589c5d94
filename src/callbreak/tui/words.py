"""The terminal client's words, in the language chosen for this run (`callbreak.i18n`).

``callbreak play --lang ne`` (or ``LANGUAGE``/``LANG``) calls `use` before the app's modules
build their screens; every text on them comes from `tr`.  One language per process: the
terminal shows one person's game.

>>> use("hi"); tr("table.round_of", round=1, rounds=3)
'राउंड 1/3'
>>> use("en"); tr("tui.round_of", round=1, rounds=3)
'round 1 of 3'
"""

from __future__ import annotations

from ..i18n import Translate, translator

__all__ = ["current", "tr", "use"]


class _InUse:
    lang = "en"
    translate: Translate = translator("en")


def use(lang: str) -> None:
    """Show every text from now on in ``lang`` (a `ValueError` for an unknown language).

    >>> use("ne"); current(), tr("seat.you") != "You"
    ('ne', True)
    >>> use("en"); current(), tr("seat.you")
    ('en', 'You')
    >>> try:
    ...     use("fr")
    ... except ValueError as e:
    ...     print(e)
    no language 'fr': choose one of en, ne, hi, bn
    """
    _InUse.translate = translator(lang)
    _InUse.lang = lang


def current() -> str:
    """The language in use.

    >>> current()   # English unless `use` chose another
    'en'
    """
    return _InUse.lang


def tr(key: str, /, **params: object) -> str:
    """The text of ``key`` in the language in use (see `callbreak.i18n.translator`).

    >>> tr("seat.you"), tr("analysis.progress", done=1, count=3)
    ('You', 'Analysing… 1 of 3 rounds done.')
    """
    return _InUse.translate(key, **params)
