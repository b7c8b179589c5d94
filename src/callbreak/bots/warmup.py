"""Compiling the hard bot's kernel ahead, so that no player waits for it.

The kernel (`callbreak.bots.kernel`) is compiled by numba on first use and
cached on disk (`callbreak.bots.cachedir`); a cold compile takes 30 s to
minutes.  `Warmup.start` prepares it in the background: a helper process
(``python -m callbreak.bots.warmup``) compiles every entry point the bots use
and writes the cache, which this process then loads in a background thread (a
compile here would hold the interpreter for long stretches and stall a
server's event loop).  ``callbreak serve`` and ``callbreak play`` start it;
``callbreak warmup`` compiles in the foreground (install scripts, images).

Serving only: until the kernel is ready, a hard seat (`UntilReady`) and a hint
(`callbreak.bots.hints.hint` with ``until_ready``) answer at once from the
medium level and say so.  A plain `HardBot` (arena, replays, benchmarks) never
looks at readiness: it compiles and waits, so a seed always replays the same.

>>> w = Warmup()
>>> w.ready, w.started
(False, False)
>>> bot = UntilReady(make_bot("random", 1), make_bot("medium", 1), w)
>>> bot.name
'random'
"""

from __future__ import annotations

import argparse
import atexit
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence

from ..cards import Card
from ..extras import need
from ..round import SeatView
from . import make_bot
from .base import Bot

__all__ = ["ENTRY_POINTS", "KERNEL", "UntilReady", "Warmup", "exercise", "main", "serving_bot"]

#: the kernel functions the hard bot and the hints call from Python
ENTRY_POINTS = (
    "sample_deals",
    "mismatches",
    "refine",
    "search",
    "look",
    "call_search",
    "style_misses",
    "simple_cannot",
)

Report = Callable[[str], None]

#: how the helper process ends when the server is being stopped (a signal to its whole process
#: group: Ctrl-C, a supervisor's stop): not a failure to report (an operator's try read "the
#: warm-up process failed (-15: ...)" at a plain stop)
STOPPED = frozenset(-s for s in (getattr(signal, n, None) for n in ("SIGINT", "SIGTERM", "SIGHUP")) if s is not None)


def exercise() -> tuple[int, int]:
    """Call every kernel entry point with the argument types the bots pass: one
    seeded round of four hard bots at a small budget.  Returns (signatures
    compiled here, signatures loaded from the cache) over the entry points;
    raises RuntimeError if an entry point was not reached."""
    from ..match import Match
    from ..rules import Ruleset
    from . import kernel
    from .determinize import simple_knowledge
    from .hard import HardBot
    from .knowledge import Knowledge

    m = Match(Ruleset.preset("quick", rounds=1), seed=1)
    bots = [HardBot(seed=s, iterations=200, call_deals=20, look=2) for s in range(4)]
    while (seat := m.to_act) is not None:
        view = m.view(seat)
        if len(view.tricks) == 2 and not view.trick:  # the others taken for spar-simple
            simple_knowledge(view, Knowledge.from_view(view), [0 if s == seat else 1 for s in range(4)])
        m.act(bots[seat].act(view))
    compiled = loaded = 0
    for name in ENTRY_POINTS:
        d = getattr(kernel, name)
        if not d.signatures:
            raise RuntimeError(f"the warm-up did not reach kernel.{name}")
        loaded += sum(d.stats.cache_hits.values())
        compiled += sum(d.stats.cache_misses.values())
    return compiled, loaded


