"""How well ``hard``'s call search predicts its own tricks, per sparring opponent.

One ``hard`` (or ``--hero SPEC``) plays against three copies of each opponent
(bhoos rules, 5 rounds, duplicate: each deal with the hero in each seat).  At
every call the hero's call search is recorded: for the call it chose, the
distribution of its tricks over the search's playouts (what the search believes),
the calibrated model's estimate (`calling.trick_distribution`), and the
playouts' tricks for the other seats; after the round, the tricks actually taken.

Printed per opponent: calls made (actual, and as the playouts predicted), mean
tricks (actual, playouts, model), mean overtricks, and the points a round lost
against the best call in hindsight (as ``benchmarks/sparring.py``), split into
undercalls (overtricks) and failed calls; then per predicted-trick bucket (the
playouts' mean for the chosen call, rounded) the predicted and actual mean
tricks and made share; then the other seats' tricks, playouts against actual.

    python benchmarks/calls.py --only medium spar-bold spar-noisy spar-counter --deals 10 --jobs 2
    python benchmarks/calls.py --hero hard:call_margin=0.0 --only medium --deals 10 --json out.json
    python benchmarks/calls.py --hero hard:call_rescue=0.4 --base hard --deals 200   # paired, first rounds

With ``--base SPEC`` it compares calls paired instead, one round at a time and
cheaply: on each deal (the first round of a match, each seat in turn) the base
and the hero (``hard`` with other ``call_*`` settings) are asked for their call
from the same state (the same random draws); where they agree the round would
replay exactly and counts as no difference; where they differ the round is
played out both ways from that point, the same bots and random states, and the
difference (hero less base) is taken in the hero's points and in its points
less the others' mean.  Printed per opponent and pooled: the share of calls that
differ and both differences a round, with 95 % intervals over the deals.

Seeds 50000 and 60000 are kept for the official sparring runs; spar-timid and
spar-ismcts are held out of tuning (they may be measured, not tuned on).
"""

from __future__ import annotations

import argparse
import copy
import json
import math
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt

from bots_duel import build
from callbreak import Match, Ruleset
from callbreak.bots.base import Bot
from callbreak.bots.calling import trick_distribution
from callbreak.bots.hard import HardBot
from callbreak.bots.playouts import decode_outcomes
from callbreak.round import SeatView
from callbreak.scoring import score_tenths
from sparring import call_settings


class Recorder(HardBot):
    """``HardBot`` that keeps what its call search found at its last call."""

    last: dict[str, Any] | None = None

    def call_table(
        self,
        view: SeatView,
        deals: list[list[int]],
        cands: Any,
        totals: npt.NDArray[np.float64],
        sd: float,
        seed: int,
        outcomes: npt.NDArray[np.int64] | None = None,
        styles: npt.NDArray[np.int64] | None = None,
    ) -> npt.NDArray[np.float64]:
        out = np.zeros((len(deals), len(cands)), dtype=np.int64)
        table = super().call_table(view, deals, cands, totals, sd, seed, out, styles)
        self.last = {"cands": [int(c) for c in cands], "outcomes": out, "table": table}
        return table


def recorder(spec: str, seed: int) -> Recorder:
    """A `Recorder` with the settings of ``spec`` (``hard`` or ``hard:key=value,...``)."""
    kwargs: dict[str, Any] = {}
    level, _, params = spec.partition(":")
    if level != "hard":
        raise ValueError(f"the hero must be hard, not {level!r}")
    for kv in filter(None, params.split(",")):
        k, _, v = kv.partition("=")
        kwargs[k] = float(v) if "." in v else int(v)
    return Recorder(seed=seed, **kwargs)


