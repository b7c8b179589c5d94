"""``callbreak analyse HISTORY``: every call and card of a match, valued and graded.

HISTORY is a hand history (text or JSON, see `callbreak.notation`) or a server
table's log (``/api/tables/ID/history?format=log``); ``-`` reads standard input.  Each decision of the chosen seats (``--seat``, repeatable;
all four by default) is valued from that seat's own view by the hard level's
search (`callbreak.analysis`), ``--budget`` playouts each, seeded by ``--seed``.
A progress bar runs while it works; then a summary per player and a table of
each player's mistakes and blunders with the better option, and what was possible
in hindsight (every hand known).  ``--json OUT`` writes the whole analysis.
"""

from __future__ import annotations

import argparse
from typing import Any

from .options import output_file, positive_int, seed_option

#: the analysis' playouts a decision unless ``--budget`` says otherwise (`callbreak.analysis.DEFAULT_BUDGET`:
#: a test holds the two equal; the analysis itself is imported only when a match is analysed)
BUDGET = 800


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``callbreak analyse`` (alias ``analyze``) to the command line's subcommands.

    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> args = parser.parse_args(["analyze", "match.json", "--budget", "200", "--no-hindsight"])
    >>> args.func is run, args.file, args.budget, args.no_hindsight, args.seed
    (True, 'match.json', 200, True, 0)
    >>> from callbreak.analysis import DEFAULT_BUDGET
    >>> BUDGET == DEFAULT_BUDGET   # (the default the help names is the analysis' own)
    True
    """
    p = subparsers.add_parser(
        "analyse",
        aliases=["analyze"],
        help="value every call and card of a match from each player's view; list the mistakes",
        description=(
            "Analyse a match from its hand history: each call and card of the chosen seats is valued "
            "from what that seat could know (never the hidden cards) by the hard bot's search, graded "
            "good / inaccuracy / mistake / blunder by what it lost in expected points and in chance "
            "of finishing first, and summarised per player. A hindsight column says what was possible "
            "with every hand known."
        ),
    )
    p.add_argument("file", help="history file (text or JSON) or a server log; - for standard input")
    p.add_argument(
        "--seat",
        type=int,
        action="append",
        metavar="N",
        help="seat 0..3 to analyse (repeatable; default all)",
    )
    p.add_argument("--json", metavar="OUT", type=output_file, help="write the analysis as JSON to OUT")
    p.add_argument(
        "--budget",
        type=positive_int,
        default=None,
        metavar="PLAYOUTS",
        help=f"playouts per decision (default {BUDGET}: the grades are set for it; fewer grade the search's noise too)",
    )
    p.add_argument("--seed", type=seed_option, default=0, help="seed of the searches (default 0)")
    p.add_argument("--no-hindsight", action="store_true", help="skip the double-dummy hindsight")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``callbreak analyse``: value each call and card of a match's history; print the report.

    >>> import argparse, contextlib, io, os, tempfile
    >>> from callbreak import Match, Ruleset
    >>> from callbreak.notation import dumps
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=2)
    >>> for a in (2, 3, 2, 3): _ = m.act(a)
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "match.txt")
    ...     _ = open(path, "w").write(dumps(m))
    ...     out = io.StringIO()
    ...     with contextlib.redirect_stdout(out):
    ...         code = run(parser.parse_args(["analyse", path, "--seat", "0", "--budget", "40", "--no-hindsight"]))
    >>> code, "Accuracy" in out.getvalue()
    (0, True)
    """
    import json
    import sys
    from pathlib import Path

    from rich.console import Console

    from ..errors import HistoryError
    from ..extras import need

    console = Console(highlight=False)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    need("the analysis", "bots")
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        err.print(f"error: cannot read {args.file}: {getattr(e, 'strerror', None) or e}")
        return 2
    from ..analysis.sources import load_match

    try:
        match = load_match(text)
    except HistoryError as e:
        err.print(f"error: {args.file}: {e}")
        return 2
    seats = sorted(set(args.seat)) if args.seat else [0, 1, 2, 3]
    if any(not 0 <= s <= 3 for s in seats):
        err.print("error: --seat is a seat number 0..3")
        return 2
    out = Path(args.json) if args.json else None

    from ..analysis import DEFAULT_BUDGET, analyse

    if args.budget is not None and args.budget < DEFAULT_BUDGET:
        err.print(
            f"note: {args.budget} playouts a decision, fewer than the {DEFAULT_BUDGET} the grades are set for:"
            " some mistakes marked may be the search's noise, and the better option may change from run to run"
        )
    analysis = _with_progress(
        lambda progress: analyse(
            match,
            seats=seats,
            budget=args.budget or DEFAULT_BUDGET,
            seed=args.seed,
            hindsight=not args.no_hindsight,
            progress=progress,
        ),
        err,
    )
    from ..analysis.report import render

    render(analysis, console)
    if out is not None:
        try:
            out.write_text(json.dumps(analysis.to_dict(), indent=1), encoding="utf-8")
        except OSError as e:
            err.print(f"error: cannot write {out}: {e.strerror}")
            return 2
        err.print(f"analysis saved to {out}")
    return 0


def _with_progress(work: Any, console: Any) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        # (a first run compiles the search's kernel before the first decision is valued: a minute
        # with no word was taken for a hang in a newcomer's try)
        task = bar.add_task("analysing (a first run compiles the search first, up to a minute: `callbreak warmup` does it ahead)", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, description="analysing")

        return work(progress)


__all__ = ["register", "run"]
