"""Rich renderables for the terminal client, built from a `TableModel` (no Textual here).

>>> from callbreak import Card
>>> card_text(Card.parse("TH")).plain
'10♥'
>>> position_of(1, me=0, direction="clockwise"), position_of(1, me=0, direction="counterclockwise")
('W', 'E')
"""

from __future__ import annotations

import functools
import math
import unicodedata
from collections.abc import Sequence
from decimal import Decimal

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from ..cards import Card
from ..i18n import catalogue, digits
from ..rules import PRESETS, Ruleset
from .game import RoundSummary, TableModel, sort_hand
from .words import current, tr

__all__ = [
    "FirstFit",
    "card_face",
    "card_text",
    "fit_status",
    "hand_slots",
    "hand_text",
    "header_text",
    "match_result",
    "places_table",
    "position_of",
    "result_line",
    "scores_renderable",
    "short_labels",
    "summary_table",
    "table_renderable",
]

RED_SUITS = "HD"
SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
FACE = 4  # columns of a card face in the hand
POS_NAMES = {"S": "south", "W": "west", "N": "north", "E": "east"}


#: how the online game's status line joins its notes (`callbreak.tui.online`)
NOTES = "  ·  "


def fit_status(status: str, url: str | None, width: int) -> str:
    """The status line for a line of ``width`` cells. Where it does not fit and holds the seat's
    link ``url``: the other notes alone (they are the moment's; the link is there again after),
    else the link alone, without its words (a cut link is no link: at 60 columns the line showed
    "rejoin:" and nothing of it, a newcomer's try; the terminal folds a link longer than the line
    over two).

    >>> url = "http://127.0.0.1:8772/t/k3Xa9Q#s3cretT0ken-abcdefghij"
    >>> fit_status(f"rejoin: {url}", url, 80) == f"rejoin: {url}"
    True
    >>> fit_status(f"rejoin: {url}", url, 60) == url
    True
    >>> fit_status(f"time ran out: a card was played{NOTES}rejoin: {url}", url, 80)
    'time ran out: a card was played'
    """
    if cell_len(status) <= width or not url or url not in status:
        return status
    notes = status.split(NOTES)
    others = [n for n in notes if url not in n]
    return NOTES.join(others) if others else url


def card_text(card: Card, style: str = "") -> Text:
    """``A♠`` / ``10♥`` coloured by suit.

    >>> from callbreak import Card
    >>> t = card_text(Card.parse("QD"), "underline")
    >>> t.plain, t.style
    ('Q♦', 'bold red underline')
    """
    colour = "bold red" if card.suit in RED_SUITS else "bold"
    return Text(card.symbol, style=f"{colour} {style}".strip())


def card_face(card: Card, width: int = 5) -> Text:
    """A small white card face (one line), red or black by suit.

    >>> from callbreak import Card
    >>> f = card_face(Card.parse("AS"))
    >>> repr(f.plain), f.style
    ("'  A♠ '", 'bold black on grey93')
    """
    fg = "red3" if card.suit in RED_SUITS else "black"
    return Text(f" {card.symbol} ".center(width), style=f"bold {fg} on grey93")


def position_of(seat: int, me: int, direction: str) -> str:
    """Where ``seat`` sits on screen when ``me`` is at the bottom: ``S``, ``W``, ``N`` or ``E``.

    Seats act in order 0, 1, 2, 3; clockwise play goes from you to your left (west).

    >>> [position_of(s, me=2, direction="clockwise") for s in range(4)]
    ['N', 'E', 'S', 'W']
    >>> [position_of(s, me=2, direction="counterclockwise") for s in range(4)]
    ['N', 'W', 'S', 'E']
    """
    off = (seat - me) % 4
    if direction == "counterclockwise":
        return "SENW"[off]
    return "SWNE"[off]


def seconds_left(remaining: float) -> str:
    """A countdown, rounded up: ``seconds_left(4.2) == '5s'``; never below ``0s``.

    >>> seconds_left(4.2), seconds_left(-1.0)
    ('5s', '0s')
    """
    return tr("table.secs", secs=max(0, math.ceil(remaining)))


def fmt_points(p: Decimal | None) -> str:
    """>>> fmt_points(Decimal("4.2")), fmt_points(Decimal("-3")), fmt_points(None)
    ('4.2', '-3.0', '–')
    """
    if p is None:
        return "–"
    return f"{p:.1f}"


