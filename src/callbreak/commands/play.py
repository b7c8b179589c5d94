"""``callbreak play``: Callbreak in the terminal, against bots or at an online table.

>>> import argparse
>>> p = argparse.ArgumentParser(); sub = p.add_subparsers()
>>> register(sub)
>>> a = p.parse_args(["play", "--bots", "random", "--rules", "quick", "--set", "rounds=1", "--seed", "4"])
>>> a.bots, a.rules, a.set, a.seed
('random', 'quick', ['rounds=1'], 4)
>>> parse_settings(["rounds=1", "max_overtricks=none", "must_head=false", "trump=H"])
{'rounds': 1, 'max_overtricks': None, 'must_head': False, 'trump': 'H'}
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from ..i18n import LANGUAGES
from .options import seed_option

__all__ = ["parse_settings", "register", "run"]


def _value(text: str) -> Any:
    low = text.strip().lower()
    if low in ("none", "null", ""):
        return None
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:
        return int(low)
    except ValueError:
        pass
    try:
        return float(low)
    except ValueError:
        return text.strip()


def parse_settings(items: Sequence[str]) -> dict[str, Any]:
    """``field=value`` pairs to Ruleset changes (numbers, true/false and none are converted).

    >>> parse_settings(["rounds"])
    Traceback (most recent call last):
    ...
    ValueError: --set wants field=value, not 'rounds'
    """
    out: dict[str, Any] = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise ValueError(f"--set wants field=value, not {item!r}")
        out[name.strip()] = _value(value)
    return out


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``callbreak play`` to the command line's subcommands.

    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> args = parser.parse_args(["play", "--bots", "hard", "--rules", "quick", "--set", "rounds=3", "--seed", "7"])
    >>> args.func is run, args.bots, args.rules, args.set, args.seed
    (True, 'hard', 'quick', ['rounds=3'], 7)
    """
    p = subparsers.add_parser(
        "play",
        help="play in the terminal: against bots, or at an online table (--join URL)",
        description="Play Callbreak in the terminal against three bots, or take a seat at an "
        "online table of `callbreak serve` with --join. Without --bots/--rules a start screen asks.",
    )
    p.add_argument("--bots", metavar="LEVEL", help="bot level: random, easy, medium or hard (default medium)")
    p.add_argument("--rules", metavar="PRESET", help="rules preset: standard, quick, pagat or bhoos")
    p.add_argument(
        "--set", metavar="FIELD=VALUE", action="append", default=[],
        help="change one rule, e.g. --set rounds=3 --set max_call=8 (repeatable)",
    )
    p.add_argument("--seed", type=seed_option, help="replay the same deals and bot choices")
    p.add_argument("--name", default=None, help="your name at the table")
    p.add_argument("--delay", type=float, default=0.6, metavar="SECONDS",
                   help="pause before each bot action (default 0.6)")
    p.add_argument("--lang", choices=tuple(LANGUAGES), default=None,
                   help="the language on screen: en, ne (नेपाली), hi (हिन्दी) or bn (বাংলা); "
                   "default: from LANGUAGE / LC_ALL / LC_MESSAGES / LANG, else English")
    p.add_argument("--join", metavar="URL",
                   help="an online table: an invite URL (/join/CODE) or your seat URL (/t/ID#TOKEN)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``callbreak play``: the terminal game (2, before any screen, for bad options).

    >>> import argparse, contextlib, io
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     code = run(parser.parse_args(["play", "--lang", "en", "--rules", "quick", "--set", "rounds=-1"]))
    >>> code, err.getvalue()[:22]
    (2, 'callbreak play: rounds')
    """
    from ..bots import LEVELS
    from ..extras import need
    from ..rules import PRESETS, Ruleset

    need("`callbreak play`", "tui")
    from ..i18n import language_from_env
    from ..tui.words import tr, use

    use(args.lang or language_from_env())  # before the screens are built
    if args.join:
        return _run_online(args)
    try:
        changes = parse_settings(args.set)
        preset = (args.rules or "standard").strip().lower()
        Ruleset.preset(preset, **changes)  # validate before opening the screen
    except ValueError as e:
        print(f"callbreak play: {e}", file=sys.stderr)
        return 2
    if preset not in PRESETS:
        print(f"callbreak play: unknown preset {args.rules!r}", file=sys.stderr)
        return 2
    bots = (args.bots or "medium").strip().lower()
    if bots not in LEVELS:
        print(f"callbreak play: unknown bot level {args.bots!r} (levels: {', '.join(LEVELS)})", file=sys.stderr)
        return 2
    if args.delay < 0:
        print("callbreak play: --delay must not be negative", file=sys.stderr)
        return 2

    from ..tui.app import CallbreakApp, LocalOptions

    options = LocalOptions(
        bots=bots, preset=preset, changes=changes, seed=args.seed, name=args.name or tr("seat.you"),
        delay=args.delay, trick_pause=max(0.0, 1.5 * args.delay),
    )
    setup = args.bots is None and args.rules is None and not args.set
    app = CallbreakApp(options=options, setup=setup)
    _warm_up()
    result = app.run()
    _warm_up_failed()
    return int(result or 0)


def _warm_up() -> None:
    """Start compiling the hard level's kernel in the background (hints use it too), quietly: a
    player is told nothing of a cache's directory before the game and after it (a newcomer's try:
    two lines of it around every game, easy bots too), only of a warm-up that failed
    (`_warm_up_failed`)."""
    from ..bots.warmup import KERNEL

    KERNEL.start(lambda message: None)


def _warm_up_failed() -> None:
    """After the game: the warm-up's failure, if it failed (hard bots and hints played at the
    medium level meanwhile)."""
    from ..bots.warmup import KERNEL

    if KERNEL.error is not None:
        print(f"callbreak play: the hard bot's kernel could not be prepared ({KERNEL.error}); "
              "hard bots and hints played at the medium level", file=sys.stderr)


def _run_online(args: argparse.Namespace) -> int:
    import asyncio

    from ..tui.online import OnlineGame, parse_join_url
    from ..tui.words import tr

    try:
        target = parse_join_url(args.join)
    except ValueError as e:
        print(f"callbreak play: {e}", file=sys.stderr)
        return 2
    from ..tui.app import CallbreakApp

    game = OnlineGame(target, name=args.name or "")
    asyncio.run(game.join())  # (an invite: the seat taken before the screen opens)
    if game.fatal:
        print(f"callbreak play: {game.fatal}", file=sys.stderr)
        return 1
    app = CallbreakApp(game)
    _warm_up()  # hints are computed here
    result = app.run()
    if game.fatal:
        print(f"callbreak play: {game.fatal}", file=sys.stderr)
        return 1
    _warm_up_failed()
    if game.seat_url:
        print(tr("tui.o_your_seat", url=game.seat_url))
    return int(result or 0)
