"""The score calculator: a score sheet for games played with real cards.

Four names, a ruleset, then each round's calls and tricks won.  The sheet checks
every round (calls within the ruleset's range and not under ``min_total_calls``,
tricks 0..13 adding up to 13, no round after the match is over) and gives the
per-round points, the running totals and the places.  It is pure logic on
`callbreak.scoring`, exact to the tenth.

The JSON sheet (what ``callbreak score --save`` writes and ``--load`` reads)::

    {
      "format": "callbreak-scoresheet",
      "version": 1,
      "players": ["Asha", "Bikash", "Chandra", "Dipa"],
      "rules": {"preset": "standard", "changes": {"rounds": 10}},
      "rounds": [
        {"calls": [3, 4, 2, 3], "tricks": [4, 3, 2, 4]},
        {"calls": [2, 2, 3, 4], "tricks": [2, 3, 4, 4]}
      ],
      "points": [["3.1", "-4.0", "2.0", "3.1"], ["2.0", "2.1", "3.1", "4.0"]],
      "totals": ["5.1", "-1.9", "5.1", "7.1"],
      "places": [2, 4, 2, 1]
    }

``players``, ``rules`` and ``rounds`` are the sheet; lists are by seat (seat 0
first).  ``rules`` is a preset name plus changed `Ruleset` fields (``changes``
may be left out; ``rules`` may also be a full ``Ruleset.to_dict()``).  ``points``
(per round), ``totals`` and ``places`` are derived, written for convenience
(points as strings, exact to the tenth), and ignored when a sheet is loaded.

>>> sheet = ScoreSheet(["A", "B", "C", "D"], Ruleset.preset("quick"))
>>> sheet.add_round([3, 4, 2, 3], [4, 3, 2, 4])
[Decimal('3.1'), Decimal('-4.0'), Decimal('2.0'), Decimal('3.1')]
>>> sheet.add_round([2, 2, 3, 4], [2, 3, 4, 4])
[Decimal('2.0'), Decimal('2.1'), Decimal('3.1'), Decimal('4.0')]
>>> [str(t) for t in sheet.totals], sheet.places
(['5.1', '-1.9', '5.1', '7.1'], [2, 4, 2, 1])
>>> sheet.add_round([1, 1, 1, 1], [4, 4, 4, 4])
Traceback (most recent call last):
...
callbreak.scorecalc.ScoreError: round 3: the tricks add up to 16; they must add up to 13
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .rules import Ruleset
from .scoring import match_over, places_of, score_tenths, tenths_to_points

__all__ = ["FORMAT", "MAX_ROUNDS", "ScoreError", "ScoreSheet", "SheetRound"]

FORMAT = "callbreak-scoresheet"
MAX_ROUNDS = 20
"""Most rounds a sheet holds when the ruleset has no fixed end (``rounds=None``);
a fixed ``rounds`` is at most 20 anyway, plus any sudden-death rounds."""


class ScoreError(ValueError):
    """A round or sheet the calculator refuses; the sheet is unchanged.

    >>> isinstance(ScoreError("x"), ValueError)
    True
    """


@dataclass(frozen=True, slots=True)
class SheetRound:
    """One round of a sheet: the four calls and the tricks each seat won.

    >>> SheetRound((3, 4, 2, 3), (4, 3, 2, 4)).calls[1]
    4
    """

    calls: tuple[int, int, int, int]
    tricks: tuple[int, int, int, int]


def _ints(values: Sequence[Any], what: str, where: str) -> tuple[int, int, int, int]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or len(values) != 4:
        raise ScoreError(f"{where}: give four {what}, one per player")
    out: list[int] = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            if isinstance(v, str) and v.strip().lstrip("-").isdigit():
                v = int(v)
            else:
                raise ScoreError(f"{where}: {what} are whole numbers, not {v!r}")
        out.append(v)
    return (out[0], out[1], out[2], out[3])


class ScoreSheet:
    """Players, rules and the rounds entered so far.

    >>> s = ScoreSheet(["A", "B", "C", "D"], Ruleset(rounds=1, overtrick_points=0))
    >>> _ = s.add_round([2, 2, 2, 2], [2, 2, 2, 7])
    >>> s.is_over, s.sudden_death, s.places
    (False, True, [1, 1, 1, 1])
    """

    def __init__(self, players: Sequence[str], rules: Ruleset | None = None) -> None:
        if isinstance(players, str) or len(players) != 4:
            raise ScoreError("a score sheet has four players")
        names = [str(p).strip() for p in players]
        if any(not n for n in names):
            raise ScoreError("every player needs a name")
        if len(set(names)) != 4:
            raise ScoreError("the four players need different names")
        self.players = names
        self.rules = rules if rules is not None else Ruleset()
        if not isinstance(self.rules, Ruleset):
            raise ScoreError("rules must be a Ruleset")
        self.rounds: list[SheetRound] = []
        self._tenths: list[list[int]] = []

    # --- entering rounds -------------------------------------------------------
    def check_calls(self, calls: Sequence[Any], number: int | None = None) -> tuple[int, int, int, int]:
        """Validate four calls for the next round (or round ``number``); returns them.

        >>> ScoreSheet(list("ABCD"), Ruleset.preset("bhoos")).check_calls([1, 9, 2, 2])
        Traceback (most recent call last):
        ...
        callbreak.scorecalc.ScoreError: round 1: B calls 9; calls are 1 to 8
        """
        where = f"round {number or len(self.rounds) + 1}"
        self._check_open(where)
        c = _ints(calls, "calls", where)
        r = self.rules
        for seat, n in enumerate(c):
            if not r.min_call <= n <= r.max_call:
                raise ScoreError(
                    f"{where}: {self.players[seat]} calls {n}; calls are {r.min_call} to {r.max_call}"
                )
        if sum(c) < r.min_total_calls:
            raise ScoreError(
                f"{where}: the calls add up to {sum(c)}, under the minimum of {r.min_total_calls}: "
                "that deal is thrown in; enter the calls of the redeal"
            )
        return c

    def check_tricks(self, tricks: Sequence[Any], number: int | None = None) -> tuple[int, int, int, int]:
        """Validate four trick counts (each 0..13, adding up to 13); returns them.

        >>> ScoreSheet(list("ABCD")).check_tricks([4, 4, 4, 4])
        Traceback (most recent call last):
        ...
        callbreak.scorecalc.ScoreError: round 1: the tricks add up to 16; they must add up to 13
        """
        where = f"round {number or len(self.rounds) + 1}"
        t = _ints(tricks, "trick counts", where)
        for seat, n in enumerate(t):
            if not 0 <= n <= 13:
                raise ScoreError(f"{where}: {self.players[seat]} won {n} tricks; a count is 0 to 13")
        if sum(t) != 13:
            raise ScoreError(f"{where}: the tricks add up to {sum(t)}; they must add up to 13")
        return t

    def add_round(self, calls: Sequence[Any], tricks: Sequence[Any]) -> list[Decimal]:
        """Enter a round; returns its points per player.  `ScoreError` (the sheet unchanged)
        for a bad round or a round after the match is over.

        >>> ScoreSheet(list("ABCD")).add_round([4, 3, 1, 2], [6, 2, 1, 4])
        [Decimal('4.2'), Decimal('-3.0'), Decimal('1.0'), Decimal('2.2')]
        """
        c = self.check_calls(calls)
        t = self.check_tricks(tricks)
        pts = [score_tenths(c[i], t[i], self.rules) for i in range(4)]
        self.rounds.append(SheetRound(c, t))
        self._tenths.append(pts)
        return [tenths_to_points(p) for p in pts]

    def undo(self) -> SheetRound:
        """Remove the last round (to correct a mistake).

        >>> s = ScoreSheet(list("ABCD")); _ = s.add_round([1, 1, 1, 1], [4, 3, 3, 3]); s.undo().tricks
        (4, 3, 3, 3)
        """
        if not self.rounds:
            raise ScoreError("there is no round to undo")
        self._tenths.pop()
        return self.rounds.pop()

    def _check_open(self, where: str) -> None:
        if self.is_over:
            n = len(self.rounds)
            raise ScoreError(f"{where}: the match is over after {n} round{'s' if n != 1 else ''}")
        if self.rules.rounds is None and len(self.rounds) >= MAX_ROUNDS and not self.sudden_death:
            raise ScoreError(f"{where}: a sheet holds at most {MAX_ROUNDS} rounds")

    # --- results -----------------------------------------------------------------
    def round_points(self) -> list[list[Decimal]]:
        """Points per round, per player.

        >>> s = ScoreSheet(list("ABCD")); _ = s.add_round([1, 1, 1, 1], [4, 3, 3, 3]); s.round_points()[0][0]
        Decimal('1.3')
        """
        return [[tenths_to_points(p) for p in r] for r in self._tenths]

    def running_totals(self) -> list[list[Decimal]]:
        """Totals after each round, per player.

        >>> s = ScoreSheet(list("ABCD")); _ = s.add_round([1, 1, 1, 1], [4, 3, 3, 3])
        >>> _ = s.add_round([1, 1, 1, 1], [1, 2, 3, 7]); [str(x) for x in s.running_totals()[1]]
        ['2.3', '2.3', '2.4', '2.8']
        """
        out: list[list[Decimal]] = []
        acc = [0, 0, 0, 0]
        for r in self._tenths:
            acc = [a + b for a, b in zip(acc, r)]
            out.append([tenths_to_points(a) for a in acc])
        return out

    @property
    def totals_tenths(self) -> list[int]:
        """Totals in tenths (ints).

        >>> s = ScoreSheet(list("ABCD")); _ = s.add_round([1, 1, 1, 1], [4, 3, 3, 3]); s.totals_tenths
        [13, 12, 12, 12]
        """
        return [sum(r[i] for r in self._tenths) for i in range(4)]

    @property
    def totals(self) -> list[Decimal]:
        """Totals per player, exact.

        >>> ScoreSheet(list("ABCD")).totals
        [Decimal('0.0'), Decimal('0.0'), Decimal('0.0'), Decimal('0.0')]
        """
        return [tenths_to_points(t) for t in self.totals_tenths]

    @property
    def places(self) -> list[int]:
        """Places 1..4 by total; tied players share the better place.

        >>> s = ScoreSheet(list("ABCD")); _ = s.add_round([1, 1, 1, 1], [4, 3, 3, 3]); s.places
        [1, 2, 2, 2]
        """
        return places_of(self.totals_tenths)

    @property
    def is_over(self) -> bool:
        """All rounds entered, and no tie at the top left to break (never for ``rounds=None``).

        >>> s = ScoreSheet(list("ABCD"), Ruleset(rounds=1)); _ = s.add_round([1, 1, 1, 1], [4, 3, 3, 3]); s.is_over
        True
        """
        return match_over(self.totals_tenths, len(self.rounds), self.rules.rounds, self.rules.tie_break)

    @property
    def sudden_death(self) -> bool:
        """Whether the next round is a sudden-death round (tied at the top after the last round).

        >>> s = ScoreSheet(list("ABCD"), Ruleset(rounds=1)); _ = s.add_round([1, 1, 1, 1], [4, 4, 3, 2])
        >>> s.sudden_death, s.is_over
        (True, False)
        """
        n = self.rules.rounds
        return n is not None and len(self.rounds) >= n and not self.is_over

    # --- JSON --------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON sheet (see the module docstring).

        >>> ScoreSheet(list("ABCD")).to_dict()["rules"]
        {'preset': 'standard', 'changes': {}}
        """
        preset, changes = self.rules.describe()
        return {
            "format": FORMAT,
            "version": 1,
            "players": list(self.players),
            "rules": {"preset": preset, "changes": changes},
            "rounds": [{"calls": list(r.calls), "tricks": list(r.tricks)} for r in self.rounds],
            "points": [[str(p) for p in r] for r in self.round_points()],
            "totals": [str(t) for t in self.totals],
            "places": self.places,
        }

    def to_json(self) -> str:
        """The JSON sheet as text.

        >>> ScoreSheet.from_json(ScoreSheet(list("ABCD")).to_json()).players
        ['A', 'B', 'C', 'D']
        """
        return json.dumps(self.to_dict(), indent=1)

    @classmethod
    def from_dict(cls, data: Any) -> ScoreSheet:
        """Read a JSON sheet, checking every round as it is entered.

        >>> ScoreSheet.from_dict({"players": list("ABCD"), "rules": "pagat",
        ...     "rounds": [{"calls": [4, 2, 2, 2], "tricks": [6, 2, 2, 3]}]}).totals
        [Decimal('-4.0'), Decimal('2.0'), Decimal('2.0'), Decimal('2.0')]
        """
        if not isinstance(data, dict):
            raise ScoreError("a score sheet is a JSON object")
        if data.get("format", FORMAT) != FORMAT:
            raise ScoreError(f"not a score sheet (format {data.get('format')!r})")
        rules_d = data.get("rules", "standard")
        try:
            if isinstance(rules_d, str):
                rules = Ruleset.preset(rules_d)
            elif isinstance(rules_d, dict) and "changes" in rules_d:
                ch = rules_d.get("changes") or {}
                if not isinstance(ch, dict):
                    raise ValueError("rules changes are an object of fields")
                rules = Ruleset.preset(rules_d.get("preset", "standard"), **ch)
            elif isinstance(rules_d, dict):
                rules = Ruleset.from_dict(rules_d)
            else:
                raise ValueError("rules are a preset name or an object")
        except (ValueError, TypeError) as e:
            raise ScoreError(f"rules: {e}") from None
        players = data.get("players")
        if not isinstance(players, list):
            raise ScoreError("players: a list of four names")
        sheet = cls(players, rules)
        rounds = data.get("rounds", [])
        if not isinstance(rounds, list):
            raise ScoreError("rounds: a list of {calls, tricks}")
        for r in rounds:
            if not isinstance(r, dict):
                raise ScoreError(f"round {len(sheet.rounds) + 1}: an object with calls and tricks")
            sheet.add_round(r.get("calls"), r.get("tricks"))  # type: ignore[arg-type]
        return sheet

    @classmethod
    def from_json(cls, text: str) -> ScoreSheet:
        """Read a JSON sheet given as text.

        >>> ScoreSheet.from_json("[1")
        Traceback (most recent call last):
        ...
        callbreak.scorecalc.ScoreError: not valid JSON: Expecting ',' delimiter: line 1 column 3 (char 2)
        """
        try:
            data = json.loads(text)
        except ValueError as e:
            raise ScoreError(f"not valid JSON: {e}") from None
        return cls.from_dict(data)


