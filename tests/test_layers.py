"""The package's layering, checked on the source: nothing lower imports anything higher.

core (cards, rules, scoring, round, match, errors, notation, scorecalc, i18n)
  <- bots <- remote, env, analysis <- arena, server <- tui <- commands, cli

env (the reinforcement-learning environments) may use core and bots only.

The third-party packages each layer may import are a table too (`THIRD_PARTY`):
the core and the simple bots import none, so ``pip install callbreak`` (whose
one dependency is ``rich``, for the commands' tables) runs them; every other
package comes with an extra, and `callbreak.extras` and ``pyproject.toml`` say
the same thing about which.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

from callbreak.extras import EXTRAS

SRC = Path(__file__).resolve().parents[1] / "src" / "callbreak"

LAYER = {
    "core": 0,
    "bots": 1,
    "remote": 2,
    "env": 2,
    "analysis": 2,
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


# --- third-party imports ------------------------------------------------------------

#: the base dependency (``pyproject.toml``'s ``dependencies``): the commands draw tables with it
BASE = {"rich"}

#: the third-party top-level modules a layer may import (anywhere in a file, lazily or not);
#: a "layer/module" key overrides its layer for that one module
THIRD_PARTY: dict[str, set[str]] = {
    "core": set(),
    "bots": set(),  # random, easy, medium, calling, hints, warm-up: plain Python
    "bots/hard": {"numpy"},
    "bots/determinize": {"numpy"},  # the deals hard searches, drawn in the compiled kernel
    "bots/playouts": {"numpy"},  # hard's tables of playouts, from the compiled kernel
    "bots/styles": {"numpy"},  # the evidence of each seat's style of play, for hard
    "bots/evaluation": {"numpy"},  # the value of every option, for the analysis
    "bots/ismcts": {"numpy"},  # the spar-ismcts sparring level, on the compiled kernel
    "bots/pimc": {"numpy"},  # the spar-pimc sparring level, on the compiled kernel
    "bots/kernel": {"numpy", "numba"},  # the package: every module of the compiled kernel
    "bots/train_calls": {"numpy"},  # the calling model's training (a developer's tool)
    "remote": {"httpx"},
    "env": {"numpy", "gymnasium", "pettingzoo", "pyspiel"},
    "analysis": set(),  # it searches through callbreak.bots.evaluation
    "analysis/report": {"rich"},  # the base dependency: tables for the command and the terminal client
    "analysis/hindsight": {"numpy"},  # the arrays of the compiled double-dummy search (bots/kernel)
    "arena": {"rich", "httpx", "matplotlib", "openskill"},
    "server": {"starlette", "uvicorn", "h11", "orjson", "msgspec"},
    "server/bodies": {"msgspec"},  # the HTTP API's types, which the terminal (the tui extra) joins with
    "server/protocol": {"msgspec"},  # the WebSocket's types, which the terminal plays with
    "server/store_pg": {"orjson", "psycopg", "psycopg_pool"},
    "server/broker_redis": {"redis"},
    "server/botqueue_redis": {"msgspec", "redis"},  # the table owner's end of the bot queue
    "server/botworker": {"msgspec", "redis"},  # callbreak bot-worker
    "server/cluster": {"orjson", "redis", "starlette"},
    "server/router": {"orjson", "starlette"},
    "server/metrics": {"prometheus_client"},
    "tui": {"textual", "rich", "httpx", "websockets", "msgspec"},
    "commands": {"rich", "uvicorn"},
    "cli": set(),
    "__main__": set(),
}

#: modules that arrive with another package rather than being asked for by name
COMES_WITH = {"h11": "uvicorn"}

#: top-level module -> distribution, where they differ
DISTRIBUTION = {"pyspiel": "open_spiel"}


def third_party_imports(path: Path) -> list[tuple[int, str]]:
    """(line, top-level module) of every import in ``path`` outside the standard library and callbreak."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        for n in names:
            top = n.split(".")[0]
            if top not in sys.stdlib_module_names and top != "callbreak":
                out.append((node.lineno, top))
    return out


