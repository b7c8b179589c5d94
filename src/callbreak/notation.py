"""Hand histories: a readable text format (in the spirit of PGN and PokerKit's PHH) and a JSON form.

A history holds the ruleset (closest preset plus changed fields), the seed, the
first dealer, the player names, and for every deal (redealt ones included) the
four hands, the calls, the tricks card by card and the results.  Loading a
history replays every action through the engine, so every call and card is
checked; a history that cannot be read or replayed raises `HistoryError`
naming the 1-based line (text) or the place (JSON) and the reason.

The text form::

    [Event "Friday night"]
    [Ruleset "standard"]
    [Changes "rounds=2"]
    [Seed "7"]
    [Dealer "2"]
    [Players "Asha, Bikash, Chandra, Dipa"]
    [Status "over"]
    [Result "1 3 4 2"]

    Round 1, dealer 2
    Hand 0: 3S 7S QS 4H ...
    Hand 1: ...
    Hand 2: ...
    Hand 3: ...
    Calls: 3 4 2 3
    Trick 1: 3 leads 9H TH 2H AH, 2 wins
    ...
    Trick 13: 1 leads 4C 5C 6S 2C, 3 wins
    Tricks: 3 4 2 4
    Points: 3.0 4.0 2.0 3.1
    Totals: 3.0 4.0 2.0 3.1

Rules of the format:

* Tags are ``[Name "value"]`` lines before the first round (``\\"`` and ``\\\\``
  escape a quote and a backslash).  ``Ruleset`` (a preset name), ``Changes``
  (``field=value`` pairs separated by ``, ``; values are JSON, or a bare word),
  ``Seed``, ``Dealer`` (the first dealer), ``Players`` (four names separated by
  ``, ``; a comma inside a name is written ``\\,``), ``Status`` (``over`` or
  ``playing``) and ``Result`` (places by seat, or ``*`` while playing) are read;
  any other tag (``Event``, ``Date``, ``Site``...) is kept in `Match.tags`.
* Seats are numbers 0..3 in order of play; ``Calls``, ``Tricks``, ``Points``
  and ``Totals`` list one value per seat, seat 0 first (``-`` for a call not yet
  made).  A trick lists its leader then the cards in order of play.
* ``Redeal: reason`` marks a deal thrown in (a hand without trump or face card,
  or calls under ``min_total_calls``); the same dealer deals again.
* ``End: ...`` marks where the table ended the match (`Match.end`).
* The ``Auto`` tag lists the calls and cards made for a seat, not by its player (a turn
  that ran out, a bot that played for an absent player, an arena's fallback for a bot
  that faulted): ``[Auto "0:5 timeout, 2:17 fault"]``, see `auto_decisions`.  An
  analysis leaves them out of the player's figures.
* Blank lines and lines starting with ``#`` are ignored.  ``Tricks``, ``Points``,
  ``Totals``, ``Status`` and ``Result`` are checked against the replay when
  present, and may be left out of a hand-written history.

Deals are recorded explicitly and the recorded deals are trusted: a history of
a game played with real cards, or an edited one, loads as written, and the
seed only decides deals the history does not record (the next deal after the
last one written).  A history without ``Seed`` replays with seed 0.

>>> from callbreak import Match, Ruleset
>>> m = Match(Ruleset.preset("quick"), seed=7, players=["A", "B", "C", "D"])
>>> while not m.is_over:
...     _ = m.act(m.round.legal_calls()[1] if m.round.phase == "calling" else m.round.legal_cards()[0])
>>> text = dumps(m)
>>> print(text.splitlines()[0])
[Ruleset "quick"]
>>> loads(text).state_key() == m.state_key()
True
>>> dumps(loads(text)) == text
True
>>> from_json(to_json(m)).state_key() == m.state_key()
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from .cards import FACE_MASK, SUIT_MASKS, Card
from .errors import HistoryError, IllegalAction
from .match import Match
from .round import OVER, REDEAL, Round
from .rules import Ruleset

__all__ = [
    "AUTO_TAG",
    "Step",
    "auto_decisions",
    "auto_tag",
    "dumps",
    "from_dict",
    "from_json",
    "loads",
    "next_step",
    "replay_states",
    "set_auto_decisions",
    "to_dict",
    "to_json",
]

FORMAT = "callbreak-history"
VERSION = 1
_KNOWN_TAGS = ("Ruleset", "Changes", "Seed", "Dealer", "Players", "Status", "Result")


#: the tag of the calls and cards made for a seat, not by its player (`auto_decisions`)
AUTO_TAG = "Auto"
_AUTO_ITEM = re.compile(r"(\d+):(\d+) ([a-z]+)")


def auto_decisions(match: Match) -> dict[tuple[int, int], str]:
    """The calls and cards ``match``'s history marks as made for their seat, not by its player,
    by (deal, step), with why: its ``Auto`` tag, ``DEAL:STEP WHY`` items separated by ", "
    (``DEAL``: the deal's index from 0, deals thrown in counted; ``STEP``: the action's index in
    that deal, the calls 0..3 then the cards; ``WHY``: "timeout" (the turn ran out), "autoplay"
    (a bot played for an absent player), "fault" (an arena played its fallback for a bot that
    failed to answer legally)).  Loading a history checks the tag (`HistoryError`).

    >>> m = Match(seed=2)
    >>> for n in (1, 2, 3, 4): _ = m.call(n)
    >>> set_auto_decisions(m, {(0, 3): "fault", (0, 1): "timeout"})
    >>> m.tags["Auto"], auto_decisions(m)
    ('0:1 timeout, 0:3 fault', {(0, 1): 'timeout', (0, 3): 'fault'})
    >>> auto_decisions(loads(dumps(m))) == auto_decisions(m)
    True
    >>> loads(dumps(m).replace("0:3 fault", "0:9 fault"))
    Traceback (most recent call last):
    ...
    callbreak.errors.HistoryError: line 1: the Auto tag: deal 0 has no step 9 (4 actions)
    """
    text = match.tags.get(AUTO_TAG, "")
    out: dict[tuple[int, int], str] = {}
    for item in text.split(", ") if text else ():
        m = _AUTO_ITEM.fullmatch(item)
        if m is None:
            raise HistoryError(f'the Auto tag lists "DEAL:STEP WHY" items separated by ", ", not {item!r}')
        deal, step = int(m.group(1)), int(m.group(2))
        if deal >= len(match.deals):
            raise HistoryError(f"the Auto tag: there is no deal {deal} ({_count(len(match.deals), 'deal')})")
        actions = len(match.deals[deal].actions)
        if step >= actions:
            raise HistoryError(f"the Auto tag: deal {deal} has no step {step} ({_count(actions, 'action')})")
        out[(deal, step)] = m.group(3)
    return out


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def next_step(match: Match) -> tuple[int, int]:
    """(deal, step) of the action about to be taken in ``match``, as `auto_decisions` and the
    analysis number decisions.

    >>> m = Match(seed=2)
    >>> _ = m.act(1)
    >>> next_step(m)
    (0, 1)
    """
    return len(match.deals) - 1, len(match.deals[-1].actions)


def set_auto_decisions(match: Match, auto: dict[tuple[int, int], str]) -> None:
    """Mark ``auto``'s decisions (by (deal, step), with why) in ``match``'s ``Auto`` tag (see
    `auto_decisions`; none: no tag).

    >>> m = Match(seed=2)
    >>> set_auto_decisions(m, {}); AUTO_TAG in m.tags
    False
    """
    if auto:
        match.tags[AUTO_TAG] = auto_tag(auto)
    else:
        match.tags.pop(AUTO_TAG, None)


def auto_tag(auto: dict[tuple[int, int], str]) -> str:
    """The ``Auto`` tag's words for ``auto`` (by (deal, step), with why; see `auto_decisions`).

    >>> auto_tag({(2, 17): "fault", (0, 5): "timeout"}), auto_tag({})
    ('0:5 timeout, 2:17 fault', '')
    """
    return ", ".join(f"{d}:{s} {why}" for (d, s), why in sorted(auto.items()))


# --- writing -----------------------------------------------------------------


def _redeal_reason(rnd: Round) -> str:
    r = rnd.rules
    if len(rnd) == 0:
        for seat, m in enumerate(rnd.hand_masks):
            if r.redeal_without_trump and not m & SUIT_MASKS[r.trump_index]:
                return f"seat {seat} holds no trump"
            if r.redeal_without_face_card and not m & FACE_MASK:
                return f"seat {seat} holds no face card"
        return "thrown in"
    total = sum(c or 0 for c in rnd.calls)
    return f"calls total {total}, under {r.min_total_calls}"


def _pts(values: list[Decimal] | tuple[Decimal, ...]) -> list[str]:
    return [str(v) for v in values]


def to_dict(match: Match) -> dict[str, Any]:
    """The JSON form of a match's history: plain lists, ints and strings.

    ``{"format": "callbreak-history", "version": 1, "tags": {...},
    "ruleset": {"preset": name, "changes": {...}}, "seed": int, "dealer": int,
    "players": [4 names], "status": "over" | "playing", "end_after_deals": int | null,
    "deals": [{"round": n, "dealer": d, "hands": [[13 cards] x 4], "calls": [int | null x 4],
    "redeal": reason | null, "tricks": [{"leader": s, "cards": [...], "winner": s | null}],
    "tricks_won": [...], "points": [...], "totals": [...]}], "totals": [...], "places": [...]}``.
    Cards are text like ``"AS"``; points are strings like ``"4.2"``.  ``end_after_deals``
    is how many entries of ``deals`` came before the table ended the match.

    >>> d = to_dict(Match(seed=1, dealer=0))
    >>> d["deals"][0]["round"], d["deals"][0]["dealer"], d["status"]
    (1, 0, 'playing')
    """
    preset, changes = match.rules.describe()
    deals: list[dict[str, Any]] = []
    finished = 0
    totals = [0, 0, 0, 0]
    end_after: int | None = None
    if match.ended_at == 0:
        end_after = 0
    for rnd in match.deals:
        entry: dict[str, Any] = {
            "round": finished + 1,
            "dealer": rnd.dealer,
            "hands": [[str(c) for c in h] for h in rnd.dealt],
            "calls": list(rnd.calls),
            "redeal": _redeal_reason(rnd) if rnd.phase == REDEAL else None,
            "tricks": [],
        }
        tricks = [
            {"leader": t.leader, "cards": [str(c) for c in t.cards], "winner": t.winner} for t in rnd.tricks
        ]
        if rnd.trick:
            tricks.append({"leader": rnd.leader, "cards": [str(c) for c in rnd.trick], "winner": None})
        entry["tricks"] = tricks
        if rnd.phase == OVER:
            pts = rnd.points_tenths()
            totals = [a + b for a, b in zip(totals, pts)]
            entry["tricks_won"] = rnd.tricks_won
            entry["points"] = _pts(rnd.points())
            entry["totals"] = [str(Decimal(t).scaleb(-1)) for t in totals]
            finished += 1
            if match.ended_at == finished:
                end_after = len(deals) + 1
        deals.append(entry)
    return {
        "format": FORMAT,
        "version": VERSION,
        "tags": dict(match.tags),
        "ruleset": {"preset": preset, "changes": changes},
        "seed": match.seed,
        "dealer": match.first_dealer,
        "players": list(match.players),
        "status": "over" if match.is_over else "playing",
        "end_after_deals": end_after,
        "deals": deals,
        "totals": _pts(match.totals),
        "places": match.places if match.is_over else None,
    }


def to_json(match: Match, indent: int | None = None) -> str:
    """The JSON form as text (see `to_dict`).

    >>> to_json(Match(seed=1))[:40]
    '{"format": "callbreak-history", "version'
    """
    return json.dumps(to_dict(match), indent=indent)


def _tag(name: str, value: str) -> str:
    return f'[{name} "' + value.replace("\\", "\\\\").replace('"', '\\"') + '"]'


def _change_text(value: Any) -> str:
    if (
        isinstance(value, str)
        and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", value)
        and value
        not in (
            "null",
            "true",
            "false",
        )
    ):
        return value
    return json.dumps(value)


def dumps(match: Match) -> str:
    """The text history of a match, finished or not (see the module docstring).

    >>> print(dumps(Match(seed=3, dealer=1, players=["A", "B", "C", "D"])).split("\\n\\n")[0])
    [Ruleset "standard"]
    [Seed "3"]
    [Dealer "1"]
    [Players "A, B, C, D"]
    [Status "playing"]
    [Result "*"]
    """
    d = to_dict(match)
    lines: list[str] = []
    for k, v in match.tags.items():
        if k not in _KNOWN_TAGS:
            lines.append(_tag(k, v))
    lines.append(_tag("Ruleset", d["ruleset"]["preset"]))
    changes = d["ruleset"]["changes"]
    if changes:
        lines.append(_tag("Changes", ", ".join(f"{k}={_change_text(v)}" for k, v in changes.items())))
    lines.append(_tag("Seed", str(match.seed)))
    lines.append(_tag("Dealer", str(match.first_dealer)))
    lines.append(
        _tag("Players", ", ".join(p.replace("\\", "\\\\").replace(",", "\\,") for p in match.players))
    )
    lines.append(_tag("Status", d["status"]))
    lines.append(_tag("Result", " ".join(str(p) for p in d["places"]) if d["places"] else "*"))
    end_after = d["end_after_deals"]
    for i, entry in enumerate(d["deals"]):
        if end_after == i:
            lines += ["", "End: the table ended the match"]
        lines.append("")
        lines.append(f"Round {entry['round']}, dealer {entry['dealer']}")
        for seat, hand in enumerate(entry["hands"]):
            lines.append(f"Hand {seat}: " + " ".join(hand))
        if entry["redeal"] is not None and all(c is None for c in entry["calls"]):
            lines.append(f"Redeal: {entry['redeal']}")
            continue
        if any(c is not None for c in entry["calls"]):
            lines.append("Calls: " + " ".join("-" if c is None else str(c) for c in entry["calls"]))
        if entry["redeal"] is not None:
            lines.append(f"Redeal: {entry['redeal']}")
            continue
        for n, t in enumerate(entry["tricks"], 1):
            s = f"Trick {n}: {t['leader']} leads " + " ".join(t["cards"])
            if t["winner"] is not None:
                s += f", {t['winner']} wins"
            lines.append(s)
        if "points" in entry:
            lines.append("Tricks: " + " ".join(str(x) for x in entry["tricks_won"]))
            lines.append("Points: " + " ".join(entry["points"]))
            lines.append("Totals: " + " ".join(entry["totals"]))
    if end_after is not None and end_after == len(d["deals"]):
        lines += ["", "End: the table ended the match"]
    if d["places"]:
        lines += ["", "Places: " + " ".join(str(p) for p in d["places"])]
    return "\n".join(lines) + "\n"


# --- reading -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One moment of a replay: after the action read on ``line`` (None for JSON).
    ``round`` is a copy of the round at that moment (all hands visible); ``action``
    is None for the moment a deal is dealt.

    >>> first = next(replay_states(dumps(Match(seed=1, dealer=0))))
    >>> first.line, first.where, first.action, first.round_number
    (8, 'round 1: the deal', None, 1)
    """

    line: int | None
    where: str
    action: int | Card | None
    round: Round
    round_number: int
    totals: tuple[Decimal, ...]


