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

from ..match import Match
from ..round import CallAction
from .records import Decision

__all__ = ["practice_match"]


def practice_match(match: Match, decision: Decision) -> Match:
    """A fresh one-round match at the position of ``decision`` (its seat to act).

    Raises ValueError when ``decision`` is not a decision of ``match``'s seats.
    """
    if not 0 <= decision.deal < len(match.deals):
        raise ValueError(f"the match has no deal {decision.deal}")
    rnd = match.deals[decision.deal]
    actions = rnd.actions
    if not 0 <= decision.step < len(actions) or actions[decision.step].seat != decision.seat:
        raise ValueError(f"deal {decision.deal} has no action {decision.step} of seat {decision.seat}")
    rules = match.rules.replace(rounds=1, tie_break="share")
    m = Match(rules, match.seed, dealer=rnd.dealer, players=match.players, dealt=[rnd.dealt])
    m.tags["Event"] = f"Practice: round {decision.round}, action {decision.step + 1} again"
    for a in actions[: decision.step]:
        m.act(a.call if isinstance(a, CallAction) else a.card)
    return m
