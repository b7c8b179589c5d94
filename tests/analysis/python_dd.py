"""The pure Python double-dummy search the analysis used before the compiled one
(`callbreak.bots.kernel.dd`): a reference the compiled search is held to on
positions where this one finishes.  Same questions, the engine's own rules
(`Round.legal_mask`, `Round.play`, `Round.pop`)."""

from __future__ import annotations

from callbreak.cards import SUIT_MASKS, Card, mask_of
from callbreak.round import PLAYING, Round


class _OverBudget(Exception):
    """Raised inside the search when a question has used its node budget."""


class PythonDoubleDummy:
    """Exact double-dummy search for one seat against the other three together.

    The table of bounds is kept between questions, so asking about every
    position of a round in turn reuses the work.
    """

    def __init__(self, seat: int, node_budget: int = 4_000) -> None:
        if not 0 <= seat <= 3:
            raise ValueError(f"seat must be 0..3, not {seat!r}")
        self.seat = seat
        self.node_budget = node_budget
        self._bounds: dict[tuple[int, int, int, int, int], tuple[int, int]] = {}
        self._nodes = 0

    def max_tricks(self, rnd: Round) -> int | None:
        """Tricks the seat can still take from the position of ``rnd`` (its own
        or the others' turn, in any trick), or None when over the node budget."""
        if rnd.phase != PLAYING:
            return 0
        left = 13 - rnd.trick_number
        work = rnd.copy()
        self._nodes = 0
        got = 0
        try:
            while got < left and self._reach(work, rnd.tricks_won[self.seat] + got + 1):
                got += 1
        except _OverBudget:
            return None
        return got

    def _moves(self, rnd: Round) -> list[int]:
        legal = rnd.legal_mask()
        hands = rnd.hand_masks
        live = hands[0] | hands[1] | hands[2] | hands[3] | mask_of(rnd.trick)
        out: list[int] = []
        for suit_mask in SUIT_MASKS:
            m = legal & suit_mask
            if not m:
                continue
            # the top card of each run of this hand's cards with no other live card between
            prev_in_run = False
            c = suit_mask.bit_length() - 1
            low = c - 12
            while c >= low:
                bit = 1 << c
                if m & bit:
                    if not prev_in_run:
                        out.append(c)
                    prev_in_run = True
                elif live & bit:
                    prev_in_run = False
                c -= 1
        return out

    def _reach(self, rnd: Round, target: int) -> bool:
        """Whether the seat ends the round with at least ``target`` tricks."""
        me = self.seat
        won = rnd.tricks_won[me]
        if won >= target:
            return True
        if won + 13 - rnd.trick_number < target:
            return False
        self._nodes += 1
        if self._nodes > self.node_budget:
            raise _OverBudget
        start = not rnd.trick
        key: tuple[int, int, int, int, int] | None = None
        need = target - won
        if start:
            h = rnd.hand_masks
            key = (h[0], h[1], h[2], h[3], rnd.leader)
            lo, hi = self._bounds.get(key, (0, 13))
            if need <= lo:
                return True
            if need > hi:
                return False
        moves = self._moves(rnd)
        maxing = rnd.to_act == me
        if not maxing:
            moves.reverse()  # the others try their low cards first
        result = not maxing
        for c in moves:
            rnd.play(Card(c))
            try:
                ok = self._reach(rnd, target)
            finally:
                rnd.pop()
            if ok == maxing:
                result = ok
                break
        if key is not None:
            lo, hi = self._bounds.get(key, (0, 13))
            self._bounds[key] = (max(lo, need), hi) if result else (lo, min(hi, need - 1))
        return result