class _Lines:
    """Line numbers (text) or place names (JSON) for error messages."""

    def __init__(self) -> None:
        self.lines: dict[tuple[Any, ...], int] = {}

    def error(self, key: tuple[Any, ...], message: str) -> HistoryError:
        line = self.lines.get(key)
        if line is not None:
            return HistoryError(message, line)
        return HistoryError(f"{_place(key)}: {message}" if key else message)


def _place(key: tuple[Any, ...]) -> str:
    parts: list[str] = []
    i = 0
    while i < len(key):
        k = key[i]
        if k == "deal":
            parts.append(f"deals[{key[i + 1]}]")
            i += 2
        elif k == "trick":
            parts.append(f"tricks[{key[i + 1]}]")
            i += 2
        else:
            parts.append(str(k))
            i += 1
    return ".".join(parts)


_TAG_RE = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]$')
_ROUND_RE = re.compile(r"^Round\s+(\d+)\s*,\s*dealer\s+(\d+)$", re.IGNORECASE)
_HAND_RE = re.compile(r"^Hand\s+(\d+)\s*:\s*(.*)$", re.IGNORECASE)
_TRICK_RE = re.compile(
    r"^Trick\s+(\d+)\s*:\s*(\d+)\s+leads\s+([^,]*?)\s*(?:,\s*(\d+)\s+wins)?$", re.IGNORECASE
)
_FIELD_RE = re.compile(r"^(Calls|Tricks|Points|Totals|Places|Redeal|End)\s*:\s*(.*)$", re.IGNORECASE)


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _split_players(value: str) -> list[str]:
    out: list[str] = []
    cur = ""
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value):
            cur += value[i + 1]
            i += 2
            continue
        if ch == ",":
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    out.append(cur.strip())
    return out


