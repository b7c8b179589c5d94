"""Stepped load against a running deployment: the highest load whose p99 action->event stays
under a bound, and where the CPU went at each step.

`run_steps` adds tables (each with ``humans`` scripted seats and random bots, an endless
match) step by step on top of the ones already playing, lets them warm up, measures a
window, and goes on until ``misses`` steps in a row are over the bound.  `idle_sweep` keeps
an active load and adds *idle* seats: tables of 4 scripted players who think for
``idle_think`` seconds (mostly idle connected sockets, as a festival evening's lobby-goers
and slow thinkers are).

The CPU of each component over each window comes from /proc (utime + stime of the process
and all its descendants: PostgreSQL's backends, nginx's workers), the client's from its own
processes' rusage, and "other" is the rest of the machine's busy time (other users of a
shared machine).  CPU per action (µs) is a component's CPU over the window divided by the
actions in it (every call and card of the measured tables, the bots' too): the servers' and the
client's side by side, the cost that the p99 tail queues behind.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from loadclient import Workers

CLK_TCK = os.sysconf("SC_CLK_TCK")

#: an endless match (no fixed last round), turn timers far past any think
ENDLESS = {"preset": "standard", "rounds": None, "card_seconds": 120, "call_seconds": 120}


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds) of a process, None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / CLK_TCK


def tree_cpu(roots: list[int]) -> dict[int, float]:
    """CPU seconds of each process in the trees under ``roots`` (the roots included)."""
    procs: dict[int, tuple[int, float]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None:
                procs[int(name)] = st
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    out: dict[int, float] = {}
    todo = [r for r in roots if r in procs]
    while todo:
        pid = todo.pop()
        if pid not in out:
            out[pid] = procs[pid][1]
            todo += children.get(pid, [])
    return out


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot."""
    with open("/proc/stat") as f:
        parts = [int(x) for x in f.readline().split()[1:]]
    idle = parts[3] + parts[4]
    return (sum(parts) - idle) / CLK_TCK, sum(parts) / CLK_TCK


class CpuWindow:
    """CPU % of each named component (a list of root pids) between `start` and `stop`."""

    def __init__(self, components: dict[str, list[int]]) -> None:
        self.components = components
        self.before: dict[str, dict[int, float]] = {}
        self.t0 = 0.0
        self.busy0 = (0.0, 0.0)

    def start(self) -> None:
        self.before = {k: tree_cpu(v) for k, v in self.components.items()}
        self.t0 = time.monotonic()
        self.busy0 = machine_busy()

    def stop(self, client_cpu_s: float) -> dict[str, float]:
        wall = time.monotonic() - self.t0
        busy1 = machine_busy()
        out: dict[str, float] = {}
        for k, roots in self.components.items():
            now = tree_cpu(roots)
            was = self.before[k]
            out[k] = 100 * sum(c - was.get(pid, 0.0) for pid, c in now.items()) / wall
        out["client"] = 100 * client_cpu_s / wall
        out["machine"] = 100 * (busy1[0] - self.busy0[0]) / wall
        out["other"] = out["machine"] - sum(v for k, v in out.items() if k != "machine")
        out["cores"] = 100 * (busy1[1] - self.busy0[1]) / wall  # 100 % a core: the machine's capacity
        return out


async def _make_tables(base: str, n: int, humans: int, bots: str, rules: dict[str, Any], start: bool) -> list[list[str]]:
    """``n`` tables with ``humans`` players each: their tokens, the host's first."""
    sem = asyncio.Semaphore(8)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:

        async def ask(path: str, body: dict[str, Any]) -> dict[str, Any]:
            """The answer to a POST, asked again (up to 5 times) while the server says 503 or 5xx."""
            for attempt in range(5):
                r = await http.post(path, json=body)
                if r.status_code < 500 or attempt == 4:
                    break
                await asyncio.sleep(0.5)
            if r.status_code != 200:
                raise RuntimeError(f"POST {path}: {r.status_code} {r.text[:200]}")
            return dict(r.json())

        async def one(i: int) -> list[str]:
            async with sem:
                made = await ask("/api/tables", {"rules": rules, "bots": bots, "name": f"L{i}"})
                tokens = [made["token"]]
                for h in range(1, humans):
                    tokens.append((await ask(f"/api/join/{made['invite']}", {"name": f"L{i}.{h}"}))["token"])
                if start:
                    await ask(f"/api/tables/{made['table']}/start", {"token": made["token"]})
                return [made["table"], *tokens]

        return await asyncio.gather(*(one(i) for i in range(n)))


def make_seats(base: str, n: int, humans: int, think: float) -> list[tuple[str, str, float, bool]]:
    """Create ``n`` playing tables; their scripted seats (table, token, think, reporter)."""
    tables = asyncio.run(_make_tables(base, n, humans, "random", ENDLESS, start=True))
    return [(t[0], tok, think, i == 0) for t in tables for i, tok in enumerate(t[1:])]


@dataclass
class Step:
    tables: int
    idle_seats: int
    connections: int
    actions_per_s: float
    p50_ms: float
    p99_ms: float
    samples: int
    errors: int
    cpu: dict[str, float] = field(default_factory=dict)
    #: each window's p99 (ms) when the step was measured in several (`measure`'s ``repeats``):
    #: ``p99_ms`` is then their median
    p99_windows: list[float] = field(default_factory=list)

    def us_per_action(self, component: str) -> float:
        """CPU microseconds of ``component`` (``servers``, ``client``, ...) per action."""
        return 1e4 * self.cpu.get(component, 0.0) / self.actions_per_s if self.actions_per_s else float("nan")

    def ok(self, bound_ms: float) -> bool:
        return self.p99_ms <= bound_ms and self.errors == 0 and self.samples > 0


