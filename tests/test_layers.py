"""The package's layering, checked on the source: nothing lower imports anything higher.

core (cards, rules, scoring, round, match, errors, notation, scorecalc)
  <- bots <- remote, env <- arena, server <- tui <- commands, cli

env (the reinforcement-learning environments) may use core and bots only.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "callbreak"

LAYER = {
    "core": 0,
    "bots": 1,
    "remote": 2,
    "env": 2,
    "arena": 3,
    "server": 3,
    "tui": 4,
    "commands": 5,
    "cli": 5,
    "__main__": 6,
}


def layer_of(module: str) -> str:
    """``callbreak.bots.hard`` -> ``bots``; core modules -> ``core``."""
    parts = module.split(".")
    if len(parts) < 2:
        return "core"
    head = parts[1]
    return head if head in LAYER else "core"


def imports_of(path: Path) -> list[tuple[int, str]]:
    rel = path.relative_to(SRC.parent).with_suffix("")
    return imports_in(".".join(rel.parts), path.read_text(encoding="utf-8"))


def imports_in(module: str, source: str) -> list[tuple[int, str]]:
    """The ``callbreak`` modules that ``source`` (the text of ``module``) imports."""
    if module.endswith(".__init__"):
        module = module[: -len(".__init__")]
        package = module
    else:
        package = module.rsplit(".", 1)[0]
    tree = ast.parse(source)
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names if a.name.startswith("callbreak"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            if name.startswith("callbreak"):
                if name == "callbreak" or name.count(".") == 0:
                    # `from callbreak import X`: X may be a subpackage
                    out.extend((node.lineno, f"callbreak.{a.name}") for a in node.names)
                else:
                    out.append((node.lineno, name))
    # string imports (importlib.import_module("callbreak.x"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and node.args[0].value.startswith("callbreak.")
        ):
            out.append((node.lineno, node.args[0].value))
    return out


FILES = sorted(SRC.rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SRC)))
def test_no_upward_imports(path: Path) -> None:
    rel = path.relative_to(SRC.parent).with_suffix("")
    mine = layer_of(".".join(rel.parts))
    bad = [
        f"line {line}: imports {name} ({layer_of(name)})"
        for line, name in imports_of(path)
        if LAYER[layer_of(name)] > LAYER[mine]
    ]
    assert not bad, f"{path.relative_to(SRC)} is in layer {mine!r} but " + "; ".join(bad)


def test_core_uses_only_the_standard_library() -> None:
    import sys

    allowed = set(sys.stdlib_module_names) | {"callbreak"}
    for path in FILES:
        rel = path.relative_to(SRC.parent).with_suffix("")
        if layer_of(".".join(rel.parts)) != "core":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            for n in names:
                assert n.split(".")[0] in allowed, f"{path.relative_to(SRC)} imports {n}"


def test_env_uses_only_core_and_bots() -> None:
    bad = [
        f"{path.relative_to(SRC)} line {line}: {name}"
        for path in FILES
        if path.relative_to(SRC).parts[0] == "env"
        for line, name in imports_of(path)
        if layer_of(name) not in ("core", "bots", "env")
    ]
    assert not bad, "; ".join(bad)


def test_the_checker_sees_upward_imports() -> None:
    # Relative, absolute, `from callbreak import pkg` and importlib forms are all found.
    src = (
        "from .bots import make_bot\n"
        "import callbreak.server.hub\n"
        "from callbreak import tui\n"
        "import importlib\n"
        "importlib.import_module('callbreak.arena.runner')\n"
    )
    found = [name for _, name in imports_in("callbreak.round", src)]
    assert found == ["callbreak.bots", "callbreak.server.hub", "callbreak.tui", "callbreak.arena.runner"]
    assert all(LAYER[layer_of(n)] > LAYER["core"] for n in found)
    # and a module's own level or below is allowed
    assert [n for _, n in imports_in("callbreak.bots.hard", "from ..round import Round\n")] == ["callbreak.round"]
