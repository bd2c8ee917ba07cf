"""Stable-Baselines3 on the C vector environment: an SB3 ``VecEnv`` over `UnoVectorEnv`.

SB3 and sb3-contrib step many envs through their own ``VecEnv`` interface (``reset()``
returning observations only, ``step_async`` / ``step_wait``, a list of info dicts, the
last observation of an ended episode in ``info["terminal_observation"]``).
`UnoSB3VecEnv` gives them `uno_sim.vecenv.UnoVectorEnv` directly: one C call steps
every game, with no per-env Python object; sb3-contrib's ``MaskablePPO`` reads the
masks through ``env_method("action_masks")``, which returns them from C too::

    from sb3_contrib import MaskablePPO
    from uno_sim.sb3 import vec_env

    venv = vec_env(64, players=2, opponents="greedy", episode="round", seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, seed=0).learn(100_000)

The observation is the vector env's observation vector (a ``Box``; the mask is not
in it: SB3's MLP policies take one array); the action space its ``Discrete``.  The
games are the vector env's: ``venv.seed(s)`` then ``reset()`` plays run ``s + i`` in
env ``i`` (without a seed, the next ``num_envs`` runs), so a seeded SB3 run is
reproducible.  Requires stable-baselines3 (``pip install sb3-contrib`` brings it and
torch; docs/env.md "Stable-Baselines3").

The network player's weights as MaskablePPO's policy.  `maskable_ppo` builds the model
with the network player's architecture (`net_policy_kwargs`: the column cut of the game's
seats and the hidden ReLU layers as SB3's features extractor, `NetFeatures`, shared by
the policy and value heads) and loads a `.unonet` into it: the shipped weights of the
game (``init="net"``), a file, or none (``init="scratch"``).  `export_net` writes the
policy back as a `.unonet` that ``net(weights=FILE)`` plays::

    from uno_sim.sb3 import export_net, maskable_ppo, vec_env

    venv = vec_env(64, players=2, opponents="greedy", episode="round", seed=0)
    model = maskable_ppo(venv, init="net", n_steps=128, batch_size=512, seed=0)
    model.learn(100_000)                            # fine-tunes the shipped weights
    export_net(model, "tuned.unonet", {"variant": "classic", "players": 2})

The loaded policy's most likely legal action (``model.predict(obs, action_masks=masks,
deterministic=True)``) is the network player's answer, but at a near-tie of two logits
(torch's matrix products round differently from the C player's loop in the last bits;
tests/test_sb3.py compares them).  The value head is the file's: the logit of winning the
game, which PPO then fits to its own returns (an exported file's value is PPO's).
"""

from __future__ import annotations

import numpy as np

try:
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
    from stable_baselines3.common.vec_env import VecEnv
except ImportError as exc:  # pragma: no cover - exercised without sb3
    raise ImportError(f"uno_sim.sb3 needs stable-baselines3 (pip install sb3-contrib, which "
                      f"brings it and torch): {exc}") from None

from .players import netfile
from .players.net import check_fits, for_rules, game_layout
from .players.torchnet import Trunk, load_net as _load_net, net_of
from .vecenv import UnoVectorEnv

__all__ = ["UnoSB3VecEnv", "vec_env", "NetFeatures", "net_policy_kwargs", "maskable_ppo",
           "load_net", "policy_net", "export_net"]


