"""What the terminal client shows, and the local game that drives a `Match` and three bots.

Nothing here imports Textual: the app (`callbreak.tui.app`) only renders a `TableModel`
and forwards the player's keys, so the game logic is tested on its own.

>>> g = LocalGame(Ruleset.preset("quick", rounds=1), seed=5, bots="random", delay=0)
>>> m = g.model()
>>> m.seat, len(m.view.hand), m.names[0]
(0, 13, 'You')
>>> while not g.over:
...     if g.human_to_act:
...         v = g.model().view
...         g.submit(v.legal_calls[0] if v.phase == "calling" else v.legal_cards[0])
...     else:
...         _ = g.step_bot()
...     g.acknowledge_round()
>>> g.model().places is not None
True
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal

from ..bots import Bot, make_bot
from ..bots.names import bot_names, level_name
from ..bots.warmup import Warmup, serving_bot
from ..cards import Card
from ..errors import IllegalAction
from ..match import Match
from ..round import PlayAction, SeatView, Trick
from ..rules import Ruleset
from .words import current, tr

LEVEL_KEYS = ("random", "easy", "medium", "hard")  # the levels the catalogue names (level.*)

__all__ = [
    "Game",
    "LocalGame",
    "RoundSummary",
    "TableModel",
    "bot_or_fallback",
    "friendly_error",
    "parse_call",
    "parse_typed_card",
    "refusal",
    "sort_hand",
    "suit_order",
    "typed_choice",
]


@dataclass(frozen=True)
class RoundSummary:
    """One finished round: per seat call, tricks, points and running totals.

    >>> s = RoundSummary(1, (3, 2, 4, 3), (4, 1, 5, 3), (Decimal("3.1"), Decimal(-2), Decimal("4.1"), Decimal(3)),
    ...                  (Decimal("3.1"), Decimal(-2), Decimal("4.1"), Decimal(3)))
    >>> s.number, s.points[1], s.sudden_death
    (1, Decimal('-2'), False)
    """

    number: int
    calls: tuple[int | None, ...]
    tricks: tuple[int | None, ...]
    points: tuple[Decimal, ...]
    totals: tuple[Decimal, ...]
    sudden_death: bool = False


@dataclass(frozen=True)
class TableModel:
    """Everything the screen shows, from one seat's point of view (its `SeatView` only).

    >>> from callbreak import Ruleset
    >>> game = LocalGame(Ruleset.preset("quick"), seed=3, bots="easy", name="Asha", delay=0, trick_pause=0)
    >>> m = game.model()
    >>> m.seat, m.names[0], m.view.phase, m.over, m.my_turn == (m.view.to_act == 0)
    (0, 'Asha', 'calling', False, True)
    """

    seat: int
    view: SeatView
    names: tuple[str, str, str, str]
    labels: tuple[str, str, str, str]
    last_trick: Trick | None = None
    summaries: tuple[RoundSummary, ...] = ()
    places: tuple[int, ...] | None = None
    log: tuple[str, ...] = ()
    deadline: float | None = None
    status: str = ""
    error: str = ""
    connected: bool = True
    waiting: str = ""
    seed: int | None = None
    #: online: the card or the call the server keeps chosen for this seat's turn now (a
    #: snapshot's ``lifted``), shown chosen again after the client started anew
    lifted: Card | int | None = None

    @property
    def over(self) -> bool:
        return self.places is not None

    @property
    def my_turn(self) -> bool:
        return not self.over and self.view.to_act == self.seat


class Game:
    """The interface the app drives: a local match or an online seat.

    >>> from callbreak import Ruleset
    >>> game: Game = LocalGame(Ruleset.preset("quick"), seed=3, bots="easy", name="Asha", delay=0, trick_pause=0)
    >>> game.seat, game.pending_summary, game.model().view.phase
    (0, None, 'calling')
    >>> try:
    ...     game.rematch()
    ... except IllegalAction as e:
    ...     print(e)
    no rematch here
    """

    seat: int = 0
    fatal: str | None = None
    #: online: the rematch table someone has opened, and this seat's token there
    rematch_offer: tuple[str, str] | None = None
    #: online: the connections opened so far (a new one may reach a server that kept no choice)
    connects: int = 0

    def model(self) -> TableModel:
        raise NotImplementedError

    def submit(self, action: int | Card) -> None:
        """The player's call or card; raises `IllegalAction` (nothing changes) when not legal."""
        raise NotImplementedError

    def acknowledge_round(self) -> None:
        """The player has seen the last round's summary: the next round may go on."""

    def end_match(self) -> None:
        """End a match without a fixed number of rounds (``rounds=None``) between rounds."""
        raise IllegalAction(tr("tui.o_ends_itself"))

    def start_table(self) -> None:
        """Start a table waiting in its lobby (online, host only)."""
        raise IllegalAction("nothing to start")

    def lift(self, choice: Card | int | None) -> None:
        """The card or the call the player has chosen on their turn, not yet played (online: the
        server plays it if the turn runs out; a local game has no turn timer)."""

    def take_back(self) -> None:
        """Take the seat back from a bot playing it (online)."""
        raise IllegalAction(tr("tui.o_not_turn"))

    def rematch(self) -> None:
        """Another match once this one is over (online: the same players at a new table)."""
        raise IllegalAction("no rematch here")

    @property
    def pending_summary(self) -> RoundSummary | None:
        """A finished round the player has not acknowledged yet."""
        return None

    async def run(self, notify: Callable[[], None]) -> None:
        """Drive the game until it is over, calling ``notify`` after each change."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop for good (the app is quitting)."""


