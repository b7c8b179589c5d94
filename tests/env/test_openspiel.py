"""The OpenSpiel game: OpenSpiel's own simulation checks, the engine's scores, hidden cards."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

import callbreak.env.openspiel  # noqa: F401  # registers python_callbreak
from callbreak import Card, Round, Ruleset, score
from callbreak.env import observation as ob
from callbreak.env.openspiel import info_state_size


def random_playout(game: pyspiel.Game, seed: int) -> pyspiel.State:
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_openspiel_random_sim_test() -> None:
    for preset in ("standard", "bhoos"):
        game = pyspiel.load_game("python_callbreak", {"preset": preset})
        pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_the_game_has_the_documented_shape() -> None:
    game = pyspiel.load_game("python_callbreak")
    assert game.num_distinct_actions() == ob.N_ACTIONS == 66
    assert game.max_chance_outcomes() == 52 and game.num_players() == 4
    assert game.observation_tensor_size() == ob.SIZE
    assert game.information_state_tensor_size() == info_state_size() == 2872
    assert game.new_initial_state().legal_actions() == list(range(52))  # the first card dealt


@pytest.mark.parametrize(("preset", "dealer"), [("standard", 3), ("pagat", 1), ("bhoos", 0)])
def test_random_playouts_score_as_the_engine_does(preset: str, dealer: int) -> None:
    rules = Ruleset.preset(preset)
    game = pyspiel.load_game("python_callbreak", {"preset": preset, "dealer": dealer})
    for seed in range(3):
        state = random_playout(game, seed)
        history = state.history()
        deck, actions = history[:52], history[52:]
        hands: list[list[int]] = [[], [], [], []]
        for i, c in enumerate(deck):
            hands[(dealer + 1 + i) % 4].append(c)
        engine_actions: list[int | Card] = [a - 52 if a >= 52 else Card(a) for a in actions]
        rnd = Round.from_actions(rules, hands, dealer, engine_actions)
        assert rnd.phase == "over" and len(actions) == 56
        calls = [c for c in rnd.calls if c is not None]
        want = [float(score(calls[s], rnd.tricks_won[s], rules)) for s in range(4)]
        assert state.returns() == pytest.approx(want)


def test_what_a_player_observes_hides_the_other_hands() -> None:
    # A resampled state deals the other seats other cards; player 0 cannot tell it apart.
    game = pyspiel.load_game("python_callbreak")
    rng = np.random.RandomState(4)
    state = game.new_initial_state()
    while state.is_chance_node() or len(state.history()) < 52 + 4 + 18:
        legal = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(int(rng.choice(legal)))
    other = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert other.round.hands != state.round.hands
    assert other.round.hands[0] == state.round.hands[0]
    for get in (
        "information_state_string",
        "information_state_tensor",
        "observation_string",
        "observation_tensor",
    ):
        assert getattr(other, get)(0) == getattr(state, get)(0), get
    assert other.information_state_string(1) != state.information_state_string(1)
    text = state.information_state_string(0) + state.observation_string(0)
    unseen = {str(c) for s in (1, 2, 3) for c in state.round.hands[s]}
    assert not any(f" {c}" in text for c in unseen)


def test_ismcts_plays_the_game() -> None:
    game = pyspiel.load_game("python_callbreak")
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 20, random_state=np.random.RandomState(2))
    rng = np.random.RandomState(0)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
    for _ in range(4):  # four calls, then the first cards
        state.apply_action(bot.step(state))
    for _ in range(4):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert len(state.round.trick) == 0 and len(state.round.tricks) == 1


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="dealer must be a seat"):
        pyspiel.load_game("python_callbreak", {"dealer": 7})
    with pytest.raises(ValueError, match="unknown preset"):
        pyspiel.load_game("python_callbreak", {"preset": "poker"})


def test_the_observation_string_tells_apart_what_the_tensor_does() -> None:
    """Over every decision of random deals, each player's observation string and tensor map one
    to one (before, the string listed the played cards sorted, without who played them: two
    observations whose seats swapped two cards had one string)."""
    game = pyspiel.load_game("python_callbreak")
    by_string: dict[str, bytes] = {}
    by_tensor: dict[bytes, str] = {}
    for seed in range(6):
        rng = np.random.RandomState(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
                continue
            for p in range(4):
                text, tensor = state.observation_string(p), np.asarray(state.observation_tensor(p)).tobytes()
                assert by_string.setdefault(text, tensor) == tensor, text
                assert by_tensor.setdefault(tensor, text) == text, text
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert len(by_string) == len(by_tensor) > 1000
    # and the case found: seats 1 and 2 swap the 5H and the 7H, each played to the first trick
    seen = []
    for low, high in (("5H", "7H"), ("7H", "5H")):
        hands = [
            ["AH", *(r + "S" for r in "23456789TJQK")],
            [low, *(r + "C" for r in "23456789TJQK")],
            [high, *(r + "D" for r in "23456789TJQK")],
            ["9H", "AS", "AC", "AD", *(r + "H" for r in "23468TJQK")],
        ]
        state = game.new_initial_state()  # (dealer 3: the deal starts at seat 0)
        for i in range(52):
            state.apply_action(int(Card.parse(hands[i % 4][i // 4])))
        for action in (ob.CALL_BASE + 1,) * 4 + tuple(int(Card.parse(c)) for c in ("AH", low, high, "9H")):
            state.apply_action(action)
        seen.append((state.observation_string(0), np.asarray(state.observation_tensor(0)).tobytes()))
    assert seen[0][1] != seen[1][1] and seen[0][0] != seen[1][0], seen[0][0]


def test_a_state_resampled_during_the_deal_has_the_deals_history() -> None:
    game = pyspiel.load_game("python_callbreak")
    rng = np.random.RandomState(2)
    state = game.new_initial_state()
    for _ in range(30):
        state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
    other = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert len(other.history()) == 30 and other.move_number() == state.move_number()
    assert other.information_state_string(1) == state.information_state_string(1)
    assert other.history() != state.history() and len(other.clone().history()) == 30


@pytest.mark.parametrize("preset", ["standard", "quick", "pagat", "bhoos"])
def test_the_utility_bounds_are_the_least_and_most_a_deal_can_score(preset: str) -> None:
    """Methods that rescale values by ``min_utility``/``max_utility`` get the game's real range:
    the bonus was counted against every preset (pagat said ±26, bhoos ±13), and each bound is a
    score some call and number of tricks reach."""
    rules = Ruleset.preset(preset)
    game = pyspiel.load_game("python_callbreak", {"preset": preset})
    reached = {float(score(c, t, rules)) for c in range(rules.min_call, rules.max_call + 1) for t in range(14)}
    assert (game.min_utility(), game.max_utility()) == (min(reached), max(reached))
    assert {"pagat": (-12.0, 13.0), "bhoos": (-8.0, 8.5)}.get(preset, (-13.0, 13.0)) == (min(reached), max(reached))
    for seed in range(3):
        assert all(min(reached) <= r <= max(reached) for r in random_playout(game, seed).returns())


def test_a_pickled_game_makes_states_as_the_game_did() -> None:
    """A game handed to another process (multiprocessing, Ray) by pickle: the same parameters,
    rules and dealer, and its states play as the original's (it lost its rules before)."""
    import pickle

    game = pyspiel.load_game("python_callbreak", {"preset": "bhoos", "dealer": 1})
    again = pickle.loads(pickle.dumps(game))
    assert again.get_parameters() == game.get_parameters() == {"preset": "bhoos", "dealer": 1}
    assert (again.rules, again.dealer) == (game.rules, game.dealer)
    assert random_playout(again, 4).returns() == random_playout(game, 4).returns()
    assert random_playout(again, 4).history() == random_playout(game, 4).history()
