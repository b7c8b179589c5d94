"""The Textual app of ``callbreak play``: it renders a `TableModel` and forwards keys to a `Game`.

Keys on the table: ``←``/``→`` choose a card (or change your call), ``Enter`` plays it;
or type a card (``qs``, ``10h``) or a call (``4``) and press ``Enter``.  ``?`` or ``F1``
shows the rules and keys; ``Ctrl+Q`` quits.

Every text is in the language chosen with `callbreak.tui.words.use` (``callbreak play --lang``);
the key descriptions in the footer (``BINDINGS``) are read once, when this module is imported,
so the command chooses the language before it imports the app.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.console import Group
from rich.measure import Measurement
from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Input, Label, Markdown, Select, Static

from ..bots import LEVELS, Hint, levels
from ..bots.warmup import KERNEL, Warmup
from ..cards import Card
from ..errors import IllegalAction
from ..i18n import catalogue, digits
from ..match import Match
from ..round import lowest_action
from ..rules import FIELD_HELP, PRESETS, Ruleset
from .cells import spacing_marks_take_a_cell
from .game import (
    Game,
    LocalGame,
    RoundSummary,
    TableModel,
    parse_call,
    parse_typed_card,
    sort_hand,
    typed_choice,
)
from .render import (
    fit_status,
    hand_slots,
    hand_text,
    header_text,
    match_result,
    places_table,
    scores_renderable,
    seconds_left,
    summary_table,
    table_renderable,
)
from .words import current, tr

__all__ = ["CallbreakApp", "HintFn", "LocalOptions", "load_hint"]

HintFn = Callable[[Any], Any]

PRESET_NAMES = ("standard", "quick", "pagat", "bhoos")  # the ones the catalogue names
#: printable keys that stay the table's own (help), not typed into a card or call
_NOT_TYPED = frozenset({"question_mark"})
#: the table's least height in rows (``#main``'s min-height in `CallbreakApp`'s CSS): a row less while
#: the message line folds the seat's link over two
MAIN_ROWS = 12



def state_key(m: TableModel) -> tuple[Any, ...]:
    """What has to change for the table to have moved on: round, phase, calls, cards, turn.

    >>> g = LocalGame(Ruleset.preset("quick"), seed=1, bots="random", delay=0)
    >>> before = state_key(g.model())
    >>> _ = g.step_bot() if g.bot_to_act is not None else g.submit(3)
    >>> state_key(g.model()) != before
    True
    """
    v = m.view
    return (v.round_number, v.phase, v.calls, len(v.tricks), v.trick, v.to_act, len(m.summaries), m.over)


def load_hint() -> HintFn:
    """`callbreak.bots.hints.hint`, answering quickly while the kernel warms up
    (the hints module is plain Python; a hard hint itself needs the ``bots`` extra,
    which the ``tui`` extra installs).

    >>> from callbreak import Match
    >>> hint = load_hint()
    >>> m = Match(seed=3)
    >>> h = hint(m.view(m.to_act))
    >>> h.call in m.view(m.to_act).legal_calls, h.card
    (True, None)
    """
    from ..bots.hints import hint

    return functools.partial(hint, until_ready=KERNEL)


@dataclass
class LocalOptions:
    """What the start screen asks for (prefilled from the command line).

    >>> game = LocalOptions(bots="easy", preset="quick", changes={"rounds": 2}, seed=4, name="Asha").make_game()
    >>> game.rules.rounds, game.seed, game.model().names[0]
    (2, 4, 'Asha')
    """

    bots: str = "medium"
    preset: str = "standard"
    changes: dict[str, Any] | None = None
    seed: int | None = None
    name: str = ""  # empty: "You" in the language in use
    delay: float = 0.6
    trick_pause: float = 0.9

    def make_game(self) -> LocalGame:
        rules = Ruleset.preset(self.preset, **(self.changes or {}))
        return LocalGame(
            rules=rules,
            seed=self.seed,
            bots=self.bots,
            name=self.name or tr("seat.you"),
            delay=self.delay,
            trick_pause=self.trick_pause,
            until_ready=None if self.seed is not None else KERNEL,  # a seed replays exactly
        )


def table_rules_markdown(rules: Ruleset | None) -> str:
    """The rules of this table where they differ from the standard game, as Markdown.

    >>> print(table_rules_markdown(Ruleset.preset("bhoos")))
    <BLANKLINE>
    ## This table: Bhoos rules
    <BLANKLINE>
    - `max_call` = 8: highest call (1..13)
    - `head_after_cut` = False: with must_head, the duty stays once a trump is on the trick
    <BLANKLINE>
    """
    if rules is None:
        return ""
    name, _ = rules.describe()
    diff = rules.changes_from(Ruleset())
    label = tr(f"preset.short.{name}") if name in PRESET_NAMES else name
    lines = [f"\n## {tr('tui.help_table', name=label)}\n"]
    if not diff:
        lines.append(tr("tui.help_standard"))
    for field, value in diff.items():
        # in English the engine's own line; in another language the rules page's (callbreak.i18n)
        key = f"rules.f.{field}.what"
        what = tr(key) if current() != "en" and key in catalogue("en") else FIELD_HELP.get(field, "")
        lines.append(f"- `{field}` = {value}: {what}")
    return "\n".join(lines) + "\n"


class HelpScreen(ModalScreen[None]):
    """The rules summary and the keys.

    >>> import asyncio
    >>> from callbreak import Ruleset
    >>> from callbreak.tui.game import LocalGame
    >>> async def help_and_back():
    ...     game = LocalGame(Ruleset.preset("quick"), seed=3, bots="easy", name="Asha", delay=0, trick_pause=0)
    ...     app = CallbreakApp(game, hint=False)
    ...     async with app.run_test(size=(110, 34)) as pilot:
    ...         await pilot.press("question_mark")
    ...         shown = type(app.screen).__name__
    ...         await pilot.press("escape")
    ...         return shown, type(app.screen).__name__
    >>> asyncio.run(help_and_back())
    ('HelpScreen', 'TableScreen')
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,f1,enter,q", "close", tr("dialog.close")),
    ]

    def __init__(self, rules: Ruleset | None = None) -> None:
        super().__init__()
        self.rules = rules

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Markdown(tr("tui.help") + table_rules_markdown(self.rules))
            yield Label(tr("tui.help_close"), classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)


