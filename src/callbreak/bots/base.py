"""The bot interface: a bot sees only its seat's `SeatView` and returns an action.

Write a bot by subclassing `Bot` and implementing `act`:

>>> from callbreak import Match
>>> class Lowest(Bot):
...     name = "lowest"
...     def act(self, view):
...         if view.phase == "calling":
...             return view.legal_calls[0]
...         return view.legal_cards[0]
>>> m = Match(seed=1)
>>> bots = [Lowest(seed=i) for i in range(4)]
>>> while not m.is_over:
...     seat = m.to_act
...     _ = m.act(bots[seat].act(m.view(seat)))
>>> m.is_over
True
"""

from __future__ import annotations

import functools
import math
import random
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..cards import Card
from ..errors import IllegalAction
from ..i18n import catalogue, digits, translator
from ..round import SeatView, whole_call

__all__ = ["Bot", "Hint", "where_raised"]


def where_raised(e: BaseException) -> str:
    """Where an exception was raised: the innermost frame outside this package (the bot's own
    code, when the error came through the engine: a bad card it parsed), its file, line and
    function; what the arena and `callbreak bot serve` say of a bot that raised.

    >>> def f():
    ...     raise RuntimeError("boom")
    >>> try:
    ...     f()
    ... except RuntimeError as e:
    ...     where_raised(e)
    ' (at <doctest callbreak.bots.base.where_raised[0]>:2, in f)'
    """
    frames = traceback.extract_tb(e.__traceback__)
    if not frames:
        return ""
    ours = Path(__file__).resolve().parents[1]
    outside = [f for f in frames if not Path(f.filename).resolve().is_relative_to(ours)]
    last = (outside or frames)[-1]
    return f" (at {Path(last.filename).name}:{last.lineno}, in {last.name})"