def suit_order(trump: str) -> str:
    """Suits left to right: trump first, then alternating colours.

    >>> suit_order("S"), suit_order("H")
    ('SHCD', 'HSDC')
    """
    black, red = "SC", "HD"
    if trump in black:
        other = black.replace(trump, "")
        return trump + red[0] + other + red[1]
    other = red.replace(trump, "")
    return trump + black[0] + other + black[1]


def sort_hand(hand: Sequence[Card], trump: str = "S") -> list[Card]:
    """A hand by suit (see `suit_order`), high to low within each suit.

    >>> [str(c) for c in sort_hand([Card.parse(x) for x in ("2H", "AS", "KD", "TH", "3C")])]
    ['AS', 'TH', '2H', '3C', 'KD']
    """
    order = suit_order(trump)
    return sorted(hand, key=lambda c: (order.index(c.suit), -int(c)))


_CARD_TEXT = re.compile(r"^(10|[2-9tjqka1])([shdc♠♥♦♣])$", re.IGNORECASE)


def parse_typed_card(text: str) -> Card:
    """A card typed by the player: ``qs``, ``10h``, ``TH``, ``as``.

    >>> str(parse_typed_card("10h")), str(parse_typed_card("qs"))
    ('TH', 'QS')
    >>> parse_typed_card("zz")
    Traceback (most recent call last):
    ...
    ValueError: 'zz' is not a card: type a rank (2-10, J, Q, K, A) and a suit (S, H, D, C), like qs or 10h
    """
    t = text.strip()
    if not _CARD_TEXT.match(t):
        raise ValueError(tr("tui.not_a_card", typed=text))
    return Card.parse(t)


def parse_call(text: str, legal: Sequence[int]) -> int:
    """A call typed by the player, checked against the legal calls.

    >>> parse_call("4", range(1, 14)), parse_call("४", range(1, 14))
    (4, 4)
    >>> parse_call("²", range(1, 14))
    Traceback (most recent call last):
    ...
    callbreak.errors.IllegalAction: '²' is not a call: type a number
    >>> parse_call("0", range(1, 14))
    Traceback (most recent call last):
    ...
    callbreak.errors.IllegalAction: you cannot call 0: calls are 1 to 13
    """
    t = text.strip()
    if not t.isdecimal():  # any script's digits (३, ৩), not ² or ①, which int() refuses
        raise IllegalAction(tr("tui.not_a_call", typed=text))
    n = int(t)
    if n not in legal:
        lo, hi = (min(legal), max(legal)) if legal else (0, 0)
        raise IllegalAction(tr("tui.o_call_range", call=n, lo=lo, hi=hi))
    return n


