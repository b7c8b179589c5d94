"""Serve one of our bots as a Bhoos-tournament HTTP bot.

``GET /hi`` answers ``{"value": "hello"}`` once the bot is warmed up (HTTP 503
before), ``POST /bid`` ``{"value": <int>}`` and ``POST /play`` ``{"value": "<card>"}``.
Each request is read on its own (`codec.parse_request`), so one server can
serve all four seats of a table; what it keeps between requests is each seat's
last view of the match's earlier rounds (`memory.MatchMemory`), for a bot that
learns from the whole match (``hard``, inferring each seat's style): a restart costs such a bot those
rounds, and nothing else.  Bad requests get
HTTP 400 and ``{"error": "..."}``; the server itself never stops on one.

The standard library's threaded HTTP server is used: on loopback with
keep-alive it answers in well under a millisecond above the bot's own time
(see ``benchmarks/bhoos_latency.py``), and it has no event loop for a
CPU-bound bot to block.

>>> from callbreak import Ruleset
>>> srv = BotServer("random", Ruleset.preset("bhoos"), seed=1, port=0)
>>> srv.start(); srv.wait_ready(5.0)
True
>>> import httpx
>>> httpx.get(srv.url + "/hi").json()
{'value': 'hello'}
>>> srv.close()
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import json
import logging
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..bots import Bot, make_bot
from ..bots.base import where_raised
from ..cards import Card, to_card
from ..match import Match
from ..round import SeatView, lowest_action, whole_call
from ..rules import Ruleset
from .codec import Answer, ErrorAnswer, Reply, parse_request
from .memory import MatchMemory

log = logging.getLogger("callbreak.remote")

__all__ = ["ALLOWED", "BotServer", "BotService", "route_of", "set_time_limit"]

MAX_BODY = 64 * 1024
#: a chunk's size: hexadecimal digits only (no sign, prefix or underscore)
_HEX = re.compile(rb"[0-9A-Fa-f]{1,8}")


def set_time_limit(bot: Bot, seconds: float | None) -> bool:
    """Tell ``bot`` how long it may think for its next decision, if it takes a limit.

    A bot takes one by having a ``time_limit`` attribute (seconds, or None for
    its own default).  Returns whether the bot took it.

    >>> from callbreak.bots import make_bot
    >>> set_time_limit(make_bot("medium"), 0.5)   # the medium bot takes no limit
    False
    >>> class Thinker(make_bot("random").__class__):
    ...     time_limit = None
    >>> t = Thinker(); set_time_limit(t, 0.5), t.time_limit
    (True, 0.5)
    """
    if hasattr(bot, "time_limit"):
        try:
            bot.time_limit = seconds
        except AttributeError:  # pragma: no cover - read-only property
            return False
        return True
    return False


_NO_LOCK = contextlib.nullcontext()


ALLOWED: dict[str, tuple[str, ...]] = {"/hi": ("GET", "POST", "HEAD"), "/bid": ("POST",), "/play": ("POST",)}
"""The paths a bot answers and the methods each takes (a 405 says them in its ``Allow``)."""


def route_of(path: str) -> str:
    """The path of a request's target, without its query and trailing slash.

    >>> route_of("/bid?x=1"), route_of("/play/"), route_of("")
    ('/bid', '/play', '/')
    """
    return path.split("?", 1)[0].rstrip("/") or "/"


#: what the log adds where ``legal_fallback`` answers for the bot
_FALLBACK = ": the lowest legal action was sent instead (--legal-fallback)"


class BotService:
    """The protocol without the HTTP: a bot, the rules, and `handle` for one request.

    ``seed`` makes answers reproducible: the bot is reseeded before each
    request from ``seed`` and the request itself, and told the seat's earlier
    rounds of the match that this service remembers (`memory.MatchMemory`, for a
    bot that learns from the whole match: ``hard``), so the same requests of a
    match, in the same order, get the same answers, as long as the clock does not
    cut a searching bot's thinking: a request's ``timeBudget`` caps each decision
    by the clock, and a budget the bot's pace cannot pay for is answered by the
    fast ``medium`` level, so that under load an answer can change.  With
    ``no_clock`` neither happens (and ``think`` is playouts alone): the answer
    depends on the seed and the request only, under any load (for the arena and
    tests; a tournament's time budget is then not kept).  ``clock``: the seconds
    the bot's thinking is measured by (the pace that decides when a request's
    time budget is too short for the bot; a test drives its own).

    >>> import json
    >>> from callbreak import Match, Ruleset
    >>> from callbreak.remote.codec import view_to_request
    >>> service = BotService("medium", Ruleset.preset("bhoos"), seed=0)
    >>> m = Match(Ruleset.preset("bhoos"), seed=1)
    >>> path, body = view_to_request(m.view(m.to_act))
    >>> status, answer = service.handle("POST", path, json.dumps(body).encode())
    >>> status, sorted(answer), answer == service.handle("POST", path, json.dumps(body).encode())[1]
    (200, ['value'], True)
    >>> service.handle("POST", "/bid", b"{not json")[0]
    400
    """

    def __init__(
        self,
        level: str | Bot,
        rules: Ruleset | None = None,
        seed: int | None = 0,
        think: float | None = None,
        opp: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
        legal_fallback: bool = False,
        no_clock: bool = False,
    ) -> None:
        if think is not None and not think > 0:
            raise ValueError("think must be a positive number of seconds")
        self.clock = clock
        if opp is not None and level != "hard":
            raise ValueError(f"opp is a setting of the hard bot, not of {level!r}")
        self.think = think
        self.opp = opp
        #: the bot's work never cut by the clock nor handed to the fast level (answers replay under any load)
        self.no_clock = no_clock
        #: answer the lowest legal action in place of the bot's illegal one (`_answer`)
        self.legal_fallback = legal_fallback
        self.seed = seed
        self.rules = rules if rules is not None else Ruleset.preset("bhoos")
        self.bot = self._made(level) if isinstance(level, str) else level
        self.level = level if isinstance(level, str) else self.bot.name
        self.ready = threading.Event()
        # A level gets one bot per serving thread, so that requests of different connections
        # are answered in parallel (the hard bot's kernel releases the GIL); a given Bot
        # instance is shared, one request at a time.
        self._shared = not isinstance(level, str)
        self._local = threading.local()
        self._local.bot = self.bot
        self._lock = threading.Lock()
        self._default_limit = getattr(self.bot, "time_limit", None)
        # When the time left cannot pay for the rest of the round at the bot's usual pace,
        # a searching bot answers with the fast `medium` level instead of running late.
        self.fast_level: str | None = None
        if isinstance(level, str) and level not in ("random", "easy", "medium") and not no_clock:
            try:
                make_bot("medium", seed)
                self.fast_level = "medium"
            except ValueError:  # pragma: no cover - without the medium level
                pass
        #: each seat's earlier rounds, for a bot that learns from the whole match (`Bot.recall`)
        self.memory = MatchMemory()
        self._recent: collections.deque[float] = collections.deque(maxlen=64)
        self.requests = 0
        self.errors = 0
        #: answers that were no legal call or card (sent all the same: the fault is the bot's)
        self.illegal = 0
        self.fast_answers = 0

    def warm_up(self) -> None:
        """Play a few decisions so that lazy imports and compiled kernels are ready.  A bot that
        fails on them is said so in the log (with where), and served all the same."""
        try:
            m = Match(self.rules.replace(rounds=1), seed=12345)
            for _ in range(8):
                if m.is_over:
                    break
                seat = m.to_act
                assert seat is not None
                bot = self._bot()
                with self._lock:
                    bot.reset(self.seed)
                    m.act(bot.act(m.view(seat)))
        except Exception:
            log.exception("the bot %s failed while warming up (on a position of a seeded match); it is served all the same", self.level)
        finally:
            self.ready.set()

    def _bot(self, fast: bool = False) -> Bot:
        if fast and self.fast_level is not None:
            fb: Bot | None = getattr(self._local, "fast", None)
            if fb is None:
                fb = self._local.fast = make_bot(self.fast_level, self.seed)
            return fb
        if self._shared:
            return self.bot
        bot: Bot | None = getattr(self._local, "bot", None)
        if bot is None:
            bot = self._local.bot = self._made(self.level)
        return bot

    def _made(self, level: str) -> Bot:
        """A bot of ``level``; with ``think``, a bot that takes a thinking budget gets it,
        each decision capped by the clock at its share (`HardBot.think_for`); ``opp``:
        the hard bot's model of the other seats (`HardBot`)."""
        bot = make_bot(level, self.seed)
        if self.opp is not None:
            bot = type(bot)(self.seed, opp=self.opp)  # type: ignore[call-arg]  # (a HardBot: checked above)
        think_for = getattr(bot, "think_for", None)
        if self.think is not None and think_for is not None:
            think_for(self.think, clock=not self.no_clock)
        return bot

    def _too_late(self, budget_ms: int | None, decisions_left: int) -> bool:
        """Whether ``budget_ms`` cannot pay for ``decisions_left`` decisions at the bot's
        90th-percentile pace (measured on the last requests)."""
        if budget_ms is None or self.fast_level is None or len(self._recent) < 8:
            return False
        recent = sorted(self._recent)
        pace = recent[int(0.9 * (len(recent) - 1))]
        return budget_ms / 1000.0 < decisions_left * pace

    def _request_seed(self, raw: bytes) -> int | None:
        if self.seed is None:
            return None
        h = hashlib.blake2b(raw, digest_size=8, key=str(self.seed).encode()[:64])
        return int.from_bytes(h.digest(), "big") >> 1

    def handle(self, method: str, path: str, raw: bytes) -> tuple[int, Reply]:
        """Answer one request: (HTTP status, JSON object)."""
        status, obj, _ = self.handle_timed(method, path, raw)
        return status, obj

    def handle_timed(self, method: str, path: str, raw: bytes) -> tuple[int, Reply, float]:
        """`handle`, plus the seconds the bot spent thinking (0 when it was not asked)."""
        think = [0.0]
        status, obj = self._handle(method, path, raw, think)
        return status, obj, think[0]

    def _handle(self, method: str, path: str, raw: bytes, think: list[float]) -> tuple[int, Reply]:
        path = route_of(path)
        self.requests += 1
        if path == "/hi":
            if method not in ALLOWED["/hi"]:
                return 405, ErrorAnswer(error=f"{method} is not allowed on /hi")
            if not self.ready.is_set():
                return 503, ErrorAnswer(error="warming up")
            return 200, Answer(value="hello")
        if path not in ALLOWED:
            return 404, ErrorAnswer(error=f"unknown path {path!r} (the bot answers /hi, /bid and /play)")
        if method not in ALLOWED[path]:
            return 405, ErrorAnswer(error=f"{path} takes POST, not {method}")
        try:
            body = json.loads(raw.decode("utf-8-sig"))  # (a byte-order mark, as some clients write one, is no error)
        except UnicodeDecodeError as e:  # (json.loads would guess another encoding, and name it)
            self.errors += 1
            return 400, ErrorAnswer(error=f"the body is not UTF-8 text (byte {e.start})")
        except ValueError as e:
            self.errors += 1
            return 400, ErrorAnswer(error=f"the body is not JSON: {e}")
        try:
            parsed = parse_request(path, body, self.rules)
        except ValueError as e:
            self.errors += 1
            return 400, ErrorAnswer(error=str(e))
        except Exception as e:  # pragma: no cover - the fuzz tests find none: a fault of ours, said so
            self.errors += 1
            log.exception("a request to %s could not be read", path)
            return 500, ErrorAnswer(error=f"the server could not read the request ({type(e).__name__}: {e})")
        view = parsed.view
        earlier = self.memory.note(parsed.player_ids, view) if self.bot.recalls else ()
        # the same request gets the same answer, whatever the time left or the order of the JSON's
        # keys (the same position listed from another player is another request: another seed)
        key = json.dumps({k: v for k, v in body.items() if k != "timeBudget"}, sort_keys=True).encode()
        left = max(1, len(view.hand)) + (1 if view.phase == "calling" else 0)
        fast = self._too_late(parsed.time_budget_ms, left)
        bot = self._bot(fast)
        with self._lock if self._shared and not fast else _NO_LOCK:
            t0 = self.clock()
            try:
                if parsed.time_budget_ms is not None and not fast and not self.no_clock:
                    share = max(0.001, parsed.time_budget_ms / 1000.0 * 0.8 / left)
                    limit = share if self._default_limit is None else min(self._default_limit, share)
                    set_time_limit(bot, limit)
                bot.reset(self._request_seed(key))
                bot.recall(earlier)
                choice = bot.act(view)
            except Exception as e:  # the bot failed: answer for it rather than crash (and say so)
                self.errors += 1
                log.exception("the bot %s failed", self.level)
                return 500, ErrorAnswer(error=f"the bot failed: {type(e).__name__}{where_raised(e)}: {e}")
            finally:
                think[0] = self.clock() - t0
        if fast:
            self.fast_answers += 1
        elif view.phase == "playing" and len(view.legal_cards) > 1:
            self._recent.append(think[0])
        return self._answer(view, choice)

    def _answer(self, view: SeatView, choice: object) -> tuple[int, Reply]:
        """The bot's own answer, as it gave it: an illegal one is sent (and logged), so that the
        caller (the arena, ``callbreak bot check``, the tournament) sees the bot's fault, unless
        ``legal_fallback`` sends the lowest legal action instead; one that is no call or card at
        all is a 500.

        >>> svc = BotService("random", seed=1)
        >>> from callbreak import Match
        >>> m = Match(svc.rules, seed=3)
        >>> view = m.view(m.to_act)
        >>> svc._answer(view, 0), svc.illegal
        ((200, {'value': 0}), 1)
        >>> svc.legal_fallback = True
        >>> svc._answer(view, 0), svc.illegal
        ((200, {'value': 1}), 2)
        """
        action: int | Card
        legal: tuple[int | Card, ...]
        if view.phase == "calling":
            call = whole_call(choice)  # (an int, or NumPy's: a policy's argmax)
            if call is None:
                self.errors += 1
                return 500, ErrorAnswer(error=f"the bot answered {choice!r} to a call: a call is a whole number")
            action, legal = call, view.legal_calls
        else:
            try:  # (a Card or its index, as the arena takes them from a bot in its process; not text)
                if isinstance(choice, str):
                    raise ValueError(f"a card is a Card (Card.parse({choice!r})), not text")
                if not isinstance(choice, (Card, int)):
                    raise ValueError(f"not a card: {choice!r}")
                action = to_card(choice)
            except ValueError as e:
                self.errors += 1
                return 500, ErrorAnswer(error=f"the bot answered {choice!r} to a card: {e}")
            legal = view.legal_cards
        if action not in legal:
            self.illegal += 1
            log.warning("the bot %s answered %s, not one of the %d legal now (%d illegal answers so far)%s", self.level,
                        action, len(legal), self.illegal, _FALLBACK if self.legal_fallback else "")  # fmt: skip
            if self.legal_fallback:
                action = lowest_action(view)
        return 200, Answer(value=action.bhoos if isinstance(action, Card) else int(action))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server_version = "callbreak-bot"
    service: BotService  # set on the subclass made by BotServer

    def _chunked(self) -> bytes | None:
        """A body sent in chunks (``Transfer-Encoding: chunked``, as some clients send a stream),
        read to its last chunk and trailers; None when it is malformed or over `MAX_BODY`."""
        raw = bytearray()
        while True:
            line = self.rfile.readline(1026)
            size = line.split(b";", 1)[0].strip()
            if not line.endswith(b"\n") or not _HEX.fullmatch(size):
                return None
            n = int(size, 16)
            if len(raw) + n > MAX_BODY:
                return None
            if n == 0:
                break
            raw += self.rfile.read(n)
            if self.rfile.read(2) != b"\r\n":
                return None
        for _ in range(64):  # the trailers, up to the empty line
            if self.rfile.readline(8192) in (b"\r\n", b"\n", b""):
                return bytes(raw)
        return None

    def _answer(self, method: str) -> None:
        raw: bytes | None = b""
        think = 0.0
        obj: Reply
        coding = (self.headers.get("Transfer-Encoding") or "").strip().lower()
        try:
            n = 0 if coding else int(self.headers.get("Content-Length") or 0)
        except ValueError:
            n = -1
        if coding and (coding != "chunked" or self.headers.get("Content-Length") is not None):
            # (another coding, or both framings at once: a request that may be read two ways)
            status, obj = 400, ErrorAnswer(error=f"a body framed as {coding!r}: only 'chunked', without Content-Length")
            self.close_connection = True
        elif coding and (raw := self._chunked()) is None:
            status, obj = 400, ErrorAnswer(error="a malformed or too large chunked body")
            self.close_connection = True
        elif n < 0 or n > MAX_BODY:
            status, obj = 400, ErrorAnswer(error="bad or too large Content-Length")
            self.close_connection = True
        else:
            if n:
                raw = self.rfile.read(n)
            assert raw is not None
            try:
                status, obj, think = self.service.handle_timed(method, self.path, raw)
            except Exception as e:  # pragma: no cover - a bug of ours: still answer (and say so)
                log.exception("a request to %s failed", self.path)
                status, obj = 500, ErrorAnswer(error=f"internal error ({type(e).__name__}: {e})")
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Server-Timing", f"bot;dur={1000 * think:.3f}")
        if status == 405:
            self.send_header("Allow", ", ".join((*ALLOWED[route_of(self.path)], "OPTIONS")))
        if self.close_connection:  # (a body it could not read to its end: the rest is no request)
            self.send_header("Connection", "close")
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(data)

    def do_GET(self) -> None:
        self._answer("GET")

    def do_POST(self) -> None:
        self._answer("POST")

    def do_HEAD(self) -> None:
        self._answer("HEAD")

    def do_PUT(self) -> None:  # the other methods get the service's JSON 405, not the base class's HTML 501
        self._answer("PUT")

    def do_PATCH(self) -> None:
        self._answer("PATCH")

    def do_DELETE(self) -> None:
        self._answer("DELETE")

    def do_OPTIONS(self) -> None:
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Headers", "*")
        self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hangs up mid-request is not the server's problem


