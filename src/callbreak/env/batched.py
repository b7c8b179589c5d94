"""Many games stepped at once on the compiled kernel (numba): throughput for self-play at scale.

`BatchedEnv` holds ``n`` independent games as arrays (hand masks, the trick, the leader,
calls, tricks won, points) and steps them all with one call.  Seat 0 of every game learns;
the three other seats are played inside the compiled loop by a built-in policy:
``"rule"`` (the search's rule-of-thumb playout policy, `callbreak.bots.kernel`, calling
the ``easy`` level's count of sure tricks) or ``"random"`` (uniform legal calls and cards).
Every `step` takes one action per game (seat 0's) and advances each game to seat 0's next
decision; an episode is one round (one deal), and a game whose round ends is dealt the
next round at once (the dealer moves on), so every row always awaits an action.  Each game
draws its deals and its built-in seats' choices from two generators of its own, both from
``seed``: the same seed deals the same sequence of rounds whatever seat 0 plays (duplicate
deals, to compare two policies on the same cards).

The observation is `callbreak.env.observation`'s 556 floats from seat 0's side (totals
0 and round 1: every episode is a round), the mask its 66 legal actions, the reward seat 0's
points of the round when it ends (``done``).  Legal cards and trick winners are the
kernel's (`kernel.legal_mask`, `kernel.trick_winner`, held to `callbreak.Round` by its
tests); the calls, redeals and points are re-stated here and held to `callbreak.Round` by
``tests/env/test_batched.py``, which replays finished rounds (`finished`) through the engine.

>>> env = BatchedEnv(8, ruleset="standard", seed=1)
>>> obs, mask = env.reset()
>>> obs.shape, mask.shape, bool(mask[:, 52:].any(axis=1).all())
((8, 556), (8, 66), True)
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> total = np.zeros(8)
>>> for _ in range(14):
...     acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
...     obs, mask, reward, done = env.step(acts)
...     total += reward
>>> bool(done.all())  # a round is 14 decisions of seat 0: one call, 13 cards
True
"""

from __future__ import annotations

from typing import NamedTuple

from ..extras import need

try:
    import numpy as np
    import numpy.typing as npt

    from ..bots.kernel.core import _jit, _kth, _low, _pop, _rand, legal_mask, rules_array, trick_winner
    from ..bots.kernel.policy import _policy
except ModuleNotFoundError:
    need("the batched environment (numba)", "bots")
    raise  # (a module there, broken: its own error)
from ..rules import Ruleset
from ..seeds import check_seed
from . import observation as ob

__all__ = ["OPPONENTS", "POLICIES", "BatchedEnv", "Finished"]

POLICIES = ("rule", "random")
"""The built-in policies of the seats that do not learn."""
OPPONENTS = (*POLICIES, "self")
"""What ``opponents`` may be: a built-in policy, or ``"self"``: the caller plays every seat."""
SELF = 2  # OPPONENTS.index("self")

# columns of the per-game int64 state ``g``
NT, LEADER, TN, PLAYED, DEALER, TO_ACT, PHASE, RNG, NLOG, BRNG, REDEALS, REDEAL_TOTAL = range(12)
G = 12
LOG = 56  # actions in a round: 4 calls + 52 cards
FACE = np.int64(0xF << 9)  # J Q K A of a suit
SUITM = 0x1FFF  # a plain int: numba folds it as an int64 constant
A = np.ndarray


def _extra(rules: Ruleset) -> npt.NDArray[np.int64]:
    """The rules the kernel's array leaves out: min_call, max_call, min_total_calls, the redeals."""
    return np.array(
        [
            rules.min_call,
            rules.max_call,
            rules.min_total_calls,
            int(rules.redeal_without_trump),
            int(rules.redeal_without_face_card),
        ],
        dtype=np.int64,
    )


@_jit
def score_tenths(call: int, won: int, P: np.ndarray) -> int:
    """`callbreak.scoring.score_tenths` on the kernel's rules array.

    >>> from callbreak import Ruleset
    >>> from callbreak.bots.kernel.core import rules_array
    >>> from callbreak.scoring import score_tenths as engine_score
    >>> P = rules_array(Ruleset())
    >>> [score_tenths(3, won, P) for won in (2, 3, 5)], [engine_score(3, won, Ruleset()) for won in (2, 3, 5)]
    ([-30, 30, 32], [-30, 30, 32])
    """
    if won >= call and (P[6] < 0 or won - call <= P[6]):
        base = call
        if P[8] >= 0 and call >= P[8]:
            base = P[9]
        return int(base * 10 + P[5] * (won - call))
    if P[7] == 2:
        return 0
    if P[7] == 1 and won < call:
        return -10 * (call - won)
    return -10 * call


