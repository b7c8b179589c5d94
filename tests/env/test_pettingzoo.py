"""The PettingZoo AEC environment: PettingZoo's own API and seed tests, and our promises."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from callbreak import IllegalAction, Match, Round, Ruleset
from callbreak.env import callbreak_v0
from callbreak.env import observation as ob
from callbreak.env.callbreak_v0 import AGENTS, PLACE_REWARD


def play_random(env: object, seed: int, max_steps: int = 10_000) -> dict[str, float]:
    """Play the episode with random legal actions; the cumulative reward of each agent."""
    rng = np.random.default_rng(seed)
    got: dict[str, float] = dict.fromkeys(AGENTS, 0.0)
    for n, agent in enumerate(env.agent_iter()):  # type: ignore[attr-defined]
        obs, reward, term, trunc, _ = env.last()  # type: ignore[attr-defined]
        got[agent] += reward
        if term or trunc:
            env.step(None)  # type: ignore[attr-defined]
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))  # type: ignore[attr-defined]
        assert n < max_steps
    return got


def test_pettingzoo_api_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the dict observation warnings every classic env gets
        api_test(callbreak_v0.env(ruleset="quick"), num_cycles=300)


def test_pettingzoo_state_test_and_the_state_holds_every_hand() -> None:
    """A researcher's try: `state()` raised NotImplementedError, so a centralised critic (MAPPO)
    had no global state."""
    from pettingzoo.test.state_test import test_state, test_state_space

    e = callbreak_v0.env(ruleset="quick")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        test_state_space(e)
        test_state(e, 300)
    raw = callbreak_v0.raw_env(ruleset="quick", seed=4)
    raw.reset()
    state = raw.state().reshape(4, ob.SIZE)
    for seat, agent in enumerate(AGENTS):
        assert np.array_equal(state[seat], raw.observe(agent)["observation"])
        held = np.flatnonzero(state[seat][ob.OFFSETS["hand"] : ob.OFFSETS["hand"] + 52])
        assert sorted(int(c) for c in raw.match.round.hands[seat]) == list(held)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: callbreak_v0.env(ruleset="quick"), num_cycles=300)


def test_the_same_seed_deals_the_same_cards_and_another_seed_does_not() -> None:
    a, b = callbreak_v0.raw_env(), callbreak_v0.raw_env()
    a.reset(seed=9)
    b.reset(seed=9)
    assert a.match.round.dealt == b.match.round.dealt == Match(Ruleset(), seed=9).round.dealt
    a.reset()
    b.reset()  # the next seed follows from the last one given
    assert a.match.round.dealt == b.match.round.dealt
    b.reset(seed=10)
    assert a.match.round.dealt != b.match.round.dealt
    c, d = callbreak_v0.raw_env(seed=4), callbreak_v0.raw_env(seed=4)
    c.reset()
    d.reset()
    assert c.match.seed == d.match.seed == 4


def test_the_action_mask_is_the_engines_legal_moves() -> None:
    e = callbreak_v0.raw_env(ruleset=Ruleset.preset("bhoos"))
    e.reset(seed=2)
    seat = e.match.to_act
    assert seat is not None
    mask = e.observe(AGENTS[seat])["action_mask"]
    assert list(np.flatnonzero(mask)) == [ob.CALL_BASE + n for n in range(1, 9)]  # bhoos: calls 1..8
    others = [a for a in AGENTS if a != AGENTS[seat]]
    assert all(not e.observe(a)["action_mask"].any() for a in others)
    for _ in range(4):
        e.step(ob.CALL_BASE + 2)
    rnd = e.match.round
    mask = e.observe(e.agent_selection)["action_mask"]
    assert sorted(np.flatnonzero(mask)) == sorted(int(c) for c in rnd.legal_cards())


def test_an_observation_is_made_of_the_seats_view_only() -> None:
    # Two deals that differ by one same-suit swap between seats 1 and 2: seat 0 sees the
    # same table as long as the same actions are taken, so its observations are equal.
    hands = Round.deal_hands(seed=5, dealer=3)
    h1, h2 = hands[1], hands[2]
    suit = next(
        s for s in range(4) if any(c.suit_index == s for c in h1) and any(c.suit_index == s for c in h2)
    )
    c1 = next(c for c in h1 if c.suit_index == suit)
    c2 = next(c for c in h2 if c.suit_index == suit)
    swapped = [list(h) for h in hands]
    swapped[1] = sorted([c for c in h1 if c != c1] + [c2])
    swapped[2] = sorted([c for c in h2 if c != c2] + [c1])
    a, b = callbreak_v0.raw_env(), callbreak_v0.raw_env()
    a.reset(seed=1, options={"dealt": hands, "dealer": 3})
    b.reset(seed=1, options={"dealt": swapped, "dealer": 3})
    assert not np.array_equal(a.observe("player_1")["observation"], b.observe("player_1")["observation"])
    steps = 0
    while a.agent_selection == b.agent_selection and not a.terminations[a.agent_selection]:
        oa, obb = a.observe("player_0"), b.observe("player_0")
        assert np.array_equal(oa["observation"], obb["observation"])
        assert np.array_equal(oa["action_mask"], obb["action_mask"])
        agent = a.agent_selection
        both = np.flatnonzero(a.observe(agent)["action_mask"] & b.observe(agent)["action_mask"])
        if not len(both):
            break
        a.step(int(both[-1]))
        b.step(int(both[-1]))
        steps += 1
    assert steps >= 30  # the calls and most of the round


def test_points_rewards_add_up_to_the_match_totals() -> None:
    e = callbreak_v0.env(ruleset="quick")
    e.reset(seed=11)
    got = play_random(e, seed=11)
    m = e.unwrapped.match
    assert m.is_over
    assert got == pytest.approx({a: float(t) for a, t in zip(AGENTS, m.totals)})


def test_places_rewards_come_once_at_the_end() -> None:
    e = callbreak_v0.env(ruleset="quick", reward="places")
    e.reset(seed=12)
    got = play_random(e, seed=12)
    m = e.unwrapped.match
    assert got == pytest.approx({a: PLACE_REWARD[p] for a, p in zip(AGENTS, m.places)})
    assert sorted(got.values())[-1] == 1.0


def test_an_illegal_action_raises_in_the_raw_env_and_changes_nothing() -> None:
    e = callbreak_v0.raw_env()
    e.reset(seed=3)
    before = e.match.state_key()
    with pytest.raises(IllegalAction):
        e.step(0)  # a card during the calls
    with pytest.raises(ValueError, match=r"0\.\.65"):
        e.step(66)
    with pytest.raises(IllegalAction):
        e.step(ob.CALL_BASE + 0)  # a call of 0 is never legal
    assert e.match.state_key() == before


def test_an_action_as_a_0d_array_is_its_number_as_in_the_gymnasium_env() -> None:
    """An RL researcher's try: ``step(np.array(53))`` (a scalar tensor's ``.numpy()``) was refused
    here and taken by the Gymnasium environment."""
    for make in (callbreak_v0.raw_env, callbreak_v0.env):
        a, b, fresh = make(ruleset="quick"), make(ruleset="quick"), make(ruleset="quick")
        for e in (a, b, fresh):
            e.reset(seed=1)
        a.step(np.array(ob.CALL_BASE + 1))
        b.step(ob.CALL_BASE + 1)
        assert a.unwrapped.match.state_key() == b.unwrapped.match.state_key() != fresh.unwrapped.match.state_key()


def test_a_refused_reset_changes_nothing() -> None:
    """A reset with bad options left the next seedless reset dealing another match."""
    plain = callbreak_v0.raw_env()
    plain.reset(seed=1)
    plain.reset()
    refused = callbreak_v0.raw_env()
    refused.reset(seed=1)
    with pytest.raises(ValueError, match="dealer"):
        refused.reset(seed=2, options={"dealer": 9})
    refused.reset()
    assert refused.match.state_key() == plain.match.state_key()


def test_a_negative_seed_is_refused_and_changes_nothing() -> None:
    """``reset(seed=-1)`` dealt what ``seed=1`` deals (Python's generator takes the absolute value):
    two seeds, one match. It is refused, as the arena and the server refuse it."""
    assert Match(seed=2).round.dealt != Match(seed=1).round.dealt  # (the match below is seed 2's)
    env = callbreak_v0.raw_env()
    env.reset(seed=2)
    before = env.match.state_key()
    with pytest.raises(ValueError, match="seed must be a whole number from 0, not -1"):
        env.reset(seed=-1)
    assert env.match.state_key() == before
    with pytest.raises(ValueError, match="whole number from 0"):
        Match(seed=-1)



def test_seeds_are_checked_where_given_and_numpys_integers_taken() -> None:
    """A researcher's try: ``reset(seed=np.int64(3))`` failed inside ``random.Random`` (the seed
    checked, its int thrown away); ``raw_env(seed=-3)`` (or "abc", 2.5) was taken and refused only at
    the first reset; and stepped without a reset, ``raw_env(seed=2)`` played another deal than
    ``reset(seed=2)`` gives, its seats named "Player 1" to "Player 4"."""
    env = callbreak_v0.raw_env(ruleset="quick")
    env.reset(seed=np.int64(3))
    assert env.match.round.dealt == Match(Ruleset.preset("quick"), seed=3).round.dealt
    for bad in (-3, "abc", 2.5, True):
        with pytest.raises(ValueError, match="seed must be a whole number from 0"):
            callbreak_v0.raw_env(seed=bad)  # type: ignore[arg-type]
    unreset, reset = callbreak_v0.raw_env(seed=np.int64(2)), callbreak_v0.raw_env(seed=2)
    reset.reset()
    assert unreset.match.state_key() == reset.match.state_key()
    assert unreset.match.players == list(AGENTS) and unreset.agent_selection == reset.agent_selection
    with pytest.raises(ValueError, match="no agent 'player_9': the agents are player_0, player_1"):
        reset.observe("player_9")

def test_an_illegal_action_ends_the_wrapped_episode_with_the_penalty() -> None:
    e = callbreak_v0.env(reward="places")
    e.reset(seed=3)
    offender = e.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(0)
    assert all(e.terminations.values())
    assert e.rewards[offender] == -1.0
    assert [e.rewards[a] for a in AGENTS if a != offender] == [0, 0, 0]


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="reward"):
        callbreak_v0.raw_env(reward="money")
    with pytest.raises(ValueError, match="render_mode"):
        callbreak_v0.raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="rounds"):
        callbreak_v0.raw_env(ruleset=Ruleset(rounds=None))
    with pytest.raises(ValueError, match="deal 1"):
        callbreak_v0.raw_env().reset(options={"dealt": [["AS"]] * 4})


def test_render_shows_the_table_and_only_the_hand_of_the_agent_to_act() -> None:
    e = callbreak_v0.env(render_mode="ansi")
    e.reset(seed=6)
    rng = random.Random(6)
    for _ in range(6):  # the calls and two cards
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    text = e.render()
    m = e.unwrapped.match
    seat = m.to_act
    assert f"player_{seat} to play, holds: " + " ".join(str(c) for c in m.round.hands[seat]) in text
    assert "Trick 1: " in text and "Round 1 of 5" in text
    for other in range(4):
        if other != seat:
            assert " ".join(str(c) for c in m.round.hands[other][:3]) not in text


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copied_env_is_the_same_position_and_plays_on_alone(how: str) -> None:
    """A search copies the env and plays on: the copy has the same seat to act, hands and
    observations, ends as the original does when both are given the same actions, and playing it
    changes nothing of the original (a copy was a new env from the constructor: another deal)."""
    import copy
    import pickle

    def first_legal(e: Any) -> int:
        return int(e.observe(e.agent_selection)["action_mask"].nonzero()[0][0])

    e = callbreak_v0.env(ruleset="quick")
    e.reset(seed=1)
    for _ in range(10):
        e.step(first_legal(e))
    twin = copy.deepcopy(e) if how == "deepcopy" else pickle.loads(pickle.dumps(e))
    assert twin.agent_selection == e.agent_selection
    assert twin.unwrapped.match.round.hands == e.unwrapped.match.round.hands
    assert (twin.observe(twin.agent_selection)["observation"] == e.observe(e.agent_selection)["observation"]).all()
    before = (e.agent_selection, list(e.unwrapped.match.round.calls), len(e.unwrapped.match.round.tricks))
    while twin.agents:
        twin.step(None if twin.terminations[twin.agent_selection] else first_legal(twin))
    assert (e.agent_selection, list(e.unwrapped.match.round.calls), len(e.unwrapped.match.round.tricks)) == before
    while e.agents:
        e.step(None if e.terminations[e.agent_selection] else first_legal(e))
    assert twin.unwrapped.match.totals == e.unwrapped.match.totals
    assert twin._cumulative_rewards == e._cumulative_rewards


def test_an_option_reset_does_not_know_is_warned_of_once_at_the_callers_line() -> None:
    """A researcher's try: ``reset(options={"delaer": 2})`` (a typo) dealt from an unfixed dealer
    with no word. One warning names it, at the researcher's own line (not PettingZoo's wrapper)."""
    import warnings

    e = callbreak_v0.env(ruleset="quick")
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        e.reset(options={"delaer": 2})
    ours = [w for w in said if "reset ignores" in str(w.message)]
    assert [(str(w.message), w.filename) for w in ours] == [
        ("reset ignores the option 'delaer' (its options: 'dealt', 'dealer')", __file__)
    ]
