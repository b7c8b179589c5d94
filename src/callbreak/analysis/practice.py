"""Practice: play a position again, from the moment of a decision of a past match.

`practice_match` builds a one-round match (the same rules, one round, a tie at
the top shared) with the same deal and dealer as the decision's round, and
every action before the decision replayed through the engine: the seat that
went wrong is to act again, with the same cards, the same calls and the same
cards played so far.  The other seats' hands are the ones they really held (it
is the same position), and whoever drives the match (bots, a person) plays on
from there.

>>> from callbreak import Match, Ruleset
>>> from callbreak.analysis import Decision
>>> m = Match(Ruleset.preset("quick"), seed=3)
>>> for a in (2, 3, 2, 3): _ = m.act(a)
>>> card = m.round.legal_cards()[0]
>>> _ = m.act(card)
>>> d = Decision(deal=0, round=1, step=4, trick=1, seat=m.round.dealer + 1 & 3, kind="card",
...              taken=str(card), best=str(card), options=(), loss_points=0, loss_win=0,
...              grade="good", forced=False)
>>> p = practice_match(m, d)
>>> p.to_act == d.seat, p.round.calls, len(p.round.trick), p.rules.rounds
(True, [2, 3, 2, 3], 0, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..match import Match
from ..round import CallAction
from ..rules import Ruleset
from .records import Decision

__all__ = ["Position", "position_of", "practice_match", "start_position"]


@dataclass(frozen=True, slots=True)
class Position:
    """Where a practice round starts: the deal (four hands, as card texts), its dealer
    and the actions before the position (calls as ints, cards as text), under ``rules``
    made a single round (`practice_rules`).

    >>> from callbreak import Match, Ruleset
    >>> m = Match(Ruleset.preset("quick"), seed=3)
    >>> for a in (2, 3, 2, 3): _ = m.act(a)
    >>> p = position_of(m, 0, 3)
    >>> p.actions, Position.from_dict(p.to_dict()) == p
    ((2, 3, 2), True)
    >>> start_position(p, m.seed).round.calls.count(None)
    1
    """

    rules: Ruleset
    dealer: int
    dealt: tuple[tuple[str, ...], ...]
    actions: tuple[int | str, ...]
    #: who sat at each seat in the match the position is from (none: not known)
    players: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "dealer": self.dealer,
            "dealt": [list(h) for h in self.dealt],
            "actions": list(self.actions),
            "players": list(self.players),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Position:
        return cls(
            rules=Ruleset.from_dict(d["rules"]),
            dealer=int(d["dealer"]),
            dealt=tuple(tuple(str(c) for c in h) for h in d["dealt"]),
            actions=tuple(a if isinstance(a, int) else str(a) for a in d["actions"]),
            players=tuple(str(p) for p in d.get("players", ())),  # (a table stored before it had them)
        )


def practice_rules(rules: Ruleset) -> Ruleset:
    """The rules of a practice round: the match's, one round, a tie at the top shared, and no
    turn timers (the player is alone with bots: the table waits, as Play now's does).

    >>> from callbreak import Ruleset
    >>> r = practice_rules(Ruleset.preset("quick"))
    >>> r.rounds, r.tie_break, r.trump, r.card_seconds, r.call_seconds
    (1, 'share', 'S', None, None)
    """
    return rules.replace(rounds=1, tie_break="share", card_seconds=None, call_seconds=None)


def position_of(match: Match, deal: int, step: int) -> Position:
    """The position before action ``step`` of deal number ``deal`` of ``match``.

    Raises ValueError when the deal has no such action.

    >>> from callbreak import Match, Ruleset
    >>> m = Match(Ruleset.preset("quick"), seed=3)
    >>> for a in (2, 3, 2, 3): _ = m.act(a)
    >>> p = position_of(m, 0, 2)
    >>> p.actions, p.dealer == m.round.dealer, p.rules.rounds
    ((2, 3), True, 1)
    >>> try:
    ...     position_of(m, 0, 40)
    ... except ValueError as e:
    ...     print(e)
    deal 0 has no action 40
    """
    if not 0 <= deal < len(match.deals):
        raise ValueError(f"the match has no deal {deal}")
    rnd = match.deals[deal]
    if not 0 <= step < len(rnd.actions):
        raise ValueError(f"deal {deal} has no action {step}")
    return Position(
        rules=practice_rules(match.rules),
        dealer=rnd.dealer,
        dealt=tuple(tuple(str(c) for c in h) for h in rnd.dealt),
        actions=tuple(a.call if isinstance(a, CallAction) else str(a.card) for a in rnd.actions[:step]),
        players=tuple(match.players),
    )


def start_position(position: Position, seed: int, players: Sequence[str] | None = None) -> Match:
    """A one-round match at ``position``: its deal dealt, its actions replayed by the engine.

    Raises ValueError (`IllegalAction` is one) when the actions do not replay.

    >>> from callbreak import Match, Ruleset
    >>> m = Match(Ruleset.preset("quick"), seed=3)
    >>> for a in (2, 3, 2, 3): _ = m.act(a)
    >>> p = start_position(position_of(m, 0, 3), seed=9)
    >>> p.round.calls, p.to_act == m.round.dealer, p.round.hands == m.deals[0].hands
    ([2, None, 2, 3], True, True)
    """
    m = Match(position.rules, seed, dealer=position.dealer, players=players, dealt=[position.dealt])
    for a in position.actions:
        m.act(a)
    return m


def practice_match(match: Match, decision: Decision) -> Match:
    """A fresh one-round match at the position of ``decision`` (its seat to act).

    Raises ValueError when ``decision`` is not a decision of ``match``'s seats.

    >>> from callbreak import Match, Ruleset
    >>> from callbreak.analysis.engine import analyse_deal
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=2)
    >>> for a in (2, 3, 2, 3): _ = m.act(a)
    >>> d = analyse_deal(m, 0, [2], 40, 1)[0]
    >>> p = practice_match(m, d)
    >>> p.to_act == d.seat, p.round.calls, p.rules.rounds
    (True, [None, 2, None, None], 1)
    """
    pos = position_of(match, decision.deal, decision.step)
    if match.deals[decision.deal].actions[decision.step].seat != decision.seat:
        raise ValueError(f"deal {decision.deal} has no action {decision.step} of seat {decision.seat}")
    m = start_position(pos, match.seed, match.players)
    m.tags["Event"] = f"Practice: round {decision.round}, action {decision.step + 1} again"
    return m
