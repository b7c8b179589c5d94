"""The kernel's warm-up: where its cache goes, and the serving fallback while it is not ready.

The cache-directory tests run the choice in a child process that honours file
permissions (as root, one without CAP_DAC_OVERRIDE), on a real read-only
directory.  The last test compiles the kernel (once per source version: numba
caches it next to the source) and holds seeded matches to what they were.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from callbreak import Card, Match, Ruleset
from callbreak.bots import Bot, make_bot
from callbreak.bots.cachedir import kernel_fingerprint
from callbreak.bots.hard import HardBot
from callbreak.bots.hints import hint
from callbreak.bots.medium import MediumBot, choose_card
from callbreak.bots.warmup import UntilReady, Warmup, serving_bot

SRC = str(Path(__file__).resolve().parents[2] / "src")
#: a root process writes anywhere: drop the capabilities that let it ignore permissions
HONOUR_PERMISSIONS = (
    ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"] if os.geteuid() == 0 else []
)


def read_only_dir() -> str:
    d = tempfile.mkdtemp(prefix="cb-ro-")
    os.chmod(d, 0o555)
    return d


def run_child(code: str, env: dict[str, str]) -> dict[str, object]:
    """Run ``code`` (which prints one JSON object) in a child that honours permissions."""
    full = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "CALLBREAK_NUMBA_CACHE_DIR")}
    full.update(env, PYTHONPATH=SRC)
    r = subprocess.run(
        [*HONOUR_PERMISSIONS, sys.executable, "-c", code], env=full, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    out: dict[str, object] = json.loads(r.stdout.strip().splitlines()[-1])
    return out


CHOOSE = """
import json
from callbreak.bots.cachedir import choose_cache_dir, writable
d = {d!r}
c = choose_cache_dir(d, {{"XDG_CACHE_HOME": {xdg!r}, "HOME": "/nonexistent"}})
print(json.dumps({{"path": c.path, "why": c.why, "explicit": c.explicit, "writable": writable(d + "/__pycache__")}}))
"""


def test_a_read_only_source_dir_sends_the_cache_to_the_user_cache_dir() -> None:
    ro, xdg = read_only_dir(), tempfile.mkdtemp(prefix="cb-xdg-")
    got = run_child(CHOOSE.format(d=ro, xdg=xdg), {})
    assert got["writable"] is False  # the directory really is read-only for that process
    assert got["path"] == os.path.join(xdg, "callbreak", "numba")
    assert got["explicit"] is True
    assert f"not writable: {ro}/__pycache__" == got["why"]


def test_a_read_only_user_cache_dir_too_sends_the_cache_to_the_temp_dir() -> None:
    ro, xdg = read_only_dir(), read_only_dir()
    got = run_child(CHOOSE.format(d=ro, xdg=xdg), {})
    assert got["path"] == os.path.join(tempfile.gettempdir(), f"callbreak-numba-{os.getuid()}")
    assert got["why"] == f"not writable: {ro}/__pycache__, {os.path.join(xdg, 'callbreak', 'numba')}"


def test_a_writable_source_dir_keeps_numbas_own_place() -> None:
    src, xdg = tempfile.mkdtemp(prefix="cb-src-"), tempfile.mkdtemp(prefix="cb-xdg-")
    got = run_child(CHOOSE.format(d=src, xdg=xdg), {})
    assert got == {"path": os.path.join(src, "__pycache__"), "why": "next to the source", "explicit": False,
                   "writable": True}


KERNEL_CACHE = """
import json, os, numba
import callbreak.bots.kernel as k
print(json.dumps({"chosen": k.CACHE.path, "why": k.CACHE.why, "numba": numba.config.CACHE_DIR,
                  "env": os.environ["NUMBA_CACHE_DIR"], "search": k.search.stats.cache_path}))
