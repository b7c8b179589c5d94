"""Play matches between any four bots and collect what happened.

A seat's bot is given by a spec: a level name (``random``, ``easy``,
``medium``, ``hard``), the URL of an HTTP bot (`resolve_bot`), or
``policy:FILE.npz``, the weights of `callbreak.env.train` saved with
``--save`` and played greedily by its `PolicyBot` (`seat_bot`), or
``FILE.py:CLASS``, a `Bot` subclass written in Python (`callbreak.arena.pyfile`).

Every match is determined by its deal seed: the match seed ``g`` deals the
cards, and the bot in seat ``s`` is reseeded from ``(g, s)`` at the start of the
match, whoever it is.  In duplicate play each deal set is played four times
with the bots rotated one seat further each time, so every bot plays every
seat's cards once; four identical bots then play four identical matches.

>>> res = run_arena(["random"] * 4, matches=2, seed=1, rules=Ruleset.preset("quick"))
>>> len(res.records), [len(r.totals) for r in res.records]
(2, [4, 4])
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..bots import Bot
from ..bots.base import where_raised
from ..checks import check_whole
from ..errors import IllegalAction
from ..match import Match
from ..notation import next_step, set_auto_decisions, to_json
from ..remote.client import Fault, RemoteBot, fallback_action, resolve_bot
from ..round import SeatView
from ..rules import Ruleset
from ..scoring import made
from ..seeds import check_seed, derive_seed
from .pyfile import is_python_spec, python_bot
from .stats import win_shares

__all__ = [
    "MatchRecord",
    "RunResult",
    "Task",
    "derive_seed",
    "distinct",
    "play_match",
    "resolve_bot",
    "run_arena",
    "seat_bot",
    "tasks_for",
]

POLICY = "policy:"
"""The prefix of a spec naming a trained policy's weights file."""


def seat_bot(spec: str, seed: int | None = None, time_budget: float = 1.5, think: float | None = None) -> Bot:
    """The bot of a seat spec: ``policy:FILE.npz`` loads the trained linear policy
    (`callbreak.env.train.load`; a ValueError naming the file if it is missing or bad),
    ``FILE.py:CLASS`` makes the class of a Python file (`callbreak.arena.pyfile.python_bot`),
    anything else is `resolve_bot`'s.  Specs stay strings, resolved in each worker.
    ``think``: seconds of one core per round for a bot that takes a thinking budget
    (`callbreak.bots.hard.HardBot.think_for`, as playout counts: seeded runs replay).

    >>> seat_bot("medium", seed=3)
    <MediumBot 'medium' seed=3>
    >>> try:
    ...     seat_bot("policy:/no/such/weights.npz")
    ... except ValueError as e:
    ...     print(str(e)[:30])
    policy file /no/such/weights.n
    """
    bot = _seat_bot(spec, seed, time_budget)
    think_for = getattr(bot, "think_for", None)
    if think is not None and think_for is not None:
        think_for(think)
    return bot


def _seat_bot(spec: str, seed: int | None, time_budget: float) -> Bot:
    if spec.startswith(POLICY):
        from ..extras import need

        need("a trained policy (policy:FILE.npz)", "bots")
        from ..env.train import PolicyBot, load

        path = spec[len(POLICY) :]
        if not path:
            raise ValueError("policy: needs a file, as in policy:FILE.npz")
        return PolicyBot(load(path), seed=seed)
    if is_python_spec(spec):
        return python_bot(spec, seed)
    return resolve_bot(spec, seed, time_budget)


@dataclass(frozen=True, slots=True)
class Task:
    """One match to play: deal group ``group`` (its seed ``deal_seed``) with the bots
    rotated by ``rotation`` (bot ``i`` sits in seat ``(i + rotation) % 4``).

    >>> t = tasks_for(8, seed=0, duplicate=True)[5]
    >>> t.index, t.group, t.rotation, t.deal_seed == tasks_for(8, 0, True)[4].deal_seed   # one deal, rotated seats
    (5, 1, 1, True)
    """

    index: int
    group: int
    rotation: int
    deal_seed: int


def distinct(names: Sequence[str]) -> list[str]:
    """Names told apart: one that repeats is numbered (the arena's table, its hand histories).

    >>> distinct(["greedy", "medium", "medium", "medium"])
    ['greedy', 'medium #1', 'medium #2', 'medium #3']
    """
    counts = Counter(names)
    out = []
    seen: Counter[str] = Counter()
    for s in names:
        seen[s] += 1
        out.append(f"{s} #{seen[s]}" if counts[s] > 1 else s)
    return out


