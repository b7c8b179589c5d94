"""The package's layering, checked on the source: nothing lower imports anything higher.

core (cards, rules, scoring, round, match, errors, notation, scorecalc)
  <- bots <- remote <- arena, server <- tui <- commands, cli
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
    module = ".".join(rel.parts)
    if module.endswith(".__init__"):
        module = module[: -len(".__init__")]
        package = module
    else:
        package = module.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
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


def test_the_checker_sees_an_upward_import(tmp_path: Path) -> None:
    # The test above can fail: an engine module importing a bot is reported.
    assert layer_of("callbreak.round") == "core"
    assert LAYER[layer_of("callbreak.bots.hard")] > LAYER[layer_of("callbreak.round")]
    assert LAYER[layer_of("callbreak.server.hub")] > LAYER[layer_of("callbreak.bots")]
