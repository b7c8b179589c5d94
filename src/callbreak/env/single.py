"""One seat learns, three bots play the others: a Gymnasium environment.

>>> from callbreak.env.single import CallbreakEnv
>>> env = CallbreakEnv(ruleset="quick", opponents="easy")
>>> obs, info = env.reset(seed=1)
>>> _ = env.action_space.seed(1)
>>> total, done = 0.0, False
>>> while not done:
...     action = env.action_space.sample(info["action_mask"])
...     obs, reward, done, truncated, info = env.step(action)
...     total += reward
>>> round(total, 1) == float(env.match.totals[env.seat])  # the float sum of tenths
True

The observation is the flat array of `callbreak.env.observation` (``Box(556,)`` float32) and
the action ``Discrete(66)``; the legal actions are in ``info["action_mask"]`` (int8, all 0
once the episode is over).  Each `step` takes the learner's action, then the bots' actions
until the learner is to act again or the match is over, so every observation is one at
which the learner acts.

Rewards as in `callbreak.env.callbreak_v0`: ``"points"`` (the learner's points of each
round as it ends) or ``"places"`` (+1, +1/3, -1/3, -1 for places 1 to 4, at the end).
An illegal action ends the episode (``terminated``) with ``illegal_reward`` and changes
nothing in the match: Gymnasium's checker samples actions without a mask.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..extras import need

try:
    import gymnasium
    import numpy as np
    import numpy.typing as npt
    from gymnasium import spaces
except ModuleNotFoundError:
    need("the Gymnasium environment", "rl", only=("numpy", "gymnasium"))
    raise  # (a module there, broken: its own error)

from ..bots import Bot, make_bot
from ..errors import IllegalAction
from ..match import Match
from ..round import CALLING
from ..rules import Ruleset
from ..seeds import check_seed
from . import observation as ob
from .episode import PLACE_REWARD, match_for, ruleset_of
from .text import render_text

__all__ = ["ENV_ID", "CallbreakEnv", "OpponentFailed"]

Obs = npt.NDArray[np.float32]
ENV_ID = "callbreak/Callbreak-v0"
"""``gymnasium.make(ENV_ID, ...)`` makes a `CallbreakEnv` (registered when this module is imported)."""


class OpponentFailed(RuntimeError):
    """An opponent bot raised, or gave an action the engine refused: the episode is over
    (`CallbreakEnv.step` then asks for ``reset()``), the bot's own error as its cause.

    >>> from callbreak.bots import Bot
    >>> class Broken(Bot):
    ...     def act(self, view):
    ...         raise RuntimeError("out of memory")
    >>> env = CallbreakEnv(ruleset="quick", seat=0, opponents=[Broken(), "easy", "easy"])
    >>> env.reset(seed=1, options={"dealer": 0})   # seat 1 calls first
    Traceback (most recent call last):
    ...
    callbreak.env.single.OpponentFailed: the opponent in seat 1 (Broken) failed: out of memory; the episode is over: call reset()
    """


class CallbreakEnv(gymnasium.Env[Obs, np.int64]):
    """``seat`` (0..3) is the learner's; ``opponents`` a bot level for all three others or
    three levels or `Bot` instances, your own too (seat order, skipping the learner's; each
    `Bot` in one seat, reseeded at every `reset`).  ``match`` is the engine's `Match`
    (its full state: for analysis, never part of an observation).

    >>> env = CallbreakEnv(ruleset="quick", opponents=["easy", "medium", "random"], seat=2)
    >>> obs, info = env.reset(seed=3)
    >>> env.seat, env.match.to_act == env.seat, obs.shape, info["action_mask"].shape
    (2, True, (556,), (66,))
    >>> legal = [int(a) for a in info["action_mask"].nonzero()[0]]
    >>> obs, reward, terminated, truncated, info = env.step(legal[0])   # the lowest call
    >>> env.match.round.calls[env.seat], terminated
    (1, False)
    >>> from callbreak.bots import make_bot
    >>> mine = make_bot("medium")   # any Bot: a class of your own
    >>> CallbreakEnv(opponents=[mine, "easy", "easy"]).reset(seed=1)[0].shape
    (556,)
    >>> CallbreakEnv(opponents=[mine, mine, "easy"])
    Traceback (most recent call last):
    ...
    ValueError: a Bot sits in one seat: give a Bot of its own to each seat
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012  # Gymnasium's own declaration

    def __init__(
        self,
        ruleset: Ruleset | str | None = None,
        opponents: str | Sequence[str | Bot] = "random",
        seat: int = 0,
        reward: str = "points",
        render_mode: str | None = None,
        illegal_reward: float | None = None,
    ) -> None:
        self.rules = ruleset_of(ruleset)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
            raise ValueError(f"seat must be 0..3, not {seat!r}")
        if isinstance(opponents, Bot):
            raise ValueError("a Bot sits in one seat: give three opponents, a level or a Bot for each")
        levels = [opponents] * 3 if isinstance(opponents, str) else list(opponents)
        if len(levels) != 3 or not all(isinstance(x, (str, Bot)) for x in levels):
            raise ValueError(f"opponents is one bot level, or three levels or Bots, not {opponents!r}")
        if len({id(x) for x in levels if isinstance(x, Bot)}) < sum(isinstance(x, Bot) for x in levels):
            raise ValueError("a Bot sits in one seat: give a Bot of its own to each seat")
        self._bots: dict[int, Bot] = {}
        others = [s for s in range(4) if s != seat]
        for s, level in zip(others, levels):
            self._bots[s] = level if isinstance(level, Bot) else make_bot(level, seed=s)
        if reward not in ("points", "places"):
            raise ValueError(f"reward must be 'points' or 'places', not {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        self.seat = seat
        self.reward = reward
        self.render_mode = render_mode
        self.illegal_reward = (
            (-1.0 if reward == "places" else -13.0) if illegal_reward is None else illegal_reward
        )
        self.observation_space = spaces.Box(ob.LOW, ob.HIGH, dtype=np.float32)
        self.action_space = spaces.Discrete(ob.N_ACTIONS)
        self.match = Match(self.rules, seed=0)
        self._ended = False
        self._started = False  # step() before reset() would act for whichever seat is first to act

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """A new match: ``seed`` deals it as ``Match(ruleset, seed)`` does and seeds the bots;
        without one, the seed is drawn from the generator the last seed started.
        ``options`` may fix the first deal (``dealt``, ``dealer``) as in `callbreak_v0`."""
        if seed is not None:
            seed = check_seed(seed)  # (a bad seed: ValueError, before anything changes; NumPy's as an int)
        if options:
            match_for(self.rules, 0, options, warn=True)  # bad options: ValueError, before anything changes
        super().reset(seed=seed)
        match_seed = seed if seed is not None else int(self.np_random.integers(2**62))
        seeds = random.Random(match_seed)
        for bot in self._bots.values():
            bot.reset(seed=seeds.randrange(2**62))
        self.match = match_for(self.rules, match_seed, options)
        self._ended = False
        self._started = True
        reward = self._bots_play()
        assert reward == 0.0  # no round ends before the learner's first call
        return self._observe()

    def step(self, action: int | np.integer[Any] | npt.NDArray[np.integer[Any]]) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """The learner's action; then the bots' until the learner's next turn or the end.

        >>> CallbreakEnv(ruleset="quick", seat=1).step(53)
        Traceback (most recent call last):
        ...
        ValueError: no episode yet: call reset() first
        """
        if not self._started:
            raise ValueError("no episode yet: call reset() first")
        if self._ended or self.match.is_over:
            raise ValueError("the episode is over: call reset()")
        if self.match.to_act != self.seat:  # (the bots play up to the learner's turn: never otherwise)
            raise RuntimeError(f"seat {self.match.to_act} is to act, not the learner's seat {self.seat}")
        kind, value = ob.to_engine(action)  # (a 0-d array too; a float, a text, None: ValueError, nothing changed)
        m = self.match
        rounds_before = len(m.rounds)
        try:
            if kind == "call" and m.round.phase != CALLING:
                raise IllegalAction("a card (0..51) is due, not a call")
            m.act(value)
        except IllegalAction:
            self._ended = True
            obs, info = self._observe()
            info["illegal_action"] = int(action)
            return obs, float(self.illegal_reward), True, False, info
        reward = self._rewards_since(rounds_before) + self._bots_play()
        obs, info = self._observe()
        if self.render_mode == "human":
            self.render()
        return obs, reward, m.is_over, False, info

    def _bots_play(self) -> float:
        """The bots act until the learner's turn or the end; the learner's reward meanwhile.
        A bot that raises, or whose action the engine refuses, ends the episode
        (`OpponentFailed`): the match cannot go on with the learner acting for the right seat."""
        m = self.match
        reward = 0.0
        while not m.is_over and m.to_act != self.seat:
            seat = m.to_act
            assert seat is not None
            rounds_before = len(m.rounds)
            bot = self._bots[seat]
            try:
                m.act(bot.act(m.view(seat)))
            except Exception as e:
                self._ended = True
                raise OpponentFailed(
                    f"the opponent in seat {seat} ({type(bot).__name__}) failed: {e}; the episode is over: "
                    "call reset()"
                ) from e
            reward += self._rewards_since(rounds_before)
        return reward

    def _rewards_since(self, rounds_before: int) -> float:
        m = self.match
        out = 0.0
        if self.reward == "points":
            out += sum(float(p[self.seat]) for p in m.round_points[rounds_before:])
        elif m.is_over:
            out += PLACE_REWARD[m.places[self.seat]]
        return out

    def _observe(self) -> tuple[Obs, dict[str, Any]]:
        view = self.match.view(self.seat)
        mask = ob.mask(view)
        if self._ended:
            mask[:] = 0
        return ob.observe(view), {"action_mask": mask}

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, as booleans (the method sb3-contrib's MaskablePPO calls)."""
        mask: npt.NDArray[np.int8] = self._observe()[1]["action_mask"]
        return mask.astype(bool)

    def render(self) -> str | None:
        """The table in text (see `callbreak.env.text`): ``ansi`` returns it, ``human`` prints it."""
        if self.render_mode is None:
            return None
        text = render_text(self.match, tuple("you" if s == self.seat else f"seat {s}" for s in range(4)))
        if self.render_mode == "human":
            print(text)
            return None
        return text


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="callbreak.env.single:CallbreakEnv")