def typed_choice(text: str, view: SeatView) -> int | Card | None:
    """What ``text``, typed so far on the seat's turn, chooses: a legal call or card, or none
    (not one yet, or not legal: Enter says why).

    >>> from callbreak import Match, Ruleset
    >>> m = Match(Ruleset.preset("standard"), seed=1)
    >>> v = m.view(m.to_act)
    >>> typed_choice("4", v), typed_choice("1", v), typed_choice("0", v), typed_choice("qs", v)
    (4, 1, None, None)
    """
    try:  # (the parsers' refusals are what Enter says; here they choose nothing)
        if view.phase == "calling":
            return parse_call(text, view.legal_calls)
        card = parse_typed_card(text)
    except ValueError:  # (IllegalAction is one)
        return None
    return card if view.phase == "playing" and card in view.legal_cards else None


def refusal(view: SeatView, action: int | Card) -> str | None:
    """Why the seat of ``view`` may not take ``action`` now, in the player's language
    (`tr`), or None when it may: the same for a local and an online game (the engine,
    or the server, checks again).

    >>> from callbreak import Round, Ruleset
    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=3), dealer=1)
    >>> v = rnd.view(rnd.to_act)
    >>> refusal(v, 3) is None, refusal(v, 14), refusal(v, Card.parse("AS"))
    (True, 'you cannot call 14: calls are 1 to 13', 'call first: type a number')
    >>> for c in (2, 3, 1, 4):
    ...     _ = rnd.call(c)
    >>> v = rnd.view(rnd.to_act)
    >>> refusal(v, 2), refusal(rnd.view(0), v.legal_cards[0])
    ('play a card: type it (like qs) or pick it with the arrows', 'it is not your turn')
    >>> _ = rnd.play(v.legal_cards[0])   # the lead: a spade
    >>> v = rnd.view(rnd.to_act)
    >>> refusal(v, Card.parse("3S")), refusal(v, Card.parse("5H"))
    ('3♠ is not legal now: you must head the trick with a higher spade', '5♥ is not legal now: you must follow spades')
    >>> refusal(v, Card.parse("KS"))
    'you do not hold K♠'
    """
    if view.to_act != view.seat:
        return tr("tui.o_not_turn")
    if view.phase == "calling":
        if isinstance(action, Card):
            return tr("tui.o_call_first")
        if action not in view.legal_calls:
            lo, hi = view.legal_calls[0], view.legal_calls[-1]
            return tr("tui.o_call_range", call=action, lo=lo, hi=hi)
        return None
    if not isinstance(action, Card):
        return tr("tui.o_play_card")
    if action not in view.hand:
        return tr("tui.o_not_held", card=action.symbol)
    if action not in view.legal_cards:
        return tr("tui.o_not_legal", card=action.symbol, why=_why(view, action))
    return None


def _why(view: SeatView, card: Card) -> str:
    """Why ``card`` is not legal, from what the seat sees."""
    trump = view.rules.trump
    if not view.trick:
        return tr("tui.o_why_lead", suit=tr(f"suit.{trump}"))
    led = view.trick[0][1].suit
    if any(c.suit == led for c in view.legal_cards):
        if card.suit != led:
            return tr("tui.o_why_follow", suit=tr(f"suit.{led}"))
        return tr("tui.o_why_head", one=tr(f"tui.suit_one.{led}"))
    if card.suit == trump:
        return tr("tui.o_why_overtrump", one=tr(f"tui.suit_one.{trump}"))
    return tr("tui.o_why_trump", one=tr(f"tui.suit_one.{trump}"))


