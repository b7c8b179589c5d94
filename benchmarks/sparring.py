"""``hard`` against the sparring pool: strength, calls and thinking time, side by side.

Each opponent sits in three seats against one ``hard`` (or ``--hero SPEC``);
each deal is played four times with the hero in each seat (duplicate), so the
cards cancel out.  Per opponent it prints the hero's win share (ties split;
parity 25 %) with a 95 % interval over the deals, points per round (hero and
the others' mean), call accuracy (calls made, mean overtricks, and the points
a round lost against the best call in hindsight: the best score any legal call
would have scored with the tricks the hero took, less what it scored), and the
hero's decision times (p50/p99 per card and per round, one process per core).

    python benchmarks/sparring.py --deals 25 --jobs 2                 # every opponent, 100 matches each
    python benchmarks/sparring.py --only spar-counter medium --deals 100
    python benchmarks/sparring.py --think 0.1,0.3,1.0,1.5 --only medium --deals 20   # strength against time
    python benchmarks/sparring.py --hero hard:infer=1 --base hard --only spar-bold   # paired: same deals, same seat

``--think`` seats ``hard:think=S``: S seconds of one core a round turned into
playout counts (`HardBot.think_for`), so the run is seeded and replays.  With
``--base SPEC`` every match is also played with SPEC in the hero's seat, and the
paired difference (hero less base) is printed with its 95 % interval.  With
``--calls-only`` (heroes that differ from the base only in ``call_*`` settings of
``hard``) each match is played with the base, and at each of its calls a copy of
the base bot with the hero's settings is asked for its call: a match in which no
call differs would replay exactly (the same seed, the same decisions), so it is
played again with the hero only where some call differs; the results are the
same as without it, for a fraction of the work.
Opponents named in ``callbreak.bots.sparring.HELD_OUT`` are marked: they are
kept out of all tuning and looked at last.

``--keep FILE`` writes each match's result to FILE (a JSON line, named by its hero,
opponent, rules, deal seed and seat) as it finishes, and reads the file first: a run cut
short and started again with the same file plays only the matches it lacks, so a line
longer than a session's time is finished over several (the matches are seeded, so a
match played in two runs has the same result; the decision times are of the machine and load
each match was played on, and the file does not say which code played it: keep it to one commit):

    python benchmarks/sparring.py --think 1.0 --only medium --deals 100 --keep think10.jsonl
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from bots_duel import build
from callbreak import Card, Match, Ruleset
from callbreak.bots.sparring import HELD_OUT, LEVELS
from callbreak.scoring import score_tenths

POOL = ["medium", *LEVELS]
# a match to play: hero, opponent, rules, deal seed, the hero's seat, probes (see `play`)
Task = tuple[str, str, str, int, int, tuple[str, ...]]


def settings_of(spec: str) -> dict[str, Any]:
    """The settings of a ``level:key=value,...`` spec (as `bots_duel.build` reads them)."""
    out: dict[str, Any] = {}
    for kv in filter(None, spec.partition(":")[2].split(",")):
        k, _, v = kv.partition("=")
        out[k] = float(v) if "." in v else int(v)
    return out


def call_settings(hero: str, base: str) -> dict[str, Any]:
    """The ``call_*`` settings by which the ``hard`` spec ``hero`` differs from ``base``
    (an error if they differ in anything else)."""
    h, b = settings_of(hero), settings_of(base)
    rest = {k: v for k, v in h.items() if not k.startswith("call_")}
    if (
        hero.partition(":")[0] != "hard"
        or base.partition(":")[0] != "hard"
        or rest != {k: v for k, v in b.items() if not k.startswith("call_")}
        or not set(b) <= set(h)
    ):
        raise ValueError(f"--calls-only: {hero!r} must be {base!r} with only call_ settings changed")
    return {k: v for k, v in h.items() if k.startswith("call_")}


def play(args: Task) -> dict[str, Any]:
    """One match: the hero in ``hero_seat``, the opponent in the others; for each
    spec in ``probes``, whether a copy of the hero with its call settings would
    have called differently at some call of the match (``diverged``)."""
    hero, other, preset, seed, hero_seat, probes = args
    settings = [call_settings(p, hero) for p in probes]
    diverged = [False] * len(probes)
    rules = Ruleset.preset(preset)
    if rules.rounds is None:
        rules = rules.replace(rounds=5)
    bots = [build(hero if s == hero_seat else other, seed * 4 + s) for s in range(4)]
    m = Match(rules, seed=seed, dealer=0)
    cards: list[float] = []
    rounds: list[float] = []
    spent = 0.0
    n_rounds = 0
    while not m.is_over:
        seat = m.to_act
        assert seat is not None
        v = m.view(seat)
        probe_calls: dict[int, int | Card] = {}
        if seat == hero_seat and v.phase == "calling":
            for j, kw in enumerate(settings):
                if not diverged[j]:
                    probe = copy.deepcopy(bots[seat])  # the same state, so the same random draws
                    for k, val in kw.items():
                        if not hasattr(probe, k):
                            raise ValueError(f"hard has no setting {k!r}")
                        setattr(probe, k, val)
                    probe_calls[j] = probe.act(v)
        t0 = time.perf_counter()
        a = bots[seat].act(v)
        dt = time.perf_counter() - t0
        for j, c in probe_calls.items():
            diverged[j] = diverged[j] or c != a
        if seat == hero_seat:
            spent += dt
            if v.phase == "playing" and len(v.legal_cards) > 1:
                cards.append(dt)
        m.act(a)
        if len(m.rounds) != n_rounds:
            n_rounds = len(m.rounds)
            rounds.append(spent)
            spent = 0.0
    top = max(m.totals_tenths)
    winners = [s for s in range(4) if m.totals_tenths[s] == top]
    made = over = 0
    lost = 0.0
    for r in m.rounds:
        call, won = r.calls[hero_seat] or 0, r.tricks_won[hero_seat]
        made += call <= won
        over += max(won - call, 0)
        best = max(score_tenths(c, won, rules) for c in rules.legal_call_range())
        lost += (best - score_tenths(call, won, rules)) / 10
    return {
        "share": 1 / len(winners) if hero_seat in winners else 0.0,
        "points": float(m.totals[hero_seat]),
        "others": sum(float(m.totals[s]) for s in range(4) if s != hero_seat) / 3,
        "rounds": len(m.rounds),
        "made": made,
        "over": over,
        "lost": lost,
        "cards": [round(t, 6) for t in cards],  # to the microsecond: a --keep file's size
        "round_times": [round(t, 6) for t in rounds],
        "diverged": diverged,
    }


def mean_ci(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % interval."""
    n = len(xs)
    mu = sum(xs) / n
    sd = math.sqrt(sum((x - mu) ** 2 for x in xs) / max(n - 1, 1))
    return mu, 1.96 * sd / math.sqrt(n)


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(int(q / 100 * len(s)), len(s) - 1)] * 1000 if s else 0.0


