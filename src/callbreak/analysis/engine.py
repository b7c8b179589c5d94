"""Analyse a match: every call and card of the chosen seats, valued from each seat's view.

The match is replayed action by action; before each action of a seat being
analysed, that seat's `SeatView` (its hand, the calls, the cards played, the
totals: never another hand) is all that goes to the evaluation
(`callbreak.bots.evaluation.option_values`, the hard level's determinized
search), with a seed made from the analysis seed and the decision's place in
the match alone.  So the same view gives the same figures, whatever the
hidden cards were.

Each option gets its chance of finishing first and its expected round points;
the option taken is graded by how far it falls below the best on each
(`grade`, thresholds in `THRESHOLDS`, measured by ``benchmarks/analysis_spread.py``).

The hindsight view (`callbreak.analysis.hindsight`) reads every hand and is
kept apart, in `Decision.hindsight`, for cards only.

>>> from callbreak import Match, Ruleset
>>> from callbreak.bots import make_bot
>>> m = Match(Ruleset.preset("quick", rounds=1), seed=2)
>>> bots = [make_bot("medium", seed=s) for s in range(4)]
>>> while not m.is_over:
...     _ = m.act(bots[m.to_act].act(m.view(m.to_act)))
>>> a = analyse(m, seats=[0], budget=60, seed=1)
>>> len(a.decisions), a.decisions[0].kind, a.summaries[0].seat
(14, 'call', 0)
>>> analyse(m, seats=[0], budget=60, seed=1) == a
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence

from ..bots.evaluation import Evaluator, OptionValues, option_values
from ..cards import Card
from ..checks import check_whole
from ..match import Match
from ..notation import auto_decisions
from ..round import OVER, CallAction, Round, SeatView
from ..seeds import check_seed
from .hindsight import DEFAULT_NODE_BUDGET, DoubleDummy, option_tricks
from .records import GRADES, Analysis, Decision, Grade, Hindsight, Option, PlayerSummary, half_up

__all__ = [
    "DEFAULT_BUDGET",
    "THRESHOLDS",
    "analyse",
    "analyse_deal",
    "analyse_decision",
    "assemble",
    "count_decisions",
    "decision_budget",
    "decision_seed",
    "grade",
    "summarise",
]

#: playouts per decision (split over its options), as the hard level's ``iterations``
DEFAULT_BUDGET = 800

#: losses at which a decision becomes an inaccuracy, a mistake, a blunder: in expected
#: round points, and in chance of finishing first.  From benchmarks/analysis_spread.py
#: (two matches, five rounds, every decision searched twice at the default budget; README
#: "Analysis"): the noise of the search (the loss a second search charges the option the
#: first found best) is 0.10 points / 1.2 % at its 95th percentile and 1.0 point / 6.4 % at
#: its 99th; the medium bot's own cards lose 0.5 points / 3.9 % at their 95th.  So an
#: inaccuracy starts above the 95th percentile of the noise, a mistake above its 99th
#: (chance alone makes almost none), and a blunder at about a call missed by two tricks.
THRESHOLDS: dict[str, tuple[float, float, float]] = {
    "points": (0.5, 1.2, 2.5),
    "win": (0.05, 0.12, 0.25),
}

ProgressFn = Callable[[int, int], None]


def grade(
    loss_points: float, loss_win: float, thresholds: dict[str, tuple[float, float, float]] | None = None
) -> Grade:
    """The grade of a decision from its two losses: the worse of the two grades.

    >>> grade(0.1, 0.0), grade(1.3, 0.0), grade(0.0, 0.25), grade(0.6, 0.13)
    ('good', 'mistake', 'blunder', 'mistake')
    """
    t = THRESHOLDS if thresholds is None else thresholds
    steps = sum(loss_points >= x for x in t["points"]), sum(loss_win >= x for x in t["win"])
    return GRADES[max(steps)]


def shown_losses(loss_points: float, loss_win: float) -> tuple[float, float]:
    """A decision's recorded losses as the analysis shows them (`callbreak.analysis.report` and the
    web page round the same way), which its grade is taken on: the points to a tenth, the chance of
    finishing first to a whole percent, a half rounded up (a loss shown as "−25%" was graded a
    mistake where 25 % is a blunder: a bot builder's try).

    >>> shown_losses(2.46, 0.246), grade(2.46, 0.246), grade(*shown_losses(2.46, 0.246))
    ((2.5, 0.25), 'mistake', 'blunder')
    >>> shown_losses(1.15, 0.245)   # (the halves up, as 1.15 and 0.245 are stored: a hair below)
    (1.2, 0.25)
    """
    return half_up(loss_points, 1), half_up(loss_win, 2)


def _action_text(a: int | Card) -> str:
    return str(a)


def analyse_decision(
    view: SeatView,
    taken: int | Card,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    where: tuple[int, int, int, int | None] = (0, 1, 0, None),
) -> Decision:
    """One decision: ``view`` is the deciding seat's view, ``taken`` its action;
    ``where`` is (deal, round, step, trick) for the record.  No hindsight.

    Raises ValueError when ``taken`` is not one of the view's legal options.

    >>> from callbreak import Match
    >>> m = Match(seed=3)
    >>> view = m.view(m.to_act)
    >>> d = analyse_decision(view, taken=view.legal_calls[0], budget=40, seed=1)
    >>> d.kind, d.taken, d.best in [o.action for o in d.options], d.grade in GRADES, d.hindsight
    ('call', '1', True, True, None)
    >>> try:
    ...     analyse_decision(view, taken=14)
    ... except ValueError as e:
    ...     print(e)
    14 is not a legal option here
    """
    options: tuple[int, ...] | tuple[Card, ...] = (
        view.legal_calls if view.phase == "calling" else view.legal_cards
    )
    if taken not in options:
        raise ValueError(f"{taken} is not a legal option here")
    forced = len(options) == 1
    ov: OptionValues = option_values(view, decision_budget(view, budget, forced), seed)
    return _decision(view, taken, ov, forced, where, None)


def _decision(
    view: SeatView,
    taken: int | Card,
    ov: OptionValues,
    forced: bool,
    where: tuple[int, int, int, int | None],
    hindsight: Hindsight | None,
) -> Decision:
    ti = list(ov.options).index(taken)
    bi = ov.best
    # measured against the best option (the one the search would take), never negative
    loss_points = max(0.0, ov.points[bi] - ov.points[ti])
    loss_win = max(0.0, ov.win[bi] - ov.win[ti])
    if forced:
        loss_points = loss_win = 0.0
    deal, rnd_no, step, trick = where
    return Decision(
        deal=deal,
        round=rnd_no,
        step=step,
        trick=trick,
        seat=view.seat,
        kind="call" if view.phase == "calling" else "card",
        taken=_action_text(taken),
        best=_action_text(ov.options[bi]),
        options=tuple(
            Option(action=_action_text(a), win=round(w, 4), points=round(p, 3))
            for a, w, p in zip(ov.options, ov.win, ov.points)
        ),
        loss_points=round(loss_points, 3),
        loss_win=round(loss_win, 4),
        grade=grade(*shown_losses(round(loss_points, 3), round(loss_win, 4))),  # (of the record, as shown)
        forced=forced,
        hindsight=hindsight,
    )


#: a call gets this many times the budget of a card: it decides a whole round, there are four
#: calls to some fifty cards, and at the card budget the noise of a call's value reached 2.3
#: points at its 99th percentile, at four times that budget 1.0 (benchmarks/analysis_spread.py)
CALL_BUDGET_FACTOR = 4


def decision_budget(view: SeatView, budget: int, forced: bool) -> int:
    """The playouts spent on one decision: ``budget`` for a card, `CALL_BUDGET_FACTOR` times
    that for a call, a quarter for a forced one (its value is only drawn in the graph).

    >>> from callbreak import Match
    >>> decision_budget(Match(seed=1).view(Match(seed=1).to_act), 800, False)
    3200
    """
    if forced:
        return max(1, budget // 4)
    return budget * CALL_BUDGET_FACTOR if view.phase == "calling" else budget


def decision_seed(seed: int, deal: int, step: int, seat: int) -> int:
    """The search seed of one decision: from the analysis seed and where the decision
    is in the match, nothing else.

    >>> decision_seed(0, 1, 5, 2) == decision_seed(0, 1, 5, 2) != decision_seed(0, 1, 6, 2)
    True
    """
    return (seed * 1_000_003 + deal * 7919 + step * 104_729 + seat * 15_485_863) % (1 << 40)


def _replay(match: Match) -> Match:
    return Match(
        match.rules,
        match.seed,
        dealer=match.first_dealer,
        players=match.players,
        dealt=[d.dealt for d in match.deals],
    )


def count_decisions(match: Match, seats: Iterable[int]) -> int:
    """How many actions of ``seats`` the match holds (the work `analyse` does).

    >>> from callbreak import Match, Ruleset
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=2)
    >>> for a in (2, 3, 2, 3): _ = m.act(a)
    >>> _ = m.act(m.round.legal_cards()[0])
    >>> count_decisions(m, [0, 1, 2, 3]), count_decisions(m, [m.round.dealer])
    (5, 1)
    """
    want = set(seats)
    n = 0
    for rnd in match.deals:
        for a in rnd.actions:
            n += a.seat in want
    return n


def _seats(seats: Sequence[int] | None) -> tuple[int, ...]:
    if seats is not None and (isinstance(seats, (str, bytes)) or not isinstance(seats, Iterable)):
        raise ValueError(f"seats must be a list of seats among 0..3, not {seats!r}")
    given = list(range(4) if seats is None else seats)
    try:
        chosen = tuple(sorted({check_whole(s, "a seat") for s in given}))  # (NumPy's integers too)
    except ValueError:
        chosen = ()
    if not chosen or chosen[-1] > 3:
        raise ValueError(f"seats must be among 0..3, not {given!r}")
    return chosen


def _checked(
    match: object, seats: Sequence[int] | None, budget: object, seed: object
) -> tuple[tuple[int, ...], int, int]:
    """The seats chosen, the budget and the seed as ints, once ``match``, ``budget`` and ``seed``
    are what an analysis takes (else a `TypeError` for a match that is not one, a `ValueError` for
    the rest, saying so; NumPy's integers are taken)."""
    if not isinstance(match, Match):
        raise TypeError(
            f"an analysis takes a Match, not a {type(match).__name__} (a hand history: read it with "
            "callbreak.notation.loads or from_json)"
        )
    chosen = _seats(seats)
    return chosen, check_whole(budget, "budget", 1), check_seed(seed)


def analyse(
    match: Match,
    seats: Sequence[int] | None = None,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    hindsight: bool = True,
    node_budget: int = DEFAULT_NODE_BUDGET,
    progress: ProgressFn | None = None,
) -> Analysis:
    """Analyse every call and card of ``seats`` (default: all four) in ``match``
    (finished or not): ``budget`` playouts per decision, ``seed`` for the searches,
    ``hindsight`` adds the double-dummy view of each card (``node_budget`` per question).
    ``progress(done, total)`` is called after each decision.  The calls and cards its history
    marks as made for a seat (`callbreak.notation.auto_decisions`) are left out of that seat's figures.

    The same as `analyse_deal` for each deal, then `assemble`.
    Raises ValueError for a seat outside 0..3 or a budget below 1.

    >>> from callbreak import Match, Ruleset
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=2)
    >>> for a in (2, 3, 2, 3): _ = m.act(a)
    >>> done = []
    >>> a = analyse(m, seats=[1], budget=40, seed=1, progress=lambda n, total: done.append((n, total)))
    >>> [d.kind for d in a.decisions], done, a.summaries[0].seat
    (['call'], [(1, 1)], 1)
    >>> try:
    ...     analyse(m, seats=[4])
    ... except ValueError as e:
    ...     print(e)
    seats must be among 0..3, not [4]
    >>> analyse(m, seats=0)
    Traceback (most recent call last):
    ...
    ValueError: seats must be a list of seats among 0..3, not 0
    """
    chosen, budget, seed = _checked(match, seats, budget, seed)
    auto = auto_decisions(match)  # (a tag that says nothing sound is said before the search)
    total = count_decisions(match, chosen)
    decisions: list[Decision] = []
    for deal_index in range(len(match.deals)):
        offset = len(decisions)

        def step(done: int, _: int, offset: int = offset) -> None:
            if progress is not None:
                progress(offset + done, total)

        decisions += analyse_deal(match, deal_index, chosen, budget, seed, hindsight, node_budget, step)
    return assemble(match, chosen, budget, seed, decisions, auto, hindsight=hindsight)


def analyse_deal(
    match: Match,
    deal_index: int,
    seats: Sequence[int] | None = None,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    hindsight: bool = True,
    node_budget: int = DEFAULT_NODE_BUDGET,
    progress: ProgressFn | None = None,
) -> list[Decision]:
    """The decisions of ``seats`` in deal number ``deal_index`` of ``match`` (its
    ``deals``, redeals included), as `analyse` finds them: the deals are
    independent pieces of work (a server runs them in parallel).

    Raises ValueError for a seat outside 0..3, a budget below 1 or no such deal.

    >>> from callbreak import Match, Ruleset
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=2)
    >>> for a in (2, 3, 2, 3): _ = m.act(a)
    >>> ds = analyse_deal(m, 0, seats=[0, 2], budget=40, seed=1)
    >>> [(d.seat, d.kind, d.taken) for d in ds]
    [(2, 'call', '3'), (0, 'call', '3')]
    >>> ds == analyse_deal(m, 0, seats=[0, 2], budget=40, seed=1)   # seeded: the same every time
    True
    """
    chosen, budget, seed = _checked(match, seats, budget, seed)
    if not 0 <= deal_index < len(match.deals):
        raise ValueError(f"the match has {len(match.deals)} deals, not a deal {deal_index}")
    replay = _replay(match)
    for earlier in match.deals[:deal_index]:
        for act in earlier.actions:
            replay.act(act.call if isinstance(act, CallAction) else act.card)
    round_no = match.round_of(deal_index)
    rnd = match.deals[deal_index]
    total = sum(a.seat in chosen for a in rnd.actions)
    evaluators = {s: Evaluator() for s in chosen}
    pending: list[tuple[SeatView, int | Card, OptionValues, bool, tuple[int, int, int, int | None]]] = []
    positions: dict[int, list[tuple[int, Round, Card]]] = {s: [] for s in chosen}
    for step, act in enumerate(rnd.actions):
        seat = act.seat
        action: int | Card = act.call if isinstance(act, CallAction) else act.card
        if seat in chosen:
            view = replay.view(seat)
            options = view.legal_calls if view.phase == "calling" else view.legal_cards
            forced = len(options) == 1
            ov = evaluators[seat].values(
                view, decision_budget(view, budget, forced), decision_seed(seed, deal_index, step, seat)
            )
            trick = None if view.phase == "calling" else len(view.tricks) + 1
            if hindsight and isinstance(action, Card):
                positions[seat].append((len(pending), replay.round.copy(), action))
            pending.append((view, action, ov, forced, (deal_index, round_no, step, trick)))
            if progress is not None:
                progress(len(pending), total)
        replay.act(action)
    seen: dict[int, Hindsight] = {}
    for seat, where in positions.items():
        seen.update(_hindsight(seat, where, node_budget))
    return [
        _decision(view, action, ov, forced, place, seen.get(i))
        for i, (view, action, ov, forced, place) in enumerate(pending)
    ]


def assemble(
    match: Match,
    seats: Sequence[int],
    budget: int,
    seed: int,
    decisions: Sequence[Decision],
    auto: Mapping[tuple[int, int], str] | None = None,
    hindsight: bool = True,
) -> Analysis:
    """The `Analysis` of ``match`` from its ``decisions`` (every deal's, in order):
    the summaries and the curve of each seat's chance of finishing first. ``auto``: the
    decisions made for a seat, not by its player, by (deal, step), with why (`Decision.auto`);
    ``hindsight``: whether the decisions were analysed with it (`Analysis.hindsight`).

    >>> from callbreak import Match, Ruleset
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=2)
    >>> for a in (2, 3, 2, 3): _ = m.act(a)
    >>> parts = [analyse_deal(m, i, [3], 40, 1) for i in range(len(m.deals))]
    >>> a = assemble(m, [3], 40, 1, [d for part in parts for d in part])
    >>> a.seats, len(a.decisions), a.summaries[0].decisions, a == analyse(m, [3], 40, 1)
    ((3,), 1, 1, True)
    """
    chosen = _seats(seats)
    if auto:
        decisions = [dataclasses.replace(d, auto=auto.get((d.deal, d.step))) for d in decisions]
    curve: dict[int, tuple[tuple[int, int, float], ...]] = {
        s: tuple(
            (d.deal, d.trick, d.option(d.taken).win) for d in decisions if d.seat == s and d.trick is not None
        )
        for s in chosen
    }
    return Analysis(
        seats=chosen,
        players=tuple(match.players),
        budget=budget,
        seed=seed,
        decisions=tuple(decisions),
        summaries=tuple(summarise(match, decisions, s) for s in chosen),
        curve=curve,
        thresholds=dict(THRESHOLDS),
        hindsight=hindsight,
    )


def _hindsight(seat: int, positions: list[tuple[int, Round, Card]], node_budget: int) -> dict[int, Hindsight]:
    """The hindsight of one seat's cards in one deal, solved from the last card back
    (each answer fills the table the earlier ones use), stopping at the first
    position over the node budget: the earlier ones, with more cards left, would
    most likely be too (under the default budget that is rare: the first trick or
    two of a round at most, in the match measured)."""
    dd = DoubleDummy(seat, node_budget)
    out: dict[int, Hindsight] = {}
    for index, rnd, taken in reversed(positions):
        tricks = option_tricks(rnd, dd)
        if any(v is None for v in tricks.values()):
            break
        best = max(v for v in tricks.values() if v is not None)
        out[index] = Hindsight(tricks={str(c): v for c, v in tricks.items()}, best=best, taken=tricks[taken])
    return out


def summarise(match: Match, decisions: Sequence[Decision], seat: int) -> PlayerSummary:
    """The summary of ``seat`` over ``decisions`` (its own among them) and the match's finished rounds.

    >>> from callbreak import Match, Ruleset
    >>> m = Match(Ruleset.preset("quick", rounds=1), seed=2)
    >>> for a in (2, 3, 2, 3): _ = m.act(a)
    >>> s = summarise(m, analyse_deal(m, 0, [0], 40, 1), seat=0)
    >>> s.seat, s.decisions, sum(s.grades.values())
    (0, 1, 1)
    """
    everything = [d for d in decisions if d.seat == seat]
    mine = [d for d in everything if d.auto is None]  # (what the server did for the seat is not the player's)
    unforced = [d for d in mine if not d.forced]
    grades: dict[str, int] = {g: sum(d.grade == g for d in mine) for g in GRADES}
    made = over = missed = 0
    for rnd in match.rounds:
        if rnd.phase != OVER:
            continue
        call, won = rnd.calls[seat] or 0, rnd.tricks_won[seat]
        made += won == call
        over += won > call
        missed += won < call
    return PlayerSummary(
        seat=seat,
        name=match.players[seat],
        decisions=len(everything),
        accuracy=round(sum(d.grade == "good" for d in unforced) / len(unforced), 4) if unforced else 1.0,
        points_lost_calls=round(sum(d.loss_points for d in mine if d.kind == "call"), 3),
        points_lost_cards=round(sum(d.loss_points for d in mine if d.kind == "card"), 3),
        win_lost=round(sum(d.loss_win for d in mine), 4),
        calls_made=made,
        calls_over=over,
        calls_missed=missed,
        grades=grades,
    )
