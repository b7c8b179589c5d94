"""Per-bot results of an arena run: points with 95 % confidence intervals, win share,
calls, decision times and faults; as a Rich table, JSON and a plot.

Confidence intervals are over independent units.  Without ``--duplicate`` a unit is
a match.  In duplicate play the four rotations of one deal set share their cards,
so they are not independent: a bot's value for a deal group is its mean over the
group's four matches, and the interval is taken over the groups.

>>> from callbreak.arena.runner import run_arena
>>> from callbreak import Ruleset
>>> s = summarize(run_arena(["random"] * 4, matches=3, seed=5, rules=Ruleset.preset("quick")))
>>> s.unit, s.units, len(s.bots)
('match', 3, 4)
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from ..extras import need
from .runner import MatchRecord, RunResult, distinct
from .stats import mean, mean_ci, percentile, share_interval

__all__ = ["BotSummary", "Summary", "fault_text", "plot_formats", "rules_label", "summarize"]


@dataclass(slots=True)
class BotSummary:
    """One bot's statistics over an arena run (`summarize`).

    >>> from callbreak import Ruleset
    >>> from callbreak.arena.runner import run_arena
    >>> res = run_arena(["medium", "random", "random", "random"], 4, rules=Ruleset.preset("quick", rounds=1), seed=1)
    >>> b = summarize(res).bots[0]
    >>> b.label, b.matches, b.rounds, 0.0 <= b.win_share <= 1.0, b.fault_count
    ('medium', 4, 4, True, 0)
    """

    index: int
    spec: str
    label: str
    matches: int
    rounds: int
    points: float  # mean points per match
    points_ci: float  # half-width of its 95 % interval
    points_per_round: float
    points_per_round_ci: float
    win_share: float
    win_share_ci: float  # half-width of the t interval (as for points)
    win_share_low: float  # the 95 % interval kept inside [0, 1] (see stats.share_interval)
    win_share_high: float
    made_pct: float
    mean_call: float
    mean_tricks: float
    decisions: int
    time_mean_ms: float
    time_p50_ms: float
    time_p99_ms: float
    round_time_p99_ms: float
    rounds_over_budget: int
    faults: dict[str, int] = field(default_factory=dict)
    #: what the first fault was (`fault_text`), in the order of the matches
    first_fault: str | None = None

    @property
    def fault_count(self) -> int:
        return sum(self.faults.values())

    def fault_warning(self) -> str | None:
        """What the arena says of a bot that faulted (None: it did not).

        >>> from callbreak.arena.runner import run_arena
        >>> from callbreak import Ruleset
        >>> b = summarize(run_arena(["random"] * 4, 1, rules=Ruleset.preset("quick", rounds=1))).bots[0]
        >>> b.fault_warning() is None
        True
        >>> b.faults = {"error": 26}
        >>> b.first_fault = "error in match 0, round 1, trick 7: RuntimeError (at bad.py:9, in act): boom"
        >>> print(b.fault_warning())
        random #1: 26 of its decisions faulted (error 26), each played for it by its lowest legal action; the first: error in match 0, round 1, trick 7: RuntimeError (at bad.py:9, in act): boom
        """
        if not self.fault_count:
            return None
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.faults.items()))
        return (
            f"{self.label}: {self.fault_count} of its decisions faulted ({kinds}), each played for it by its"
            f" lowest legal action; the first: {self.first_fault}"
        )


def fault_text(fault: dict[str, Any]) -> str:
    """A fault's record in words: its kind, where (the match's index, as in ``--json`` and the
    ``--histories`` files' names, the round, the call or the trick) and its detail.

    >>> fault_text({"kind": "illegal", "match": 3, "round": 2, "decision": "trick 5", "detail": "9S: you must follow hearts"})
    'illegal in match 3, round 2, trick 5: 9S: you must follow hearts'
    """
    where = [f"match {fault['match']}"] if "match" in fault else []
    where.append(f"round {fault['round']}")
    if "decision" in fault:
        where.append(str(fault["decision"]))
    return f"{fault['kind']} in {', '.join(where)}: {fault['detail']}"


@dataclass(slots=True)
class Summary:
    """An arena run's configuration and each bot's `BotSummary`.

    >>> from callbreak import Ruleset
    >>> from callbreak.arena.runner import run_arena
    >>> res = run_arena(["medium", "random", "random", "random"], 4, rules=Ruleset.preset("quick", rounds=1), seed=1)
    >>> s = summarize(res)
    >>> s.rules, s.matches, s.unit, [b.label for b in s.bots]
    ('standard (rounds=1)', 4, 'match', ['medium', 'random #1', 'random #2', 'random #3'])
    """

    specs: list[str]
    rules: str
    matches: int
    seed: int
    duplicate: bool
    time_budget: float
    jobs: int
    unit: str  # "match" or "deal group"
    units: int
    wall_seconds: float
    bots: list[BotSummary]
    records: list[MatchRecord]

    def to_dict(self, with_matches: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {
            "specs": self.specs,
            "rules": self.rules,
            "matches": self.matches,
            "seed": self.seed,
            "duplicate": self.duplicate,
            "time_budget": self.time_budget,
            "jobs": self.jobs,
            "ci_unit": self.unit,
            "ci_units": self.units,
            "ci_note": _CI_NOTE[self.unit],
            "wall_seconds": round(self.wall_seconds, 3),
            "bots": [_clean(asdict(b)) for b in self.bots],
        }
        if with_matches:
            d["match_records"] = [r.to_dict() for r in self.records]
        return d

    def table(self) -> Any:
        """A Rich table of the results."""
        from rich.table import Table

        t = Table(
            title=f"{self.matches} match{_es(self.matches)} · rules {self.rules} · seed {self.seed}"
            + (" · duplicate" if self.duplicate else ""),
            caption=f"± is the 95 % CI over {self.units} "
            f"{f'match{_es(self.units)}' if self.unit == 'match' else f'deal group{_s(self.units)}'}. {_CI_NOTE[self.unit]}",
            caption_justify="left",
        )
        for col, j in (
            ("bot", "left"),
            ("points/match", "right"),
            ("points/round", "right"),
            ("win share", "right"),
            ("made", "right"),
            ("call", "right"),
            ("tricks", "right"),
            ("ms/decision mean · p99", "right"),
            ("faults", "right"),
        ):
            t.add_column(col, justify=j)  # type: ignore[arg-type]
        for b in self.bots:
            faults = ", ".join(f"{k} {v}" for k, v in sorted(b.faults.items())) or "0"
            if b.rounds_over_budget:
                faults += f" ({b.rounds_over_budget} round{'s' if b.rounds_over_budget != 1 else ''} over budget)"
            t.add_row(
                b.label,
                f"{b.points:.2f} ± {_fmt(b.points_ci)}",
                f"{b.points_per_round:.3f} ± {_fmt(b.points_per_round_ci, 3)}",
                f"{100 * b.win_share:.1f} % ({100 * b.win_share_low:.1f}–{100 * b.win_share_high:.1f})",
                f"{b.made_pct:.1f} %",
                f"{b.mean_call:.2f}",
                f"{b.mean_tricks:.2f}",
                f"{b.time_mean_ms:.1f} · {b.time_p99_ms:.1f}",
                faults,
            )
        return t

    def plot(self, path: str) -> None:
        """Draw each bot's points per match (box plot over the individual matches)."""
        need("the arena's charts", "plot")
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        data = [[r.totals[b.index] for r in self.records] for b in self.bots]
        fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
        ax.boxplot(data, showmeans=True)
        ax.set_xticks(
            range(1, len(self.bots) + 1),
            [
                f"{b.label}\n{b.points:.2f} ± {_fmt(b.points_ci)}\nwin {100 * b.win_share:.1f} %"
                for b in self.bots
            ],
        )
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_ylabel("points per match")
        ax.set_title(
            f"{self.matches} match{_es(self.matches)}, rules {self.rules}"
            + (", duplicate" if self.duplicate else "")
            + "  (box: quartiles, triangle: mean)"
        )
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)


