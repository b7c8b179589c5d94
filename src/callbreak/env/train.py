"""Train a small policy end to end on the batched environment: numpy only, no torch.

The policy is a linear softmax over the legal actions: each action gets a few features
computed from the observation alone (`features`: for a card, its rank, whether it is a trump,
whether it wins the trick now, whether it is the highest card of its suit still out, the
lowest / highest legal card, the cheapest winner, crossed with whether the seat still needs
tricks...; for a call ``k``, ``k`` times the hand's trumps, aces, kings, short suits and count
of sure tricks, with a fixed ``-k * k / 2``: a normal curve around a learned mean), and its
logit is ``features . theta``.  `train` runs REINFORCE on `BatchedEnv` (seat 0 learns, the
kernel's rule policy plays the other three seats): one update per batch of rounds, each
decision's advantage the round's points less a linear estimate from the state, Adam steps,
the calls sampled at a temperature falling from 1 to 0.25 (wide exploration first, then the
calls the policy would make greedily).  `evaluate` plays the policy in the engine's `Match`
against any bot level, arena style: every seed is played four times, the policy in each
seat (duplicate deals), and the mean points per round of the policy and of its opponents
compared.

    python -m callbreak.env.train --updates 400 --games 256 --eval-seeds 50 --save policy.npz
    callbreak arena policy:policy.npz easy easy easy --matches 50 --duplicate --rules quick

>>> theta = train(updates=3, games=16, seed=0).theta
>>> theta.shape == (N_FEATURES,)
True
"""

from __future__ import annotations

import argparse
import os
import random
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..extras import need

try:
    import numpy as np
    import numpy.typing as npt

    from ..bots.kernel.core import _jit, _low, _pop
except ModuleNotFoundError:
    need("a trained policy (numba)", "bots")
    raise  # (a module there, broken: its own error)

from ..bots import Bot, make_bot
from ..cards import Card
from ..match import Match
from ..round import SeatView
from ..rules import Ruleset
from . import observation as ob
from .batched import OPPONENTS, POLICIES, BatchedEnv

__all__ = [
    "N_FEATURES",
    "PolicyBot",
    "Result",
    "evaluate",
    "evaluate_batched",
    "features",
    "initial",
    "load",
    "save",
    "train",
]

N_CARD = 25
N_CALL = 10
N_FEATURES = N_CARD + N_CALL
SUITM = 0x1FFF  # a plain int: numba folds it as an int64 constant
A = np.ndarray


@_jit
def _mask_of(row: A, off: int) -> int:
    m = np.int64(0)
    for c in range(52):
        if row[off + c] != 0:
            m |= np.int64(1) << c
    return int(m)


