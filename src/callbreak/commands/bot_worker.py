"""``callbreak bot-worker``: decide for the bots of a scaled-out deployment's tables, fed by
the bot queue on its Redis (``callbreak serve --bot-queue redis``; docs/deploy.md)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .options import positive_int

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``callbreak bot-worker`` to the command line's subcommands.

    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> args = parser.parse_args(["bot-worker", "--redis", "redis://10.0.0.5:6379/0", "--processes", "4"])
    >>> args.func is run, args.redis, args.processes, args.namespace
    (True, 'redis://10.0.0.5:6379/0', 4, None)
    """
    p = subparsers.add_parser(
        "bot-worker",
        help="decide for the bots of the tables served with --bot-queue redis (any host, any number)",
        description="Take bot decisions from the deployment's queue on Redis and answer them "
        "(callbreak serve --bot-queue redis). Run as many as the bots need, on any host; a worker "
        "that dies loses no decision: another takes it over. Settings also come from CALLBREAK_REDIS, "
        "CALLBREAK_NAMESPACE and CALLBREAK_BOT_CLAIM_IDLE.",
    )
    p.add_argument("--redis", default=None, help="redis:// URL of the deployment (CALLBREAK_REDIS)")
    p.add_argument("--processes", type=positive_int, default=1, help="worker processes on this host (default 1; one per core)")
    p.add_argument("--namespace", default=None, help="the deployment's key prefix (CALLBREAK_NAMESPACE; default callbreak)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # one of --processes N's
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve the bot queue until stopped (one worker, or ``--processes`` of them); a bad setting
    is one line.

    >>> run(argparse.Namespace(redis="http://127.0.0.1:6379/0", namespace=None, processes=1))
    Traceback (most recent call last):
    ...
    SystemExit: callbreak bot-worker: redis must be a redis:// URL, not 'http://127.0.0.1:6379/0'
    """
    from ..extras import need

    need("`callbreak bot-worker`", "server", "scale")
    from ..server.botworker import BotWorker
    from ..server.config import ServerConfig, redacted, unknown_variables

    try:
        cfg = ServerConfig.from_env(redis=args.redis, namespace=args.namespace)
    except ValueError as e:
        raise SystemExit(f"callbreak bot-worker: {e}") from None
    for unknown in [] if args.child else unknown_variables(os.environ):  # (said once, by the parent)
        print(f"callbreak bot-worker: {unknown}", file=sys.stderr, flush=True)
    if not cfg.redis:
        raise SystemExit("callbreak bot-worker: say which Redis: --redis redis://host:6379/0 (or CALLBREAK_REDIS)")
    if args.processes > 1:
        print(
            f"callbreak bot-worker: {args.processes} processes deciding for the bots of {redacted(cfg.redis)} "
            f"(namespace {cfg.namespace})",
            flush=True,
        )

        from ..server.workers import keep_running

        # the children read the URL from their environment: a password in it stays out of `ps`
        os.environ.update(CALLBREAK_REDIS=cfg.redis, CALLBREAK_NAMESPACE=cfg.namespace)
        cmd = [sys.executable, "-m", "callbreak", "bot-worker", "--processes", "1", "--child"]
        return keep_running(cmd, args.processes, "callbreak bot-worker")
    print(f"callbreak bot-worker: deciding for the bots of {redacted(cfg.redis)} (namespace {cfg.namespace})", flush=True)
    return BotWorker(cfg).run()
