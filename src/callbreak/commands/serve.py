"""``callbreak serve``: the online tables and the web client on one port."""

from __future__ import annotations

import argparse
import logging
import os
import re
import socket
import sys
from typing import Any

from ..server.config import ServerConfig as _D  # (its defaults, said in the help: one copy of each)
from .options import port_option, positive_int, seed_option

__all__ = ["freeze_more", "register", "run", "seeded_warning", "served_at", "tune_gc"]


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``callbreak serve`` to the command line's subcommands.

    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> args = parser.parse_args(["serve", "--port", "9000", "--db", "tables.db", "--grace", "30"])
    >>> args.func is run, args.host, args.port, args.db, args.grace
    (True, '127.0.0.1', 9000, 'tables.db', 30.0)
    """
    p = subparsers.add_parser(
        "serve",
        help="run the online tables (HTTP + WebSocket) and the web client",
        description="Run the Callbreak server: open the printed URL in a browser. "
        "Every delay and limit can also be set as CALLBREAK_<NAME> in the environment.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=port_option, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument(
        "--db", default=None, help="SQLite database file (default callbreak.db), or a postgresql:// URL (CALLBREAK_DB)"
    )
    p.add_argument(
        "--redis", default=None, help="redis:// URL: serve together with the other processes on it (CALLBREAK_REDIS)"
    )
    p.add_argument("--workers", type=positive_int, default=1, help="processes on this host (needs --redis; default 1)")
    p.add_argument(
        "--bot-processes", type=int, default=None, help="processes deciding for the bots (default 0: threads)"
    )
    p.add_argument(
        "--bot-queue",
        choices=("local", "redis"),
        default=None,
        help="where bots decide: local (here: threads or --bot-processes) or redis (callbreak bot-worker "
        "processes on any host, fed by a queue on --redis) (CALLBREAK_BOT_QUEUE)",
    )
    p.add_argument(
        "--status-port",
        type=port_option,
        default=None,
        metavar="PORT",
        help="a second port that reaches this process alone and answers /healthz, /readyz and /metrics only "
        "(with --workers N, worker k listens on PORT + k, also after a restart)",
    )
    p.add_argument("--fd", type=int, default=None, help=argparse.SUPPRESS)  # a worker's inherited socket
    p.add_argument("--status-fd", type=int, default=None, help=argparse.SUPPRESS)  # and its own status port's
    p.add_argument("--time-scale", type=float, default=None, help="multiply the rules' turn timers (tests: 0.05)")
    p.add_argument("--bot-delay", type=float, default=None, help=f"seconds before a bot acts (default {_D.bot_delay:g})")
    p.add_argument("--forced-delay", type=float, default=None, help=f"highlight before a forced card (default {_D.forced_delay:g})")
    p.add_argument("--grace", type=float, default=None, help=f"seconds a disconnected player keeps the seat (default {_D.grace:g})")
    p.add_argument("--between-rounds", type=float, default=None, help=f"longest pause between rounds (default {_D.between_rounds:g})")
    p.add_argument("--lobby-ttl", type=float, default=None, help=f"seconds before an unstarted table expires (default {_D.lobby_ttl:g})")
    p.add_argument("--create-rate", type=float, default=None, help=f"tables per second per IP (0: no limit; default {_D.create_rate:g})")
    p.add_argument("--msg-rate", type=float, default=None, help=f"messages per second per connection (0: no limit; default {_D.msg_rate:g})")
    p.add_argument("--connect-rate", type=float, default=None, help=f"new WebSockets per second per IP (0: no limit; default {_D.connect_rate:g})")
    p.add_argument(
        "--seed",
        type=seed_option,
        default=None,
        help="TESTS AND DEMONSTRATIONS ONLY: deal new tables (and seed their bots) from this whole number, so the "
        "same seed and the same tables created give the same deals; whoever knows it knows the deals (CALLBREAK_SEED)",
    )
    p.add_argument(
        "--process",
        type=seed_option,
        default=None,
        help="this process's number, mixed into --seed so processes serving one store deal differently "
        "(--workers numbers its children from it: N, N+1, ...) (CALLBREAK_PROCESS)",
    )
    p.add_argument(
        "--log-level",
        default="warning",
        help="the server's log level: debug, info (also each table taken over, each stop), warning "
        "(default), error; lines on stderr, each with its time",
    )
    p.set_defaults(func=run)


def _log_lines(level: str) -> None:
    """The server's own log lines (``callbreak.*``) on stderr, each with its time and level, from
    ``level`` up (before, Python's fallback wrote the warnings alone, with no time: an operator
    could not tell when a takeover or an outage was).

    >>> logger = logging.getLogger("callbreak"); level, handlers = logger.level, list(logger.handlers)
    >>> _log_lines("info"); _log_lines("info"); logger.level == logging.INFO
    True
    >>> len(logger.handlers) - len(handlers)   # (one, however often asked)
    1
    >>> driver = logging.getLogger("psycopg"); [type(h).__name__ for h in driver.handlers]   # (the database driver's too)
    ['_Lines']
    >>> web = logging.getLogger("uvicorn"); [type(h).__name__ for h in web.handlers]   # (and the web server's)
    ['_Lines']
    >>> logger.handlers[:] = handlers; logger.setLevel(level)
    >>> for each in (driver, web): each.handlers.clear(); each.setLevel(logging.NOTSET)
    """
    logger = logging.getLogger("callbreak")
    name = level.upper()
    logger.setLevel(logging.DEBUG if name == "TRACE" else getattr(logging, name, logging.WARNING))
    # the database driver's own warnings too (its pool's tries while PostgreSQL is down), the same way
    driver = logging.getLogger("psycopg")
    driver.setLevel(max(logger.level, logging.WARNING))
    # and the web server's ("connection open", "connection rejected (403 Forbidden)": an operator's
    # try found them with no time; uvicorn is given no logging of its own, `run`)
    for each in (logger, driver, logging.getLogger("uvicorn")):
        if not any(isinstance(h, _Lines) for h in each.handlers):
            each.addHandler(_Lines())


#: a seat's token as a line may carry it: the WebSocket handshake's subprotocol ("token.…", which
#: the web server logs at debug level: an operator's try), a URL's "?token=" (older clients': the
#: web server logs each socket's URL at info level: a reviewer's read), a seat link's "#…", and a
#: message's "token" field (a rematch's; to its closing quote: a long frame is logged cut short)
_TOKENS = re.compile(r'(token\.|[?&]token=|/t/[A-Za-z0-9_-]+#)[A-Za-z0-9_%-]+|("token":\s*")[^"]*')


class _OneLine(logging.Formatter):
    """A log line's message on one line ("connection failed: ...\\n\\tIs the server running ..."
    from libpq: its second line had no time), with no seat's token in it; a traceback still
    follows on lines of its own.

    >>> record = logging.LogRecord("psycopg.pool", logging.WARNING, "", 0, "failed:\\n\\tIs it running?", None, None)
    >>> _OneLine("%(levelname)s %(name)s: %(message)s").format(record)
    'WARNING psycopg.pool: failed: Is it running?'
    >>> record = logging.LogRecord("uvicorn.error", logging.DEBUG, "", 0, "< sec-websocket-protocol: callbreak, token.Wq-E2h_k", None, None)
    >>> _OneLine("%(message)s").format(record)
    '< sec-websocket-protocol: callbreak, token.***'
    >>> record.msg = '"WebSocket /ws/k3Xa9Q?token=dN3D-bd" [accepted] {"type":"rematch","token":"dN...Bx"}'
    >>> _OneLine("%(message)s").format(record)
    '"WebSocket /ws/k3Xa9Q?token=***" [accepted] {"type":"rematch","token":"***"}'
    """

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = _TOKENS.sub(lambda m: f"{m.group(1) or m.group(2)}***", " ".join(record.message.split()))
        return super().formatMessage(record)


class _Lines(logging.StreamHandler):  # type: ignore[type-arg]
    """The server's own log lines on stderr, each with its time and level (`_log_lines`)."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(_OneLine("%(asctime)s %(levelname)s %(name)s: %(message)s"))