def friendly_error(err: Exception) -> str:
    """The engine's message, addressed to the player.

    >>> friendly_error(IllegalAction("seat 0 may not play 5H: you must follow spades"))
    '5♥: you must follow spades'
    >>> friendly_error(IllegalAction("seat 0 does not hold AS"))
    'you do not hold A♠'
    """
    msg = str(err)
    m = re.match(r"seat \d+ may not play (\w\w): (.*)", msg)
    if m:
        return f"{Card.parse(m.group(1)).symbol}: {m.group(2)}"
    m = re.match(r"seat \d+ does not hold (\w\w)", msg)
    if m:
        return f"you do not hold {Card.parse(m.group(1)).symbol}"
    m = re.match(r"seat \d+ cannot call (.*)", msg)
    if m:
        return f"you cannot call {m.group(1)}"
    return msg


def bot_or_fallback(level: str, seed: int | None) -> tuple[Bot, str]:
    """`make_bot`, falling back to ``random`` when the level does not exist (yet).

    >>> bot, level = bot_or_fallback("no-such-level", 1)
    >>> level
    'random'
    """
    try:
        return make_bot(level, seed), level
    except ValueError:
        return make_bot("random", seed), "random"


def summaries_of(match: Match) -> tuple[RoundSummary, ...]:
    """The finished rounds of a match as `RoundSummary` rows.

    >>> from callbreak.commands.replay import demo_match
    >>> from callbreak import Ruleset
    >>> rows = summaries_of(demo_match(3, Ruleset.preset("quick")))
    >>> len(rows) >= 3, rows[0].number, sum(rows[0].tricks), rows[-1].totals == tuple(demo_match(3, Ruleset.preset("quick")).totals)
    (True, 1, 13, True)
    """
    out: list[RoundSummary] = []
    totals = [Decimal(0)] * 4
    planned = match.rules.rounds
    for i, (rnd, pts) in enumerate(zip(match.rounds, match.round_points)):
        totals = [t + p for t, p in zip(totals, pts)]
        out.append(
            RoundSummary(
                number=i + 1,
                calls=tuple(c or 0 for c in rnd.calls),
                tricks=tuple(rnd.tricks_won),
                points=tuple(pts),
                totals=tuple(totals),
                sudden_death=planned is not None and i >= planned,
            )
        )
    return tuple(out)


