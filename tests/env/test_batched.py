"""The batched environment held to the engine: every finished round replayed through
`callbreak.Round` (each call legal, each legal-card mask, each trick winner, the tricks won and
the points the same), and every observation and mask the one `observation` makes from the
engine's `SeatView` of the same position."""

from __future__ import annotations

import numpy as np
import pytest

from callbreak import Round, Ruleset
from callbreak.env import observation as ob
from callbreak.env.batched import DEALER, LOG, NLOG, REDEAL_TOTAL, REDEALS, BatchedEnv

RULESETS = {
    "standard": Ruleset(),
    "bhoos": Ruleset.preset("bhoos"),
    "pagat": Ruleset.preset("pagat"),
    "variants": Ruleset(
        trump="H",
        trump_lead="after_broken",
        must_undertrump=True,
        missed_penalty="shortfall",
        max_overtricks=2,
        redeal_without_trump=True,
        redeal_without_face_card=True,
        min_total_calls=11,
    ),
    "first_trick": Ruleset(trump_lead="not_first_trick", missed_penalty="zero", head_after_cut=False),
}


def replay(rules: Ruleset, env: BatchedEnv) -> int:
    """Replay the rounds that ended in the last step; how many."""
    f = env.finished
    for r in range(len(f.game)):
        rnd = Round(rules, [int(m) for m in f.dealt[r]], int(f.dealer[r]))
        for k in range(LOG):
            a = int(f.actions[r, k])
            if a >= ob.CALL_BASE:
                assert a - ob.CALL_BASE in rnd.legal_calls()
                rnd.call(a - ob.CALL_BASE)
            else:
                assert rnd.legal_mask() == int(f.legal[r, k])
                rnd.play(a)
        assert rnd.phase == "over"
        assert [t.winner for t in rnd.tricks] == [int(w) for w in f.winners[r]]
        assert rnd.calls == [int(c) for c in f.calls[r]]
        assert rnd.tricks_won == [int(w) for w in f.won[r]]
        assert rnd.points_tenths() == [int(p) for p in f.points_tenths[r]]
    return len(f.game)


def engine_position(rules: Ruleset, env: BatchedEnv, i: int) -> Round:
    """Game ``i``'s round so far, rebuilt in the engine from its deal and its actions."""
    rnd = Round(rules, [int(m) for m in env.dealt[i]], int(env.g[i, DEALER]))
    for a in env._log[i, : int(env.g[i, NLOG])]:
        rnd.act(int(a) - ob.CALL_BASE if a >= ob.CALL_BASE else int(a))
    return rnd


@pytest.mark.parametrize("name", sorted(RULESETS))
@pytest.mark.parametrize("opponents", ["rule", "random", "self"])
def test_rounds_replay_in_the_engine(name: str, opponents: str) -> None:
    """Also self-play: each row is the view of its seat to act, the reward every seat's points."""
    rules = RULESETS[name]
    env = BatchedEnv(12, ruleset=rules, opponents=opponents, seed=7)
    rng = np.random.default_rng(1)
    obs, mask = env.reset()
    replayed = steps = 0
    seats_seen: set[int] = set()
    while replayed < 30:
        seats = env.to_act
        seats_seen.update(int(s) for s in seats)
        assert (seats == 0).all() or opponents == "self"
        for i in range(env.n):
            rnd = engine_position(rules, env, i)
            assert rnd.to_act == seats[i]
            view = rnd.view(int(seats[i]))
            want = ob.observe(view)
            want[ob.OFFSETS["totals"] : ob.OFFSETS["totals"] + 4] = 0
            assert np.array_equal(obs[i], want), (i, np.flatnonzero(obs[i] != want))
            assert np.array_equal(mask[i], ob.mask(view))
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        if opponents == "self":  # low calls now and then, so that redeals happen
            low = mask[:, ob.CALL_BASE :].argmax(axis=1) + ob.CALL_BASE
            acts = np.where((mask[:, ob.CALL_BASE :].any(axis=1)) & (rng.random(env.n) < 0.6), low, acts)
        before = env.g[:, REDEALS].copy()
        obs, mask, reward, done = env.step(acts)
        for i in np.flatnonzero(env.g[:, REDEALS] != before):
            # the engine's rule: the same dealer deals again when the calls total less
            assert env.g[i, REDEALS] == before[i] + 1
            assert env.g[i, REDEAL_TOTAL] < rules.min_total_calls
        n = replay(rules, env)
        assert n == int(done.sum())
        f = env.finished
        if opponents == "self":
            assert reward.shape == (env.n, 4)
            assert np.array_equal(reward[f.game], f.points_tenths / 10)
            assert not reward[done == 0].any()
        else:
            assert np.allclose(np.sort(reward[done == 1]), np.sort(f.points_tenths[:, 0] / 10))
        replayed += n
        steps += 1
    assert steps >= (56 if opponents == "self" else 14)
    if opponents == "self":
        assert len(set(seats_seen)) == 4
    assert (env.g[:, REDEALS].sum() > 0) == (rules.min_total_calls > 0)