_CI_NOTE = {
    "match": "Matches are independent deals, so each match is one sample.",
    "deal group": (
        "Duplicate: the 4 rotations of a deal set share cards and are correlated, so each bot's mean "
        "over a group's 4 matches is one sample."
    ),
}


def _fmt(x: float, digits: int = 2) -> str:
    return "n/a" if math.isnan(x) else f"{x:.{digits}f}"


def _clean(d: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, float):
            out[k] = None if math.isnan(v) else round(v, 6)
        else:
            out[k] = v
    return out


def rules_label(rules: Any) -> str:
    """``bhoos``, or the nearest preset and what differs: ``bhoos (rounds=2)``.

    >>> from callbreak import Ruleset
    >>> rules_label(Ruleset.preset("bhoos")), rules_label(Ruleset.preset("bhoos", rounds=2))
    ('bhoos', 'bhoos (rounds=2)')
    """
    pname, diff = rules.describe()
    if not diff:
        return str(pname)
    return f"{pname} ({', '.join(f'{k}={v}' for k, v in diff.items())})"


def summarize(result: RunResult) -> Summary:
    """Per-bot statistics of an arena run.

    >>> from callbreak import Ruleset
    >>> from callbreak.arena.runner import run_arena
    >>> res = run_arena(["medium", "easy", "random", "random"], 4, rules=Ruleset.preset("quick", rounds=1),
    ...                 seed=1, duplicate=True)
    >>> s = summarize(res)
    >>> s.unit, [b.label for b in s.bots], [b.matches for b in s.bots]
    ('deal group', ['medium', 'easy', 'random #1', 'random #2'], [4, 4, 4, 4])
    """
    recs = result.records
    groups: dict[int, list[MatchRecord]] = {}
    for r in recs:
        groups.setdefault(r.group if result.duplicate else r.index, []).append(r)
    units = list(groups.values())
    bots: list[BotSummary] = []
    labels = distinct(result.specs)
    for i, spec in enumerate(result.specs):
        pts = [mean([r.totals[i] for r in u]) for u in units]
        ppr = [mean([r.totals[i] / max(1, r.rounds) for r in u]) for u in units]
        win = [mean([r.win_share[i] for r in u]) for u in units]
        calls = [c for r in recs for c in r.calls[i]]
        tricks = [t for r in recs for t in r.tricks[i]]
        mades = [m for r in recs for m in r.made[i]]
        times = [t for r in recs for t in r.times[i]]
        rtimes = [t for r in recs for t in r.round_times[i]]
        faults = Counter(f["kind"] for r in recs for f in r.faults[i])
        first = next((f for r in recs for f in r.faults[i]), None)
        p_m, p_ci = mean_ci(pts)
        r_m, r_ci = mean_ci(ppr)
        w_m, w_ci = mean_ci(win)
        _, w_lo, w_hi = share_interval(win)
        bots.append(
            BotSummary(
                index=i,
                spec=spec,
                label=labels[i],
                matches=len(recs),
                rounds=sum(r.rounds for r in recs),
                points=p_m,
                points_ci=p_ci,
                points_per_round=r_m,
                points_per_round_ci=r_ci,
                win_share=w_m,
                win_share_ci=w_ci,
                win_share_low=w_lo,
                win_share_high=w_hi,
                made_pct=100.0 * mean([1.0 if m else 0.0 for m in mades]),
                mean_call=mean(calls),
                mean_tricks=mean(tricks),
                decisions=len(times),
                time_mean_ms=1000 * mean(times),
                time_p50_ms=1000 * percentile(times, 50),
                time_p99_ms=1000 * percentile(times, 99),
                round_time_p99_ms=1000 * percentile(rtimes, 99),
                rounds_over_budget=sum(1 for t in rtimes if t > result.time_budget),
                faults=dict(faults),
                first_fault=None if first is None else fault_text(first),
            )
        )
    return Summary(
        specs=result.specs,
        rules=rules_label(result.rules),
        matches=len(recs),
        seed=result.seed,
        duplicate=result.duplicate,
        time_budget=result.time_budget,
        jobs=result.jobs,
        unit="deal group" if result.duplicate else "match",
        units=len(units),
        wall_seconds=result.wall_seconds,
        bots=bots,
        records=recs,
    )


def plot_formats() -> set[str]:
    """The file kinds a chart can be drawn as (matplotlib's, by file name ending; needs the ``plot`` extra).

    >>> {"png", "svg", "pdf"} <= plot_formats()
    True
    """
    need("the arena's charts", "plot")
    from matplotlib.figure import Figure

    return set(Figure().canvas.get_supported_filetypes())


def _es(n: int) -> str:
    return "" if n == 1 else "es"


def _s(n: int) -> str:
    return "" if n == 1 else "s"