class BotServer:
    """An HTTP bot server on ``host:port`` (port 0: a free port, see `url`)."""

    def __init__(
        self,
        level: str | Bot,
        rules: Ruleset | None = None,
        seed: int | None = 0,
        host: str = "127.0.0.1",
        port: int = 7000,
        think: float | None = None,
        opp: int | None = None,
        legal_fallback: bool = False,
        no_clock: bool = False,
    ) -> None:
        self.service = BotService(level, rules, seed, think, opp, legal_fallback=legal_fallback, no_clock=no_clock)
        handler = type("Handler", (_Handler,), {"service": self.service})
        self.httpd = _Server((host, port), handler)
        self.host, self.port = self.httpd.server_address[0], int(self.httpd.server_address[1])
        self._thread: threading.Thread | None = None
        #: whether a serve loop was started (`close` stops one; without, shutdown would wait forever)
        self._serving = False

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else str(self.host)
        return f"http://{host}:{self.port}"

    def start(self) -> None:
        """Serve in a background thread and warm the bot up in another."""
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._serving = True
        self._thread.start()
        threading.Thread(target=self.service.warm_up, daemon=True).start()

    def wait_ready(self, timeout: float = 60.0) -> bool:
        return self.service.ready.wait(timeout)

    def serve_forever(self) -> None:
        """Warm up in the background and serve in this thread until interrupted."""
        threading.Thread(target=self.service.warm_up, daemon=True).start()
        self._serving = True
        try:
            self.httpd.serve_forever()
        finally:
            self.httpd.server_close()

    def close(self) -> None:
        """Stop serving (if it was) and free the port.

        >>> server = BotServer("random", port=0)   # bound to a free port; start() would serve it
        >>> server.url.startswith("http://127.0.0.1:"), server.port > 0, server.service.bot.name
        (True, True, 'random')
        >>> server.close()   # never started: the port is freed at once
        """
        if self._serving:
            self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