def test_same_seed_same_games() -> None:
    def run(seed: int) -> list[np.ndarray]:
        env = BatchedEnv(32, opponents="rule", seed=seed)
        obs, mask = env.reset()
        out = []
        for _ in range(30):
            acts = np.argmax(mask, axis=1)  # the first legal action: deterministic
            obs, mask, reward, _ = env.step(acts)
            out += [obs.copy(), reward.copy()]
        return out

    a, b, c = run(3), run(3), run(4)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


def test_reset_with_the_seed_repeats_the_deals() -> None:
    env = BatchedEnv(4, seed=9)
    first = env.dealt.copy()
    env.step(np.argmax(env.mask, axis=1))
    env.reset(9)
    assert np.array_equal(env.dealt, first)
    assert len({tuple(h) for h in first}) == 4  # four different games


def test_illegal_action_is_refused_and_changes_nothing() -> None:
    env = BatchedEnv(3, seed=2)
    obs, mask = env.reset()
    before = (obs.copy(), env.hands.copy(), env.calls.copy())
    acts = np.argmax(mask, axis=1)
    acts[1] = 52  # a call of 0: never legal
    with pytest.raises(ValueError, match="game 1: action 52 is not legal"):
        env.step(acts)
    with pytest.raises(ValueError, match="shape"):
        env.step(acts[:2])
    with pytest.raises(ValueError, match="not legal"):
        env.step(np.array([70, 53, 53]))
    with pytest.raises(ValueError, match="integers"):  # (53.7 was played as 53)
        env.step(acts + 0.7)
    with pytest.raises(ValueError, match="integers"):
        env.step(acts == acts)
    assert np.array_equal(env.obs, before[0])
    assert np.array_equal(env.hands, before[1]) and np.array_equal(env.calls, before[2])


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="positive"):
        BatchedEnv(0)
    with pytest.raises(ValueError, match="opponents"):
        BatchedEnv(2, opponents="hard")
    env = BatchedEnv(2, seed=5)
    with pytest.raises(ValueError, match="seed must be a whole number from 0, not -1"):
        env.reset(-1)
    assert env.seed == 5  # (refused before anything changed)
    # NumPy's integers are whole numbers too (a reviewer's read: they were refused)
    assert BatchedEnv(2, seed=np.int64(5)).reset(np.int64(5))[0].tolist() == env.reset(5)[0].tolist()


def test_deals_do_not_depend_on_the_learners_play() -> None:
    """Duplicate deals: two policies on one seed meet the same sequence of rounds."""

    def deals(pick_last: bool) -> list[np.ndarray]:
        env = BatchedEnv(16, seed=5)
        out = [env.dealt.copy()]
        for _ in range(3 * 14):
            m = env.mask
            acts = 65 - np.argmax(m[:, ::-1], axis=1) if pick_last else np.argmax(m, axis=1)
            env.step(acts)
            if env.done.any():
                out.append(env.dealt.copy())
        return out

    a, b = deals(False), deals(True)
    assert len(a) == len(b) == 4
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