def _parse_changes(value: str, line: int) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    if not value.strip():
        return changes
    for part in re.split(r",\s*(?=[A-Za-z_]+\s*=)", value):
        if "=" not in part:
            raise HistoryError(f"a change is field=value, not {part.strip()!r}", line)
        k, _, v = part.partition("=")
        v = v.strip()
        try:
            changes[k.strip()] = json.loads(v)
        except ValueError:
            changes[k.strip()] = v
    return changes


def _int(text: str, what: str, line: int) -> int:
    try:
        return int(text)
    except ValueError:
        raise HistoryError(f"{what} must be a whole number, not {text!r}", line) from None


def _parse_text(text: str) -> tuple[dict[str, Any], _Lines]:
    """Read the text form into the JSON form, remembering each item's line."""
    if not isinstance(text, str):
        raise HistoryError(f"a history is text, not {type(text).__name__}")
    ln = _Lines()
    tags: dict[str, str] = {}
    d: dict[str, Any] = {"tags": {}, "deals": [], "end_after_deals": None}
    deal: dict[str, Any] | None = None
    di = -1
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            if deal is not None:
                raise HistoryError("tags belong before the first round", no)
            m = _TAG_RE.match(line)
            if not m:
                raise HistoryError(f'a tag is written [Name "value"], not {line!r}', no)
            name, value = m.group(1), _unescape(m.group(2))
            if name in tags:
                raise HistoryError(f"tag {name} given twice", no)
            tags[name] = value
            ln.lines[(name,)] = no
            continue
        m = _ROUND_RE.match(line)
        if m:
            di += 1
            deal = {"round": int(m.group(1)), "dealer": int(m.group(2)), "hands": [None] * 4, "tricks": []}
            deal["calls"] = [None] * 4
            deal["redeal"] = None
            d["deals"].append(deal)
            ln.lines[("deal", di)] = no
            continue
        m = _FIELD_RE.match(line)
        if m and m.group(1).lower() == "end":
            if d["end_after_deals"] is not None:
                raise HistoryError("the match is ended twice", no)
            d["end_after_deals"] = di + 1
            ln.lines[("end",)] = no
            continue
        if m and m.group(1).lower() == "places":
            d["places"] = [_int(x, "a place", no) for x in m.group(2).split()]
            ln.lines[("places",)] = no
            continue
        if deal is None:
            raise HistoryError(f"expected a tag or 'Round N, dealer D', not {line!r}", no)
        hm = _HAND_RE.match(line)
        if hm:
            seat = _int(hm.group(1), "a seat", no)
            if not 0 <= seat <= 3:
                raise HistoryError(f"seats are 0..3, not {seat}", no)
            if deal["hands"][seat] is not None:
                raise HistoryError(f"hand {seat} given twice", no)
            deal["hands"][seat] = hm.group(2).split()
            ln.lines[("deal", di, "hands", seat)] = no
            continue
        tm = _TRICK_RE.match(line)
        if tm:
            n = int(tm.group(1))
            if n != len(deal["tricks"]) + 1:
                raise HistoryError(f"expected trick {len(deal['tricks']) + 1}, not trick {n}", no)
            deal["tricks"].append(
                {
                    "leader": int(tm.group(2)),
                    "cards": tm.group(3).split(),
                    "winner": None if tm.group(4) is None else int(tm.group(4)),
                }
            )
            ln.lines[("deal", di, "trick", n - 1)] = no
            continue
        if m:
            key, value = m.group(1).lower(), m.group(2).strip()
            ln.lines[("deal", di, key)] = no
            if key == "redeal":
                deal["redeal"] = value or "redeal"
            elif key == "calls":
                parts = value.split()
                if len(parts) != 4:
                    raise HistoryError(f"four calls, one per seat (- for none yet), not {len(parts)}", no)
                deal["calls"] = [None if p == "-" else _int(p, "a call", no) for p in parts]
            elif key == "tricks":
                deal["tricks_won"] = [_int(x, "a trick count", no) for x in value.split()]
            else:  # points, totals
                deal[key] = value.split()
            continue
        raise HistoryError(f"cannot read {line!r}", no)
    d["tags"] = {k: v for k, v in tags.items() if k not in _KNOWN_TAGS}
    preset = tags.get("Ruleset", "standard")
    d["ruleset"] = {
        "preset": preset,
        "changes": _parse_changes(tags.get("Changes", ""), ln.lines.get(("Changes",), 0)),
    }
    if "Seed" in tags:
        d["seed"] = _int(tags["Seed"], "the seed", ln.lines[("Seed",)])
    if "Dealer" in tags:
        d["dealer"] = _int(tags["Dealer"], "the dealer", ln.lines[("Dealer",)])
    if "Players" in tags:
        d["players"] = _split_players(tags["Players"])
    if "Status" in tags:
        d["status"] = tags["Status"]
    if "Result" in tags and tags["Result"].strip() != "*":
        d["result"] = [_int(x, "a place", ln.lines[("Result",)]) for x in tags["Result"].split()]
    for key in ("Ruleset", "Changes"):
        if (key,) in ln.lines:
            ln.lines[("ruleset",)] = ln.lines[(key,)]
    for key, dst in (("Seed", "seed"), ("Dealer", "dealer"), ("Players", "players"), ("Status", "status")):
        if (key,) in ln.lines:
            ln.lines[(dst,)] = ln.lines[(key,)]
    return d, ln


