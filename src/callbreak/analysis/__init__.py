"""Post-match analysis: every call and card valued from the deciding seat's own view.

`analyse` replays a match (a `Match`, or one read from a hand history with
`callbreak.notation`) and, for each action of the chosen seats, values every
legal option with the hard level's determinized search, names the best, and
grades the option taken by what it lost in expected round points and in chance
of finishing first.  `callbreak.analysis.hindsight` adds, clearly apart, what
was possible with every hand known.  It sits above the bots and below the
server and the commands.

>>> from callbreak.analysis import grade
>>> grade(0.0, 0.0)
'good'
"""

from __future__ import annotations

from .engine import DEFAULT_BUDGET, THRESHOLDS, analyse, analyse_decision, grade, summarise
from .practice import practice_match
from .records import GRADES, Analysis, Decision, Grade, Hindsight, Option, PlayerSummary

__all__ = [
    "DEFAULT_BUDGET",
    "GRADES",
    "THRESHOLDS",
    "Analysis",
    "Decision",
    "Grade",
    "Hindsight",
    "Option",
    "PlayerSummary",
    "analyse",
    "analyse_decision",
    "grade",
    "practice_match",
    "summarise",
]