class Warmup:
    """The kernel's readiness in this process, and the background work that brings it.

    ``ready`` turns true once every entry point is loaded here; ``start`` (at most
    once) begins the work; progress goes to ``report`` (default: stderr).

    >>> w = Warmup(report=print)
    >>> w.ready, w.started
    (False, False)
    >>> w.quick("a hint")   # an answer given before the kernel was ready (said once)
    a hint answered at the medium level: the hard bot's kernel is still warming up
    """

    def __init__(self, report: Report | None = None) -> None:
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._report: Report = report or _stderr
        self._quick: dict[str, int] = {}
        self._stopped = False
        self._then: Callable[[], None] | None = None
        self.seconds: float | None = None
        self.error: str | None = None

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    @property
    def started(self) -> bool:
        return self._thread is not None

    def wait(self, timeout: float | None = None) -> bool:
        """Block until ready (or ``timeout`` seconds); whether it is ready."""
        return self._ready.wait(timeout)

    def start(self, report: Report | None = None, then: Callable[[], None] | None = None) -> bool:
        """Begin the warm-up in the background unless it has begun; True if it begins now.

        ``then`` (of the call that begins it) is called in the warm-up's thread once the kernel
        is loaded here, just before it is ready (``callbreak serve`` freezes what the load
        brought: `commands.serve.freeze_more`)."""
        with self._lock:
            if report is not None:
                self._report = report
            if self._thread is not None:
                return False
            self._then = then
            self._thread = threading.Thread(target=self._run, name="kernel-warmup", daemon=True)
            atexit.register(self.stop)
            self._thread.start()
            return True

    def stop(self) -> None:
        """End the helper process if it still runs, and the warm-up with it (at exit)."""
        with self._lock:
            self._stopped = True
            proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()

    def quick(self, what: str) -> None:
        """Note an answer given at the medium level because the kernel is not ready
        (the first of each kind goes to the console, the count with "ready")."""
        with self._lock:
            n = self._quick[what] = self._quick.get(what, 0) + 1
        if n == 1:
            self._report(f"{what} answered at the medium level: the hard bot's kernel is still warming up")

    def _run(self) -> None:
        from .cachedir import configure_cache

        t0 = time.monotonic()
        choice = configure_cache()
        self._report(f"warming up the hard bot's kernel in the background… (numba cache: {choice.path}; {choice.why})")
        try:
            cmd = [sys.executable, "-m", "callbreak.bots.warmup", "--parent", str(os.getpid())]
            with self._lock:
                if self._stopped:
                    return
                self._proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            out, _ = self._proc.communicate()
            if self._stopped or self._proc.returncode in STOPPED:
                return
            if self._proc.returncode != 0:
                # Compiling here would hold the interpreter for minutes and stall every table:
                # hard seats and hints stay at the medium level instead.
                tail = out.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
                self.error = f"the warm-up process failed ({self._proc.returncode}: {tail[0]})"
                self._report(f"{self.error}; hard seats and hints stay at the medium level")
                return
            t1 = time.monotonic()
            compiled, _ = exercise()
        except Exception as e:  # the serving fallback stays on: hard seats and hints play at the medium level
            self.error = f"{type(e).__name__}: {e}"
            self._report(f"the hard bot's kernel could not be prepared ({self.error}); hard seats and hints stay at the medium level")
            return
        if self._then is not None:
            self._then()
        t2 = time.monotonic()
        self.seconds = t2 - t0
        self._ready.set()
        how = f"compiled here in {t2 - t1:.1f} s" if compiled else f"cache loaded here in {t2 - t1:.1f} s"
        quick = ", ".join(f"{what} ({n})" for what, n in self._quick.items())
        self._report(
            f"the hard bot's kernel is ready in {self.seconds:.1f} s ({how}"
            + (f"; answered at the medium level meanwhile: {quick}" if quick else "")
            + ")"
        )


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


#: the kernel's readiness in this process (serving code consults it)
KERNEL = Warmup()


