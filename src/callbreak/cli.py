"""The ``callbreak`` command: one subcommand per module of `callbreak.commands`.

Each command module (``bot_worker`` for ``callbreak bot-worker``) has ``register(subparsers)``, which adds its parser and sets
``func`` to a function taking the parsed arguments and returning an exit code.
Command modules import their heavy dependencies inside ``func`` so that
``callbreak --help`` stays fast and lists every command on a lean install;
a command whose extra is missing says which to install (`callbreak.extras`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from . import __version__
from .extras import MissingExtra

COMMANDS = ("play", "serve", "score", "replay", "analyse", "arena", "bot", "bot_worker", "warmup", "prune")


def build_parser() -> argparse.ArgumentParser:
    """The ``callbreak`` command line: one subcommand per command module.

    >>> args = build_parser().parse_args(["arena", "hard", "medium", "medium", "medium", "--matches", "8"])
    >>> args.command, args.matches
    ('arena', 8)
    """
    parser = argparse.ArgumentParser(
        prog="callbreak",
        description="Callbreak: play, serve, score, replay and pit bots against each other.",
    )
    parser.add_argument("--version", action="version", version=f"callbreak {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"callbreak.commands.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` names (the process's arguments when None); its exit status.

    >>> main(["bot-worker", "--redis", "http://127.0.0.1:6379/0"])
    Traceback (most recent call last):
    ...
    SystemExit: callbreak bot-worker: redis must be a redis:// URL, not 'http://127.0.0.1:6379/0'
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 0
    try:
        return int(func(args) or 0)
    except MissingExtra as e:  # a lean install: name the extra to add
        print(f"callbreak {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
