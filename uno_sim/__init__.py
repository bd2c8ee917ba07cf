"""uno_sim: Monte Carlo simulation and analysis of UNO and its published variants.

Where to start:

- Many games: ``uno_sim.runner.simulate(games=100_000, players=4, seed=1, n_jobs=2)``
  returns a `RunResult`; ``.win_shares()`` (seat shares with 95% intervals), ``.seats()``
  (one row per seat), ``.summary_frame()``, ``.games`` and ``.rounds`` are Polars frames,
  and in a notebook the result shows its table.  ``resume``, ``merge`` and ``load`` finish
  or open a run folder (``out=``).
- One game: ``play_game(players=4, seed=7, trace=True)`` (a `GameResult` with its events);
  ``play_round`` with a deck built by ``arrange`` plays a chosen situation.
- Rules and players: `Rules` (every switch: ``uno-sim rules``) and policy specs
  (``parse_policy("greedy(bluff=0.3)")``; a Python callable plays a seat too,
  `uno_sim.players.user`).
- Learning agents: ``uno_sim.env.env()`` (PettingZoo AEC) and ``uno_sim.env.UnoGymEnv``
  (Gymnasium), with the ``rl`` extra.
- Studies: ``uno_sim.analysis.run_study("bluff", players=2, games=500)`` returns a study
  whose frames are in ``.data`` and which shows its tables and figures in a notebook
  (the ``analysis`` extra); ``uno_sim.players.tournament.tournament`` pairs policies.

The command line ``uno-sim`` wraps the same functions (``uno-sim --help``); the docs
folder of the repository has one page per subject (rules, engine, policies, env, studies).
"""

import sys as _sys  # noqa: E402

from ._version import __version__  # noqa: E402
from .api import make_rules, play_game, play_round  # noqa: E402
from .players.specs import PolicySpec, parse_policy  # noqa: E402
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
