"""A trained policy saved with ``--save`` sits in the arena as ``policy:FILE.npz`` and
beats three random bots there, on duplicate deals, where the untrained policy saved the
same way does worse."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from callbreak.arena.runner import RunResult, run_arena
from callbreak.env.train import N_FEATURES, initial, load, main, save, train
from callbreak.rules import Ruleset


def mean_points(res: RunResult, bot: int) -> float:
    """Mean points per round of bot ``bot`` (by spec index) over the run."""
    return float(np.mean([rp[bot] for r in res.records for rp in r.round_points]))


def test_trained_policy_beats_random_in_the_arena(tmp_path: Path) -> None:
    trained = tmp_path / "trained.npz"
    untrained = tmp_path / "untrained.npz"
    save(trained, train(updates=250, games=64, seed=0).theta)
    save(untrained, initial())
    rules = Ruleset.preset("quick")
    runs = {
        f: run_arena(
            [f"policy:{f}", "random", "random", "random"], matches=24, duplicate=True, seed=7, rules=rules
        )
        for f in (trained, untrained)
    }
    res = runs[trained]
    assert res.matches == 24 and all(not any(r.faults) for r in res.records)
    mine = mean_points(res, 0)
    randoms = np.mean([mean_points(res, b) for b in (1, 2, 3)])
    assert mine > randoms + 4.0
    assert mine > mean_points(runs[untrained], 0) + 0.5


def test_training_cli_saves_weights_that_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "p.npz"
    main(["--updates", "3", "--games", "8", "--eval-seeds", "0", "--save", str(f)])
    assert f"weights written to {f}" in capsys.readouterr().out
    theta = load(f)
    assert theta.shape == (N_FEATURES,) and not np.array_equal(theta, initial())


def test_missing_or_bad_policy_file_is_a_clear_error(tmp_path: Path) -> None:
    rules = Ruleset.preset("quick")
    missing = tmp_path / "nope.npz"
    with pytest.raises(ValueError, match="no such file"):
        run_arena([f"policy:{missing}", "random", "random", "random"], matches=1, rules=rules)
    bad = tmp_path / "bad.npz"
    bad.write_text("not weights")
    with pytest.raises(ValueError, match=r"not an \.npz"):
        run_arena([f"policy:{bad}", "random", "random", "random"], matches=1, rules=rules)
    wrong = tmp_path / "wrong.npz"
    np.savez(wrong, theta=np.zeros(3))
    with pytest.raises(ValueError, match=f"{N_FEATURES} weights expected"):
        run_arena([f"policy:{wrong}", "random", "random", "random"], matches=1, rules=rules)
    other = tmp_path / "other.npz"
    np.savez(other, w=np.zeros(N_FEATURES))
    with pytest.raises(ValueError, match="no 'theta'"):
        run_arena([f"policy:{other}", "random", "random", "random"], matches=1, rules=rules)
    with pytest.raises(ValueError, match="needs a file"):
        run_arena(["policy:", "random", "random", "random"], matches=1, rules=rules)
