"""The analysis as Rich tables: a summary per player and each player's mistakes.

Used by ``callbreak analyse`` (in English, like the other commands) and by the
terminal client at the end of a match (in the language it shows, `callbreak.i18n`:
the words from the catalogues' ``report.*`` and ``analysis.*`` entries, the numbers
in that language's digits).

>>> import io
>>> from rich.console import Console
>>> from callbreak.analysis import Analysis
>>> a = Analysis(seats=(), players=("A", "B", "C", "D"), budget=1, seed=0, decisions=(), summaries=(),
...              curve={}, thresholds={})
>>> c = Console(width=80, record=True, file=io.StringIO())
>>> render(a, c)
>>> "Accuracy" in c.export_text()
True
>>> c = Console(width=80, record=True, file=io.StringIO())
>>> c.print(*tables(a, "ne"))
>>> "शुद्धता" in c.export_text()
True
"""

from __future__ import annotations

from rich.console import Console, RenderableType
from rich.table import Table

from ..cards import Card
from ..i18n import digits, translator
from .records import Analysis, Decision, half_up

__all__ = ["hindsight_text", "render", "tables"]


def _pct(lang: str, x: float) -> str:
    """A share as a whole percentage, a half rounded up, as the web page's `Math.round` does
    (Python's format rounds a half to even: 12.5 % was 12 % here, 13 % there).

    >>> _pct("en", 0.125), _pct("en", 0.005), _pct("ne", 0.5)
    ('13%', '1%', '५०%')
    """
    return digits(lang, f"{round(half_up(x, 2) * 100)}%")


def _dec(lang: str, x: float) -> str:
    return digits(lang, f"{half_up(x, 1):.1f}")


def _action(lang: str, action: str) -> str:
    """A call as its number, a card as the table shows it (its rank and suit symbol).

    >>> _action("en", "TS"), _action("en", "4"), _action("ne", "4")
    ('10♠', '4', '४')
    """
    return digits(lang, action) if action.isdigit() else Card.parse(action).symbol


def _worst(lang: str, analysis: Analysis, seat: int) -> str:
    """The most chance of finishing first one of the seat's own decisions gave away, on a line
    under the points lost, where it comes to 1 % or more (a mistake graded by that chance alone
    shows 0.0 points lost; the chances' sum is no chance: it passed 100 %).

    >>> from callbreak.analysis.records import Analysis
    >>> empty = Analysis(seats=(0,), players=("A", "B", "C", "D"), budget=1, seed=0, decisions=(),
    ...                  summaries=(), curve={}, thresholds={})
    >>> _worst("en", empty, 0)
    ''
    """
    worst = max((d.loss_win for d in analysis.decisions if d.seat == seat and d.auto is None), default=0.0)
    shown = _pct(lang, worst)
    if shown == _pct(lang, 0.0):
        return ""
    tr = translator(lang)
    return "\n" + tr("analysis.worst", loss=tr("analysis.loss_win", win=shown))


def _lost(shown: str, zero: str) -> str:
    """A loss with its minus sign (a bare "40%" reads as the chance left).

    >>> _lost("40%", "0%"), _lost("0.0", "0.0")
    ('−40%', '0.0')
    """
    return shown if shown == zero else "−" + shown


def render(analysis: Analysis, console: Console, lang: str = "en") -> None:
    """Print `tables` to ``console``.

    >>> from rich.console import Console
    >>> from callbreak import Match, Ruleset
    >>> from callbreak.analysis.engine import analyse
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=2)
    >>> for a in (2, 3, 2, 3): _ = m.act(a)
    >>> import io
    >>> console = Console(width=100, record=True, file=io.StringIO())
    >>> render(analyse(m, seats=[0], budget=40, seed=1), console)
    >>> "Accuracy" in console.export_text()
    True
    """
    for t in tables(analysis, lang):
        console.print(t)


