"""The optional parts of the package and the extras that install them.

``pip install callbreak`` gives the engine, the ``random``, ``easy`` and
``medium`` bots and the ``score``, ``replay`` and ``arena`` commands (``rich``
is the one dependency, for their tables).  Everything else is an extra:

========  ==========================================================  =====================
extra     what it brings                                              modules it needs
========  ==========================================================  =====================
bots      the ``hard`` level and its compiled kernel                  numpy, numba
server    ``callbreak serve`` (the web app; hard seats and hints)     starlette, uvicorn, …
scale     ``serve`` on PostgreSQL and Redis, metrics (docs/deploy.md)   psycopg, redis, …
tui       ``callbreak play`` (the terminal client)                    textual, httpx, …
remote    bots over HTTP (``arena --remote``, ``callbreak bot check``)  httpx
rl        ``callbreak.env`` (PettingZoo, Gymnasium, OpenSpiel)         numpy, gymnasium, …
plot      the arena's charts and ratings                              matplotlib, openskill
========  ==========================================================  =====================

``all`` is every one of them.  Code that needs an extra calls `need` first, so
that a lean install says which extra to add instead of failing deep inside.

>>> need("the engine")  # nothing asked, nothing missing
>>> sorted(EXTRAS)
['bots', 'plot', 'remote', 'rl', 'scale', 'server', 'tui']
"""

from __future__ import annotations

import importlib.util

__all__ = ["EXTRAS", "MissingExtra", "missing", "need"]

#: the top-level modules each extra provides (``pyproject.toml`` lists their distributions)
EXTRAS: dict[str, tuple[str, ...]] = {
    "bots": ("numpy", "numba"),
    "server": ("starlette", "uvicorn", "websockets", "orjson", "msgspec", "numpy", "numba"),
    "scale": ("psycopg", "psycopg_pool", "redis", "prometheus_client"),
    "tui": ("textual", "httpx", "websockets", "numpy", "numba"),
    "remote": ("httpx",),
    "rl": ("numpy", "gymnasium", "pettingzoo", "pyspiel"),
    "plot": ("matplotlib", "openskill"),
}


class MissingExtra(ImportError):
    """A feature was asked for whose extra is not installed; the message names the extra.

    >>> EXTRAS["example"] = ("surely_no_such_module",)
    >>> try:
    ...     need("the example", "example")
    ... except MissingExtra as e:
    ...     print(isinstance(e, ImportError), "example" in str(e))
    True True
    >>> del EXTRAS["example"]
    """


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported here (found without importing them).

    >>> missing("server")   # every module of the server extra is installed here
    []
    >>> EXTRAS["example"] = ("json", "surely_no_such_module")
    >>> missing("example")
    ['surely_no_such_module']
    >>> del EXTRAS["example"]
    """
    return [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]


def need(what: str, *extras: str, only: tuple[str, ...] | None = None) -> None:
    """Raise `MissingExtra` naming the extras to install if a module of one of ``extras`` is absent
    (of those named in ``only``, where given: the part of an extra that ``what`` uses).

    >>> EXTRAS["example"] = ("json", "surely_no_such_module")
    >>> need("the example", "example")
    Traceback (most recent call last):
    ...
    callbreak.extras.MissingExtra: the example needs `pip install 'callbreak[example]'` (missing: surely_no_such_module)
    >>> need("the example's json part", "example", only=("json",))  # installed: nothing raised
    >>> del EXTRAS["example"]
    """
    absent = {e: [m for m in missing(e) if only is None or m in only] for e in extras}
    lacking = [e for e in extras if absent[e]]
    if lacking:
        modules = sorted({m for e in lacking for m in absent[e]})
        raise MissingExtra(
            f"{what} needs `pip install 'callbreak[{','.join(lacking)}]'` (missing: {', '.join(modules)})",
            name=modules[0],
        )
