"""A lean install, at run time: the engine, the simple bots and the light commands load no
extra's package, and with the extras' packages made unimportable (as in ``pip install
callbreak`` alone) every command is still listed and each feature that needs an extra names it.

Each check runs in a fresh interpreter, so what this test process has imported does not count.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from callbreak.cli import COMMANDS
from callbreak.extras import EXTRAS

#: every top-level module an extra brings
HEAVY = sorted({m for mods in EXTRAS.values() for m in mods} | {"h11"})


def _run(body: str, *, block: bool) -> dict[str, object]:
    """Run ``body`` in a fresh interpreter (with the extras' modules unimportable if ``block``);
    it leaves its findings in ``out``, which comes back as JSON."""
    prelude = "import io, json, sys, contextlib\nout = {}\n"
    if block:
        # sys.modules[name] = None is how Python marks a module as absent: import raises
        # ModuleNotFoundError and importlib.util.find_spec answers None, as on a lean install
        prelude += f"for _m in {HEAVY!r}:\n    sys.modules[_m] = None\n"
    code = prelude + textwrap.dedent(body) + "\nprint(json.dumps(out))\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


PLAY = """
from callbreak import Match, Ruleset
from callbreak.bots import make_bot
from callbreak.arena import run_arena, summarize
from callbreak.cli import build_parser, main

m = Match(Ruleset.preset("quick", rounds=2), seed=5)
bots = [make_bot(level, seed=s) for s, level in enumerate(["random", "easy", "medium", "medium"])]
while not m.is_over:
    m.act(bots[m.to_act].act(m.view(m.to_act)))
out["over"] = m.is_over
result = run_arena(["random", "easy", "medium", "medium"], 2, rules=Ruleset.preset("quick", rounds=1))
out["arena"] = summarize(result).matches
build_parser()
with contextlib.redirect_stdout(io.StringIO()) as f:
    out["replay"] = main(["replay", "--demo", "3"])
    out["score"] = main(["score", "--rules", "quick", "--players", "A,B,C,D", "--rounds", "3 4 2 3 / 4 3 2 4; 2 2 3 4 / 2 3 4 4"])
out["printed"] = len(f.getvalue())
import callbreak.bots.hints, callbreak.remote, callbreak.server  # light to import, too
out["loaded"] = sorted({k.split(".")[0] for k in sys.modules} & set(HEAVY))
"""


def test_the_engine_the_simple_bots_and_the_light_commands_load_no_extra() -> None:
    out = _run(f"HEAVY = {HEAVY!r}\n" + PLAY, block=False)
    assert out["over"] is True and out["arena"] == 2
    assert out["replay"] == 0 and out["score"] == 0 and out["printed"] > 500
    assert out["loaded"] == []


def test_they_run_with_every_extra_absent() -> None:
    out = _run(f"HEAVY = {HEAVY!r}\n" + PLAY, block=True)
    assert out["over"] is True and out["arena"] == 2 and out["replay"] == 0 and out["score"] == 0


def test_a_lean_install_lists_every_command_and_names_the_extra_each_feature_needs() -> None:
    out = _run(
        """
        from callbreak.cli import main
        from callbreak.bots import make_bot
        from callbreak.extras import MissingExtra

        with contextlib.redirect_stdout(io.StringIO()) as f:
            try:
                main(["--help"])
            except SystemExit as e:
                out["help_rc"] = e.code
        out["help"] = f.getvalue()
        try:
            make_bot("hard", 1)
        except MissingExtra as e:
            out["hard"] = [str(e), isinstance(e, ImportError)]
        runs = {
            "serve": ["serve", "--port", "0"],
            "play": ["play", "--bots", "easy"],
            "warmup": ["warmup"],
            "arena_hard": ["arena", "hard", "random", "easy", "medium", "-n", "1"],
            "arena_plot": ["arena", "random", "easy", "medium", "medium", "-n", "1", "--plot", "x.png"],
            "arena_remote": ["arena", "http://127.0.0.1:9", "easy", "medium", "medium", "-n", "1"],
            "arena_policy": ["arena", "policy:p.npz", "easy", "medium", "medium", "-n", "1"],
            "bot_check": ["bot", "check", "http://127.0.0.1:9"],
            "bot_serve_hard": ["bot", "serve", "--bot", "hard", "--port", "0"],
        }
        for key, argv in runs.items():
            with contextlib.redirect_stderr(io.StringIO()) as err, contextlib.redirect_stdout(io.StringIO()) as o:
                rc = main(argv)
            out[key] = [rc, err.getvalue(), o.getvalue()]
        """,
        block=True,
    )
    assert out["help_rc"] == 0
    help_text = out["help"]
    assert isinstance(help_text, str)
    for name in COMMANDS:  # a module bot_worker is the command bot-worker
        assert f"\n    {name.replace('_', '-')} " in help_text, name
    assert out["hard"] == [
        "the hard level needs `pip install 'callbreak[bots]'` (missing: numba, numpy)", True
    ]
    expect = {
        "serve": "callbreak serve: `callbreak serve` needs `pip install 'callbreak[server]'`",
        "play": "callbreak play: `callbreak play` needs `pip install 'callbreak[tui]'`",
        "warmup": "callbreak warmup: compiling the hard bot's kernel needs `pip install 'callbreak[bots]'`",
        "arena_hard": "callbreak arena: the hard level needs `pip install 'callbreak[bots]'`",
        "arena_plot": "callbreak arena: the arena's charts and ratings (--plot, --ratings) needs "
        "`pip install 'callbreak[plot]'`",
        "arena_remote": "callbreak arena: a remote bot needs `pip install 'callbreak[remote]'`",
        # (it named `rl` alone, and with `rl` installed it failed on numba with a traceback)
        "arena_policy": "callbreak arena: a trained policy (policy:FILE.npz) needs `pip install 'callbreak[bots]'`",
        "bot_check": "callbreak bot: `callbreak bot check` needs `pip install 'callbreak[remote]'`",
        "bot_serve_hard": "callbreak bot: the hard level needs `pip install 'callbreak[bots]'`",
    }
    for key, start in expect.items():
        rc, err, printed = out[key]  # type: ignore[misc]
        assert rc == 2, (key, err)
        assert err.startswith(start), (key, err)
        if key.startswith("arena"):
            assert "points/match" not in printed, key  # said before playing, not after


ENV_MODULES = ("callbreak_v0", "single", "openspiel", "batched", "train", "observation", "episode", "text")


def _env_imports(absent: tuple[str, ...]) -> dict[str, str]:
    """Each module of `callbreak.env` imported, with the modules ``absent`` unimportable: "ok" or
    the `MissingExtra`'s message."""
    out = _run(
        f"""
        for _m in {absent!r}:
            sys.modules[_m] = None
        import importlib
        from callbreak.extras import MissingExtra
        for name in {ENV_MODULES!r}:
            try:
                importlib.import_module("callbreak.env." + name)
                out[name] = "ok"
            except MissingExtra as e:
                out[name] = str(e)
            for k in [k for k in sys.modules if k.startswith("callbreak.env")]:
                del sys.modules[k]
        """,
        block=False,
    )
    return {k: str(v) for k, v in out.items()}


def test_each_environment_needs_only_the_libraries_it_adapts_to() -> None:
    """A newcomer's try: every module of `callbreak.env` asked for PettingZoo and OpenSpiel, the
    Gymnasium environment and the numba-only batched one and trainer too (docs/rl.md: "not PettingZoo")."""
    rl = "needs `pip install 'callbreak[rl]'`"
    assert _env_imports(("pettingzoo", "pyspiel")) == {
        "callbreak_v0": f"the PettingZoo environment {rl} (missing: pettingzoo)",
        "openspiel": f"the OpenSpiel game {rl} (missing: pyspiel)",
        **{m: "ok" for m in ("single", "batched", "train", "observation", "episode", "text")},
    }
    assert _env_imports(("gymnasium",)) == {
        "callbreak_v0": f"the PettingZoo environment {rl} (missing: gymnasium)",
        "single": f"the Gymnasium environment {rl} (missing: gymnasium)",
        **{m: "ok" for m in ("openspiel", "batched", "train", "observation", "episode", "text")},
    }
    bots = "needs `pip install 'callbreak[bots]'` (missing: numba)"
    assert _env_imports(("numba",)) == {
        "batched": f"the batched environment (numba) {bots}",
        "train": f"a trained policy (numba) {bots}",
        **{m: "ok" for m in ("callbreak_v0", "single", "openspiel", "observation", "episode", "text")},
    }


def test_with_the_extras_installed_hard_is_the_library_hard_bot() -> None:
    from callbreak.bots import make_bot
    from callbreak.bots.hard import HardBot

    bot = make_bot("hard", 4)
    assert type(bot) is HardBot and bot.name == "hard"