def report(label: str, res: list[dict[str, Any]], deals: int) -> None:
    groups = [sum(r["share"] for r in res[4 * g : 4 * g + 4]) / 4 for g in range(deals)]
    share, ci = mean_ci(groups)
    n_rounds = sum(r["rounds"] for r in res)
    pts = sum(r["points"] for r in res) / n_rounds
    oth = sum(r["others"] for r in res) / n_rounds
    made = sum(r["made"] for r in res) / n_rounds
    over = sum(r["over"] for r in res) / n_rounds
    lost = sum(r["lost"] for r in res) / n_rounds
    cards = [t for r in res for t in r["cards"]]
    rounds = [t for r in res for t in r["round_times"]]
    print(
        f"{label:<40} {len(res):>4} {100 * share:6.1f} ± {100 * ci:4.1f} {pts:6.2f} {oth:6.2f} "
        f"{100 * made:6.1f} {over:5.2f} {lost:5.2f} {pct(cards, 50):6.0f} {pct(cards, 99):6.0f} "
        f"{pct(rounds, 50):6.0f} {pct(rounds, 99):6.0f}",
        flush=True,
    )


def task_key(task: Task) -> str:
    """The name of a match in a ``--keep`` file: hero, opponent, rules, deal seed, seat."""
    hero, other, preset, seed, seat, _ = task
    return f"{hero} {other} {preset} {seed} {seat}"


def kept(path: Path | None) -> dict[str, dict[str, Any]]:
    """The results a ``--keep`` file holds, by `task_key` (none where there is no file)."""
    if path is None or not path.exists():
        return {}
    out: dict[str, dict[str, Any]] = {}
    for n, text in enumerate(path.read_text().splitlines(), 1):
        if not text.strip():
            continue
        try:
            row = json.loads(text)
            out[row["key"]] = row["result"]
        except (ValueError, KeyError, TypeError) as e:
            raise SystemExit(f"{path}:{n}: not a kept match ({e})") from None
    return out


def played(tasks: list[Task], jobs: int, keep: Path | None) -> Iterator[dict[str, Any]]:
    """Each task's result in order: those ``keep`` holds read from it, the others played
    (each written to ``keep`` as it finishes)."""
    if keep is not None and keep.exists():
        text = keep.read_text()
        if not text.endswith("\n"):  # a line cut off as it was written (the run stopped): its match played again
            keep.write_text(text[: text.rfind("\n") + 1])
    have = kept(keep)
    # each match once (two specs may name the same bot: `--base X --hero X`), in order
    todo = list({task_key(t): t for t in tasks if task_key(t) not in have}.values())
    with ProcessPoolExecutor(jobs) as ex:
        fresh = ex.map(play, todo, chunksize=1)
        out = keep.open("a") if keep is not None else None
        try:
            for t in tasks:
                k = task_key(t)
                if k not in have:
                    have[k] = next(fresh)
                    if out is not None:
                        out.write(json.dumps({"key": k, "result": have[k]}) + "\n")
                        out.flush()
                yield have[k]
        finally:
            if out is not None:
                out.close()


