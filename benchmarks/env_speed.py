"""Environment steps per second: our PettingZoo, Gymnasium and OpenSpiel environments beside
PettingZoo's own classic card environments, measured in the same run on one core.

Every environment is driven the same way: a uniformly random legal action from the mask,
episodes back to back (resets included in the time).  A *step* is one `step` call that
takes an action (PettingZoo's dead steps after the end are not counted); for the Gymnasium
environment one step is the learner's action plus the three bots' actions it triggers, so
its engine actions per second are about four times its steps.  `BatchedEnv` steps are counted
the same way (seat 0's action in one game plus the three built-in seats'): a call with ``n``
games is ``n`` steps; in self-play (every seat's action from numpy) a step is one action.

    python benchmarks/env_speed.py --seconds 3

PettingZoo's classic card environments need ``pip install 'pettingzoo[classic]'`` (rlcard,
pygame); those that do not import are reported and skipped.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def aec_speed(make: Callable[[], Any], seconds: float, seed: int = 0) -> dict[str, float]:
    env = make()
    rng = np.random.default_rng(seed)
    steps = episodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + episodes)
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
            del agent
        episodes += 1
    took = time.perf_counter() - start
    return {"steps_per_s": steps / took, "episodes": episodes, "steps": steps}


def gym_speed(opponents: str, seconds: float, seed: int = 0) -> dict[str, float]:
    from callbreak.env.single import CallbreakEnv

    env = CallbreakEnv(opponents=opponents)
    rng = np.random.default_rng(seed)
    steps = episodes = actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, info = env.reset(seed=seed + episodes)
        done = False
        while not done:
            _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            steps += 1
        actions += len(env.match.actions())
        episodes += 1
    took = time.perf_counter() - start
    return {"steps_per_s": steps / took, "engine_actions_per_s": actions / took, "episodes": episodes}


def batched_speed(n: int, opponents: str, seconds: float, seed: int = 0) -> dict[str, float]:
    """`BatchedEnv` with ``n`` games: one step is seat 0's action in one game plus the built-in
    seats' actions it triggers, as in the Gymnasium environment; actions drawn uniformly from
    the masks with numpy, for all games at once (the drawing is in the time)."""
    from callbreak.env.batched import BatchedEnv

    env = BatchedEnv(n, opponents=opponents, seed=seed)
    rng = np.random.default_rng(seed)
    _, mask = env.reset()
    env.step(np.argmax(mask, axis=1))  # compiled (or loaded from numba's cache) before the clock starts
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        acts = np.argmax(np.where(env.mask != 0, rng.random(env.mask.shape), -1.0), axis=1)
        env.step(acts)
        calls += 1
    took = time.perf_counter() - start
    return {
        "steps_per_s": n * calls / took,
        "engine_actions_per_s": (1 if opponents == "self" else 4) * n * calls / took,
        "step_calls": calls,
    }


def openspiel_speed(seconds: float, seed: int = 0) -> dict[str, float]:
    import pyspiel

    import callbreak.env.openspiel  # noqa: F401

    game = pyspiel.load_game("python_callbreak")
    rng = np.random.default_rng(seed)
    steps = episodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
                steps += 1
        episodes += 1
    took = time.perf_counter() - start
    return {"steps_per_s": steps / took, "episodes": episodes}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="time per environment")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)
    from callbreak.env import callbreak_v0

    out: dict[str, dict[str, float]] = {}
    runs: list[tuple[str, Callable[[], dict[str, float]]]] = [
        ("callbreak_v0.env (wrapped)", lambda: aec_speed(callbreak_v0.env, args.seconds)),
        ("callbreak_v0.raw_env", lambda: aec_speed(callbreak_v0.raw_env, args.seconds)),
        ("CallbreakEnv (gymnasium, 3 random bots)", lambda: gym_speed("random", args.seconds)),
        ("CallbreakEnv (gymnasium, 3 easy bots)", lambda: gym_speed("easy", args.seconds)),
        ("OpenSpiel python_callbreak", lambda: openspiel_speed(args.seconds)),
        ("BatchedEnv n=1 (random built-in seats)", lambda: batched_speed(1, "random", args.seconds)),
        ("BatchedEnv n=256 (random built-in seats)", lambda: batched_speed(256, "random", args.seconds)),
        ("BatchedEnv n=1024 (random built-in seats)", lambda: batched_speed(1024, "random", args.seconds)),
        ("BatchedEnv n=1024 (rule built-in seats)", lambda: batched_speed(1024, "rule", args.seconds)),
        ("BatchedEnv n=1024 (self-play: every seat)", lambda: batched_speed(1024, "self", args.seconds)),
    ]
    try:
        from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4

        runs.append(("pettingzoo texas_holdem_v4", lambda: aec_speed(texas_holdem_v4.env, args.seconds)))
        runs.append(("pettingzoo leduc_holdem_v4", lambda: aec_speed(leduc_holdem_v4.env, args.seconds)))
    except ImportError as e:
        print(f"PettingZoo's classic card environments are not installed ({e}): skipped", file=sys.stderr)
    for name, run in runs:
        out[name] = run()
        extra = out[name].get("engine_actions_per_s")
        more = f"  ({extra:,.0f} engine actions/s)" if extra else ""
        print(f"{name:45s} {out[name]['steps_per_s']:>10,.0f} steps/s{more}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
