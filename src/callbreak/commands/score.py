"""``callbreak score``: the score calculator for games played with real cards.

Interactive (prompts for the names, the rules, then each round's calls and tricks)::

    callbreak score

or all at once (calls ``/`` tricks, rounds separated by ``;``)::

    callbreak score --players "Asha,Bikash,Chandra,Dipa" --rules quick \\
        --rounds "3 4 2 3 / 4 3 2 4; 2 2 3 4 / 2 3 4 4" --save sheet.json

``--load sheet.json`` continues a saved sheet.  A bad round is a clear message
and exit code 2, and nothing is saved.  The sheet format is in
`callbreak.scorecalc`.
"""

from __future__ import annotations

import argparse
from typing import Any

_HELP_INPUT = "commands: 'undo' removes the last round, 'done' stops, 'help' shows this"


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``callbreak score`` to the command line's subcommands.

    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> args = parser.parse_args(["score", "--players", "Asha,Bikash,Chandra,Dipa", "--rounds", "3 4 2 3 / 4 3 2 4"])
    >>> args.func is run, args.players, args.rounds
    (True, 'Asha,Bikash,Chandra,Dipa', '3 4 2 3 / 4 3 2 4')
    """
    p = subparsers.add_parser(
        "score",
        help="score a game played with real cards (calls and tricks per round)",
        description=(
            "Score a Callbreak game played with real cards: four players, a ruleset, then each round's "
            "calls and tricks won. Shows per-round points, running totals and places after each round. "
            "Without --rounds or --load it asks for everything interactively."
        ),
    )
    p.add_argument("--players", help='four names separated by commas, in order of play: "A,B,C,D"')
    p.add_argument("--rules", help="preset: standard, quick, pagat or bhoos (default standard)")
    p.add_argument(
        "--set", action="append", default=[], metavar="FIELD=VALUE", help="change a rule, e.g. rounds=10"
    )
    p.add_argument(
        "--rounds",
        help='rounds as "calls / tricks; ...", e.g. "3 4 2 3 / 4 3 2 4; 2 2 3 4 / 2 3 4 4"',
    )
    p.add_argument("--load", metavar="FILE.json", help="start from a saved sheet")
    p.add_argument(
        "--save", metavar="FILE.json", help="save the sheet when done (only if every round is valid); asked round by round, also the rounds entered when interrupted"
    )
    p.add_argument("--json", action="store_true", help="print the sheet as JSON instead of a table")
    p.set_defaults(func=run)


def sheet_table(sheet: Any) -> Any:
    """A Rich table: one row per round (call/won, points, running total), then places.

    >>> import io
    >>> from rich.console import Console
    >>> from callbreak.scorecalc import ScoreSheet
    >>> from callbreak import Ruleset
    >>> sheet = ScoreSheet(["Asha", "Bikash", "Chandra", "Dipa"], Ruleset.preset("quick"))
    >>> _ = sheet.add_round([3, 4, 2, 3], [4, 3, 2, 4])
    >>> console = Console(width=100, file=io.StringIO())
    >>> console.print(sheet_table(sheet))
    >>> "Asha" in console.file.getvalue(), "3.1" in console.file.getvalue()
    (True, True)
    """
    from rich.table import Table

    from .replay import ordinal

    names = sheet.players
    preset, changes = sheet.rules.describe()
    title = preset + "".join(f", {k}={v}" for k, v in changes.items())
    t = Table(
        title=f"Score sheet ({title})", caption="call · won, then points → running total", show_lines=True
    )
    t.add_column("Round", justify="right")
    for n in names:
        t.add_column(n, justify="right")
    totals = sheet.running_totals()
    points = sheet.round_points()
    fixed = sheet.rules.rounds
    for i, r in enumerate(sheet.rounds):
        label = str(i + 1)
        if fixed is not None and i >= fixed:
            label += "\n[yellow]sudden death[/]"
        cells = []
        for s in range(4):
            p = points[i][s]
            style = "green" if p > 0 else ("red" if p < 0 else "default")
            cells.append(f"{r.calls[s]} · {r.tricks[s]}\n[{style}]{p:+}[/] → [bold]{totals[i][s]}[/]")
        t.add_row(label, *cells)
    places = sheet.places
    t.add_row("[bold]Place[/]", *[f"[bold]{ordinal(places[s])}[/]" for s in range(4)])
    return t


def _status(sheet: Any) -> str:
    if sheet.is_over:
        top = [sheet.players[s] for s in range(4) if sheet.places[s] == 1]
        return (
            "The match is over: " + " and ".join(top) + (" wins." if len(top) == 1 else " share first place.")
        )
    if sheet.sudden_death:
        return "Tied at the top: a sudden-death round follows."
    n = sheet.rules.rounds
    done = len(sheet.rounds)
    return f"After round {done}" + (f" of {n}." if n is not None else " (no fixed end).")


def run(args: argparse.Namespace) -> int:
    """``callbreak score``: the score sheet of a game played with real cards (2: a bad round).

    >>> import argparse, contextlib, io
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     code = run(parser.parse_args(["score", "--players", "Asha,Bikash,Chandra,Dipa", "--rules", "quick",
    ...                                   "--rounds", "3 4 2 3 / 4 3 2 4", "--json"]))
    >>> import json
    >>> code, json.loads(out.getvalue())["rounds"]
    (0, [{'calls': [3, 4, 2, 3], 'tricks': [4, 3, 2, 4]}])
    """
    import sys
    from pathlib import Path

    from rich.console import Console

    from ..rules import Ruleset
    from ..scorecalc import ScoreError, ScoreSheet, parse_rounds
    from .replay import parse_setting

    out = Console(highlight=False)
    err = Console(stderr=True, highlight=False, soft_wrap=True)

    def fail(msg: str) -> int:
        err.print(f"[red]error:[/] {msg}")
        return 2

    interactive = args.rounds is None and args.load is None

    def save(sheet: ScoreSheet) -> str:
        """Write ``sheet`` to ``--save``: why it could not be, or nothing."""
        try:
            Path(args.save).write_text(sheet.to_json() + "\n", encoding="utf-8")
        except OSError as e:
            return f"cannot write {args.save}: {e.strerror}"
        return ""

    try:
        changes = dict(parse_setting(s) for s in args.set)
    except ValueError as e:
        return fail(str(e))

    sheet: ScoreSheet | None = None
    shown = False  # the interactive loop ended on printing this very sheet
    if args.load:
        try:
            sheet = ScoreSheet.from_json(Path(args.load).read_text(encoding="utf-8"))
        except OSError as e:
            return fail(f"cannot read {args.load}: {e.strerror}")
        except ScoreError as e:
            return fail(f"{args.load}: {e}")
        if args.players or args.rules or changes:
            return fail(
                "--load takes the players and rules from the sheet; leave out --players, --rules and --set"
            )

    if sheet is None:
        players: list[str] | None = None
        if args.players:
            players = [p.strip() for p in args.players.split(",")]
        rules: Ruleset | None = None
        if args.rules or changes or not interactive:
            try:
                rules = Ruleset.preset(args.rules or "standard", **changes)
            except ValueError as e:
                return fail(str(e))
        if interactive:
            try:
                got = _ask_setup(out, players, rules)
            except KeyboardInterrupt:
                got = None
            if got is None:
                err.print("\nstopped before the sheet was set up: nothing saved")
                return 1
            sheet = got
        else:
            try:
                sheet = ScoreSheet(players or [], rules)
            except ScoreError as e:
                return fail(f"--players: {e}" if players else 'give --players "A,B,C,D"')

    if args.rounds is not None:
        try:
            for calls, tricks in parse_rounds(args.rounds):
                sheet.add_round(calls, tricks)
        except ScoreError as e:
            return fail(str(e))
    elif interactive:
        try:
            shown = _ask_rounds(out, sheet)
        except KeyboardInterrupt:
            # (the rounds entered are kept: the sheet holds whole, checked rounds only)
            if not args.save:
                err.print("\ninterrupted")
            elif not sheet.rounds:
                err.print("\ninterrupted: nothing saved")
            else:
                why = save(sheet)
                if why:
                    err.print(f"\ninterrupted: [red]error:[/] {why}")
                    return 130
                n = len(sheet.rounds)
                err.print(f"\ninterrupted: {n} round{'s' if n != 1 else ''} entered, saved to {args.save} "
                          f"(--load {args.save} goes on from them)")
            return 130

    if args.json:
        sys.stdout.write(sheet.to_json() + "\n")
    elif not shown:
        out.print(sheet_table(sheet))
        out.print(_status(sheet))
    if args.save:
        why = save(sheet)
        if why:
            return fail(why)
        err.print(f"sheet saved to {args.save}")
    return 0


def _input(console: Any, prompt: str) -> str | None:
    console.print(prompt, end="", markup=False)
    try:
        return input()
    except EOFError:
        console.print()
        return None


def _ask_setup(console: Any, players: list[str] | None, rules: Any) -> Any:
    from ..rules import PRESETS, Ruleset
    from ..scorecalc import ScoreError, ScoreSheet
    from .replay import parse_setting

    while players is None:
        names: list[str] = []
        for i in range(4):
            while True:
                got = _input(console, f"Name of player {i + 1} (in order of play): ")
                if got is None:
                    return None
                name = got.strip()
                if not name:
                    console.print("  a name, please")
                elif name in names:
                    console.print(f"  {name} is taken; another name, please")
                else:
                    names.append(name)
                    break
        players = names
    while rules is None:
        got = _input(console, f"Rules preset ({', '.join(PRESETS)}) [standard]: ")
        if got is None:
            return None
        try:
            base = Ruleset.preset(got.strip() or "standard")
        except ValueError as e:
            console.print(f"  {e}")
            continue
        while True:
            ch = _input(console, "Change a rule (field=value, e.g. rounds=10; blank when done): ")
            if ch is None or not ch.strip():
                break
            try:
                k, v = parse_setting(ch.strip())
                base = base.replace(**{k: v})
            except ValueError as e:
                console.print(f"  {e}")
        rules = base
    try:
        return ScoreSheet(players, rules)
    except ScoreError as e:  # pragma: no cover - names are checked above
        console.print(str(e))
        return None


def _numbers(text: str) -> list[str]:
    return text.replace(",", " ").split()


def _ask_rounds(console: Any, sheet: Any) -> bool:
    """Ask round after round; True when the sheet as it ends was the last thing printed."""
    from ..scorecalc import MAX_ROUNDS, ScoreError

    console.print(
        f"Enter each round's calls, then tricks won, in order {', '.join(sheet.players)}; {_HELP_INPUT}."
    )
    shown = False
    while not sheet.is_over:
        n = len(sheet.rounds) + 1
        if sheet.rules.rounds is None and n > MAX_ROUNDS:
            return shown
        label = f"Round {n}" + (" (sudden death)" if sheet.sudden_death else "")
        calls = _ask_four(console, sheet, f"{label} calls: ", sheet.check_calls)
        shown = False
        if calls is None:
            return False
        if calls == "undo":
            _undo(console, sheet)
            continue
        tricks = _ask_four(console, sheet, f"{label} tricks won: ", sheet.check_tricks)
        if tricks is None:
            return False
        if tricks == "undo":  # back to this round's calls, said so (before: silently)
            console.print(f"  {label.lower()}'s calls removed: enter them again (undo once more for round {n - 1})"
                          if n > 1 else f"  {label.lower()}'s calls removed: enter them again")
            continue
        try:
            sheet.add_round(calls, tricks)
        except ScoreError as e:  # pragma: no cover - both halves were checked
            console.print(f"  {e}")
            continue
        console.print(sheet_table(sheet))
        console.print(_status(sheet))
        shown = True
    return shown


def _undo(console: Any, sheet: Any) -> None:
    from ..scorecalc import ScoreError

    try:
        sheet.undo()
        console.print(f"  round {len(sheet.rounds) + 1} removed")
    except ScoreError as e:
        console.print(f"  {e}")


def _ask_four(console: Any, sheet: Any, prompt: str, check: Any) -> Any:
    from ..scorecalc import ScoreError

    while True:
        got = _input(console, prompt)
        if got is None:
            return None
        word = got.strip().lower()
        if word in ("done", "quit", "q", "exit"):
            return None
        if word == "undo":
            return "undo"
        if word in ("help", "?"):
            console.print(f"  four numbers, one per player ({', '.join(sheet.players)}); {_HELP_INPUT}")
            continue
        try:
            vals = [int(x) for x in _numbers(got)]
        except ValueError:
            console.print(f"  whole numbers, please, like '3 4 2 3' (not {got.strip()!r})")
            continue
        try:
            return list(check(vals))
        except ScoreError as e:
            console.print(f"  {e}")
