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

Seeds 50000 and 60000 are kept for the official sparring runs; spar-timid and
spar-ismcts are held out of tuning (they may be measured, not tuned on).
"""

from __future__ import annotations

import argparse
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
from callbreak.bots.hard import HardBot, decode_outcomes
from callbreak.round import SeatView
from callbreak.scoring import score_tenths


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
    ) -> npt.NDArray[np.float64]:
        out = np.zeros((len(deals), len(cands)), dtype=np.int64)
        table = super().call_table(view, deals, cands, totals, sd, seed, out)
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
    a = ap.parse_args()
    print(f"{a.rules} rules, {a.deals} deals x 4 seats per opponent, seed {a.seed}, hero {a.hero}")
    print(HEADER)
    everything: dict[str, list[dict[str, Any]]] = {}
    for other in a.only:
        tasks = [(a.hero, other, a.rules, a.seed + i, s) for i in range(a.deals) for s in range(4)]
        with ProcessPoolExecutor(a.jobs) as ex:
            recs = [r for rs in ex.map(play, tasks, chunksize=1) for r in rs]
        everything[other] = recs
        summary(other, recs)
        buckets(recs)
        others(recs)
    pooled = [r for rs in everything.values() for r in rs]
    summary("pooled", pooled)
    buckets(pooled)
    others(pooled)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(everything, f)


if __name__ == "__main__":
    main()
