"""Every public name of the package shows itself at work: a ``>>>`` example in its docstring.

A public name is a module-level function or class whose name does not start with ``_``; a
class counts when its own docstring or one of its methods' has the example.  pytest runs
every example (``--doctest-modules``), so the examples stay true.  `NOT_YET` lists the names
still without one; it can only shrink: a listed name that gains an example, or that no longer
exists, fails the test until it is taken off the list.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "callbreak"

#: public names without an example yet, as "module:name"
NOT_YET: frozenset[str] = frozenset(
    {
        # Not yet, for want of a fast example: a first call compiles a numba kernel that
        # `callbreak warmup` does not cache (env.train's features and what uses them, the warmup
        # itself), or needs a Redis server, an online table's server, a hard-bot analysis or a
        # process-wide change (tune_gc's collector thread), or runs worker processes until
        # stopped (the supervisors).
        "callbreak.server.botqueue_redis:ensure_group",
        "callbreak.server.workers:keep_running",
        "callbreak.server.workers:supervise",
        # a uvicorn protocol class: it runs only inside a real server (tests/server/test_sockets.py)
        "callbreak.server.sockets:QuietDenialWebSockets",
        "callbreak.bots.warmup:exercise",
        "callbreak.commands.serve:tune_gc",
        "callbreak.commands.warmup:run",
        "callbreak.env.train:features",
        "callbreak.env.train:train",
        "callbreak.env.train:PolicyBot",
        "callbreak.env.train:evaluate_batched",
        "callbreak.env.train:evaluate",
    }
)


def _has_example(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    if ">>>" in (ast.get_docstring(node, clean=False) or ""):
        return True
    return isinstance(node, ast.ClassDef) and any(
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        and ">>>" in (ast.get_docstring(n, clean=False) or "")
        for n in node.body
    )


def public_names() -> dict[str, bool]:
    """Every public module-level function and class, as "module:name", and whether it has an example."""
    out: dict[str, bool] = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
            ) and not node.name.startswith("_"):
                out[f"{module}:{node.name}"] = _has_example(node)
    return out


def test_every_public_name_has_an_example() -> None:
    names = public_names()
    missing = sorted(n for n, ok in names.items() if not ok and n not in NOT_YET)
    assert not missing, f"{len(missing)} public names without a >>> example:\n" + "\n".join(missing)


def test_not_yet_only_shrinks() -> None:
    names = public_names()
    gone = sorted(n for n in NOT_YET if n not in names)
    done = sorted(n for n in NOT_YET if names.get(n))
    assert not gone and not done, (
        "take these off NOT_YET:\n"
        + "".join(f"{n} (no longer exists)\n" for n in gone)
        + "".join(f"{n} (has an example now)\n" for n in done)
    )


def test_the_walk_finds_the_names() -> None:
    names = public_names()
    assert names["callbreak.server.protocol:parse"] is True
    assert "callbreak.server:create_app" in names
    assert not any(n.split(":")[1].startswith("_") for n in names)


def test_each_readme_example_runs_on_its_own() -> None:
    """pytest runs README.md as one doctest, so an example may lean on an import made by an earlier
    one; a reader who copies one example alone gets a NameError (found in a newcomer's try: the
    score sheet's example used `Ruleset` unimported). Each ``python`` block of the README, and of
    the docs, runs here in a namespace of its own."""
    import doctest
    import re

    root = SRC.parents[1]
    ran = 0
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"```python\n(.*?)```", text, re.S):
            if ">>>" not in m.group(1):
                continue
            line = text[: m.start()].count("\n") + 1
            name = f"{path.name}:{line}"
            # an example's last output ends before a blank line: run as a doctest of the whole file
            # (python -m doctest docs/rl.md), the fence would be read as more of its output
            last = m.group(1).rstrip("\n").split("\n")[-1]
            assert last.startswith((">>>", "...")) or m.group(1).endswith("\n\n"), f"{name}: no blank line before the fence"
            test = doctest.DocTestParser().get_doctest(m.group(1), {}, name, str(path), line)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)  # (as pyproject.toml)
            failed: list[str] = []
            runner.run(test, out=failed.append)
            assert not failed, "".join(failed)
            ran += 1
    assert ran >= 4
