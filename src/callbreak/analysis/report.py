"""The analysis as Rich tables: a summary per player and each player's mistakes.

Used by ``callbreak analyse`` and by the terminal client at the end of a match.

>>> import io
>>> from rich.console import Console
>>> from callbreak.analysis import Analysis
>>> a = Analysis(seats=(), players=("A", "B", "C", "D"), budget=1, seed=0, decisions=(), summaries=(),
...              curve={}, thresholds={})
>>> c = Console(width=80, record=True, file=io.StringIO())
>>> render(a, c)
>>> "Accuracy" in c.export_text()
True
"""

from __future__ import annotations

from rich.console import Console, RenderableType
from rich.table import Table

from .records import Analysis, Decision

__all__ = ["hindsight_text", "render", "tables"]


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def render(analysis: Analysis, console: Console) -> None:
    """Print `tables` to ``console``."""
    for t in tables(analysis):
        console.print(t)


def tables(analysis: Analysis) -> list[RenderableType]:
    """The summary table and each analysed player's mistakes and blunders."""
    out: list[RenderableType] = []
    names = analysis.players
    t = Table(title="Analysis (each player's view; hard-bot search)")
    for col in (
        "Player",
        "Accuracy",
        "Inacc.",
        "Mistakes",
        "Blunders",
        "Lost calls/cards",
        "Made/over/short",  # calls: made exactly, overtricks, short
    ):
        t.add_column(col, justify="left" if col == "Player" else "right")
    for s in analysis.summaries:
        t.add_row(
            s.name,
            _pct(s.accuracy),
            str(s.grades["inaccuracy"]),
            str(s.grades["mistake"]),
            str(s.grades["blunder"]),
            f"{s.points_lost_calls:.1f} / {s.points_lost_cards:.1f}",
            f"{s.calls_made}/{s.calls_over}/{s.calls_missed}",
        )
    out.append(t)
    for seat in analysis.seats:
        bad = analysis.mistakes(seat)
        if not bad:
            out.append(f"{names[seat]}: no mistakes.")
            continue
        m = Table(title=f"{names[seat]}: mistakes and blunders")
        for col in ("Rnd", "Trick", "Played", "Better", "Pts", "Win", "Grade", "Hindsight (all hands known)"):
            m.add_column(col, justify="left" if col in ("Grade", "Hindsight (all hands known)") else "right")
        for d in bad:
            style = "red" if d.grade == "blunder" else "yellow"
            m.add_row(
                str(d.round),
                "call" if d.trick is None else str(d.trick),
                d.taken,
                d.best,
                f"{d.loss_points:.1f}",
                _pct(d.loss_win),
                f"[{style}]{d.grade}[/]",
                hindsight_text(d),
            )
        out.append(m)
    return out


def hindsight_text(d: Decision) -> str:
    """One line for a decision's hindsight.

    >>> from callbreak.analysis import Decision, Hindsight
    >>> d = Decision(deal=0, round=1, step=9, trick=2, seat=0, kind="card", taken="2H", best="AH",
    ...     options=(), loss_points=1.0, loss_win=0.0, grade="mistake", forced=False,
    ...     hindsight=Hindsight(tricks={"2H": 3, "AH": 3}, best=3, taken=3))
    >>> hindsight_text(d)
    'no trick lost: 3 was the most possible'
    """
    h = d.hindsight
    if h is None or h.lost is None:
        return "not solved (too early)" if d.kind == "card" else "-"
    if h.lost == 0:
        return f"no trick lost: {h.best} was the most possible"
    return f"gave away {h.lost} trick{'s' if h.lost > 1 else ''} ({h.taken} of {h.best} possible)"