def play(args: tuple[str, str, str, int, int]) -> list[dict[str, Any]]:
    """One match; a record per round of the hero's call."""
    hero, other, preset, seed, hero_seat = args
    rules = Ruleset.preset(preset)
    if rules.rounds is None:
        rules = rules.replace(rounds=5)
    me = recorder(hero, seed * 4 + hero_seat)
    bots: list[Bot] = [me if s == hero_seat else build(other, seed * 4 + s) for s in range(4)]
    m = Match(rules, seed=seed, dealer=0)
    recs: list[dict[str, Any]] = []
    pending: dict[str, Any] | None = None
    n_rounds = 0
    while not m.is_over:
        seat = m.to_act
        assert seat is not None
        v = m.view(seat)
        a = bots[seat].act(v)
        if seat == hero_seat and v.phase == "calling":
            dist = trick_distribution(v)
            rec: dict[str, Any] = {
                "call": int(a),  # type: ignore[call-overload]
                "model_mean": float(sum(t * p for t, p in enumerate(dist))),
                "position": (seat - v.dealer - 1) & 3,
                "round": v.round_number,
            }
            if me.last is not None:
                won, _ = decode_outcomes(me.last["outcomes"])
                ci = me.last["cands"].index(int(a))  # type: ignore[call-overload]
                mine = won[:, ci, hero_seat]
                rec["pred"] = np.bincount(mine, minlength=14).tolist()
                rec["pred_others"] = [float(won[:, ci, s].mean()) for s in range(4)]
                rec["cands"] = me.last["cands"]
                rec["values"] = me.last["table"].mean(axis=0).tolist()
                rec["pred_by_cand"] = [
                    float(won[:, j, hero_seat].mean()) for j in range(len(me.last["cands"]))
                ]
                me.last = None
            pending = rec
        m.act(a)
        if len(m.rounds) != n_rounds:
            n_rounds = len(m.rounds)
            r = m.rounds[-1]
            if pending is not None:
                pending["won"] = r.tricks_won[hero_seat]
                pending["others_won"] = list(r.tricks_won)
                pending["others_calls"] = [c or 0 for c in r.calls]
                pending["hero_seat"] = hero_seat
                call, won_ = pending["call"], pending["won"]
                best = max(score_tenths(c, won_, rules) for c in rules.legal_call_range())
                pending["lost"] = (best - score_tenths(call, won_, rules)) / 10
                recs.append(pending)
                pending = None
    return recs


def duel(args: tuple[str, str, str, str, int, int]) -> dict[str, float]:
    """One first round, called by the base and by the hero (`call_settings`) from the
    same state, played out both ways where the calls differ."""
    hero, base, other, preset, seed, hero_seat = args
    rules = Ruleset.preset(preset)
    if rules.rounds is None:
        rules = rules.replace(rounds=5)
    settings = call_settings(hero, base)
    bots: list[Bot] = [build(base if s == hero_seat else other, seed * 4 + s) for s in range(4)]
    m = Match(rules, seed=seed, dealer=0)
    while m.to_act != hero_seat:
        seat = m.to_act
        assert seat is not None
        m.act(bots[seat].act(m.view(seat)))
    v = m.view(hero_seat)
    probe = copy.deepcopy(bots)
    for k, val in settings.items():
        if not hasattr(probe[hero_seat], k):
            raise ValueError(f"hard has no setting {k!r}")
        setattr(probe[hero_seat], k, val)
    branches = [(m, bots), (copy.deepcopy(m), probe)]
    calls = [bs[hero_seat].act(v) for _, bs in branches]
    if calls[0] == calls[1]:
        return {"differ": 0.0, "points": 0.0, "margin": 0.0, "call": float(calls[0])}  # type: ignore[arg-type]
    ends = []
    for (match, bs), call in zip(branches, calls):
        match.act(call)
        while len(match.rounds) < 1:
            seat = match.to_act
            assert seat is not None
            match.act(bs[seat].act(match.view(seat)))
        pts = [
            score_tenths(c or 0, w, rules) / 10
            for c, w in zip(match.rounds[0].calls, match.rounds[0].tricks_won)
        ]
        ends.append((pts[hero_seat], pts[hero_seat] - sum(pts[s] for s in range(4) if s != hero_seat) / 3))
    return {
        "differ": 1.0,
        "points": ends[1][0] - ends[0][0],
        "margin": ends[1][1] - ends[0][1],
        "call": float(calls[0]),  # type: ignore[arg-type]
        "hero_call": float(calls[1]),  # type: ignore[arg-type]
    }