class SummaryScreen(ModalScreen[None]):
    """After each round: calls, tricks, points and totals; at the end, the final places.

    >>> import asyncio
    >>> from decimal import Decimal
    >>> from callbreak import Ruleset
    >>> from callbreak.tui.game import LocalGame, RoundSummary
    >>> points = tuple(map(Decimal, ("3.1", "-2", "4.1", "3")))
    >>> async def summary():
    ...     game = LocalGame(Ruleset.preset("quick"), seed=3, bots="easy", name="Asha", delay=0, trick_pause=0)
    ...     app = CallbreakApp(game, hint=False)
    ...     async with app.run_test(size=(110, 34)) as pilot:
    ...         await pilot.pause()
    ...         summary = RoundSummary(1, (3, 2, 4, 3), (4, 1, 5, 3), points, points)
    ...         app.push_screen(SummaryScreen(summary, game.model(), guard=0))   # (no guard: closed at once)
    ...         await pilot.pause()
    ...         shown = type(app.screen).__name__
    ...         await pilot.press("enter")
    ...         return shown, type(app.screen).__name__
    >>> asyncio.run(summary())
    ('SummaryScreen', 'TableScreen')
    """

    #: seconds after it opens during which Enter, Space and Escape do nothing: a key meant for the
    #: round's last card (found in QA: the card played by itself a moment before) does not close a
    #: summary the player has not seen (the tests set it to 0, but for the one that tests it)
    GUARD = 0.5
    @staticmethod
    def clock() -> float:
        """The clock of the guard (a test gives its own)."""
        return time.monotonic()

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space,escape", "close", tr("tui.b_continue")),
        Binding("n", "new", tr("tui.b_new"), show=False),
        Binding("e", "end", tr("dialog.end_match"), show=False),
        Binding("a", "analyse", tr("tui.b_analyse"), show=False),
        # a final sheet taller than a small terminal scrolls
        Binding("down", "scroll(1)", show=False),
        Binding("up", "scroll(-1)", show=False),
        Binding("pagedown", "scroll(10)", show=False),
        Binding("pageup", "scroll(-10)", show=False),
    ]

    def __init__(
        self,
        summary: RoundSummary,
        model: TableModel,
        *,
        local: bool = True,
        remaining: Callable[[], float | None] | None = None,
        guard: float | None = None,
    ) -> None:
        super().__init__()
        self.guard = self.GUARD if guard is None else guard
        self.summary = summary
        self.model = model
        self.local = local
        self.remaining = remaining
        self.opened = self.clock()

    def compose(self) -> ComposeResult:
        parts: list[Any] = [summary_table(self.summary, self.model.names, self.model.seat)]
        if self.model.over:
            # the player's own result first, then the places, then the last round: a newcomer's
            # try at 80 x 24 found their place and result below the screen's edge
            result = Text(match_result(self.model), style="bold yellow")
            parts = [result, Text(""), places_table(self.model), Text(""), *parts]
        elif self.model.view.sudden_death:
            parts += [Text(""), Text(tr("tui.sudden_next"), style="bold red")]
        self._content = Group(*parts)
        with Vertical(id="summary-box"):
            yield Static(self._content, id="summary")
            yield Label(self.foot(), classes="hint", id="summary-foot")

    def foot(self) -> str:
        if self.model.over:
            if self.local:
                return tr("tui.keys_back_local")
            app = self.app
            # (a rematch a friend opened is said here too: a newcomer's try saw only "n: rematch")
            ready = isinstance(app, CallbreakApp) and app.game is not None and app.game.rematch_offer is not None
            return (tr("tui.o_rematch_ready") + "  ·  " if ready else "") + tr("tui.keys_back_online")
        text = tr("tui.keys_next")
        if self.model.view.rules.rounds is None:
            text += tr("tui.keys_end")
        left = self.remaining() if self.remaining is not None else None
        if left is not None:
            text += tr("tui.starts_in", time=seconds_left(left))
        return text

    def on_mount(self) -> None:
        self.opened = self.clock()
        # The tables' own width (Textual's "auto" took the foot line's: a round summary of empty
        # columns), at most what the screen has room for.
        console = self.app.console
        wanted = Measurement.get(console, console.options, self._content).maximum
        self.query_one("#summary", Static).styles.width = max(1, min(wanted, self.app.size.width - 8))
        if self.remaining is not None:
            self.set_interval(0.5, lambda: self.query_one("#summary-foot", Label).update(self.foot()))

    def action_scroll(self, lines: int) -> None:
        box = self.query_one("#summary-box", Vertical)
        box.scroll_to(y=box.scroll_y + lines, animate=False)

    def action_close(self) -> None:
        if self.clock() - self.opened < self.guard:
            return
        self.dismiss(None)

    def action_end(self) -> None:
        app = self.app
        if isinstance(app, CallbreakApp):
            app.end_match()

    def action_analyse(self) -> None:
        app = self.app
        if self.model.over and self.local and isinstance(app, CallbreakApp) and isinstance(app.game, LocalGame):
            from .analysis_screen import AnalysisScreen

            app.push_screen(AnalysisScreen(app.game.match, app.game.seat), self._analysis_closed)

    def _analysis_closed(self, start: Match | None) -> None:
        app = self.app
        if start is not None and isinstance(app, CallbreakApp):  # practise a position again
            self.dismiss(None)
            app.new_match(start)

    def action_new(self) -> None:
        if self.model.over:
            app = self.app
            self.dismiss(None)
            if isinstance(app, CallbreakApp):
                app.new_match()


