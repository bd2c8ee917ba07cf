"""A PettingZoo AEC environment on the C engine, and a Gymnasium single-agent wrapper.

``env(variant=..., players=..., rules=..., opponents=...)`` plays complete games
of any variant with every rule switch (docs/rules.md): the C engine plays the
game, the built-in policies (docs/policies.md) play the seats in `opponents`
inside it, and every decision of the other seats -- the learning agents,
``player_<seat>`` -- is handed to ``env.step``.  The observation is
``{"observation": float32 vector, "action_mask": int8 vector}``; both layouts
are documented in docs/env.md.

The engine plays a whole game per call; the game runs in a greenlet (or, with
``backend="thread"``, a thread) that switches back to the caller at each
decision of a learning seat.  Randomness comes only from the engine's seeded
generators: ``reset(seed=s)`` starts game 0 of run `s` (dealt as
``uno-sim play --seed s --game 0`` deals it), each later ``reset()`` the run's
next game.

Requires the ``rl`` extra (``pip install 'uno-sim[rl]'``: pettingzoo, gymnasium,
greenlet).
"""

from __future__ import annotations

import functools
import threading
import weakref

import numpy as np

try:
    import greenlet
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError(f"uno_sim.env needs the rl extra (pip install 'uno-sim[rl]'): {exc}") from None

from . import _engine
from .cards import deck_for
from .engine import GameLimitError, _make_engine, _nets, _policy
from .policies import UserPolicySpec, parse_policy
from .rng import MASK64, key_from_seed
from .rules import RulesError
from .userpolicy import DECISIONS
from .vecenv import _rules  # rules from variant / players / rules, as the vector env

__all__ = ["env", "raw_env", "UnoEnv", "UnoGymEnv", "BACKENDS"]

BACKENDS = ("greenlet", "thread")
REWARD_WIN, REWARD_LOSS = 1.0, -1.0
OBS_HIGH = 1e9  # the observation's bound above (counts, scores, turns)


def _learner(obs):  # the policy slot of a learning seat: never called (EnvSeat answers)
    raise RuntimeError("a learning seat is played through env.step")


_FAST_ACTION = (int, np.int64)  # taken as they are (what np.flatnonzero gives)


def _action(action) -> int:
    """An action id as an int: an int or a NumPy integer (a 0-d integer array too);
    ValueError naming anything else (19.7 is not taken as 19, True not as 1)."""
    if isinstance(action, np.ndarray) and action.ndim == 0:
        action = action[()]
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"invalid action {action!r}: expected an integer action id")
    return int(action)


def _play_game(engine, key, game_no, max_turns):
    """The game a runner plays: a function of the engine and the game only, never of the
    env, so that an env dropped without close() is freed (its finalizer stops the game)."""
    try:
        r, _ = engine.play_game(key, game_no, False, max_turns, 0)
        return _End(r)
    except GameLimitError:
        return _End(None, truncated=True)


def _stop_runner(holder: list) -> None:
    """The env's finalizer: stop the game in flight, if any (a thread waits for it)."""
    runner, holder[0] = holder[0], None
    if runner is not None:
        runner.stop()


def _seat_specs(opponents, players: int) -> list:
    """Per seat: a built-in PolicySpec, or None for a learning seat."""
    specs = [None] * players
    if opponents is None:
        return specs
    if isinstance(opponents, str):  # every seat but seat 0
        for s in range(1, players):
            specs[s] = parse_policy(opponents)
        return specs
    if isinstance(opponents, dict):
        for seat, spec in opponents.items():
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
                raise RulesError(f"invalid opponents seat {seat!r}: expected 0..{players - 1}")
            specs[seat] = None if spec is None else parse_policy(spec)
    elif isinstance(opponents, (list, tuple)):
        if len(opponents) != players:
            raise RulesError(f"invalid opponents: {len(opponents)} given for {players} players")
        specs = [None if s is None else parse_policy(s) for s in opponents]
    else:
        raise RulesError(f"invalid opponents {opponents!r}: expected a policy spec, "
                         f"a {{seat: spec}} dict or a list with None for learning seats")
    for seat, spec in enumerate(specs):
        if spec is not None and spec.name == "user":
            raise RulesError(f"invalid opponents seat {seat}: expected a built-in policy spec")
    if all(s is not None for s in specs):
        raise RulesError("invalid opponents: every seat is a built-in policy, no agent is left")
    return specs



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

