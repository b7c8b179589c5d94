"""The compiled kernel agrees exactly with the engine, and is fast."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np

from callbreak import Round
from callbreak.bots import kernel
from tests.bots.helpers import called_round, random_rules, trick_array


def test_legal_moves_and_winners_match_the_engine() -> None:
    rng = random.Random(5)
    checked = 0
    tricks = 0
    for _ in range(150):
        rules, rnd = called_round(rng)
        P = kernel.rules_array(rules)
        while rnd.phase == "playing":
            seat = rnd.to_act
            assert seat is not None
            trick = trick_array(rnd.trick)
            hand = rnd.hand_masks[seat]
            got = kernel.legal_mask(hand, trick, len(rnd.trick), P, rnd.trick_number, rnd.played_mask)
            assert got == rnd.legal_mask(), (rules.to_dict(), rnd)
            checked += 1
            act = rnd.play(rng.choice(rnd.legal_cards()))
            if act.winner is not None:
                last = rnd.tricks[-1]
                full = np.array([int(c) for c in last.cards], dtype=np.int64)
                assert (last.leader + kernel.trick_winner(full, rules.trump_index)) % 4 == act.winner
                tricks += 1
    assert checked == 150 * 52 and tricks == 150 * 13


def test_random_playouts_take_all_tricks() -> None:
    rules = random_rules(random.Random(1))
    P = kernel.rules_array(rules)
    hands = np.array(Round.deal_hands(3), dtype=object)
    masks = np.array([sum(1 << c for c in h) for h in hands], dtype=np.int64)
    n = 10_000
    won = kernel.random_playouts(masks, P, n, 2)
    assert int(won.sum()) == 13 * n
    # their speed (400,000 a second on an idle core) is benchmarks/speed.py's to measure, not a test's


def test_kernel_compiles_on_a_fresh_cache_and_plays_a_round(tmp_path: object) -> None:
    """A fresh numba cache: the kernel compiles and `hard` plays a round (how long the compile
    takes is benchmarks/first_use.py's figure: a time is not a test's to assert)."""
    code = (
        "import numpy as np;"
        "from callbreak import Ruleset; from callbreak.bots import kernel;"
        "P=kernel.rules_array(Ruleset()); m=np.array([(1<<13)-1<<13*i for i in range(4)],dtype=np.int64);"
        "kernel.random_playouts(m,P,5,1);"
        "from callbreak.bots.hard import HardBot; from callbreak import Match;"
        "mt=Match(seed=1); b=HardBot(seed=1, iterations=20)\n"
        "while mt.round_number == 1: mt.act(b.act(mt.view(mt.to_act)))\n"
        "print(mt.round_number, len(mt.round_points))"
    )
    env = dict(os.environ, CALLBREAK_NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2", "1"]  # the first round played to its end
    assert any(Path(str(tmp_path)).rglob("*.nbi"))  # compiled into the fresh cache


def test_the_kernels_score_and_match_value_are_the_engines() -> None:
    """`kernel.scoring._score` is a second copy of `callbreak.scoring.score_tenths`,
    and `_value`'s chance of finishing first is calling's normal model."""
    from callbreak.bots.calling import _phi
    from callbreak.bots.kernel import scoring
    from callbreak.scoring import score_tenths

    rng = random.Random(3)
    checked = 0
    for _ in range(60):
        rules = random_rules(rng)
        P = kernel.rules_array(rules)
        for call in rules.legal_call_range():
            for tricks in range(14):
                assert scoring._score(call, tricks, P) == score_tenths(call, tricks, rules), rules.to_dict()
                checked += 1
        calls = np.array([rng.choice(list(rules.legal_call_range())) for _ in range(4)], dtype=np.int64)
        won = np.array([rng.randrange(14) for _ in range(4)], dtype=np.int64)
        totals = np.array([rng.uniform(-20, 40) for _ in range(4)])
        sd = rng.uniform(1.0, 9.0)
        pts = [totals[s] + score_tenths(int(calls[s]), int(won[s]), rules) / 10 for s in range(4)]
        for me in range(4):
            want = 1.0
            for s in range(4):
                if s != me:
                    want *= _phi((pts[me] - pts[s]) / sd)
            want += 0.004 * score_tenths(int(calls[me]), int(won[me]), rules) / 10
            assert abs(scoring._value(me, won, calls, totals, sd, P) - want) < 1e-9
    assert checked > 60 * 14
