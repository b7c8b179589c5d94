"""The ``hard`` level: determinized search over deals consistent with the view.

For each card decision it draws deals of the unseen cards that agree with
everything the seat has seen (`Knowledge`: voids, "did not head", "did not
trump", trump-only leads), weighted by how plausible each opponent's call is
for the hand it would then hold (importance resampling with the calling
model), and plays every legal card out on every deal (the same deals and
random numbers for every card) in the compiled kernel (`callbreak.bots.kernel`):
all four seats follow the medium level's rules of thumb (ported to the
kernel, `kernel.medium_card`; a test holds it to `callbreak.bots.medium`),
each from what it could know (its hand, the cards still out, what the play
has shown).  Deals are also drawn ``infer`` times over and the ones kept are
those on which the other seats' cards so far are most often the ones those
rules would have played with the hands the deal gives them: an opponent
model of the medium level (against other opponents it only narrows the deals).
Each kept deal then takes ``refine`` Metropolis-Hastings steps (`kernel.refine`):
swapping a card between two other seats where the view allows it, kept with
the chance the likelihood ratio gives, the likelihood being that of each
seat's cards so far under those rules and of its call for the hand it would
hold (the medium level's call is a step function of the calling model's
estimate of the hand's tricks, so a call pins that estimate to a range,
`call_ranges`).  The chains are few and long: each start gives ``keep``
deals, ``every`` steps apart once it has taken its first ``refine`` steps,
so the same work buys deals that explain the play better (the likelihood of
a seat's cards so far is computed from their public states, worked out once
per decision: `kernel.inference._history`).  Each outcome is valued as a match result for this
seat: the chance of finishing first given the totals so far and the rounds
left (exact in the last round), plus a small share of the round's points.
The medium level's card is played unless another card does better by a clear
margin (a paired test over the deals), which keeps sampling noise from
steering play.  This is flat determinized Monte Carlo (PIMC with policy
playouts); in the last tricks (``solve_tricks``) each deal is instead solved
exactly by max^n, every seat playing for its own match value.

Calls: the calibrated trick distribution (`callbreak.bots.calling`) proposes
the call of highest expected value; the round is then played out over deals
consistent with the calls already made for that call and its neighbours, and
a neighbour that does clearly better replaces it.

The work per decision is bounded by ``iterations`` playouts (and
``call_deals`` deals for a call), so a seed gives the same decisions on any
machine.  ``time_limit`` (seconds) is a safety cap for serving only (a served
table, a hint, the tournament server): it is None by default, since a wall-clock
cap would make a seeded run depend on the machine's load.

Where each part lives: the deals (drawing, inference, refinement) in
`callbreak.bots.determinize`, the tables of playouts in `callbreak.bots.playouts`,
both running in the compiled kernel (`callbreak.bots.kernel`); this module holds
the bot, its settings and budgets, and the choice made from the tables.

>>> from callbreak import Match, Ruleset
>>> m = Match(Ruleset.preset("quick", rounds=1), seed=3)
>>> bots = [HardBot(seed=s, iterations=200) for s in range(4)]
>>> while not m.is_over:
...     _ = m.act(bots[m.to_act].act(m.view(m.to_act)))
>>> m.is_over
True
"""

from __future__ import annotations

import math
import random
import time
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..cards import Card
from ..round import SeatView
from ..scoring import made
from .base import Bot
from .calling import best_call, call_position, family_of, load_model, trick_distribution
from .determinize import (
    CALL_BIAS,
    CALL_SD,
    REFINE_SOFT,
    call_ranges,
    consistent_deals,
    refine_deals,
    round_evidence,
    sample_deals,
    simple_deals,
    simple_knowledge,
)
from .knowledge import Knowledge
from .medium import choose_card
from .playouts import decode_outcomes, look_values, search_values
from .playouts import match_stakes as stakes_of
from .styles import ROWS, SIMPLE, StyleTally

__all__ = [
    "DECISIONS",
    "LOOK_ROOM",
    "SERVING_TIME_LIMIT",
    "THINK_BASE",
    "HardBot",
]