class _GreenletRunner:
    """Runs `play()` in a greenlet; `wait` switches back to the caller with the seat asked."""

    def __init__(self, play):
        self._main = greenlet.getcurrent()
        self._g = greenlet.greenlet(play)
        self.wait = self._main.switch
        # resume(action): run until the next decision (returns the seat) or the end
        # (returns an _End); the first call, resume(), starts the game
        self.resume = self._g.switch

    def stop(self):
        if self._g and not self._g.dead:
            self._g.throw()  # GreenletExit: the engine aborts the game and unwinds
        self._g = None


class _Stop(BaseException):
    pass


class _ThreadRunner:
    """The same hand-off with a thread and two semaphores (slower: see benchmarks)."""

    def __init__(self, play):
        self._play = play
        self._to_game = threading.Semaphore(0)
        self._to_env = threading.Semaphore(0)
        self._msg = None
        self._thread = None

    def _run(self):
        try:
            self._msg = ("end", self._play())
        except _Stop:
            self._msg = ("stopped", None)
        except BaseException as exc:  # handed to the caller
            self._msg = ("error", exc)
        self._to_env.release()

    def wait(self, seat):
        self._msg = ("seat", seat)
        self._to_env.release()
        self._to_game.acquire()
        kind, action = self._msg
        if kind == "stop":
            raise _Stop
        return action

    def _exchange(self):
        self._to_env.acquire()
        kind, value = self._msg
        if kind == "error":
            raise value
        return value

    def resume(self, action=None):
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        else:
            self._msg = ("action", action)
            self._to_game.release()
        return self._exchange()

    def stop(self):
        if self._thread is not None and self._thread.is_alive():
            self._msg = ("stop", None)
            self._to_game.release()
            self._thread.join()
        self._thread = None


class _End:
    def __init__(self, result, truncated=False):
        self.result = result
        self.truncated = truncated


