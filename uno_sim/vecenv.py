"""A vector environment: many UNO games stepped by one call, in C (docs/env.md).

`UnoVectorEnv` is a ``gymnasium.vector.VectorEnv``: ``num_envs`` games, one learning
seat in each, every other seat played by built-in policies (or search players) inside
the engine.  One `step(actions)` answers every game's pending decision and runs each
game on to its learning seat's next decision, all in C (csrc/env.c); observations,
action masks, rewards and terminations come back as numpy arrays.  An ended episode
is replaced at once by the next one (gymnasium's same-step autoreset).

`UnoSingleEnv` is one such game as a ``gymnasium.Env`` (``gymnasium.make``).  Both
are registered as ``uno_sim/Uno-v0`` when this module is imported (``import
uno_sim`` does it when gymnasium is already imported), and uno_sim.env's
`UnoGymEnv` as ``uno_sim/UnoGym-v0``::

    import gymnasium, uno_sim
    envs = gymnasium.make_vec("uno_sim/Uno-v0", num_envs=256,
                              vectorization_mode="vector_entry_point")
"""

from __future__ import annotations


import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError(f"uno_sim.vecenv needs gymnasium (the rl extra): {exc}") from None

from . import _engine
from .cards import deck_for
from .engine import _make_engine, _nets, _policy
from .envcommon import ENV_ID, GYM_ID, action_name, env_spec, register, rules_of
from .players.specs import UserPolicySpec, parse_policy
from .rng import key_from_seed
from .rules import Rules, RulesError

__all__ = ["UnoVectorEnv", "UnoSingleEnv", "EPISODES", "SEATS", "ENV_ID", "GYM_ID", "register"]

EPISODES = ("game", "round")
SEATS = 10  # seat slots of the observation and of the target actions, whatever the players
OBS_HIGH = 1e9


def _learner(obs):  # the policy slot of the learning seat: never called (C answers)
    raise RuntimeError("the learning seat is played through step()")


def scales(rules: Rules, n_cards: int) -> dict:
    """The vector env's scaling of the count blocks (docs/env.md, "Normalisation")."""
    return {"hand_sizes": 0.1, "scores": 1.0 / max(1, rules.target),
            "draw_pile": 1.0 / n_cards, "round": 0.1, "turn": 0.01, "pending": 0.1,
            "to_discard": 0.1, "silent_presses": 0.1}


def _int(name, value, low, high=None):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low or (
            high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise RulesError(f"invalid {name} {value!r}: expected an integer {bound}")
    return int(value)


class _Core:
    """What both envs share: the rules, the spaces and the C core."""

    def __init__(self, num_envs, variant, players, rules, opponents, seat, episode, max_turns):
        num_envs = _int("num_envs", num_envs, 1, 1 << 20)
        self.rules = rules_of(variant, players, rules)
        n = self.rules.players
        seat = _int("seat", seat, 0, n - 1)
        if episode not in EPISODES:
            raise RulesError(f"invalid episode {episode!r}: expected 'game' or 'round'")
        max_turns = _int("max_turns", max_turns, 0, 1 << 30)
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != n - 1:
                raise RulesError(f"invalid opponents: {len(opponents)} given for {n - 1} seats")
            others = list(opponents)
        else:
            others = [opponents] * (n - 1)
        specs = []
        for s in others:
            if not isinstance(s, str):
                raise RulesError(f"invalid opponents {s!r}: expected a policy spec string")
            spec = parse_policy(s)
            if spec.name == "user":
                raise RulesError(f"invalid opponents {s!r}: expected a built-in policy spec")
            specs.append(spec)
        specs.insert(seat, UserPolicySpec(_learner))
        deck = deck_for(self.rules)
        self.card_codes = tuple(k.code for k in deck.kinds)
        if len(self.card_codes) > 255:
            raise RulesError(f"invalid deck: {len(self.card_codes)} card kinds, at most 255")
        users = [None] * n
        users[seat] = _learner  # a placeholder: the C core answers the seat's decisions
        engine = _make_engine(self.rules, tuple(_policy(s) for s in specs), deck, users,
                              _nets(self.rules, specs))
        self.core = _engine.VecCore(
            engine, num_envs, seat, EPISODES.index(episode), SEATS, deck.sides == 2,
            self.rules.variant_spec.draw_source == "launcher", scales(self.rules, deck.size),
            max_turns)
        self.seat, self.episode, self.opponents = seat, episode, tuple(specs)
        self.observation_layout = tuple(self.core.layout)
        self.action_layout = tuple(self.core.action_layout)
        self.n_actions = self.core.n_actions
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(-1.0, OBS_HIGH, (self.core.obs_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.n_actions,), np.int8),
        })
        self.single_action_space = spaces.Discrete(self.n_actions)
        self.seed_next = 0  # the first run of the next reset without a seed

    def reset(self, seed):
        n = self.core.n_envs
        if seed is not None:
            self.seed_next = _int("seed", seed, 0)
        keys = np.array([key_from_seed(self.seed_next + i) for i in range(n)], dtype=np.uint64)
        self.core.reset(keys)
        self.seed_next += n

    def illegal(self, r, actions):
        a = np.asarray(actions).reshape(-1)[r].item()
        return ValueError(f"illegal action {a!r} in env {r}: not allowed by its action_mask "
                          f"(decision {_decision_name(int(self.core.decisions()[r]))})")

    def action_name(self, a: int) -> str:
        """A readable name of action `a`: "card R7", "draw", "yes", "color 2", "target +1"."""
        return action_name(self.action_layout, self.card_codes, a)