MAX_DEALS = 400
CHUNK = 100  # deals searched between looks at the clock
STYLE_DEALS = 64  # deals on which a round's evidence of the others' styles is counted
RECALLED = 256  # earlier rounds' evidence kept by `HardBot.recall` (a few tables' matches)


#: the wall-clock cap per card decision where a person is waiting (a served hard seat, a hint)
SERVING_TIME_LIMIT = 0.08

#: under a serving cap, `kernel.look` runs only where its playouts are at most this many times the card
#: search's own (all or nothing; `HardBot`'s ``look_room``)
LOOK_ROOM = 6.0

#: seconds of one core a round takes at the default settings (``python benchmarks/bot_times.py hard``:
#: p50 362 and 388 ms a round in two runs, 258 with ``look=0``; 286 before ``look``, on a slower day):
#: the unit by which `HardBot.think_for` turns seconds into playouts
THINK_BASE = 0.375
#: decisions a round asks of a seat: a call and 13 cards (the last one forced)
DECISIONS = 13

#: points a round by which `hard` outscores a ``spar-simple`` seat (``python benchmarks/sparring.py
#: --only spar-simple --deals 100 --jobs 2 --seed S``: S = 81000, 2.59 against 0.95, from which it was
#: set; 82000 and 83000, run after, 2.70 against 1.00 and 2.64 against 1.01): `HardBot`'s ``drift``
SIMPLE_DRIFT = 1.6


