"""Calling: the distribution of tricks a hand will take, and the best call under the rules.

The model is a linear estimate of the mean number of tricks from a few hand
features (trumps and their honours, side aces and guarded kings, ruffing
chances, seat position, earlier calls), fitted to self-play, and for each
value of that estimate the observed distribution of tricks actually taken.
Both live in ``data/calls.json`` (made by ``python -m callbreak.bots.train_calls``).

The distribution is of the hand's trick *potential* (what it takes when it
tries to take every trick); a bot that has made its call ducks most of the
surplus (`taken_dist`).  The call maximises the expected value of
`callbreak.scoring.score_tenths` over the distribution, for the ruleset in force; late in a match the value is
the chance of finishing first rather than raw points.

>>> from callbreak import Round, Ruleset
>>> rnd = Round(Ruleset(), Round.deal_hands(seed=5), dealer=3)
>>> d = trick_distribution(rnd.view(0))
>>> len(d), abs(sum(d) - 1) < 1e-9
(14, True)
>>> c, chance = best_call(rnd.view(0), d)
>>> c in rnd.legal_calls(), 0 <= chance <= 1
(True, True)
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

from ..round import SeatView
from ..rules import Ruleset
from ..scoring import made, score_tenths

__all__ = [
    "FEATURES",
    "CallModel",
    "best_call",
    "call_values",
    "features",
    "hand_mask",
    "load_model",
    "trick_distribution",
]

FEATURES = (
    "bias",
    "trumps",
    "trump_A",
    "trump_K",
    "trump_Q",
    "trump_J",
    "trumps_over_4",
    "side_A",
    "side_K_guarded",
    "side_K_single",
    "side_Q_guarded",
    "side_A_long",
    "ruff",
    "pos1",
    "pos2",
    "pos3",
    "earlier_calls",
    "side_length_over_4",
)

# Used only when the data file is missing its model (before the first training run).
_DEFAULT_WEIGHTS = (
    -0.2, 0.3, 0.7, 0.5, 0.3, 0.1, 0.35, 0.85, 0.45, 0.1, 0.2, -0.2, 0.4, 0.0, 0.0, 0.0, 0.0, 0.1,
)  # fmt: skip
BIN_STEP = 0.5
N_BINS = 27  # estimates 0, 0.5, ..., 13


def features(hand: int, trump: int, pos: int, earlier: int) -> list[float]:
    """Feature vector of a 13-card (or shorter) hand mask.

    ``pos`` is the seat's place in the calling order (0 calls first), ``earlier``
    the sum of the calls made before it.

    >>> from callbreak.cards import mask_of
    >>> f = features(mask_of(["AS", "KS", "2S", "AH", "KD", "3D"]), 0, 0, 0)
    >>> dict(zip(FEATURES, f))["side_K_guarded"], dict(zip(FEATURES, f))["trump_A"]
    (1.0, 1.0)
    """
    tv = (hand >> (13 * trump)) & 0x1FFF
    nt = tv.bit_count()
    side_a = side_kg = side_ks = side_qg = side_al = short = longx = 0
    for s in range(4):
        if s == trump:
            continue
        v = (hand >> (13 * s)) & 0x1FFF
        n = v.bit_count()
        a = v >> 12 & 1
        side_a += a
        if a and n >= 6:
            side_al += 1
        if v >> 11 & 1:
            if n >= 2:
                side_kg += 1
            else:
                side_ks += 1
        if v >> 10 & 1 and n >= 3:
            side_qg += 1
        if n < 2:
            short += 2 - n
        if n > 4:
            longx += n - 4
    ruff = min(short, max(nt - 1, 0))
    return [
        1.0,
        float(nt),
        float(tv >> 12 & 1),
        float(tv >> 11 & 1),
        float(tv >> 10 & 1),
        float(tv >> 9 & 1),
        float(max(nt - 4, 0)),
        float(side_a),
        float(side_kg),
        float(side_ks),
        float(side_qg),
        float(side_al),
        float(ruff),
        1.0 if pos == 1 else 0.0,
        1.0 if pos == 2 else 0.0,
        1.0 if pos == 3 else 0.0,
        float(earlier),
        float(longx),
    ]


def _normal_dist(mu: float, sd: float = 1.3) -> list[float]:
    w = [math.exp(-((t - mu) ** 2) / (2 * sd * sd)) for t in range(14)]
    s = sum(w)
    return [x / s for x in w]


class CallModel:
    """Weights of the mean estimate and, per estimate bin, a distribution of tricks.

    >>> m = CallModel.default()
    >>> m.meta["source"], round(sum(m.dist_for(2.3)), 9)
    ('default (untrained)', 1.0)
    >>> CallModel([0.0], m.dists, {})
    Traceback (most recent call last):
    ...
    ValueError: call model needs 18 weights, got 1
    """

    def __init__(self, weights: Sequence[float], dists: Sequence[Sequence[float]], meta: dict[str, Any]):
        if len(weights) != len(FEATURES):
            raise ValueError(f"call model needs {len(FEATURES)} weights, got {len(weights)}")
        if len(dists) != N_BINS or any(len(d) != 14 for d in dists):
            raise ValueError(f"call model needs {N_BINS} distributions of 14 trick counts")
        self.weights = tuple(float(w) for w in weights)
        norm: list[tuple[float, ...]] = []
        for d in dists:
            s = float(sum(d))
            if s <= 0 or any(x < 0 for x in d):
                raise ValueError("a trick distribution must be non-negative with a positive sum")
            norm.append(tuple(float(x) / s for x in d))
        self.dists = tuple(norm)
        self.meta = meta

    def mean(self, hand: int, trump: int, pos: int, earlier: int) -> float:
        """The linear estimate of tricks (not clamped)."""
        return sum(w * x for w, x in zip(self.weights, features(hand, trump, pos, earlier)))

    def dist_for(self, mu: float) -> tuple[float, ...]:
        """Distribution of tricks 0..13 for an estimate ``mu`` (interpolated between bins)."""
        x = min(max(mu, 0.0), 13.0) / BIN_STEP
        i = min(int(x), N_BINS - 2)
        f = x - i
        a, b = self.dists[i], self.dists[i + 1]
        return tuple((1 - f) * p + f * q for p, q in zip(a, b))

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "features": list(FEATURES),
            "weights": [round(w, 5) for w in self.weights],
            "bin_step": BIN_STEP,
            "dists": [[round(p, 5) for p in d] for d in self.dists],
            "meta": self.meta,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CallModel:
        if data.get("features") != list(FEATURES):
            raise ValueError("call model features do not match this version")
        return cls(data["weights"], data["dists"], dict(data.get("meta", {})))

    @classmethod
    def default(cls) -> CallModel:
        dists = [_normal_dist(i * BIN_STEP) for i in range(N_BINS)]
        return cls(_DEFAULT_WEIGHTS, dists, {"source": "default (untrained)"})


@lru_cache(maxsize=4)
def load_model(family: str = "head") -> CallModel:
    """The shipped model for a rules family: ``head`` (must_head) or ``free``.

    >>> m = load_model()
    >>> abs(sum(m.dist_for(3.2)) - 1) < 1e-9
    True
    """
    try:
        text = resources.files("callbreak.bots").joinpath("data/calls.json").read_text()
    except (FileNotFoundError, ModuleNotFoundError):
        return CallModel.default()
    data = json.loads(text)
    models = data.get("models", {})
    entry = models.get(family) or models.get("head")
    if entry is None:
        return CallModel.default()
    return CallModel.from_json(entry)


def family_of(rules: Ruleset) -> str:
    """Which shipped model fits ``rules``: ``head`` when a seat must head the trick, else ``free``.

    >>> family_of(Ruleset()), family_of(Ruleset(must_head=False))
    ('head', 'free')
    """
    return "head" if rules.must_head else "free"


def hand_mask(view: SeatView) -> int:
    """The seat's hand at calling time: what it holds plus what it has played.

    >>> from callbreak import Round
    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=5), dealer=3)
    >>> for _ in range(4):
    ...     _ = rnd.call(2)
    >>> _ = rnd.play(rnd.legal_cards()[0])
    >>> v = rnd.view(0)
    >>> len(v.hand), hand_mask(v).bit_count()
    (12, 13)
    """
    m = 0
    for c in view.hand:
        m |= 1 << c
    for t in view.tricks:
        for i, c in enumerate(t.cards):
            if (t.leader + i) & 3 == view.seat:
                m |= 1 << c
    for s, c in view.trick:
        if s == view.seat:
            m |= 1 << c
    return m


def call_position(seat: int, dealer: int) -> int:
    """The seat's place in the calling order: 0 for the dealer's left, 3 for the dealer.

    >>> call_position(0, dealer=3), call_position(3, dealer=3)
    (0, 3)
    """
    return (seat - dealer - 1) & 3


def earlier_calls(view: SeatView, seat: int | None = None) -> int:
    """Sum of the calls made before ``seat`` (default: the view's seat).

    >>> from callbreak import Round
    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=5), dealer=3)
    >>> _ = rnd.call(3)
    >>> earlier_calls(rnd.view(1)), earlier_calls(rnd.view(1), seat=0)
    (3, 0)
    """
    seat = view.seat if seat is None else seat
    pos = call_position(seat, view.dealer)
    total = 0
    for k in range(pos):
        c = view.calls[(view.dealer + 1 + k) & 3]
        total += c or 0
    return total


def trick_distribution(view: SeatView, model: CallModel | None = None) -> tuple[float, ...]:
    """P(tricks = 0..13) for the view's seat, from its hand as dealt.

    >>> from callbreak import Round
    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=5), dealer=3)
    >>> d = trick_distribution(rnd.view(0))
    >>> len(d), abs(sum(d) - 1) < 1e-9, d[13] < 0.01
    (14, True, True)
    """
    model = model or load_model(family_of(view.rules))
    mu = model.mean(
        hand_mask(view), view.rules.trump_index, call_position(view.seat, view.dealer), earlier_calls(view)
    )
    return model.dist_for(mu)


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


ROUND_SD = 4.5  # points: spread of one seat's score in one round
ROUND_MEAN = 2.5  # points: what a seat scores in a typical round


def win_value(view: SeatView, ahead: Sequence[float] | None = None) -> tuple[list[float], float] | None:
    """Opponents' totals and the spread still to come, or None for a lone round;
    ``ahead``: the points a round each seat is expected to score above a typical seat,
    added to its total for each round still to come after this one (None: all alike).

    >>> from callbreak import Match, Round
    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=5), dealer=3)
    >>> win_value(rnd.view(0)) is None
    True
    >>> m = Match(Ruleset.preset("quick", rounds=2), seed=1)
    >>> totals, sd = win_value(m.view(m.to_act))
    >>> totals, round(sd, 2)
    ([0.0, 0.0, 0.0, 0.0], 7.79)
    >>> win_value(m.view(m.to_act), ahead=[0.0, -1.5, 0.0, 0.0])[0]   # one round after this one
    [0.0, -1.5, 0.0, 0.0]
    """
    if view.totals is None:
        return None
    totals = [float(t) for t in view.totals]
    if view.rounds is None:
        left = 4
    elif view.sudden_death:
        left = 0
    else:
        left = max(view.rounds - view.round_number, 0)
    if ahead is not None:
        totals = [t + a * left for t, a in zip(totals, ahead)]
    sd = math.sqrt(ROUND_SD**2 * (1 + 2 * left))
    return totals, sd


def call_values(view: SeatView, dist: Sequence[float]) -> dict[int, float]:
    """The value of each legal call: expected points, tilted towards the chance of
    finishing first as the match nears its end.

    >>> from callbreak import Round
    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=5), dealer=3)
    >>> v = rnd.view(0)
    >>> values = call_values(v, trick_distribution(v))
    >>> sorted(values) == rnd.legal_calls(), max(values, key=values.__getitem__)
    (True, 3)
    """
    rules = view.rules
    calls = view.legal_calls or tuple(rules.legal_call_range())
    wv = win_value(view)
    out: dict[int, float] = {}
    for c in calls:
        ev = 0.0
        for t, p in enumerate(dist):
            if p <= 0:
                continue
            for got, q in taken_dist(c, t):
                pts = score_tenths(c, got, rules) / 10.0
                if wv is None:
                    ev += p * q * pts
                else:
                    totals, sd = wv
                    me = totals[view.seat] + pts
                    pw = 1.0
                    for s in range(4):
                        if s != view.seat:
                            pw *= _phi((me - totals[s] - ROUND_MEAN) / sd)
                    ev += p * q * (pw + 0.004 * pts)
        out[c] = ev
    return out


SURPLUS_KEPT = 0.7  # chance that a trick beyond its call is one a bot cannot avoid taking


@lru_cache(maxsize=256)
def taken_dist(call: int, potential: int) -> tuple[tuple[int, float], ...]:
    """Tricks a bot ends with, and their chances, when its hand could take
    ``potential``: once its call is made it ducks, but each surplus trick may
    still come its way (binomially, with chance `SURPLUS_KEPT`).

    >>> taken_dist(4, 3)
    ((3, 1.0),)
    >>> [(t, round(q, 2)) for t, q in taken_dist(4, 6)]
    [(4, 0.09), (5, 0.42), (6, 0.49)]
    """
    if potential <= call:
        return ((potential, 1.0),)
    n = potential - call
    q = SURPLUS_KEPT
    return tuple((call + k, math.comb(n, k) * q**k * (1 - q) ** (n - k)) for k in range(n + 1))


def made_chance(call: int, dist: Sequence[float], rules: Ruleset) -> float:
    """The chance of making ``call`` under ``rules`` given the potential ``dist``.

    >>> dist = [0.0] * 14
    >>> dist[3], dist[4] = 0.5, 0.5
    >>> made_chance(3, dist, Ruleset()), made_chance(4, dist, Ruleset()), made_chance(5, dist, Ruleset())
    (1.0, 0.5, 0.0)
    """
    return sum(p * q for t, p in enumerate(dist) for got, q in taken_dist(call, t) if made(call, got, rules))


def best_call(view: SeatView, dist: Sequence[float] | None = None) -> tuple[int, float]:
    """The call of highest value and its chance of being made.

    >>> from callbreak import Round
    >>> rnd = Round(Ruleset(), Round.deal_hands(seed=5), dealer=3)
    >>> call, chance = best_call(rnd.view(0))
    >>> call, 0.5 < chance <= 1
    (3, True)
    """
    if dist is None:
        dist = trick_distribution(view)
    values = call_values(view, dist)
    call = max(values, key=lambda c: (values[c], -c))
    chance = made_chance(call, dist, view.rules)
    return call, chance