def letters(text: str) -> list[str]:
    """``text`` as the letters a reader sees: a character with the marks that follow it, and a
    conjunct whole (a virama joins the next consonant), so a cut never splits one ("लक्" of
    "लक्ष्मी" read as a stray half letter).

    >>> letters("लक्ष्मी"), letters("সীতা"), letters("Asha")
    (['ल', 'क्ष्मी'], ['সী', 'তা'], ['A', 's', 'h', 'a'])
    """
    out: list[str] = []
    for ch in text:
        joins = out and (unicodedata.category(ch).startswith("M") or "VIRAMA" in unicodedata.name(out[-1][-1], ""))
        if joins:
            out[-1] += ch
        else:
            out.append(ch)
    return out


def short_labels(names: Sequence[str], width: int) -> tuple[str, ...]:
    """Labels of at most ``width`` characters for the players, no two the same.

    A name is cut to ``width``; names that then read the same lose their spaces, then keep
    their last characters (``Alexander``/``Alexandra``: ``Aler``/``Alea``), and as a last
    resort become initials plus the seat number (1 to 4).

    >>> short_labels(["You", "Bot 2", "Bot 3", "Bot 4"], 4)
    ('You', 'Bot2', 'Bot3', 'Bot4')
    >>> short_labels(["You", "Aarav", "Bina", "Chandra"], 4)
    ('You', 'Aara', 'Bina', 'Chan')
    >>> short_labels(["Alexander", "Alexandra", "Bot 3", "Bot 4"], 4)
    ('Aler', 'Alea', 'Bot3', 'Bot4')
    >>> short_labels(["Sam", "Sam", "Ann Lee", "Ann Lee"], 4)
    ('S1', 'S2', 'AL3', 'AL4')

    The width is in the terminal's cells (as rich counts them: a vowel sign takes one in some
    tables and none in others), and a cut keeps each letter whole (`letters`):

    >>> for width in (2, 3):
    ...     labels = short_labels(["लक्ष्मी", "राहुल", "You", "सीता"], width)
    ...     print(labels[0], [x for x in labels if cell_len(x) > width or x.endswith("्")])
    ल []
    ल []
    """
    width = max(2, width)

    def cut(name: str, n: int) -> str:
        kept = ""
        for letter in letters(name):
            if kept and cell_len(kept + letter) > n:
                break
            kept += letter
        return kept

    def compact(name: str) -> str:
        return "".join(name.split())

    def head_tail(name: str) -> str:
        c = compact(name)
        if cell_len(c) <= width:
            return c
        last = letters(c)[-1]
        return cut(c, width) if cell_len(last) >= width else cut(c, width - cell_len(last)) + last

    def initials(seat: int, name: str) -> str:
        first = "".join(letters(w)[0] for w in name.split())
        return cut(first, width - 1) + str(seat + 1)

    labels = [cut(n, width) for n in names]
    for shorten in (lambda s, n: cut(compact(n), width), lambda s, n: head_tail(n), initials):
        clash = [labels.count(label) > 1 for label in labels]
        if not any(clash):
            break
        labels = [shorten(s, n) if clash[s] else labels[s] for s, n in enumerate(names)]
    if len(set(labels)) < len(labels):
        labels = [initials(s, n) for s, n in enumerate(names)]
    return tuple(labels)


#: fields the header says apart from the rules' name (the rounds, the trump) or not at all (the timers)
_SAID_APART = frozenset({"rounds", "trump", "card_seconds", "call_seconds"})


def rules_label(rules: Ruleset) -> str:
    """The preset and what else differs from it (the rounds and the trump are said apart: a
    table of Quick rules in 2 rounds is Standard's, as on the web page).

    >>> rules_label(Ruleset.preset("pagat", rounds=2)), rules_label(Ruleset.preset("quick", rounds=2))
    ('Pagat rules', 'Standard rules')
    >>> rules_label(Ruleset.preset("bhoos", max_call=9))
    'Bhoos rules (Highest call: 9)'
    >>> rules_label(Ruleset.preset("quick", tie_break="share", must_head=False))
    'Quick rules (Tie at the top: share, Must head: no)'
    """
    name, diff = rules.describe()
    shown = {k: v for k, v in diff.items() if k not in _SAID_APART}
    label = tr(f"preset.short.{name}") if name in PRESETS else name
    if not shown:
        return tr("tui.rules", name=label)
    return tr("tui.rules_changed", name=label, changes=", ".join(rule_words(k, v) for k, v in shown.items()))


