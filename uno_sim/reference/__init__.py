"""The reference engine: the rules of docs/rules.md as plain Python.

This module is the executable specification.  The C engine (`csrc/`) must play
the very same game from the same seed, event for event: every random number is
drawn from `uno_sim.rng.Rng` in the order written here, every tie is broken as
written here, and both engines share the deck tables of `uno_sim.cards`.

Conventions shared with the C engine
------------------------------------
* Piles are lists whose *last* element is the top card.  Hands are lists kept
  in *hand order*: the card priority order of the side in play (docs/policies.md
  "Card priority": higher value first, then lower kind id, then lower card id;
  ``Game.ranks``).  A card that joins a hand takes its place in that order, a
  card that leaves it leaves the others in order, and a Flip re-sorts every hand
  by the new side.  "The first card in hand order" is therefore the first by
  card priority: every tie of the policies is broken by card priority, never by
  the order in which the cards arrived.
* Two kinds of random stream, both derived from the game's seed state.  The
  table's cards (dealer draw, the shuffle of each round, starter cards put
  back, reshuffles) come from ``deal``, a stream rebuilt at each round from
  the round number (``uno_sim.rng.deal_state``), so a (seed, game) deals every
  round the same whatever the policies do.  Each policy decision draws from
  the stream of its (round, seat, kind of decision) (``uno_sim.rng.
  DecisionStreams``, the ``DK_*`` kinds below), so a knob that draws one more
  number moves no other decision: true common random numbers.
* ``Rng.bernoulli(p)`` consumes nothing for p <= 0 or p >= 1, and ``pick(n)``
  consumes nothing for n == 1, so knobs at their extremes are free.

Rooms
-----
``game`` the `Game` (deal, turns, rounds, scoring) and the entry points;
``effects`` the effects of played and starter cards (a mixin of `Game`);
``policies`` the built-in policies.  The result types both engines return are
in `uno_sim.results`.
"""

from ..results import SEAT_COUNTERS, GameResult
from ..scenario import scenario_deck
from ..cards import STACK_FAMILY, STARTER_WILDS
from .effects import NO_STACK, Effects
from .game import (FORCE_POINTS, Force, ForcePoint, Game, Stalemate, play_forced, play_game,
                   play_round, weighted)
from .policies import (DRAW, POLICY_CLASSES, BuiltinPolicy, GreedyPolicy, RandomPolicy,
                       StrategicPolicy, bluff_probability, color_counts, make_policy,
                       other_side_wild, target_candidates)

__all__ = ["SEAT_COUNTERS", "GameResult", "scenario_deck", "NO_STACK", "STACK_FAMILY",
           "STARTER_WILDS", "Effects", "FORCE_POINTS", "Force", "ForcePoint", "Game",
           "Stalemate", "play_forced", "play_game", "play_round", "weighted", "DRAW",
           "POLICY_CLASSES", "BuiltinPolicy", "GreedyPolicy", "RandomPolicy", "StrategicPolicy",
           "bluff_probability", "color_counts", "make_policy", "other_side_wild",
           "target_candidates"]
