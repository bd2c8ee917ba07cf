"""What both RL environments take and neither owns: their rules from (variant, players,
rules), and the name of an action.

A room below `uno_sim.env` (the PettingZoo and single-agent Gymnasium environments)
and `uno_sim.vecenv` (the vector environment), so that neither imports the other; it
needs no optional extra.
"""

from __future__ import annotations

import dataclasses

from .rules import Rules, RulesError

ENV_ID = "uno_sim/Uno-v0"  # uno_sim.vecenv.UnoSingleEnv
GYM_ID = "uno_sim/UnoGym-v0"  # uno_sim.env.UnoGymEnv


def rules_of(variant, players, rules) -> Rules:
    """Rules from `rules` (a Rules or a dict of switches) with variant / players overridden."""
    from .api import make_rules  # names an unknown switch, as play_game does

    changes = {}
    if variant is not None:
        changes["variant"] = variant
    if players is not None:
        changes["players"] = players
    if rules is not None and not isinstance(rules, (dict, Rules)):
        raise RulesError(f"invalid rules {rules!r}: expected a Rules or a dict of switches")
    return make_rules(rules, **changes)


def register():
    """Register ``uno_sim/Uno-v0`` and ``uno_sim/UnoGym-v0`` with gymnasium (idempotent; by
    entry-point names, so that neither environment's module is imported here)."""
    import gymnasium  # the rl extra: only an env or `import uno_sim.vecenv` asks

    registry = gymnasium.envs.registration.registry
    if ENV_ID not in registry:
        gymnasium.register(id=ENV_ID, entry_point="uno_sim.vecenv:UnoSingleEnv",
                           vector_entry_point="uno_sim.vecenv:UnoVectorEnv")
    if GYM_ID not in registry:  # needs pettingzoo and greenlet too (the rl extra)
        gymnasium.register(id=GYM_ID, entry_point="uno_sim.env:UnoGymEnv")


def env_spec(env_id: str, **kwargs):
    """`env_id`'s registered spec with these constructor arguments, an env's ``spec``:
    ``gymnasium.make(env.spec)`` builds the same env again (check_env does)."""
    import gymnasium

    register()
    return dataclasses.replace(gymnasium.spec(env_id), kwargs=kwargs)


def action_name(action_layout, card_codes, a: int) -> str:
    """A readable name of action `a` of an action layout [(block, offset, size)]: "card R7",
    "draw", "yes", "color 2", "target +1" (the single and the vector environments)."""
    n = sum(size for _, _, size in action_layout)
    for name, off, size in action_layout:
        if off <= a < off + size:
            i = a - off
            if name == "card":
                return f"card {card_codes[i]}"
            if name == "color":
                return f"color {i}"
            return f"target +{i}" if name == "target" else name
    raise ValueError(f"invalid action {a!r}: expected 0..{n - 1}")
