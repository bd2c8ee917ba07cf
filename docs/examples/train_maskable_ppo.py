"""Train sb3-contrib's MaskablePPO on uno_sim (round episodes, classic, 2 players).

    pip install sb3-contrib          # brings stable-baselines3 and torch: large
    python docs/examples/train_maskable_ppo.py --timesteps 200000

Not run by the test suite (torch is not among uno_sim's test dependencies); the numpy
example next to it, train_masked_pg.py, is.  MaskablePPO asks each env for its mask
through ``action_masks()`` (sb3-contrib's ActionMasker wrapper here), and its policy
sees the observation vector only (the ObservationOnly wrapper drops the mask from the
observation dict).  The evaluation is the numpy example's: the share of rounds won
against greedy on the same rounds as a random legal action, with 95% intervals.
"""

from __future__ import annotations

import argparse

import gymnasium

import uno_sim
from uno_sim.vecenv import UnoSingleEnv

try:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker
    from stable_baselines3.common.env_util import make_vec_env
except ImportError as exc:
    raise SystemExit(f"this example needs sb3-contrib (pip install sb3-contrib): {exc}")

from train_masked_pg import evaluate, interval  # noqa: E402 (the file next to this one)


class ObservationOnly(gymnasium.ObservationWrapper):
    """The observation vector of uno_sim's {"observation", "action_mask"} dict."""

    def __init__(self, env):
        super().__init__(env)
        self.observation_space = env.observation_space["observation"]

    def observation(self, observation):
        return observation["observation"]


def make_env():
    env = UnoSingleEnv(players=2, opponents="greedy", episode="round")
    return ActionMasker(ObservationOnly(env), lambda e: e.unwrapped.action_masks())


class PPOAgent:
    """The trained model in the numpy example's agent interface (evaluate())."""

    def __init__(self, model):
        self.model = model

    def act(self, x, mask, rng, greedy=False):
        actions, _ = self.model.predict(x, action_masks=mask, deterministic=greedy)
        return actions


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--timesteps", type=int, default=200_000)
    ap.add_argument("--envs", type=int, default=8)
    ap.add_argument("--eval", type=int, default=10_000, help="rounds per evaluation")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    venv = make_vec_env(make_env, n_envs=args.envs, seed=args.seed)
    model = MaskablePPO("MlpPolicy", venv, n_steps=256, batch_size=512, seed=args.seed,
                        verbose=1)
    model.learn(total_timesteps=args.timesteps)
    for name, agent in (("random legal action", None), ("MaskablePPO", PPOAgent(model))):
        won, played = evaluate(agent, args.eval)
        share, lo, hi = interval(won, played)
        print(f"{name}: {share:.3f} of {played} rounds won against greedy "
              f"(95% CI {lo:.3f}-{hi:.3f})")
    print(f"uno_sim {uno_sim.__version__}")


if __name__ == "__main__":
    main()