#: the words of a rule's value, where it is not a number or yes/no (as the web's form of rules says them)
_VALUE_KEYS = {
    ("missed_penalty", "call"): "rule.minus_call",
    ("missed_penalty", "shortfall"): "rule.minus_shortfall",
    ("missed_penalty", "zero"): "",
    ("bonus_call", None): "rule.no_bonus",
    ("max_overtricks", None): "rule.no_limit",
    ("tie_break", "sudden_death"): "rule.sudden_death",
    ("tie_break", "share"): "rule.share",
    ("trump_lead", "any"): "rule.lead_any",
    ("trump_lead", "not_first_trick"): "rule.lead_not_first",
    ("trump_lead", "after_broken"): "rule.lead_after_broken",
    ("direction", "clockwise"): "rule.clockwise",
    ("direction", "counterclockwise"): "rule.counterclockwise",
}


def rule_words(field: str, value: object) -> str:
    """One rule and its value as a player reads them, in the player's language ("max_call=9"
    was shown before).

    >>> rule_words("max_call", 9), rule_words("missed_penalty", "shortfall"), rule_words("must_head", True)
    ('Highest call: 9', 'Missed call: −(call − tricks)', 'Must head: yes')
    >>> rule_words("missed_penalty", "zero"), rule_words("bonus_points", 10)
    ('Missed call: 0', "Bonus call's points: 10")
    >>> rule_words("overtrick_points", "0.1"), rule_words("overtrick_points", "0")
    ('Each overtrick: +0.1', 'Each overtrick: 0')
    >>> rule_words("trump", "H")
    'Trump: ♥ hearts'
    """
    label = "rule.missed_call" if field == "missed_penalty" else f"rule.{field}"
    name = tr(label) if label in catalogue("en") else field  # (a field the web's form has no words for)
    key = _VALUE_KEYS.get((field, value if isinstance(value, str | None) else ""))
    if key == "":
        words = digits(current(), 0)
    elif key is not None:
        words = tr(key)
    elif isinstance(value, bool):
        words = tr("rule.yes" if value else "rule.no")
    elif field == "trump" and value in ("S", "H", "D", "C"):
        words = tr(f"rule.trump_{value}")
    elif field == "overtrick_points" and Decimal(str(value)) > 0:
        words = digits(current(), f"+{value}")  # as the home page's form offers it: "+0.1"
    else:
        words = digits(current(), value)
    return f"{name}: {words}"