def _card(text: Any, ln: _Lines, key: tuple[Any, ...]) -> Card:
    if not isinstance(text, str):
        raise ln.error(key, f"a card is text like 'AS', not {text!r}")
    try:
        return Card.parse(text)
    except ValueError as e:
        raise ln.error(key, str(e)) from None


def _decimals(values: Any, ln: _Lines, key: tuple[Any, ...], what: str) -> list[Decimal]:
    if not isinstance(values, list) or len(values) != 4:
        raise ln.error(key, f"{what}: four values, one per seat")
    try:
        out = [Decimal(str(v)) for v in values]
    except InvalidOperation:
        raise ln.error(key, f"{what}: not numbers: {values!r}") from None
    if not all(d.is_finite() for d in out):  # ("NaN", "sNaN", "Infinity": no score is one)
        raise ln.error(key, f"{what}: not numbers: {values!r}")
    return out


def _replay(d: dict[str, Any], ln: _Lines, holder: list[Match]) -> Iterator[Step]:
    """Replay a history in its JSON form; yield after each deal and every action.
    The match is put in ``holder`` as soon as it exists."""
    if not isinstance(d, dict):
        raise HistoryError(f"a history is an object, not {type(d).__name__}")
    if d.get("format", FORMAT) != FORMAT:
        raise HistoryError(f"not a callbreak history (format {d.get('format')!r})")
    if "format" not in d and "deals" not in d:  # another program's JSON, or an empty object
        raise HistoryError(f"not a callbreak history: no format and no deals (keys: {', '.join(sorted(d)) or 'none'})")
    version = d.get("version", VERSION)
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= VERSION:
        raise HistoryError(f"history version {version!r}: this program reads version {VERSION}")
    rs = d.get("ruleset", {"preset": "standard", "changes": {}})
    try:
        if not isinstance(rs, dict):
            raise ValueError("the ruleset is an object {preset, changes}")
        changes = rs.get("changes") or {}
        if not isinstance(changes, dict):
            raise ValueError("ruleset changes are an object of fields")
        rules = Ruleset.preset(rs.get("preset", "standard"), **changes)
    except (ValueError, TypeError) as e:
        raise ln.error(("ruleset",), str(e)) from None
    seed = d.get("seed", 0)
    dealer = d.get("dealer")
    players = d.get("players")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ln.error(("seed",), f"the seed is a whole number, not {seed!r}")
    if dealer is not None and (not isinstance(dealer, int) or not 0 <= dealer <= 3):
        raise ln.error(("dealer",), f"the dealer is a seat 0..3, not {dealer!r}")
    if players is not None and (
        not isinstance(players, list) or len(players) != 4 or not all(isinstance(p, str) for p in players)
    ):
        raise ln.error(("players",), f"four player names, not {players!r}")
    deals = d.get("deals", [])
    if not isinstance(deals, list):
        raise HistoryError("deals is a list")
    if not deals:  # (a match is dealt as it starts: every history has its first deal)
        raise HistoryError("the history has no deal: a match's history lists at least its first deal")
    dealt: list[list[list[Card]]] = []
    for i, entry in enumerate(deals):
        if not isinstance(entry, dict):
            raise ln.error(("deal", i), "a deal is an object")
        hands = entry.get("hands")
        if not isinstance(hands, list) or len(hands) != 4:
            raise ln.error(("deal", i), "a deal lists four hands")
        parsed: list[list[Card]] = []
        for seat, h in enumerate(hands):
            if h is None:
                raise ln.error(("deal", i), f"hand {seat} is missing")
            if not isinstance(h, list):
                raise ln.error(("deal", i, "hands", seat), "a hand is a list of cards")
            hkey = ("deal", i, "hands", seat)
            cards = [_card(c, ln, hkey) for c in h]
            if len(set(cards)) != len(cards):
                dup = next(c for c in cards if cards.count(c) > 1)
                raise ln.error(hkey, f"seat {seat}'s hand repeats {dup}")
            if len(cards) != 13:
                raise ln.error(hkey, f"seat {seat} holds {len(cards)} cards; each seat is dealt 13")
            for other, earlier in enumerate(parsed):
                both = set(cards) & set(earlier)
                if both:
                    raise ln.error(hkey, f"{min(both)} is dealt to seats {other} and {seat}")
            parsed.append(cards)
        dealt.append(parsed)
    try:
        m = Match(rules, seed, dealer=dealer, players=players, dealt=dealt)
    except ValueError as e:
        raise ln.error(("players",), str(e)) from None
    holder.append(m)
    tags = d.get("tags") or {}
    if not isinstance(tags, dict):
        raise ln.error(("tags",), "tags are an object of names and texts")
    m.tags = {str(k): str(v) for k, v in tags.items()}
    end_after = d.get("end_after_deals")
    if end_after is not None and (
        not isinstance(end_after, int) or isinstance(end_after, bool) or not 0 <= end_after <= len(deals)
    ):
        raise ln.error(("end",), f"the end comes after 0..{len(deals)} deals, not {end_after!r}")

    def do_end(key: tuple[Any, ...]) -> None:
        try:
            m.end()
        except IllegalAction as e:
            raise ln.error(key, str(e)) from None

    def step(line_key: tuple[Any, ...], where: str, action: int | Card | None) -> Step:
        rnd = m.deals[i]
        number = len([r for r in m.deals[:i] if r.phase == OVER]) + 1
        return Step(ln.lines.get(line_key), where, action, rnd.copy(), number, tuple(m.totals))

    if end_after == 0:
        do_end(("end",))
    for i, entry in enumerate(deals):
        key = ("deal", i)
        if i >= len(m.deals):
            raise ln.error(key, "the match is over: no further deal")
        rnd = m.deals[i]
        if entry.get("dealer") != rnd.dealer:
            raise ln.error(key, f"the dealer of this deal is seat {rnd.dealer}, not {entry.get('dealer')!r}")
        expect_round = len([r for r in m.deals[:i] if r.phase == OVER]) + 1
        if entry.get("round", expect_round) != expect_round:
            raise ln.error(key, f"this is round {expect_round}, not {entry.get('round')!r}")
        yield step(key, f"round {expect_round}: the deal", None)
        calls = entry.get("calls") or [None] * 4
        if not isinstance(calls, list) or len(calls) != 4:
            raise ln.error((*key, "calls"), "four calls, one per seat")
        if rnd.phase == REDEAL and len(rnd) == 0:
            if entry.get("redeal") is None:
                raise ln.error(key, "the rules throw this deal in: it needs a 'Redeal' line")
            if any(c is not None for c in calls):
                raise ln.error((*key, "calls"), "a deal thrown in has no calls")
            continue
        if all(c is None for c in calls) and entry.get("redeal") is not None:
            raise ln.error((*key, "redeal"), "the rules do not throw this deal in")
        stopped = False
        for k in range(4):
            seat = (rnd.dealer + 1 + k) % 4
            c = calls[seat]
            if c is None:
                stopped = True
                continue
            if stopped:
                raise ln.error((*key, "calls"), f"seat {seat} calls before seat {rnd.to_act} has called")
            if not isinstance(c, int) or isinstance(c, bool):
                raise ln.error((*key, "calls"), f"a call is a whole number, not {c!r}")
            try:
                rnd.call(c)
            except IllegalAction as e:
                raise ln.error((*key, "calls"), str(e)) from None
            yield step((*key, "calls"), f"round {expect_round}: seat {seat} calls {c}", c)
        if rnd.phase == REDEAL:
            if entry.get("redeal") is None:
                raise ln.error((*key, "calls"), "the calls fall short: the deal needs a 'Redeal' line")
            if entry.get("tricks"):
                raise ln.error((*key, "redeal"), "a deal thrown in has no tricks")
            continue
        if entry.get("redeal") is not None:
            raise ln.error((*key, "redeal"), "the rules do not throw this deal in")
        tricks = entry.get("tricks") or []
        if not isinstance(tricks, list):
            raise ln.error(key, "tricks is a list")
        for n, t in enumerate(tricks):
            tkey = (*key, "trick", n)
            if not isinstance(t, dict) or not isinstance(t.get("cards"), list):
                raise ln.error(tkey, "a trick has a leader and a list of cards")
            if rnd.phase != "playing":
                raise ln.error(tkey, f"no card now: the round is in phase {rnd.phase!r}")
            if t.get("leader") != rnd.leader:
                raise ln.error(tkey, f"seat {rnd.leader} leads this trick, not {t.get('leader')!r}")
            cards = t["cards"]
            if len(cards) > 4 or (len(cards) < 4 and n != len(tricks) - 1):
                raise ln.error(tkey, f"a trick has four cards, not {len(cards)}")
            winner = None
            for c in cards:
                card = _card(c, ln, tkey)
                who = rnd.to_act
                try:
                    winner = rnd.play(card).winner
                except IllegalAction as e:
                    raise ln.error(tkey, str(e)) from None
                yield step(tkey, f"round {expect_round}: seat {who} plays {card}", card)
            if t.get("winner") is not None and t.get("winner") != winner:
                raise ln.error(tkey, f"seat {winner} wins this trick, not {t.get('winner')!r}")
        if rnd.phase == OVER:
            won = entry.get("tricks_won")
            if won is not None and won != rnd.tricks_won:
                raise ln.error((*key, "tricks"), f"the tricks won are {rnd.tricks_won}, not {won}")
            if entry.get("points") is not None:
                pts = _decimals(entry["points"], ln, (*key, "points"), "points")
                if pts != rnd.points():
                    raise ln.error(
                        (*key, "points"), f"the points are {_pts(rnd.points())}, not {entry['points']}"
                    )
            if entry.get("totals") is not None:
                tot = _decimals(entry["totals"], ln, (*key, "totals"), "totals")
                done = [r for r in m.deals[: i + 1] if r.phase == OVER]
                want = [sum((r.points()[s] for r in done), Decimal(0)) for s in range(4)]
                if tot != want:
                    raise ln.error((*key, "totals"), f"the totals are {_pts(want)}, not {entry['totals']}")
        elif entry.get("points") is not None or entry.get("tricks_won") is not None:
            raise ln.error((*key, "points"), "points are known once the round is over")
        if end_after == i + 1:
            do_end(("end",))
    status = d.get("status")
    if status is not None and status != ("over" if m.is_over else "playing"):
        raise ln.error(
            ("status",), f"the replayed match is {'over' if m.is_over else 'still playing'}, not {status!r}"
        )
    if d.get("totals") is not None:
        tot = _decimals(d["totals"], ln, ("totals",), "totals")
        if tot != [Decimal(t) for t in m.totals]:
            raise ln.error(("totals",), f"the match's totals are {_pts(m.totals)}, not {d['totals']}")
    for pkey, lkey in (("places", ("places",)), ("result", ("Result",))):
        places = d.get(pkey)
        if places is not None and (not m.is_over or places != m.places):
            raise ln.error(lkey, f"the places are {m.places if m.is_over else 'not known yet'}, not {places}")


