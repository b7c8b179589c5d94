"""A table's state as JSON text, rendered for every event: one public head, a small tail per seat.

Every accepted entry sends each audience of a table its state right after it.  The public part
(calls, tricks won, the trick on the table, the round's finished tricks, totals, ...) is the same
for every audience, so it is rendered once (`StateRender.parts`: the ``head``), and each seat gets
only its ``tail``: its hand and, on its turn, its legal moves.  ``head + "," + tail`` is exactly
the JSON of `TableState.state` (tests/server/test_table_state.py holds the two together at every step
of whole matches).

What changes rarely is rendered once and kept: the rules, the finished tricks of the round (a trick
is added as it ends, never the whole history again), the totals, the last round's summary.  So an
event costs what changed, not the length of the round.

>>> from callbreak import Match, Ruleset
>>> m = Match(Ruleset.preset("quick"), seed=1)
>>> head, tails = StateRender().parts(m, False, [m.to_act, -1])
>>> head.startswith('{"rules":{'), tails[-1]
(True, '"seat":-1,"hand":[],"legal_calls":[],"legal_cards":[]}')
>>> import orjson; state = orjson.loads(head + "," + tails[m.to_act])
>>> len(state["hand"]), state["legal_calls"][:3], state["tricks"]
(13, [1, 2, 3], [])
"""

from __future__ import annotations

from typing import Any

import orjson

from ..cards import CARDS, Card
from ..match import Match
from ..round import OVER, Round, Trick
from ..rules import Ruleset

__all__ = ["StateRender"]

#: each card as a JSON string (``"AS"``), by its index
_CARD_JSON: tuple[str, ...] = tuple(f'"{c}"' for c in CARDS)

_SPECTATOR_TAIL = '"seat":-1,"hand":[],"legal_calls":[],"legal_cards":[]}'


def _dumps(obj: Any) -> str:
    return orjson.dumps(obj).decode()


def _hand(mask: int) -> str:
    """The cards of a mask as a JSON list, lowest index first (as `cards_of`).

    >>> _hand(0b101), _hand(0)
    ('["2S","4S"]', '[]')
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(_CARD_JSON[low.bit_length() - 1])
        mask ^= low
    return "[" + ",".join(out) + "]"


def _cards(cards: list[Card]) -> str:
    return "[" + ",".join(_CARD_JSON[c] for c in cards) + "]"


def _trick(t: Trick) -> str:
    """>>> _trick(Trick(2, (CARDS[0], CARDS[1], CARDS[2], CARDS[3]), 1))
    '{"leader":2,"cards":["2S","3S","4S","5S"],"winner":1}'
    """
    return f'{{"leader":{t.leader},"cards":[{",".join(_CARD_JSON[c] for c in t.cards)}],"winner":{t.winner}}}'


class StateRender:
    """One table's state renderer, with what it kept from the last rendering.

    >>> from callbreak import Match, Ruleset
    >>> m = Match(Ruleset.preset("quick"), seed=2)
    >>> render = StateRender()
    >>> first, _ = render.parts(m, False, [])
    >>> _ = m.call(m.round.legal_calls()[0])
    >>> second, _ = render.parts(m, False, [])
    >>> first == second, '"calls":[' in second
    (False, True)
    """

    def __init__(self) -> None:
        self._rules: tuple[Ruleset, str] | None = None
        #: the round whose finished tricks are rendered, how many, and each one's JSON
        self._round: Round | None = None
        self._tricks: list[str] = []
        self._totals: tuple[tuple[int, ...], str] | None = None
        self._last_round: tuple[int, str] | None = None

    def parts(self, m: Match, hide_turn: bool, seats: list[int]) -> tuple[str, dict[int, str]]:
        """The state of ``seats`` (-1: a spectator) as JSON text in two parts: the public head
        (the JSON object without its closing brace) and each seat's tail (``head + "," + tail``
        is the seat's state).  ``hide_turn``: nobody is to act (between rounds, abandoned)."""
        rnd = m.round
        over = m.is_over
        to_act = None if over or hide_turn else rnd.to_act
        phase = rnd.phase
        head = (
            f'{{"rules":{self._rules_json(rnd.rules)},"dealer":{rnd.dealer},"phase":"{phase}",'
            f'"to_act":{"null" if to_act is None else to_act},'
            f'"hand_sizes":[{",".join(str(h.bit_count()) for h in rnd.hand_masks)}],'
            f'"calls":{_dumps(rnd.calls)},"tricks_won":{_dumps(rnd.tricks_won)},"leader":{rnd.leader},'
            f'"trick":[{",".join(f"[{s},{_CARD_JSON[c]}]" for s, c in rnd.trick_seats)}],'
            f'"tricks":[{self._tricks_json(rnd)}],'
            f'"points":{_dumps([str(p) for p in rnd.points()]) if phase == OVER else "null"},'
            f'"totals":{self._totals_json(m)},"round_number":{m.round_number},'
            f'"rounds":{_dumps(m.rules.rounds)},"sudden_death":{"true" if m.sudden_death else "false"},'
            f'"places":{_dumps(m.places) if over else "null"},"last_round":{self._last_round_json(m)}'
        )
        tails: dict[int, str] = {}
        for s in seats:
            if s < 0:
                tails[s] = _SPECTATOR_TAIL
                continue
            if to_act == s:
                calls, cards = _dumps(rnd.legal_calls()), _cards(rnd.legal_cards())
            else:
                calls = cards = "[]"
            tails[s] = f'"seat":{s},"hand":{_hand(rnd.hand_masks[s])},"legal_calls":{calls},"legal_cards":{cards}}}'
        return head, tails

    def _rules_json(self, rules: Ruleset) -> str:
        if self._rules is None or self._rules[0] is not rules:
            self._rules = (rules, _dumps(rules.to_dict()))
        return self._rules[1]

    def _tricks_json(self, rnd: Round) -> str:
        n = rnd.trick_number
        if self._round is not rnd or n < len(self._tricks):
            self._round, self._tricks = rnd, []
        if n == len(self._tricks) + 1:
            last = rnd.last_trick
            assert last is not None
            self._tricks.append(_trick(last))
        elif n != len(self._tricks):
            self._tricks = [_trick(t) for t in rnd.tricks]
        return ",".join(self._tricks)

    def _totals_json(self, m: Match) -> str:
        key = tuple(m.totals_tenths)
        if self._totals is None or self._totals[0] != key:
            self._totals = (key, _dumps([str(p) for p in m.totals]))
        return self._totals[1]

    def _last_round_json(self, m: Match) -> str:
        n = len(m.rounds)
        if self._last_round is None or self._last_round[0] != n:
            if n == 0:
                text = "null"
            else:
                last = m.rounds[-1]
                text = _dumps(
                    {
                        "round": n,
                        "dealer": last.dealer,
                        "calls": list(last.calls),
                        "tricks_won": list(last.tricks_won),
                        "points": [str(p) for p in m.round_points[-1]],
                    }
                )
            self._last_round = (n, text)
        return self._last_round[1]