class Bot:
    """Base class of every bot.  One method to write: `act`.

    ``seed`` makes the bot's choices reproducible: the same seed and the same
    views give the same actions.  A bot must never look past its view.

    >>> from callbreak import Match
    >>> class LowestBot(Bot):   # one method to write
    ...     name = "lowest"
    ...     def act(self, view):
    ...         return view.legal_calls[0] if view.phase == "calling" else view.legal_cards[0]
    >>> m = Match(seed=3)
    >>> LowestBot(seed=1).call(m.view(m.to_act)), LowestBot(seed=1)
    (1, <LowestBot 'lowest' seed=1>)
    """

    name = "bot"
    #: whether `recall` uses the earlier rounds (a serving layer sends them only then)
    recalls = False

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every bot's `act` first checks that its view's seat is the one to act: asked out of
        turn, a bot says so (`IllegalAction`) instead of failing somewhere inside.

        >>> from callbreak import Match
        >>> class Lowest(Bot):
        ...     def act(self, view):
        ...         return view.legal_calls[0]
        >>> m = Match(seed=1, dealer=3)
        >>> Lowest().act(m.view(2))
        Traceback (most recent call last):
        ...
        callbreak.errors.IllegalAction: seat 2 is asked to act, but seat 0 is to act now
        """
        super().__init_subclass__(**kwargs)
        act = getattr(cls, "act", None)  # (its own, or a mixin's before Bot in the order)
        if act is not None and act is not Bot.act and not getattr(act, "checks_turn", False):
            setattr(cls, "act", _checking_turn(act))  # noqa: B010  # (the method, wrapped)

    def act(self, view: SeatView) -> int | Card:
        """Return a call (an int from ``view.legal_calls``) in the calling phase,
        else a card from ``view.legal_cards``."""
        raise NotImplementedError

    def call(self, view: SeatView) -> int:
        """The call for ``view`` (calls `act`); a `ValueError` outside the calling phase."""
        if view.phase != "calling":
            raise ValueError(f"call asks for a call, and the seat is {view.phase}: use play (or act, for either)")
        choice = self.act(view)
        call = whole_call(choice)  # (an int, or NumPy's: a policy's argmax)
        if call is None:
            raise TypeError(f"{self.name} returned {choice!r} for a call")
        return call

    def play(self, view: SeatView) -> Card:
        """The card for ``view`` (calls `act`); a `ValueError` outside the playing phase.

        >>> from callbreak import Match
        >>> from callbreak.bots import make_bot
        >>> m = Match(seed=1)
        >>> make_bot("easy").play(m.view(m.to_act))
        Traceback (most recent call last):
        ...
        ValueError: play asks for a card, and the seat is calling: use call (or act, for either)
        """
        if view.phase != "playing":
            raise ValueError(f"play asks for a card, and the seat is {view.phase}: use call (or act, for either)")
        choice = self.act(view)
        if not isinstance(choice, Card):
            raise TypeError(f"{self.name} returned {choice!r} for a card")
        return choice

    def reset(self, seed: int | None = None) -> None:
        """Start afresh (a new match), optionally with a new seed."""
        self.seed = seed if seed is not None else self.seed
        self.rng = random.Random(self.seed)

    def recall(self, earlier: Sequence[SeatView]) -> None:
        """Be told the match's finished rounds, as this seat last saw each (its view
        at the round's end, or its last turn): for a serving layer that calls `reset`
        before each decision, so that a bot which learns from a whole match
        (`HardBot`'s ``opp=2``) is not limited to the round in progress.  A bot that
        keeps nothing between decisions (this one) ignores it.

        >>> from callbreak import Match
        >>> from callbreak.bots import make_bot
        >>> m = Match(seed=1)
        >>> b = make_bot("medium", seed=1)
        >>> v = m.view(m.to_act)
        >>> first = b.act(v); b.reset(1); b.recall([v])
        >>> b.act(v) == first
        True
        """

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} seed={self.seed}>"


class Hint:
    """A suggestion for a human: a call with its chance of being made, or a card;
    ``level``: the bot level that answered (``"hard"`` or ``"medium"``).

    Why, as a code each client words in its reader's language (`say`), not as prose:
    ``why`` names the reason (the catalogue's ``hint.why.<why>``: ``"call"``; ``"call_first"``,
    a call less likely made than not, the hard level's aim at finishing first (a last round's
    long shot); ``"search"``; or one of the rules of thumb, `callbreak.bots.medium.WHY`), with what it speaks of:
    ``mean``, the tricks a call hint's hand should take; ``than``, the card a search hint
    does better than; ``quick``, a medium hint given while the hard level warms up.
    ``reason`` is the English wording.

    >>> from callbreak.cards import Card
    >>> h = Hint(card=Card.parse("AS"), why="cash_top_trump", level="hard")
    >>> str(h.card), h.call, h.level, h.reason
    ('AS', None, 'hard', 'cash a top trump')
    >>> Hint(call=4, chance=0.82, why="call", mean=4.43).say("ne")
    'यी पत्तीले करिब ४.४ हात जित्नुपर्छ; ४ कल पूरा हुने सम्भावना ८२%'
    >>> Hint(call=4, chance=0.18, why="call_first", mean=2.63).reason
    'a long shot, for the best chance of finishing first: 18% chance to make 4; this hand should take about 2.6 tricks'
    >>> Hint(card=Card.parse("QS"), why="search", than=Card.parse("2S"), quick=False).reason
    'over the deals you may face, Q♠ does better than 2♠'
    """

    __slots__ = ("call", "card", "chance", "level", "mean", "quick", "than", "why")

    def __init__(
        self,
        call: int | None = None,
        chance: float | None = None,
        card: Card | None = None,
        why: str = "",
        level: str = "medium",
        *,
        mean: float | None = None,
        than: Card | None = None,
        quick: bool = False,
    ) -> None:
        self.level = level
        self.call = call
        self.chance = chance
        self.card = card
        self.why = why
        self.mean = mean
        self.than = than
        self.quick = quick

    def say(self, lang: str = "en", name: Callable[[Card], str] = lambda c: c.symbol, note: bool = True) -> str:
        """Why, in the language ``lang`` (a `callbreak.i18n.LANGUAGES` code), cards named by ``name``;
        ``""`` where the hint has no reason; ``note`` false: without a quick hint's note (said
        before the card instead).  The web client's copy of this wording,
        ``util.hintReason``, is held to it by ``tests/web/test_client_copies.py``.

        >>> Hint(card=Card.parse("7H"), why="try_win", quick=True).say("hi")
        'त्वरित सुझाव, जब तक मज़बूत सुझाव तैयार हो रहा है: हाथ जीतने की कोशिश करें'
        >>> Hint(call=2).say("en")
        ''
        """
        if f"hint.why.{self.why}" not in catalogue("en"):  # (none; or a code with no words, as the web's)
            return ""
        tr = translator(lang)
        if self.why in ("call", "call_first"):
            # (rounded as the `hint` message carries them, so that the web's copy words the same)
            mean = digits(lang, f"{round(self.mean or 0.0, 1):.1f}")
            percent = math.floor(round(self.chance or 0.0, 3) * 100 + 0.5)
            text = tr(f"hint.why.{self.why}", mean=mean, percent=percent, call=self.call or 0)
        elif self.why == "search":
            assert self.card is not None and self.than is not None, "a search hint names two cards"
            text = tr("hint.why.search", card=name(self.card), than=name(self.than))
        else:
            text = tr(f"hint.why.{self.why}")
        return tr("hint.why.quick", why=text) if self.quick and note else text

    @property
    def reason(self) -> str:
        """Why, in English (`say` words it in other languages).

        >>> Hint(why="only_legal").reason
        'the only legal card'
        """
        return self.say("en")

    def to_dict(self) -> dict[str, object]:
        return {
            "call": self.call,
            "chance": None if self.chance is None else round(self.chance, 3),
            "card": None if self.card is None else str(self.card),
            "reason": self.reason,
            "why": self.why,
            "mean": None if self.mean is None else round(self.mean, 1),
            "than": None if self.than is None else str(self.than),
            "quick": self.quick,
            "level": self.level,
        }

    def __repr__(self) -> str:
        return (
            f"Hint(call={self.call}, chance={self.chance}, card={self.card}, why={self.why!r}, level={self.level!r}, "
            f"mean={self.mean}, than={self.than}, quick={self.quick})"
        )


def _checking_turn(act: Callable[[Any, SeatView], int | Card]) -> Callable[[Any, SeatView], int | Card]:
    @functools.wraps(act)
    def checked(self: Any, view: SeatView) -> int | Card:
        if view.to_act != view.seat:
            who = "nobody" if view.to_act is None else f"seat {view.to_act}"
            raise IllegalAction(f"seat {view.seat} is asked to act, but {who} is to act now")
        return act(self, view)

    checked.checks_turn = True  # type: ignore[attr-defined]
    return checked