@dataclass
class LocalGame(Game):
    """You at seat 0 against three bots, on the engine's `Match`.

    ``bots`` is one level for all three, or a list of three.  The bots' seeds
    come from the match seed, so the same ``seed`` replays the same deals and
    the same bot choices.  ``delay`` is the pause (seconds) before each bot
    action; ``trick_pause`` the extra pause after a trick is complete.
    ``until_ready``: a hard bot plays at the medium level until that warm-up
    of its kernel is ready (`callbreak.bots.warmup.serving_bot`; not for
    replays of a seed).  ``sleep``: how a pause is waited out (a test holds the
    bots with a sleep of its own, instead of racing a real one).

    >>> from callbreak import Ruleset
    >>> game = LocalGame(Ruleset.preset("quick"), seed=3, bots="easy", name="Asha", delay=0, trick_pause=0)
    >>> while not game.human_to_act:
    ...     _ = game.step_bot()
    >>> legal = game.match.view(0).legal_calls
    >>> game.submit(legal[0]); game.match.round.calls[0] == legal[0]
    True
    >>> try:
    ...     game.submit(99)
    ... except IllegalAction as e:
    ...     print(type(e).__name__)
    IllegalAction
    """

    rules: Ruleset = field(default_factory=Ruleset)
    seed: int | None = None
    bots: str | Sequence[str] = "medium"
    name: str = ""  # empty: "You" in the language in use
    delay: float = 0.6
    trick_pause: float = 0.9
    seat: int = 0
    until_ready: Warmup | None = None
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    #: play on from this match (a practice position, `callbreak.analysis.practice_match`)
    start: Match | None = None
    match: Match = field(init=False)
    levels: list[str] = field(init=False)
    _bots: dict[int, Bot] = field(init=False)
    _last_trick: Trick | None = field(init=False, default=None)
    _log: list[str] = field(init=False, default_factory=list)
    _acked: int = field(init=False, default=0)
    _wake: asyncio.Event | None = field(init=False, default=None)
    _closed: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        wanted = [self.bots] * 3 if isinstance(self.bots, str) else list(self.bots)
        if len(wanted) != 3:
            raise ValueError("three bot levels, one per bot seat")
        if self.seed is None:
            self.seed = random.SystemRandom().randrange(2**63)
        # the bots' names follow the web tables' rule (callbreak.bots.names), from the match seed,
        # in the player's script
        if self.start is not None:
            self.match = self.start
        else:
            names = bot_names([self.name or tr("seat.you"), None, None, None], self.seed, lang=current())
            self.match = Match(self.rules, self.seed, players=names)
        self._bots = {}
        self.levels = []
        for i, level in enumerate(wanted):
            bot, got = bot_or_fallback(level, self.match.seed * 4 + i + 1)
            if self.until_ready is not None:  # no seed asked for: never wait for the kernel
                bot = serving_bot(got, self.match.seed * 4 + i + 1, self.until_ready)
            self._bots[i + 1] = bot
            self.levels.append(got)

    # --- state ----------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.match.is_over

    @property
    def human_to_act(self) -> bool:
        return self.pending_summary is None and self.match.to_act == self.seat

    @property
    def bot_to_act(self) -> int | None:
        seat = self.match.to_act
        if self.pending_summary is not None or seat is None or seat == self.seat:
            return None
        return seat

    @property
    def pending_summary(self) -> RoundSummary | None:
        if len(self.match.rounds) > self._acked:
            return summaries_of(self.match)[self._acked]
        return None

    def model(self) -> TableModel:
        m = self.match
        view = m.view(self.seat)
        # the finished trick stays on show until the next card, within its own round only
        trick = self._last_trick if not view.trick and view.tricks else None
        return TableModel(
            seat=self.seat,
            view=view,
            names=(m.players[0], m.players[1], m.players[2], m.players[3]),
            labels=("" if self.name in ("", "You", tr("seat.you")) else tr("tui.you_label"), *self.bot_labels),
            last_trick=trick,
            summaries=summaries_of(m),
            places=tuple(m.places) if m.is_over else None,
            log=tuple(self._log[-8:]),
            seed=m.seed,
        )

    @property
    def bot_labels(self) -> tuple[str, str, str]:
        a, b, c = (tr("tui.bot_label", level=tr(f"level.{lv}") if lv in LEVEL_KEYS else level_name(lv)) for lv in self.levels)
        return a, b, c

    # --- acting ---------------------------------------------------------------
    def _apply(self, seat: int, action: int | Card, note: str = "") -> None:
        """Act for ``seat`` and log it; ``note`` is said after the card (e.g. "(only card)")."""
        name = self.match.players[seat]
        you = seat == self.seat and name == tr("seat.you")
        redeals = len(self.match.redeals)
        finished = len(self.match.rounds)
        act = self.match.act(action)
        if isinstance(act, PlayAction):
            line = tr("tui.log_play_you" if you else "tui.log_play", name=name, card=act.card.symbol)
            self._log.append(f"{line} {note}" if note else line)
            if act.winner is not None:
                rnd = self.match.rounds[-1] if len(self.match.round) == 0 and self.match.rounds else None
                tricks = rnd.tricks if rnd is not None else self.match.round.tricks
                self._last_trick = tricks[-1] if tricks else None
                wname = self.match.players[act.winner]
                mine = act.winner == self.seat and wname == tr("seat.you")
                self._log.append(tr("tui.log_trick_you" if mine else "tui.log_trick", name=wname))
            if len(self.match.rounds) > finished and not self.match.is_over:
                # a new deal: the log starts afresh (its cards are gone from the table)
                seat = self.match.round.dealer
                dealer = self.match.players[seat]
                yours = seat == self.seat and dealer == tr("seat.you")  # ("You deal", not "You deals")
                self._log = [tr("tui.log_deal_you" if yours else "tui.log_deal", round=self.match.round_number, name=dealer)]
        else:
            self._log.append(tr("tui.log_call_you" if you else "tui.log_call", name=name, call=action))
            if len(self.match.redeals) > redeals:
                self._log.append(tr("tui.log_redeal"))
        if self._wake is not None:
            self._wake.set()

    def submit(self, action: int | Card) -> None:
        if self.match.is_over:
            raise IllegalAction(tr("tui.o_over"))
        if self.pending_summary is not None:
            raise IllegalAction(tr("tui.summary_first"))
        why = refusal(self.match.view(self.seat), action)
        if why is not None:
            raise IllegalAction(why)
        try:
            self._apply(self.seat, action)
        except IllegalAction as e:
            raise IllegalAction(friendly_error(e)) from None

    def step_bot(self) -> int | Card:
        """One bot action (the bot to act chooses from its own view only)."""
        seat = self.bot_to_act
        if seat is None:
            raise IllegalAction("no bot to act")
        choice = self._bots[seat].act(self.match.view(seat))
        self._apply(seat, choice)
        return choice

    def forced_card(self) -> Card | None:
        """Your only legal card, when the rules play it for you (``autoplay_forced``)."""
        if not self.human_to_act or not self.rules.autoplay_forced:
            return None
        rnd = self.match.round
        if rnd.phase != "playing":
            return None
        legal = rnd.legal_cards()
        return legal[0] if len(legal) == 1 else None

    def acknowledge_round(self) -> None:
        self._acked = len(self.match.rounds)
        if self._wake is not None:
            self._wake.set()

    def end_match(self) -> None:
        if self.rules.rounds is not None:
            raise IllegalAction(tr("tui.o_ends_itself"))
        if self.pending_summary is None:
            raise IllegalAction(tr("tui.o_ends_between"))
        self.match.end()  # a tie at the top under sudden_death plays on
        if not self.match.is_over:
            raise IllegalAction(tr("dialog.next_sudden"))
        self._log.append(tr("tui.o_over"))
        if self._wake is not None:
            self._wake.set()

    def close(self) -> None:
        self._closed = True
        if self._wake is not None:
            self._wake.set()

    async def run(self, notify: Callable[[], None]) -> None:
        self._wake = asyncio.Event()
        notify()
        while not self._closed and not self.match.is_over:
            seat = self.bot_to_act
            forced = self.forced_card()
            if seat is not None or forced is not None:
                pause = self.delay
                if self._last_trick is not None and not self.match.round.trick and self.match.round.phase == "playing":
                    pause += self.trick_pause
                await self.sleep(pause)
                if self._closed or self.pending_summary is not None:
                    continue
                if seat is not None and self.bot_to_act == seat:
                    view = self.match.view(seat)
                    choice = await asyncio.to_thread(self._bots[seat].act, view)
                    if self._closed:
                        break
                    self._apply(seat, choice)
                elif forced is not None and self.forced_card() == forced:
                    self._apply(self.seat, forced, note=tr("tui.only_card"))
                self._wake.clear()
                notify()
                continue
            await self._wake.wait()
            self._wake.clear()
            notify()
        notify()


def model_with(model: TableModel, **changes: object) -> TableModel:
    """A copy of ``model`` with some fields changed.

    >>> from callbreak import Ruleset
    >>> model = LocalGame(Ruleset.preset("quick"), seed=3, bots="easy", name="Asha", delay=0, trick_pause=0).model()
    >>> changed = model_with(model, status="Ritu is thinking…")
    >>> changed.status, model.status, changed.view is model.view
    ('Ritu is thinking…', '', True)
    """
    return replace(model, **changes)  # type: ignore[arg-type]