class UntilReady(Bot):
    """Serving only: ``strong`` once ``warmup`` is ready; until then ``quick``,
    which answers at once (each such answer is noted on ``warmup``).

    >>> from callbreak import Match
    >>> from callbreak.bots.medium import MediumBot
    >>> from callbreak.bots.random_bot import RandomBot
    >>> w = Warmup(report=lambda message: None)
    >>> bot = UntilReady(MediumBot(seed=1), RandomBot(seed=1), w)
    >>> m = Match(seed=3)
    >>> view = m.view(m.to_act)
    >>> bot.act(view) == RandomBot(seed=1).act(view), bot.name   # not ready: the quick bot answers
    (True, 'medium')
    """

    def __init__(self, strong: Bot, quick: Bot, warmup: Warmup) -> None:
        super().__init__(strong.seed)
        self.name = strong.name
        self.strong = strong
        self.quick = quick
        self.warmup = warmup
        self._earlier: Sequence[SeatView] | None = None

    def act(self, view: SeatView) -> int | Card:
        if self.warmup.ready:
            # told only now (counting the earlier rounds runs the kernel, which must not be
            # loaded in a serving process before the warm-up has it ready), and only when told
            # at all: a bot that plays a whole match without reset (the terminal's) keeps its own
            if self._earlier is not None:
                self.strong.recall(self._earlier)
            return self.strong.act(view)
        self.warmup.quick(f"a {self.name} seat's {'call' if view.phase == 'calling' else 'card'}")
        return self.quick.act(view)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.strong.reset(seed)
        self.quick.reset(seed)
        self._earlier = None

    @property
    def recalls(self) -> bool:  # type: ignore[override]
        return self.strong.recalls

    def recall(self, earlier: Sequence[SeatView]) -> None:
        """Kept for the strong bot's next decision once the kernel is ready (the quick one
        ignores it), so that nothing runs the kernel here before then.

        >>> from callbreak import Match, Ruleset
        >>> from callbreak.round import lowest_action
        >>> from callbreak.bots.hard import HardBot
        >>> from callbreak.bots.medium import MediumBot
        >>> m = Match(Ruleset.preset("bhoos"), seed=2)
        >>> while m.round_number < 2:
        ...     _ = m.act(lowest_action(m.view(m.to_act)))
        >>> hard = HardBot(seed=1)
        >>> bot = UntilReady(hard, MediumBot(seed=1), Warmup(report=lambda message: None))
        >>> bot.recall([m.rounds[0].view(m.to_act)])
        >>> _ = bot.act(m.view(m.to_act))   # not ready: medium answers, and hard is told nothing
        >>> int(hard.tally.evidence().sum())
        0
        """
        self._earlier = earlier


def serving_bot(level: str, seed: int | None, warmup: Warmup = KERNEL, capped: bool = True) -> Bot:
    """`make_bot` for a served table: a hard seat answers from the medium level
    until ``warmup`` is ready (and starts it), and its search has a wall-clock cap
    (`HardBot`'s own default has none; ``capped=False``: none, for a server started with
    ``--seed``, whose bots play the same under any load once the kernel is warm).

    >>> w = Warmup()
    >>> w.start = lambda report=None: False   # this example starts no helper process
    >>> bot = serving_bot("hard", 1, w)
    >>> bot.strong.time_limit, make_bot("hard", 1).time_limit
    (0.08, None)
    """
    bot = make_bot(level, seed)
    if bot.name != "hard":
        return bot
    from .hard import SERVING_TIME_LIMIT, HardBot

    if isinstance(bot, HardBot) and capped:
        bot.time_limit = SERVING_TIME_LIMIT  # a person is waiting: a wall-clock cap (never in seeded runs)
    warmup.start()
    return UntilReady(bot, make_bot("medium", seed), warmup)


def _exit_with(parent: int) -> None:
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(1)  # the process we compile for is gone: stop using the CPU


def main(argv: Sequence[str] | None = None) -> int:
    """Compile the kernel into its cache in this process (``callbreak warmup``,
    and the helper process of `Warmup`).

    >>> import contextlib, io
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     try:
    ...         main(["--help"])
    ...     except SystemExit as e:
    ...         code = e.code
    >>> code, out.getvalue().splitlines()[0]
    (0, 'usage: python -m callbreak.bots.warmup [-h] [--parent PARENT]')
    """
    p = argparse.ArgumentParser(prog="python -m callbreak.bots.warmup", description=main.__doc__)
    p.add_argument("--parent", type=int, default=None, help="stop when this process is gone")
    args = p.parse_args(argv)
    need("compiling the hard bot's kernel", "bots")
    if args.parent is not None:
        threading.Thread(target=_exit_with, args=(args.parent,), daemon=True).start()
    from .cachedir import configure_cache

    choice = configure_cache()
    print(f"compiling the hard bot's kernel… (numba cache: {choice.path}; {choice.why})", flush=True)
    t0 = time.monotonic()
    compiled, loaded = exercise()
    print(
        f"ready in {time.monotonic() - t0:.1f} s ({compiled} compiled, {loaded} loaded from the cache)",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
