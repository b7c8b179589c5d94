"""Write the perft files: counts of legal card-play sequences to depth N.

Each ``*.txt`` file here fixes a ruleset, a seeded deal, the calls and a prefix of
plays (a seeded random walk), then pins the number of distinct legal play
sequences of 1..N further cards.  The counts come from `perft`, which walks the
tree with ``_do_play``/``pop`` on one Round; `tests/core/test_perft.py` recomputes
them and checks a few against the naive rules in ``tests/core/naive.py``.

Run ``python -m tests.core.perft.generate`` from the repository root to rewrite them
(only when the rules themselves change on purpose).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from callbreak import Card, Round, Ruleset

HERE = Path(__file__).parent


@dataclass
class Case:
    name: str
    preset: str
    changes: dict[str, Any]
    seed: int
    dealer: int
    prefix: int  # cards played (seeded random walk) before counting
    depth: int
    calls: list[int] = field(default_factory=lambda: [3, 3, 3, 3])
    counts: list[int] = field(default_factory=list)
    prefix_cards: list[str] = field(default_factory=list)


CASES = [
    Case("standard_start", "standard", {}, 1, 0, 0, 9),
    Case("standard_mid", "standard", {}, 2, 1, 17, 12),
    Case("pagat_start", "pagat", {}, 3, 2, 0, 9),
    Case("pagat_mid", "pagat", {}, 4, 3, 22, 11),
    Case("bhoos_mid", "bhoos", {}, 5, 0, 13, 12),
    Case("after_broken", "standard", {"trump_lead": "after_broken"}, 6, 1, 9, 12),
    Case("not_first_trick_hearts", "standard", {"trump_lead": "not_first_trick", "trump": "H"}, 7, 2, 0, 10),
    Case("must_undertrump", "standard", {"must_undertrump": True}, 8, 3, 21, 12),
    Case("no_head", "standard", {"must_head": False, "must_undertrump": True}, 9, 0, 5, 10),
    Case("endgame", "standard", {}, 10, 1, 36, 16),
]


def perft(rnd: Round, depth: int) -> int:
    """Legal play sequences of ``depth`` cards from ``rnd`` (fewer if the round ends)."""
    if depth == 0 or rnd.phase != "playing":
        return 1
    m = rnd.legal_mask()
    seat: int = rnd.to_act  # type: ignore[assignment]
    if depth == 1:
        return m.bit_count()
    total = 0
    while m:
        low = m & -m
        m ^= low
        rnd._do_play(seat, low.bit_length() - 1)
        total += perft(rnd, depth - 1)
        rnd.pop()
    return total


def start(case: Case) -> Round:
    rules = Ruleset.preset(case.preset, **case.changes)
    rnd = Round(rules, Round.deal_hands(case.seed, case.dealer), case.dealer)
    for k in range(4):
        rnd.call(case.calls[(case.dealer + 1 + k) % 4])
    if case.prefix_cards:
        for c in case.prefix_cards:
            rnd.play(c)
    else:
        rng = random.Random(case.seed)
        for _ in range(case.prefix):
            rnd.play(rng.choice(rnd.legal_cards()))
    return rnd


def write(case: Case) -> None:
    rnd = start(case)
    played = [str(a.card) for a in rnd.actions if hasattr(a, "card")]
    lines = [
        f"# perft: legal card-play sequences, {case.name}",
        f"preset: {case.preset}",
        f"changes: {json.dumps(case.changes, sort_keys=True)}",
        f"seed: {case.seed}",
        f"dealer: {case.dealer}",
        "calls: " + " ".join(map(str, case.calls)),
        "prefix: " + " ".join(played),
    ]
    for d in range(1, case.depth + 1):
        lines.append(f"depth {d}: {perft(rnd, d)}")
    (HERE / f"{case.name}.txt").write_text("\n".join(lines) + "\n")


def read(path: Path) -> Case:
    fields: dict[str, str] = {}
    counts: list[int] = []
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(":")
        if key.startswith("depth "):
            assert int(key.split()[1]) == len(counts) + 1
            counts.append(int(value))
        else:
            fields[key.strip()] = value.strip()
    prefix = fields["prefix"].split()
    return Case(
        path.stem,
        fields["preset"],
        json.loads(fields["changes"]),
        int(fields["seed"]),
        int(fields["dealer"]),
        len(prefix),
        len(counts),
        [int(x) for x in fields["calls"].split()],
        counts,
        [str(Card.parse(c)) for c in prefix],
    )


if __name__ == "__main__":
    for case in CASES:
        write(case)
        print(case.name, (HERE / f"{case.name}.txt").read_text().splitlines()[-1])