def _pct(lat: list[float], p: float) -> float:
    return 1000 * lat[min(len(lat) - 1, int(p * len(lat)))] if lat else float("nan")


#: a window during which the rest of the machine (other sessions' work) used more than this much CPU
#: (% of one core) is measured again, up to `RETRIES` times (0: never; `run_steps`' ``max_other``)
RETRIES = 3


def measure(workers: Workers, cpu: CpuWindow, tables: int, idle: int, warm: float, window: float,
            max_other: float = 0.0, log: Any = print, repeats: int = 1) -> Step:
    """One step: ``repeats`` windows one after the other, each measured again (up to `RETRIES`
    times) while other work on the machine used more than ``max_other`` % of a core (0: no
    limit; the last try counts).  With several windows the step's p99 is the median of the
    windows' p99s (a single stall of the machine moves one window, not the step), its p50, rate
    and CPU the means, its errors the sum."""
    time.sleep(warm)
    steps = [_window(workers, cpu, tables, idle, window, max_other, log) for _ in range(repeats)]
    if repeats == 1:
        return steps[0]
    p99s = [s.p99_ms for s in steps]
    cpu_use = {k: statistics.fmean(s.cpu.get(k, 0.0) for s in steps) for k in steps[0].cpu}
    return Step(tables, idle, min(s.connections for s in steps),
                round(statistics.fmean(s.actions_per_s for s in steps), 1),
                round(statistics.fmean(s.p50_ms for s in steps), 1), round(statistics.median(p99s), 1),
                sum(s.samples for s in steps), sum(s.errors for s in steps), cpu_use, p99s)


def _window(workers: Workers, cpu: CpuWindow, tables: int, idle: int, window: float, max_other: float,
            log: Any) -> Step:
    for attempt in range(RETRIES + 1):
        cpu.start()
        m = workers.measure(window)
        use = cpu.stop(m["cpu_s"])
        if not max_other or use["other"] <= max_other or attempt == RETRIES:
            break
        log(f"  ({tables} tables: other work used {use['other']:.0f} % of a core during the window; measured again)")
    lat = m["latency"]
    return Step(tables, idle, m["connected"], round(m["actions"] / m["window"], 1), round(_pct(lat, 0.5), 1),
                round(_pct(lat, 0.99), 1), len(lat), len(m["errors"]) + m["closed"], use)


def run_steps(base: str, workers: Workers, cpu: CpuWindow, steps: list[int], humans: int, think: float,
              warm: float, window: float, bound_ms: float, misses: int = 2, log: Any = print,
              max_other: float = 0.0, repeats: int = 1) -> list[Step]:
    """Tables step by step (each step's count in all, measured in ``repeats`` windows: `measure`),
    until ``misses`` steps in a row miss the bound."""
    out: list[Step] = []
    have = 0
    missed = 0
    for n in steps:
        seats = make_seats(base, n - have, humans, think)
        have = n
        workers.add(seats)
        step = measure(workers, cpu, n, 0, warm, window, max_other, log, repeats)
        out.append(step)
        log(row(step, bound_ms))
        missed = 0 if step.ok(bound_ms) else missed + 1
        if missed >= misses:
            break
    return out


def idle_sweep(base: str, workers: Workers, cpu: CpuWindow, active: int, humans: int, think: float,
               idle_steps: list[int], idle_think: float, warm: float, window: float, bound_ms: float,
               misses: int = 2, log: Any = print) -> list[Step]:
    """``active`` playing tables, then idle seats (4 a table) step by step."""
    workers.add(make_seats(base, active, humans, think))
    out: list[Step] = []
    have = 0
    missed = 0
    for n in idle_steps:
        tables = (n - have) // 4
        try:
            seats = make_seats(base, tables, 4, idle_think)
        except RuntimeError as e:  # the server refused to seat more: the sweep ends there
            log(f"step of {n} idle seats not set up: {e}")
            break
        workers.add([(t, tok, idle_think, False) for (t, tok, _, _) in seats])
        have += tables * 4
        step = measure(workers, cpu, active, have, warm, window)
        out.append(step)
        log(row(step, bound_ms))
        missed = 0 if step.ok(bound_ms) else missed + 1
        if missed >= misses:
            break
    return out


def best(steps: list[Step], bound_ms: float) -> Step | None:
    """The highest step (by actions/s) within the bound."""
    ok = [s for s in steps if s.ok(bound_ms)]
    return max(ok, key=lambda s: (s.connections, s.actions_per_s)) if ok else None


HEAD = ("| tables | idle seats | connections | actions/s | p50 ms | p99 ms | errors | CPU %: servers | postgres "
        "| redis | nginx | client | other | machine | CPU µs/action: servers | client |")
#: the markdown line under `HEAD`
RULE = "|" + "---|" * HEAD.count(" |")


def row(s: Step, bound_ms: float) -> str:
    c = s.cpu
    mark = "" if s.ok(bound_ms) else " (over)"
    if s.p99_windows:  # the median of the windows', and each window's
        mark += " [" + ", ".join(f"{p:g}" for p in s.p99_windows) + "]"
    return (f"| {s.tables} | {s.idle_seats} | {s.connections} | {s.actions_per_s} | {s.p50_ms} | {s.p99_ms}{mark} "
            f"| {s.errors} | {c.get('servers', 0):.0f} | {c.get('postgres', 0):.0f} | {c.get('redis', 0):.0f} "
            f"| {c.get('nginx', 0):.0f} | {c.get('client', 0):.0f} | {c.get('other', 0):.0f} "
            f"| {c.get('machine', 0):.0f} of {c.get('cores', 0):.0f} | {s.us_per_action('servers'):.0f} "
            f"| {s.us_per_action('client'):.0f} |")