class HardBot(Bot):
    """Determinized search with match-outcome values.

    ``iterations``: the budget per card decision, in full-round playouts (split
    over the legal cards; later in a round, shorter playouts buy more deals),
    at most ``max_deals`` deals; ``time_limit``: a wall-clock cap in seconds,
    checked between chunks of deals (None, the default: no cap; serving sets one); ``rollouts`` per deal; ``eps``: percent
    of random cards in playouts; ``oversample``: deals drawn per deal kept when
    weighting by the calls; ``margin``: how many standard errors a card (or
    call) must beat the medium level's choice by; ``call_deals``: deals played
    out per call (0: the model's call alone); ``call_margin``: as ``margin``,
    for calls (default: ``margin``); ``solve_tricks``: once at most this many
    tricks remain, each deal is solved exactly (max^n, every seat maximising
    its own match value, `callbreak.bots.kernel.solve`) instead of played out;
    ``playout_solve``: the same at the end of every playout (0: off);
    ``mpol``: the playout policy, 0 the fast rule of thumb, 1 the medium
    level's rules (`kernel.medium_card`), 2 those in the call search too;
    ``infer``: deals drawn per deal kept, keeping the deals on which the
    other seats' play so far best matches the medium level's rules (1: off);
    ``refine``: Metropolis-Hastings card swaps per deal towards the deals that
    explain the other seats' play and calls (0: off), ``call_refine`` the same
    for the deals of the call search; ``miss_cost``: the log-likelihood lost per
    card that the medium level would not have played; ``refine_soft``: how far
    (in tricks of the calling model's estimate) a hand may fall outside the
    range in which the medium level would make the call that seat made;
    ``sd_scale``: scales the spread of the points still to come in the chance
    of finishing first (calling's ``ROUND_SD`` is about twice the spread of a
    seat's round score measured in play, 2.1 points); ``keep``: deals taken
    from each refined chain, ``every`` refine steps apart after the first
    ``refine`` (fewer, longer chains: deals that explain the play better for
    the same work); ``call_keep``: the same for the call search's deals;
    ``think``: a budget per round in seconds of one core, spread evenly over
    the round's decisions (`think_for`: it sets ``iterations``, ``max_deals``
    and ``call_deals`` in proportion, so a seeded run stays the same on any
    machine; only serving adds a wall-clock cap); ``call_rescue``: the share
    of the call search's playouts that end one trick short of this seat's call
    that are valued as made (0: none; the playout policy makes calls less often
    than the bot's own play, `benchmarks/calls.py`); ``opp``: the style the
    other seats are taken to play, 0 `medium`'s as above, 1
    ``spar-simple``'s (`callbreak.bots.sparring.SimpleBot`): the deals of both
    searches are those on which each seat that has called holds as many aces and
    kings as its call (`simple_deals`, no inference from the play), and in the
    playouts the other seats play its card (`kernel.simple_card`; the exact
    endgames of ``solve_tricks`` and ``playout_solve`` play every seat by max^n,
    as without it). A bot told its opponents' style: what knowing it is worth
    (docs/bots.md), the bound for a style inferred from the play; 2 (the
    default): each seat's style inferred from its cards over the match
    (`callbreak.bots.styles`): medium's until ``spar-simple``'s, with its hand
    in one of 48 orders (the suits in any order, each from the 2 up or from the
    ace down), explains its play clearly better, then that seat as with 1, its
    hand in that order (the deals constrain only the seats taken to play so;
    while no seat is, every decision is 0's).  The
    evidence of a round is kept for the rest of the match by the bot object
    (`reset` starts afresh, and a serving layer that resets the bot before each
    decision hands it the match's earlier rounds: `recall`); ``memory=0`` keeps
    only the round in progress.  ``rule_out``: 1 (the default), a card search's
    deals give a seat taken to play ``spar-simple``'s rule none of the cards with
    which the rule would not have played its cards so far (`simple_knowledge`: for a
    seat that plays the rule without exception, with its calls, all that its play
    tells); 0, its calls alone.  ``look``: 0 (off), or (2, the default) the least number of
    deals on which the seat would see the same cards before its next turn for
    the card search to choose that next card by what it will know then (the
    best on the other deals of the group, `look_values`) instead of by
    `medium`'s rules in the playout; with ``mpol`` playouts, one rollout and no
    exact endgames, and where serving caps the time (``time_limit``), only if the
    search was not cut by the cap and the groups take at most ``look_room``
    (``LOOK_ROOM``) times its playouts (a count, so that a served answer does not depend on the
    machine's load more than the cap itself makes it). ``drift``: the points a
    round by which each seat taken to play ``spar-simple``'s rule is expected to
    fall behind this one in the rounds still to come (`SIMPLE_DRIFT`, as measured),
    taken off its match total in the chance of finishing first (`ahead`); 0: every
    seat expected to score alike, as for the seats taken to play `medium`'s rules.

    >>> HardBot(seed=1, iterations=0)
    Traceback (most recent call last):
    ...
    ValueError: iterations must be at least 1
    """

    name = "hard"

    @property
    def recalls(self) -> bool:  # type: ignore[override]
        """Whether `recall` uses the earlier rounds: with ``opp=2`` and ``memory=1``."""
        return self.opp == 2 and bool(self.memory)

    def __init__(
        self,
        seed: int | None = None,
        iterations: int = 12000,
        time_limit: float | None = None,
        rollouts: int = 1,
        eps: int = 4,
        oversample: int = 2,
        margin: float = 1.0,
        call_deals: int = 300,
        max_deals: int = MAX_DEALS,
        call_sd: float = CALL_SD,
        call_bias: float = CALL_BIAS,
        solve_tricks: int = 0,
        playout_solve: int = 0,
        call_margin: float | None = None,
        mpol: int = 1,
        infer: int = 4,
        refine: int = 100,
        miss_cost: float = 6.0,
        refine_soft: float = REFINE_SOFT,
        call_refine: int = 20,
        sd_scale: float = 0.5,
        keep: int = 8,
        every: int = 10,
        call_keep: int = 1,
        think: float | None = None,
        call_rescue: float = 0.0,
        opp: int = 2,
        memory: int = 1,
        rule_out: int = 1,
        look: int = 2,
        look_room: float = LOOK_ROOM,
        drift: float = SIMPLE_DRIFT,
    ) -> None:
        super().__init__(seed)
        if not 0.0 <= drift < math.inf:
            raise ValueError("drift must be a number of points a round from 0")
        self.drift = float(drift)
        if opp not in (0, 1, 2) or isinstance(opp, bool):
            raise ValueError("opp must be 0 (the others as medium), 1 (as spar-simple) or 2 (inferred)")
        self.opp = int(opp)
        if memory not in (0, 1) or isinstance(memory, bool):
            raise ValueError("memory must be 0 (the round in progress only) or 1 (the match)")
        self.memory = int(memory)
        if rule_out not in (0, 1) or isinstance(rule_out, bool):
            raise ValueError(
                "rule_out must be 0 (the simple seats' deals from their calls) or 1 (and their play)"
            )
        self.rule_out = int(rule_out)
        if isinstance(look, bool) or not isinstance(look, int) or not (look == 0 or look >= 2):
            raise ValueError("look must be 0 (off) or the least group of deals, at least 2")
        self.look = look
        if not look_room > 0:
            raise ValueError("look_room must be a positive multiple of the search's playouts")
        self.look_room = float(look_room)
        self._tally = StyleTally()
        self._recalled: OrderedDict[SeatView, npt.NDArray[np.int64]] = OrderedDict()
        if not 0.0 <= call_rescue <= 1.0:
            raise ValueError("call_rescue must be between 0 and 1")
        self.call_rescue = float(call_rescue)
        if keep < 1 or every < 1 or call_keep < 1:
            raise ValueError("keep, call_keep and every must be at least 1")
        self.keep = keep
        self.call_keep = call_keep
        self.every = every
        self.sd_scale = sd_scale
        self.refine_soft = refine_soft
        self._ranges: tuple[tuple[object, ...], tuple[list[float], list[float]]] | None = None
        self.call_refine = call_refine
        self.refine = refine
        self.miss_cost = miss_cost
        self.infer = infer
        self.mpol = mpol
        self.call_margin = margin if call_margin is None else call_margin
        self.solve_tricks = solve_tricks
        self.playout_solve = playout_solve
        self.call_sd = call_sd
        self.call_bias = call_bias
        self.max_deals = max_deals
        self.call_deals = call_deals
        #: for the last call chosen (`choose_call`), the share of the call search's playouts in
        #: which each call searched was made (empty where it searched none): a hint's chance of
        #: its call, which the calling model's distribution contradicted where the search called
        #: higher ("Suggested: 4 · 15% chance to make it")
        self.made_rates: dict[int, float] = {}
        self.margin = margin
        self.rollouts = rollouts
        self.eps = eps
        self.oversample = oversample
        if iterations < 1:
            raise ValueError("iterations must be at least 1")
        self.iterations = iterations
        self.time_limit = time_limit
        self._base = (iterations, max_deals, call_deals)
        self.think: float | None = None
        if think is not None:
            self.think_for(think)

    def think_for(self, seconds: float, clock: bool = False) -> None:
        """Spend about ``seconds`` of one core a round: the playout budgets
        (``iterations`` per card, ``max_deals``, ``call_deals``) scaled from the
        settings the bot was made with by ``seconds / THINK_BASE``, the same
        share for every decision.  These are counts, so a seeded run does not
        depend on the machine; ``clock`` (serving only) also caps each decision
        at its share of the round's seconds by the wall clock (``time_limit``).

        >>> bot = HardBot(seed=1)
        >>> bot.think_for(1.5)
        >>> bot.iterations, bot.max_deals, bot.call_deals, bot.time_limit
        (48000, 1600, 1200, None)
        >>> bot.think_for(0.13, clock=True)
        >>> bot.time_limit
        0.01
        """
        if not seconds > 0:
            raise ValueError("think must be a positive number of seconds")
        scale = seconds / THINK_BASE
        iterations, max_deals, call_deals = self._base
        self.iterations = max(1, round(iterations * scale))
        self.max_deals = max(8, round(max_deals * scale))
        self.call_deals = round(call_deals * scale)
        self.think = seconds
        if clock:
            self.time_limit = seconds / DECISIONS

    def act(self, view: SeatView) -> int | Card:
        if view.phase == "calling":
            return self.choose_call(view)[0]
        return self.choose(view)[0]

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._tally = StyleTally()

    @property
    def tally(self) -> StyleTally:
        """The evidence of the match so far (`styles` reads it; `reset` starts it afresh)."""
        return self._tally

    def recall(self, earlier: Sequence[SeatView]) -> None:
        """With ``opp=2`` (and ``memory=1``): the evidence of the match's finished
        rounds counted afresh from this seat's last view of each (`round_evidence`;
        exact for a view of the round's end), in place of what this bot observed
        itself; a served bot, reset before each decision, keeps the match this way.
        Other settings ignore it.

        >>> from callbreak import Match, Ruleset
        >>> from callbreak.bots.sparring import SimpleBot
        >>> m = Match(Ruleset.preset("bhoos"), seed=3)
        >>> while m.round_number < 3:
        ...     _ = m.act(SimpleBot(seed=1).act(m.view(m.to_act)))
        >>> v = m.view(m.to_act)
        >>> bot = HardBot(seed=1, opp=2)
        >>> bot.styles(v, Knowledge.from_view(v), 0).tolist()   # the round's first call: nothing yet
        [0, 0, 0, 0]
        >>> bot.recall([r.view(v.seat) for r in m.rounds])   # rounds 1 and 2
        >>> v.seat, bot.styles(v, Knowledge.from_view(v), 0).tolist()
        (0, [0, 1, 1, 1])
        """
        if not self.recalls:
            return
        done = np.zeros((ROWS, 4), dtype=np.int64)
        for past in earlier:
            # a function of the view alone, kept across `reset` (a served bot is told the same
            # earlier rounds at each decision, one bot object may serve many tables)
            ev = self._recalled.pop(past, None)
            if ev is None:
                ev = round_evidence(past, Knowledge.from_view(past), STYLE_DEALS, random.Random(past.round_number))
            self._recalled[past] = ev
            done += ev
        while len(self._recalled) > RECALLED:
            self._recalled.popitem(last=False)
        self._tally.recall(done)

    def styles(self, view: SeatView, k: Knowledge, seed: int) -> npt.NDArray[np.int64]:
        """The style each seat is taken to play (`callbreak.bots.styles.style_name`; this
        seat's entry is 0): ``opp`` for all, or with ``opp=2`` each seat's as the
        evidence of the match so far says (`round_evidence`, `StyleTally`; with
        ``memory=0``, of the round in progress only)."""
        if self.opp != 2:
            out = np.full(4, SIMPLE if self.opp == 1 else 0, dtype=np.int64)
        else:
            key = (view.round_number, view.dealer, view.totals, k.hand | k.played_by[view.seat])
            now = None if view.phase == "calling" else round_evidence(view, k, STYLE_DEALS, random.Random(seed))
            self._tally.observe(key, view.round_number if self.memory else 1, now)
            out = self._tally.styles()
        out[view.seat] = 0
        return out

    def _deals_for(
        self, view: SeatView, k: Knowledge, n: int, seed: int, styles: npt.NDArray[np.int64], call: bool
    ) -> list[list[int]]:
        """The deals a decision searches: where some seat is taken to play
        ``spar-simple``'s style (any hand order), `simple_deals` for those seats; else the card or
        the call search's own (`card_deals`, `deals`)."""
        simple = [s for s in range(4) if styles[s] >= 1]
        if simple:
            if self.rule_out and not call:
                k = simple_knowledge(view, k, styles.tolist())
            return simple_deals(view, k, n, random.Random(seed), simple)
        if call:
            steps = self.call_refine if any(c is not None for c in view.calls) else 0
            return self.deals(view, k, n, seed, 1, steps, self.call_keep)
        return self.card_deals(view, k, n, seed)

    def call_ranges(self, view: SeatView) -> tuple[list[float], list[float]]:
        """`call_ranges` for the view, kept for the rest of the round."""
        key = (view.seat, view.dealer, view.round_number, view.calls, view.totals, view.rules)
        if self._ranges is None or self._ranges[0] != key:
            self._ranges = (key, call_ranges(view, load_model(family_of(view.rules))))
        return self._ranges[1]

    def deals(
        self, view: SeatView, k: Knowledge, n: int, seed: int, infer: int, steps: int, keep: int
    ) -> list[list[int]]:
        """About ``n`` deals consistent with the view, drawn with this bot's
        settings: the best of ``infer`` draws each for the play so far (1: drawn
        by the calls alone), then ``steps`` refine steps, ``keep`` deals from each
        start (`refine_deals`; 0 steps: no refining)."""
        rng = random.Random(seed)
        keep = keep if steps > 0 else 1
        starts = -(-n // keep)
        if infer > 1:
            deals = consistent_deals(
                view, k, starts, infer, rng, self.oversample, self.call_sd, self.call_bias
            )
        else:
            deals = sample_deals(view, k, starts, rng, self.oversample, self.call_sd, self.call_bias)
        if steps <= 0:
            return deals
        return refine_deals(
            view,
            k,
            deals,
            steps,
            seed,
            self.miss_cost,
            self.refine_soft,
            self.call_ranges(view),
            keep,
            self.every,
        )

    def card_deals(self, view: SeatView, k: Knowledge, n: int, seed: int) -> list[list[int]]:
        """The deals a card decision searches (`deals` with the card settings)."""
        return self.deals(view, k, n, seed, self.infer, self.refine, self.keep)

    def ahead(self, styles: npt.NDArray[np.int64]) -> list[float]:
        """The points a round each seat is expected to score above a typical seat in the
        rounds still to come, given each seat's style (`styles`): ``-drift`` for a seat
        taken to play ``spar-simple``'s rule, else 0 (`calling.win_value` moves the match
        totals by it).

        >>> HardBot(seed=1).ahead(np.array([0, 1, 0, 25]))
        [0.0, -1.6, 0.0, -1.6]
        """
        return [-self.drift if styles[s] >= 1 else 0.0 for s in range(4)]

    def match_stakes(
        self, view: SeatView, styles: npt.NDArray[np.int64] | None = None
    ) -> tuple[npt.NDArray[np.float64], float]:
        """The match totals and the spread of what is left of the match, as the searches
        value a round's outcome by the chance of finishing first (no totals yet: a wide spread);
        ``styles`` (`styles`): each total moved by what the seat is expected to score above the
        others in the rounds still to come (`ahead`; None: all alike)."""
        return stakes_of(view, self.sd_scale, None if styles is None else self.ahead(styles))

    def call_table(
        self,
        view: SeatView,
        deals: list[list[int]],
        cands: Sequence[int],
        totals: npt.NDArray[np.float64],
        sd: float,
        seed: int,
        outcomes: npt.NDArray[np.int64] | None = None,
        styles: npt.NDArray[np.int64] | None = None,
    ) -> npt.NDArray[np.float64]:
        """Each deal's value (rows) of each candidate call (columns), the round played out
        by the kernel's calling search; ``outcomes`` (the same shape), when given, receives
        each playout's end (`playouts.decode_outcomes`); ``styles``: each seat's (`styles`;
        default: ``opp`` for all)."""
        from . import kernel

        model = load_model(family_of(view.rules))
        if outcomes is None:
            outcomes = np.zeros((len(deals), len(cands)), dtype=np.int64)
        table: npt.NDArray[np.float64] = kernel.call_search(
            np.array(deals, dtype=np.int64),
            view.seat,
            (view.dealer + 1) & 3,
            np.array([-1 if c is None else c for c in view.calls], dtype=np.int64),
            np.array(cands, dtype=np.int64),
            kernel.rules_array(view.rules),
            np.array(model.weights),
            np.array([call_position(s, view.dealer) for s in range(4)], dtype=np.int64),
            view.rules.min_call,
            view.rules.max_call,
            self.call_bias,
            totals,
            sd,
            self.eps,
            seed,
            int(self.mpol >= 2),
            outcomes,
            self.call_rescue,
            np.full(4, SIMPLE if self.opp == 1 else 0, dtype=np.int64) if styles is None else styles,
        )
        return table

    def choose_call(self, view: SeatView) -> tuple[int, dict[int, float]]:
        """The call, and the value found for each call searched.

        The calibrated model's call stands unless playing the round out over
        deals consistent with the calls so far finds a neighbouring call
        clearly better (a paired test, as for cards)."""

        dist = trick_distribution(view)
        base, _ = best_call(view, dist)
        seed = self.rng.randrange(1 << 40)
        self.made_rates = {}
        if self.call_deals <= 0:
            return base, {base: 0.0}
        cands = [c for c in view.legal_calls if base - 1 <= c <= base + 2]
        k = Knowledge.from_view(view)
        styles = self.styles(view, k, seed)
        deals = self._deals_for(view, k, self.call_deals, seed, styles, call=True)
        totals, sd = self.match_stakes(view, styles)
        outcomes = np.zeros((len(deals), len(cands)), dtype=np.int64)
        table = self.call_table(view, deals, cands, totals, sd, seed, outcomes=outcomes, styles=styles)
        won = decode_outcomes(outcomes)[0][:, :, view.seat]
        self.made_rates = {
            c: sum(made(c, int(w), view.rules) for w in won[:, j]) / len(deals) for j, c in enumerate(cands)
        }
        means = table.mean(axis=0)
        values = {c: float(v) for c, v in zip(cands, means)}
        bi, fi = int(np.argmax(means)), cands.index(base)
        if bi != fi:
            diff = table[:, bi] - table[:, fi]
            se = float(diff.std()) / math.sqrt(len(diff))
            if float(diff.mean()) > self.call_margin * se + 1e-12:
                return cands[bi], values
        return base, values

    def choose(self, view: SeatView) -> tuple[Card, dict[Card, float]]:
        """The card to play and the value found for each legal card."""
        legal = view.legal_cards
        seed = self.rng.randrange(1 << 40)
        if len(legal) == 1:
            if self.opp == 2:  # the evidence of the round's end
                self.styles(view, Knowledge.from_view(view), seed)
            return legal[0], {legal[0]: 0.0}
        t0 = time.perf_counter()
        k = Knowledge.from_view(view)
        styles = self.styles(view, k, seed)
        # the budget is in full-round playouts: short playouts late in a round are cheap
        scale = 52 / max(sum(view.hand_sizes), 4)
        n = max(8, min(self.max_deals, int(self.iterations * scale) // (len(legal) * self.rollouts)))
        deals = self._deals_for(view, k, n, seed, styles, call=False)
        ahead = self.ahead(styles)
        # exact (max^n) over each deal once few tricks remain, else in the playouts' ends
        solve_k = self.solve_tricks if 13 - len(view.tricks) <= self.solve_tricks else self.playout_solve
        parts = []
        for i in range(0, len(deals), CHUNK):
            parts.append(
                search_values(
                    view,
                    k,
                    deals[i : i + CHUNK],
                    seed + i,
                    self.rollouts,
                    self.eps,
                    solve_k,
                    bool(self.mpol),
                    self.sd_scale,
                    styles.tolist(),
                    ahead,
                )
            )
            if self.time_limit is not None and time.perf_counter() - t0 > self.time_limit:
                break  # the safety cap: keep what has been searched
        table = np.vstack(parts)
        if self.look and self.rollouts == 1 and self.mpol and solve_k == 0 and len(table) == len(deals):
            # the next card by what will be known then; under a serving cap, only where that takes at
            # most look_room times the search's playouts (a count: the answer does not depend on the clock)
            room = -1 if self.time_limit is None else int(self.look_room * table.size)
            table = look_values(
                view, k, deals, table, seed, self.look, self.eps, self.sd_scale, styles.tolist(), room, ahead
            )
        means = table.mean(axis=0)
        values = {c: float(v) for c, v in zip(legal, means)}
        # the medium level's card stands unless another is better by a clear margin
        # (a paired z-test over the same deals), so that noise does not steer play
        fallback = choose_card(view, k)[0]
        fi = legal.index(fallback)
        bi = int(np.argmax(means))
        if bi == fi:
            return fallback, values
        diff = table[:, bi] - table[:, fi]
        se = float(diff.std()) / math.sqrt(len(diff))
        if float(diff.mean()) > self.margin * se + 1e-12:
            return legal[bi], values
        return fallback, values