HEADER = (
    f"{'hero vs 3 x opponent':<40} {'n':>4} {'win %':>6}   {'±':>4} {'pts/r':>6} {'oth/r':>6} "
    f"{'made%':>6} {'over':>5} {'lost':>5} {'c p50':>6} {'c p99':>6} {'r p50':>6} {'r p99':>6}"
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--hero", nargs="+", default=["hard"], help="the tested bots (level or level:key=value,...)"
    )
    ap.add_argument("--only", nargs="*", help="opponents (default: medium and the whole sparring pool)")
    ap.add_argument("--deals", type=int, default=25, help="deals per opponent, each played 4 times")
    ap.add_argument("--rules", default="bhoos")
    ap.add_argument("--seed", type=int, default=40000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--think", help="comma-separated seconds a round: the heroes are hard:think=S for each")
    ap.add_argument(
        "--base", metavar="SPEC", help="also play every match with SPEC as the hero: paired difference"
    )
    ap.add_argument(
        "--calls-only",
        action="store_true",
        help="the heroes differ from --base only in call_ settings: replay only matches where a call differs",
    )
    ap.add_argument(
        "--keep",
        metavar="FILE",
        type=Path,
        help="write each match's result to FILE, and play only the matches FILE lacks",
    )
    a = ap.parse_args()
    if a.keep is not None and a.calls_only:
        ap.error("--keep is not for --calls-only runs")
    opponents = a.only or POOL
    heroes = [f"hard:think={float(s)}" for s in a.think.split(",")] if a.think else a.hero
    print(f"{a.rules} rules, {a.deals} deals x 4 seats per line, seed {a.seed}; times in ms (one core)")
    print(HEADER)
    for other in opponents:
        held = " (held out)" if other in HELD_OUT else ""
        specs = ([a.base] if a.base else []) + heroes
        per = 4 * a.deals
        if a.calls_only and a.base:
            probes = tuple(heroes)
            tasks = [
                (a.base, other, a.rules, a.seed + i, s, probes) for i in range(a.deals) for s in range(4)
            ]
            with ProcessPoolExecutor(a.jobs) as ex:
                base_res = list(ex.map(play, tasks, chunksize=1))
                again = [
                    (h, other, a.rules, a.seed + i, s, ())
                    for j, h in enumerate(heroes)
                    for i in range(a.deals)
                    for s in range(4)
                    if base_res[4 * i + s]["diverged"][j]
                ]
                replayed = iter(list(ex.map(play, again, chunksize=1)))
            res = list(base_res)
            for j in range(len(heroes)):
                res += [next(replayed) if r["diverged"][j] else r for r in base_res]
            print(
                f"    {len(again)} of {per * len(heroes)} hero matches differ in some call: replayed",
                flush=True,
            )
            runs = {h: res[j * per : (j + 1) * per] for j, h in enumerate(specs)}
            for h in specs:
                line(h, other + held, runs, a.base, a.deals)
        else:
            tasks = [
                (h, other, a.rules, a.seed + i, s, ())
                for h in specs
                for i in range(a.deals)
                for s in range(4)
            ]
            # each bot's line as soon as its matches are in (the base's first): a run cut short
            # (a lent machine's time, say) keeps every line it printed
            runs = {}
            done: list[dict[str, Any]] = []
            for r in played(tasks, a.jobs, a.keep):
                done.append(r)
                if len(done) % per == 0:
                    h = specs[len(done) // per - 1]
                    runs[h] = done[-per:]
                    line(h, other + held, runs, a.base, a.deals)


def line(h: str, other: str, runs: dict[str, list[dict[str, Any]]], base_spec: str | None, deals: int) -> None:
    """``h``'s line against ``other``; with its paired differences from the base (played first)."""
    report(f"{h} v {other}"[:40], runs[h], deals)
    if base_spec and h != base_spec:
        base = runs[base_spec]
        for what in ("share", "points"):
            diffs = [
                sum(x[what] - b[what] for x, b in zip(runs[h][4 * g : 4 * g + 4], base[4 * g : 4 * g + 4])) / 4
                for g in range(deals)
            ]
            mu, ci = mean_ci(diffs)
            print(f"    paired {what} ({h} - {base_spec}, same deals and seats): {mu:+.3f} ± {ci:.3f}", flush=True)


if __name__ == "__main__":
    main()