def header_text(model: TableModel, width: int | None = None) -> Text:
    """The top line: the game's name, the round, the rules and the trump; in ``width`` cells
    (None: all of it), where the seed, the game's name, the rules' name and "no fixed end" give
    way in that order to what matters at the table (the round, the trick, the trump).

    >>> from callbreak import Ruleset
    >>> from callbreak.tui.game import LocalGame
    >>> game = LocalGame(Ruleset.preset("quick"), seed=3, bots="easy", name="Asha", delay=0, trick_pause=0)
    >>> header_text(game.model()).plain
    ' ♠ Callbreak   Quick rules  ·  round 1 of 3  ·  seed 3'
    >>> header_text(game.model(), width=44).plain
    ' ♠ Callbreak   Quick rules  ·  round 1 of 3'
    >>> header_text(game.model(), width=40).plain
    ' Quick rules  ·  round 1 of 3'
    >>> endless = LocalGame(Ruleset(rounds=None, trump="H"), seed=3, bots="easy", delay=0, trick_pause=0)
    >>> header_text(endless.model()).plain
    ' ♠ Callbreak   Standard rules  ·  round 1  ·  no fixed end  ·  trump ♥  ·  seed 3'
    >>> header_text(endless.model(), width=30).plain
    ' round 1  ·  trump ♥'
    """
    v = model.view
    rules = v.rules
    # (text, style, which gives way first: 0 never)
    parts: list[tuple[str, str, int]] = [
        (f" ♠ {tr('home.title')} ", "bold black on grey93", 3),
        (rules_label(rules), "bold", 2),
    ]
    if v.phase == "lobby":
        parts.append((tr("tui.lobby"), "", 0))
        parts.append((tr("summary.no_end") if v.rounds is None else tr("summary.rounds", count=v.rounds), "", 0))
    elif v.rounds is None or v.round_number > v.rounds:
        parts.append((tr("tui.round", round=v.round_number), "", 0))
        if v.rounds is None:
            parts.append((tr("summary.no_end"), "", 1))
    else:
        parts.append((tr("tui.round_of", round=v.round_number, rounds=v.rounds), "", 0))
    if v.phase == "playing":
        parts.append((tr("tui.trick_of", trick=min(len(v.tricks) + 1, 13), tricks=13), "", 0))
    if rules.trump != "S":
        parts.append((tr("tui.trump", symbol=SUIT_SYMBOL[rules.trump]), "bold yellow", 0))
    if v.sudden_death and not model.over:
        parts.append((f" {tr('tui.sudden_death')} ", "bold white on red", 0))
    if model.seed is not None:
        parts.append((tr("tui.seed", seed=model.seed), "dim", 4))
    if not model.connected:
        parts.append((f" {tr('tui.reconnecting')} ", "bold black on yellow", 0))

    def line(kept: list[tuple[str, str, int]]) -> Text:
        t = Text()
        for i, (text, style, _) in enumerate(kept):
            if i:  # (a badge, and what follows the first one, stand apart without a dot)
                t.append("  " if " on " in style or (i == 1 and " on " in kept[0][1]) else "  ·  ")
            elif " on " not in style:
                t.append(" ")
            t.append(text, style=style)
        return t

    t = line(parts)
    for level in (4, 3, 2, 1):
        if width is None or t.cell_len <= width:
            break
        parts = [p for p in parts if p[2] != level]
        t = line(parts)
    return t


#: the most cells a seat's name takes on the table (a longer one ends in "…")
NAME_CELLS = 18


class FirstFit:
    """The first of ``choices`` whose first line fits the width it is given, else the last one.

    A seat's name with "(D)" beside it, or the dealer's words on a line of their own where a side
    of an 80-column table is too narrow for them (a newcomer's try: Hindi's "(बाँटने वाला)" broke
    in two, "वाला)" under the name).

    >>> import io
    >>> from rich.console import Console
    >>> fit = FirstFit(Text("Asha (D)"), Text("Asha\\n(D)"))
    >>> for width in (20, 6):
    ...     console = Console(width=width, file=io.StringIO())
    ...     console.print(fit)
    ...     console.file.getvalue().splitlines()
    ['Asha (D)']
    ['Asha', '(D)']
    """

    def __init__(self, *choices: Text) -> None:
        self.choices = choices

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for choice in self.choices:
            if cell_len(choice.plain.split("\n", 1)[0]) <= options.max_width:  # (the name's line: a label below may wrap as it will)
                yield choice
                return
        yield self.choices[-1]

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = Measurement.get(console, options, self.choices[0])
        least = Measurement.get(console, options, self.choices[-1])
        return Measurement(least.minimum, widest.maximum)


def _seat_block(
    model: TableModel, seat: int, remaining: float | None, *, short: bool = False, totals: bool = False
) -> FirstFit:
    """A seat: name (▶ when to act, D for the dealer), label, call and tricks won, timer."""
    beside = _seat_text(model, seat, remaining, short=short, totals=totals, dealer_below=False)
    return FirstFit(beside, _seat_text(model, seat, remaining, short=short, totals=totals, dealer_below=True))


