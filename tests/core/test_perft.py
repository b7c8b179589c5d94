"""Perft: recount the legal play sequences pinned in tests/core/perft/*.txt."""

from __future__ import annotations

from pathlib import Path

import pytest

from callbreak import Ruleset

from .naive import NaiveRound, naive_perft
from .perft.generate import CASES, perft, read, start

FILES = sorted((Path(__file__).parent / "perft").glob("*.txt"))


def test_every_case_has_a_file() -> None:
    assert {f.stem for f in FILES} == {c.name for c in CASES}
    presets = {read(f).preset for f in FILES}
    assert {"standard", "pagat", "bhoos"} <= presets
    changes = [read(f).changes for f in FILES]
    assert any(c.get("trump_lead") == "after_broken" for c in changes)
    assert any(c.get("must_undertrump") for c in changes)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_perft(path: Path) -> None:
    case = read(path)
    rnd = start(case)
    key = rnd.state_key()
    got = [perft(rnd, d) for d in range(1, case.depth + 1)]
    assert got == case.counts
    assert rnd.state_key() == key  # push/pop left the round as it was


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_perft_naive(path: Path) -> None:
    """The naive, copy-everything reading of the rules gives the same counts."""
    case = read(path)
    rnd = start(case)
    rules = Ruleset.preset(case.preset, **case.changes)
    naive = NaiveRound(rules, rnd.hands, rnd.leader, list(rnd.trick), len(rnd.tricks))
    naive.trump_played = any(c.suit == rules.trump for t in rnd.tricks for c in t.cards)
    naive.won = rnd.tricks_won
    for d, want in enumerate(case.counts, 1):
        if want > 20000:
            break
        assert naive_perft(naive, d) == want, (case.name, d)