def duel_report(label: str, res: list[dict[str, float]]) -> None:
    """Differences a round (hero less base), with 95 % intervals over the deals (4 seats each)."""
    deals = len(res) // 4
    line = (
        f"{label:<28} {deals:>5} deals, calls differ {100 * sum(r['differ'] for r in res) / len(res):5.1f} %"
    )
    for what in ("points", "margin"):
        per = [sum(r[what] for r in res[4 * g : 4 * g + 4]) / 4 for g in range(deals)]
        mu = float(np.mean(per))
        ci = 1.96 * float(np.std(per, ddof=1)) / math.sqrt(deals) if deals > 1 else 0.0
        line += f", {what} {mu:+.3f} ± {ci:.3f}"
    up = sum(1 for r in res if r["differ"] and r["hero_call"] > r["call"])
    line += f" (hero higher in {up} of {int(sum(r['differ'] for r in res))})"
    print(line, flush=True)


def summary(label: str, recs: list[dict[str, Any]]) -> None:
    """Print the calibration of the hero's calls in ``recs``."""
    n = len(recs)
    searched = [r for r in recs if "pred" in r]
    made = sum(r["won"] >= r["call"] for r in recs) / n
    over = sum(max(r["won"] - r["call"], 0) for r in recs) / n
    lost = sum(r["lost"] for r in recs) / n
    lost_over = sum(r["lost"] for r in recs if r["won"] > r["call"]) / n
    lost_fail = sum(r["lost"] for r in recs if r["won"] < r["call"]) / n
    won = sum(r["won"] for r in recs) / n
    model = sum(r["model_mean"] for r in recs) / n
    pmade = pmean = 0.0
    for r in searched:
        p = np.array(r["pred"], dtype=float)
        p /= p.sum()
        pmade += float(p[r["call"] :].sum())
        pmean += float(p @ np.arange(14))
    k = max(len(searched), 1)
    print(
        f"{label:<28} {n:>4} {100 * made:6.1f} {100 * pmade / k:6.1f} {won:6.2f} {pmean / k:6.2f} {model:6.2f} "
        f"{over:5.2f} {lost:5.2f} {lost_over:5.2f} {lost_fail:5.2f}",
        flush=True,
    )


def buckets(recs: list[dict[str, Any]]) -> None:
    """Per predicted-trick bucket: predicted against actual."""
    by: dict[int, list[tuple[float, float, int, int]]] = defaultdict(list)
    for r in recs:
        if "pred" not in r:
            continue
        p = np.array(r["pred"], dtype=float)
        p /= p.sum()
        mu = float(p @ np.arange(14))
        by[math.floor(mu + 0.5)].append((mu, float(p[r["call"] :].sum()), r["won"], r["won"] >= r["call"]))
    for b in sorted(by):
        xs = by[b]
        n = len(xs)
        pm = sum(x[0] for x in xs) / n
        am = sum(x[2] for x in xs) / n
        sd = float(np.std([x[2] - x[0] for x in xs], ddof=1)) if n > 1 else 0.0
        print(
            f"    predicted {b:>2}: {n:>4} calls, tricks predicted {pm:5.2f} actual {am:5.2f} "
            f"(diff {am - pm:+.2f} ± {1.96 * sd / math.sqrt(n):.2f}), made predicted "
            f"{100 * sum(x[1] for x in xs) / n:5.1f} % actual {100 * sum(x[3] for x in xs) / n:5.1f} %"
        )


def spread(recs: list[dict[str, Any]], rules: Ruleset) -> None:
    """Tricks less the call, as the playouts predicted and in play; the points lost to
    hindsight that the playouts' own spread predicts; the score with every call
    moved by one (the tricks taken held fixed)."""
    searched = [r for r in recs if "pred" in r]
    pred = np.zeros(27)
    act = np.zeros(27)
    expected = 0.0

    def sc(c: int, t: int) -> float:
        return score_tenths(min(max(c, rules.min_call), rules.max_call), t, rules) / 10

    for r in searched:
        p = np.array(r["pred"], dtype=float)
        p /= p.sum()
        for t in range(14):
            pred[t - r["call"] + 13] += p[t]
            best = max(sc(c, t) for c in rules.legal_call_range())
            expected += p[t] * (best - sc(r["call"], t))
        act[r["won"] - r["call"] + 13] += 1
    n = max(len(searched), 1)
    print("    tricks less call:      " + " ".join(f"{k:>+5d}" for k in range(-3, 5)))
    print("      playouts (%):        " + " ".join(f"{100 * pred[k + 13] / n:5.1f}" for k in range(-3, 5)))
    print("      play (%):            " + " ".join(f"{100 * act[k + 13] / n:5.1f}" for k in range(-3, 5)))
    moved = [sum(sc(r["call"] + k, r["won"]) for r in recs) / len(recs) for k in (-1, 0, 1)]
    print(
        f"    lost to hindsight: {sum(r['lost'] for r in searched) / n:.3f} a round, "
        f"{expected / n:.3f} expected under the playouts' spread; "
        f"points a round with every call one lower / as made / one higher (tricks fixed): "
        f"{moved[0]:.3f} / {moved[1]:.3f} / {moved[2]:.3f}"
    )


