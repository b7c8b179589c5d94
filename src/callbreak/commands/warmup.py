"""``callbreak warmup``: compile the hard bot's kernel now (install scripts, images).

``callbreak serve`` and ``callbreak play`` do this in the background by
themselves; this command does it in the foreground and says where the compiled
code is kept (`callbreak.bots.cachedir`).
"""

from __future__ import annotations

import argparse

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``callbreak warmup`` to the command line's subcommands.

    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> parser.parse_args(["warmup"]).func is run
    True
    """
    p = subparsers.add_parser(
        "warmup",
        help="compile the hard bot's kernel into its cache now (for install scripts and images)",
        description="Compile the hard bot's numba kernel into its on-disk cache, so that the first hard "
        "game or hint starts at full strength. The cache is the package's __pycache__ when writable, "
        "else $XDG_CACHE_HOME/callbreak/numba (CALLBREAK_NUMBA_CACHE_DIR or NUMBA_CACHE_DIR choose another).",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..bots.warmup import main

    return main([])
