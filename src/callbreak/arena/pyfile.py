"""A bot written in Python, seated by its file and class: ``greedy.py:Greedy``.

The file is imported once per process (each arena worker imports it for itself, so the
spec stays a string), under a name of its own: code under ``if __name__ == "__main__":``
does not run, code outside it does. The class is a `callbreak.bots.Bot` subclass, made as
``Class(seed)``, as every level is; it sees its seat's view and nothing else.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

from ..bots import Bot

__all__ = ["PY_SPEC", "is_python_spec", "python_bot"]

PY_SPEC = re.compile(r"^(?P<file>.+\.py):(?P<name>[A-Za-z_]\w*)$")
"""``FILE.py:NAME``: the file (any path) and the name of the class in it."""

_modules: dict[Path, ModuleType] = {}


def is_python_spec(spec: str) -> bool:
    """Whether ``spec`` names a class in a Python file.

    >>> is_python_spec("bots/greedy.py:Greedy"), is_python_spec("hard"), is_python_spec("greedy.py")
    (True, False, False)
    """
    return PY_SPEC.match(spec) is not None


def _module(path: Path) -> ModuleType:
    path = path.resolve()
    module = _modules.get(path)
    if module is not None:
        return module
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    name = "callbreak_bot_" + hashlib.blake2b(str(path).encode(), digest_size=6).hexdigest()
    loader_spec = importlib.util.spec_from_file_location(name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise ValueError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module  # (dataclasses and pickling look their module up by name)
    try:
        loader_spec.loader.exec_module(module)
    except (Exception, SystemExit) as e:  # (a file that calls sys.exit when imported: said, not obeyed)
        del sys.modules[name]
        raise ValueError(f"{path}: importing it failed: {type(e).__name__}: {e}") from e
    _modules[path] = module
    return module


def python_bot(spec: str, seed: int | None = None) -> Bot:
    """The bot of ``FILE.py:NAME``: ``NAME(seed)`` from the file; a ValueError that says what
    is wrong (no such file, a file that fails to import, no such class, not a `Bot`).

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "lowest.py").write_text(
    ...     "from callbreak.bots import Bot\\n"
    ...     "class Lowest(Bot):\\n"
    ...     "    name = 'lowest'\\n"
    ...     "    def act(self, view):\\n"
    ...     "        return view.legal_calls[0] if view.phase == 'calling' else view.legal_cards[0]\\n"
    ...     "if __name__ == '__main__':\\n"
    ...     "    print('a demo: not run when seated')\\n")
    >>> python_bot(f"{folder}/lowest.py:Lowest", seed=3)
    <Lowest 'lowest' seed=3>
    >>> python_bot(f"{folder}/lowest.py:Highest")
    Traceback (most recent call last):
    ...
    ValueError: .../lowest.py has no Highest (its bots: Lowest)
    """
    m = PY_SPEC.match(spec)
    if m is None:
        raise ValueError(f"a Python bot is FILE.py:CLASS, not {spec!r}")
    module = _module(Path(m["file"]))
    name = m["name"]
    cls = getattr(module, name, None)
    if cls is None:
        names = sorted(
            k for k, v in vars(module).items()
            if isinstance(v, type) and issubclass(v, Bot) and v is not Bot and not k.startswith("_")
        )
        raise ValueError(f"{m['file']} has no {name} (its bots: {', '.join(names) or 'none'})")
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise ValueError(f"{spec}: {name} is not a subclass of callbreak.bots.Bot")
    if cls.act is Bot.act:
        raise ValueError(f"{spec}: {name} does not define act(view), the one method a Bot writes")
    try:
        return cls(seed)
    except TypeError as e:
        raise ValueError(f"{spec}: {name}(seed) failed: {e}") from None