@_jit
def _deal(i: int, g: np.ndarray, hands: np.ndarray, dealt: np.ndarray, P: np.ndarray, X: np.ndarray) -> None:
    """Shuffle and deal game ``i`` again (same dealer) until the rules accept the deal."""
    rng = g[i, RNG : RNG + 1]
    deck = np.arange(52)
    tmask = SUITM << (13 * P[0])
    while True:
        for k in range(51, 0, -1):
            j = _rand(rng, k + 1)
            x = deck[k]
            deck[k] = deck[j]
            deck[j] = x
        for s in range(4):
            hands[i, s] = 0
        for k in range(52):
            hands[i, k & 3] |= np.int64(1) << deck[k]
        ok = True
        for s in range(4):
            h = hands[i, s]
            if X[3] != 0 and h & tmask == 0:
                ok = False
            if X[4] != 0 and h & (FACE | FACE << 13 | FACE << 26 | FACE << 39) == 0:
                ok = False
        if ok:
            break
    for s in range(4):
        dealt[i, s] = hands[i, s]
    g[i, LEADER] = (g[i, DEALER] + 1) & 3
    g[i, TO_ACT] = g[i, LEADER]
    g[i, PHASE] = 0
    g[i, NT] = 0
    g[i, TN] = 0
    g[i, PLAYED] = 0
    g[i, NLOG] = 0


@_jit
def _new_round(i: int, g: A, hands: A, dealt: A, calls: A, won: A, pby: A, pubvoid: A, P: A, X: A) -> None:
    for s in range(4):
        calls[i, s] = -1
        won[i, s] = 0
        pby[i, s] = 0
        pubvoid[i, s] = 0
    _deal(i, g, hands, dealt, P, X)


@_jit
def _sure(hand: int, t: int) -> float:
    """The ``easy`` level's count of sure tricks (`callbreak.bots.easy.sure_tricks`)."""
    tv = (hand >> (13 * t)) & SUITM
    nt = _pop(tv)
    count = float((tv >> 12) & 1)
    if (tv >> 11) & 1 and nt >= 2:
        count += 1
    if (tv >> 10) & 1 and nt >= 3:
        count += 1
    count += max(nt - 3, 0)
    for s in range(4):
        if s == t:
            continue
        v = (hand >> (13 * s)) & SUITM
        n = _pop(v)
        if (v >> 12) & 1 and n <= 5:
            count += 1
        if (v >> 11) & 1 and n >= 2:
            count += 0.5
    return count