class SetupScreen(Screen[LocalOptions]):
    """Choose the bots, the rules and your name before a local match.

    >>> import asyncio
    >>> async def setup():
    ...     app = CallbreakApp(options=LocalOptions(bots="easy", preset="quick", seed=3), setup=True, hint=False)
    ...     async with app.run_test(size=(110, 34)) as pilot:
    ...         await pilot.pause()
    ...         shown = type(app.screen).__name__
    ...         await pilot.click("#setup-play")
    ...         await pilot.pause()
    ...         return shown, type(app.screen).__name__, app.game.rules.name, app.game.seed
    >>> asyncio.run(setup())
    ('SetupScreen', 'TableScreen', 'quick', 3)
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.quit", tr("tui.b_quit"))]

    def __init__(self, options: LocalOptions) -> None:
        super().__init__()
        self.options = options

    def compose(self) -> ComposeResult:
        o = self.options
        # (the box itself takes no focus: Tab from Play went to it, unseen, and a name typed then
        # was lost; the name box is empty, "You" its hint, not text to erase: a newcomer's try)
        with VerticalScroll(id="setup-box", can_focus=False):
            yield Static(Text(tr("tui.setup_title"), style="bold"), id="setup-title")
            with Horizontal(classes="setup-row"):
                yield Label(tr("home.your_name"))
                you = tr("seat.you")
                yield Input(value="" if o.name in ("", you) else o.name, placeholder=you, id="setup-name", max_length=20)
            with Horizontal(classes="setup-row"):
                yield Label(tr("home.bots"))
                have = [lv for lv in LEVELS if lv in levels()] or ["random"]
                yield Select([(tr(f"level.{lv}"), lv) for lv in have], value=o.bots if o.bots in have else have[-1],
                             allow_blank=False, id="setup-bots")
            with Horizontal(classes="setup-row"):
                yield Label(tr("nav.rules"))
                yield Select([(tr(f"preset.{p}") if p in PRESET_NAMES else p, p) for p in PRESETS], value=o.preset if o.preset in PRESETS else "standard",
                             allow_blank=False, id="setup-rules")
            with Horizontal(classes="setup-row"):
                yield Label(tr("tui.seed_label"))
                yield Input(value="" if o.seed is None else str(o.seed), id="setup-seed",
                            placeholder=tr("tui.seed_placeholder"))
            yield Label("", id="setup-error")
            yield Button(tr("tui.play"), variant="primary", id="setup-play")
        yield Footer()  # (Esc: quit, said)

    def on_mount(self) -> None:
        self.query_one("#setup-play", Button).focus()

    @on(Button.Pressed, "#setup-play")
    @on(Input.Submitted)
    def play(self) -> None:
        o = self.options
        seed_text = self.query_one("#setup-seed", Input).value.strip()
        try:
            seed = int(seed_text) if seed_text else None
            if seed is not None and seed < 0:
                raise ValueError(seed)  # (as `callbreak play --seed` refuses it)
        except ValueError:
            self.query_one("#setup-error", Label).update(Text(tr("tui.seed_error"), style="red"))
            return
        bots = self.query_one("#setup-bots", Select).value
        preset = self.query_one("#setup-rules", Select).value
        name = self.query_one("#setup-name", Input).value.strip() or tr("seat.you")
        self.dismiss(
            LocalOptions(
                bots=str(bots), preset=str(preset), changes=o.changes, seed=seed, name=name,
                delay=o.delay, trick_pause=o.trick_pause,
            )
        )


class HandView(Static):
    """Your hand; a click chooses a card, a click on the chosen card plays it.

    >>> import asyncio
    >>> from callbreak import Ruleset
    >>> from callbreak.tui.game import LocalGame
    >>> async def hand():
    ...     game = LocalGame(Ruleset.preset("quick"), seed=3, bots="easy", name="Asha", delay=0, trick_pause=0)
    ...     app = CallbreakApp(game, hint=False)
    ...     async with app.run_test(size=(110, 34)) as pilot:
    ...         await pilot.pause()
    ...         view = app.screen.query_one(HandView)
    ...         first = view.slots[0]
    ...         return len(view.slots), view.card_at(first[0]) == first[2], view.card_at(-1)
    >>> asyncio.run(hand())
    (13, True, None)
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.slots: list[tuple[int, int, Card]] = []

    def layout_for(self, hand: tuple[Card, ...], trump: str, width: int) -> None:
        self.slots = hand_slots(hand, trump, width)[0]

    def card_at(self, x: int) -> Card | None:
        for start, end, card in self.slots:
            if start <= x < end:
                return card
        return None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        card = self.card_at(offset.x)
        app = self.app
        if card is not None and isinstance(app, CallbreakApp):
            app.hand_click(card)


class TableScreen(Screen[None]):
    """The table: header, seats and trick, scores, your hand and the prompt.

    >>> import asyncio
    >>> from callbreak import Ruleset
    >>> from callbreak.tui.game import LocalGame
    >>> async def table():
    ...     game = LocalGame(Ruleset.preset("quick"), seed=3, bots="easy", name="Asha", delay=0, trick_pause=0)
    ...     app = CallbreakApp(game, hint=False)
    ...     async with app.run_test(size=(110, 34)) as pilot:
    ...         await pilot.pause()
    ...         screen = app.screen
    ...         return type(screen).__name__, sorted(w.id for w in screen.query("#header, #table, #hand, #prompt"))
    >>> asyncio.run(table())
    ('TableScreen', ['hand', 'header', 'prompt', 'table'])
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", tr("tui.b_choose"), key_display="←→"),
        Binding("right", "move(1)", tr("tui.b_choose"), show=False),
        Binding("up", "move(1)", tr("tui.b_more"), show=False),
        Binding("down", "move(-1)", tr("tui.b_less"), show=False),
        Binding("enter", "submit", tr("tui.b_play"), key_display="Enter"),
        Binding("backspace", "erase", tr("tui.b_erase"), show=False),
        Binding("escape", "clear", tr("tui.b_clear"), show=False),
        Binding("tab", "card_hint", tr("table.hint"), key_display="Tab"),
        Binding("question_mark,f1", "help", tr("tui.b_help"), key_display="?"),
    ]

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        with Horizontal(id="main"):
            yield Static(id="table")
            yield Static(id="sidebar")
        yield HandView(id="hand")
        yield Static(id="prompt")
        yield Static(id="message")
        yield Footer()

    @property
    def cb(self) -> CallbreakApp:
        app = self.app
        assert isinstance(app, CallbreakApp)
        return app

    def action_help(self) -> None:
        model = self.cb.model
        self.app.push_screen(HelpScreen(model.view.rules if model is not None else None))

    def action_move(self, step: int) -> None:
        self.cb.move(step)

    def action_submit(self) -> None:
        self.cb.submit()

    def action_card_hint(self) -> None:
        self.cb.card_hint()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers a key only where it does something (a newcomer's try: Tab for a
        hint while calling, and the arrows and Tab once the match was over, did nothing)."""
        m = self.cb.model
        if action == "card_hint":
            return m is not None and not m.over and m.my_turn and m.view.phase == "playing"
        if action in ("move", "erase"):
            return m is not None and not m.over
        return True

    def action_erase(self) -> None:
        self.cb.erase()
        self.cb.render_all()

    def action_clear(self) -> None:
        self.cb.quit_asked = False
        self.cb.clear_typed()
        self.cb.message = ""
        self.cb.render_all()

    def on_key(self, event: events.Key) -> None:
        app = self.cb
        if event.key == "n" and app.model is not None and app.model.over:
            app.new_match()
        elif event.is_printable and event.character and not event.character.isspace() and event.key not in _NOT_TYPED:
            # every character goes into what is typed, so that a typo is refused at Enter (never
            # dropped, which would leave Enter to play the card or call chosen with the arrows)
            if len(app.typed) < 6:  # the longest card or call is 3 characters: anything longer is refused
                app.typed += event.character
                app.typed_changed()
            app.message = ""
        else:
            return
        event.stop()
        app.render_all()

    def on_resize(self, event: events.Resize) -> None:
        self.cb.render_all()


