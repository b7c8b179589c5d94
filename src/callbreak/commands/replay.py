"""``callbreak replay FILE``: print a match from its hand history, trick by trick.

FILE is a text history (see `callbreak.notation`) or its JSON form; ``-`` reads
standard input.  ``callbreak replay --demo SEED`` plays a seeded match between bots
first, so there is something to replay without a real game.  ``--save OUT`` writes the
history (of the demo, or of FILE: text to JSON and back), ``--history`` prints the raw history.
"""

from __future__ import annotations

import argparse
from typing import Any

from .options import output_file, seed_option


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``callbreak replay`` to the command line's subcommands.

    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> args = parser.parse_args(["replay", "--demo", "3", "--summary"])
    >>> args.func is run, args.demo, args.rules, args.summary
    (True, 3, 'quick', True)
    """
    p = subparsers.add_parser(
        "replay",
        help="print a match from its hand history, trick by trick",
        description=(
            "Print a match from its hand history (text or JSON), trick by trick: who led, each card, "
            "the winner, running tricks, each round's points and totals, and the final places. "
            "Every action is checked as it is replayed."
        ),
    )
    p.add_argument("file", nargs="?", help="history file (text or JSON); - for standard input")
    p.add_argument("--demo", type=seed_option, metavar="SEED", help="play a seeded match between bots and replay it")
    p.add_argument("--rules", default="quick", help="ruleset preset for --demo (default quick)")
    p.add_argument(
        "--set", action="append", default=[], metavar="FIELD=VALUE", help="change a rule for --demo"
    )
    p.add_argument("--level", default="random", help="bot level for --demo (default random)")
    p.add_argument(
        "--save", metavar="OUT", type=output_file,
        help="write the history to OUT (OUT.json: the JSON form, else the text form); converts a FILE too",
    )
    p.add_argument("--history", action="store_true", help="print the text history instead of the replay")
    p.add_argument("--summary", action="store_true", help="only the round summaries, not every trick")
    p.set_defaults(func=run)


def parse_setting(text: str) -> tuple[str, Any]:
    """``field=value`` with a JSON value, or a bare word as text; ``none``/``None`` and
    ``True``/``False`` are read as JSON's ``null``/``true``/``false`` (as ``callbreak play --set`` does).

    >>> parse_setting("rounds=10"), parse_setting("trump=H"), parse_setting("max_overtricks=null")
    (('rounds', 10), ('trump', 'H'), ('max_overtricks', None))
    >>> parse_setting("rounds=none"), parse_setting("rounds=None"), parse_setting("must_head=False")
    (('rounds', None), ('rounds', None), ('must_head', False))
    """
    import json

    if "=" not in text:
        raise ValueError(f"a rule change is field=value, not {text!r}")
    k, _, v = text.partition("=")
    v = v.strip()
    words: dict[str, Any] = {"none": None, "null": None, "true": True, "false": False}
    if v.lower() in words:
        return k.strip(), words[v.lower()]
    try:
        return k.strip(), json.loads(v)
    except ValueError:
        return k.strip(), v


def demo_match(seed: int, rules: Any, level: str = "random", players: list[str] | None = None) -> Any:
    """A finished match between four bots of ``level``, all seeded from ``seed``.

    >>> from callbreak import Ruleset
    >>> m = demo_match(3, Ruleset.preset("quick"))
    >>> m.is_over, len(m.rounds) >= 3
    (True, True)
    """
    from ..bots import make_bot
    from ..match import Match

    m = Match(rules, seed=seed, players=players or ["North", "East", "South", "West"])
    m.tags["Event"] = f"Demo: four {level} bots"
    bots = [make_bot(level, seed * 4 + i) for i in range(4)]
    guard = 0
    while not m.is_over:
        seat = m.to_act
        assert seat is not None
        m.act(bots[seat].act(m.view(seat)))
        guard += 1
        if rules.rounds is None and m.round.phase == "calling" and len(m.round) == 0 and len(m.rounds) >= 5:
            m.end()
        if guard > 100_000:  # pragma: no cover - a bot that never finishes
            raise RuntimeError("the demo match does not finish")
    return m


def _card(c: Any) -> str:
    colour = "red" if c.suit in "HD" else "default"
    return f"[{colour}]{c.symbol}[/]"


def render(match: Any, console: Any, summary: bool = False) -> None:
    """Print ``match`` (a `Match`) round by round with Rich.

    >>> import io
    >>> from rich.console import Console
    >>> from callbreak import Ruleset
    >>> console = Console(width=100, file=io.StringIO())
    >>> render(demo_match(3, Ruleset.preset("quick", rounds=1)), console, summary=True)
    >>> text = console.file.getvalue()
    >>> "Round 1" in text, "1st" in text
    (True, True)
    """
    from rich.rule import Rule
    from rich.table import Table

    from ..notation import AUTO_TAG, auto_decisions
    from ..round import OVER, REDEAL

    names = match.players
    finished = 0
    totals = [0, 0, 0, 0]
    preset, changes = match.rules.describe()
    head = f"[bold]{preset}[/]" + (
        "" if not changes else " with " + ", ".join(f"{k}={v}" for k, v in changes.items())
    )
    console.print(f"Rules: {head}   Seed: {match.seed}   Players: {', '.join(names)}")
    for k, v in match.tags.items():
        if k == AUTO_TAG:  # (its items can be hundreds: their number)
            made = len(auto_decisions(match))
            console.print(f"Calls and cards made for a seat, not by its player: {made}")
        else:
            console.print(f"{k}: {v}")
    for rnd in match.deals:
        number = finished + 1
        console.print(Rule(f"Round {number} · {names[rnd.dealer]} deals"))
        if not summary:
            hands = Table(show_header=False, box=None, pad_edge=False)
            for seat, h in enumerate(rnd.dealt):
                hands.add_row(names[seat], " ".join(_card(c) for c in h))
            console.print(hands)
        if rnd.phase == REDEAL:
            from ..notation import _redeal_reason

            if any(c is not None for c in rnd.calls):
                console.print("Calls: " + ", ".join(f"{names[s]} {c}" for s, c in enumerate(rnd.calls)))
            console.print(f"[yellow]Redeal[/]: {_redeal_reason(rnd)}; {names[rnd.dealer]} deals again")
            continue
        order = [(rnd.dealer + 1 + k) % 4 for k in range(4)]
        console.print(
            "Calls: " + ", ".join(f"{names[s]} {rnd.calls[s]}" for s in order if rnd.calls[s] is not None)
        )
        if not summary and (rnd.tricks or rnd.trick):
            t = Table(title=None, show_lines=False)
            t.add_column("#", justify="right")
            t.add_column("Led by")
            for n in names:
                t.add_column(n, justify="center")
            t.add_column("Winner")
            t.add_column("Tricks so far", justify="center")
            won = [0, 0, 0, 0]
            for i, tr in enumerate(rnd.tricks, 1):
                by_seat = tr.by_seat()
                won[tr.winner] += 1
                cells = []
                for s in range(4):
                    cell = _card(by_seat[s])
                    if s == tr.winner:
                        cell = f"[bold reverse]{cell}[/]"
                    cells.append(cell)
                t.add_row(str(i), names[tr.leader], *cells, names[tr.winner], "-".join(map(str, won)))
            if rnd.trick:
                cur = dict(rnd.trick_seats)
                cells = [_card(cur[s]) if s in cur else "" for s in range(4)]
                t.add_row(str(len(rnd.tricks) + 1), names[rnd.leader], *cells, "…", "-".join(map(str, won)))
            console.print(t)
        if rnd.phase == OVER:
            finished += 1
            pts = rnd.points_tenths()
            totals = [a + b for a, b in zip(totals, pts)]
            res = Table(title=f"Round {number} result")
            for col in ("Player", "Call", "Won", "Points", "Total"):
                res.add_column(col, justify="left" if col == "Player" else "right")
            for seat in range(4):
                p = pts[seat]
                style = "green" if p > 0 else ("red" if p < 0 else "")
                res.add_row(
                    names[seat],
                    str(rnd.calls[seat]),
                    str(rnd.tricks_won[seat]),
                    f"[{style}]{_tenths(p)}[/]" if style else _tenths(p),
                    _tenths(totals[seat]),
                )
            console.print(res)
            if match.ended_at == finished and finished:
                console.print("[italic]The table ended the match here.[/]")
        else:
            console.print(f"[italic]Round {number} in progress: {names[rnd.to_act]} to act.[/]")
    if match.ended_at == 0:
        console.print("[italic]The table ended the match before any round.[/]")
    if match.is_over:
        f = Table(title="Final standings")
        for col in ("Place", "Player", "Total"):
            f.add_column(col, justify="left" if col == "Player" else "right")
        for seat in sorted(range(4), key=lambda s: (match.places[s], s)):
            f.add_row(ordinal(match.places[seat]), names[seat], str(match.totals[seat]))
        console.print(f)
    else:
        console.print(
            "Totals: " + ", ".join(f"{names[s]} {match.totals[s]}" for s in range(4)) + " (match in progress)"
        )


def _tenths(t: int) -> str:
    sign = "-" if t < 0 else ""
    return f"{sign}{abs(t) // 10}.{abs(t) % 10}"


def ordinal(n: int) -> str:
    """>>> ordinal(1), ordinal(4)
    ('1st', '4th')
    """
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def run(args: argparse.Namespace) -> int:
    """``callbreak replay``: print a match from its history, or a seeded demo match.

    >>> import argparse, contextlib, io
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     code = run(parser.parse_args(["replay", "--demo", "3", "--set", "rounds=1", "--history"]))
    >>> code, out.getvalue().splitlines()[0]
    (0, '[Event "Demo: four random bots"]')
    """
    import sys
    from pathlib import Path

    from rich.console import Console

    from ..errors import HistoryError
    from ..notation import dumps, from_json, loads, to_json
    from ..rules import Ruleset

    console = Console(highlight=False)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if args.demo is None and not args.file:
        err.print("error: give a history FILE, or --demo SEED to play one")
        return 2
    if args.demo is not None and args.file:
        err.print("error: give a history FILE or --demo SEED, not both")
        return 2
    if args.demo is not None:
        try:
            changes = dict(parse_setting(s) for s in args.set)
            rules = Ruleset.preset(args.rules, **changes)
            match = demo_match(args.demo, rules, args.level)
        except ValueError as e:
            err.print(f"error: {e}")
            return 2
    else:
        try:
            text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            err.print(f"error: cannot read {args.file}: {getattr(e, 'strerror', None) or e}")
            return 2
        try:
            match = from_json(text) if text.lstrip().startswith("{") else loads(text)
        except HistoryError as e:
            err.print(f"error: {args.file}: {e}")
            return 2
    if args.save:
        path = Path(args.save)
        text = to_json(match, indent=1) if path.suffix.lower() == ".json" else dumps(match)
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as e:
            err.print(f"error: cannot write {path}: {e.strerror}")
            return 2
        err.print(f"history saved to {path}")
    if args.history:
        sys.stdout.write(dumps(match))
        return 0
    render(match, console, summary=args.summary)
    return 0
