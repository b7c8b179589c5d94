"""The `Ruleset`: every variant of Callbreak as a named, validated field.

>>> Ruleset().max_call
13
>>> Ruleset.preset("pagat").min_call
2
>>> Ruleset(min_call=3)
Traceback (most recent call last):
...
ValueError: min_call must be 1 or 2, not 3
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

__all__ = ["FIELD_HELP", "PRESETS", "Ruleset"]

TieBreak = Literal["sudden_death", "share"]
TrumpLead = Literal["any", "not_first_trick", "after_broken"]
MissedPenalty = Literal["call", "shortfall", "zero"]
Direction = Literal["clockwise", "counterclockwise"]
Suit = Literal["S", "H", "D", "C"]

_ZERO = Decimal("0")
_TENTH = Decimal("0.1")

FIELD_HELP: dict[str, str] = {
    "min_call": "lowest call (1 or 2); there is never a zero call",
    "max_call": "highest call (1..13)",
    "overtrick_points": "value of each trick above a made call (0.1 or 0)",
    "max_overtricks": "taking more than call + this many tricks fails the call (none: no limit)",
    "missed_penalty": "a missed call scores -call, -(call - tricks) when short, or 0",
    "bonus_call": "a made call of at least this scores bonus_points in place of the call",
    "bonus_points": "what a made bonus call scores",
    "rounds": "rounds in a match (1..20, or none: no fixed end)",
    "tie_break": "a tie at the top: sudden-death rounds, or share first place",
    "must_head": "must beat the highest card of the led suit when following",
    "head_after_cut": "with must_head, the duty stays once a trump is on the trick",
    "trump": "the permanent trump suit",
    "trump_lead": "may trump be led: any time, not to trick one, or only after a trump was played",
    "must_undertrump": "void, holding only trumps lower than one in the trick: must still trump",
    "redeal_without_trump": "a hand with no trump: the same dealer deals again",
    "redeal_without_face_card": "a hand with no J, Q, K or A: the same dealer deals again",
    "min_total_calls": "if the four calls total less, the same dealer deals again",
    "direction": "how the table is drawn (presentation only)",
    "card_seconds": "online turn timer for a card (none: no timer)",
    "call_seconds": "online turn timer for a call (none: no timer)",
    "autoplay_forced": "a seat with one legal card plays it after a brief highlight",
}


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _bad(name: str, want: str, value: object) -> ValueError:
    return ValueError(f"{name} must be {want}, not {value!r}")


@dataclass(frozen=True, init=False, slots=True)
class Ruleset:
    """An immutable set of rules.  Every field has the default of the standard game.

    >>> r = Ruleset(trump="H", rounds=10)
    >>> r.trump, r.rounds, r.min_call
    ('H', 10, 1)
    >>> r.replace(rounds=3).rounds
    3
    >>> Ruleset(colour="red")
    Traceback (most recent call last):
    ...
    ValueError: unknown Ruleset field 'colour' (fields: min_call, max_call, overtrick_points, max_overtricks, missed_penalty, bonus_call, bonus_points, rounds, tie_break, must_head, head_after_cut, trump, trump_lead, must_undertrump, redeal_without_trump, redeal_without_face_card, min_total_calls, direction, card_seconds, call_seconds, autoplay_forced)
    """

    min_call: int
    max_call: int
    overtrick_points: Decimal
    max_overtricks: int | None
    missed_penalty: MissedPenalty
    bonus_call: int | None
    bonus_points: int
    rounds: int | None
    tie_break: TieBreak
    must_head: bool
    head_after_cut: bool
    trump: Suit
    trump_lead: TrumpLead
    must_undertrump: bool
    redeal_without_trump: bool
    redeal_without_face_card: bool
    min_total_calls: int
    direction: Direction
    card_seconds: float | None
    call_seconds: float | None
    autoplay_forced: bool

    def __init__(
        self,
        *,
        min_call: int = 1,
        max_call: int = 13,
        overtrick_points: Decimal | float | str | int = Decimal("0.1"),
        max_overtricks: int | None = None,
        missed_penalty: MissedPenalty = "call",
        bonus_call: int | None = None,
        bonus_points: int = 13,
        rounds: int | None = 5,
        tie_break: TieBreak = "sudden_death",
        must_head: bool = True,
        head_after_cut: bool = True,
        trump: Suit = "S",
        trump_lead: TrumpLead = "any",
        must_undertrump: bool = False,
        redeal_without_trump: bool = False,
        redeal_without_face_card: bool = False,
        min_total_calls: int = 0,
        direction: Direction = "clockwise",
        card_seconds: float | None = 15,
        call_seconds: float | None = 30,
        autoplay_forced: bool = True,
        **unknown: Any,
    ) -> None:
        if unknown:
            name = sorted(unknown)[0]
            fields = ", ".join(f.name for f in dataclasses.fields(Ruleset))
            raise ValueError(f"unknown Ruleset field {name!r} (fields: {fields})")
        if not _is_int(min_call) or min_call not in (1, 2):
            raise _bad("min_call", "1 or 2", min_call)
        if not _is_int(max_call) or not 1 <= max_call <= 13:
            raise _bad("max_call", "a whole number from 1 to 13", max_call)
        if max_call < min_call:
            raise ValueError(f"max_call ({max_call}) must not be below min_call ({min_call})")
        otp: Decimal
        try:
            if isinstance(overtrick_points, bool):
                raise ValueError
            if isinstance(overtrick_points, float):
                otp = Decimal(repr(overtrick_points))
            else:
                otp = Decimal(overtrick_points)
        except (ArithmeticError, ValueError, TypeError):
            raise _bad("overtrick_points", "0.1 or 0", overtrick_points) from None
        if otp == _TENTH:
            otp = _TENTH
        elif otp == 0:
            otp = _ZERO
        else:
            raise _bad("overtrick_points", "0.1 or 0", overtrick_points)
        if max_overtricks is not None and (not _is_int(max_overtricks) or not 0 <= max_overtricks <= 12):
            raise _bad("max_overtricks", "a whole number from 0 to 12, or none (no limit)", max_overtricks)
        if missed_penalty not in ("call", "shortfall", "zero"):
            raise _bad("missed_penalty", "'call', 'shortfall' or 'zero'", missed_penalty)
        if bonus_call is not None and (not _is_int(bonus_call) or not 1 <= bonus_call <= 13):
            raise _bad("bonus_call", "a whole number from 1 to 13, or none (no bonus)", bonus_call)
        if not _is_int(bonus_points) or not -1000 <= bonus_points <= 1000:
            raise _bad("bonus_points", "a whole number from -1000 to 1000", bonus_points)
        if rounds is not None and (not _is_int(rounds) or not 1 <= rounds <= 20):
            raise _bad("rounds", "a whole number from 1 to 20, or none (no fixed end)", rounds)
        if tie_break not in ("sudden_death", "share"):
            raise _bad("tie_break", "'sudden_death' or 'share'", tie_break)
        for bname, bval in (
            ("must_head", must_head),
            ("head_after_cut", head_after_cut),
            ("must_undertrump", must_undertrump),
            ("redeal_without_trump", redeal_without_trump),
            ("redeal_without_face_card", redeal_without_face_card),
            ("autoplay_forced", autoplay_forced),
        ):
            if not isinstance(bval, bool):
                raise _bad(bname, "True or False", bval)
        if not isinstance(trump, str) or trump.upper() not in ("S", "H", "D", "C"):
            raise _bad("trump", "'S', 'H', 'D' or 'C'", trump)
        if trump_lead not in ("any", "not_first_trick", "after_broken"):
            raise _bad("trump_lead", "'any', 'not_first_trick' or 'after_broken'", trump_lead)
        if not _is_int(min_total_calls) or not 0 <= min_total_calls <= 13:
            raise _bad("min_total_calls", "a whole number from 0 to 13", min_total_calls)
        if direction not in ("clockwise", "counterclockwise"):
            raise _bad("direction", "'clockwise' or 'counterclockwise'", direction)
        for tname, tval in (("card_seconds", card_seconds), ("call_seconds", call_seconds)):
            if tval is not None and (
                isinstance(tval, bool) or not isinstance(tval, (int, float)) or not 0 < tval <= 3600
            ):
                raise _bad(tname, "None or a number of seconds above 0 and at most 3600", tval)
        s = object.__setattr__
        s(self, "min_call", min_call)
        s(self, "max_call", max_call)
        s(self, "overtrick_points", otp)
        s(self, "max_overtricks", max_overtricks)
        s(self, "missed_penalty", missed_penalty)
        s(self, "bonus_call", bonus_call)
        s(self, "bonus_points", bonus_points)
        s(self, "rounds", rounds)
        s(self, "tie_break", tie_break)
        s(self, "must_head", must_head)
        s(self, "head_after_cut", head_after_cut)
        s(self, "trump", trump.upper())
        s(self, "trump_lead", trump_lead)
        s(self, "must_undertrump", must_undertrump)
        s(self, "redeal_without_trump", redeal_without_trump)
        s(self, "redeal_without_face_card", redeal_without_face_card)
        s(self, "min_total_calls", min_total_calls)
        s(self, "direction", direction)
        s(self, "card_seconds", card_seconds)
        s(self, "call_seconds", call_seconds)
        s(self, "autoplay_forced", autoplay_forced)

    # --- construction -------------------------------------------------------
    @classmethod
    def preset(cls, name: str, **changes: Any) -> Ruleset:
        """One of ``standard``, ``quick``, ``pagat``, ``bhoos``, with optional changes.

        >>> Ruleset.preset("bhoos").max_call, Ruleset.preset("bhoos").head_after_cut
        (8, False)
        >>> Ruleset.preset("quick", rounds=4).rounds
        4
        >>> Ruleset.preset("poker")
        Traceback (most recent call last):
        ...
        ValueError: unknown preset 'poker' (presets: standard, quick, pagat, bhoos)
        """
        key = name.strip().lower() if isinstance(name, str) else name
        if key not in PRESET_FIELDS:
            raise ValueError(f"unknown preset {name!r} (presets: {', '.join(PRESET_FIELDS)})")
        return cls(**{**PRESET_FIELDS[key], **changes})

    def replace(self, **changes: Any) -> Ruleset:
        """A new Ruleset with some fields changed (validated like the constructor).

        >>> Ruleset().replace(rounds=None).rounds is None
        True
        """
        return Ruleset(**{**self.to_dict(), **changes})

    def to_dict(self) -> dict[str, Any]:
        """Every field; ``overtrick_points`` as a string so the dict is JSON-safe.

        >>> Ruleset().to_dict()["overtrick_points"]
        '0.1'
        """
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["overtrick_points"] = str(self.overtrick_points)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ruleset:
        """Inverse of `to_dict`; also accepts ``{"preset": "pagat", ...changes}``.

        >>> Ruleset.from_dict({"preset": "pagat", "rounds": 10}).rounds
        10
        """
        if not isinstance(data, dict):
            raise ValueError(f"a ruleset must be an object of fields, not {type(data).__name__}")
        data = dict(data)
        preset = data.pop("preset", None)
        if preset is not None:
            return cls.preset(preset, **data)
        return cls(**data)

    def changes_from(self, base: Ruleset) -> dict[str, Any]:
        """The fields that differ from ``base``, as JSON-safe values.

        >>> Ruleset(rounds=7).changes_from(Ruleset())
        {'rounds': 7}
        """
        mine, theirs = self.to_dict(), base.to_dict()
        return {k: v for k, v in mine.items() if theirs[k] != v}

    def describe(self) -> tuple[str, dict[str, Any]]:
        """The closest preset and the changes from it.

        >>> Ruleset.preset("pagat", rounds=5).describe()
        ('pagat', {'rounds': 5})
        """
        best: tuple[str, dict[str, Any]] | None = None
        for pname in PRESET_FIELDS:
            diff = self.changes_from(Ruleset.preset(pname))
            if best is None or len(diff) < len(best[1]):
                best = (pname, diff)
        assert best is not None
        return best

    @property
    def name(self) -> str:
        """The preset name when this is exactly a preset, else ``custom``; the turn timers are
        the table's, not the game's rules (a game alone against bots has none, and is Standard).

        >>> Ruleset.preset("quick").name, Ruleset(max_call=9).name
        ('quick', 'custom')
        >>> Ruleset(card_seconds=None, call_seconds=None).name
        'standard'
        """
        pname, diff = self.describe()
        return pname if not set(diff) - {"card_seconds", "call_seconds"} else "custom"

    @property
    def untimed(self) -> bool:
        """Whether a table on these rules has no turn timers at all (a game alone against bots,
        a position played again): its players are never hurried, between rounds either.

        >>> Ruleset().untimed, Ruleset(card_seconds=None, call_seconds=None).untimed, Ruleset(card_seconds=None).untimed
        (False, True, False)
        """
        return self.card_seconds is None and self.call_seconds is None

    @property
    def trump_index(self) -> int:
        """The trump suit as 0..3 (S H D C).

        >>> Ruleset(trump="D").trump_index
        2
        """
        return "SHDC".index(self.trump)

    @property
    def overtrick_tenths(self) -> int:
        """Tenths of a point per overtrick (1 or 0).

        >>> Ruleset().overtrick_tenths, Ruleset.preset("pagat").overtrick_tenths
        (1, 0)
        """
        return 1 if self.overtrick_points else 0

    def legal_call_range(self) -> range:
        """>>> list(Ruleset.preset("bhoos").legal_call_range())
        [1, 2, 3, 4, 5, 6, 7, 8]
        """
        return range(self.min_call, self.max_call + 1)


PRESET_FIELDS: dict[str, dict[str, Any]] = {
    "standard": {},
    "quick": {"rounds": 3},
    "pagat": {
        "min_call": 2,
        "max_call": 12,
        "overtrick_points": 0,
        "max_overtricks": 1,
        "bonus_call": 8,
        "must_head": False,
        "rounds": None,
        "tie_break": "share",
        "direction": "counterclockwise",
    },
    "bhoos": {"max_call": 8, "head_after_cut": False},
}
PRESETS: tuple[str, ...] = tuple(PRESET_FIELDS)