def replay_states(history: str | dict[str, Any]) -> Iterator[Step]:
    """Every intermediate state of a history (text, JSON text or a JSON dict):
    one `Step` when each deal is dealt and after every call and card.

    >>> m = Match(seed=2, dealer=0)
    >>> for n in (1, 2, 3, 4): _ = m.call(n)
    >>> steps = list(replay_states(dumps(m)))
    >>> [s.action for s in steps], steps[-1].line, steps[-1].round.calls
    ([None, 1, 2, 3, 4], 13, [4, 1, 2, 3])
    """
    d, ln = _read(history)
    yield from _replay(d, ln, [])


def _read(history: str | dict[str, Any]) -> tuple[dict[str, Any], _Lines]:
    if isinstance(history, dict):
        return history, _Lines()
    if isinstance(history, str) and history.lstrip().startswith("{"):
        try:
            return json.loads(history), _Lines()
        except ValueError as e:
            raise HistoryError(f"not valid JSON: {e}") from None
    if isinstance(history, str) and not history.strip():
        raise HistoryError("the history is empty")
    return _parse_text(history)


def _load(history: str | dict[str, Any]) -> Match:
    d, ln = _read(history)
    holder: list[Match] = []
    for _ in _replay(d, ln, holder):
        pass
    try:
        auto_decisions(holder[0])
    except HistoryError as e:
        raise HistoryError(str(e), ln.lines.get((AUTO_TAG,))) from None
    return holder[0]