def _decision(view: SeatView) -> str:
    """Which decision of its round a seat was at, for a fault's record.

    >>> from callbreak import Match
    >>> m = Match(seed=1)
    >>> _decision(m.view(m.to_act))
    'the call'
    >>> for n in (1, 1, 1, 1): _ = m.act(n)
    >>> _decision(m.view(m.to_act))
    'trick 1'
    """
    return "the call" if view.phase == "calling" else f"trick {len(view.tricks) + 1}"


def tasks_for(matches: int, seed: int, duplicate: bool) -> list[Task]:
    """The matches of a run.  In duplicate play ``matches`` is rounded up to a multiple of 4.

    >>> [(t.group, t.rotation) for t in tasks_for(5, 0, True)][:5]
    [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0)]
    """
    out: list[Task] = []
    if duplicate:
        groups = -(-matches // 4)
        for g in range(groups):
            for r in range(4):
                out.append(Task(len(out), g, r, derive_seed("deal", seed, g)))
    else:
        for g in range(matches):
            out.append(Task(g, g, 0, derive_seed("deal", seed, g)))
    return out


@dataclass(slots=True)
class MatchRecord:
    """What happened in one match, indexed by bot (not seat).

    >>> from callbreak import Ruleset
    >>> from callbreak.bots import make_bot
    >>> rec = play_match([make_bot("medium", s) for s in range(4)], Ruleset.preset("quick", rounds=1), tasks_for(1, 0, False)[0])
    >>> rec.seats, rec.rounds, len(rec.calls[0]), sum(sum(t) for t in rec.tricks)
    ([0, 1, 2, 3], 1, 1, 13)
    """

    index: int
    group: int
    rotation: int
    deal_seed: int
    seats: list[int]  # seats[i]: the seat of bot i
    totals: list[float]  # per bot
    rounds: int
    round_points: list[list[float]]  # per round, per bot
    calls: list[list[int]]  # per bot, per round
    tricks: list[list[int]]
    made: list[list[bool]]
    times: list[list[float]]  # per bot, seconds per decision
    round_times: list[list[float]]  # per bot, seconds per round (all its decisions)
    faults: list[list[dict[str, Any]]]  # per bot
    places: list[int]
    win_share: list[float]
    #: the match's hand history (`callbreak.notation.to_json`; seat names are the bots' names),
    #: when asked for: ``callbreak analyse`` and ``callbreak replay`` read it
    history: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "group": self.group,
            "rotation": self.rotation,
            "deal_seed": self.deal_seed,
            "seats": self.seats,
            "totals": self.totals,
            "rounds": self.rounds,
            "places": self.places,
            "win_share": self.win_share,
            "round_points": [list(bot) for bot in zip(*self.round_points)],  # by bot, as the others
            "calls": self.calls,
            "tricks": self.tricks,
            "made": self.made,
            "faults": self.faults,
        }


