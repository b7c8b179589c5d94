"""The observation layout: the documented offsets are the code's, and the blocks hold what they say."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from callbreak import Match, Ruleset
from callbreak.env import observation as ob

ROOT = Path(__file__).resolve().parents[2]


def size_of(text: str) -> int:
    """``"4x52"`` -> 208, ``"52"`` -> 52."""
    out = 1
    for part in text.split("x"):
        out *= int(part)
    return out


def test_the_documented_layout_is_the_codes() -> None:
    rows = re.findall(r"^\| (\w+) \| (\d+) \| ([\d×]+) \|", (ROOT / "docs" / "rl.md").read_text(), re.M)
    sizes = {"4×52": 208, "4×15": 60}
    assert [(n, int(o), sizes.get(s) or int(s)) for n, o, s in rows] == [
        (n, ob.OFFSETS[n], size) for n, size in ob.BLOCKS
    ]
    doc = ob.__doc__ or ""
    table = re.findall(r"^(\w+)\s+(\d+)\s+(\d+x\d+|\d+)\s", doc, re.M)
    assert [(n, int(o), size_of(s)) for n, o, s in table] == [
        (n, ob.OFFSETS[n], size) for n, size in ob.BLOCKS
    ]
    assert ob.SIZE == 556 and ob.N_ACTIONS == 66


def test_the_blocks_hold_the_view_by_relative_seat() -> None:
    m = Match(Ruleset(trump="H"), seed=21)
    for _ in range(4):
        m.call(m.round.legal_calls()[2])  # everyone calls 3
    for _ in range(6):  # a whole trick and two cards of the next
        m.play(m.round.legal_cards()[0])
    rnd = m.round
    me = 2
    o = ob.observe(m.view(me))
    off = ob.OFFSETS

    def block(name: str, rel: int, size: int) -> np.ndarray:
        return o[off[name] + size * rel : off[name] + size * (rel + 1)]

    assert sorted(np.flatnonzero(o[:52])) == sorted(int(c) for c in rnd.hands[me])
    first = rnd.tricks[0]
    for i, c in enumerate(first.cards):
        seat = (first.leader + i) % 4
        assert block("played", (seat - me) % 4, 52)[c] == 1
    for seat, c in rnd.trick_seats:
        assert block("trick", (seat - me) % 4, 52)[c] == 1 and block("played", (seat - me) % 4, 52)[c] == 1
    assert int(o[off["trick"] : off["trick"] + 208].sum()) == 2
    assert int(o[off["played"] : off["played"] + 208].sum()) == 6
    assert all(block("calls", r, 15)[3] == 1 for r in range(4))
    assert list(o[off["tricks_won"] : off["tricks_won"] + 4]) == [
        rnd.tricks_won[(me + r) % 4] for r in range(4)
    ]
    assert o[off["to_act"] + (rnd.to_act - me) % 4] == 1
    assert o[off["leader"] + (rnd.leader - me) % 4] == 1
    assert o[off["dealer"] + (rnd.dealer - me) % 4] == 1
    assert list(o[off["trump"] : off["trump"] + 4]) == [0, 1, 0, 0]
    assert list(o[off["phase"] : off["phase"] + 2]) == [0, 1] and o[off["round"]] == 1
    assert np.all(o >= ob.LOW) and np.all(o <= ob.HIGH)
