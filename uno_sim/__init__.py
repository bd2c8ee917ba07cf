"""uno_sim: Monte Carlo simulation and analysis of UNO and its published variants."""

__version__ = "0.1.0"

from .api import make_rules, play_game, play_round  # noqa: E402
from .policies import PolicySpec, parse_policy  # noqa: E402
from .results import GameResult  # noqa: E402
from .rules import Rules, RulesError  # noqa: E402
from .scenario import arrange, hand_order  # noqa: E402

__all__ = ["Rules", "RulesError", "GameResult", "PolicySpec", "parse_policy", "play_game",
           "play_round", "arrange", "hand_order", "make_rules", "__version__"]