def play_match(bots: Sequence[Bot], rules: Ruleset, task: Task, *, history: bool = False) -> MatchRecord:
    """Play one match; ``bots[i]`` sits in seat ``(i + task.rotation) % 4``; ``history``: keep
    the match's hand history in the record.

    >>> from callbreak import Ruleset
    >>> from callbreak.bots import make_bot
    >>> bots = [make_bot(level, s) for s, level in enumerate(("medium", "easy", "random", "random"))]
    >>> task = tasks_for(4, seed=0, duplicate=True)[1]   # the bots one seat on
    >>> rec = play_match(bots, Ruleset.preset("quick", rounds=1), task)
    >>> rec.seats, rec.totals == play_match(bots, Ruleset.preset("quick", rounds=1), task).totals   # seeded
    ([1, 2, 3, 0], True)
    >>> from callbreak.notation import from_json
    >>> kept = play_match(bots, Ruleset.preset("quick", rounds=1), task, history=True)
    >>> m = from_json(kept.history); m.players, [float(t) for t in m.totals] == [kept.totals[i] for i in (3, 0, 1, 2)]
    (['random #2', 'medium', 'easy', 'random #1'], True)
    """
    seats = [(i + task.rotation) % 4 for i in range(4)]
    at_seat: list[Bot] = [bots[0]] * 4
    for i, s in enumerate(seats):
        at_seat[s] = bots[i]
        bots[i].reset(derive_seed("bot", task.deal_seed, s))
    named = distinct([b.name for b in bots])  # (four of a kind told apart in the hand history)
    players = [""] * 4
    for i, s in enumerate(seats):
        players[s] = named[i]
    m = Match(rules, seed=task.deal_seed, players=players)
    times: list[list[float]] = [[] for _ in range(4)]  # per seat
    round_times: list[list[float]] = [[] for _ in range(4)]
    faults: list[list[dict[str, Any]]] = [[] for _ in range(4)]
    spent = [0.0] * 4
    made_for: dict[tuple[int, int], str] = {}  # (deal, step): the fallback's, played for a bot that faulted
    current = m.round
    while not m.is_over:
        if m.round is not current:
            if m.rounds and m.rounds[-1] is current:
                for s in range(4):
                    round_times[s].append(spent[s])
            spent = [0.0] * 4
            current = m.round
        seat = m.to_act
        assert seat is not None
        view = m.view(seat)
        bot = at_seat[seat]
        before = len(bot.faults) if isinstance(bot, RemoteBot) else 0  # (it answers its own fallback, and says so)
        t0 = time.perf_counter()
        try:
            action: Any = bot.act(view)
            err: str | None = None
        except Exception as e:  # a bot that raises loses its turn to the fallback
            action, err = None, f"{type(e).__name__}{where_raised(e)}: {e}"
        dt = time.perf_counter() - t0
        times[seat].append(dt)
        spent[seat] += dt
        said: list[Fault] = bot.faults[before:] if isinstance(bot, RemoteBot) else []
        step = next_step(m)
        kind = "error"
        if err is None and view.phase == "playing" and isinstance(action, str):  # (the engine reads text; a bot's card is not)
            err, kind = f"illegal {action!r}: a card is a Card (Card.parse({action!r})), not text", "illegal"
        elif err is None:
            try:
                m.act(action)
            except (IllegalAction, ValueError, TypeError) as e:
                err, kind = f"illegal {action!r}: {e}", "illegal"
        if err is not None:
            said.append(Fault(kind, view.round_number, err[:200]))
            m.act(fallback_action(view))
        if said:
            made_for[step] = "fault"
            faults[seat].extend({**f.to_dict(), "match": task.index, "decision": _decision(view)} for f in said)
    if m.rounds and m.rounds[-1] is current:
        for s in range(4):
            round_times[s].append(spent[s])
    set_auto_decisions(m, made_for)  # (an analysis of the history leaves them out of the bot's figures)
    totals = [float(t) for t in m.totals]
    shares = win_shares(m.totals_tenths)
    places = m.places
    return MatchRecord(
        index=task.index,
        group=task.group,
        rotation=task.rotation,
        deal_seed=task.deal_seed,
        seats=seats,
        totals=[totals[s] for s in seats],
        rounds=len(m.rounds),
        round_points=[[float(rp[s]) for s in seats] for rp in m.round_points],
        calls=[[int(r.calls[s] or 0) for r in m.rounds] for s in seats],
        tricks=[[r.tricks_won[s] for r in m.rounds] for s in seats],
        made=[[made(r.calls[s] or 0, r.tricks_won[s], rules) for r in m.rounds] for s in seats],
        times=[times[s] for s in seats],
        round_times=[round_times[s] for s in seats],
        faults=[faults[s] for s in seats],
        places=[places[s] for s in seats],
        win_share=[shares[s] for s in seats],
        history=to_json(m) if history else None,
    )


@dataclass
class RunResult:
    """A whole arena run: the configuration and every match record, in task order.

    >>> from callbreak import Ruleset
    >>> res = run_arena(["medium", "easy", "random", "random"], 2, rules=Ruleset.preset("quick", rounds=1), seed=1)
    >>> res.matches, len(res.records), res.duplicate, res.jobs
    (2, 2, False, 1)
    """

    specs: list[str]
    rules: Ruleset
    matches: int
    seed: int
    duplicate: bool
    time_budget: float
    jobs: int
    records: list[MatchRecord] = field(default_factory=list)
    wall_seconds: float = 0.0


# --- worker processes ---------------------------------------------------------
_W_BOTS: list[Bot] = []
_W_RULES: Ruleset | None = None
_W_HISTORY = False


def _worker_init(
    specs: Sequence[str],
    rules_dict: dict[str, Any],
    time_budget: float,
    think: float | None = None,
    history: bool = False,
) -> None:
    global _W_BOTS, _W_RULES, _W_HISTORY
    _W_RULES = Ruleset.from_dict(rules_dict)
    _W_BOTS = [seat_bot(s, 0, time_budget, think) for s in specs]
    _W_HISTORY = history


def _worker_play(task: Task) -> MatchRecord:
    assert _W_RULES is not None
    return play_match(_W_BOTS, _W_RULES, task, history=_W_HISTORY)