def run(args: argparse.Namespace) -> int:
    """``callbreak serve``: run the web server until interrupted.

    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="callbreak")
    >>> register(parser.add_subparsers())
    >>> try:   # (a valid command line serves until interrupted)
    ...     run(parser.parse_args(["serve", "--workers", "2"]))
    ... except SystemExit as e:
    ...     print(e)
    callbreak serve: --workers needs --redis (the processes share their tables through it)
    """
    from ..extras import need

    need("`callbreak serve`", "server")
    import uvicorn

    from ..bots.warmup import KERNEL
    from ..server.app import create_app
    from ..server.config import ServerConfig, setting_names, unknown_variables
    from ..server.probes import Probes
    from ..server.sockets import QuietDenialWebSockets, header_timeout_protocol
    from ..server.store import StoreUnavailable

    flagged = {
        "db": args.db,
        "redis": args.redis,
        "bot_processes": args.bot_processes,
        "bot_queue": args.bot_queue,
        "time_scale": args.time_scale,
        "bot_delay": args.bot_delay,
        "forced_delay": args.forced_delay,
        "grace": args.grace,
        "between_rounds": args.between_rounds,
        "lobby_ttl": args.lobby_ttl,
        "create_rate": args.create_rate,
        "msg_rate": args.msg_rate,
        "connect_rate": args.connect_rate,
        "seed": args.seed,
        "process": args.process,
    }
    try:
        cfg = ServerConfig.from_env(**flagged)
    except ValueError as e:  # a bad option or CALLBREAK_* value: say which, start nothing
        raise SystemExit(f"callbreak serve: {setting_names(str(e), set(flagged))}") from None
    _raise_open_files_limit()
    _log_lines(args.log_level)
    for unknown in unknown_variables(os.environ) if args.fd is None else []:  # (said once: not by each worker)
        logging.getLogger("callbreak.serve").warning("%s", unknown)
    if args.workers > 1 and not cfg.redis:
        raise SystemExit("callbreak serve: --workers needs --redis (the processes share their tables through it)")
    if args.workers > 1 and args.status_port is not None and not 0 < args.status_port <= 65536 - args.workers:
        raise SystemExit(f"callbreak serve: --status-port with --workers {args.workers} is a port from 1 to {65536 - args.workers}")
    if args.status_port is not None and args.status_fd is None and args.port:
        # (found in an operator's try: the clash was said as 'Address already in use', of nothing else)
        clash = [k for k in range(args.workers) if args.status_port + k == args.port]
        if clash:
            whose = "the status port" if args.workers == 1 else f"worker {clash[0]}'s status port (--status-port + {clash[0]})"
            raise SystemExit(f"callbreak serve: {whose} is {args.port}, the server's own --port: choose ports apart")
    from ..server.workers import listening_socket

    sock = None
    port = args.port
    if args.fd is None:
        # the address first: a port already taken is said before anything claims to be served
        try:
            sock = listening_socket(args.host, args.port)
        except OSError as e:
            raise SystemExit(f"callbreak serve: cannot listen on {args.host} port {args.port}: {e.strerror or e}") from None
        port = sock.getsockname()[1]
    # this process's own port, or each worker's (bound here, before anything claims to be served,
    # and kept by the parent: a worker started again gets the same one back)
    statuses: list[socket.socket] = []
    if args.status_port is not None and args.status_fd is None:
        for k in range(args.workers):
            try:
                statuses.append(listening_socket(args.host, args.status_port + k))
            except OSError as e:
                raise SystemExit(
                    f"callbreak serve: cannot listen on {args.host} port {args.status_port + k}: {e.strerror or e}"
                ) from None
    if args.status_fd is not None:
        statuses.append(socket.socket(fileno=args.status_fd))
    status = statuses[0] if statuses and args.workers == 1 else None
    if cfg.redis:  # an unreachable Redis is said now: a process that never joined must not serve tables
        need("`callbreak serve --redis`", "scale")
        from ..server.cluster import reach_redis

        try:
            reach_redis(cfg.redis)
        except RuntimeError as e:
            raise SystemExit(f"callbreak serve: {e}") from None
    if args.workers > 1:
        from ..server.store import open_store
        from ..server.workers import supervise

        assert sock is not None  # a worker (--fd) runs one process
        try:  # (the database too, once, rather than in every worker again and again)
            open_store(cfg.db, cfg.sync).close()
        except StoreUnavailable as e:
            raise SystemExit(f"callbreak serve: {e}") from None
        for line in served_at(args.host, port, cfg.db, behind=bool(cfg.redis)):
            print(line, flush=True)
        note = shared_file_note(args.workers, cfg.db)
        if note:
            print(note, flush=True)
        if cfg.seed is not None:
            print(seeded_warning(cfg.seed), flush=True)
        if statuses:
            last = args.status_port + args.workers - 1
            print(f"  each worker's /readyz and /metrics: http://{args.host}:{args.status_port}/ to :{last}/", flush=True)
        if cfg.bot_queue == "redis":
            print(bot_queue_line(cfg), flush=True)
        return supervise(sock, args.workers, first_process=cfg.process, statuses=statuses)
    try:
        app: Any = create_app(cfg)
    except StoreUnavailable as e:
        raise SystemExit(f"callbreak serve: {e}") from None
    hub = app.state.hub
    joined = None
    if cfg.redis:
        from ..server.router import clustered

        app = clustered(app, cfg)
        joined = app.cluster.joined
    app = Probes(app, hub, joined, status_port=None if status is None else status.getsockname()[1])
    tune_gc(cfg.gc_every)
    sys.setswitchinterval(cfg.switch_interval)  # the event loop waits less for threads holding the GIL
    if args.fd is None:
        for line in served_at(args.host, port, cfg.db, behind=bool(cfg.redis)):
            print(line, flush=True)
        note = shared_file_note(1, cfg.db, redis=bool(cfg.redis))
        if note:
            print(note, flush=True)
    if status is not None and args.fd is None:
        print(f"  this process's /readyz and /metrics: http://{args.host}:{status.getsockname()[1]}/", flush=True)
    if cfg.bot_queue == "redis" and args.fd is None:  # (said once: by --workers' parent, above)
        print(bot_queue_line(cfg), flush=True)
    if cfg.seed is not None and args.fd is None:
        print(seeded_warning(cfg.seed, cfg.process), flush=True)
    if cfg.test_hooks:
        print("  TEST HOOKS ON (CALLBREAK_TEST_HOOKS): time moves only by POST /test/clock; not for play", flush=True)
    # hard seats and hints answer at the medium level until it is ready
    KERNEL.start(_say, then=freeze_more if cfg.gc_every > 0 else None)
    if cfg.pin_cpu:  # last: the threads started above (the kernel's, the collector's) keep every CPU
        from ..server.affinity import pin

        print(f"  event loop pinned to CPU {pin(cfg.process)} (CALLBREAK_PIN_CPU)", flush=True)
    if sock is None:  # a worker: the socket its parent bound (its family and protocol read from it, so
        sock = socket.socket(fileno=args.fd)  # that asyncio gives the connections TCP_NODELAY, as `listening_socket`'s)
    config = uvicorn.Config(
        app,
        log_config=None,  # (its lines go through `_log_lines`' handler: with a time, as ours)
        log_level=args.log_level,
        http=header_timeout_protocol(cfg.header_timeout, cfg.max_header, hub.over_connect_rate),
        ws=QuietDenialWebSockets,
        h11_max_incomplete_event_size=cfg.max_header,
        timeout_keep_alive=cfg.keep_alive,
        ws_max_size=max(65536, cfg.max_message * 4),
        ws_per_message_deflate=cfg.ws_deflate,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        access_log=False,
        lifespan="on",  # a start that fails (joining the others on Redis) stops the process, never serves
    )
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock] if status is None else [sock, status])
    except KeyboardInterrupt:  # Ctrl+C: uvicorn has shut down cleanly, and says so
        return 0
    if not server.started:
        raise SystemExit("callbreak serve: the server did not start (the error is above)")
    return 0


