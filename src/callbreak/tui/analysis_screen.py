"""The analysis of your play at the end of a local match (``a`` on the final scores).

The analysis (`callbreak.analysis`) runs in a worker thread with a progress line,
then shows the summary and your mistakes as the ``callbreak analyse`` command
prints them.  ``p`` practises your worst mistake again: the screen closes with a
one-round match at that position (`callbreak.analysis.practice_match`), which the
app plays against the same bots.  Esc closes it.  Every text is in the terminal's
language (`words.tr`; the tables by `callbreak.analysis.report.tables` in that language).
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ..analysis.records import Decision
from ..cards import Card
from ..i18n import digits
from ..match import Match
from .words import current, tr

__all__ = ["TUI_BUDGET", "AnalysisScreen", "again_text"]

#: playouts per decision: a quicker look than the command's default
TUI_BUDGET = 400


def again_text(worst: Decision) -> str:
    """The foot's offer to play the worst mistake's position again: the card as the table shows
    it ("Q♦", not its notation "QD"), a call in the language's digits.

    >>> d = Decision(deal=0, round=2, step=30, trick=11, seat=0, kind="card", taken="QD", best="KD",
    ...              options=(), loss_points=1.0, loss_win=0.1, grade="mistake", forced=False)
    >>> again_text(d)
    'p: play round 2, trick 11 again (you played Q♦)  ·  Esc: back'
    """
    if worst.trick is None:
        return tr("tui.analysis_again_call", round=worst.round, taken=digits(current(), worst.taken))
    return tr("tui.analysis_again_trick", round=worst.round, trick=worst.trick, taken=Card.parse(worst.taken).symbol)


class AnalysisScreen(ModalScreen[Match | None]):
    """Analyse one seat's calls and cards of a finished match, then show the tables;
    closes with the practice match of the worst mistake (``p``), or None.

    >>> import asyncio
    >>> from callbreak import Ruleset
    >>> from callbreak.commands.replay import demo_match
    >>> from callbreak.tui.app import CallbreakApp
    >>> from callbreak.tui.game import LocalGame
    >>> match = demo_match(3, Ruleset.preset("quick", rounds=1))   # a finished match of four random bots
    >>> async def analysed():
    ...     game = LocalGame(Ruleset.preset("quick"), seed=3, bots="easy", name="Asha", delay=0, trick_pause=0)
    ...     app = CallbreakApp(game, hint=False)
    ...     async with app.run_test(size=(110, 34)) as pilot:
    ...         screen = AnalysisScreen(match, seat=0, budget=20)
    ...         app.push_screen(screen)
    ...         while not screen.done:   # the analysis runs in a worker thread
    ...             await pilot.pause()
    ...         worst_found = screen.worst is not None   # what `p` would practise
    ...         await pilot.press("escape")
    ...         return worst_found, type(app.screen).__name__
    >>> asyncio.run(analysed())
    (True, 'TableScreen')
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q", "close", tr("dialog.close")),
        Binding("p", "practice", tr("tui.b_practise")),
    ]

    def __init__(self, match: Match, seat: int, budget: int = TUI_BUDGET) -> None:
        super().__init__()
        self.match = match
        self.seat = seat
        self.budget = budget
        self.done = False
        self.worst: Decision | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="summary-box"):
            yield Label(tr("tui.analysing"), id="analysis-progress")
            with VerticalScroll():
                yield Static("", id="analysis")
            yield Label(tr("tui.analysis_back"), classes="hint", id="analysis-foot")

    def on_mount(self) -> None:
        self.run_worker(self._work, thread=True, group="analysis", exclusive=True)

    def _work(self) -> None:
        from ..analysis import analyse
        from ..analysis.report import tables

        def progress(done: int, total: int) -> None:
            self.app.call_from_thread(
                self.query_one("#analysis-progress", Label).update,
                tr("tui.analysing_n", done=done, total=total),
            )

        result = analyse(self.match, seats=[self.seat], budget=self.budget, progress=progress)

        bad = result.mistakes(self.seat)
        worst = max(bad, key=lambda d: (d.loss_points, d.loss_win)) if bad else None

        def show() -> None:
            self.query_one("#analysis-progress", Label).update(tr("tui.analysis_method"))
            self.query_one("#analysis", Static).update(Group(*tables(result, current())))
            self.worst = worst
            if worst is not None:
                self.query_one("#analysis-foot", Label).update(again_text(worst))
            self.done = True

        self.app.call_from_thread(show)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_practice(self) -> None:
        if self.worst is not None:
            from ..analysis import practice_match

            self.dismiss(practice_match(self.match, self.worst))
