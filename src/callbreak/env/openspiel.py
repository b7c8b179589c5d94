"""Callbreak registered with OpenSpiel as the Python game ``python_callbreak``: one deal.

>>> import pyspiel
>>> import callbreak.env.openspiel  # registers the game
>>> game = pyspiel.load_game("python_callbreak")
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 52)

The game is one round: 52 explicit chance nodes deal the cards one at a time, from the
seat after the dealer round the table as `callbreak.Round.deal_hands` does (each outcome
uniform over the cards left), then the four calls and the 52 cards; the returns are the
round's points (general sum).  Players 0..3 are the engine's seats.  Parameters:
``preset`` (``standard``, ``quick``, ``pagat``, ``bhoos``; default ``standard``) and
``dealer`` (0..3, default 3, so player 0 calls first).  The presets never throw a deal in,
so the game's length is fixed.

Actions are those of `callbreak.env.observation` (0..51 cards, ``52 + n`` calls ``n``),
chance outcomes the card dealt (0..51).  Every rule is the engine's: the state holds a
`callbreak.Round` and the legal actions are its legal calls and cards.

Observations, for ``player``, made only of what that player may know:

* ``observation_tensor`` / ``observation_string``: the flat array of
  `callbreak.env.observation` (556 floats) made from the seat's `SeatView` (during the
  deal: the cards the player has been dealt so far), and its text.
* ``information_state_tensor`` / ``information_state_string`` (perfect recall): the seat
  (4, one-hot), the hand dealt (52), the calls (4 x 15, relative seats as in the
  observation), and for each of the 13 tricks its leader (4, relative) and the card each
  relative seat played to it (4 x 52): 2872 floats in all.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from ..extras import need

try:
    import numpy as np
    import numpy.typing as npt
    import pyspiel
except ModuleNotFoundError:
    need("the OpenSpiel game", "rl", only=("numpy", "pyspiel"))
    raise  # (a module there, broken: its own error)

from ..bots.knowledge import Knowledge
from ..cards import CARDS, Card, cards_of
from ..round import CALLING, OVER, CallAction, Round, SeatView
from ..rules import Ruleset
from ..scoring import score
from . import observation as ob

__all__ = ["GAME_TYPE", "CallbreakGame", "CallbreakState", "info_state_size", "utility_bounds"]

_DEFAULTS = {"preset": "standard", "dealer": 3}

GAME_TYPE = pyspiel.GameType(
    short_name="python_callbreak",
    long_name="Python Callbreak (one deal)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=4,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)

_INFO_BLOCKS = (("seat", 4), ("dealt", 52), ("calls", 4 * 15), ("tricks", 13 * (4 + 4 * 52)))


def info_state_size() -> int:
    """The length of the information-state tensor (2872).

    >>> info_state_size()
    2872
    >>> game = pyspiel.load_game("python_callbreak")
    >>> game.information_state_tensor_size() == info_state_size()
    True
    """
    return sum(n for _, n in _INFO_BLOCKS)


def utility_bounds(rules: Ruleset) -> tuple[float, float]:
    """The least and the most a seat can score in a deal under ``rules``: every legal call
    against every number of tricks, scored by the engine (`callbreak.scoring.score`).

    >>> utility_bounds(Ruleset.preset("standard")), utility_bounds(Ruleset.preset("bhoos"))
    ((-13.0, 13.0), (-8.0, 8.5))
    """
    scores = [score(c, t, rules) for c in range(rules.min_call, rules.max_call + 1) for t in range(14)]
    return float(min(scores)), float(max(scores))


class CallbreakGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no types
    """One deal of Callbreak for OpenSpiel.

    >>> game = pyspiel.load_game("python_callbreak", {"preset": "bhoos", "dealer": 0})
    >>> game.num_players(), game.num_distinct_actions(), game.max_game_length(), game.rules.name, game.dealer
    (4, 66, 56, 'bhoos', 0)
    >>> try:
    ...     pyspiel.load_game("python_callbreak", {"dealer": 7})
    ... except ValueError as e:
    ...     print(e)
    dealer must be a seat 0..3, not 7
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULTS, **(params or {})}
        self.rules = Ruleset.preset(str(params["preset"]))  # no preset throws a deal in
        dealer = params["dealer"]
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer <= 3:
            raise ValueError(f"dealer must be a seat 0..3, not {dealer!r}")
        self.dealer = dealer
        low, high = utility_bounds(self.rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=ob.N_ACTIONS,
            max_chance_outcomes=52,
            num_players=4,
            min_utility=low,
            max_utility=high,
            utility_sum=None,
            max_game_length=4 + 52,
        )
        super().__init__(GAME_TYPE, info, params)

    def __reduce__(self) -> tuple[type[CallbreakGame], tuple[dict[str, Any]]]:
        # (pybind11 pickles a game by its parameters alone, not this class's own attributes)
        return (CallbreakGame, (self.get_parameters(),))

    def new_initial_state(self) -> CallbreakState:
        return CallbreakState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> CallbreakObserver:
        return CallbreakObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class CallbreakState(pyspiel.State):  # type: ignore[misc]
    """The deal so far (chance) and then the engine's `Round`.

    >>> import random
    >>> game = pyspiel.load_game("python_callbreak")
    >>> state = game.new_initial_state()
    >>> rng = random.Random(1)
    >>> while state.is_chance_node():   # deal the 52 cards
    ...     state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
    >>> state.current_player(), state.legal_actions()[:3]   # seat 0 calls first: calls are 52 + n
    (0, [53, 54, 55])
    >>> while not state.is_terminal():
    ...     state.apply_action(state.legal_actions()[0])
    >>> state.is_terminal(), len(state.returns())
    (True, 4)
    """

    def __init__(self, game: CallbreakGame) -> None:
        super().__init__(game)
        self.rules = game.rules
        self.dealer = game.dealer
        self.deck: list[int] = []  # the cards in the order they were dealt
        self.round: Round | None = None

    def dealt_to(self, seat: int) -> list[int]:
        """The cards ``seat`` has been dealt so far."""
        first = (self.dealer + 1) & 3
        return sorted(c for i, c in enumerate(self.deck) if (first + i) & 3 == seat)

    def current_player(self) -> int:
        rnd = self.round
        if rnd is None:
            return int(pyspiel.PlayerId.CHANCE)
        if rnd.phase == OVER:
            return int(pyspiel.PlayerId.TERMINAL)
        assert rnd.to_act is not None
        return rnd.to_act

    def _legal_actions(self, player: int) -> list[int]:
        rnd = self.round
        assert rnd is not None and player == rnd.to_act
        if rnd.phase == CALLING:
            return [ob.CALL_BASE + n for n in rnd.legal_calls()]
        return sorted(int(c) for c in rnd.legal_cards())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = sorted(set(range(52)) - set(self.deck))
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        if self.round is None:
            if not 0 <= action < 52 or action in self.deck:
                raise ValueError(f"card {action} cannot be dealt now")
            self.deck.append(action)
            if len(self.deck) == 52:
                self.round = Round(self.rules, [self.dealt_to(s) for s in range(4)], self.dealer)
            return
        kind, value = ob.to_engine(action)
        if kind == "call":
            self.round.call(int(value))
        else:
            self.round.play(value)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"Deal {CARDS[action]}"
        kind, value = ob.to_engine(action)
        return f"Call {value}" if kind == "call" else str(value)

    def is_terminal(self) -> bool:
        return self.round is not None and self.round.phase == OVER

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * 4
        assert self.round is not None
        return [float(p) for p in self.round.points()]

    def resample_from_infostate(self, player: int, sampler: Any) -> CallbreakState:
        """A state ``player`` cannot tell from this one: the others' cards dealt anew,
        consistent with all that ``player`` may infer (the bots' `Knowledge`: voids, must-head
        and trump constraints), and the same calls and cards played.  ``sampler`` (a
        ``pyspiel`` probability sampler, called for a number in [0, 1)) seeds the draw."""
        game = self.get_game()
        out = CallbreakState(game)
        if self.round is None:  # during the deal: the others' cards so far are any unseen ones
            rng = random.Random(int(sampler() * 2**53))
            mine = set(self.dealt_to(player))
            unseen = [c for c in range(52) if c not in mine]
            rng.shuffle(unseen)
            first = (self.dealer + 1) & 3
            for i, c in enumerate(self.deck):  # (applied: the history is the deal's, as for any state)
                out.apply_action(c if (first + i) & 3 == player else unseen.pop())
            return out
        rng = random.Random(int(sampler() * 2**53))
        rnd = self.round
        masks = Knowledge.from_view(rnd.view(player)).sample(rng)
        played = [0, 0, 0, 0]
        for t in rnd.tricks:
            for i, c in enumerate(t.cards):
                played[(t.leader + i) & 3] |= 1 << c
        for seat, c in rnd.trick_seats:
            played[seat] |= 1 << c
        hands = [cards_of(masks[s] | played[s]) for s in range(4)]
        first = (self.dealer + 1) & 3
        for i in range(52):
            out.apply_action(int(hands[(first + i) & 3][i // 4]))
        for a in rnd.actions:
            out.apply_action(ob.CALL_BASE + a.call if isinstance(a, CallAction) else int(a.card))
        return out

    def view(self, player: int) -> SeatView | None:
        """The player's `SeatView`, None during the deal."""
        return None if self.round is None else self.round.view(player)

    def __str__(self) -> str:
        if self.round is None:
            return f"dealing: {len(self.deck)} cards dealt"
        rnd = self.round
        lines = [f"hand {s}: " + " ".join(str(c) for c in rnd.hands[s]) for s in range(4)]
        lines.append("calls: " + " ".join("-" if c is None else str(c) for c in rnd.calls))
        lines.extend(
            f"trick {i + 1}: {t.leader} leads " + " ".join(map(str, t.cards))
            for i, t in enumerate(rnd.tricks)
        )
        if rnd.trick:
            lines.append(f"trick {len(rnd.tricks) + 1}: {rnd.leader} leads " + " ".join(map(str, rnd.trick)))
        return "\n".join(lines)


class CallbreakObserver:
    """OpenSpiel's Python observer: tensors and strings from the player's own view.

    >>> game = pyspiel.load_game("python_callbreak")
    >>> state = game.new_initial_state()
    >>> while state.is_chance_node():
    ...     state.apply_action(state.chance_outcomes()[0][0])
    >>> obs = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    >>> obs.set_from(state, player=0)
    >>> obs.tensor.shape, sorted(obs.dict), int(obs.dict["dealt"].sum())
    ((2872,), ['calls', 'dealt', 'seat', 'tricks'], 13)
    """

    def __init__(self, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, not {params!r}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("an observation of every player's private cards is not offered")
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        size = info_state_size() if self.perfect_recall else ob.SIZE
        self.tensor: npt.NDArray[np.float32] = np.zeros(size, np.float32)
        self.dict: dict[str, npt.NDArray[np.float32]] = {}
        if self.perfect_recall:
            at = 0
            for name, n in _INFO_BLOCKS:
                self.dict[name] = self.tensor[at : at + n]
                at += n
        else:
            for name, n in ob.BLOCKS:
                self.dict[name] = self.tensor[ob.OFFSETS[name] : ob.OFFSETS[name] + n]

    def set_from(self, state: CallbreakState, player: int) -> None:
        self.tensor.fill(0)
        view = state.view(player)
        if not self.perfect_recall:
            if view is None:
                if self.private:
                    self.dict["hand"][state.dealt_to(player)] = 1
                return
            self.tensor[:] = ob.observe(view if self.private else replace(view, hand=()))
            return
        d = self.dict
        d["seat"][player] = 1
        if self.private:
            d["dealt"][state.dealt_to(player)] = 1
        if view is None:
            return
        for seat in range(4):
            call = view.calls[seat]
            d["calls"][15 * ((seat - player) & 3) + (14 if call is None else call)] = 1
        tricks = [(t.leader, list(t.cards)) for t in view.tricks]
        if view.trick:
            tricks.append((view.leader, [c for _, c in view.trick]))
        for i, (leader, cards) in enumerate(tricks):
            base = i * (4 + 4 * 52)
            d["tricks"][base + ((leader - player) & 3)] = 1
            for k, c in enumerate(cards):
                d["tricks"][base + 4 + 52 * ((leader + k - player) & 3) + c] = 1

    def string_from(self, state: CallbreakState, player: int) -> str:
        view = state.view(player)
        hand = state.dealt_to(player) if view is None or self.perfect_recall else [int(c) for c in view.hand]
        parts = [f"p{player}"]
        if self.private:
            parts.append("hand " + " ".join(str(CARDS[c]) for c in hand))
        if view is None:
            parts.append(f"dealt {len(state.deck)}")
            return " | ".join(parts)
        parts.append("calls " + " ".join("-" if c is None else str(c) for c in view.calls))
        if self.perfect_recall:
            parts.extend(f"{t.leader}: " + " ".join(map(str, t.cards)) for t in view.tricks)
        else:  # (as the tensor: who played which card, in tricks won and in the trick on the table)
            parts.append("won " + " ".join(map(str, view.tricks_won)))
            played: list[list[Card]] = [[], [], [], []]
            for t in view.tricks:
                for i, c in enumerate(t.cards):
                    played[(t.leader + i) & 3].append(c)
            parts.append("played " + " / ".join(" ".join(map(str, sorted(cs))) or "-" for cs in played))
        if view.trick:
            parts.append(f"{view.leader}: " + " ".join(str(c) for _, c in view.trick))
        return " | ".join(parts)


pyspiel.register_game(GAME_TYPE, CallbreakGame)
