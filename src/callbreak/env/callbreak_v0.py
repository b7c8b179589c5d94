"""Callbreak as a PettingZoo AEC environment: four agents, one match per episode.

>>> from callbreak.env import callbreak_v0
>>> env = callbreak_v0.env(ruleset="quick", seed=1)
>>> env.reset()
>>> for i, agent in enumerate(env.possible_agents):  # (the random actions seeded too: the same match each run)
...     _ = env.action_space(agent).seed(1 + i)
>>> for agent in env.agent_iter():
...     obs, reward, termination, truncation, info = env.last()
...     action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
...     env.step(action)
>>> env.unwrapped.match.is_over, len(env.unwrapped.match.rounds)
(True, 3)

Agents ``player_0..player_3`` are the engine's seats 0..3 in order of play; the match's
seeded shuffle draws the first dealer, so the first agent to act varies with the seed.
The action space is ``Discrete(66)`` (0..51 cards, ``52 + n`` calls ``n``) and the
observation a dict ``{"observation": Box(556,) float32, "action_mask": Box(66,) int8}``;
`callbreak.env.observation` documents both.

Rewards (``reward=``): ``"points"`` gives every agent its points of a round when the round
ends (``3.0``, ``-4.0``, ``5.2``...); ``"places"`` gives them once, when the match ends:
``+1``, ``+1/3``, ``-1/3``, ``-1`` for places 1 to 4 (tied seats share the better place).

An illegal action: `raw_env` raises `ValueError` (`callbreak.IllegalAction` for an action
the rules forbid now) and changes nothing; `env` wraps it the way PettingZoo's classic
environments are wrapped, so an illegal action ends the episode with ``illegal_reward``
for the agent that took it (default ``-1`` for places, ``-13`` for points: the worst round
the standard rules allow) and 0 for the others.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from ..extras import need

try:
    import numpy as np
    import numpy.typing as npt
    from gymnasium import spaces
    from gymnasium.utils import EzPickle
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ModuleNotFoundError:
    need("the PettingZoo environment", "rl", only=("numpy", "gymnasium", "pettingzoo"))
    raise  # (a module there, broken: its own error)

from ..cards import Card
from ..round import CALLING
from ..rules import Ruleset
from ..seeds import check_seed
from . import observation as ob
from .episode import AGENTS, PLACE_REWARD, match_for, ruleset_of
from .text import render_text

__all__ = ["AGENTS", "PLACE_REWARD", "env", "raw_env"]

RENDER_MODES = ("ansi", "human")
Obs = dict[str, npt.NDArray[Any]]


def env(
    ruleset: Ruleset | str | None = None,
    render_mode: str | None = None,
    reward: str = "points",
    seed: int | None = None,
    illegal_reward: float | None = None,
) -> AECEnv:
    """The environment with PettingZoo's usual wrappers (illegal action: end with a penalty).

    >>> e = env(ruleset="quick", seed=2)
    >>> e.reset()
    >>> e.agent_selection, int(e.action_space("player_0").n), e.observation_space("player_0")["action_mask"].shape
    ('player_1', 66, (66,))
    >>> legal = [int(a) for a in e.observe(e.agent_selection)["action_mask"].nonzero()[0]]
    >>> e.step(legal[0]); e.agent_selection, e.unwrapped.match.round.calls
    ('player_2', [None, 1, None, None])
    """
    e: AECEnv = raw_env(ruleset=ruleset, render_mode=render_mode, reward=reward, seed=seed)
    if illegal_reward is None:
        illegal_reward = -1.0 if reward == "places" else -13.0
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=illegal_reward)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):  # type: ignore[misc]  # PettingZoo's naming
    """The unwrapped environment; ``match`` is the engine's `Match` being played (its full
    state, hands included: for analysis, never part of an observation).

    >>> e = raw_env(ruleset="quick", seed=2)
    >>> e.reset()
    >>> agent = e.agent_selection
    >>> legal = [int(a) for a in e.observe(agent)["action_mask"].nonzero()[0]]
    >>> e.step(legal[0]); e.match.round.calls
    [None, 1, None, None]
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": "callbreak_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        ruleset: Ruleset | str | None = None,
        render_mode: str | None = None,
        reward: str = "points",
        seed: int | None = None,
    ) -> None:
        EzPickle.__init__(self, ruleset, render_mode, reward, seed)
        super().__init__()
        if seed is not None:
            seed = check_seed(seed)  # (a bad seed: ValueError here, not at the first reset)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        if reward not in ("points", "places"):
            raise ValueError(f"reward must be 'points' or 'places', not {reward!r}")
        self.rules = ruleset_of(ruleset)
        self.render_mode = render_mode
        self.reward = reward
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self._action_space = spaces.Discrete(ob.N_ACTIONS)
        self._obs_space = spaces.Dict(
            {
                "observation": spaces.Box(ob.LOW, ob.HIGH, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(ob.N_ACTIONS,), dtype=np.int8),
            }
        )
        self.action_spaces = {a: spaces.Discrete(ob.N_ACTIONS) for a in AGENTS}
        self.observation_spaces = {a: self._obs_space for a in AGENTS}
        self.state_space = spaces.Box(np.tile(ob.LOW, 4), np.tile(ob.HIGH, 4), dtype=np.float32)
        self._next_seed = seed
        self._seeds = random.Random(seed)
        # the match the first reset() starts (stepped without one, the same deal and seats' names)
        self.match = match_for(self.rules, seed if seed is not None else self._seeds.randrange(2**63), None)
        self._begin()

    # --- copies ---------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """The whole env, the match in progress and the stream of seeds included: `copy.deepcopy`
        and `pickle` give the same position, not a new env made from the constructor's arguments
        (`EzPickle`'s way, which deals another match), so a search can copy and play on.

        >>> import copy
        >>> e = raw_env(ruleset="quick", seed=2)
        >>> e.step(int(e.observe(e.agent_selection)["action_mask"].nonzero()[0][0]))
        >>> twin = copy.deepcopy(e)
        >>> twin.agent_selection == e.agent_selection, twin.match.round.calls == e.match.round.calls
        (True, True)
        >>> twin.match is e.match
        False
        """
        return dict(self.__dict__)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # --- spaces ---------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def state(self) -> npt.NDArray[np.float32]:
        """The whole position, for a centralised critic (MAPPO and the like): the four seats'
        observations (``player_0``'s first), each with its own hand, so every card's holder is
        in it.  It is never an agent's observation: a policy acting for a seat sees `observe`.

        >>> e = raw_env(ruleset="quick", seed=2)
        >>> e.reset()
        >>> s = e.state()
        >>> s.shape, e.state_space.contains(s), bool((s[: ob.SIZE] == e.observe("player_0")["observation"]).all())
        ((2224,), True, True)
        """
        return np.concatenate([ob.observe(self.match.view(s)) for s in range(4)])

    # --- the loop ---------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new match.  ``seed`` deals it as ``Match(ruleset, seed)`` does; without one, the
        next seed comes from the last one given (the constructor's first), so a run of resets
        after ``reset(seed=s)`` repeats too.  ``options``: ``{"dealt": [four hands], "dealer":
        seat}`` fixes the first deal (cards as `Card`, ints or text like ``"AS"``), as
        `Match`'s ``dealt`` and ``dealer`` do; other keys are ignored, as Gymnasium's are."""
        if seed is not None:
            seed = check_seed(seed)  # (a bad seed: ValueError, before anything changes; NumPy's as an int)
        if options:
            match_for(self.rules, 0, options, warn=True)  # bad options: ValueError, before anything changes
        if seed is None and self._next_seed is not None:
            seed = self._next_seed
        self._next_seed = None
        if seed is not None:
            self._seeds = random.Random(seed)
            match_seed = seed
        else:
            match_seed = self._seeds.randrange(2**63)
        self.match = match_for(self.rules, match_seed, options)
        self._begin()

    def _begin(self) -> None:
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self._skip_agent_selection = None
        to_act = self.match.to_act
        assert to_act is not None
        self.agent_selection = AGENTS[to_act]

    def observe(self, agent: str) -> Obs:
        if agent not in AGENTS:
            raise ValueError(f"no agent {agent!r}: the agents are {', '.join(AGENTS)}")
        view = self.match.view(AGENTS.index(agent))
        return {"observation": ob.observe(view), "action_mask": ob.mask(view)}

    def step(self, action: int | np.integer[Any] | npt.NDArray[np.integer[Any]] | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: None is only for an agent whose episode is over")
        kind, value = ob.to_engine(action)
        m = self.match
        rounds_before = len(m.rounds)
        if kind == "call":
            if m.round.phase != CALLING:
                raise ValueError(f"{agent} must play a card (0..51) now, not call ({action})")
            m.call(int(value))
        else:
            assert isinstance(value, Card)
            m.play(value)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        if self.reward == "points" and len(m.rounds) > rounds_before:
            for i, a in enumerate(AGENTS):
                self.rewards[a] = float(m.round_points[-1][i])
        if m.is_over:
            if self.reward == "places":
                for i, a in enumerate(AGENTS):
                    self.rewards[a] = PLACE_REWARD[m.places[i]]
            self.terminations = dict.fromkeys(AGENTS, True)
            self.agent_selection = AGENTS[(AGENTS.index(agent) + 1) % 4]
        else:
            to_act = m.to_act
            assert to_act is not None
            self.agent_selection = AGENTS[to_act]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The table in text: the public state and the hand of the agent to act (``ansi``
        returns it, ``human`` prints it)."""
        if self.render_mode is None:
            return None
        text = render_text(self.match)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