class UnoEnv(AECEnv):
    """UNO for multi-agent RL (PettingZoo AEC): see the module docstring and docs/env.md.

    ``variant``, ``players``: override those of ``rules`` (a `Rules` or a dict of
    switches; default: classic rules, 4 players).  ``opponents``: the seats played
    by built-in policies -- a spec string for every seat but seat 0, a
    ``{seat: spec}`` dict, or a list with None at the learning seats; default none
    (every seat learns).  ``max_turns``: a round longer than this ends the episode
    truncated (0: the engine's safety limit).
    """

    metadata = {"name": "uno_sim_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, variant=None, players=None, rules=None, opponents=None, *,
                 backend="greenlet", max_turns=0, render_mode=None):
        super().__init__()
        self.rules = _rules(variant, players, rules)
        if backend not in BACKENDS:
            raise ValueError(f"invalid backend {backend!r}: expected one of {', '.join(BACKENDS)}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"invalid render_mode {render_mode!r}: expected None or 'ansi'")
        self.render_mode = render_mode
        self.backend = backend
        if isinstance(max_turns, bool) or not isinstance(max_turns, (int, np.integer)) \
                or not 0 <= max_turns <= 2**31 - 1:
            raise RulesError(f"invalid max_turns {max_turns!r}: expected an integer "
                             f"0..2**31-1 (0: the engine's own limit)")
        self.max_turns = int(max_turns)
        n = self.rules.players
        self.seat_specs = _seat_specs(opponents, n)
        deck = deck_for(self.rules)
        self.deck = deck
        self.card_codes = tuple(k.code for k in deck.kinds)  # action / observation card slots
        if len(self.card_codes) > 255:
            raise RulesError(f"invalid deck: {len(self.card_codes)} card kinds, at most 255")
        learner = UserPolicySpec(_learner)
        pols = [_policy(learner if s is None else s) for s in self.seat_specs]
        self._seat = _engine.EnvSeat(len(self.card_codes), n, deck.sides == 2,
                                     self.rules.variant_spec.draw_source == "launcher")
        users = [self._seat if s is None else None for s in self.seat_specs]
        self._engine = _make_engine(self.rules, tuple(pols), deck, users,
                                    _nets(self.rules, [learner if s is None else s
                                                       for s in self.seat_specs]))
        self.possible_agents = [f"player_{s}" for s in range(n) if self.seat_specs[s] is None]
        self._seat_of = {a: int(a.split("_")[1]) for a in self.possible_agents}
        self._agent_of = {s: a for a, s in self._seat_of.items()}
        self._agent_at = [self._agent_of.get(s) for s in range(n)]
        self._legal = self._seat.legal
        self.observation_layout = tuple(self._seat.layout)
        self.action_layout = tuple(self._seat.action_layout)
        self.n_actions = self._seat.n_actions
        obs_space = spaces.Dict({
            "observation": spaces.Box(-1.0, OBS_HIGH, (self._seat.obs_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.n_actions,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.n_actions) for a in self.possible_agents}
        self._key = None
        self._game_no = 0
        self._over = False
        self.agents = []
        self._runner = None
        # the game in flight, for the finalizer: an env dropped without close() stops it
        self._runner_box = [None]
        weakref.finalize(self, _stop_runner, self._runner_box)
        self.result = None  # the finished game's result (engine.play_game's dict)

    def observation_space(self, agent):
        """The observation space of `agent`: a Dict of observation and action_mask."""
        return self.observation_spaces[agent]

    def action_space(self, agent):
        """The action space of `agent`: Discrete over every action code."""
        return self.action_spaces[agent]

    # --- the game ---

    def _advance(self, out):
        if isinstance(out, _End):
            self._finish(out)
        else:
            self.agent_selection = self._agent_of[out]

    def _finish(self, end: _End):
        self._over = True
        self.result = end.result
        self._runner = self._runner_box[0] = None
        if end.result is not None:
            winners = set(end.result["winners"])
            for a in self.agents:
                self.rewards[a] = REWARD_WIN if self._seat_of[a] in winners else REWARD_LOSS
        for a in self.agents:
            self.terminations[a] = not end.truncated
            self.truncations[a] = end.truncated

    def reset(self, seed=None, options=None):
        """Start game 0 of run `seed`, or (seed None) the next game of the current run."""
        self._stop()
        if seed is not None or self._key is None:
            self._key = key_from_seed(0 if seed is None else seed)
            self._game_no = 0
        else:
            self._game_no += 1
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._seat.obs[:] = 0
        self._seat.mask[:] = 0
        self.result = None
        self._over = False
        self.agent_selection = self.agents[0]
        play = functools.partial(_play_game, self._engine, self._key, self._game_no & MASK64,
                                 self.max_turns)
        runner = (_GreenletRunner if self.backend == "greenlet" else _ThreadRunner)(play)
        self._seat.wait = runner.wait
        self._runner = self._runner_box[0] = runner
        self._resume = runner.resume
        self._advance(runner.resume())

    def observe(self, agent):
        """The observation of `agent` now: its observation vector and action mask."""
        if self._key is None:
            raise RuntimeError("observe() before reset(): call env.reset() first")
        return self._seat.observe(self._seat_of[agent])

    def step(self, action):
        """Play `action` for the agent to move: one in its action mask (ValueError otherwise)."""
        if self._over or self._key is None:
            return self._step_over(action)
        agent = self.agent_selection
        if action.__class__ not in _FAST_ACTION:
            action = _action(action)
        try:
            ok = self._legal(self._seat_of[agent], action)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"invalid action {action!r}: expected an integer") from None
        if not ok:
            raise ValueError(f"illegal action {action!r} for {agent}: not allowed by its "
                             f"action_mask (decision {DECISIONS[self._seat.decision]})")
        self._cumulative_rewards[agent] = 0.0
        out = self._resume(action)
        if out.__class__ is int:  # the next decision; rewards stay 0 until the end
            self.agent_selection = self._agent_at[out]
        else:
            self._finish(out)
            self._accumulate_rewards()

    def _step_over(self, action):
        if self._key is None:
            raise RuntimeError("step() before reset(): call env.reset() first")
        if not self.agents:
            raise RuntimeError("step() after every agent left the finished game: call "
                               "env.reset() for the next one")
        if action is not None:
            raise ValueError(f"invalid action {action!r}: the game is over, and a finished "
                             f"agent takes step(None) (or call env.reset())")
        self._was_dead_step(action)

    def last(self, observe=True):
        """(observation, accumulated reward, terminated, truncated, info) of agent_selection."""
        if self._key is None:
            raise RuntimeError("last() before reset(): call env.reset() first")
        if not self.agents:
            raise RuntimeError("last() after every agent left the finished game: call "
                               "env.reset() for the next one")
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def decision(self, agent=None) -> str | None:
        """The decision the selected agent (or `agent`) is asked now (docs/env.md), or None."""
        s = self._seat_of[agent or self.agent_selection]
        return DECISIONS[self._seat.decision] if self._seat.decider == s else None

    def render(self):
        """With render_mode "ansi": the agent to move, its decision and legal actions (text)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() without render_mode: nothing to show")
            return None
        agent = self.agent_selection
        return f"{agent}: {self.decision(agent)} legal actions {self.legal_actions(agent)}"

    def legal_actions(self, agent=None) -> list:
        """The actions the action_mask allows, as (action id, meaning) pairs."""
        s = self._seat_of[agent or self.agent_selection]
        return [(int(a), self.action_name(int(a))) for a in np.flatnonzero(self._seat.mask[s])]

    def action_name(self, a: int) -> str:
        """A readable name of action `a`: "card R7", "draw", "yes", "color 2", "target +1"."""
        return action_name(self.action_layout, self.card_codes, a)

    def _stop(self):
        if self._runner is not None:
            self._runner.stop()
            self._runner = self._runner_box[0] = None

    def close(self):
        """Stop a game in flight (with the thread backend its thread waits until then)."""
        self._stop()


def env(**kwargs) -> UnoEnv:
    """The environment: `UnoEnv(**kwargs)`.

    Not wrapped in PettingZoo's OrderEnforcingWrapper: UnoEnv makes the same
    checks itself (step and observe before reset raise), and the wrapper's
    attribute forwarding would cost about two thirds of the steps/s
    (benchmarks/results.md).
    """
    return UnoEnv(**kwargs)


raw_env = env  # the PettingZoo name of the unwrapped constructor


class UnoGymEnv(gymnasium.Env):
    """One learning seat against built-in policies, as a Gymnasium env.

    ``seat`` learns; every other seat is played by ``opponents`` (a spec string,
    or a list of specs for the other seats in seat order).  Observation and
    action spaces as in `UnoEnv`; the reward is +1 for a won game, -1 for a lost
    one, 0 before the end.

    ``illegal_action``: what an action outside the mask does.  ``"lose"`` (the
    default) ends the episode with reward -1, so that every action of the action
    space is a valid step as the Gymnasium API wants (``check_env`` passes);
    ``"raise"`` raises a ValueError naming the action instead, to catch a learner
    that ignores the mask.
    """

    metadata = {"render_modes": []}

    def __init__(self, variant=None, players=None, rules=None, opponents="greedy", seat=0,
                 illegal_action="lose", **kwargs):
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"invalid illegal_action {illegal_action!r}: expected raise or lose")
        self.illegal_action = illegal_action
        n = _rules(variant, players, rules).players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise RulesError(f"invalid seat {seat!r}: expected 0..{n - 1}")
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != n - 1:
                raise RulesError(f"invalid opponents: {len(opponents)} given for {n - 1} seats")
            others = list(opponents)
        else:
            others = [opponents] * (n - 1)
        others.insert(seat, None)
        self.aec = UnoEnv(variant, players, rules, others, **kwargs)
        self.agent = f"player_{seat}"
        self.seat = seat
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)

    def reset(self, *, seed=None, options=None):
        """Deal a new game (seed: the run seed) and play to the learning seat's first decision."""
        super().reset(seed=seed)
        self.aec.reset(seed=seed, options=options)
        return self.aec.observe(self.agent), {}

    def step(self, action):
        """Play `action` and the other seats up to the learning seat's next decision or the end."""
        aec, a = self.aec, self.agent
        if aec._key is None:
            raise RuntimeError("step() before reset(): call reset() first")
        if aec._over:
            raise RuntimeError("step() after the episode ended: call reset()")
        if action.__class__ not in _FAST_ACTION:
            action = _action(action)
        if not self._legal(action):
            if self.illegal_action == "lose":
                aec._stop()
                aec._over = True
                return aec.observe(a), REWARD_LOSS, True, False, {"illegal_action": True}
            aec.step(action)  # raises the ValueError that names the action
        # the AEC step without its bookkeeping: only this agent plays
        out = aec._resume(action)
        if out.__class__ is int:
            return aec._seat.observe(out), 0.0, False, False, {}
        aec._finish(out)
        aec._accumulate_rewards()
        return (aec.observe(a), float(aec._cumulative_rewards[a]), aec.terminations[a],
                aec.truncations[a], {})

    def _legal(self, action) -> bool:
        try:
            return self.aec._legal(self.seat, action)
        except (TypeError, ValueError, OverflowError):
            return False

    def action_masks(self):
        """The current action mask (for sb3-contrib's MaskablePPO)."""
        return self.aec._seat.mask[self.aec._seat_of[self.agent]].copy()

    def close(self):
        """Stop the game in progress and release it."""
        self.aec.close()
