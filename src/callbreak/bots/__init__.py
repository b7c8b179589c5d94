"""Bots, from ``random`` to ``hard``; they depend only on the engine core.

``random``, ``easy`` and ``medium`` are plain Python; ``hard`` runs on a
compiled kernel and needs the ``bots`` extra (numpy, numba), imported only
when a hard bot is made.

>>> make_bot("random", seed=1).name
'random'
"""

from __future__ import annotations

from collections.abc import Callable

from ..extras import need
from .base import Bot, Hint
from .random_bot import RandomBot

__all__ = ["LEVELS", "Bot", "Hint", "RandomBot", "make_bot", "register_level"]

_FACTORIES: dict[str, Callable[[int | None], Bot]] = {"random": RandomBot}


def register_level(name: str, factory: Callable[[int | None], Bot]) -> None:
    """Add a bot level under ``name`` (`make_bot` then makes it; a factory takes a seed).

    >>> from callbreak.bots.sparring import TimidBot
    >>> register_level("doc-timid", TimidBot)
    >>> "doc-timid" in levels(), make_bot("doc-timid", seed=1).name
    (True, 'spar-timid')
    >>> del _FACTORIES["doc-timid"]   # (and gone again: other examples see the usual levels)
    """
    _FACTORIES[name] = factory


def _load_levels() -> None:
    # Levels beyond random live in their own modules, imported when first asked for.
    from .easy import EasyBot
    from .medium import MediumBot
    from .sparring import LEVELS as SPARRING

    for name, factory in (("easy", EasyBot), ("medium", MediumBot), ("hard", _hard), *SPARRING.items()):
        _FACTORIES.setdefault(name, factory)


def _hard(seed: int | None) -> Bot:
    need("the hard level", "bots")
    from .hard import HardBot

    return HardBot(seed)


def levels() -> list[str]:
    """Every level `make_bot` knows: the four of the game, then the sparring pool's.

    >>> all(level in levels() for level in LEVELS), "spar-bold" in levels(), "grandmaster" in levels()
    (True, True, False)
    """
    _load_levels()
    return list(_FACTORIES)


LEVELS = ("random", "easy", "medium", "hard")


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A bot of the named level (``random``, ``easy``, ``medium``, ``hard``, or one of
    the sparring pool's, `callbreak.bots.sparring`: ``spar-bold`` and so on).

    Raises ValueError for an unknown level and `callbreak.extras.MissingExtra`
    (an ImportError) for ``hard`` where the ``bots`` extra is not installed.

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> bot = make_bot("medium", seed=7)
    >>> bot, bot.act(m.view(m.to_act)) in m.view(m.to_act).legal_calls
    (<MediumBot 'medium' seed=7>, True)
    >>> make_bot("Easy").name
    'easy'
    >>> try:
    ...     make_bot("grandmaster")
    ... except ValueError as e:
    ...     print(str(e)[:36])
    unknown bot level 'grandmaster' (lev
    """
    _load_levels()
    factory = _FACTORIES.get(level) or _FACTORIES.get(level.lower())  # "Hard" as "hard", as presets are
    if factory is None:
        raise ValueError(f"unknown bot level {level!r} (levels: {', '.join(_FACTORIES)})")
    return factory(seed)
