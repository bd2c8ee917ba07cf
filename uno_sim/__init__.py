"""uno_sim: Monte Carlo simulation and analysis of UNO and its published variants."""

__version__ = "0.1.0"

import sys as _sys  # noqa: E402

from .api import make_rules, play_game, play_round  # noqa: E402
from .policies import PolicySpec, parse_policy  # noqa: E402
from .results import GameResult  # noqa: E402
from .rules import Rules, RulesError  # noqa: E402
from .scenario import arrange, hand_order  # noqa: E402

__all__ = ["Rules", "RulesError", "GameResult", "PolicySpec", "parse_policy", "play_game",
           "play_round", "arrange", "hand_order", "make_rules", "vector_env", "__version__"]


def vector_env(num_envs: int = 64, **kwargs):
    """`uno_sim.vecenv.UnoVectorEnv(num_envs, **kwargs)`: many games stepped in C
    (docs/env.md "The vector environment"; needs gymnasium, the rl extra)."""
    from .vecenv import UnoVectorEnv

    return UnoVectorEnv(num_envs, **kwargs)


# gymnasium.make("uno_sim/Uno-v0") after `import gymnasium, uno_sim`; importing
# uno_sim.vecenv registers it too (gymnasium is not imported here otherwise: it is optional)
if "gymnasium" in _sys.modules:
    from . import vecenv as _vecenv  # noqa: E402,F401
