"""``callbreak bot serve`` and ``callbreak bot check``: bots over HTTP (Bhoos tournament protocol)."""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

from .options import bot_url, output_file, port_option, positive_float, positive_int, seed_option


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``callbreak bot serve`` and ``callbreak bot check`` to the command line's subcommands.

    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> args = parser.parse_args(["bot", "serve", "--bot", "medium", "--port", "0"])
    >>> args.func is run_serve, args.bot, args.port, args.rules
    (True, 'medium', 0, 'bhoos')
    >>> parser.parse_args(["bot", "check", "http://127.0.0.1:7000"]).func is run_check
    True
    """
    p = subparsers.add_parser(
        "bot",
        help="serve one of our bots over HTTP, or check someone's HTTP bot",
        description="Bots over HTTP in the Bhoos Callbreak AI tournament protocol.",
    )
    sub = p.add_subparsers(dest="bot_command", metavar="ACTION", required=True)

    s = sub.add_parser(
        "serve",
        help="serve a bot level as a Bhoos-compatible HTTP bot (GET /hi, POST /bid, POST /play)",
        description=(
            "Serve one of our bot levels as a Bhoos-tournament HTTP bot. Every request is answered from "
            "its own content (and, for hard, the seat's earlier rounds of the match), so one "
            "server can serve all four seats of a table."
        ),
    )
    s.add_argument(
        "--bot",
        default="hard",
        help="level to serve (default hard), or your own: FILE.py:CLASS (a Bot class in a Python file) "
        "or policy:FILE.npz (a trained policy)",
    )
    s.add_argument("--port", type=port_option, default=7000, help="port (default 7000; 0 picks a free one)")
    s.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for all)"
    )
    s.add_argument("--rules", default="bhoos", help="ruleset preset the bot plays by (default bhoos)")
    s.add_argument(
        "--seed",
        type=seed_option,
        default=0,
        help="seed: the same request gets the same answer (unless the clock cuts a searching bot's thinking: "
        "see --no-clock)",
    )
    s.add_argument(
        "--no-clock",
        action="store_true",
        help="never cut the bot's thinking by the clock nor answer with the fast medium level when the "
        "request's timeBudget runs short: the same request gets the same answer under any load (for the "
        "arena and tests; a tournament's time budget is then not kept)",
    )
    s.add_argument(
        "--think",
        type=positive_float,
        default=None,
        metavar="SECONDS",
        help="the hard bot's thinking per round in seconds (spread over its decisions, each capped by "
        "the clock at its share; default: hard's own playout budget, about 0.375 s on one core)",
    )
    s.add_argument(
        "--opp",
        type=int,
        choices=(0, 1, 2),
        default=None,
        help="the hard bot's model of the other seats: 0 the medium level's rules, 1 spar-simple's, "
        "2 each seat's style (medium's, or spar-simple's with its hand in any of 48 orders) inferred "
        "from its cards over the match (the default; the server keeps each seat's earlier rounds)",
    )
    s.add_argument(
        "--legal-fallback",
        action="store_true",
        help="answer the lowest legal call or card in place of an illegal one your bot gives (each logged), "
        "as a tournament entry's safety net; by default the bot's own answer is sent, so that `callbreak bot "
        "check` and the arena see its faults",
    )
    s.set_defaults(func=run_serve)

    c = sub.add_parser(
        "check",
        help="check an HTTP bot: health, legal answers on sample positions, timing",
        description="Conformance check of an HTTP bot; the exit code is 1 when a check fails.",
    )
    c.add_argument("url", type=bot_url, help="the bot's base URL, e.g. http://127.0.0.1:7000")
    c.add_argument("--positions", type=positive_int, default=40, help="sample positions to ask about (default 40)")
    c.add_argument("--rules", default="bhoos", help="ruleset preset of the positions (default bhoos)")
    c.add_argument("--seed", type=seed_option, default=0, help="seed of the sample positions")
    c.add_argument("--time-budget", type=positive_float, default=1.5, help="seconds per round (default 1.5)")
    c.add_argument("--json", metavar="FILE", type=output_file, help="also write the report as JSON")
    c.set_defaults(func=run_check)


def run_serve(args: argparse.Namespace) -> int:
    """``callbreak bot serve``: serve a bot over HTTP until interrupted (2: a bad level or port).

    >>> import argparse, contextlib, io
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     code = run_serve(parser.parse_args(["bot", "serve", "--bot", "grandmaster", "--port", "0"]))
    >>> code, err.getvalue()[:40]
    (2, "error: unknown bot level 'grandmaster' (")
    """
    import sys

    from ..arena.pyfile import is_python_spec
    from ..arena.runner import POLICY, seat_bot
    from ..bots import Bot
    from ..remote.server import BotServer
    from ..rules import Ruleset

    try:
        rules = Ruleset.preset(args.rules)
        if args.think is not None and not args.bot.strip().lower().startswith("hard"):
            raise ValueError(f"--think is a setting of the hard bot, not of {args.bot!r}")
        bot: str | Bot = args.bot
        if args.bot.startswith(POLICY) or is_python_spec(args.bot):  # one bot, answering one request at a time
            bot = seat_bot(args.bot, seed=args.seed)
        server = BotServer(
            bot, rules, seed=args.seed, host=args.host, port=args.port, think=args.think, opp=args.opp,
            legal_fallback=args.legal_fallback, no_clock=args.no_clock,
        )  # fmt: skip
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: cannot listen on {args.host} port {args.port}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(
        f"serving the {args.bot!r} bot ({rules.name} rules) on {server.url}  (GET /hi, POST /bid, POST /play)",
        flush=True,
    )
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


def run_check(args: argparse.Namespace) -> int:
    """``callbreak bot check URL``: check someone's HTTP bot; 0 when it passes, 1 when a check fails.

    >>> import argparse, contextlib, io, socket
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> closed = socket.socket(); closed.bind(("127.0.0.1", 0))   # a port nobody listens on
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     code = run_check(parser.parse_args(["bot", "check", f"http://127.0.0.1:{closed.getsockname()[1]}",
    ...                                         "--positions", "4"]))
    >>> code, "GET /hi" in out.getvalue()
    (1, True)
    >>> closed.close()
    """
    import json

    from rich.console import Console
    from rich.table import Table

    from ..extras import need

    need("`callbreak bot check`", "remote")
    from ..arena.check import ROUND_DECISIONS, check_bot
    from ..arena.stats import percentile
    from ..rules import Ruleset

    console = Console()
    try:
        rules = Ruleset.preset(args.rules)
    except ValueError as e:
        console.print(f"[red]error:[/red] {e}")
        return 2
    rep = check_bot(args.url, args.positions, rules, args.seed, args.time_budget)
    table = Table(title=f"bot check: {rep.url}")
    table.add_column("", width=2)
    table.add_column("check")
    table.add_column("answer / detail")
    table.add_column("ms", justify="right")
    for r in rep.results:
        mark = (
            "[green]✓[/green]" if r.ok else ("[yellow]![/yellow]" if r.severity == "warn" else "[red]✗[/red]")
        )
        table.add_row(mark, r.name, r.detail, "" if r.ms is None else f"{r.ms:.1f}")
    console.print(table)
    if rep.times_ms:
        console.print(
            f"timing over {len(rep.times_ms)} requests: p50 {percentile(rep.times_ms, 50):.1f} ms, "
            f"p99 {percentile(rep.times_ms, 99):.1f} ms, max {max(rep.times_ms):.1f} ms "
            f"(budget {args.time_budget:.2f} s per round ≈ {1000 * args.time_budget / ROUND_DECISIONS:.0f} ms per decision)"
        )
    n_ok = sum(1 for r in rep.results if r.ok)
    verdict = "[green]PASS[/green]" if rep.ok else "[red]FAIL[/red]"
    console.print(
        f"{verdict}: {n_ok}/{len(rep.results)} checks passed, {len(rep.failures)} failed, "
        f"{len(rep.warnings)} warnings"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rep.to_dict(), f, indent=1)
    return 0 if rep.ok else 1