def _seat_text(
    model: TableModel, seat: int, remaining: float | None, *, short: bool, totals: bool, dealer_below: bool
) -> Text:
    v = model.view
    t = Text(justify="center")
    to_act = v.to_act == seat and not model.over
    marker = "▶ " if to_act else ""
    style = "bold reverse" if to_act else "bold"
    # a long name is cut (found in QA: one of 32 letters squeezed the other seats into a few columns)
    name = Text(f"{marker}{model.names[seat]}", style=style)
    name.truncate(NAME_CELLS, overflow="ellipsis")
    t.append_text(name)
    if seat == v.dealer and v.phase != "lobby":
        t.append(("\n" if dealer_below else " ") + tr("tui.dealer"), style="dim")
    if not short and model.labels[seat]:
        t.append("\n")
        t.append(model.labels[seat], style="dim italic")
    t.append("\n")
    call = v.calls[seat] if seat < len(v.calls) else None
    won = v.tricks_won[seat] if seat < len(v.tricks_won) else 0
    if call is None:
        t.append(tr("seat.calling") if to_act and v.phase == "calling" else tr("tui.no_call"), style="dim")
    else:
        made = won >= call
        t.append(tr("tui.call", call=call), style="bold cyan")
        t.append(" " + tr("tui.won") + " ")
        t.append(digits(current(), won), style="bold green" if made else "bold")
    if totals and v.totals is not None:
        t.append("\n" + tr("tui.points", points=digits(current(), fmt_points(v.totals[seat]))), style="dim")
    if to_act and remaining is not None:
        t.append("\n" + tr("tui.left", time=seconds_left(remaining)), style="bold yellow" if remaining > 5 else "bold red")
    return t


def card_block(card: Card | None, tall: bool = True, mark: bool = False) -> Text:
    """A card on the table: three lines tall (one when space is short); None is an empty place.

    >>> from callbreak import Card
    >>> card_block(Card.parse("TH")).plain.splitlines()
    ['10♥   ', '      ', '   10♥']
    >>> card_block(Card.parse("TH"), tall=False).plain, card_block(None, tall=False).plain
    (' 10♥  ', '      ')
    """
    if card is None:
        if not tall:
            return Text("      ", style="on #0b3320", justify="left")
        return Text("\n", justify="left").join([Text("      ", style="on #0b3320")] * 3)
    fg = "red3" if card.suit in RED_SUITS else "black"
    bg = "light_goldenrod1" if mark else "grey93"
    style = f"bold {fg} on {bg}"
    sym = card.symbol
    if not tall:
        return Text(f" {sym:<4} ", style=style, justify="left")
    return Text("\n", justify="left").join(
        [Text(f"{sym:<6}", style=style), Text(" " * 6, style=style), Text(f"{sym:>6}", style=style)]
    )


def table_renderable(
    model: TableModel, remaining: float | None = None, height: int = 40, *, totals: bool = False
) -> RenderableType:
    """The table: the four seats round the trick in the middle.

    ``height`` (lines available) picks tall or flat cards and short seat blocks;
    ``totals`` adds each seat's running total (when no score panel is shown).

    >>> import io
    >>> from rich.console import Console
    >>> from callbreak import Ruleset
    >>> from callbreak.tui.game import LocalGame
    >>> game = LocalGame(Ruleset.preset("quick"), seed=3, bots="easy", name="Asha", delay=0, trick_pause=0)
    >>> console = Console(width=80, file=io.StringIO())
    >>> console.print(table_renderable(game.model(), height=30))
    >>> "Asha" in console.file.getvalue()
    True
    """
    tall = height >= 19
    short = height < 15
    v = model.view
    direction = v.rules.direction
    at = {position_of(s, model.seat, direction): s for s in range(4)}
    played: dict[int, Card] = dict(v.trick)
    winner: int | None = None
    caption = Text(justify="center")
    if model.over:
        caption.append(tr("tui.caption_over"), style="bold yellow")  # the result goes under the table, full width
    elif not v.trick and model.last_trick is not None:
        played = dict(enumerate(model.last_trick.by_seat()))
        winner = model.last_trick.winner
        caption.append(tr("announce.trick", name=model.names[winner]).rstrip(".।"), style="bold green")
    elif v.phase == "playing":
        if v.trick:
            caption.append(tr("tui.led", name=model.names[v.trick[0][0]]), style="dim")
        elif v.to_act is not None:
            caption.append(tr("tui.to_lead", name=model.names[v.to_act]), style="dim")
    elif v.phase == "calling":
        caption.append(tr("tui.calling"), style="dim")

    def slot(pos: str) -> Text:
        seat = at[pos]
        card = played.get(seat)
        if card is None:
            return card_block(None, tall)
        return card_block(card, tall, mark=winner == seat)

    centre = Table.grid(padding=(0, 2 if tall else 1))
    centre.add_column(justify="right")
    centre.add_column(justify="center")
    centre.add_column(justify="left")
    centre.add_row("", slot("N"), "")
    centre.add_row(slot("W"), Text(""), slot("E"))
    centre.add_row("", slot("S"), "")

    grid = Table.grid(expand=True)
    grid.add_column(justify="center", vertical="middle", ratio=1)
    grid.add_column(justify="center", vertical="middle", min_width=26 if tall else 22)
    grid.add_column(justify="center", vertical="middle", ratio=1)
    rem = {s: (remaining if s == v.to_act else None) for s in range(4)}

    def block(pos: str) -> FirstFit:
        return _seat_block(model, at[pos], rem[at[pos]], short=short, totals=totals)

    grid.add_row("", block("N"), "")
    middle: list[RenderableType] = [centre, caption]
    if not short:
        middle = [Text(""), *middle, Text("")]
    grid.add_row(block("W"), Group(*middle), block("E"))
    grid.add_row("", block("S"), "")
    if model.over:
        return Group(grid, Text(""), Text(match_result(model), style="bold yellow", justify="center"))
    return grid


