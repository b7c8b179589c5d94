"""Server settings: every delay and limit in one place, overridable by options or env.

Each field can be set from the environment as ``CALLBREAK_<FIELD>`` (upper case),
so tests and benchmarks can run the real server with fast timers:

>>> cfg = ServerConfig.from_env({"CALLBREAK_TIME_SCALE": "0.1", "CALLBREAK_GRACE": "2"})
>>> cfg.time_scale, cfg.grace
(0.1, 2.0)
>>> ServerConfig.from_env({"CALLBREAK_GRACE": "soon"})
Traceback (most recent call last):
...
ValueError: CALLBREAK_GRACE must be a number, not 'soon'
>>> ServerConfig.from_env({"CALLBREAK_SEED": "7"}).seed, ServerConfig.from_env({"CALLBREAK_SEED": ""}).seed
(7, None)
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = ["OTHER_VARIABLES", "ServerConfig", "redacted", "unknown_variables"]


@dataclass
class ServerConfig:
    """Delays are in seconds; rates are per second (0 turns a limit off)."""

    db: str = "callbreak.db"
    #: multiplies the ruleset's ``card_seconds`` / ``call_seconds`` (tests use e.g. 0.05)
    time_scale: float = 1.0
    #: pause before a bot (or a bot standing in for a player) acts, so people can follow
    bot_delay: float = 0.7
    #: highlight before a seat's only legal card is played for it (``autoplay_forced``)
    forced_delay: float = 0.6
    #: how long a disconnected player keeps the seat before a bot plays it
    grace: float = 20.0
    #: longest pause between rounds when not every player has pressed ready
    between_rounds: float = 10.0
    #: a table still in the lobby this long after creation expires
    lobby_ttl: float = 1800.0
    #: a finished table is dropped from memory this long after its last connection left
    unload_after: float = 300.0
    #: how often expiry and unloading run
    sweep_every: float = 15.0
    #: table creation and joins per client IP: a token bucket
    create_rate: float = 0.2
    create_burst: int = 20
    #: messages per connection: a token bucket
    msg_rate: float = 20.0
    msg_burst: int = 40
    #: largest WebSocket message the server reads (bytes); larger ones get an error
    max_message: int = 4096
    #: largest HTTP body accepted (bytes)
    max_body: int = 16384
    #: events kept per table, rendered for every seat, for catch-ups (refilled from the log's newest
    #: entries when a process loads the table): a reconnecting client missing more gets a snapshot
    catchup_max: int = 64
    #: bytes (UTF-8) queued for one connection that does not keep up before it is dropped
    #: (close code 4008; it can reconnect and catch up)
    send_buffer: int = 262144
    #: a closing connection that has not taken its last messages and close frame by then is aborted
    close_timeout: float = 5.0
    #: full garbage collections: Python's own (0), or one every this many seconds; a full
    #: collection of a large heap stalls every table for tens of milliseconds
    gc_every: float = 300.0
    #: process-wide (set by ``callbreak serve``): the longest a thread holding the GIL (a hint, a
    #: bot thinking in Python) runs before the event loop may take it back (Python's own: 0.005)
    switch_interval: float = 0.001
    #: Linux: the event loop's thread kept on one CPU, the ``process``-th (``server/affinity.py``);
    #: the bot, hint and analysis worker processes keep every CPU
    pin_cpu: bool = False
    #: HTTP: seconds a client may take to send a request head (from the socket's opening,
    #: or the end of the previous response) before the socket is closed (slowloris)
    header_timeout: float = 10.0
    #: HTTP: seconds an idle keep-alive connection is kept open
    keep_alive: int = 5
    #: HTTP: largest request head (request line and headers, bytes); larger ones get 400
    max_header: int = 16384
    #: WebSocket: seconds a new connection has to send its ``hello`` before it is closed
    hello_timeout: float = 10.0
    #: WebSocket connections at once from one client address (0: no limit)
    max_sockets_per_ip: int = 64
    #: new WebSocket connections per client address: a token bucket (0: no limit); beyond it a
    #: connection gets ``rate_limited`` and is closed (4429) before it costs a table anything
    connect_rate: float = 2.0
    connect_burst: int = 60
    #: WebSocket permessage-deflate: off by default, each message would be compressed once per
    #: connection on the event loop (the server's largest cost per message); on, it saves bandwidth
    ws_deflate: bool = False
    #: on PostgreSQL, calls and cards sent without the event loop waiting for PostgreSQL's answer,
    #: many in one statement (`server.writebehind`): a quarter less of the server's CPU per action
    #: and more tables within the bound (README); off: every commit made on the loop, waited for
    write_behind: bool = True
    #: spectators arriving or leaving are told to the table at most this often (seconds)
    presence_every: float = 1.0
    #: threads computing hints (bots have their own); hints waiting or running at once
    hint_workers: int = 1
    hint_queue: int = 16
    #: hints worked out in child processes (``hint_workers`` of them), off the server's GIL
    hint_processes: bool = True
    #: an unfinished table no player has been connected to for this long is abandoned
    #: (its log stays in the store; it is no longer loaded or resumed)
    abandon_after: float = 3600.0
    #: post-match analysis: playouts per decision, and worker processes running analyses
    analysis_budget: int = 800
    analysis_workers: int = 1
    #: start the analysis worker and load the kernel there when the server starts (a first
    #: analysis then waits no load of the kernel); off by default: a server nobody asks for
    #: an analysis keeps no worker process
    analysis_warm: bool = False
    #: SQLite ``synchronous``: "normal" survives a killed process (WAL); "full" also a power cut
    sync: str = "normal"
    #: processes deciding for the bots (medium and hard) off the event loop; 0: a thread each
    bot_processes: int = 0
    #: where bots decide: "" (this process: ``bot_processes``) or "redis" (the bot queue on ``redis``,
    #: served by ``callbreak bot-worker`` processes on any host: `callbreak.server.botqueue_redis`)
    bot_queue: str = ""
    #: the bot queue: seconds a decision waits for a worker's answer before the table's process
    #: decides it (a worker skips a request older than that)
    bot_deadline: float = 10.0
    #: the bot queue: seconds a request may sit with one worker unanswered before another takes it
    bot_claim_idle: float = 2.0
    #: the bot queue: requests the stream keeps (older ones are trimmed)
    bot_queue_max: int = 10000
    #: Redis (``redis://host:port/db``) joining this process to the others serving the same
    #: store: table leases, forwarded requests and tunnelled sockets (docs/deploy.md); empty: alone
    redis: str = ""
    #: the prefix of this deployment's Redis keys and channels
    namespace: str = "callbreak"
    #: seconds after which a process that stopped renewing its liveness loses its tables' leases
    lease_ttl: float = 3.0
    #: the web client's files: empty for the package's own (``server/static``), or a directory with
    #: the same layout (a customised client; the tests serve a copy to play a new release)
    static: str = ""
    #: TESTS ONLY: run on a clock only ``POST /test/clock`` moves, and serve the ``/test/*``
    #: routes of `callbreak.server.testhooks` (never on in production)
    test_hooks: bool = False
    #: TESTS AND DEMONSTRATIONS ONLY: new tables' seeds (their deals, bots' names and play) come
    #: from a stream seeded with this (`callbreak.server.seeding`), not from `secrets`; whoever knows
    #: it knows the deals. None: unseeded. Table ids, invites and seat tokens never come from it
    seed: int | None = None
    #: this process's number among processes serving with one ``seed``, mixed into its stream so
    #: they deal differently (``--workers`` numbers its children from it: N, N + 1, ...); with
    #: ``pin_cpu``, it chooses the CPU
    process: int = 0
    #: TESTS ONLY: with ``seed``, also serve ``POST /test/seed`` (start the stream again from another
    #: seed; tests sharing one server give each test its own deals). Off on a demonstration server:
    #: there anyone could set the deals to a seed they know
    test_reseed: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> ServerConfig:
        """Defaults, then ``CALLBREAK_*`` variables, then ``overrides`` (None values skipped)."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            key = f"CALLBREAK_{f.name.upper()}"
            if key not in env:
                continue
            raw = env[key]
            default = getattr(cls, f.name)
            try:
                if f.type == "int | None":
                    values[f.name] = int(raw) if raw.strip() else None
                elif isinstance(default, bool):
                    values[f.name] = raw.lower() in ("1", "true", "yes", "on")
                elif isinstance(default, int):
                    values[f.name] = int(raw)
                elif isinstance(default, float):
                    values[f.name] = float(raw)
                else:
                    values[f.name] = raw
            except ValueError:
                raise ValueError(f"{key} must be a number, not {raw!r}") from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        cfg = cls(**values)
        cfg.check()
        return cfg

    def check(self) -> None:
        """Reject negative delays and a bad ``sync``.

        >>> ServerConfig(grace=-1).check()
        Traceback (most recent call last):
        ...
        ValueError: grace must not be negative
        """
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
                raise ValueError(f"{f.name} must not be negative")
        if self.sync not in ("normal", "full", "off"):
            raise ValueError(f"sync must be normal, full or off, not {self.sync!r}")
        if self.hint_workers < 1:
            raise ValueError("hint_workers must be at least 1")
        if self.analysis_budget < 1 or self.analysis_workers < 1:
            raise ValueError("analysis_budget and analysis_workers must be at least 1")
        if self.redis and not self.redis.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError(f"redis must be a redis:// URL, not {redacted(self.redis)!r}")
        if self.bot_queue not in ("", "local", "redis"):
            raise ValueError(f"bot_queue must be local or redis, not {self.bot_queue!r}")
        if self.bot_queue == "redis" and not self.redis:
            raise ValueError("bot_queue redis needs a redis URL (--redis, CALLBREAK_REDIS)")
        if self.bot_claim_idle < 0.05 or self.bot_deadline <= 0 or self.bot_queue_max < 100:
            raise ValueError("bot_claim_idle must be at least 0.05 s, bot_deadline over 0, bot_queue_max at least 100")
        if self.lease_ttl < 0.3:
            raise ValueError("lease_ttl must be at least 0.3 seconds")
        if not 0 < self.switch_interval <= 1:
            raise ValueError("switch_interval must be between 0 and 1 second")
        if self.max_message < 64:
            raise ValueError("max_message must be at least 64 bytes")


