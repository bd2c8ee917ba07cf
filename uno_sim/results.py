"""What a game gives back, shared by both engines (uno_sim.engine, uno_sim.reference): its
result, and the error of a game that ran past the engine's safety limits."""

from __future__ import annotations

from dataclasses import dataclass, field


SEAT_COUNTERS = ("cards_drawn", "bluffs", "challenges", "challenges_won",
                 "uno_forgotten", "uno_caught", "rounds_won")
FORCE_POINTS = 64  # counterfactual decision points described per game (uno.h UNO_CF_MAX)


@dataclass
class GameResult:
    winner: int  # the winning seat; -1 for a shared win (lowest) or a team win
    winners: list  # every winning seat (the whole team for team play)
    team: int  # winning team (0/1) in team play, else -1
    scores: list
    team_scores: list
    rounds: int
    turns: int
    reshuffles: int
    stalemates: int
    seats: dict = field(default_factory=dict)  # counter name -> list per seat
    events: list | None = None

    def summary(self) -> dict:
        """The result as a dict, without the events."""
        d = {k: v for k, v in self.__dict__.items() if k != "events"}
        return d


# The engines' safety limits (csrc/uno.h UNO_MAX_TURNS, UNO_MAX_ROUNDS, UNO_MAX_GAME_TURNS;
# docs/engine.md "Safety limits"): turns in one round, rounds in one game, and turns in one
# game, counted when a round ends.
MAX_TURNS = 100_000
MAX_ROUNDS = 1_000
MAX_GAME_TURNS = 1_000_000


def limit_message(which: str, max_turns: int, max_rounds: int, max_game_turns: int) -> str:
    """GameLimitError's message, the same from both engines.  It names the limits, not a
    cause: the seats' policies alone keep a game going, whichever they are (a setting of a
    built-in policy, a user policy, a network)."""
    return (f"{which} did not end within {max_turns} turns in a round, {max_rounds} rounds "
            f"or {max_game_turns} turns in all: the seats' policies never let it end "
            f"(docs/engine.md, \"Safety limits\")")


class GameLimitError(RuntimeError):
    """A game ran past the engine's safety limits (see UNO_MAX_TURNS in csrc/uno.h).

    ``events`` holds the trace up to the limit when one was recorded; ``game`` is the
    game's number in its run where the C engine names it (a batch of games stops at this
    game, every game before it in the batch having ended), else None.
    """

    def __init__(self, message, events=None, game=None):
        super().__init__(message)
        self.events = events
        self.game = game