def parse_rounds(text: str) -> list[tuple[list[int], list[int]]]:
    """Read ``"3 4 2 3 / 4 3 2 4; 2 2 3 4 / 2 3 4 4"``: rounds separated by ``;``,
    each four calls, ``/``, four trick counts.

    >>> parse_rounds("3 4 2 3 / 4 3 2 4; 2 2 3 4/2 3 4 4")
    [([3, 4, 2, 3], [4, 3, 2, 4]), ([2, 2, 3, 4], [2, 3, 4, 4])]
    """
    out: list[tuple[list[int], list[int]]] = []
    for i, part in enumerate(p for p in text.split(";") if p.strip()):
        halves = part.split("/")
        if len(halves) != 2:
            raise ScoreError(
                f"round {i + 1}: write four calls, '/', then four trick counts, like '3 4 2 3 / 4 3 2 4'"
            )
        nums: list[list[int]] = []
        for half, what in zip(halves, ("calls", "trick counts")):
            words = half.replace(",", " ").split()
            try:
                vals = [int(w) for w in words]
            except ValueError:
                raise ScoreError(f"round {i + 1}: {what} are whole numbers, not {half.strip()!r}") from None
            if len(vals) != 4:
                raise ScoreError(f"round {i + 1}: give four {what}, one per player, not {len(vals)}")
            nums.append(vals)
        out.append((nums[0], nums[1]))
    return out
