"""Train sb3-contrib's MaskablePPO on the C vector environment (round episodes, classic, 2 players).

    pip install torch==2.13.0 && pip install -e '.[sb3,examples]'   # torch first: a CPU build
    python docs/examples/train_maskable_ppo.py --init net       # 300,000 steps from net's weights
    python docs/examples/train_maskable_ppo.py --init scratch   # the same from scratch

The games are stepped by `uno_sim.sb3.vec_env`, Stable-Baselines3's VecEnv interface
over `uno_sim.vector_env`: one C call steps all the games, and MaskablePPO reads their
action masks from C through ``env_method("action_masks")``.  The policy is the network
player's (`uno_sim.sb3.maskable_ppo`: the observation cut to the game's seats, hidden ReLU
layers shared by the policy and value heads), SB3's PPO settings otherwise.  ``--init
net`` starts from the weights uno_sim ships for two-player classic (what ``uno-sim run
--policy net`` plays), ``--init FILE`` from a ``.unonet`` file, ``--init scratch`` from
SB3's initialisation of the same shape.  Before the evaluation the model is saved
(--save: SB3's zip, which ``MaskablePPO.load`` reads, and the network as a ``.unonet``
beside it, which ``net(weights=FILE)`` plays).

The learning curve (--curve, CSV) is the share of the rounds ended in each rollout that
the learning seat won, its actions drawn from the policy; plot_curves.py draws it.  The
evaluation is the numpy example's (train_masked_pg.py), with the policy's most likely
legal action (how the network player plays the file): the share of rounds won in the
same round episodes (the same seeds: common random numbers) by a uniformly random legal
action and by the trained policy, against greedy and against random opponents, with 95%
Clopper-Pearson intervals.  Not run by the test suite (torch is not among uno_sim's test
dependencies); tests/test_sb3.py trains a few rollouts where sb3-contrib is installed.
"""

from __future__ import annotations

import argparse
import csv
import time

import uno_sim

try:
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    from uno_sim.sb3 import export_net, maskable_ppo, vec_env
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


class Curve(BaseCallback):
    """Per rollout: (rollout, steps so far, share of the ended rounds the seat won)."""

    def __init__(self):
        super().__init__()
        self.rows, self.won, self.ended = [], 0, 0

    def _on_step(self) -> bool:
        ends, r = self.locals["dones"], self.locals["rewards"]
        self.won += int((r[ends] > 0).sum())
        self.ended += int(ends.sum())
        return True

    def _on_rollout_end(self) -> None:
        self.rows.append((len(self.rows) + 1, self.num_timesteps, self.won / max(self.ended, 1)))
        self.won = self.ended = 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--init", default="net",
                    help="net (the shipped weights), scratch, or a .unonet file (default net)")
    ap.add_argument("--widths", default="256,128", help="hidden layers of --init scratch")
    ap.add_argument("--timesteps", type=int, default=300_000)
    ap.add_argument("--envs", type=int, default=64)
    ap.add_argument("--steps", type=int, default=128, help="rollout steps per env and update")
    ap.add_argument("--eval", type=int, default=10_000, help="rounds per evaluation")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", default="maskable_ppo",
                    help="the model (NAME.zip) and its network (NAME.unonet), written before "
                         "the evaluation")
    ap.add_argument("--curve", default="maskable_ppo.csv", help="the learning curve ('': none)")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)  # one core: the figures in docs/env.md are per core
    venv = vec_env(args.envs, players=2, opponents="greedy", episode="round", seed=args.seed)
    model = maskable_ppo(venv, init=args.init, widths=[int(w) for w in args.widths.split(",")],
                         n_steps=args.steps, batch_size=512, seed=args.seed, device="cpu",
                         verbose=0)
    curve = Curve()
    t0 = time.process_time()
    model.learn(total_timesteps=args.timesteps, callback=curve)
    cpu = time.process_time() - t0
    print(f"MaskablePPO (--init {args.init}): {model.num_timesteps:,} steps of the learning "
          f"seat in {cpu:.0f} CPU-s ({model.num_timesteps / cpu:,.0f} steps/s with the updates)")
    model.save(args.save)  # saved before the evaluation
    export_net(model, f"{args.save}.unonet",
               {"variant": "classic", "players": 2, "init": args.init, "seed": args.seed,
                "example": "docs/examples/train_maskable_ppo.py", "steps": model.num_timesteps})
    print(f"model: {args.save}.zip, network: {args.save}.unonet")
    if args.curve:
        with open(args.curve, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["iteration", "steps", "share_won"])
            w.writerows(curve.rows)
        print(f"learning curve: {args.curve}")
    compare("MaskablePPO", PPOAgent(model), args.eval, greedy=True)
    print(f"uno_sim {uno_sim.__version__}, torch {torch.__version__}, seed {args.seed}")


if __name__ == "__main__":
    main()
