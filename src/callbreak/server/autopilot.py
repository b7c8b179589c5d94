"""Who acts for a seat no person is acting for: bots, and the turn timers' lowest action.

A bot seat, or a player's seat on autoplay, is played by the table's bot level
(off the event loop unless the level is instant).  A turn timer that runs out
plays the card or call the player chose on the turn (`select`), else the lowest legal one;
two expiries in a row put the seat on autoplay (a card the player lifted is not counted).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..bots import Bot
from ..bots.warmup import serving_bot
from ..cards import Card
from ..round import SeatView, lowest_action
from ..seeds import derive_seed
from .botpool import BotAsk
from .table import PLAYING, TableError

if TYPE_CHECKING:
    from ..match import Match
    from .live import LiveTable

__all__ = ["INLINE_LEVELS", "Autopilot", "decision_seed", "earlier_views", "safe_act", "seeded_act", "table_bot", "turn_of"]

log = logging.getLogger("callbreak.server")

#: bot levels cheap enough to run on the event loop itself
INLINE_LEVELS = {"random"}


def table_bot(level: str, seed: int, capped: bool = True) -> Bot:
    """A bot of ``level`` (ValueError for an unknown one: tables are created with a known level).
    A hard bot answers from the medium level until its kernel is ready
    (`callbreak.bots.warmup.serving_bot`): a served table never waits for a compile.

    >>> table_bot("medium", 3).name
    'medium'
    >>> table_bot("grandmaster", 3)
    Traceback (most recent call last):
    ...
    ValueError: unknown bot level 'grandmaster'...
    """
    return serving_bot(level, seed, capped=capped)


def safe_act(bot: Bot, view: SeatView) -> int | Card | None:
    """The bot's choice; None (logged) when it fails.

    >>> from callbreak import Match
    >>> m = Match(seed=2)
    >>> view = m.view(m.to_act)
    >>> safe_act(table_bot("easy", 1), view) in view.legal_calls
    True
    >>> class Broken:
    ...     def act(self, view: SeatView) -> int:
    ...         raise RuntimeError("out of cards")
    >>> safe_act(Broken(), view) is None
    True
    """
    try:
        return bot.act(view)
    except Exception:
        log.exception("bot %s failed", getattr(bot, "name", type(bot).__name__))  # (not its seed)
        return None


def decision_seed(table_seed: int, seat: int, v: int) -> int:
    """The seed of one bot decision: from the table's seed, the seat and the table's version
    when it decides.  Every place a bot decides (a thread, the local pool, a bot worker on another
    host) seeds the bot with it, so a table's bots decide the same wherever they run.  A hash
    (`derive_seed`): it travels on the bot queue and may be logged, and the table's seed, which
    deals every hand, cannot be found from it.

    >>> decision_seed(5, 2, 40) == decision_seed(5, 2, 40) != decision_seed(5, 2, 41)
    True
    """
    return derive_seed("decision", table_seed, seat, v)


def seeded_act(bot: Bot, seed: int, view: SeatView, earlier: Sequence[SeatView] = ()) -> int | Card | None:
    """``bot``'s choice for ``view``, its random draws started afresh from ``seed`` and told
    ``earlier``, the seat's views of the match's finished rounds (`Bot.recall`); None (logged)
    when it fails.  A function of its arguments: the same wherever and whenever it runs.

    >>> from callbreak import Match
    >>> from callbreak.bots import make_bot
    >>> m = Match(seed=1); v = m.view(m.to_act); b = make_bot("easy", 0)
    >>> seeded_act(b, 9, v) == seeded_act(make_bot("easy", 3), 9, v)
    True
    """
    bot.reset(seed)
    bot.recall(earlier)
    return safe_act(bot, view)


def earlier_views(match: Match, seat: int) -> tuple[SeatView, ...]:
    """``seat``'s view of each finished round of ``match``, at its end (every card of a
    finished round has been played in the open: nothing the seat may not see).

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.round import lowest_action
    >>> m = Match(Ruleset.preset("bhoos"), seed=2)
    >>> while m.round_number < 3:
    ...     _ = m.act(lowest_action(m.view(m.to_act)))
    >>> [(v.round_number, v.phase, len(v.tricks), v.hand) for v in earlier_views(m, 1)]
    [(1, 'over', 13, ()), (2, 'over', 13, ())]
    """
    return tuple(replace(r.view(seat), round_number=i + 1) for i, r in enumerate(match.rounds))


def turn_of(match: Match) -> tuple[int, ...]:
    """Which turn of the match it is: the round (redeals counted), the actions taken in it, the seat.

    >>> from callbreak import Match
    >>> m = Match(seed=1)
    >>> before = turn_of(m); _ = m.act(m.view(m.to_act).legal_calls[0]); before != turn_of(m)
    True
    """
    return (match.round_number, len(match.redeals), len(match.round), match.to_act if match.to_act is not None else -1)


class Autopilot:
    """The bots and the timers' automatic actions of one `LiveTable`.

    A seat whose time ran out plays the card (or call) its player chose on the turn, else its
    lowest legal action; the expiry is counted (two in a row turn autoplay on), but for a card
    the player lifted (the player is there: the count starts again):

    >>> from callbreak.rules import Ruleset
    >>> from callbreak.server.config import ServerConfig
    >>> from callbreak.server.hub import Hub
    >>> hub = Hub(ServerConfig(db=":memory:"))
    >>> t, tokens = hub.create_table(Ruleset(), name="Asha", play_now=True)
    >>> seat, v = t.state.to_act, t.state.v
    >>> t.autopilot.auto(v, seat, "timeout")
    >>> t.state.v == v + 1, hub.store.load(t.id)[1][-1] == {"t": "call", "seat": seat, "call": 1, "auto": "timeout"}
    (True, True)
    >>> t.autopilot.expiries[seat]
    1
    >>> hub.store.close(); hub.hints.close()
    """

    def __init__(self, table: LiveTable) -> None:
        self.table = table
        self.expiries = [0, 0, 0, 0]
        #: the card each seat's player has lifted, with the turn it was lifted on (`turn_of`: a
        #: lift from an earlier turn is never played)
        self.selected: list[tuple[Card | int, tuple[int, ...]] | None] = [None, None, None, None]
        self._bots: dict[int, Bot] = {}
        self._earlier: dict[int, tuple[Match, int, tuple[SeatView, ...]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def capped(self) -> bool:
        """Whether the table's hard bots search under the serving wall-clock cap: not at a server
        started with ``--seed`` (the same seed, the same play under any load)."""
        return not self.table.hub.seeds.seeded

    @property
    def busy(self) -> bool:
        """Whether a bot of the table is deciding off the event loop now."""
        return bool(self._tasks)

    def select(self, seat: int, text: str | None, call: int | None = None) -> None:
        """The card the seat's player has lifted, or the call it has chosen (neither: none),
        played if the turn runs out; a `TableError` for a card that is not one, or a card or a
        call that is not legal on the seat's turn now.

        >>> from callbreak.rules import Ruleset
        >>> from callbreak.server.config import ServerConfig
        >>> from callbreak.server.hub import Hub
        >>> hub = Hub(ServerConfig(db=":memory:"))
        >>> t, tokens = hub.create_table(Ruleset.preset("quick"), name="Asha", play_now=True)
        >>> try:
        ...     t.autopilot.select(t.state.to_act, "QH")   # calls first
        ... except TableError as e:
        ...     print(e)
        illegal: no card now: the calls are being made
        >>> t.autopilot.select(t.state.to_act, None, 4); t.autopilot.lifted(t.state.to_act)
        4
        >>> hub.store.close(); hub.hints.close()
        """
        st = self.table.state
        if text is not None and call is not None:
            raise TableError("bad_message", "a choice is a card or a call, not both")
        if text is None and call is None:
            self.selected[seat] = None
            return
        choice: Card | int
        if text is not None:
            try:
                choice = Card.parse(text)
            except ValueError as e:
                raise TableError("bad_card", str(e)) from None
            phase, wrong = "playing", "no card now: the calls are being made"
        else:
            assert call is not None
            choice, phase, wrong = call, "calling", "no call now: the cards are being played"
        if st.match is None or st.status != PLAYING or st.match.round.phase != phase:
            raise TableError("illegal", wrong)
        if st.to_act != seat:
            raise TableError("not_your_turn", f"it is seat {st.to_act}'s turn")
        view = st.match.view(seat)
        if choice not in (view.legal_cards if phase == "playing" else view.legal_calls):
            raise TableError("illegal", f"{choice} is not a legal {'card' if phase == 'playing' else 'call'} now")
        self.selected[seat] = (choice, turn_of(st.match))

    def lifted(self, seat: int) -> Card | int | None:
        """The card the seat's player has lifted, or the call it has chosen, on its turn now
        (None: none, or not its turn): what its page shows chosen again after a reload.

        >>> from callbreak.rules import Ruleset
        >>> from callbreak.server.config import ServerConfig
        >>> from callbreak.server.hub import Hub
        >>> hub = Hub(ServerConfig(db=":memory:"))
        >>> t, tokens = hub.create_table(Ruleset.preset("quick"), name="Asha", play_now=True)
        >>> t.autopilot.lifted(0)
        >>> hub.store.close(); hub.hints.close()
        """
        st = self.table.state
        lift = self.selected[seat] if 0 <= seat < 4 else None
        if lift is None or st.match is None or st.to_act != seat or lift[1] != turn_of(st.match):
            return None
        return lift[0]

    def auto(self, v: int, seat: int, reason: str) -> None:
        """The seat's turn ran out (``timeout``: the card its player lifted on this turn, if any,
        else the lowest legal action) or it has one legal card (``forced``)."""
        st = self.table.state
        if st.v != v or st.to_act != seat or st.match is None:
            return
        view = st.match.view(seat)
        lifted, self.selected[seat] = self.selected[seat], None
        choice: int | Card = lowest_action(view)
        legal: tuple[int | Card, ...] = view.legal_cards if view.phase == "playing" else view.legal_calls
        chosen = (
            reason == "timeout"
            and lifted is not None
            and lifted[1] == turn_of(st.match)
            and isinstance(lifted[0], Card) == (view.phase == "playing")
            and lifted[0] in legal
        )
        if chosen and lifted is not None:
            choice = lifted[0]
        entry = _entry(seat, choice, reason)
        if chosen:
            entry["lifted"] = True  # (the player's own choice: an analysis counts it as theirs)
        if not self.table.try_submit(entry):
            return
        if reason == "timeout" and chosen and isinstance(choice, Card):
            # the player lifted the card and was slow to put it down: there, not away (not so a
            # call: the terminal chooses the suggested call by itself where a timer runs)
            self.expiries[seat] = 0
        elif reason == "timeout":
            self.expiries[seat] += 1
            if self.expiries[seat] >= 2 and not st.autoplay[seat]:
                self.table.try_submit({"t": "autoplay", "seat": seat, "on": True, "reason": "timeout"})

    def bot(self, seat: int) -> Bot:
        b = self._bots.get(seat)
        if b is None:
            b = self._bots[seat] = table_bot(self.table.state.meta.bots, self.table.state.meta.seed * 4 + seat, self.capped)
        return b

    def earlier(self, match: Match, seat: int) -> tuple[SeatView, ...]:
        """`earlier_views`, kept until the match has another finished round."""
        got = self._earlier.get(seat)
        if got is None or got[0] is not match or got[1] != len(match.rounds):
            got = self._earlier[seat] = (match, len(match.rounds), earlier_views(match, seat))
        return got[2]

    def bot_turn(self, v: int, seat: int) -> None:
        st = self.table.state
        if st.v != v or st.to_act != seat or st.match is None:
            return
        view = st.match.view(seat)
        bot = self.bot(seat)
        seed = decision_seed(st.meta.seed, seat, v)
        # a bot that learns from the whole match is told its earlier rounds, from the match's
        # record: a function of the log, so a table rebuilt elsewhere decides the same
        earlier = self.earlier(st.match, seat) if bot.recalls else ()
        if st.meta.bots in INLINE_LEVELS or bot.name in INLINE_LEVELS:
            self._bot_done(v, seat, seeded_act(bot, seed, view, earlier), view)  # the same step: the same view
            return
        task = asyncio.get_running_loop().create_task(self._bot_thread(v, seat, bot, seed, view, earlier))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _bot_thread(
        self, v: int, seat: int, bot: Bot, seed: int, view: SeatView, earlier: tuple[SeatView, ...]
    ) -> None:
        t0 = time.perf_counter()
        pool = self.table.hub.botpool
        if pool is None:
            choice = await asyncio.to_thread(seeded_act, bot, seed, view, earlier)
        else:
            meta = self.table.state.meta
            choice = await pool.decide(BotAsk(meta.id, v, seat, meta.bots, seed, view, earlier, self.capped))
        if choice is None and pool is not None and pool.remote:
            # no bot worker answered by the deadline (none running, or Redis away): decided here, by
            # the same bot, a few at a time (an operator's try: with the workers down, every bot turn
            # waited 10 s and then played its lowest legal action; each bot called 1)
            async with self.table.hub.deciding_here:
                choice = await asyncio.to_thread(seeded_act, bot, seed, view, earlier)
        self.table.hub.meter.bot(time.perf_counter() - t0)
        self._bot_done(v, seat, choice)

    def _bot_done(self, v: int, seat: int, choice: int | Card | None, view: SeatView | None = None) -> None:
        """Play ``choice``; the lowest legal action instead, marked ``timeout`` (not the bot's
        own), when it is ``None`` (no bot answered by the bot queue's deadline) or not legal;
        ``view``: the seat's view at version ``v``, when the caller has it."""
        st = self.table.state
        if st.v != v or st.to_act != seat or st.match is None:
            return
        auto = "autoplay" if st.seats[seat].kind == "human" else None
        if view is None:
            view = st.match.view(seat)
        legal = view.legal_calls if view.phase == "calling" else view.legal_cards
        if choice is None or choice not in legal or isinstance(choice, Card) != (view.phase == "playing"):
            choice = lowest_action(view)
            # (the analysis and the table count a bot's card as its own unless marked)
            auto = auto or "timeout"
        self.table.try_submit(_entry(seat, choice, auto))

    def human_acts(self, seat: int) -> None:
        """The player acted: the count of expiries in a row starts again."""
        self.expiries[seat] = 0

    def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()


def _entry(seat: int, action: int | Card, auto: str | None) -> dict[str, Any]:
    """The log entry of a call or a card played for ``seat``."""
    if isinstance(action, Card):
        return {"t": "play", "seat": seat, "card": str(action), "auto": auto}
    return {"t": "call", "seat": seat, "call": action, "auto": auto}
