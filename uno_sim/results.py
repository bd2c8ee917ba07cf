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


class GameLimitError(RuntimeError):
    """A game ran past the engine's safety limits (see UNO_MAX_TURNS in csrc/uno.h).

    ``events`` holds the trace up to the limit when one was recorded.
    """

    def __init__(self, message, events=None):
        super().__init__(message)
        self.events = events