@_jit
def _lowest(m: int, t: int) -> int:
    """The lowest-ranked card of a mask, side suits before trumps."""
    best = -1
    for c in range(52):
        if (m >> c) & 1 == 0:
            continue
        if (
            best < 0
            or (best // 13 == t) > (c // 13 == t)
            or ((best // 13 == t) == (c // 13 == t) and c % 13 < best % 13)
        ):
            best = c
    return best


@_jit
def _features(obs: A, mask: A, out: A) -> None:
    out[:] = 0.0
    for b in range(obs.shape[0]):
        o = obs[b]
        hand = _mask_of(o, 0)
        played = np.int64(0)
        for rel in range(4):
            played |= _mask_of(o, 52 + 52 * rel)
        out_cards = ((np.int64(1) << 52) - 1) & ~hand & ~played
        t = 0
        for s in range(4):
            if o[551 + s] != 0:
                t = s
        ld = 0
        for rr in range(4):
            if o[543 + rr] != 0:
                ld = rr
        n = 0
        best = -1
        for k in range(4):
            rel = (ld + k) & 3
            m = _mask_of(o, 260 + 52 * rel)
            if m != 0:
                c = _low(m)
                n += 1
                if best < 0 or (c // 13 == best // 13 and c > best) or (c // 13 == t and best // 13 != t):
                    best = c
        call = -1
        for k in range(14):
            if o[468 + k] != 0:
                call = k
        need = 1.0 if call - o[528] > 0 else 0.0
        if o[537] != 0:  # calling: the call crossed with the hand
            tv = (hand >> (13 * t)) & SUITM
            nt = _pop(tv)
            top = ((tv >> 12) & 1) + ((tv >> 11) & 1) + ((tv >> 10) & 1)
            aces = 0
            kings = 0
            short = 0
            sure = float(top) + max(nt - 3, 0)
            for s in range(4):
                if s == t:
                    continue
                v = (hand >> (13 * s)) & SUITM
                aces += (v >> 12) & 1
                kings += (v >> 11) & 1
                short += max(2 - _pop(v), 0)
                if (v >> 12) & 1 and _pop(v) <= 5:
                    sure += 1.0
                if (v >> 11) & 1 and _pop(v) >= 2:
                    sure += 0.5
            pos = (0 - ld) & 3
            for k in range(1, 14):
                if mask[b, 52 + k] == 0:
                    continue
                # logit(k) = mu * k - k * k / 2: a normal curve around mu = theta . hand (its
                # width fixed: the weight of -k * k / 2 is not learned), so calls stay explored
                f = out[b, 52 + k]
                f[N_CARD + 0] = k
                f[N_CARD + 1] = -k * k / 2.0
                f[N_CARD + 2] = k * (nt - 3.25) / 3.0
                f[N_CARD + 3] = k * (top - 0.75)
                f[N_CARD + 4] = k * (aces - 0.75)
                f[N_CARD + 5] = k * (kings - 0.75)
                f[N_CARD + 6] = k * (sure - 2.5) / 2.0
                f[N_CARD + 7] = k * (pos - 1.5) / 1.5
                f[N_CARD + 8] = k * (min(short, nt) - 0.5)
                f[N_CARD + 9] = k * (max(nt - 4, 0) - 0.5)
            continue
        lm = _mask_of(mask[b].astype(np.float32), 0)
        lowest = _lowest(lm, t)
        highest = -1
        cheap = -1
        for c in range(52):
            if (lm >> c) & 1 == 0:
                continue
            if (
                highest < 0
                or (c // 13 == t) > (highest // 13 == t)
                or ((c // 13 == t) == (highest // 13 == t) and c % 13 > highest % 13)
            ):
                highest = c
            beats = (c // 13 == best // 13 and c > best) or (c // 13 == t and best // 13 != t)
            if (
                n > 0
                and beats
                and (
                    cheap < 0
                    or (cheap // 13 == t) > (c // 13 == t)
                    or ((cheap // 13 == t) == (c // 13 == t) and c % 13 < cheap % 13)
                )
            ):
                cheap = c
        trumps_out = 1.0 if out_cards & (SUITM << (13 * t)) != 0 else 0.0
        short_need = max(call - o[528], 0.0) / 13.0
        for c in range(52):
            if mask[b, c] == 0:
                continue
            su = c // 13
            r = (c % 13) / 12.0
            trump = 1.0 if su == t else 0.0
            wins = 0.0
            if n > 0 and ((su == best // 13 and c > best) or (su == t and best // 13 != t)):
                wins = 1.0
            above = (SUITM << (13 * su)) & ~((np.int64(2) << c) - 1)
            boss = 1.0 if out_cards & above == 0 else 0.0
            lead = 1.0 if n == 0 else 0.0
            length = _pop(hand & (SUITM << (13 * su))) / 13.0
            f = out[b, c]
            f[0] = 1.0
            f[1] = r
            f[2] = trump
            f[3] = wins
            f[4] = boss
            f[5] = need * wins
            f[6] = (1 - need) * wins
            f[7] = need * r
            f[8] = (1 - need) * r
            f[9] = lead * boss * need
            f[10] = lead * trump
            f[11] = (1.0 if n == 3 else 0.0) * wins
            f[12] = wins * boss
            f[13] = length
            f[14] = lead * r
            f[15] = trump * (1 - need)
            f[16] = lead * boss * (1 - need)
            f[17] = need * wins * boss
            f[18] = 1.0 if c == lowest else 0.0
            f[19] = 1.0 if c == highest else 0.0
            f[20] = need * (1.0 if c == cheap else 0.0)
            f[21] = (1 - need) * (1.0 if c == lowest else 0.0)
            f[22] = (
                lead
                * (1 - trump)
                * (1.0 if length <= 2 / 13.0 else 0.0)
                * (1.0 if hand & (SUITM << (13 * t)) else 0.0)
            )
            safe = 1.0 if n == 3 or (boss == 1.0 and (su == t or trumps_out == 0.0)) else 0.0
            f[23] = need * (wins if n > 0 else 1.0) * safe
            f[24] = short_need * r


FIXED = N_CARD + 1
"""The weight of the calls' ``-k * k / 2``: 1, never learned."""


def initial() -> npt.NDArray[np.float64]:
    """The untrained policy's weights: uniform over the legal cards, calls near the lowest.

    >>> theta = initial()
    >>> theta.shape == (N_FEATURES,), float(theta.sum()), float(theta[FIXED])
    (True, 1.0, 1.0)
    """
    theta = np.zeros(N_FEATURES)
    theta[FIXED] = 1.0
    return theta


def features(obs: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
    """``(B, 66, N_FEATURES)``: the features of every legal action (0 for the illegal ones)."""
    out = np.zeros((obs.shape[0], ob.N_ACTIONS, N_FEATURES))
    _features(obs, mask, out)
    return out


def _probs(
    phi: npt.NDArray[np.float64],
    mask: npt.NDArray[np.int8],
    theta: npt.NDArray[np.float64],
    temp: npt.NDArray[np.float64] | float = 1.0,
) -> npt.NDArray[np.float64]:
    scale = temp[:, None] if isinstance(temp, np.ndarray) else temp
    logits: npt.NDArray[np.float64] = np.where(mask != 0, phi @ theta / scale, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    p: npt.NDArray[np.float64] = np.exp(logits)
    probs: npt.NDArray[np.float64] = p / p.sum(axis=1, keepdims=True)
    return probs


N_STATE = 8


def _state(obs: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    """What the value estimate sees: calling or not, seat 0's call, tricks won, still needed, left."""
    calls = obs[:, ob.OFFSETS["calls"] : ob.OFFSETS["calls"] + 15]
    call = calls[:, :14] @ np.arange(14) / 13.0
    won = obs[:, ob.OFFSETS["tricks_won"]] / 13.0
    left = 1.0 - obs[:, ob.OFFSETS["tricks_won"] : ob.OFFSETS["tricks_won"] + 4].sum(axis=1) / 13.0
    need = np.maximum(call - won, 0.0)
    calling = obs[:, ob.OFFSETS["phase"]]
    return np.stack([np.ones(len(obs)), calling, call, won, need, need * need, left, need * left], axis=1)


@dataclass
class Result:
    """A trained policy and its learning curve (mean points per round of each update).

    >>> r = Result(initial())
    >>> r.curve.append(-1.25); r.theta.shape == (N_FEATURES,), r.curve
    (True, [-1.25])
    """

    theta: npt.NDArray[np.float64]
    curve: list[float] = field(default_factory=list)


def train(
    updates: int = 300,
    games: int = 128,
    seed: int = 0,
    lr: float = 0.05,
    ruleset: Ruleset | str | None = None,
    opponents: str = "rule",
    theta0: npt.NDArray[np.float64] | None = None,
    call_temp: tuple[float, float] = (1.0, 0.25),
) -> Result:
    """REINFORCE with a baseline: every update plays one round in each of ``games`` games; each
    decision's advantage is the round's points less a linear estimate of them from the state
    (`_state`: the call, tricks won, still needed and left), fitted on the same batch.
    ``opponents``: a built-in policy of `BatchedEnv` for seats 1-3, or ``"self"``: the policy
    plays all four seats and learns from every seat's decisions (self-play)."""
    env = BatchedEnv(games, ruleset=ruleset, opponents=opponents, seed=seed)
    rng = np.random.default_rng(seed)
    theta = initial() if theta0 is None else theta0.copy()
    m1 = np.zeros(N_FEATURES)
    m2 = np.zeros(N_FEATURES)
    obs, mask = env.reset()
    rows = np.arange(games)
    seats = 4 if opponents == "self" else 1
    buf_g = np.zeros((games, seats, 64, N_FEATURES))
    buf_s = np.zeros((games, seats, 64, N_STATE))
    count = np.zeros((games, seats), dtype=np.int64)
    result = Result(theta)
    for step in range(1, updates + 1):
        gs: list[npt.NDArray[np.float64]] = []
        ss: list[npt.NDArray[np.float64]] = []
        rs: list[npt.NDArray[np.float64]] = []
        episodes: list[float] = []
        while len(episodes) < games * seats:
            phi = features(obs, mask)
            calling = mask[:, ob.CALL_BASE :].any(axis=1)
            temp = np.where(calling, call_temp[0] + (call_temp[1] - call_temp[0]) * (step - 1) / updates, 1.0)
            p = _probs(phi, mask, theta, temp)
            u = rng.random((games, 1))
            acts = np.minimum((p.cumsum(axis=1) < u).sum(axis=1), ob.N_ACTIONS - 1)
            acts = np.where(mask[rows, acts] != 0, acts, p.argmax(axis=1))
            me = env.to_act if seats == 4 else np.zeros(games, dtype=np.int64)
            k = np.minimum(count[rows, me], 63)
            buf_g[rows, me, k] = (phi[rows, acts] - np.einsum("ba,baf->bf", p, phi)) / temp[:, None]
            buf_s[rows, me, k] = _state(obs)
            count[rows, me] += 1
            obs, mask, reward, done = env.step(acts)
            points = reward.reshape(games, -1)
            for i in np.flatnonzero(done):
                for o in range(seats):
                    n = int(min(count[i, o], 64))
                    gs.append(buf_g[i, o, :n].copy())
                    ss.append(buf_s[i, o, :n].copy())
                    rs.append(np.full(n, points[i, o]))
                    episodes.append(float(points[i, o]))
                    count[i, o] = 0
        g_all = np.concatenate(gs)
        s_all = np.concatenate(ss)
        r_all = np.concatenate(rs)
        w = np.linalg.solve(s_all.T @ s_all + 1e-3 * np.eye(N_STATE), s_all.T @ r_all)
        adv = r_all - s_all @ w
        g = (adv[:, None] * g_all).sum(axis=0) / len(episodes)
        g[FIXED] = 0.0
        m1 = 0.9 * m1 + 0.1 * g
        m2 = 0.999 * m2 + 0.001 * g * g
        theta += lr * (m1 / (1 - 0.9**step)) / (np.sqrt(m2 / (1 - 0.999**step)) + 1e-8)
        result.curve.append(float(np.mean(episodes)))
    result.theta = theta
    return result


def save(path: str | os.PathLike[str], theta: npt.NDArray[np.float64]) -> None:
    """Write the policy's weights to ``path`` (``np.savez``: ``theta`` and ``n_features``).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "policy.npz"
    >>> save(path, initial()); bool((load(path) == initial()).all())
    True
    >>> try:
    ...     save(path, initial()[:3])
    ... except ValueError as e:
    ...     print(e)
    a policy has 35 weights, not shape (3,)
    """
    theta = np.asarray(theta, dtype=np.float64)
    if theta.shape != (N_FEATURES,):
        raise ValueError(f"a policy has {N_FEATURES} weights, not shape {theta.shape}")
    with open(path, "wb") as f:
        np.savez(f, theta=theta, n_features=np.int64(N_FEATURES))


def load(path: str | os.PathLike[str]) -> npt.NDArray[np.float64]:
    """The weights `save` wrote to ``path``; a ValueError that names the file if it is
    missing, not an ``.npz`` of `save`, or holds weights of another shape or non-finite ones.

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "p.npz"
    >>> save(f, initial()); bool((load(f) == initial()).all())
    True
    >>> _ = (f.parent / "results.json").write_text('{"matches": 4}')
    >>> load(f.parent / "results.json")
    Traceback (most recent call last):
    ...
    ValueError: policy file ...results.json: not an .npz of weights (not a zip archive; `python -m callbreak.env.train --save FILE.npz` writes one)
    """
    head = b""
    try:
        with open(path, "rb") as f:
            head = f.read(4)
        z = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise ValueError(f"policy file {path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"policy file {path}: a folder, not a file") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        # (numpy's own words for a file that is no .npz talk of pickles: not what this file is)
        why = str(e) if head == b"PK\x03\x04" else "not a zip archive; `python -m callbreak.env.train --save FILE.npz` writes one"
        raise ValueError(f"policy file {path}: not an .npz of weights ({why})") from None
    if not isinstance(z, np.lib.npyio.NpzFile):
        raise ValueError(f"policy file {path}: not an .npz of weights (a bare array)")
    with z:
        if "theta" not in z.files:
            raise ValueError(f"policy file {path}: no 'theta' array in it (write it with --save)")
        try:
            theta = np.asarray(z["theta"], dtype=np.float64)
        except (ValueError, TypeError) as e:
            raise ValueError(f"policy file {path}: 'theta' is not numbers ({e})") from None
    if theta.shape != (N_FEATURES,):
        raise ValueError(f"policy file {path}: {N_FEATURES} weights expected, found shape {theta.shape}")
    if not np.isfinite(theta).all():
        raise ValueError(f"policy file {path}: weights that are not finite")
    return theta


class PolicyBot(Bot):
    """The linear policy as a bot: the most likely legal action (ties drawn at random)."""

    name = "linear-pg"

    def __init__(self, theta: npt.NDArray[np.float64], seed: int | None = None) -> None:
        super().__init__(seed)
        self.theta = theta
        self._rng = random.Random(seed)
        # load (or compile) the feature kernel now, not in the first timed decision
        features(np.zeros((1, ob.SIZE), dtype=np.float32), np.zeros((1, ob.N_ACTIONS), dtype=np.int8))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._rng = random.Random(seed)

    def act(self, view: SeatView) -> int | Card:
        o = ob.observe(view)[None, :]
        o[0, ob.OFFSETS["totals"] : ob.OFFSETS["totals"] + 4] = 0  # trained on single rounds
        m = ob.mask(view)[None, :]
        logits = features(o, m)[0] @ self.theta
        legal = np.flatnonzero(m[0])
        top = logits[legal].max()
        choices = [int(a) for a in legal if logits[a] >= top - 1e-12]
        a = choices[self._rng.randrange(len(choices))] if len(choices) > 1 else choices[0]
        return ob.to_engine(a)[1]


def evaluate_batched(
    theta: npt.NDArray[np.float64],
    games: int = 512,
    rounds: int = 2,
    seed: int = 12_345,
    opponents: str = "rule",
    ruleset: Ruleset | str | None = None,
) -> float:
    """Mean points per round of the policy (most likely action, ties drawn at random) in
    ``rounds`` rounds of each of ``games`` batched games: the same seed, the same deals.
    ``opponents``: a built-in policy (`POLICIES`; against itself the mean says nothing)."""
    if opponents not in POLICIES:
        raise ValueError(f"opponents must be one of {POLICIES}, not {opponents!r}")
    env = BatchedEnv(games, ruleset=ruleset, opponents=opponents, seed=seed)
    rng = np.random.default_rng(seed)
    obs, mask = env.reset()
    total = 0.0
    ended = 0
    while ended < games * rounds:
        logits = features(obs, mask) @ theta + 1e-9 * rng.random(mask.shape)
        acts = np.argmax(np.where(mask != 0, logits, -np.inf), axis=1)
        obs, mask, reward, done = env.step(acts)
        total += float(reward[done != 0].sum())
        ended += int(done.sum())
    return total / ended


def evaluate(
    theta: npt.NDArray[np.float64], opponents: str, seeds: Sequence[int], ruleset: Ruleset | str = "quick"
) -> tuple[float, float]:
    """Mean points per round of the policy and of its opponents (bots of level ``opponents``),
    over the matches of ``seeds``, each played four times with the policy in each seat."""
    rules = Ruleset.preset(ruleset) if isinstance(ruleset, str) else ruleset
    mine: list[float] = []
    theirs: list[float] = []
    for seed in seeds:
        for seat in range(4):
            bots: list[Bot] = [
                PolicyBot(theta, seed=seed) if s == seat else make_bot(opponents, seed=seed * 4 + s)
                for s in range(4)
            ]
            m = Match(rules, seed=seed)
            while not m.is_over:
                s = m.to_act
                assert s is not None
                m.act(bots[s].act(m.view(s)))
            for pts in m.round_points:
                mine.append(float(pts[seat]))
                theirs.extend(float(pts[o]) for o in range(4) if o != seat)
    return float(np.mean(mine)), float(np.mean(theirs))


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m callbreak.env.train``: train the linear policy, report its curve, save its weights.

    >>> import contextlib, io
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     try:
    ...         main(["--help"])
    ...     except SystemExit as e:
    ...         code = e.code
    >>> code, "--updates" in out.getvalue()
    (0, True)
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     try:
    ...         main(["--updates", "0"])
    ...     except SystemExit as e:
    ...         code = e.code
    >>> code, err.getvalue().splitlines()[-1]
    (2, 'python -m callbreak.env.train: error: --updates and --games must be at least 1')
    """
    ap = argparse.ArgumentParser(prog="python -m callbreak.env.train", description=__doc__.split("\n\n")[0])
    ap.add_argument("--updates", type=int, default=400, help="policy-gradient updates (default 400)")
    ap.add_argument("--games", type=int, default=256, help="rounds played per update (default 256)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the deals and the weights (default 0)")
    ap.add_argument(
        "--opponents",
        choices=OPPONENTS,
        default="rule",
        help="who plays seats 1-3 in training: the kernel's rule policy, random, or the policy itself (self-play)",
    )
    ap.add_argument(
        "--rules",
        default="standard",
        metavar="PRESET",
        help="ruleset preset to train on (default standard); the evaluation plays it in matches of 3 rounds",
    )
    ap.add_argument("--eval-seeds", type=int, default=50, help="matches per opponent, each played 4 times")
    ap.add_argument(
        "--save", metavar="FILE.npz", help="write the trained weights (arena spec policy:FILE.npz)"
    )
    a = ap.parse_args(argv)
    # refused before training, not after it
    if a.updates < 1 or a.games < 1:
        ap.error("--updates and --games must be at least 1")
    if a.eval_seeds < 0:
        ap.error("--eval-seeds must be 0 (no evaluation) or more")
    if a.save and not os.path.isdir(os.path.dirname(os.path.abspath(a.save))):
        ap.error(f"cannot write {a.save}: no folder {os.path.dirname(os.path.abspath(a.save))}")
    if a.save and os.path.isdir(a.save):
        ap.error(f"cannot write {a.save}: it is a folder")
    try:
        rules = Ruleset.preset(a.rules)
    except ValueError as e:
        ap.error(str(e))
    start = time.perf_counter()
    res = train(a.updates, a.games, a.seed, ruleset=rules, opponents=a.opponents)
    took = time.perf_counter() - start
    print(
        f"trained {a.updates} updates x {a.games} rounds in {took:.0f} s; "
        f"points/round first 10 updates {np.mean(res.curve[:10]):.2f}, last 10 {np.mean(res.curve[-10:]):.2f}"
    )
    if a.save:
        save(a.save, res.theta)
        print(
            f"weights written to {a.save}: "
            f"callbreak arena policy:{a.save} easy easy easy --duplicate --rules {a.rules} --rounds 3"
            "  (the matches measured below)"
        )
    seeds = range(10_000, 10_000 + a.eval_seeds)
    for level in ("random", "easy") if a.eval_seeds > 0 else ():
        for label, th in (("untrained", initial()), ("trained", res.theta)):
            mine, theirs = evaluate(th, level, seeds, ruleset=rules.replace(rounds=3))
            print(f"{label:9} vs 3 {level:6}: {mine:+.2f} points/round, opponents {theirs:+.2f}")


if __name__ == "__main__":
    main()
