"""Bots, from ``random`` to ``hard``; they depend only on the engine core.

>>> make_bot("random", seed=1).name
'random'
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot, Hint
from .random_bot import RandomBot

__all__ = ["LEVELS", "Bot", "Hint", "RandomBot", "make_bot", "register_level"]

_FACTORIES: dict[str, Callable[[int | None], Bot]] = {"random": RandomBot}


def register_level(name: str, factory: Callable[[int | None], Bot]) -> None:
    _FACTORIES[name] = factory


def _load_levels() -> None:
    # Levels beyond random live in their own modules, imported when first asked for.
    from .easy import EasyBot
    from .hard import HardBot
    from .medium import MediumBot

    for name, factory in (("easy", EasyBot), ("medium", MediumBot), ("hard", HardBot)):
        _FACTORIES.setdefault(name, factory)


def levels() -> list[str]:
    _load_levels()
    return list(_FACTORIES)


LEVELS = ("random", "easy", "medium", "hard")


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A bot of the named level (``random``, ``easy``, ``medium``, ``hard``)."""
    _load_levels()
    try:
        factory = _FACTORIES[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r} (levels: {', '.join(_FACTORIES)})") from None
    return factory(seed)