def tables(analysis: Analysis, lang: str = "en") -> list[RenderableType]:
    """The summary table and each analysed player's mistakes and blunders, in ``lang``.

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.analysis.engine import analyse
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=2)
    >>> for a in (2, 3, 2, 3): _ = m.act(a)
    >>> ts = tables(analyse(m, seats=[0], budget=40, seed=1))
    >>> ts[0].title, [c.header for c in ts[0].columns][:2]
    ("Analysis (each player's view; hard-bot search)", ['Player', 'Accuracy'])
    """
    tr = translator(lang)
    out: list[RenderableType] = []
    names = analysis.players
    t = Table(title=tr("report.title"))
    for i, key in enumerate(
        (
            "analysis.player",
            "analysis.col_accuracy",
            "report.col_inacc",
            "analysis.col_mistakes",
            "analysis.col_blunders",
            "report.col_lost",
            "report.col_calls",  # calls: made exactly, overtricks, short
        )
    ):
        t.add_column(tr(key), justify="left" if i == 0 else "right")
    for s in analysis.summaries:
        t.add_row(
            s.name,
            _pct(lang, s.accuracy),
            digits(lang, s.grades["inaccuracy"]),
            digits(lang, s.grades["mistake"]),
            digits(lang, s.grades["blunder"]),
            f"{_dec(lang, s.points_lost_calls)} / {_dec(lang, s.points_lost_cards)}" + _worst(lang, analysis, s.seat),
            digits(lang, f"{s.calls_made}/{s.calls_over}/{s.calls_missed}"),
        )
    out.append(t)
    for seat in analysis.seats:
        bad = analysis.mistakes(seat)
        if not bad:
            out.append(tr("report.no_mistakes", name=names[seat]))
            continue
        m = Table(title=tr("report.mistakes", name=names[seat]))
        for key in (
            "report.col_round",
            "report.col_trick",
            "analysis.played",
            "analysis.better",
            "report.col_pts",
            "report.col_win",
            "report.col_grade",
            "report.col_hindsight",
        ):
            if key == "report.col_hindsight" and not analysis.hindsight:
                continue  # (not looked at: every card read "not solved (too early)")
            m.add_column(
                tr(key), justify="left" if key in ("report.col_grade", "report.col_hindsight") else "right"
            )
        for d in bad:
            style = "red" if d.grade == "blunder" else "yellow"
            cells = [
                digits(lang, d.round),
                tr("report.call") if d.trick is None else digits(lang, d.trick),
                _action(lang, d.taken),
                _action(lang, d.best),
                _lost(_dec(lang, d.loss_points), _dec(lang, 0.0)),
                _lost(_pct(lang, d.loss_win), _pct(lang, 0.0)),
                f"[{style}]{tr(f'analysis.grade.{d.grade}')}[/]",
            ]
            m.add_row(*cells, *([hindsight_text(d, lang)] if analysis.hindsight else []))
        out.append(m)
    return out


def hindsight_text(d: Decision, lang: str = "en") -> str:
    """One line for a decision's hindsight.

    >>> from callbreak.analysis import Decision, Hindsight
    >>> d = Decision(deal=0, round=1, step=9, trick=2, seat=0, kind="card", taken="2H", best="AH",
    ...     options=(), loss_points=1.0, loss_win=0.0, grade="mistake", forced=False,
    ...     hindsight=Hindsight(tricks={"2H": 3, "AH": 3}, best=3, taken=3))
    >>> hindsight_text(d)
    'no trick lost: 3 was the most possible'
    >>> hindsight_text(d, "bn")
    'কোনো পিঠ হারায়নি: বড়জোর ৩টি সম্ভব ছিল'
    """
    tr = translator(lang)
    h = d.hindsight
    if h is None or h.lost is None:
        return tr("report.hs_unsolved") if d.kind == "card" else "-"
    if h.lost == 0:
        return tr("report.hs_kept", count=h.best)
    return tr("report.hs_lost", count=h.lost, taken=h.taken, best=h.best)
