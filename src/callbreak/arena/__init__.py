"""The arena: matches between any four bots (levels or HTTP URLs), with statistics.

>>> from callbreak.arena import run_arena, summarize
>>> res = run_arena(["random", "random", "random", "random"], matches=4, seed=2, duplicate=True)
>>> [round(s.win_share, 2) for s in summarize(res).bots]
[0.25, 0.25, 0.25, 0.25]
"""

from __future__ import annotations

from .runner import MatchRecord, RunResult, Task, play_match, resolve_bot, run_arena, tasks_for
from .summary import BotSummary, Summary, summarize

__all__ = [
    "BotSummary",
    "MatchRecord",
    "RunResult",
    "Summary",
    "Task",
    "play_match",
    "resolve_bot",
    "run_arena",
    "summarize",
    "tasks_for",
]
