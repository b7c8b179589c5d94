"""The single-agent Gymnasium environment: Gymnasium's own checker, and our promises."""

from __future__ import annotations

import random
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from callbreak import Match, Ruleset
from callbreak.bots import make_bot
from callbreak.env import observation as ob
from callbreak.env.single import ENV_ID, CallbreakEnv


def test_gymnasium_check_env() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either
        check_env(gymnasium.make(ENV_ID, ruleset="quick", opponents="easy").unwrapped)
        check_env(
            gymnasium.make(
                ENV_ID, ruleset="quick", opponents=("random", "easy", "medium"), seat=2, render_mode="ansi"
            ).unwrapped
        )


def play(env: CallbreakEnv, seed: int) -> tuple[float, int]:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps, done = 0.0, 0, False
    while not done:
        assert obs.shape == (ob.SIZE,)
        m = env.match
        assert m.to_act == env.seat  # every observation is one at which the learner acts
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, done, truncated, info = env.step(int(rng.choice(legal)))
        assert not truncated
        total += reward
        steps += 1
    return total, steps


def test_points_reward_is_the_learners_total_and_every_step_is_its_turn() -> None:
    env = CallbreakEnv(ruleset="quick", opponents="easy", seat=1)
    total, steps = play(env, seed=4)
    assert env.match.is_over
    assert total == pytest.approx(float(env.match.totals[1]))
    assert steps == 14 * len(env.match.rounds)  # one call, 13 cards a round


def test_places_reward() -> None:
    env = CallbreakEnv(ruleset="quick", reward="places")
    total, _ = play(env, seed=5)
    assert total == {1: 1.0, 2: 1 / 3, 3: -1 / 3, 4: -1.0}[env.match.places[0]]


def test_the_same_seed_gives_the_same_match_bots_included() -> None:
    a, b = CallbreakEnv(ruleset="quick", opponents="easy"), CallbreakEnv(ruleset="quick", opponents="easy")
    play(a, seed=8)
    play(b, seed=8)
    assert a.match.actions() == b.match.actions()
    assert a.match.round.dealt != Match(Ruleset.preset("quick"), seed=9).round.dealt
    play(b, seed=9)
    assert a.match.actions() != b.match.actions()


def test_the_opponents_are_our_bots() -> None:
    # The bots' moves in the env are what the same bots choose on the same views.
    env = CallbreakEnv(ruleset="quick", opponents="easy", seat=0)
    env.reset(seed=3)
    m = env.match
    acts = m.actions()
    replay = Match(Ruleset.preset("quick"), seed=3)
    bots = {s: make_bot("easy") for s in (1, 2, 3)}
    seeds = random.Random(3)
    for s in (1, 2, 3):
        bots[s].reset(seed=seeds.randrange(2**62))
    for a in acts:
        seat = replay.to_act
        assert seat in bots
        assert bots[seat].act(replay.view(seat)) == a
        replay.act(a)
    assert replay.to_act == 0


def test_an_illegal_action_ends_the_episode_with_the_penalty_and_changes_nothing() -> None:
    env = CallbreakEnv(reward="places")
    _, info = env.reset(seed=2)
    before = env.match.state_key()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert not info["action_mask"].any() and info["illegal_action"] == illegal
    assert env.match.state_key() == before
    with pytest.raises(ValueError, match="reset"):
        env.step(ob.CALL_BASE + 3)


def test_an_action_that_is_not_an_action_number_is_refused_and_changes_nothing() -> None:
    """A researcher's try: 1.5, "3" and True were played as the cards 1, 3 and 1 (the episode
    ended as illegal), None raised int()'s own TypeError."""
    env = CallbreakEnv()
    _, info = env.reset(seed=2)
    before = env.match.state_key()
    for bad in (53.0, 1.5, "53", True, None, np.array([53])):
        with pytest.raises(ValueError, match=r"an action is an int 0\.\.65"):
            env.step(bad)  # type: ignore[arg-type]
    assert env.match.state_key() == before
    call = int(np.flatnonzero(info["action_mask"])[0])
    env.step(np.array(call))  # a 0-d array of an action number is that number
    assert env.match.state_key() != before


def test_a_refused_reset_changes_nothing() -> None:
    """A reset with bad options left the next seedless reset dealing another match (its seed was drawn)."""
    plain = CallbreakEnv()
    plain.reset(seed=1)
    plain.reset()
    refused = CallbreakEnv()
    refused.reset(seed=1)
    with pytest.raises(ValueError, match="dealer"):
        refused.reset(seed=2, options={"dealer": 9})
    refused.reset()
    assert refused.match.state_key() == plain.match.state_key()


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="seat"):
        CallbreakEnv(seat=4)
    with pytest.raises(ValueError, match="opponents"):
        CallbreakEnv(opponents=("easy", "easy"))
    with pytest.raises(ValueError, match="unknown bot level"):
        CallbreakEnv(opponents="grandmaster")


def test_an_opponent_that_fails_mid_match_ends_the_episode_and_the_learner_never_acts_for_it() -> None:
    """A researcher's try: an opponent bot that raised on its third decision let its error out
    of `step` with the learner's action already taken, the episode not ended; the next `step` was
    then played for the bot's seat, with its hidden hand. Now the failure ends the episode
    (`OpponentFailed`, the bot's error as its cause), and `step` asks for `reset()`; an opponent
    whose answer the engine refuses (a call of 99) ends it the same way."""
    from callbreak.bots import Bot
    from callbreak.env.single import OpponentFailed
    from callbreak.round import SeatView

    class Flaky(Bot):
        def __init__(self, answer: object) -> None:
            super().__init__(seed=0)
            self.answer, self.asked = answer, 0

        def act(self, view: SeatView) -> int:
            self.asked += 1
            if self.asked == 3:
                if self.answer is None:
                    raise RuntimeError("out of memory")
                return self.answer  # type: ignore[return-value]
            return view.legal_calls[0] if view.phase == "calling" else view.legal_cards[0]  # type: ignore[return-value]

    for answer, cause in ((None, RuntimeError), (99, Exception)):
        env = CallbreakEnv(ruleset="quick", seat=0, opponents=[Flaky(answer), "easy", "easy"])
        _, info = env.reset(seed=1, options={"dealer": 0})
        with pytest.raises(OpponentFailed, match="seat 1 \\(Flaky\\)") as failed:
            for _ in range(20):
                *_, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert isinstance(failed.value.__cause__, cause)
        log = list(env.match.actions())
        assert env.action_masks().sum() == 0  # no legal action is offered any more
        with pytest.raises(ValueError, match="call reset"):
            env.step(int(np.flatnonzero(ob.mask(env.match.view(env.match.to_act or 0)))[0]))
        assert list(env.match.actions()) == log  # nothing was played for seat 1
        env.reset(seed=2)  # and a new episode goes on as usual
        assert env.match.to_act == 0 and env.action_masks().any()