def run_arena(
    specs: Sequence[str],
    matches: int,
    *,
    rules: Ruleset | str | None = None,
    seed: int = 0,
    jobs: int = 1,
    duplicate: bool = False,
    time_budget: float = 1.5,
    progress: Callable[[MatchRecord], None] | None = None,
    think: float | None = None,
    histories: bool = False,
) -> RunResult:
    """Play ``matches`` matches (rounded up to a multiple of 4 in duplicate play) between
    the four bots of ``specs`` under ``rules`` (a `Ruleset` or a preset's name; default
    ``bhoos``); with ``jobs`` > 1 in that many processes; ``think``: each
    hard seat's budget in seconds of one core per round (`seat_bot`); ``histories``: each
    record keeps its match's hand history.  The records are the same whatever ``jobs`` is.

    >>> from callbreak import Ruleset
    >>> res = run_arena(["medium", "easy", "random", "random"], 4, rules=Ruleset.preset("quick", rounds=1),
    ...                 seed=1, duplicate=True)
    >>> [r.rotation for r in res.records], len({r.deal_seed for r in res.records})
    ([0, 1, 2, 3], 1)
    >>> try:
    ...     run_arena(["medium", "easy"], 1)
    ... except ValueError as e:
    ...     print(e)
    an arena match needs four bots, not 2
    >>> run_arena(["easy"] * 4, 4.5)
    Traceback (most recent call last):
    ...
    ValueError: matches must be a whole number from 1, not 4.5
    >>> run_arena(["easy"] * 4, 4, rules="quick", jobs=0)
    Traceback (most recent call last):
    ...
    ValueError: jobs must be a whole number from 1, not 0
    >>> run_arena(["easy"] * 4, 4, seed=-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be a whole number from 0, not -1
    >>> from callbreak.bots import RandomBot
    >>> try:
    ...     run_arena([RandomBot(), "easy", "easy", "easy"], 4)
    ... except TypeError as e:
    ...     print(e)
    an arena bot is named by a string (a level such as 'hard', 'FILE.py:CLASS', 'policy:FILE.npz' or an http:// URL), not a RandomBot: for a bot class, give 'its_file.py:RandomBot'
    """
    for s in specs:  # (each process of --jobs makes its own bots: they are named, not passed)
        if not isinstance(s, str):
            raise TypeError(
                f"an arena bot is named by a string (a level such as 'hard', 'FILE.py:CLASS', 'policy:FILE.npz'"
                f" or an http:// URL), not a {type(s).__name__}: for a bot class, give 'its_file.py:{type(s).__name__}'"
            )
    if len(specs) != 4:
        raise ValueError(f"an arena match needs four bots, not {len(specs)}")
    matches, jobs, seed = check_whole(matches, "matches", 1), check_whole(jobs, "jobs", 1), check_seed(seed)
    if rules is None:
        rules = Ruleset.preset("bhoos")
    elif isinstance(rules, str):
        rules = Ruleset.preset(rules)  # (as the command line and the environments take them)
    elif not isinstance(rules, Ruleset):
        raise ValueError(f"rules must be a Ruleset or a preset's name, not {rules!r}")
    if rules.rounds is None:
        raise ValueError("the arena needs a fixed number of rounds: give the ruleset a rounds count")
    for s in specs:  # fail early on a bad level name, policy file or Python file
        if not s.startswith(("http://", "https://")):
            seat_bot(s, 0)
    tasks = tasks_for(matches, seed, duplicate)
    result = RunResult(list(specs), rules, len(tasks), seed, duplicate, time_budget, jobs)
    t0 = time.perf_counter()
    records: list[MatchRecord] = []
    for rec in _iterate(specs, rules, tasks, jobs, time_budget, think, histories):
        records.append(rec)
        if progress is not None:
            progress(rec)
    records.sort(key=lambda r: r.index)
    result.records = records
    result.wall_seconds = time.perf_counter() - t0
    return result


def _iterate(
    specs: Sequence[str],
    rules: Ruleset,
    tasks: list[Task],
    jobs: int,
    time_budget: float,
    think: float | None,
    histories: bool,
) -> Iterator[MatchRecord]:
    if jobs <= 1 or len(tasks) == 1:
        bots = [seat_bot(s, 0, time_budget, think) for s in specs]
        try:
            for t in tasks:
                yield play_match(bots, rules, t, history=histories)
        finally:
            for b in bots:
                close = getattr(b, "close", None)
                if close is not None:
                    close()
        return
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    with ctx.Pool(
        jobs, initializer=_worker_init, initargs=(list(specs), rules.to_dict(), time_budget, think, histories)
    ) as pool:
        yield from pool.imap_unordered(_worker_play, tasks, chunksize=1)
