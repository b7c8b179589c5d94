"""Engine speed: random full rounds per second (deal, four calls, 52 plays, scoring).

    python benchmarks/engine.py [--seconds 3] [--rules standard]

Measured in one process on one core, side by side, in CPU time of this process
(``time.process_time``, so other jobs on a shared machine disturb it little):

* ``bare loop``: a baseline with no rules at all: shuffle, deal four lists,
  four random calls, 52 random picks from the hand to act, sum a number;
* ``public API``: ``Round(...)``, ``legal_calls()``/``call()``,
  ``legal_cards()``/``play()`` with a random legal choice, ``points()``;
* ``fast path``: hands as masks, ``legal_mask()``, ``_do_call``/``_do_play``,
  ``points_tenths()``: what a search uses;
* ``Round.playout``: the same random round in the engine's own tight loop
  (a bot's rollouts);

then the cost of ``Round.copy()`` and of one ``play`` + ``pop`` pair.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from callbreak import Round, Ruleset
from callbreak.cards import CARDS


def bare_loop(rng: random.Random, rules: Ruleset) -> int:
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [deck[0:13], deck[13:26], deck[26:39], deck[39:52]]
    total = 0
    for _ in range(4):
        total += rng.choice((1, 2, 3, 4))
    seat = rng.randrange(4)
    for _ in range(52):
        h = hands[seat]
        total += h.pop(rng.randrange(len(h)))
        seat = (seat + 1) & 3
    return total


def public_api(rng: random.Random, rules: Ruleset) -> int:
    rnd = Round(rules, Round.deal_hands(rng, 0), 0)
    choice = rng.choice
    for _ in range(4):
        rnd.call(choice(rnd.legal_calls()))
    for _ in range(52):
        rnd.play(choice(rnd.legal_cards()))
    return len(rnd.points())


def random_masks(rng: random.Random) -> list[int]:
    """A shuffled deal as four 13-card masks (no Card objects)."""
    deck = list(range(52))
    rng.shuffle(deck)
    masks = [0, 0, 0, 0]
    for i, c in enumerate(deck):
        masks[i & 3] |= 1 << c
    return masks


def fast_path(rng: random.Random, rules: Ruleset) -> int:
    rnd = Round(rules, random_masks(rng), 0)
    lo, hi = rules.min_call, rules.max_call
    randrange = rng.randrange
    for seat in (1, 2, 3, 0):
        rnd._do_call(seat, randrange(lo, hi + 1))
    for _ in range(52):
        m = rnd.legal_mask()
        k = randrange(m.bit_count())
        for _ in range(k):
            m &= m - 1
        rnd._do_play(rnd._to_act, (m & -m).bit_length() - 1)  # type: ignore[arg-type]
    return len(rnd.points_tenths())


def playout(rng: random.Random, rules: Ruleset) -> int:
    rnd = Round(rules, random_masks(rng), 0)
    rnd.playout(rng)
    return len(rnd.points_tenths())


def rate(fn: Callable[[random.Random, Ruleset], int], rules: Ruleset, seconds: float) -> float:
    rng = random.Random(1)
    n = 0
    t0 = time.process_time()
    deadline = t0 + seconds
    while True:
        for _ in range(100):
            fn(rng, rules)
        n += 100
        now = time.process_time()
        if now >= deadline:
            return n / (now - t0)


def per_op(setup: Callable[[], Round], op: Callable[[Round], object], seconds: float) -> float:
    """Microseconds per call of ``op``."""
    rnd = setup()
    n = 0
    t0 = time.process_time()
    deadline = t0 + seconds
    while True:
        for _ in range(1000):
            op(rnd)
        n += 1000
        now = time.process_time()
        if now >= deadline:
            return (now - t0) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement (default 3)")
    ap.add_argument("--rules", default="standard", help="ruleset preset (default standard)")
    args = ap.parse_args()
    rules = Ruleset.preset(args.rules)

    rows = [
        ("bare loop (no rules)", rate(bare_loop, rules, args.seconds)),
        ("public API", rate(public_api, rules, args.seconds)),
        ("fast path (masks)", rate(fast_path, rules, args.seconds)),
        ("Round.playout (tight loop)", rate(playout, rules, args.seconds)),
    ]
    base = rows[0][1]
    print(f"random full rounds per second, one core, rules={args.rules}, {args.seconds:g} s each")
    print(f"{'path':<30}{'rounds/s':>12}{'vs bare loop':>15}")
    for name, r in rows:
        print(f"{name:<30}{r:>12,.0f}{r / base:>14.2f}x")

    def mid_round() -> Round:
        rnd = Round(rules, Round.deal_hands(3, 0), 0)
        for _ in range(4):
            rnd.call(3)
        for _ in range(18):
            rnd.play(rnd.legal_cards()[0])
        return rnd

    def play_pop(rnd: Round) -> None:
        rnd._do_play(rnd._to_act, (rnd.legal_mask() & -rnd.legal_mask()).bit_length() - 1)  # type: ignore[arg-type]
        rnd.pop()

    def play_pop_public(rnd: Round) -> None:
        rnd.play(rnd.legal_cards()[0])
        rnd.pop()

    print()
    print(f"{'operation (mid-round)':<36}{'µs':>8}")
    print(f"{'Round.copy()':<36}{per_op(mid_round, Round.copy, args.seconds / 3):>8.2f}")
    print(f"{'_do_play + pop()':<36}{per_op(mid_round, play_pop, args.seconds / 3):>8.2f}")
    print(
        f"{'play(legal_cards()[0]) + pop()':<36}{per_op(mid_round, play_pop_public, args.seconds / 3):>8.2f}"
    )
    assert CARDS  # the deck is importable and built


if __name__ == "__main__":
    main()