class UnoSB3VecEnv(VecEnv):
    """SB3's ``VecEnv`` interface over a `UnoVectorEnv` (``venv``): see the module docstring.

    ``env_method("action_masks")`` and ``action_masks()`` return the masks as booleans,
    one row per env (sb3-contrib's MaskablePPO convention); every other attribute or
    method is the vector env's, shared by all its games.
    """

    def __init__(self, venv: UnoVectorEnv):
        if not isinstance(venv, UnoVectorEnv):
            raise TypeError(f"invalid venv {venv!r}: expected a uno_sim UnoVectorEnv")
        self.venv = venv
        self._actions = None
        super().__init__(venv.num_envs, venv.single_observation_space["observation"],
                         venv.single_action_space)

    def reset(self):
        """Env i starts run ``seed + i`` after ``seed(seed)``, else the next runs; returns
        the observations (num_envs, obs_size)."""
        seed = self._seeds[0]
        obs, _ = self.venv.reset(seed=seed)
        self._reset_seeds()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs["observation"]

    def step_async(self, actions) -> None:
        """Keep `actions` (one legal action id per env) for `step_wait`."""
        self._actions = np.asarray(actions)

    def step_wait(self):
        """Step every game in C: (observations, rewards, dones, infos); an ended episode's
        last observation is in its info["terminal_observation"] (the next one has begun),
        and ``info["TimeLimit.truncated"]`` says whether it was cut short."""
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(): call step(actions)")
        obs, reward, term, trunc, info = self.venv.step(self._actions)
        self._actions = None
        done = term | trunc
        infos = [{} for _ in range(self.num_envs)]
        if done.any():
            final = info["final_obs"]["observation"]
            for i in np.flatnonzero(done):
                infos[i] = {"terminal_observation": final[i],
                            "TimeLimit.truncated": bool(trunc[i] and not term[i])}
        return obs["observation"], reward, done, infos

    def action_masks(self) -> np.ndarray:
        """The current masks, (num_envs, n_actions) booleans."""
        return self.venv.action_masks()

    def close(self) -> None:
        """Close the vector env."""
        self.venv.close()

    def _indices(self, indices) -> list:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, (int, np.integer)) else list(indices)

    def get_attr(self, attr_name: str, indices=None) -> list:
        """The vector env's attribute `attr_name`, once per env asked."""
        if attr_name == "action_masks":
            value = self.action_masks
        else:
            value = getattr(self.venv, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        """Set the vector env's attribute: its games share it, so only for all of them."""
        if len(self._indices(indices)) != self.num_envs:
            raise ValueError(f"invalid indices {indices!r}: the games of a UnoVectorEnv "
                             f"share {attr_name!r}; set it for all of them")
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        """``action_masks``: each env's mask; another method: the vector env's, for all."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            return list(self.action_masks()[idx])
        if len(idx) != self.num_envs:
            raise ValueError(f"invalid indices {indices!r}: {method_name}() acts on every "
                             f"game of a UnoVectorEnv at once")
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list:
        """No gymnasium wrapper is inside: False for every env."""
        return [False for _ in self._indices(indices)]


def vec_env(num_envs: int = 64, **kwargs) -> UnoSB3VecEnv:
    """`UnoSB3VecEnv` over ``uno_sim.vector_env(num_envs, **kwargs)`` (its arguments:
    variant, players, rules, opponents, seat, episode, max_turns, seed)."""
    return UnoSB3VecEnv(UnoVectorEnv(num_envs, **kwargs))


# --- the network player's weights as the policy ---------------------------------------------

class NetFeatures(BaseFeaturesExtractor):
    """SB3's features extractor made of a network's `Trunk` (torchnet): the vector env's
    observation cut to the network's seats, then its hidden ReLU layers.  Shared by the
    policy and value heads (``net_arch=[]``), as in the weight file."""

    def __init__(self, observation_space, layout, widths):
        super().__init__(observation_space, features_dim=int(widths[-1]))
        self.trunk = Trunk(layout, widths)

    def forward(self, observations):
        """The last hidden layer for a batch of observations."""
        return self.trunk(observations)


def net_policy_kwargs(layout, widths) -> dict:
    """``policy_kwargs`` of an SB3 actor-critic policy with the network player's shape:
    `layout` (n_kinds, seats, flip, extreme; `players.net.game_layout(rules)`) and hidden
    `widths`; its heads are SB3's ``action_net`` and ``value_net``."""
    return {"features_extractor_class": NetFeatures,
            "features_extractor_kwargs": {"layout": tuple(layout),
                                          "widths": tuple(int(w) for w in widths)},
            "net_arch": [], "share_features_extractor": True}


def maskable_ppo(venv: UnoSB3VecEnv, init="net", widths=(256, 128), **kwargs):
    """sb3-contrib's ``MaskablePPO("MlpPolicy", venv, ...)`` with the network player's
    architecture (`net_policy_kwargs`) and weights.  `init`: ``"net"``, the weights
    shipped for the venv's game (docs/net.md); a ``.unonet`` path or a `netfile.Net`;
    ``"scratch"``, SB3's initialisation of hidden `widths`.  The network must fit the game
    (RulesError otherwise); `kwargs` go to MaskablePPO."""
    from sb3_contrib import MaskablePPO

    rules = venv.venv.rules
    net = None
    if isinstance(init, netfile.Net):
        check_fits(init, rules)
        net = init
    elif init == "net":
        net = for_rules("", rules).net
    elif init != "scratch":
        net = for_rules(str(init), rules).net
    layout, widths = (game_layout(rules), widths) if net is None else (net.layout(), net.widths)
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs=net_policy_kwargs(layout, widths),
                        **kwargs)
    if net is not None:
        load_net(model, net)
    return model


def _net_policy(model):
    policy = getattr(model, "policy", model)  # a model or its policy
    if not isinstance(getattr(policy, "features_extractor", None), NetFeatures):
        raise TypeError("the policy has not the network player's shape: build it with "
                        "maskable_ppo() or policy_kwargs=net_policy_kwargs(...)")
    return policy


def load_net(model, net: netfile.Net) -> None:
    """Copies `net` (a `netfile.Net`) into a model's (or a policy's) trunk and heads."""
    policy = _net_policy(model)
    _load_net(net, policy.features_extractor.trunk, policy.action_net, policy.value_net)


def policy_net(model, metadata: dict | None = None) -> netfile.Net:
    """A model's (or a policy's) weights as a `netfile.Net` with `metadata`."""
    policy = _net_policy(model)
    return net_of(policy.features_extractor.trunk, policy.action_net, policy.value_net,
                  metadata)


def export_net(model, path, metadata: dict | None = None) -> int:
    """Writes a model's (or a policy's) weights to the `.unonet` file `path` (``net(weights=
    path)`` plays it); returns the file's checksum."""
    return netfile.write(path, policy_net(model, metadata))