def seeded_warning(seed: int, process: int | None = None) -> str:
    """What `callbreak serve --seed` prints at startup (beside the address it serves).

    >>> seeded_warning(7, 0)
    '  WARNING: SEEDED DEALS (--seed 7, process 0): new tables deal from a known seed, so whoever knows it knows the deals; for tests and demonstrations only'
    """
    where = "" if process is None else f", process {process}"
    return (
        f"  WARNING: SEEDED DEALS (--seed {seed}{where}): new tables deal from a known seed, so whoever knows it"
        " knows the deals; for tests and demonstrations only"
    )


def bot_queue_line(cfg: _D) -> str:
    """What `callbreak serve` says at startup when its bots decide on bot workers (said once, by
    ``--workers``' parent; an operator's try: it said that with no worker a bot's turn played the
    lowest legal action, where the table's own process decides it with the bot).

    >>> from callbreak.server.config import ServerConfig
    >>> bot_queue_line(ServerConfig(redis="redis://:pw@10.0.0.5:6379/0", bot_queue="redis"))
    "  bots decide on the bot workers of redis://:***@10.0.0.5:6379/0 (callbreak bot-worker; with none answering, each table's process decides its bots itself, after 10 s the first time and 1 s each after, until a worker answers)"
    """
    from ..server.botqueue_redis import SILENT_DEADLINE
    from ..server.config import redacted

    return (
        f"  bots decide on the bot workers of {redacted(cfg.redis)} (callbreak bot-worker; with none answering,"
        f" each table's process decides its bots itself, after {cfg.bot_deadline:g} s the first time and"
        f" {SILENT_DEADLINE:g} s each after, until a worker answers)"
    )


