"""Fit the calling model (``data/calls.json``) from self-play of the bots' own play.

In each training round one seat (in turn) plays greedily, always trying to
take tricks, while the other three play the medium level to their calls; the
greedy seat's hand features and the tricks it took are recorded.  That is the
hand's trick potential against real opposition: a bot that calls ``c`` and
plays to make it succeeds about when the potential reaches ``c``.  A least-
squares fit of the features gives the mean estimate; the tricks observed per
estimate bin (smoothed with a normal of the residual spread) give the
distribution.  Two passes: the second plays with the calls of the first fit.

    python -m callbreak.bots.train_calls --rounds 6000 --jobs 2

(``--rounds`` per pass and per rules family; takes about a minute per 10,000
rounds on one core.)
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from ..round import Round
from ..rules import Ruleset
from .calling import BIN_STEP, FEATURES, N_BINS, CallModel, call_position, features, load_model
from .medium import MediumBot, choose_card

DATA = Path(__file__).with_name("data") / "calls.json"
FAMILIES = {"head": "standard", "free": "pagat"}


def _play_chunk(args: tuple[str, int, int]) -> list[tuple[list[float], int]]:
    family, seed, n = args
    rules = Ruleset.preset(FAMILIES[family])
    rng = random.Random(seed)
    bots = [MediumBot(seed=seed * 4 + s) for s in range(4)]
    out: list[tuple[list[float], int]] = []
    for i in range(n):
        dealer = rng.randrange(4)
        rnd = Round(rules, Round.deal_hands(rng, dealer), dealer)
        greedy = (dealer + 1 + i) & 3
        feats: list[float] = []
        while rnd.to_act is not None:
            seat = rnd.to_act
            v = rnd.view(seat)
            if rnd.phase == "calling":
                call = bots[seat].act(v)
                if seat == greedy:
                    earlier = sum(
                        rnd.calls[(dealer + 1 + j) & 3] or 0 for j in range(call_position(seat, dealer))
                    )
                    hand = rnd.hand_masks[seat]
                    feats = features(hand, rules.trump_index, call_position(seat, dealer), earlier)
                rnd.act(call)
            elif seat == greedy:
                rnd.act(choose_card(v, greedy=True)[0])
            else:
                rnd.act(bots[seat].act(v))
        if rnd.phase == "over":
            out.append((feats, rnd.tricks_won[greedy]))
    return out


def fit(samples: list[tuple[list[float], int]], meta: dict[str, Any]) -> CallModel:
    """The calling model fitted to ``samples`` (a hand's features, the tricks it took): a ridge regression of the tricks, then a smoothed distribution of them per bin of the prediction.

    >>> samples = _play_chunk(("head", 1, 60))   # 60 simulated rounds of the standard rules
    >>> model = fit(samples, {"family": "head"})
    >>> len(model.weights) == len(FEATURES), model.meta["samples"], len(model.dists) == N_BINS
    (True, 60, True)
    >>> all(abs(sum(d) - 1) < 1e-9 for d in model.dists)
    True
    """
    import numpy as np

    X = np.array([f for f, _ in samples], dtype=float)
    y = np.array([t for _, t in samples], dtype=float)
    ridge = 1e-3 * np.eye(X.shape[1])
    ridge[0, 0] = 0.0
    w = np.linalg.solve(X.T @ X + ridge * len(y), X.T @ y)
    mu = X @ w
    sd = float(np.std(y - mu))
    counts = np.zeros((N_BINS, 14))
    for m, t in zip(mu, y):
        b = min(max(round(float(m) / BIN_STEP), 0), N_BINS - 1)
        counts[b, int(t)] += 1
    dists = []
    for b in range(N_BINS):
        centre = b * BIN_STEP
        prior = np.array([math.exp(-((t - centre) ** 2) / (2 * sd * sd)) for t in range(14)])
        prior /= prior.sum()
        d = counts[b] + 8.0 * prior
        dists.append(list(d / d.sum()))
    meta = {**meta, "samples": len(y), "residual_sd": round(sd, 3)}
    return CallModel([float(v) for v in w], dists, meta)


def main(argv: list[str] | None = None) -> None:
    """``python -m callbreak.bots.train_calls``: simulate rounds, fit the calling model of each rules family, write it to ``bots/data``.

    >>> import contextlib, io
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     try:
    ...         main(["--help"])
    ...     except SystemExit as e:
    ...         code = e.code
    >>> code, "--rounds" in out.getvalue(), "--passes" in out.getvalue()
    (0, True, True)
    """
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=6000, help="training rounds per pass and family")
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=DATA)
    a = ap.parse_args(argv)
    models: dict[str, Any] = {}
    if a.out.exists():
        models = json.loads(a.out.read_text()).get("models", {})
    t0 = time.time()
    for p in range(a.passes):
        for family in FAMILIES:
            chunk = 250
            tasks = [
                (family, a.seed * 1_000_003 + p * 10_007 + i, min(chunk, a.rounds - i * chunk))
                for i in range((a.rounds + chunk - 1) // chunk)
            ]
            with ProcessPoolExecutor(a.jobs) as ex:
                samples = [s for part in ex.map(_play_chunk, tasks) for s in part]
            model = fit(
                samples,
                {"rules": FAMILIES[family], "pass": p + 1, "rounds": a.rounds, "seed": a.seed},
            )
            models[family] = model.to_json()
            a.out.parent.mkdir(parents=True, exist_ok=True)
            a.out.write_text(json.dumps({"models": models}, separators=(",", ":")) + "\n")
            load_model.cache_clear()
            w = ", ".join(f"{n}={v:+.2f}" for n, v in zip(FEATURES, model.weights))
            print(f"pass {p + 1} {family}: {len(samples)} hands, sd {model.meta['residual_sd']}: {w}")
    print(f"wrote {a.out} in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