def loads(text: str) -> Match:
    """Read a text history (see the module docstring) and replay it; `HistoryError`
    names the line and the reason when it cannot be read or an action is illegal.

    >>> text = "\\n".join(['[Dealer "3"]', "Round 1, dealer 3"]
    ...     + [f"Hand {i}: " + " ".join(r + s for r in "23456789TJQKA") for i, s in enumerate("SHDC")]
    ...     + ["Calls: 13 1 1 1", "Trick 1: 0 leads AS 2H 2D 2C, 0 wins"])
    >>> m = loads(text)
    >>> m.round.tricks_won, m.round.to_act
    ([1, 0, 0, 0], 0)
    >>> loads(text + "\\nTrick 2: 0 leads KS 3H 3D 3C, 1 wins")
    Traceback (most recent call last):
    ...
    callbreak.errors.HistoryError: line 9: seat 0 wins this trick, not 1
    >>> loads(text + "\\nTrick 2: 0 leads KS 3H 3D 3S")
    Traceback (most recent call last):
    ...
    callbreak.errors.HistoryError: line 9: seat 3 does not hold 3S
    """
    if not isinstance(text, str):
        raise HistoryError(f"a history is text, not {type(text).__name__}")
    return _load(text)


def from_dict(data: dict[str, Any]) -> Match:
    """Replay the JSON form (a dict, see `to_dict`).

    >>> from_dict(to_dict(Match(seed=4))).seed
    4
    """
    return _load(data)


def from_json(text: str) -> Match:
    """Replay the JSON form given as text.

    >>> from_json('{"seed": 4, "deals": "x"}')
    Traceback (most recent call last):
    ...
    callbreak.errors.HistoryError: deals is a list
    >>> from_json('{"matches": 4, "bots": ["easy"]}')
    Traceback (most recent call last):
    ...
    callbreak.errors.HistoryError: not a callbreak history: no format and no deals (keys: bots, matches)
    >>> from_json('{"format": "callbreak-history", "version": 99}')
    Traceback (most recent call last):
    ...
    callbreak.errors.HistoryError: history version 99: this program reads version 1
    >>> from_json('{"format": "callbreak-history", "version": 1}')
    Traceback (most recent call last):
    ...
    callbreak.errors.HistoryError: the history has no deal: a match's history lists at least its first deal
    """
    try:
        data = json.loads(text)
    except ValueError as e:
        raise HistoryError(f"not valid JSON: {e}") from None
    return _load(data)