"""


def test_the_kernel_caches_in_the_user_dir_when_the_asked_dir_is_read_only() -> None:
    ro, xdg = read_only_dir(), tempfile.mkdtemp(prefix="cb-xdg-")
    got = run_child(KERNEL_CACHE, {"CALLBREAK_NUMBA_CACHE_DIR": ro, "XDG_CACHE_HOME": xdg})
    user = os.path.join(xdg, "callbreak", "numba", f"kernel-{kernel_fingerprint()}")
    assert got["chosen"] == got["numba"] == got["env"] == user
    assert str(got["search"]).startswith(user + os.sep)  # where numba really writes the kernel
    assert f"CALLBREAK_NUMBA_CACHE_DIR={ro}" in str(got["why"])


def test_the_asked_cache_dir_wins_over_the_source_tree() -> None:
    asked = tempfile.mkdtemp(prefix="cb-cache-")
    got = run_child(KERNEL_CACHE, {"CALLBREAK_NUMBA_CACHE_DIR": asked})
    assert got["chosen"] == got["numba"] == os.path.join(asked, f"kernel-{kernel_fingerprint()}")
    assert str(got["search"]).startswith(asked + os.sep)


def test_a_change_to_any_kernel_module_moves_the_cache(tmp_path: Path) -> None:
    """numba checks only a function's own file before loading it from the cache,
    and the kernel's callers embed their callees: the cache directory is named by
    a hash of every kernel module, so a change to one compiles all afresh."""
    for name in ("core.py", "search.py"):
        (tmp_path / name).write_text("x = 1\n")
    before = kernel_fingerprint(str(tmp_path))
    (tmp_path / "core.py").write_text("x = 2\n")
    assert kernel_fingerprint(str(tmp_path)) != before


RULES = Ruleset.preset("quick", rounds=1)


def play(bots: Sequence[Bot], seed: int) -> list[int | Card]:
    m = Match(RULES, seed=seed)
    out: list[int | Card] = []
    while (seat := m.to_act) is not None:
        choice = bots[seat].act(m.view(seat))
        out.append(choice)
        m.act(choice)
    return out


def test_until_ready_answers_as_the_medium_level_and_notes_it() -> None:
    said: list[str] = []
    w = Warmup(said.append)  # never started: not ready
    gated = [UntilReady(make_bot("medium", s), MediumBot(s), w) for s in range(4)]
    assert play(gated, 11) == play([MediumBot(s) for s in range(4)], 11)
    assert said == [
        "a medium seat's call answered at the medium level: the hard bot's kernel is still warming up",
        "a medium seat's card answered at the medium level: the hard bot's kernel is still warming up",
    ]


def test_a_quick_hint_says_it_is_one() -> None:
    w = Warmup()
    m = Match(RULES, seed=5)
    seat = m.to_act
    assert seat is not None
    calling = hint(m.view(seat), until_ready=w)  # the hard level's call search needs the kernel: the model's call meanwhile
    assert (calling.level, calling.quick) == ("medium", True) and calling.call == hint(m.view(seat), level="medium").call
    while m.round.phase == "calling":
        seat = m.to_act
        assert seat is not None
        m.act(MediumBot(seat).act(m.view(seat)))
    seat = m.to_act
    assert seat is not None
    view = m.view(seat)
    h = hint(view, until_ready=w)
    assert (h.card, h.level) == (choose_card(view)[0], "medium")
    assert (h.why, h.quick) == (choose_card(view)[1], True)
    # the note first (a phone's one line of reason cut it off at its end), in the reader's language
    assert h.reason.startswith("quick hint while the strong hint warms up: ")
    assert h.say("ne").startswith("छिटो सुझाव")
    assert h.to_dict()["level"] == "medium"
    assert not w.started  # a hint does not start the warm-up: the server does


def test_serving_bot_gates_only_the_hard_level() -> None:
    w = Warmup()
    assert type(serving_bot("medium", 3, w)) is MediumBot and not w.started
    assert type(make_bot("hard", 3)) is HardBot  # the library's hard bot is never gated


def hard(seed: int) -> HardBot:
    # a budget, not a clock, bounds the search: the same seed plays the same on any machine
    return HardBot(seed=seed, iterations=300, call_deals=40, time_limit=1e9)


def test_seeded_hard_matches_do_not_depend_on_the_warm_up() -> None:
    """Compiles the kernel (in this process: a plain HardBot waits for it)."""
    said: list[str] = []
    w = Warmup(said.append)
    before = play([hard(s) for s in range(4)], 7)
    medium = play([MediumBot(s) for s in range(4)], 7)
    assert before != medium  # the hard level plays otherwise on this seed: the checks below can fail
    gated = [UntilReady(hard(s), MediumBot(s), w) for s in range(4)]
    assert play(gated, 7) == medium  # not ready: the serving fallback
    assert w.start()
    assert w.wait(timeout=900), said
    assert said[-1].startswith("the hard bot's kernel is ready in ")
    assert play([UntilReady(hard(s), MediumBot(s), w) for s in range(4)], 7) == before
    assert play([hard(s) for s in range(4)], 7) == before
