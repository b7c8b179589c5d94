"""A match: seeded deals, the dealer moving round, redeals, totals and places.

>>> from callbreak import Match, Ruleset
>>> m = Match(Ruleset.preset("quick"), seed=7)
>>> while not m.is_over:
...     _ = m.call(m.round.legal_calls()[0]) if m.round.phase == "calling" else m.play(m.round.legal_cards()[0])
>>> len(m.rounds) >= 3, sorted(m.places)[0]
(True, 1)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

from .cards import Card
from .errors import IllegalAction
from .round import REDEAL, Action, CallAction, Round, SeatView
from .rules import Ruleset
from .scoring import match_over, places_of, tenths_to_points
from .seeds import check_seed

__all__ = ["Match"]


class Match:
    """Rounds dealt from one seeded generator: the same seed deals the same cards.

    ``seed`` None draws a fresh seed (kept in `seed`, so the match can still be
    replayed).  ``dealer`` fixes the first dealer; by default the seed draws it.
    ``players`` are names for histories and displays.  ``dealt`` gives the hands
    of the first deals explicitly (a game played with real cards, or an edited
    history): deal ``i`` uses ``dealt[i]`` when there is one; the seeded shuffle
    is still drawn for every deal, so later deals are what the seed would give.

    >>> a, b = Match(seed=11), Match(seed=11)
    >>> a.round.dealt == b.round.dealt and a.round.dealer == b.round.dealer
    True
    >>> hands = [[f"{r}{s}" for r in "23456789TJQKA"] for s in "SHDC"]
    >>> Match(seed=1, dealt=[hands], dealer=0).round.dealt[1][:2]
    [Card('2H'), Card('3H')]
    >>> Match(seed=-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be a whole number from 0, not -1
    """

    def __init__(
        self,
        rules: Ruleset | None = None,
        seed: int | None = None,
        *,
        dealer: int | None = None,
        players: Sequence[str] | None = None,
        dealt: Sequence[Sequence[Iterable[Card | int | str] | int]] | None = None,
    ) -> None:
        if rules is None:
            rules = Ruleset()
        if not isinstance(rules, Ruleset):
            raise ValueError(f"rules must be a Ruleset, not {type(rules).__name__}")
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        seed = check_seed(seed)
        if dealer is not None and (not isinstance(dealer, int) or not 0 <= dealer <= 3):
            raise ValueError(f"dealer must be a seat 0..3, not {dealer!r}")
        if players is None:
            players = [f"Player {i + 1}" for i in range(4)]
        players = [str(p) for p in players]
        if len(players) != 4:
            raise ValueError("a match has four players")
        self.rules = rules
        self.seed = seed
        self.players = players
        self._dealt: list[list[list[Card | int | str] | int]] = [
            [h if isinstance(h, int) else list(h) for h in hands] for hands in (dealt or [])
        ]
        for i, hands in enumerate(self._dealt):
            try:
                Round(rules, hands)
            except ValueError as e:
                raise ValueError(f"deal {i + 1}: {e}") from None
        self.deals: list[Round] = []
        """Every Round dealt, in order: redealt ones, finished ones and the one in progress."""
        self._rng = random.Random(seed)
        first = self._rng.randrange(4)
        self.first_dealer = first if dealer is None else dealer
        self.rounds: list[Round] = []
        self.redeals: list[Round] = []
        self.round_points: list[list[Decimal]] = []
        self._tenths = [0, 0, 0, 0]
        self._end_after: int | None = rules.rounds
        self._over = False
        self.ended_at: int | None = None
        """How many rounds had finished when `end` was called (None: never called)."""
        self.tags: dict[str, str] = {}
        """Free-form labels for hand histories (``Event``, ``Date``, ``Site``...)."""
        self.round: Round = self._deal(self.first_dealer)

    # --- dealing ------------------------------------------------------------
    def _deal(self, dealer: int) -> Round:
        while True:
            hands: Sequence[Iterable[Card | int | str] | int] = Round.deal_hands(self._rng, dealer)
            if len(self.deals) < len(self._dealt):
                hands = self._dealt[len(self.deals)]
            rnd = Round(self.rules, hands, dealer)
            self.deals.append(rnd)
            if rnd.phase != REDEAL:
                rnd.on_end = self._round_ended
                return rnd
            self.redeals.append(rnd)

    def _round_ended(self, rnd: Round) -> None:
        rnd.on_end = None
        if rnd.phase == REDEAL:
            self.redeals.append(rnd)
            self.round = self._deal(rnd.dealer)
            return
        pts = rnd.points_tenths()
        self.rounds.append(rnd)
        self.round_points.append([tenths_to_points(t) for t in pts])
        for i in range(4):
            self._tenths[i] += pts[i]
        if self._should_stop():
            self._over = True
        else:
            self.round = self._deal((rnd.dealer + 1) & 3)

    def _should_stop(self) -> bool:
        return match_over(self._tenths, len(self.rounds), self._end_after, self.rules.tie_break)

    # --- playing ------------------------------------------------------------
    @property
    def to_act(self) -> int | None:
        """The seat whose turn it is; None once the match is over.

        >>> Match(seed=4, dealer=3).to_act
        0
        """
        return None if self._over else self.round.to_act

    def call(self, n: int) -> Action:
        """Call for the seat to act in the current round.

        >>> m = Match(seed=4, dealer=0)
        >>> m.call(3)
        CallAction(seat=1, call=3)
        """
        self._check_open()
        return self.round.call(n)

    def play(self, card: Card | int | str) -> Action:
        """Play for the seat to act; the next round is dealt when this one ends.

        >>> m = Match(seed=4, dealer=0)
        >>> for _ in range(4): _ = m.call(1)
        >>> m.play(m.round.legal_cards()[0]).seat
        1
        """
        self._check_open()
        return self.round.play(card)

    def act(self, action: int | Card | str) -> Action:
        """A call (an int, in the calling phase) or a card, whichever is due.

        >>> m = Match(seed=4, dealer=0)
        >>> m.act(2).call, m.to_act
        (2, 2)
        """
        self._check_open()
        return self.round.act(action)

    def _check_open(self) -> None:
        if self._over:
            raise IllegalAction("the match is over")

    def end(self) -> None:
        """Close a match between rounds (for ``rounds=None``, or to stop early).

        A tie at the top under ``tie_break="sudden_death"`` still plays on until
        it is broken (`sudden_death` turns True; a further `end` changes nothing);
        a match ended before any round finished simply closes.  Raises
        `IllegalAction` in the middle of a round.
        When it closes, the deal that was waiting is dropped (``round`` is the last
        finished round again, and ``deals`` and ``redeals`` no longer list it).

        >>> m = Match(Ruleset.preset("pagat"), seed=1)
        >>> m.end(); m.is_over, m.rounds
        (True, [])
        """
        if self._over:
            return
        if len(self.round) > 0:
            raise IllegalAction("a round is in progress: end the match after its last card")
        if self.sudden_death:
            return
        self._end_after = len(self.rounds)
        self.ended_at = len(self.rounds)
        if not self.rounds or self._should_stop():
            self._over = True
            if self.rounds:
                last = self.rounds[-1]
                while self.deals[-1] is not last and len(self.deals[-1]) == 0:
                    dropped = self.deals.pop()
                    if self.redeals and self.redeals[-1] is dropped:
                        self.redeals.pop()
                self.round = last

    # --- history -------------------------------------------------------------
    def actions(self) -> list[int | Card]:
        """Every action of the match in order (calls as ints, cards as `Card`),
        redealt rounds included: `from_actions` rebuilds the match from them.

        >>> m = Match(seed=3)
        >>> _ = m.call(2); _ = m.call(3)
        >>> m.actions()
        [2, 3]
        """
        out: list[int | Card] = []
        for rnd in self.deals:
            for a in rnd.actions:
                out.append(a.call if isinstance(a, CallAction) else a.card)
        return out

    @classmethod
    def from_actions(
        cls,
        rules: Ruleset | None,
        seed: int,
        actions: Iterable[int | Card | str],
        *,
        dealer: int | None = None,
        players: Sequence[str] | None = None,
        dealt: Sequence[Sequence[Iterable[Card | int | str] | int]] | None = None,
    ) -> Match:
        """Replay a match: each action is checked as it is taken.

        >>> m = Match(Ruleset.preset("quick"), seed=5)
        >>> for _ in range(30):
        ...     _ = m.act(m.round.legal_calls()[-1] if m.round.phase == "calling" else m.round.legal_cards()[0])
        >>> Match.from_actions(m.rules, 5, m.actions()).state_key() == m.state_key()
        True
        """
        m = cls(rules, seed, dealer=dealer, players=players, dealt=dealt)
        for a in actions:
            m.act(a)
        return m

    def state_key(self) -> tuple[Any, ...]:
        """Everything that defines the match's state: equal keys, equal matches.

        >>> Match(seed=2).state_key() == Match(seed=2).state_key()
        True
        """
        return (
            self.rules,
            self.seed,
            self.first_dealer,
            tuple(self.players),
            tuple(r.state_key() for r in self.deals),
            tuple(self._tenths),
            self._end_after,
            self.ended_at,
            self._over,
            self.round.state_key(),
        )

    # --- results ------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        """After ``rounds`` rounds and any tie-break rounds, or after `end`.

        >>> m = Match(Ruleset(rounds=1, tie_break="share"), seed=1); m.round.playout(random.Random(1))
        >>> m.is_over, len(m.rounds)
        (True, 1)
        """
        return self._over

    @property
    def totals(self) -> list[Decimal]:
        """Per-seat totals of the finished rounds, exact.

        >>> m = Match(seed=1); m.round.playout(random.Random(1))
        >>> m.totals == m.round_points[0] and [t * 10 for t in m.totals] == m.totals_tenths
        True
        """
        return [tenths_to_points(t) for t in self._tenths]

    @property
    def totals_tenths(self) -> list[int]:
        """Per-seat totals in tenths (ints).

        >>> Match(seed=1).totals_tenths
        [0, 0, 0, 0]
        """
        return list(self._tenths)

    @property
    def places(self) -> list[int]:
        """Per seat, 1..4; tied seats share the better place.

        >>> Match(seed=1).places
        [1, 1, 1, 1]
        """
        return places_of(self._tenths)

    @property
    def round_number(self) -> int:
        """1-based number of the round in progress (or the last one, when over).

        >>> m = Match(seed=1); m.round.playout(random.Random(1)); m.round_number
        2
        """
        return len(self.rounds) + (0 if self._over else 1)

    def round_of(self, deal: int) -> int:
        """The round that ``deals[deal]`` is: 1 and up, a deal thrown in (a redeal) numbered as the
        round dealt again after it (the analysis and a position played again say the same).

        >>> m = Match(Ruleset(min_total_calls=10), seed=1)
        >>> for _ in range(4): _ = m.act(1)   # four calls of 1: thrown in, dealt again
        >>> len(m.deals), m.round_of(0), m.round_of(1), m.round_number
        (2, 1, 1, 1)
        """
        return 1 + sum(d.phase != REDEAL for d in self.deals[:deal])

    @property
    def sudden_death(self) -> bool:
        """Whether the round in progress is a sudden-death (tie-break) round.

        >>> m = Match(Ruleset(rounds=1, overtrick_points=0), seed=26)
        >>> m.round.playout(random.Random(26)); [str(t) for t in m.totals], m.sudden_death, m.is_over
        (['-3.0', '-8.0', '-10.0', '-3.0'], True, False)
        """
        return not self._over and self._end_after is not None and len(self.rounds) >= self._end_after

    def view(self, seat: int) -> SeatView:
        """The round's view of ``seat`` (-1: a spectator) with the match's totals and round number.

        >>> v = Match(Ruleset.preset("quick"), seed=1).view(2)
        >>> v.rounds, v.round_number, v.totals, v.sudden_death
        (3, 1, (Decimal('0.0'), Decimal('0.0'), Decimal('0.0'), Decimal('0.0')), False)
        """
        from dataclasses import replace

        v = self.round.view(seat) if seat >= 0 else self.round.spectator_view()
        if self._over:
            v = replace(v, legal_calls=(), legal_cards=(), to_act=None)
        return replace(
            v,
            totals=tuple(self.totals),
            round_number=self.round_number,
            rounds=self.rules.rounds,
            sudden_death=self.sudden_death,
        )

    def __repr__(self) -> str:
        return (
            f"<Match seed={self.seed} round={self.round_number} over={self._over} "
            f"totals={[str(t) for t in self.totals]}>"
        )