@_jit
def _apply(
    i: int,
    a: int,
    g: A,
    hands: A,
    dealt: A,
    trick: A,
    calls: A,
    won: A,
    pby: A,
    pubvoid: A,
    log: A,
    logl: A,
    wins: A,
    P: A,
    X: A,
    fin: A,
    fin_n: A,
) -> int:
    """Seat to act in game ``i`` takes action ``a`` (a card 0..51 or 52 + a call).  Returns
    1 when the round ends (its record copied to the next row of ``fin``), else 0."""
    s = g[i, TO_ACT]
    k = g[i, NLOG]
    log[i, k] = a
    g[i, NLOG] = k + 1
    if g[i, PHASE] == 0:
        logl[i, k] = 0
        calls[i, s] = a - 52
        if s == g[i, DEALER]:
            total = calls[i, 0] + calls[i, 1] + calls[i, 2] + calls[i, 3]
            if total < X[2]:  # a redeal by the same dealer: the round starts again
                g[i, REDEALS] += 1
                g[i, REDEAL_TOTAL] = total
                _new_round(i, g, hands, dealt, calls, won, pby, pubvoid, P, X)
                return 0
            g[i, PHASE] = 1
            g[i, TO_ACT] = g[i, LEADER]
        else:
            g[i, TO_ACT] = (s + 1) & 3
        return 0
    n = g[i, NT]
    logl[i, k] = legal_mask(hands[i, s], trick[i], n, P, g[i, TN], g[i, PLAYED])
    trick[i, n] = a
    if n > 0 and a // 13 != trick[i, 0] // 13:
        pubvoid[i, s] |= np.int64(1) << (trick[i, 0] // 13)
    bit = np.int64(1) << a
    hands[i, s] ^= bit
    pby[i, s] |= bit
    g[i, PLAYED] |= bit
    if n < 3:
        g[i, NT] = n + 1
        g[i, TO_ACT] = (s + 1) & 3
        return 0
    w = (g[i, LEADER] + trick_winner(trick[i], P[0])) & 3
    wins[i, g[i, TN]] = w
    won[i, w] += 1
    g[i, NT] = 0
    g[i, TN] += 1
    g[i, LEADER] = w
    g[i, TO_ACT] = w
    if g[i, TN] < 13:
        return 0
    r = fin_n[0]
    if r < fin.shape[0]:
        fin[r, 0] = i
        fin[r, 1] = g[i, DEALER]
        for o in range(4):
            fin[r, 2 + o] = dealt[i, o]
            fin[r, 6 + o] = calls[i, o]
            fin[r, 10 + o] = won[i, o]
            fin[r, 14 + o] = score_tenths(calls[i, o], won[i, o], P)
        for t in range(13):
            fin[r, 18 + t] = wins[i, t]
        for t in range(LOG):
            fin[r, 31 + t] = log[i, t]
            fin[r, 31 + LOG + t] = logl[i, t]
        fin_n[0] = r + 1
    return 1


@_jit
def _bot(i: int, g: A, hands: A, trick: A, calls: A, won: A, pubvoid: A, P: A, X: A, kind: int) -> int:
    """The built-in policy's action for the seat to act in game ``i``."""
    s = g[i, TO_ACT]
    rng = g[i, BRNG : BRNG + 1]
    if g[i, PHASE] == 0:
        if kind == 1:
            return int(52 + X[0] + _rand(rng, X[1] - X[0] + 1))
        c = int(np.rint(_sure(hands[i, s], P[0])))  # halves to even, as Python's round()
        return int(52 + min(max(c, X[0]), X[1]))
    lm = legal_mask(hands[i, s], trick[i], g[i, NT], P, g[i, TN], g[i, PLAYED])
    if kind == 1:
        return _kth(lm, _rand(rng, _pop(lm)))
    low_duck = P[5] > 0 and P[6] < 0
    return _policy(
        hands[i], s, lm, trick[i], g[i, NT], P[0], won[i, s] < calls[i, s], rng, 0, pubvoid[i], low_duck
    )


@_jit
def _run(
    acts: A,
    g: A,
    hands: A,
    dealt: A,
    trick: A,
    calls: A,
    won: A,
    pby: A,
    pubvoid: A,
    log: A,
    logl: A,
    wins: A,
    P: A,
    X: A,
    kind: int,
    reward: A,
    done: A,
    fin: A,
    fin_n: A,
) -> None:
    """The seat to act in each game takes ``acts[i]`` (skipped when negative); then, unless
    every seat is the caller's (``kind`` 2, self-play), the other seats play until seat 0 is
    to act again.  ``reward[i]`` holds the four seats' points of a round that ended."""
    for i in range(g.shape[0]):
        reward[i, :] = 0.0
        done[i] = 0
        if acts[i] >= 0 and _apply(
            i, acts[i], g, hands, dealt, trick, calls, won, pby, pubvoid, log, logl, wins, P, X, fin, fin_n
        ):
            _end_round(i, g, hands, dealt, calls, won, pby, pubvoid, P, X, reward, done)
        while kind != SELF and g[i, TO_ACT] != 0:
            a = _bot(i, g, hands, trick, calls, won, pubvoid, P, X, kind)
            if _apply(
                i, a, g, hands, dealt, trick, calls, won, pby, pubvoid, log, logl, wins, P, X, fin, fin_n
            ):
                _end_round(i, g, hands, dealt, calls, won, pby, pubvoid, P, X, reward, done)


@_jit
def _end_round(
    i: int, g: A, hands: A, dealt: A, calls: A, won: A, pby: A, pubvoid: A, P: A, X: A, reward: A, done: A
) -> None:
    """Game ``i``'s round is over: its points into ``reward``, the next dealer deals."""
    for s in range(4):
        reward[i, s] = score_tenths(calls[i, s], won[i, s], P) / 10.0
    done[i] = 1
    g[i, DEALER] = (g[i, DEALER] + 1) & 3
    _new_round(i, g, hands, dealt, calls, won, pby, pubvoid, P, X)


@_jit
def _observe(
    obs: A, mask: A, g: A, hands: A, trick: A, calls: A, won: A, pby: A, P: A, X: A, kind: int
) -> None:
    """The observation and legal actions of the seat to act in every game (seat 0 unless
    ``kind`` is self-play), seats relative to it (the layout of `observation`)."""
    obs[:] = 0.0
    mask[:] = 0
    for i in range(g.shape[0]):
        me = g[i, TO_ACT] if kind == SELF else 0
        h = hands[i, me]
        m = h
        while m != 0:
            obs[i, _low(m)] = 1.0
            m &= m - 1
        n = g[i, NT]
        for rel in range(4):
            s = (me + rel) & 3
            m = pby[i, s]
            while m != 0:
                obs[i, 52 + 52 * rel + _low(m)] = 1.0
                m &= m - 1
            c = calls[i, s]
            obs[i, 468 + 15 * rel + (14 if c < 0 else c)] = 1.0
            obs[i, 528 + rel] = won[i, s]
        ld = g[i, LEADER]
        for k in range(n):
            obs[i, 260 + 52 * ((ld + k - me) & 3) + trick[i, k]] = 1.0
        obs[i, 536] = 1.0
        obs[i, 537 + g[i, PHASE]] = 1.0
        obs[i, 539 + ((g[i, TO_ACT] - me) & 3)] = 1.0
        obs[i, 543 + ((ld - me) & 3)] = 1.0
        obs[i, 547 + ((g[i, DEALER] - me) & 3)] = 1.0
        obs[i, 551 + P[0]] = 1.0
        if g[i, PHASE] == 0:
            for c in range(X[0], X[1] + 1):
                mask[i, 52 + c] = 1
        else:
            m = legal_mask(h, trick[i], n, P, g[i, TN], g[i, PLAYED])
            while m != 0:
                mask[i, _low(m)] = 1
                m &= m - 1


class Finished(NamedTuple):
    """Rounds that ended during the last `step`, one row each (for replays and checks).

    >>> import numpy as np
    >>> env = BatchedEnv(2, ruleset="standard", seed=4)
    >>> obs, mask = env.reset()
    >>> rng = np.random.default_rng(0)
    >>> for _ in range(14):   # seat 0's call and 13 cards: every game's round ends
    ...     legal = [np.flatnonzero(m) for m in mask]
    ...     obs, mask, reward, done = env.step(np.array([rng.choice(a) for a in legal]))
    >>> f = env.finished
    >>> f.game.tolist(), f.calls.shape, f.won.sum(axis=1).tolist(), f.actions.shape
    ([0, 1], (2, 4), [13, 13], (2, 56))
    """

    game: npt.NDArray[np.int64]
    dealer: npt.NDArray[np.int64]
    dealt: npt.NDArray[np.int64]  # (k, 4) hand masks
    calls: npt.NDArray[np.int64]  # (k, 4)
    won: npt.NDArray[np.int64]  # (k, 4)
    points_tenths: npt.NDArray[np.int64]  # (k, 4)
    winners: npt.NDArray[np.int64]  # (k, 13) the seat winning each trick
    actions: npt.NDArray[np.int64]  # (k, 56) calls as 52 + n, then cards, in order
    legal: npt.NDArray[np.int64]  # (k, 56) the legal-card mask before each card (0 for calls)


class BatchedEnv:
    """``n`` games of ``ruleset`` (a `Ruleset` or a preset's name), seat 0 learning against
    ``opponents`` (one of `POLICIES`), or every seat played by the caller (``"self"``,
    self-play).  ``seed``: the same seed deals the same games and, given the same actions,
    plays them the same.

    In self-play each observation is that of the seat to act in its game (`to_act`), seats
    relative to it as in `callbreak.env.observation`, and the reward has one column per
    seat: the four seats' points of a round that ended (0 elsewhere).

    >>> env = BatchedEnv(4, ruleset="standard", opponents="self", seed=2)
    >>> obs, mask = env.reset()
    >>> [int(s) for s in env.to_act] == [(int(d) + 1) % 4 for d in env.g[:, DEALER]]
    True
    >>> rng = np.random.default_rng(0)
    >>> points = np.zeros((4, 4))
    >>> for _ in range(56):  # 4 calls and 52 cards
    ...     acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
    ...     obs, mask, reward, done = env.step(acts)
    ...     points += reward
    >>> reward.shape, bool(done.all()), [int(w) for w in env.finished.won.sum(axis=1)]
    ((4, 4), True, [13, 13, 13, 13])
    """

    def __init__(
        self, n: int, ruleset: Ruleset | str | None = None, opponents: str = "rule", seed: int = 0
    ) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be a positive int, not {n!r}")
        if opponents not in OPPONENTS:
            raise ValueError(f"opponents must be one of {OPPONENTS}, not {opponents!r}")
        self.n = n
        if isinstance(ruleset, str):
            ruleset = Ruleset.preset(ruleset)
        if ruleset is not None and not isinstance(ruleset, Ruleset):
            raise ValueError(f"ruleset must be a Ruleset or a preset's name, not {ruleset!r}")
        self.rules = ruleset or Ruleset()
        self.opponents = opponents
        self.seed = seed
        self._P = rules_array(self.rules)
        self._X = _extra(self.rules)
        self._kind = OPPONENTS.index(opponents)
        self.obs = np.zeros((n, ob.SIZE), dtype=np.float32)
        self.mask = np.zeros((n, ob.N_ACTIONS), dtype=np.int8)
        self._reward = np.zeros((n, 4))
        self.reward = self._reward if self._kind == SELF else self._reward[:, 0]
        self.done = np.zeros(n, dtype=np.int8)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """Deal every game anew (``seed``: this env's seed if None); seat 0's observations and masks."""
        if seed is not None:
            self.seed = check_seed(seed)  # (a bad seed: ValueError, nothing changed)
        n = self.n
        ss = np.random.SeedSequence(self.seed).generate_state(4 * n, dtype=np.uint32).astype(np.int64)
        self.g = np.zeros((n, G), dtype=np.int64)
        self.g[:, RNG] = ((ss[0::4] << 16) ^ ss[1::4]) & 0xFFFFFFFFFFFF
        self.g[:, BRNG] = ((ss[2::4] << 16) ^ ss[3::4]) & 0xFFFFFFFFFFFF
        self.g[:, DEALER] = ss[0::4] & 3
        self.hands = np.zeros((n, 4), dtype=np.int64)
        self.dealt = np.zeros((n, 4), dtype=np.int64)
        self.trick = np.zeros((n, 4), dtype=np.int64)
        self.calls = np.zeros((n, 4), dtype=np.int64)
        self.won = np.zeros((n, 4), dtype=np.int64)
        self.played_by = np.zeros((n, 4), dtype=np.int64)
        self._pubvoid = np.zeros((n, 4), dtype=np.int64)
        self._log = np.zeros((n, LOG), dtype=np.int64)
        self._logl = np.zeros((n, LOG), dtype=np.int64)
        self._wins = np.zeros((n, 13), dtype=np.int64)
        for i in range(n):
            _new_round(
                i,
                self.g,
                self.hands,
                self.dealt,
                self.calls,
                self.won,
                self.played_by,
                self._pubvoid,
                self._P,
                self._X,
            )
        self._advance(np.full(n, -1, dtype=np.int64))
        return self.obs, self.mask

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.float64], npt.NDArray[np.int8]]:
        """Seat 0 of game ``i`` (in self-play, its seat to act) takes ``actions[i]``; every
        game then runs to seat 0's next decision (in self-play, to the next decision).
        Returns (obs, mask, reward, done), arrays reused by the next step.
        An illegal action raises ValueError and changes nothing."""
        given = np.asarray(actions)
        if given.dtype.kind not in "iu":  # (53.7 was played as 53, True as 1)
            raise ValueError(f"actions must be integers (action numbers 0..{ob.N_ACTIONS - 1}), not {given.dtype}")
        acts = given.astype(np.int64)
        if acts.shape != (self.n,):
            raise ValueError(f"actions must have shape ({self.n},), not {acts.shape}")
        bad = (acts < 0) | (acts >= ob.N_ACTIONS)
        if not bad.any():
            bad = self.mask[np.arange(self.n), acts] == 0
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"game {i}: action {int(acts[i])} is not legal now")
        self._advance(acts)
        return self.obs, self.mask, self.reward, self.done

    def _advance(self, acts: npt.NDArray[np.int64]) -> None:
        self._fin = np.zeros((2 * self.n, 31 + 2 * LOG), dtype=np.int64)
        self._fin_n = np.zeros(1, dtype=np.int64)
        _run(
            acts,
            self.g,
            self.hands,
            self.dealt,
            self.trick,
            self.calls,
            self.won,
            self.played_by,
            self._pubvoid,
            self._log,
            self._logl,
            self._wins,
            self._P,
            self._X,
            self._kind,
            self._reward,
            self.done,
            self._fin,
            self._fin_n,
        )
        _observe(
            self.obs,
            self.mask,
            self.g,
            self.hands,
            self.trick,
            self.calls,
            self.won,
            self.played_by,
            self._P,
            self._X,
            self._kind,
        )

    @property
    def to_act(self) -> npt.NDArray[np.int64]:
        """The seat whose observation each game's row holds (always 0 unless self-play)."""
        return self.g[:, TO_ACT].copy()

    @property
    def finished(self) -> Finished:
        """The rounds that ended during the last `step` (all four seats' records)."""
        f = self._fin[: int(self._fin_n[0])]
        return Finished(
            f[:, 0],
            f[:, 1],
            f[:, 2:6],
            f[:, 6:10],
            f[:, 10:14],
            f[:, 14:18],
            f[:, 18:31],
            f[:, 31 : 31 + LOG],
            f[:, 31 + LOG :],
        )