class CallbreakApp(App[int]):
    """``callbreak play``: a local match against bots, or a seat at an online table.

    Give it a `Game` to play at once, or `LocalOptions` with ``setup=True`` for the
    start screen.

    >>> import asyncio
    >>> from callbreak import Ruleset
    >>> from callbreak.tui.game import LocalGame
    >>> async def play_a_call():
    ...     game = LocalGame(Ruleset.preset("quick"), seed=3, bots="easy", name="Asha", delay=0, trick_pause=0)
    ...     app = CallbreakApp(game, hint=False)
    ...     async with app.run_test(size=(110, 34)) as pilot:
    ...         while not game.human_to_act:
    ...             await pilot.pause()
    ...         await pilot.press("3", "enter")
    ...         await pilot.pause()
    ...         return type(app.screen).__name__, game.match.round.calls[0]
    >>> asyncio.run(play_a_call())
    ('TableScreen', 3)
    """

    TITLE = "Callbreak"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", tr("tui.b_quit"), priority=True, key_display="Ctrl+Q"),
    ]
    CSS = """
    Screen { background: #0f3d24; }
    TableScreen { layout: vertical; }
    #header { height: 1; background: #0a2a19; color: white; }
    #main { height: 1fr; min-height: 12; }
    #table { width: 1fr; height: 100%; padding: 1 1 0 1; content-align: center middle; }
    #sidebar { width: 34; height: 100%; background: #0a2a19; padding: 0 1;  }
    #hand { height: 4; content-align: left bottom; padding: 0 1; }
    #prompt { height: 1; padding: 0 1; background: #0a2a19; }
    #message { height: 1; padding: 0 1; background: #0a2a19; }
    HelpScreen, SummaryScreen { align: center middle; }
    #help-box { width: 84; max-width: 95%; height: 90%; background: $panel; border: thick $accent; padding: 0 1; }
    #summary-box { width: auto; height: auto; max-height: 95%; background: $panel; border: thick $accent;
                   padding: 1 2; overflow-y: auto; }
    #summary { width: auto; }
    /* the keys stay in sight when the sheet scrolls (80 x 24: the final places are taller) */
    #summary-foot { dock: bottom; width: 100%; height: auto; background: $panel; }
    .hint { color: $text-muted; margin-top: 1; }
    SetupScreen { align: center middle; }
    #setup-box { width: 60; max-width: 100%; height: auto; max-height: 100%; background: $panel;
                 border: thick $accent; padding: 0 1; }
    #setup-title { text-align: center; margin: 1 0; }
    .setup-row { height: 3; }
    .setup-row Label { width: 11; padding-top: 1; }
    .setup-row Input, .setup-row Select { width: 1fr; }
    #setup-error { height: 1; }
    #setup-play { width: 100%; }
    """

    def __init__(
        self,
        game: Game | None = None,
        *,
        options: LocalOptions | None = None,
        setup: bool = False,
        hint: HintFn | bool | None = True,
    ) -> None:
        spacing_marks_take_a_cell()  # Nepali, Hindi and Bengali measured as terminals draw them
        super().__init__()
        self.game = game
        #: a local game's rules and warm-up as the player chose them (a practice's game has its own)
        self._home: tuple[Ruleset, Warmup | None] | None = None
        self._offered: tuple[bool, bool] | None = None  # (the footer's keys drawn for: `_draw`)
        self.options = options or LocalOptions()
        self.setup = setup and game is None
        self.hint_fn: HintFn | None = load_hint() if hint is True else (hint or None)
        self.model: TableModel | None = None
        #: the choice before the player began to type (what typed text that chooses nothing leaves)
        self._untyped: tuple[int | None, bool, Card | None, bool] | None = None
        self._typed = ""
        self.message = ""
        self.message_style = "red"
        self.selected: Card | None = None
        # a card chosen (arrows, click) while the others play; until then no card is raised
        self.picked = False
        self.call_choice: int | None = None
        #: whether the player moved the call's cursor this turn (else it stands where it started)
        self.call_picked = False
        #: Ctrl+Q pressed once during a local match: the next one quits
        self.quit_asked = False
        #: the round whose calling the screen last showed (round, summaries), None while playing
        self._calling: tuple[int, int] | None = None
        #: which call this is: the round, the summaries seen, the hand (a deal thrown in is dealt again)
        self._call_key: tuple[int, int, tuple[Card, ...]] | None = None
        self._call_sent: tuple[tuple[int, int, tuple[Card, ...]], int | None] | None = None  # the last call told the server
        #: the seat's turn now (round, rounds seen, phase, tricks, cards in the trick), else None
        self._my_turn: tuple[int, int, str, int, int] | None = None
        self._behind_told: tuple[int, int, int, str] | None = None  # the turn said behind a screen
        self._connects = 0  # the game's connections when a choice was last told
        self._lift_sent: tuple[int, int, int, Card | None] | None = None  # the last choice told the server
        self.hint_text = Text()
        self._hint_key: tuple[Any, ...] | None = None
        self._summary_open = False
        self.table_screen: TableScreen | None = None
        # the table's state when the message (and the game's error) appeared: a message is
        # about that moment, so it goes once the table moves on (a card played, a new turn)
        self._state: tuple[Any, ...] | None = None
        self._error = ""
        self._error_state: tuple[Any, ...] | None = None

    # --- lifecycle --------------------------------------------------------------
    def on_mount(self) -> None:
        self.set_interval(0.5, self._tick)
        if self.setup:
            self.push_screen(SetupScreen(self.options), self._setup_done)
        else:
            self._start()

    def _setup_done(self, options: LocalOptions | None) -> None:
        if options is None:
            self.exit(0)
            return
        self.options = options
        self._start()

    def _start(self) -> None:
        if self.game is None:
            self.game = self.options.make_game()
        if isinstance(self.game, LocalGame):
            self._home = (self.game.rules, self.game.until_ready)
        self.table_screen = TableScreen()
        self.push_screen(self.table_screen)
        game = self.game
        self.run_worker(game.run(self.on_game_change), group="game", exclusive=True, exit_on_error=True)

    def action_help_quit(self) -> None:
        """Ctrl+C (which quits most terminal programs): how to quit, in the reader's language
        (Textual's own toast was English, and at 60 × 20 it covered the hand: a newcomer's try)."""
        if self.table_screen is None or self.screen is not self.table_screen:
            self.notify(tr("tui.ctrl_c"))  # (the start screen, a summary, the help: said over it)
            return
        self.message, self.message_style = tr("tui.ctrl_c"), "bold yellow"
        self.render_all()

    async def action_quit(self) -> None:
        """Ctrl+Q: quit; in a local match still being played, only when pressed again while the
        table says so (a newcomer's one key ended a five-round match, which is not kept)."""
        game = self.game
        if isinstance(game, LocalGame) and not game.over and not self.quit_asked:
            self.quit_asked = True  # (until Esc, a move or an action of the player's)
            again = tr("tui.quit_again")
            self.message, self.message_style = again, "bold yellow"
            if self.screen is not self.table_screen:  # (under Help or a summary: said over it)
                self.notify(again)
            self.render_all()
            return
        self.exit()

    def new_match(self, start: Match | None = None) -> None:
        """Another local match with the same options and a fresh seed; online, a rematch.
        ``start``: play that match (a practice position) instead of a fresh one."""
        if self.game is not None and not isinstance(self.game, LocalGame):
            try:
                self.game.rematch()
            except IllegalAction as e:
                self.message, self.message_style = str(e), "bold red"
            else:
                self.message, self.message_style = tr("tui.rematch_moving"), "italic cyan"
                # (a new table: its first turns are new turns, whatever their numbers)
                self._call_key = self._call_sent = self._lift_sent = None
                self._hint_key = None
            self.render_all()
            return
        old = self.game
        if not isinstance(old, LocalGame):
            return
        old.close()
        # the same rules, bots and name; a fresh seed: the rules and warm-up chosen at the start, also
        # after a practice position, whose game has its position's own (a newcomer's "new match" after
        # a practice was one round, its tie shared; a reviewer's read: and its hard bots waited for the
        # kernel); a position's own rules, without the warm-up's fallback (a seeded position)
        home_rules, home_ready = self._home if self._home is not None else (old.rules, old.until_ready)
        self.game = LocalGame(
            rules=home_rules if start is None else start.rules,
            seed=None if start is None else start.seed,
            bots=old.bots,
            name=old.name,
            delay=old.delay,
            trick_pause=old.trick_pause,
            until_ready=home_ready if start is None else None,
            start=start,
        )
        self.model = None
        self.selected = None
        self.picked = False
        self._call_key = None
        self._hint_key = None
        self.message = ""
        self.run_worker(self.game.run(self.on_game_change), group="game", exclusive=True, exit_on_error=True)

    def on_unmount(self) -> None:
        if self.game is not None:
            self.game.close()

    def _tick(self) -> None:
        if self.model is not None and self.model.deadline is not None:
            self.render_all()

    # --- game → screen ------------------------------------------------------------
    def on_game_change(self) -> None:
        if self.game is None:
            return
        if self.game.fatal:
            self.exit(1)
            return
        self.model = self.game.model()
        if self.model.connected and self.message == tr("tui.o_not_connected"):
            self.message = ""  # (back at the table: "not connected" no longer true, a newcomer's try)
        self._track_state(self.model)
        self._sync_choices()
        self._maybe_hint()
        self.render_all()
        self._turn_behind()
        if isinstance(self.screen, SummaryScreen) and self.screen.is_mounted:
            self.screen.query_one("#summary-foot", Label).update(self.screen.foot())
        pending = self.game.pending_summary
        if self._summary_open and isinstance(self.screen, SummaryScreen) and (
            (pending is None and not self.model.over) or self.screen.model.over != self.model.over
        ):
            # the table moved on without us (the server's between-rounds timer), or the
            # match was ended here: close without acknowledging, and show what is new
            self._summary_open = False
            self.screen.dismiss(None)
        if pending is not None and not self._summary_open:
            self._summary_open = True
            local = isinstance(self.game, LocalGame)
            screen = SummaryScreen(pending, self.model, local=local, remaining=None if local else self.remaining)
            self.push_screen(screen, self._summary_closed)

    def _turn_behind(self) -> None:
        """A timed turn that comes while another screen (the help) hides the table is said there,
        once a turn (a newcomer's try: reading the help, their cards were played unseen)."""
        m = self.model
        if m is None or not m.my_turn or m.deadline is None or self.table_screen is None or self.screen is self.table_screen:
            return
        v = m.view
        key = (v.round_number, len(v.tricks), len(v.trick), v.phase)
        if key != self._behind_told:
            self._behind_told = key
            self.notify(tr("tui.turn_behind"), severity="warning")

    def _track_state(self, m: TableModel) -> None:
        """Clear the message when the table has moved on since it was shown."""
        state = state_key(m)
        if state != self._state:
            self._state = state
            self.message = ""
        if m.error != self._error:
            self._error, self._error_state = m.error, state

    def _summary_closed(self, _: None) -> None:
        if not self._summary_open:
            return
        self._summary_open = False
        if self.game is not None:
            self.game.acknowledge_round()
            self.on_game_change()

    def _sync_choices(self) -> None:
        m = self.model
        if m is None:
            return
        v = m.view
        hand = sort_hand(v.hand, v.rules.trump)
        # Where a turn's timer runs (online), the cursor starts where the timer would act (the
        # lowest legal call or card): what the screen shows chosen is what a timeout plays, and a
        # choice the player makes is told the server (`_lifted`), which plays it then.
        timed = m.deadline is not None
        turn = (v.round_number, len(m.summaries), v.phase, len(v.tricks), len(v.trick)) if m.my_turn else None
        if self._my_turn is not None and turn != self._my_turn:
            self.typed = ""  # (the turn went by, its timer's: what was typed for it is spent)
        self._my_turn = turn
        calling = (v.round_number, len(m.summaries)) if v.phase == "calling" else None
        if calling is not None and calling != self._calling:
            # a round's calling begins: a card chosen late in the round before is not raised
            # (reset once: a card the player raises while the others call stays raised)
            self.picked = False
        self._calling = calling
        if v.phase == "calling" and m.my_turn:
            key = (v.round_number, len(m.summaries), v.hand)
            if self._call_key != key or self.call_choice not in v.legal_calls:
                self._call_key, self.call_picked = key, False
                if isinstance(m.lifted, int) and not isinstance(m.lifted, Card) and m.lifted in v.legal_calls:
                    # the call the server kept chosen for this turn (the client started anew)
                    self.call_choice, self.call_picked = m.lifted, True
                elif timed and v.legal_calls:
                    low = lowest_action(v)  # (the timer's)
                    self.call_choice = None if isinstance(low, Card) else low
                else:
                    self.call_choice = min(max(3, v.legal_calls[0]), v.legal_calls[-1]) if v.legal_calls else None
            self._lifted()
        if m.my_turn and v.phase == "playing":
            if not self.picked and isinstance(m.lifted, Card) and m.lifted in v.legal_cards:
                # the card the server kept chosen for this turn (the client started anew): chosen again
                self.selected, self.picked = m.lifted, True
            if not self.picked and timed and v.legal_cards:
                low = lowest_action(v)  # (the timer's)
                self.selected = low if isinstance(low, Card) else None
            if self.selected not in v.legal_cards:
                legal = [c for c in hand if c in v.legal_cards]
                self.selected = legal[0] if legal else None
                self.picked = False  # (the cursor moved by itself: not a choice of the player's)
            self._lifted()
        elif self.selected not in hand:
            self.selected = hand[0] if hand else None
            self.picked = False  # (moved by itself: the next turn lifts nothing the player did not choose)
        if self.typed:
            self.typed_changed()  # (typed while waiting for the turn: shown, so chosen)

    def _maybe_hint(self) -> None:
        m = self.model
        if m is None or self.hint_fn is None or not m.my_turn or m.view.phase != "calling":
            return
        key = (m.view.round_number, len(m.summaries), m.view.hand)
        if key == self._hint_key:
            return
        self._hint_key = key
        self.hint_text = Text()
        view = m.view
        fn = self.hint_fn
        self.run_worker(lambda: self._compute_hint(fn, view, key), thread=True, group="hint")

    def _compute_hint(self, fn: HintFn, view: Any, key: tuple[Any, ...]) -> None:
        try:
            h = fn(view)
        except Exception as e:  # the hint failed: the picker says so (as Tab's card hint does), the call is the player's
            failed = Text(tr("tui.no_hint", why=e), style="dim")

            def say() -> None:
                if self._hint_key == key:
                    self.hint_text = failed
                    self.render_all()

            self.call_from_thread(say)
            return
        call = getattr(h, "call", None)
        chance = getattr(h, "chance", None)
        if call is None:
            return
        t = Text()
        t.append(tr("tui.suggested_quick" if getattr(h, "quick", False) else "tui.suggested"), style="dim")
        t.append(digits(current(), call), style="bold cyan")
        if chance is not None:  # (a long shot at first place said so, as on the page)
            first = getattr(h, "why", None) == "call_first"
            t.append(tr("tui.to_make_first" if first else "tui.to_make", percent=round(100 * float(chance))), style="dim")

        def show() -> None:
            if self._hint_key == key:
                self.hint_text = t
                # the cursor goes to the suggestion unless the player has moved it (Help says so); where
                # a timer runs, the server is told, so that a timeout calls what the screen shows (a
                # newcomer's try online: the cursor stayed on the timer's 1 beside "suggested 2", and
                # Enter called 1)
                m = self.model
                free = self.call_choice is not None and self._call_key is not None and not self.call_picked
                if free and m is not None and call in m.view.legal_calls:
                    self.call_choice = call
                    if m.deadline is not None:
                        self.call_picked = True
                        self._lifted()
                self.render_all()

        self.call_from_thread(show)

    def card_hint(self) -> None:
        """Tab: choose the card the bots' hint suggests, with its reason."""
        m = self.model
        fn = self.hint_fn
        if m is None or not m.my_turn or m.view.phase != "playing":
            return
        if fn is None:
            self.message, self.message_style = tr("tui.no_hints"), "dim"
            self.render_all()
            return
        view = m.view
        self.message, self.message_style = tr("tui.thinking"), "dim"
        self.render_all()

        def work() -> None:
            why = tr("tui.no_hint_card")
            try:
                h = fn(view)
            except Exception as e:
                h = None
                why = tr("tui.no_hint", why=e)
            card = getattr(h, "card", None)

            def show() -> None:
                if self.model is None or self.model.view != view:
                    return
                if isinstance(card, Card) and card in view.legal_cards:
                    self.selected, self.picked = card, True  # (asked for: the player's choice, told the server)
                    self._lifted()
                    # (a quick hint says so before the card, as the web's card line: the note first
                    # in the reason left the one line no room for the reason itself)
                    quick = isinstance(h, Hint) and h.quick
                    reason = h.say(current(), note=False) if isinstance(h, Hint) else ""
                    self.message = tr("tui.hint_quick" if quick else "tui.hint", card=card.symbol) + (
                        f" — {reason}" if reason else ""
                    )
                else:
                    self.message = why
                self.message_style = "italic cyan"
                self.render_all()

            self.call_from_thread(show)

        self.run_worker(work, thread=True, group="hint")

    def remaining(self) -> float | None:
        if self.model is None or self.model.deadline is None:
            return None
        return self.model.deadline - time.time()

    def render_all(self) -> None:
        screen = self.table_screen
        if screen is None or not screen.is_mounted:
            return
        try:
            self._draw(screen)
        except NoMatches:
            # the screen's widgets are not all there: it is being built, or taken
            # down (a timer tick or a game event can land while the app exits)
            return

    def _draw(self, screen: TableScreen) -> None:
        m = self.model
        if m is None:
            screen.query_one("#header", Static).update(Text(f" ♠ {tr('home.title')}  ·  {tr('table.connecting')}", style="bold"))
            return
        v = m.view
        width = screen.size.width
        sidebar = screen.query_one("#sidebar", Static)
        side_w = 0 if width < 72 else 28 if width < 90 else 30 if width < 110 else 34
        sidebar.display = side_w > 0
        if side_w:
            sidebar.styles.width = side_w
            sidebar.update(scores_renderable(m, side_w - 2))
        table = screen.query_one("#table", Static)
        table.update(table_renderable(m, self.remaining(), table.size.height, totals=side_w == 0))
        screen.query_one("#header", Static).update(header_text(m, width))
        hand_w = max(20, screen.size.width - 2)
        screen.query_one("#hand", HandView).layout_for(v.hand, v.rules.trump, hand_w)
        playing = m.my_turn and v.phase == "playing"
        shown = self.selected if playing or self.picked else None
        screen.query_one("#hand", Static).update(
            hand_text(v.hand, v.legal_cards, shown, v.rules.trump, hand_w, playing)
        )
        screen.query_one("#prompt", Static).update(self.prompt_text())
        message = screen.query_one("#message", Static)
        folded = False
        if self.message:
            msg = Text(self.message, style=self.message_style)
        elif m.error and self._error_state == self._state:
            msg = Text(m.error, style="bold red")
        else:
            url = getattr(self.game, "seat_url", None)
            line = max(1, (message.size.width or screen.size.width) - 2)
            msg = Text(fit_status(m.status, url, line), style="dim")
            folded = msg.plain == url and msg.cell_len > line  # (the seat's link, longer than the line: two)
        if folded:
            msg.no_wrap, msg.overflow = False, "fold"
        else:
            msg.no_wrap, msg.overflow = True, "ellipsis"  # (one line: cut at its end, never a blank line)
        message.styles.height = 2 if folded else 1
        # (the row the fold takes comes from the table's least height: at 60 x 20 the rows added up
        # to 21, the fold's second row under the footer, a reviewer's read)
        screen.query_one("#main").styles.min_height = MAIN_ROWS - 1 if folded else MAIN_ROWS
        message.update(msg)
        offered = (m.over, m.my_turn and v.phase == "playing")  # (what `check_action` reads)
        if offered != self._offered:  # (the footer's keys by what they do now, redrawn only then)
            self._offered = offered
            screen.refresh_bindings()

    def prompt_text(self) -> Text:
        m = self.model
        t = Text()
        if m is None:
            return t
        v = m.view
        wide = self.table_screen is None or self.table_screen.size.width >= 90
        remaining = self.remaining()
        if m.my_turn and remaining is not None:
            t.append(tr("tui.left", time=seconds_left(remaining)) + "  ", style="bold yellow" if remaining > 5 else "bold red")
        if m.over:
            # the line's first words that fit (at 60 columns "Ctrl+Q: quit" was cut off: "Match over."
            # goes first, the table's caption says it too, then the rematch's explanation)
            keys = "tui.keys_final_local" if isinstance(self.game, LocalGame) else "tui.keys_final_online"
            room = None if self.table_screen is None else self.table_screen.size.width - 2
            choices = [(True, tr(keys)), (False, tr(keys))]
            if not isinstance(self.game, LocalGame):
                choices.append((False, tr("tui.keys_final_online_short")))
            for over, words in choices:
                t = Text(tr("tui.match_over"), style="bold yellow") if over else Text()  # (the result: under the table)
                t.append(words if over else words.lstrip(), style="dim")
                if room is None or t.cell_len <= room:
                    break
            return t
        if not m.connected:
            t.append(tr("tui.connection_lost"), style="bold yellow")
            return t
        if not m.my_turn:
            who = m.names[v.to_act] if v.to_act is not None else ""
            t.append(m.waiting or (tr("tui.waiting_for", name=who) if who else tr("tui.waiting")), style="dim")
            if self.typed:
                t.append(tr("tui.typed", typed=self.typed), style="bold")
            return t
        if v.phase == "calling":
            t.append(tr("tui.your_call"), style="bold")
            t.append("◀ ", style="dim")
            shown = digits(current(), self.typed or self.call_choice)  # (the language's digits, as the hint's)
            t.append(f" {shown} ", style="bold black on yellow")
            t.append(" ▶", style="dim")
            t.append_text(self.hint_text)
            t.append(tr("tui.call_keys") if wide else "  ←→ ⏎", style="dim")
        else:
            t.append(tr("tui.your_turn"), style="bold")
            if self.typed:
                t.append(f" {self.typed}_ ", style="bold black on yellow")
                t.append(tr("tui.typed_keys") if wide else "  ⏎ · Esc", style="dim")
            else:
                if self.selected is not None:
                    t.append(self.selected.symbol, style="bold red" if self.selected.suit in "HD" else "bold")
                t.append(
                    tr("tui.play_keys") if wide else tr("tui.play_keys_narrow"),
                    style="dim",
                )
        return t

    # --- screen → game --------------------------------------------------------------
    def move(self, step: int) -> None:
        self.quit_asked = False
        m = self.model
        if m is None:
            return
        v = m.view
        if v.phase == "calling" and m.my_turn:
            legal = list(v.legal_calls)
            if legal and self.call_choice is not None:
                self.typed = ""
                i = legal.index(self.call_choice) if self.call_choice in legal else 0
                self.call_choice = legal[max(0, min(len(legal) - 1, i + step))]
                self.call_picked = True
                self._lifted()
        else:
            hand = sort_hand(v.hand, v.rules.trump)
            playing = m.my_turn and v.phase == "playing"
            pool = [c for c in hand if c in v.legal_cards] if playing else hand
            if pool:
                if playing:
                    self.typed = ""  # (the arrows choose now: Enter plays the card they show, as the timer)
                i = pool.index(self.selected) if self.selected in pool else -1
                self.selected = pool[(i + step) % len(pool)] if i >= 0 else pool[0]
                self.picked = True
                self._lifted()
        self.render_all()

    @property
    def typed(self) -> str:
        """What the player has typed for this turn, not yet entered ("14", "qs")."""
        return self._typed

    @typed.setter
    def typed(self, text: str) -> None:
        if not text:  # (entered, or the arrows choose now: the next typing starts from their choice)
            self._untyped = None
        self._typed = text

    def erase(self) -> None:
        """The last character typed taken back: the choice is what the rest of it chooses, or the
        one before the typing."""
        if len(self._typed) <= 1:
            self.clear_typed()
            return
        self._typed = self._typed[:-1]
        self.typed_changed()

    def clear_typed(self) -> None:
        """What is typed taken back whole (Esc): the choice is the one before the typing."""
        self._typed = ""
        self.typed_changed()
        self._untyped = None

    def typed_changed(self) -> None:
        """What is typed on the seat's turn chooses the call or card it names, as the arrows do
        (`typed_choice`): the timer then makes the call shown, or plays the card typed. Typed text
        that chooses nothing ("14", a call too high, whose "1" chose 1) leaves the choice as it was
        before the typing: the picker never rests on a call the player did not mean."""
        m = self.model
        if m is None or not m.my_turn:
            return
        if self._untyped is None:
            self._untyped = (self.call_choice, self.call_picked, self.selected, self.picked)
        choice = typed_choice(self.typed, m.view)
        if isinstance(choice, Card):
            self.selected, self.picked = choice, True
        elif choice is not None:
            self.call_choice, self.call_picked = choice, True
        else:
            self.call_choice, self.call_picked, self.selected, self.picked = self._untyped
        self._lifted()

    def _lifted(self) -> None:
        """Tell the server the card or the call the player chose for this turn, played if the turn
        runs out (none when the cursor is on no legal card of it, or moved there by itself); once
        a turn and choice, and again on a new connection (a server that took the table over after
        a failover, or restarted, kept none)."""
        m = self.model
        if self.game is None or m is None or not m.my_turn:
            return
        if self.game.connects != self._connects:
            self._connects = self.game.connects
            self._lift_sent = self._call_sent = None
        v = m.view
        if v.phase == "calling":
            if self._call_key is None:
                return
            chosen = self.call_choice if self.call_picked and self.call_choice in v.legal_calls else None
            sent = (self._call_key, chosen)
            # (none chosen: said only to take back a call told this turn, as typed text that chose
            # nothing in the end does)
            told = self._call_sent is not None and self._call_sent[0] == self._call_key
            if sent != self._call_sent and (chosen is not None or told):
                self._call_sent = sent
                self.game.lift(chosen)
            return
        if v.phase != "playing":
            return
        card = self.selected if self.picked and self.selected in v.legal_cards else None
        key = (v.round_number, len(v.tricks), len(v.trick), card)
        if key != self._lift_sent:
            self._lift_sent = key
            self.game.lift(card)

    def end_match(self) -> None:
        """e, between rounds of a match without a fixed end: stop here and rank the players."""
        if self.game is None:
            return
        try:
            self.game.end_match()
        except IllegalAction as e:
            self.message, self.message_style = str(e), "bold red"
            self.notify(str(e), severity="warning")
            self.render_all()
            return
        self.on_game_change()

    def hand_click(self, card: Card) -> None:
        """A click on a card: choose it; a second click on the chosen card plays it (the card raised
        by itself at the turn's start is not chosen: a newcomer's one click on it played it)."""
        m = self.model
        if m is None:
            return
        if m.my_turn and m.view.phase == "playing" and card == self.selected and self.picked:
            self.typed = ""
            self.submit()
            return
        self.selected = card
        self.picked = True
        self.typed = ""
        self._lifted()
        self.render_all()

    def submit(self) -> None:
        self.quit_asked = False
        m = self.model
        game = self.game
        if m is None or game is None:
            return
        typed, self.typed = self.typed, ""
        v = m.view
        try:
            if m.over:
                if m.summaries and not self._summary_open:
                    # Enter once the match is over: the final scores again
                    self._summary_open = True
                    local = isinstance(game, LocalGame)
                    self.push_screen(SummaryScreen(m.summaries[-1], m, local=local), self._summary_closed)
                    return
                raise IllegalAction(tr("table.match_over"))
            if v.phase == "lobby":
                if typed:  # a call or a card typed too early is refused, never taken for "start"
                    raise IllegalAction(tr("tui.lobby_typed", typed=typed))
                game.start_table()
                self.message = ""
                return
            if not m.my_turn:
                try:
                    game.take_back()
                except IllegalAction:
                    if v.to_act is None:
                        raise
                    # not a refusal to fix: the others are still playing, and it goes on its own
                    self.message, self.message_style = (
                        tr("tui.not_turn_call" if v.phase == "calling" else "tui.not_turn_play", name=m.names[v.to_act]),
                        "yellow",
                    )
                else:
                    self.message, self.message_style = tr("tui.seat_back"), "italic cyan"
                self.render_all()
                return
            if v.phase == "calling":
                action: int | Card = parse_call(typed, v.legal_calls) if typed else (self.call_choice or 0)
            else:
                if typed:
                    action = parse_typed_card(typed)
                elif self.selected is not None:
                    action = self.selected
                else:
                    raise IllegalAction(tr("tui.choose_first"))
            game.submit(action)
        except (IllegalAction, ValueError) as e:
            self.message = str(e)
            self.message_style = "bold red"
            self.bell()
            self.render_all()
            return
        self.message = ""
        self.picked = False
        self.on_game_change()