def others(recs: list[dict[str, Any]]) -> None:
    """The other seats' tricks: the playouts (for the hero's call) against the play."""
    pred: list[float] = []
    act: list[float] = []
    for r in recs:
        if "pred_others" not in r:
            continue
        for s in range(4):
            if s != r["hero_seat"]:
                pred.append(r["pred_others"][s])
                act.append(r["others_won"][s])
    if pred:
        d = np.array(act) - np.array(pred)
        print(
            f"    other seats: tricks predicted {np.mean(pred):5.2f} actual {np.mean(act):5.2f} "
            f"(diff {d.mean():+.2f} ± {1.96 * d.std(ddof=1) / math.sqrt(len(d)):.2f})"
        )


HEADER = (
    f"{'hero v opponent':<28} {'n':>4} {'made%':>6} {'pred%':>6} {'won':>6} {'pred':>6} {'model':>6} "
    f"{'over':>5} {'lost':>5} {'l_ovr':>5} {'l_fl':>5}"
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hero", default="hard", help="hard or hard:key=value,...")
    ap.add_argument("--only", nargs="+", default=["medium", "spar-bold", "spar-noisy", "spar-counter"])
    ap.add_argument("--deals", type=int, default=10, help="deals per opponent, each played 4 times")
    ap.add_argument("--rules", default="bhoos")
    ap.add_argument("--seed", type=int, default=70000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write every record here")
    ap.add_argument("--from-json", metavar="FILE", help="print the figures of records written by --json")
    ap.add_argument(
        "--base", metavar="SPEC", help="compare the hero's calls with SPEC's, paired (first rounds)"
    )
    a = ap.parse_args()
    if a.base:
        print(
            f"{a.rules} rules, first rounds, {a.deals} deals x 4 seats, seed {a.seed}: {a.hero} less {a.base}"
        )
        pooled_d: list[dict[str, float]] = []
        for other in a.only:
            tasks = [
                (a.hero, a.base, other, a.rules, a.seed + i, s) for i in range(a.deals) for s in range(4)
            ]
            with ProcessPoolExecutor(a.jobs) as ex:
                res = list(ex.map(duel, tasks, chunksize=4))
            duel_report(other, res)
            pooled_d += res
        duel_report("pooled", pooled_d)
        return
    rules = Ruleset.preset(a.rules)
    everything: dict[str, list[dict[str, Any]]] = {}
    if a.from_json:
        with open(a.from_json) as f:
            stored = json.load(f)
        print(f"records of {a.from_json}")
    else:
        print(f"{a.rules} rules, {a.deals} deals x 4 seats per opponent, seed {a.seed}, hero {a.hero}")
    print(HEADER)
    for other in a.only:
        if a.from_json:
            recs = stored[other]
        else:
            tasks = [(a.hero, other, a.rules, a.seed + i, s) for i in range(a.deals) for s in range(4)]
            with ProcessPoolExecutor(a.jobs) as ex:
                recs = [r for rs in ex.map(play, tasks, chunksize=1) for r in rs]
        everything[other] = recs
        summary(other, recs)
        buckets(recs)
        spread(recs, rules)
        others(recs)
    pooled = [r for rs in everything.values() for r in rs]
    summary("pooled", pooled)
    buckets(pooled)
    spread(pooled, rules)
    others(pooled)
    if a.json and not a.from_json:
        with open(a.json, "w") as f:
            json.dump(everything, f)


if __name__ == "__main__":
    main()