def allowed_for(path: Path) -> set[str]:
    rel = path.relative_to(SRC).with_suffix("")
    parts = rel.parts[:-1] if rel.parts[-1] == "__init__" else rel.parts
    for n in range(len(parts), 1, -1):  # the module's own entry, else its package's ("bots/kernel")
        key = "/".join(parts[:n])
        if key in THIRD_PARTY:
            return THIRD_PARTY[key]
    return THIRD_PARTY[layer_of(".".join(("callbreak", *rel.parts)))]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SRC)))
def test_third_party_imports_follow_the_table(path: Path) -> None:
    allowed = allowed_for(path)
    bad = [f"line {line}: {name}" for line, name in third_party_imports(path) if name not in allowed]
    assert not bad, f"{path.relative_to(SRC)} may import only {sorted(allowed)} but imports " + "; ".join(bad)


def test_the_core_and_the_simple_bots_import_nothing_outside_the_standard_library() -> None:
    simple = ["bots/__init__.py", "bots/base.py", "bots/random_bot.py", "bots/easy.py", "bots/medium.py",
              "bots/calling.py", "bots/knowledge.py", "bots/hints.py", "bots/sparring.py", "extras.py", "cli.py"]
    for rel in simple:
        assert third_party_imports(SRC / rel) == [], rel
    core = [p for p in FILES if layer_of(".".join(("callbreak", *p.relative_to(SRC).with_suffix("").parts))) == "core"]
    assert len(core) >= 8
    for p in core:
        assert third_party_imports(p) == [], p


def test_the_table_sees_a_heavy_import(tmp_path: Path) -> None:
    f = tmp_path / "x.py"
    f.write_text("import os\nimport numba.core\nfrom numpy import array\nfrom . import sibling\n"
                 "def f():\n    import textual.app\n", encoding="utf-8")
    assert third_party_imports(f) == [(2, "numba"), (3, "numpy"), (6, "textual")]


def _requirement_names(reqs: list[str]) -> tuple[set[str], set[str]]:
    """(distributions, extras of callbreak itself) named by requirement strings."""
    dists: set[str] = set()
    selves: set[str] = set()
    for r in reqs:
        m = re.match(r"([A-Za-z0-9_.-]+)(?:\[([^\]]*)\])?", r)
        assert m, r
        if m.group(1) == "callbreak":
            selves.update(x.strip() for x in (m.group(2) or "").split(","))
        else:
            dists.add(m.group(1).lower().replace("-", "_"))
    return dists, selves


def _pyproject() -> dict[str, object]:
    return tomllib.loads((SRC.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))["project"]  # type: ignore[no-any-return]


def _extra(name: str) -> set[str]:
    """The distributions an extra installs, its ``callbreak[...]`` references followed."""
    extras = _pyproject()["optional-dependencies"]
    assert isinstance(extras, dict)
    dists, selves = _requirement_names(extras[name])
    for s in selves:
        dists |= _extra(s)
    return dists


def _dist(module: str) -> str:
    return DISTRIBUTION.get(module, module)


def test_the_base_install_is_rich_alone() -> None:
    dists, selves = _requirement_names(_pyproject()["dependencies"])  # type: ignore[arg-type]
    assert dists == BASE and not selves


def test_pyproject_extras_install_what_callbreak_extras_says() -> None:
    for extra, modules in EXTRAS.items():
        assert {_dist(m) for m in modules} <= _extra(extra), extra
    assert {_dist(m) for mods in EXTRAS.values() for m in mods} <= _extra("all")
    assert _extra("all") <= _extra("dev")


def test_every_third_party_import_is_installed_by_the_base_or_an_extra() -> None:
    provided = BASE | {m for mods in EXTRAS.values() for m in mods}
    for mods in THIRD_PARTY.values():
        for m in mods:
            assert COMES_WITH.get(m, m) in provided, m


def test_one_source_for_the_version() -> None:
    project = _pyproject()
    assert "version" not in project and "version" in project["dynamic"]  # type: ignore[operator]
    setuptools = tomllib.loads((SRC.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert setuptools["dynamic"]["version"] == {"attr": "callbreak.__version__"}
    # and the attribute is a literal setuptools can read without importing the package
    tree = ast.parse((SRC / "__init__.py").read_text(encoding="utf-8"))
    values = [n.value for n in tree.body if isinstance(n, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == "__version__" for t in n.targets)]
    assert len(values) == 1 and isinstance(values[0], ast.Constant)
    assert re.fullmatch(r"\d+\.\d+\.\d+", values[0].value)