def shared_file_note(workers: int, db: str, redis: bool = False) -> str | None:
    """What `callbreak serve --workers N` says when its processes share one SQLite file: it works
    on one host (each table is written by the process that owns it), each write waiting for the
    file's lock; PostgreSQL is the store for a crowd and for more hosts. One process joined to
    others on Redis (``redis``) says the same of the processes it joins: an operator who lost
    the ``CALLBREAK_DB`` of another shell started one on a file of its own, and heard nothing.

    >>> print(shared_file_note(2, "callbreak.db"))
      the 2 processes share the SQLite file callbreak.db (each write waits for its lock): fine for a try on this host; for a crowd or more hosts, --db postgresql://... (docs/deploy.md)
    >>> print(shared_file_note(1, "callbreak.db", redis=True))
      every process joined on this Redis must use this same SQLite file, callbreak.db (one host; a process on another file serves tables the others cannot find): for more hosts, --db postgresql://... (docs/deploy.md)
    >>> shared_file_note(2, "postgresql://cb@db/cb") is None, shared_file_note(1, "callbreak.db") is None
    (True, True)
    """
    from ..server.store import is_postgres_url

    if is_postgres_url(db):
        return None
    if workers >= 2:
        return (
            f"  the {workers} processes share the SQLite file {db} (each write waits for its lock): fine for a try on"
            " this host; for a crowd or more hosts, --db postgresql://... (docs/deploy.md)"
        )
    if redis:
        return (
            f"  every process joined on this Redis must use this same SQLite file, {db} (one host; a process on"
            " another file serves tables the others cannot find): for more hosts, --db postgresql://... (docs/deploy.md)"
        )
    return None


