"""Environments for reinforcement learning on the exact engine (the ``rl`` extra).

* `callbreak.env.callbreak_v0`: a PettingZoo AEC environment, four agents ``player_0..player_3``.
* `callbreak.env.single`: a Gymnasium environment in which one seat learns against three bots.
* `callbreak.env.openspiel`: the game registered with OpenSpiel as ``python_callbreak``.
* `callbreak.env.observation`: the observation layout and the action numbers they all share.
* `callbreak.env.episode`: one match an episode: its rules, its first deal, the places' rewards.
* `callbreak.env.batched`: many games stepped at once on the compiled kernel (numba).
* `callbreak.env.train`: a small numpy-only policy trained end to end on the batched environment.

Every observation is made from the seat's `callbreak.SeatView` alone, and every rule is the
engine's (`callbreak.Match`).  See docs/rl.md.  This package imports no optional dependency
itself: each module imports the libraries it adapts to, and only those, and says which extra to
install where one is missing: the ``rl`` extra for PettingZoo, Gymnasium and OpenSpiel (the
Gymnasium environment needs no PettingZoo, nor the PettingZoo one OpenSpiel), ``bots`` (numba)
for `batched` and `train`.
"""
