"""The sparring pool: every level plays legally under random rules, a seed replays
its choices, and each plays in the style it is named for."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from callbreak import Card, Match, Ruleset
from callbreak.bots import Bot, make_bot
from callbreak.bots.calling import best_call, trick_distribution
from callbreak.bots.ismcts import IsmctsBot
from callbreak.bots.pimc import PimcBot
from callbreak.bots.sparring import HELD_OUT, LEVELS
from callbreak.round import SeatView
from tests.bots.helpers import random_rules

QUICK = {"spar-ismcts": lambda s: IsmctsBot(s, iterations=40), "spar-pimc": lambda s: PimcBot(s, deals=6)}


def bot(level: str, seed: int) -> Bot:
    factory = QUICK.get(level)
    return factory(seed) if factory else make_bot(level, seed)


def play(bots: Sequence[Bot], rules: Ruleset, seed: int) -> list[int | Card]:
    """A match played to the end; `Match.act` refuses an illegal action."""
    m = Match(rules, seed=seed)
    out: list[int | Card] = []
    while (seat := m.to_act) is not None:
        choice = bots[seat].act(m.view(seat))
        out.append(choice)
        m.act(choice)
    return out


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_each_sparring_level_plays_legally_and_a_seed_replays_it(level: str) -> None:
    rng = random.Random(level)
    for i in range(2):
        rules = random_rules(rng).replace(rounds=1)
        first = play([bot(level, s) for s in range(4)], rules, i)
        assert len(first) >= 56  # four calls and 52 cards
        assert play([bot(level, s) for s in range(4)], rules, i) == first


def test_the_levels_are_known_to_make_bot_and_three_are_held_out() -> None:
    for level in LEVELS:
        assert make_bot(level, 1).name == level
    assert set(HELD_OUT) < set(LEVELS) and len(HELD_OUT) == 3


def winners(v: SeatView, trump: int) -> list[Card]:
    """The legal cards of ``v`` that would win its trick so far (worked out here, not by the bots)."""
    best = max((c for _, c in v.trick), key=lambda c: (c // 13 == trump, c // 13 == v.trick[0][1] // 13, c))
    return [c for c in v.legal_cards if (c // 13 == best // 13 and c > best) or (c // 13 == trump != best // 13)]


def calling_views(seed: int) -> list[object]:
    """The view of each seat's call in a standard round, the calls made by medium."""
    m = Match(Ruleset.preset("standard", rounds=1), seed=seed)
    views = []
    while m.round.phase == "calling":
        seat = m.to_act
        assert seat is not None
        v = m.view(seat)
        views.append(v)
        m.act(make_bot("medium", seat).act(v))
    return views


def test_bold_and_timid_call_one_more_and_one_fewer_than_medium_and_pimc_as_medium() -> None:
    shifted = 0
    for seed in range(6):
        for v in calling_views(seed):
            base = best_call(v, trick_distribution(v))[0]  # type: ignore[arg-type]
            lo, hi = v.legal_calls[0], v.legal_calls[-1]  # type: ignore[attr-defined]
            assert make_bot("spar-bold", 0).act(v) == min(base + 1, hi)  # type: ignore[arg-type]
            assert make_bot("spar-timid", 0).act(v) == max(base - 1, lo)  # type: ignore[arg-type]
            assert make_bot("spar-pimc", 0).act(v) == base  # type: ignore[arg-type]
            shifted += lo < base < hi
    assert shifted > 10


def test_the_noisy_level_strays_from_medium_and_the_counter_wins_when_it_can() -> None:
    rules = Ruleset.preset("standard", rounds=1)
    noisy = play([make_bot("spar-noisy", s) for s in range(4)], rules, 3)
    medium = play([make_bot("medium", s) for s in range(4)], rules, 3)
    assert noisy != medium
    m = Match(rules, seed=4)
    counter = [make_bot("spar-counter", s) for s in range(4)]
    could = won = 0
    while (seat := m.to_act) is not None:
        v = m.view(seat)
        choice = counter[seat].act(v)
        if v.phase == "playing" and v.trick:
            beats = winners(v, rules.trump_index)
            if beats:
                could += 1
                won += choice in beats
        m.act(choice)
    assert could > 5 and won == could


def test_the_simple_level_calls_aces_and_kings_and_plays_the_first_winning_card() -> None:
    rules = Ruleset.preset("standard", rounds=1)
    m = Match(rules, seed=5)
    simple = [make_bot("spar-simple", s) for s in range(4)]
    could = 0
    while (seat := m.to_act) is not None:
        v = m.view(seat)
        choice = simple[seat].act(v)
        if v.phase == "calling":
            lo, hi = v.legal_calls[0], v.legal_calls[-1]
            assert choice == min(max(sum(c.rank_char in "KA" for c in v.hand), lo), hi)
        elif v.trick:
            beats = winners(v, rules.trump_index)
            could += bool(beats)
            assert choice == (beats[0] if beats else v.legal_cards[0])
        else:
            assert choice == v.legal_cards[0]
        m.act(choice)
    assert could > 5


def test_the_sparring_benchmark_keeps_its_matches_and_plays_only_those_it_lacks(tmp_path: Path) -> None:
    """``benchmarks/sparring.py --keep FILE``: a run cut short and started again plays
    only the matches the file lacks, and reports the same line as a run in one go."""
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "sparring.py"
    keep = tmp_path / "kept.jsonl"

    def sparring(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, str(script), "--only", "spar-simple", "--deals", "2", "--jobs", "1", *args]
        return subprocess.run(argv, capture_output=True, text=True, timeout=120)

    def lines(*args: str) -> list[str]:
        """Each bot's line, to the points lost on calls (not the times)."""
        proc = sparring(*args)
        assert proc.returncode == 0, proc.stderr
        return [" ".join(t.split()[:12]) for t in proc.stdout.splitlines() if " v spar-simple " in t]

    def untimed(row: str) -> tuple[str, dict[str, object]]:
        d = json.loads(row)
        return d["key"], {k: v for k, v in d["result"].items() if k not in ("cards", "round_times")}

    (whole,) = lines("--hero", "easy", "--keep", str(keep))
    rows = keep.read_text().splitlines()
    assert len(rows) == 8  # 2 deals, the hero in each of 4 seats
    keep.write_text("\n".join(rows[:4])[:-9])  # cut short after 3 matches, as the 4th was written
    assert lines("--hero", "easy", "--keep", str(keep)) == [whole]
    # the 5 it lacked (the 4th cut off among them), in the same order, with the same results (their times apart)
    assert [untimed(r) for r in keep.read_text().splitlines()] == [untimed(r) for r in rows]
    # a kept match is read, not played again: a win written in for a loss shows in the line
    lost = next(i for i, r in enumerate(rows) if json.loads(r)["result"]["share"] == 0)
    won = json.loads(rows[lost])
    won["result"]["share"] = 1.0
    keep.write_text("\n".join([*rows[:lost], json.dumps(won), *rows[lost + 1 :]]) + "\n")
    (read,) = lines("--hero", "easy", "--keep", str(keep))
    assert read.split()[4] == f"{float(whole.split()[4]) + 12.5:.1f}"
    # the same bot twice (the base and a hero), then another: each match played once, and each
    # line its own bot's (a reviewer's read: the matches after the repeated ones had their results)
    (_, alone) = lines("--hero", "easy", "random")
    assert lines("--base", "easy", "--hero", "easy", "random") == [whole, whole, alone]
    keep.write_text("not json\n")
    proc = sparring("--hero", "easy", "--keep", str(keep))
    assert proc.returncode != 0 and "kept.jsonl:1: not a kept match" in proc.stderr