def served_at(host: str, port: int, db: str, behind: bool = False) -> list[str]:
    """What `callbreak serve` prints: the address to open, and the ones friends can use;
    ``behind`` a load balancer (processes sharing their tables through Redis), no advice to open
    the process to the network (an operator's try: that would pass by the balancer's limits).

    >>> served_at("127.0.0.1", 8000, "callbreak.db")[0]
    'Callbreak is being served at http://127.0.0.1:8000/  (database: callbreak.db)'
    >>> served_at("127.0.0.1", 8000, "x.db")[1]
    '  only this device can open it: to play with friends on your network, serve with --host 0.0.0.0'
    >>> served_at("127.0.0.1", 8001, "x.db", behind=True)[1:]
    ['  players reach it through the load balancer in front of it']
    """
    import socket

    from ..server.config import redacted

    if host in ("0.0.0.0", "::", "") and not behind:
        lines = [f"Callbreak is being served at http://127.0.0.1:{port}/  (database: {redacted(db)})"]
        try:
            infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        except OSError:
            infos = []
        lan = sorted({str(i[4][0]) for i in infos if not str(i[4][0]).startswith("127.")})
        for a in lan or ["THIS-MACHINE'S-ADDRESS"]:
            lines.append(f"  friends on your network: http://{a}:{port}/")
        return lines
    shown = f"[{host}]" if ":" in host else host
    lines = [f"Callbreak is being served at http://{shown}:{port}/  (database: {redacted(db)})"]
    if behind:
        lines.append("  players reach it through the load balancer in front of it")
    elif host in ("127.0.0.1", "localhost", "::1"):
        lines.append("  only this device can open it: to play with friends on your network, serve with --host 0.0.0.0")
    return lines


def tune_gc(every: float) -> None:
    """Process-wide: full (oldest-generation) garbage collections every ``every`` seconds,
    in a thread of their own, instead of when Python's counters say (0: Python's way).

    What is loaded by now (modules, the app) is left out of every collection (`gc.freeze`);
    a full collection of a large heap stalls every table for tens of milliseconds.
    """
    import gc
    import threading

    if every <= 0:
        return
    gc.collect()
    gc.freeze()
    g0, g1, _ = gc.get_threshold()
    gc.set_threshold(g0, g1, 1_000_000_000)
    stop = threading.Event()

    def collect() -> None:
        while not stop.wait(every):
            gc.collect()

    threading.Thread(target=collect, name="callbreak-gc", daemon=True).start()


def freeze_more() -> None:
    """Leave out of every later full collection what was loaded since `tune_gc` froze the start:
    the hard bot's kernel (numba's types, dispatchers and compiled functions, some 63,000
    objects that live as long as the process and cost each full collection about 40 ms).

    `callbreak serve` calls it once, when the kernel's warm-up has loaded it: seconds after the
    start, before tables come; a table alive then stays out of the collector's reach for good
    (its few cycles, if it is unloaded later, are never collected).

    >>> import gc
    >>> kept = [[n] for n in range(1000)]
    >>> freeze_more(); gc.get_freeze_count() >= 1000
    True
    >>> gc.unfreeze()
    """
    import gc

    gc.collect()
    gc.freeze()


def _say(message: str) -> None:
    print(message, flush=True)


def _raise_open_files_limit() -> None:
    """Each connection is a file descriptor: allow as many as the system lets us."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = hard if hard != resource.RLIM_INFINITY else 65536
        if soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    except (ImportError, ValueError, OSError):
        pass
