"""The terminal client: ``callbreak play`` (Textual).

`callbreak.tui.game` holds the logic (a local match against bots, the model the
screen shows); `callbreak.tui.app` the Textual app; `callbreak.tui.online` the
client of an online table of ``callbreak serve``.

>>> from callbreak.tui import LocalGame
>>> LocalGame(seed=1, bots="random").model().names[1:]
('Maya', 'Gita', 'Suman')
"""

from __future__ import annotations

from .game import Game, LocalGame, RoundSummary, TableModel

__all__ = ["Game", "LocalGame", "RoundSummary", "TableModel"]
