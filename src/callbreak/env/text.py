"""The table in text for the environments' ``render``: the engine's own text forms.

>>> from callbreak import Match
>>> print(render_text(Match(seed=3)))
Round 1 of 5, dealer player_1, trump S, calling
  player_0: call -, won 0, total 0.0
  player_1: call -, won 0, total 0.0
  player_2: call -, won 0, total 0.0
  player_3: call -, won 0, total 0.0
player_2 to call, holds: 7S KS AS 2H QH KH AH 5D 6C 7C 9C JC AC
"""

from __future__ import annotations

from ..match import Match
from ..round import PLAYING

__all__ = ["render_text"]


def render_text(
    match: Match, names: tuple[str, ...] = ("player_0", "player_1", "player_2", "player_3")
) -> str:
    """Public state (calls, tricks won, totals, the trick on the table) and the hand of the
    seat to act only: no other hand is shown.

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> text = render_text(m)
    >>> print(text.splitlines()[0])
    Round 1 of 5, dealer player_1, trump S, calling
    >>> text.count("hand") <= 1   # the seat to act's hand only
    True
    """
    v = match.view(-1)
    rounds = "" if v.rounds is None else f" of {v.rounds}"
    state = "over" if match.is_over else v.phase
    lines = [
        f"Round {v.round_number}{rounds}, dealer {names[v.dealer]}, trump {v.rules.trump}, {state}"
        + (" (sudden death)" if v.sudden_death else "")
    ]
    totals = v.totals or ()
    for seat in range(4):
        call = v.calls[seat]
        lines.append(
            f"  {names[seat]}: call {'-' if call is None else call}, won {v.tricks_won[seat]}, "
            f"total {totals[seat] if totals else 0}"
        )
    if v.phase == PLAYING and v.trick:
        cards = " ".join(str(c) for _, c in v.trick)
        lines.append(f"Trick {len(v.tricks) + 1}: {names[v.leader]} leads: {cards}")
    if match.is_over:
        lines.append("Places: " + " ".join(str(p) for p in match.places))
    elif v.to_act is not None:
        hand = " ".join(str(c) for c in match.view(v.to_act).hand)
        verb = "call" if v.phase != PLAYING else "play"
        lines.append(f"{names[v.to_act]} to {verb}, holds: {hand}")
    return "\n".join(lines)