def _decision_name(d: int) -> str:
    from .players.user import DECISIONS

    return DECISIONS[d] if 0 <= d < len(DECISIONS) else "none"


class UnoVectorEnv(VectorEnv):
    """``num_envs`` UNO games with one learning seat each, stepped in C (docs/env.md).

    ``variant``, ``players``, ``rules``: the rules (as `uno_sim.env.env`).
    ``opponents``: the built-in policy of every other seat (a spec string: "greedy",
    "strategic", "random", "pimc(...)", "ismcts(...)"), or a list of specs for the other
    seats in seat order.  ``seat``: the learning seat (0).  ``episode``: "game" (an
    episode is a whole game, reward +1 won / -1 lost) or "round" (an episode is one
    round, reward +1 / -1 / 0 for a stalemate; the next episode is the game's next
    round).  ``max_turns``: a round longer than this ends the episode truncated (0: the
    engine's limit).  ``seed``: what a first ``reset()`` without a seed uses (0).
    ``copy``: return copies of the arrays (False: the env's own buffers, overwritten by
    the next step).
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int = 64, variant=None, players=None, rules=None,
                 opponents="greedy", seat: int = 0, episode: str = "game", max_turns: int = 0,
                 seed: int | None = None, copy: bool = True, render_mode=None):
        if render_mode is not None:
            raise ValueError(f"invalid render_mode {render_mode!r}: expected None")
        self._c = _Core(num_envs, variant, players, rules, opponents, seat, episode, max_turns)
        if seed is not None:  # the runs of the first reset() without a seed
            self._c.seed_next = _int("seed", seed, 0)
        self.render_mode = None
        self.num_envs = self._c.core.n_envs
        self.rules = self._c.rules
        self.episode = episode
        self.copy = bool(copy)
        self.single_observation_space = self._c.single_observation_space
        self.single_action_space = self._c.single_action_space
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(
            self.single_action_space, self.num_envs)
        self.observation_layout = self._c.observation_layout
        self.action_layout = self._c.action_layout
        self.card_codes = self._c.card_codes
        self.action_name = self._c.action_name
        self._step = self._c.core.step
        self._reset_done = False

    def _obs(self):
        c = self._c.core
        if self.copy:
            return {"observation": c.obs.copy(), "action_mask": c.mask.copy()}
        return {"observation": c.obs, "action_mask": c.mask}

    def reset(self, *, seed=None, options=None):
        """Env i starts game 0 of run ``seed + i`` (no seed: the next ``num_envs`` runs)."""
        self._c.reset(seed)
        self._reset_done = True
        return self._obs(), {}

    def step(self, actions):
        """Answers every game's pending decision with `actions` (one legal action id per game)
        and plays on to each learning seat's next decision; a finished game restarts in the
        same step (its last observation in info["final_obs"]).  Returns (obs, rewards,
        terminations, truncations, info) as arrays over the games."""
        if not self._reset_done:
            raise RuntimeError("step() before reset(): call reset() first")
        r = self._step(actions)
        if r >= 0:
            raise self._c.illegal(r, actions)
        c = self._c.core
        term, trunc = c.terminated, c.truncated
        info = {}
        done = term | trunc
        if done.any():
            info = {"final_obs": {"observation": c.final_obs.copy(),
                                  "action_mask": np.zeros_like(c.mask)},
                    "_final_obs": done}
        if self.copy:
            return self._obs(), c.reward.copy(), term.copy(), trunc.copy(), info
        return self._obs(), c.reward, term, trunc, info

    def action_masks(self):
        """The current action masks, (num_envs, n_actions) (sb3-contrib's convention)."""
        return self._c.core.mask.astype(bool)

    def decisions(self):
        """Each env's pending decision (its name, docs/env.md "Actions")."""
        return [_decision_name(int(d)) for d in self._c.core.decisions()]

    def last_result(self, i: int) -> dict:
        """Env i's last finished game: winners, scores, rounds."""
        winners, scores, rounds = self._c.core.last_result(i)
        return {"winners": winners, "scores": scores, "rounds": rounds}


class UnoSingleEnv(gymnasium.Env):
    """One UNO game with one learning seat as a ``gymnasium.Env`` (the vector env's core).

    Arguments as `UnoVectorEnv`; ``illegal_action``: what an action outside the mask
    does, "lose" (the default: the episode ends with reward -1 and
    ``info["illegal_action"]``, so that every action of the action space is a valid
    step, as the Gymnasium API and its ``check_env`` want) or "raise" (a ValueError
    naming it, to catch a learner that ignores the mask).
    """

    metadata = {"render_modes": []}

    def __init__(self, variant=None, players=None, rules=None, opponents="greedy", seat=0,
                 episode="game", max_turns=0, illegal_action="lose", render_mode=None):
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"invalid illegal_action {illegal_action!r}: expected raise or lose")
        if render_mode is not None:
            raise ValueError(f"invalid render_mode {render_mode!r}: expected None")
        self._c = _Core(1, variant, players, rules, opponents, seat, episode, max_turns)
        self.spec = env_spec(ENV_ID, variant=variant, players=players, rules=rules,
                          opponents=opponents, seat=seat, episode=episode, max_turns=max_turns,
                          illegal_action=illegal_action)  # gymnasium.make(env.spec) rebuilds it
        self.rules = self._c.rules
        self.illegal_action = illegal_action
        self.observation_space = self._c.single_observation_space
        self.action_space = self._c.single_action_space
        self.observation_layout = self._c.observation_layout
        self.action_layout = self._c.action_layout
        self.card_codes = self._c.card_codes
        self.action_name = self._c.action_name
        self._actions = np.zeros(1, dtype=np.int32)
        self._state = "new"  # new, playing, ended

    def _obs(self):
        c = self._c.core
        return {"observation": c.obs[0].copy(), "action_mask": c.mask[0].copy()}

    def reset(self, *, seed=None, options=None):
        """Game 0 of run `seed`; without a seed the next game (ended) or the next run."""
        super().reset(seed=seed)
        if seed is not None or self._state != "ended":
            self._c.reset(seed)
        self._state = "playing"
        return self._obs(), {}

    def step(self, action):
        """Answers the learning seat's decision with `action` and plays on to its next one;
        returns (obs, reward, terminated, truncated, info)."""
        if self._state != "playing":
            raise RuntimeError("step() outside an episode: call reset() first")
        c = self._c.core
        a = action[()] if isinstance(action, np.ndarray) and action.ndim == 0 else action
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not (
                -(1 << 31) <= a < 1 << 31):  # 19.7 is not taken as 19, True not as 1
            raise ValueError(f"invalid action {action!r}: expected an integer action id")
        self._actions[0] = a
        r = self._c.core.step(self._actions)
        if r >= 0:
            if self.illegal_action == "raise":
                raise self._c.illegal(r, self._actions)
            self._state = "new"  # the game is abandoned: reset() starts another run
            return ({"observation": c.obs[0].copy(), "action_mask": np.zeros_like(c.mask[0])},
                    -1.0, True, False, {"illegal_action": True})
        term, trunc = bool(c.terminated[0]), bool(c.truncated[0])
        if term or trunc:
            self._state = "ended"  # the core already holds the next episode
            obs = {"observation": c.final_obs[0].copy(), "action_mask": np.zeros_like(c.mask[0])}
            return obs, float(c.reward[0]), term, trunc, {}
        return self._obs(), 0.0, False, False, {}

    def action_masks(self):
        """The current action mask as booleans (sb3-contrib's MaskablePPO convention)."""
        return self._c.core.mask[0].astype(bool)


register()  # envcommon.register: gymnasium.make finds both ids once this is imported