def hand_slots(hand: Sequence[Card], trump: str, width: int) -> tuple[list[tuple[int, int, Card]], bool]:
    """Where each card of the hand lies on its line: ``(start, end, card)`` columns, and whether
    the hand is drawn as card faces (wide) or as one compact line.  The hand is centred in ``width``.

    >>> slots, wide = hand_slots([Card.parse(x) for x in ("AS", "KS", "2H")], "S", 40)
    >>> wide, [(a, b, str(c)) for a, b, c in slots]
    (True, [(12, 16, 'AS'), (17, 21, 'KS'), (24, 28, '2H')])
    """
    cards = sort_hand(hand, trump)
    suits = len({c.suit for c in cards})
    wide = len(cards) * FACE + len(cards) - 1 + (suits - 1) * 2 <= width
    out: list[tuple[int, int, Card]] = []
    x = 0
    prev: str | None = None
    for card in cards:
        if prev is not None:
            x += 1 if prev == card.suit else 3
        prev = card.suit
        w = FACE if wide else len(card.symbol)
        out.append((x, x + w, card))
        x += w
    pad = max(0, (width - x) // 2)
    return [(a + pad, b + pad, c) for a, b, c in out], wide


def hand_text(
    hand: Sequence[Card],
    legal: Sequence[Card],
    selected: Card | None,
    trump: str,
    width: int,
    dim_illegal: bool,
) -> Text:
    """The hand as card faces (or one compact line when narrow), centred in ``width``;
    the selected card raised, the cards you may not play now dimmed.

    >>> from callbreak import Card
    >>> hand = [Card.parse(c) for c in ("AS", "TH", "9H", "2C")]
    >>> t = hand_text(hand, legal=hand[1:3], selected=hand[1], trump="S", width=40, dim_illegal=True)
    >>> "A♠" in t.plain and "10♥" in t.plain, len(t.plain.splitlines()) >= 1
    (True, True)
    """
    slots, wide = hand_slots(hand, trump, width)
    legal_set = set(legal)
    if not slots:
        return Text("")
    lines = [Text(), Text(), Text()] if wide else [Text()]
    x = 0
    for start, _end, card in slots:
        for ln in lines:
            ln.append(" " * (start - x))
        ok = not dim_illegal or card in legal_set
        fg = ("red3" if card.suit in RED_SUITS else "black") if ok else "grey50"
        bg = "grey93" if ok else "grey30"
        if card == selected:
            bg = "#ffe680" if ok else "grey46"
        label = card.symbol
        if wide:
            top, mid, bot = lines
            if card == selected:
                top.append(f"{label:<{FACE}}", style=f"bold {fg} on {bg}")
                mid.append(" " * FACE, style=f"on {bg}")
                bot.append("▔" * FACE, style="#ffe680")
            else:
                top.append(" " * FACE)
                mid.append(f"{label:<{FACE}}", style=f"bold {fg} on {bg}")
                bot.append(" " * FACE, style=f"on {bg}")
            x = start + FACE
        else:
            style = f"bold {fg}" + (" reverse" if card == selected else "")
            lines[0].append(label, style=style)
            x = start + len(label)
    return Text("\n", no_wrap=True).join(lines)


def scores_renderable(model: TableModel, width: int = 30) -> RenderableType:
    """Calls, tricks and running totals, with the rounds so far, in ``width`` columns.

    The players' names are cut to fit (see `short_labels`), never to the same label.

    >>> import io
    >>> from rich.console import Console
    >>> from callbreak import Ruleset
    >>> from callbreak.tui.game import LocalGame
    >>> game = LocalGame(Ruleset.preset("quick"), seed=3, bots="easy", name="Asha", delay=0, trick_pause=0)
    >>> console = Console(width=40, file=io.StringIO())
    >>> console.print(scores_renderable(game.model()))
    >>> "Asha" in console.file.getvalue()
    True
    """
    v = model.view
    t = Table(title=tr("table.scores"), title_style="bold", expand=True, pad_edge=False, box=None, padding=(0, 1))
    t.add_column("", no_wrap=True, overflow="ellipsis")
    t.add_column(tr("tui.col_call"), justify="right")
    t.add_column(tr("tui.col_won"), justify="right")
    t.add_column(tr("tui.col_total"), justify="right")
    totals = v.totals or (Decimal(0),) * 4
    # call, won, total and the padding between the columns take about 18 columns
    names = short_labels(model.names, max(4, min(12, width - 18 - (3 if model.places is not None else 0))))
    for s in range(4):
        call = v.calls[s] if s < len(v.calls) else None
        name = Text(names[s], style="bold" if s == model.seat else "")
        if model.places is not None:
            name = Text.assemble((f"{digits(current(), model.places[s])}. ", "bold yellow"), name)
        t.add_row(
            name,
            "–" if call is None else digits(current(), call),
            digits(current(), v.tricks_won[s] if s < len(v.tricks_won) else 0),
            digits(current(), fmt_points(totals[s])),
        )
    parts: list[RenderableType] = [t]
    if model.summaries:
        hist = Table(box=None, pad_edge=False, expand=True, padding=(0, 1))
        hist.add_column(tr("tui.col_round"), style="dim")
        # the round column (3) and the padding (8) leave the rest to four columns of points
        labels = short_labels(model.names, max(3, min(8, (width - 11) // 4)))
        for s in range(4):
            hist.add_column(labels[s], justify="right", no_wrap=True)
        for rs in model.summaries[-6:]:
            hist.add_row(
                f"{digits(current(), rs.number)}{'*' if rs.sudden_death else ''}",
                *(
                    Text(digits(current(), fmt_points(p)), style="green" if p > 0 else "red")
                    for p in rs.points
                ),
            )
        parts += [Text(""), hist]
    if model.log:
        parts.append(Text(""))
        for line in model.log[-6:]:
            parts.append(Text(line, style="dim", overflow="ellipsis", no_wrap=True))
    return Group(*parts)


def summary_table(summary: RoundSummary, names: Sequence[str], seat: int) -> Table:
    """One round: per seat call, tricks, points and totals.

    >>> from decimal import Decimal
    >>> from callbreak.tui.game import RoundSummary
    >>> s = RoundSummary(1, (3, 2, 4, 3), (4, 1, 5, 3), tuple(map(Decimal, ("3.1", "-2", "4.1", "3"))),
    ...                  tuple(map(Decimal, ("3.1", "-2", "4.1", "3"))))
    >>> t = summary_table(s, ["Asha", "Ritu", "Maya", "Rahul"], seat=0)
    >>> t.title, t.row_count, [c.header for c in t.columns][:3]
    ('Round 1', 4, ['player', 'call', 'tricks'])
    """
    title = tr("tui.round_title_sudden" if summary.sudden_death else "tui.round_title", round=summary.number)
    t = Table(title=title, title_style="bold", expand=False)
    t.add_column(tr("tui.col_player"))
    t.add_column(tr("tui.col_call"), justify="right")
    t.add_column(tr("tui.col_tricks"), justify="right")
    t.add_column(tr("tui.col_points"), justify="right")
    t.add_column(tr("tui.col_total"), justify="right")
    d = functools.partial(digits, current())
    for s in range(4):
        call, won = summary.calls[s], summary.tricks[s]
        pts = summary.points[s]
        t.add_row(
            Text(names[s], style="bold" if s == seat else ""),
            "–" if call is None else d(call),
            Text("–" if won is None else d(won), style="green" if pts >= 0 else "red"),
            Text(d(fmt_points(pts)), style="bold green" if pts > 0 else "bold red"),
            d(fmt_points(summary.totals[s])),
        )
    return t


def ordinal(place: int, label: bool = False) -> str:
    """A place as a sentence says it ("You came 3rd"); ``label``: as a column names it (Hindi:
    "तीसरा" standing alone, "तीसरे" in a sentence).

    >>> ordinal(2), ordinal(5, label=True)
    ('2nd', '5th')
    """
    return tr(f"{'place_label' if label else 'place'}.{place if 1 <= place <= 4 else 'n'}", n=place)


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else tr("tui.and", first=", ".join(names[:-1]), last=names[-1])


def result_line(places: Sequence[int], totals: Sequence[Decimal], names: Sequence[str], seat: int) -> str:
    """The end of the match in words, for the player at ``seat``, with the totals.

    >>> pts = [Decimal(x) for x in ("8.1", "12.3", "-2.0", "3.0")]
    >>> names = ("Asha", "Aarav", "Bina", "Chandra")
    >>> result_line([2, 1, 4, 3], pts, names, 0)
    'You came 2nd of 4 with 8.1 points; Aarav won with 12.3.'
    >>> result_line([2, 1, 4, 3], pts, names, 1)
    'You won with 12.3 points! Asha came 2nd with 8.1.'
    >>> tied = [Decimal(5), Decimal(5), Decimal(-2), Decimal(1)]
    >>> result_line([1, 1, 4, 3], tied, names, 0)
    'You shared 1st place with Aarav on 5.0 points.'
    >>> result_line([1, 1, 4, 3], tied, names, 3)
    'You came 3rd of 4 with 1.0 points; Asha and Aarav won with 5.0.'
    """
    me = places[seat]
    d = functools.partial(digits, current())
    mine = d(fmt_points(totals[seat]))
    others = [s for s in range(len(places)) if s != seat]
    level = [names[s] for s in others if places[s] == me]
    if level:
        # (the place as a name, "तीसरा स्थान", not as a sentence's "तीसरे आए": a Hindi reader's try)
        return tr("tui.result_shared", place=ordinal(me, label=True), names=_and(level), points=mine)
    if me == 1:
        second = min(others, key=lambda s: (places[s], s))
        return tr("tui.result_won", points=mine, name=names[second], other=d(fmt_points(totals[second])))
    winners = [s for s in others if places[s] == 1]
    best = d(fmt_points(totals[winners[0]]))
    return tr(
        "tui.result_came", place=ordinal(me), n=len(places), points=mine,
        names=_and([names[s] for s in winners]), best=best,
    )


def match_result(model: TableModel) -> str:
    """`result_line` for a finished match's model ('' while it is still on).

    >>> from callbreak import Ruleset
    >>> from callbreak.tui.game import LocalGame, model_with
    >>> model = LocalGame(Ruleset.preset("quick"), seed=3, bots="easy", name="Asha", delay=0, trick_pause=0).model()
    >>> match_result(model)   # still on
    ''
    >>> match_result(model_with(model, places=(1, 3, 2, 4)))
    'You won with 0.0 points! Chandra came 2nd with 0.0.'
    """
    if model.places is None:
        return ""
    totals = model.view.totals or (model.summaries[-1].totals if model.summaries else (Decimal(0),) * 4)
    return result_line(model.places, totals, model.names, model.seat)


def places_table(model: TableModel) -> Table:
    """Final places, best first.

    >>> from callbreak import Ruleset
    >>> from callbreak.tui.game import LocalGame, model_with
    >>> model = LocalGame(Ruleset.preset("quick"), seed=3, bots="easy", name="Asha", delay=0, trick_pause=0).model()
    >>> t = places_table(model_with(model, places=(2, 1, 3, 4)))
    >>> t.title, t.row_count
    ('Final places', 4)
    """
    assert model.places is not None
    totals = model.view.totals or (Decimal(0),) * 4
    t = Table(title=tr("dialog.final_places"), title_style="bold", expand=False)
    t.add_column(tr("tui.col_place"), justify="right")
    t.add_column(tr("tui.col_player"))
    t.add_column(tr("tui.col_total"), justify="right")
    for s in sorted(range(4), key=lambda s: (model.places[s], s)):  # type: ignore[index]
        p = model.places[s]
        t.add_row(
            Text(ordinal(p, label=True), style="bold yellow" if p == 1 else ""),
            Text(model.names[s], style="bold" if s == model.seat else ""),
            digits(current(), fmt_points(totals[s])),
        )
    return t
