"""An independent, deliberately naive reading of RULES.md, for cross-checking the engine.

Cards are handled as text and `Card` objects only (no masks); every rule is
written out the way RULES.md says it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from callbreak import Card, Ruleset


def naive_legal(
    hand: list[Card], trick: list[Card], rules: Ruleset, first_trick: bool, trump_played: bool
) -> set[Card]:
    """The cards a seat may play, straight from the rules text."""
    trump = rules.trump
    if not trick:  # a lead
        others = [c for c in hand if c.suit != trump]
        if rules.trump_lead == "any" or not others:  # "a hand of only trumps may always lead one"
            return set(hand)
        if rules.trump_lead == "not_first_trick":
            return set(others) if first_trick else set(hand)
        return set(hand) if trump_played else set(others)  # "after_broken"
    led = trick[0].suit
    same = [c for c in hand if c.suit == led]
    if same:  # follow suit
        if not rules.must_head:
            return set(same)
        someone_cut = led != trump and any(c.suit == trump for c in trick)
        if someone_cut and not rules.head_after_cut:
            return set(same)
        top = max(c.rank for c in trick if c.suit == led)
        higher = [c for c in same if c.rank > top]
        return set(higher) if higher else set(same)
    trumps = [c for c in hand if c.suit == trump]
    if not trumps:
        return set(hand)
    on_trick = [c.rank for c in trick if c.suit == trump]
    if not on_trick:
        return set(trumps)
    over = [c for c in trumps if c.rank > max(on_trick)]
    if over:
        return set(over)
    return set(trumps) if rules.must_undertrump else set(hand)


def naive_winner(trick: list[Card], rules: Ruleset) -> int:
    """Index (0..3, in order of play) of the card that wins a full trick."""
    trumps = [(c.rank, i) for i, c in enumerate(trick) if c.suit == rules.trump]
    if trumps:
        return max(trumps)[1]
    led = trick[0].suit
    return max((c.rank, i) for i, c in enumerate(trick) if c.suit == led)[1]


@dataclass
class NaiveRound:
    """The card play of one round (after the calls), naively."""

    rules: Ruleset
    hands: list[list[Card]]
    leader: int
    trick: list[Card] = field(default_factory=list)
    tricks_done: int = 0
    trump_played: bool = False
    won: list[int] = field(default_factory=lambda: [0, 0, 0, 0])

    @property
    def to_act(self) -> int:
        return (self.leader + len(self.trick)) % 4

    def legal(self) -> set[Card]:
        return naive_legal(
            self.hands[self.to_act], self.trick, self.rules, self.tricks_done == 0, self.trump_played
        )

    def play(self, card: Card) -> None:
        assert card in self.legal()
        self.hands[self.to_act].remove(card)
        self.trick.append(card)
        if len(self.trick) == 4:
            w = (self.leader + naive_winner(self.trick, self.rules)) % 4
            self.won[w] += 1
            self.trump_played = self.trump_played or any(c.suit == self.rules.trump for c in self.trick)
            self.trick = []
            self.leader = w
            self.tricks_done += 1


def naive_perft(nr: NaiveRound, depth: int) -> int:
    """Count play sequences of ``depth`` cards by copying the whole state at every node."""
    if depth == 0 or nr.tricks_done == 13:
        return 1
    total = 0
    for c in sorted(nr.legal()):
        child = NaiveRound(
            nr.rules,
            [list(h) for h in nr.hands],
            nr.leader,
            list(nr.trick),
            nr.tricks_done,
            nr.trump_played,
            list(nr.won),
        )
        child.play(c)
        total += naive_perft(child, depth - 1)
    return total