#: the ``CALLBREAK_*`` variables read outside `ServerConfig` (the bots' compiled-kernel cache; the
#: test suite's services, which ``.ci/run`` exports and the servers it starts inherit)
OTHER_VARIABLES = frozenset({"CALLBREAK_NUMBA_CACHE_DIR", "CALLBREAK_TEST_PG", "CALLBREAK_TEST_REDIS"})


def unknown_variables(env: Mapping[str, str]) -> list[str]:
    """A warning for each ``CALLBREAK_*`` variable in ``env`` that nothing reads, with the setting
    meant where one is close (an operator's try: ``CALLBREAK_CONECT_BURST=400`` started the server
    with the default burst, and said nothing).

    >>> unknown_variables({"CALLBREAK_CONECT_BURST": "400", "CALLBREAK_GRACE": "60", "PATH": "/bin"})
    ['CALLBREAK_CONECT_BURST is not a setting (CALLBREAK_CONNECT_BURST?): ignored']
    >>> unknown_variables({"CALLBREAK_COLOUR": "green", "CALLBREAK_NUMBA_CACHE_DIR": "/tmp/k"})
    ['CALLBREAK_COLOUR is not a setting: ignored']
    """
    known = {f"CALLBREAK_{f.name.upper()}" for f in dataclasses.fields(ServerConfig)} | OTHER_VARIABLES
    out = []
    for key in sorted(k for k in env if k.startswith("CALLBREAK_") and k not in known):
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.8)
        out.append(f"{key} is not a setting{f' ({close[0]}?)' if close else ''}: ignored")
    return out


