"""The hard level's compiled kernel (numba, compiled on first use and cached).

The state is the engine's: four 52-bit hand masks, the current trick, the
leader, the tricks won.  One module per concern:

- `core`: masks, the rules as an array (`rules_array`), `legal_mask` and
  `trick_winner` (second copies of `callbreak.round.Round`'s rules, held to them
  by a test on random positions), `random_playouts` (raw speed) and
  `random_rollout` (a position played out at random, for ``spar-ismcts`` and ``spar-pimc``);
- `policy`: the fast rule-of-thumb playout policy, and ``spar-simple``'s card
  with its hand in any of 48 orders (`simple_card`, held to the sparring bots
  `SimpleBot`, `SimpleHighBot` and `SimpleClubsBot` by a test; `simple_fits`: the
  orders in which it plays a card, the evidence of `style_misses`);
- `medium`: the medium level's rules, ported (`medium_card`, held card-for-card
  to `callbreak.bots.medium` by a test under random rules);
- `features`: the calling model's estimate of a hand (held to
  `callbreak.bots.calling` by a test);
- `scoring`: a round's score (held to `callbreak.scoring` by a test) and its
  value as a match result (chance of finishing first);
- `deals`: deals consistent with what a seat knows, weighted by the calls
  (`sample_deals`);
- `inference`: how well a deal explains the other seats' play
  (`mismatches`) and Metropolis-Hastings moves towards deals that do (`refine`),
  and the evidence for each seat's style of play (`style_misses`);
- `search`: each candidate card (`search`) or call (`call_search`) played out
  over many deals (`_play_on`: one playout from a position); `look`: the card
  search with the seat's next card chosen by what it will know then; `solve`:
  exact max^n endgames; `dd`: exact double dummy, one seat against the other
  three (`dd_reach`, the analysis' hindsight).

Rules are passed as an int64 array ``P``: trump, must_head, head_after_cut,
must_undertrump, trump_lead (0 any, 1 not first trick, 2 after broken),
overtrick tenths, max_overtricks (-1: none), missed penalty (0 call,
1 shortfall, 2 zero), bonus_call (-1: none), bonus_points.

>>> from callbreak import Ruleset
>>> P = rules_array(Ruleset())
>>> int(P[0]), int(P[6])
(0, -1)
"""

from __future__ import annotations

from .core import CACHE, legal_mask, random_playouts, random_rollout, rules_array, trick_winner
from .dd import dd_reach, dd_table
from .deals import sample_deals
from .inference import mismatches, refine, simple_cannot, style_misses
from .look import look
from .medium import medium_card
from .policy import ORDERS, SUIT_ORDERS, simple_card, simple_fits
from .search import call_search, search
from .solve import solve

__all__ = [
    "CACHE",
    "ORDERS",
    "SUIT_ORDERS",
    "call_search",
    "dd_reach",
    "dd_table",
    "legal_mask",
    "look",
    "medium_card",
    "mismatches",
    "random_playouts",
    "random_rollout",
    "refine",
    "rules_array",
    "sample_deals",
    "search",
    "simple_cannot",
    "simple_card",
    "simple_fits",
    "solve",
    "style_misses",
    "trick_winner",
]
