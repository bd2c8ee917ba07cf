"""Train sb3-contrib's MaskablePPO on the C vector environment (round episodes, classic, 2 players).

    pip install torch==2.13.0 && pip install -e '.[sb3,examples]'   # torch first: a CPU build
    python docs/examples/train_maskable_ppo.py --timesteps 300000

The games are stepped by `uno_sim.sb3.vec_env`, Stable-Baselines3's VecEnv interface
over `uno_sim.vector_env`: one C call steps all the games, and MaskablePPO reads their
action masks from C through ``env_method("action_masks")``.  The policy sees the
observation vector (an MLP, SB3's defaults); the mask removes the illegal actions.

The evaluation is the numpy example's (train_masked_pg.py): the share of rounds won in
the same round episodes (the same seeds: common random numbers) by a uniformly random
legal action and by the trained policy, against greedy and against random opponents,
with 95% Clopper-Pearson intervals.  The model is saved (--save, SB3's zip, which
``MaskablePPO.load`` reads) before the evaluation.  Not run by the test suite (torch is not among
uno_sim's test dependencies); tests/test_sb3.py trains a few rollouts where sb3-contrib
is installed.
"""

from __future__ import annotations

import argparse
import time

import uno_sim

try:
    import torch
    from sb3_contrib import MaskablePPO

    from uno_sim.sb3 import vec_env
except ImportError as exc:
    raise SystemExit(f"this example needs torch and sb3-contrib (pip install torch==2.13.0 && "
                     f"pip install -e '.[sb3,examples]'): {exc}")

from train_masked_pg import compare  # noqa: E402 (the file next to this one)


class PPOAgent:
    """The trained model in the numpy example's agent interface (evaluate())."""

    def __init__(self, model):
        self.model = model

    def act(self, x, mask, rng, greedy=False):
        actions, _ = self.model.predict(x, action_masks=mask, deterministic=greedy)
        return actions


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--timesteps", type=int, default=300_000)
    ap.add_argument("--envs", type=int, default=64)
    ap.add_argument("--steps", type=int, default=128, help="rollout steps per env and update")
    ap.add_argument("--eval", type=int, default=10_000, help="rounds per evaluation")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", default="maskable_ppo",
                    help="the model (NAME.zip), written before the evaluation")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)  # one core: the figures in docs/env.md are per core
    venv = vec_env(args.envs, players=2, opponents="greedy", episode="round", seed=args.seed)
    model = MaskablePPO("MlpPolicy", venv, n_steps=args.steps, batch_size=512,
                        seed=args.seed, device="cpu", verbose=0)
    t0 = time.process_time()
    model.learn(total_timesteps=args.timesteps)
    cpu = time.process_time() - t0
    print(f"MaskablePPO: {model.num_timesteps:,} steps of the learning seat in {cpu:.0f} "
          f"CPU-s ({model.num_timesteps / cpu:,.0f} steps/s with the updates)")
    model.save(args.save)  # saved before the evaluation
    print(f"model: {args.save}.zip")
    compare("MaskablePPO", PPOAgent(model), args.eval)
    print(f"uno_sim {uno_sim.__version__}, torch {torch.__version__}, seed {args.seed}")


if __name__ == "__main__":
    main()