def setting_names(message: str, flagged: set[str]) -> str:
    """A `ServerConfig` error with its settings named as an operator gives them: the option and
    the variable (``flagged``: the settings ``callbreak serve`` has an option for), or the variable.
    The settings of two words or more anywhere, a one-word setting where it begins the message.

    >>> setting_names("bot_processes must not be negative", {"bot_processes"})
    'bot_processes (--bot-processes, CALLBREAK_BOT_PROCESSES) must not be negative'
    >>> setting_names("lease_ttl must be at least 0.3 seconds", set())
    'lease_ttl (CALLBREAK_LEASE_TTL) must be at least 0.3 seconds'
    >>> setting_names("grace must not be negative", {"grace"})
    'grace (--grace, CALLBREAK_GRACE) must not be negative'
    >>> setting_names("redis must be a redis:// URL, not 'http://x'", {"redis"})
    "redis (--redis, CALLBREAK_REDIS) must be a redis:// URL, not 'http://x'"
    """
    fields = {f.name for f in dataclasses.fields(ServerConfig)}

    def named(m: re.Match[str]) -> str:
        f = m.group(0)
        flag = f"--{f.replace('_', '-')}, " if f in flagged else ""
        return f"{f} ({flag}CALLBREAK_{f.upper()})"

    many = sorted((f for f in fields if "_" in f), key=len, reverse=True)
    out = re.sub(r"(?<![\w-])(" + "|".join(many) + r")(?![\w-])", named, message) if many else message
    first = out.split(" ", 1)[0]
    if first in fields and "_" not in first:
        out = re.sub(r"^\w+", named, out, count=1)
    return out


def redacted(url: str) -> str:
    """``url`` with its password, if any, shown as ``***`` (what a banner or a log may print).

    >>> redacted("postgresql://callbreak:S3cret@db:5432/callbreak"), redacted("redis://:pw@r:6379/0")
    ('postgresql://callbreak:***@db:5432/callbreak', 'redis://:***@r:6379/0')
    >>> redacted("callbreak.db"), redacted("postgresql://callbreak@127.0.0.1/callbreak")
    ('callbreak.db', 'postgresql://callbreak@127.0.0.1/callbreak')
    >>> redacted("postgresql://callbreak@db/callbreak?sslmode=require&password=S3cret")
    'postgresql://callbreak@db/callbreak?sslmode=require&password=***'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.password is not None:
        user, _, host = parts.netloc.rpartition("@")
        parts = parts._replace(netloc=f"{user.split(':', 1)[0]}:***@{host}")
    if "password=" in parts.query:  # (libpq and redis-py take it in the query too)
        query = "&".join("password=***" if q.startswith("password=") else q for q in parts.query.split("&"))
        parts = parts._replace(query=query)
    return urlunsplit(parts)
