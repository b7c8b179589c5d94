"""``callbreak arena BOT BOT BOT BOT``: matches between any four bots, with statistics.

A bot is a level (``random``, ``easy``, ``medium``, ``hard``), the URL of an HTTP
bot speaking the Bhoos tournament protocol (``http://127.0.0.1:7001``), or
``policy:FILE.npz``, weights saved by ``python -m callbreak.env.train --save FILE.npz``,
or ``FILE.py:CLASS``, a bot written in Python (a subclass of ``callbreak.bots.Bot``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .options import history_folder, output_file, positive_float, positive_int, seed_option


class _FourBots(argparse.Action):
    """The four bots, one a seat: argparse's own messages for another count named no number
    ("the following arguments are required: BOT" for three, "unrecognized arguments" for five)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: str | None = None) -> None:
        if len(values) != 4:
            parser.error(f"four bots are needed, one a seat, in seat order: {len(values)} given")
        setattr(namespace, self.dest, list(values))


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``callbreak arena`` to the command line's subcommands.

    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> args = parser.parse_args(["arena", "hard", "medium", "medium", "medium", "-n", "8", "--duplicate"])
    >>> args.func is run, args.bots, args.matches, args.duplicate, args.rules
    (True, ['hard', 'medium', 'medium', 'medium'], 8, True, 'bhoos')
    """
    p = subparsers.add_parser(
        "arena",
        usage="%(prog)s BOT BOT BOT BOT [options]",
        help="play matches between four bots (levels or HTTP URLs) and report statistics",
        description=(
            "Play matches between four bots and report points, win share, calls and timing per bot. "
            "A bot is a level name (random, easy, medium, hard) or an http(s):// URL of a bot "
            "speaking the Bhoos tournament protocol, or policy:FILE.npz (weights saved by "
            "python -m callbreak.env.train --save FILE.npz, needs the rl extra), or FILE.py:CLASS "
            "(a subclass of callbreak.bots.Bot in a Python file; see docs/bots.md)."
        ),
    )
    p.add_argument(
        "bots",
        nargs="+",
        action=_FourBots,
        metavar="BOT",
        help="four bots, in seat order: a level name, http(s):// URL, policy:FILE.npz or FILE.py:CLASS",
    )
    p.add_argument("--matches", "-n", type=positive_int, default=20, help="matches to play (default 20)")
    p.add_argument("--rules", default="bhoos", help="ruleset preset (default bhoos)")
    p.add_argument(
        "--rounds", type=positive_int, default=None, help="rounds per match (default: the preset's; 5 if none)"
    )
    p.add_argument("--seed", type=seed_option, default=0, help="seed of the deals and the bots (default 0)")
    p.add_argument("--jobs", "-j", type=positive_int, default=1, help="processes in parallel (default 1)")
    p.add_argument(
        "--duplicate",
        action="store_true",
        help="replay each deal set with the bots rotated through the four seats (matches rounded up to x4)",
    )
    p.add_argument(
        "--time-budget",
        type=positive_float,
        default=1.5,
        help="seconds per round for each HTTP bot (default 1.5); local bots are only measured against it",
    )
    p.add_argument(
        "--think",
        type=positive_float,
        default=None,
        metavar="SECONDS",
        help="each hard seat's thinking per round, in seconds of one core, turned into a playout "
        "budget (so a seeded run replays on any machine; default: hard's own, about 0.375)",
    )
    p.add_argument("--json", metavar="FILE", type=output_file, help="write the results as JSON")
    p.add_argument("--plot", metavar="FILE.png", type=output_file, help="draw each bot's points per match")
    p.add_argument(
        "--ratings", metavar="FILE.json", type=output_file, help="update OpenSkill ratings kept in this file with every match"
    )
    p.add_argument(
        "--histories",
        metavar="DIR",
        type=history_folder,
        help="write each match's hand history to DIR/match-NNNN.json (callbreak analyse or replay reads it)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 if any bot faulted at all (without it: only if a bot faulted on every decision)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``callbreak arena``: play the matches, print each bot's statistics.

    >>> import argparse, contextlib, io
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     code = run(parser.parse_args(["arena", "medium", "easy", "random", "random", "-n", "2",
    ...                                   "--rules", "quick", "--rounds", "1", "--quiet"]))
    >>> code, "medium" in out.getvalue() and "random #2" in out.getvalue()
    (0, True)
    """
    import sys

    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from ..arena.runner import MatchRecord, run_arena, tasks_for
    from ..arena.summary import summarize
    from ..extras import need
    from ..rules import Ruleset

    # (no emoji: a bot named bad.py:Boom is not "bad.py💥")
    console = Console(emoji=False) if sys.stdout.isatty() else Console(width=150, emoji=False)
    err = Console(stderr=True, soft_wrap=True, emoji=False)  # (an error names a file: a path is never folded)
    try:
        rules = Ruleset.preset(args.rules)
        if args.rounds is not None:
            rules = rules.replace(rounds=args.rounds)
        elif rules.rounds is None:
            rules = rules.replace(rounds=5)
        if args.ratings:  # a file that is not ratings is said before the matches, not after them
            from ..arena.ratings import load_ratings

            load_ratings(args.ratings)
    except ValueError as e:
        err.print(f"[red]error:[/red] {e}")
        return 2
    total = len(tasks_for(args.matches, args.seed, args.duplicate))
    remote = [b for b in args.bots if b.startswith(("http://", "https://"))]
    # say what is missing before the matches, not after them
    if args.plot or args.ratings:
        need("the arena's charts and ratings (--plot, --ratings)", "plot")
    if args.plot:
        from ..arena.summary import plot_formats

        kinds = plot_formats()
        kind = Path(args.plot).suffix.lower().lstrip(".")
        if kind not in kinds:
            err.print(f"[red]error:[/red] cannot draw {args.plot}: a chart is one of .{', .'.join(sorted(kinds))}")
            return 2
    if remote:
        need("a remote bot", "remote")
    if any(b.startswith("policy:") for b in args.bots):
        need("a trained policy (policy:FILE.npz)", "bots")
    if any(b.strip().lower() == "hard" for b in args.bots):
        need("the hard level", "bots")
    if remote:
        from ..remote.client import RemoteBot

        for url in dict.fromkeys(remote):
            rb = RemoteBot(url)
            ok = rb.wait_ready(timeout=10.0)
            rb.close()
            if not ok:
                err.print(f"[yellow]warning:[/yellow] {url}/hi does not say hello; its seats will fault")
    if args.histories:
        try:
            Path(args.histories).mkdir(exist_ok=True)
        except OSError as e:
            err.print(f"[red]error:[/red] cannot write into {args.histories}: {e.strerror}")
            return 2
        if any(Path(args.histories).glob("match-*.json")):  # (a longer earlier run's would stay mixed in)
            err.print(f"[red]error:[/red] {args.histories} holds an earlier run's histories: give an empty folder")
            return 2
    unwritten: list[str] = []
    progress = Progress(
        TextColumn("[bold]arena"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("matches"),
        TimeRemainingColumn(),
        console=err,
        disable=args.quiet,
        transient=True,
    )
    with progress:
        task = progress.add_task("matches", total=total)

        def tick(rec: MatchRecord) -> None:
            if args.histories and rec.history is not None and not unwritten:
                # written as each match ends (an interrupted run keeps them), then let go
                path = Path(args.histories) / f"match-{rec.index:04d}.json"
                try:
                    path.write_text(rec.history, encoding="utf-8")
                except OSError as e:
                    unwritten.append(f"cannot write {path}: {e.strerror}")
                rec.history = None
            progress.advance(task)

        try:
            result = run_arena(
                args.bots,
                args.matches,
                rules=rules,
                seed=args.seed,
                jobs=args.jobs,
                duplicate=args.duplicate,
                time_budget=args.time_budget,
                progress=tick,
                think=args.think,
                histories=bool(args.histories),
            )
        except ValueError as e:
            err.print(f"[red]error:[/red] {e}")
            return 2
    summary = summarize(result)
    console.print(summary.table())
    for b in summary.bots:
        warning = b.fault_warning()
        if warning is not None:
            err.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False, soft_wrap=True)
    console.print(
        f"{summary.matches} match{'' if summary.matches == 1 else 'es'} in {result.wall_seconds:.1f} s"
        f" with {args.jobs} job{'' if args.jobs == 1 else 's'}"
    )
    if unwritten:
        err.print(f"[red]error:[/red] {unwritten[0]}; the histories after it were not written")
        return 2
    if args.histories:
        console.print(f"hand histories written to {args.histories}/match-*.json (callbreak analyse FILE)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary.to_dict(), f, indent=1)
        console.print(f"results written to {args.json}")
    if args.plot:
        summary.plot(args.plot)
        console.print(f"plot written to {args.plot}")
    if args.ratings:
        from ..arena.ratings import update_ratings

        table, again = update_ratings(args.ratings, summary.records, args.bots, result.rules)
        console.print(table)
        if again:
            err.print(
                f"[yellow]warning:[/yellow] {again} of these matches were rated before in {escape(args.ratings)}"
                " (the same bots, rules and --seed): not counted again; give another --seed for new matches",
                highlight=False,
                soft_wrap=True,
            )
    broken = [b for b in summary.bots if b.fault_count and (args.strict or b.fault_count >= b.decisions)]
    if broken:  # (a script or CI running the arena learns that an entry did not really play)
        names = ", ".join(b.label for b in broken)
        why = "faulted" if args.strict else "faulted on every decision: it never played"
        err.print(f"[red]error:[/red] {escape(names)} {why} (above)", highlight=False, soft_wrap=True)
        return 1
    return 0
