"""Callbreak: the engine, bots, arena, online tables and clients.

>>> from callbreak import Card, Ruleset, Round, Match, IllegalAction
>>> str(Card.parse("10H"))
'TH'
"""

from __future__ import annotations

from .cards import CARDS, Card
from .errors import HistoryError, IllegalAction
from .match import Match
from .round import CallAction, PlayAction, Round, SeatView, Trick
from .rules import PRESETS, Ruleset
from .scoring import score

__all__ = [
    "CARDS",
    "PRESETS",
    "CallAction",
    "Card",
    "HistoryError",
    "IllegalAction",
    "Match",
    "PlayAction",
    "Round",
    "Ruleset",
    "SeatView",
    "Trick",
    "score",
]
__version__ = "0.1.0"
