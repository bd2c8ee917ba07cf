"""Train a masked policy-gradient agent on the vector environment, in numpy.

    pip install -e '.[examples]'                            # gymnasium, SciPy, Matplotlib
    python docs/examples/train_masked_pg.py                 # about a minute on one core
    python docs/examples/train_masked_pg.py --iterations 20 --eval 2000   # a quick look

The agent is advantage actor-critic (A2C) with a linear softmax policy and a linear
value baseline, written out in numpy: no deep-learning framework to install (torch
from PyPI brings gigabytes of CUDA libraries), and every line of the learning rule is
in view.  The action mask enters where it must: illegal actions get logit -inf, so
they are never sampled and their probability (and gradient) is zero.

It learns on `uno_sim.vector_env(..., episode="round")`: one episode is one round of
classic UNO against a greedy opponent, reward +1 for a round won, -1 lost.  The
evaluation plays the same rounds (the same seeds: common random numbers) with the
trained policy and with a uniformly random legal action, and reports each one's
share of rounds won against greedy with a 95% interval (Clopper-Pearson).  The
trained weights are saved (--save, an .npz of W, b, u, c) before the evaluation, and the
learning curve goes to docs/examples/train_masked_pg.png.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import uno_sim

try:  # the evaluation's intervals: checked here rather than after the training
    from scipy.stats import binomtest
except ImportError as exc:
    raise SystemExit(f"this example needs SciPy (pip install -e '.[examples]'): {exc}")


class Adam:
    """Adam on a list of numpy arrays (updated in place)."""

    def __init__(self, params, lr=0.01, b1=0.9, b2=0.999, eps=1e-8):
        self.params, self.lr, self.b1, self.b2, self.eps = params, lr, b1, b2, eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, grads):
        self.t += 1
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * g * g
            mh = m / (1 - self.b1 ** self.t)
            vh = v / (1 - self.b2 ** self.t)
            p -= self.lr * mh / (np.sqrt(vh) + self.eps)  # gradient descent on the loss


class LinearAgent:
    """Softmax policy logits = x W + b over the legal actions; value V(x) = x u + c."""

    def __init__(self, obs_size, n_actions):
        self.W = np.zeros((obs_size, n_actions), np.float32)
        self.b = np.zeros(n_actions, np.float32)
        self.u = np.zeros(obs_size, np.float32)
        self.c = np.zeros(1, np.float32)

    def probs(self, x, mask):
        z = x @ self.W + self.b
        z = np.where(mask, z, -np.inf)  # the mask: illegal actions get probability 0
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=1, keepdims=True)

    def act(self, x, mask, rng, greedy=False):
        p = self.probs(x, mask)
        if greedy:
            return p.argmax(1)
        u = rng.random(len(p))[:, None]  # inverse-CDF sampling, one draw per row
        return np.minimum((p.cumsum(1) < u).sum(1), p.shape[1] - 1)

    def value(self, x):
        return x @ self.u + self.c[0]


def train(iterations=150, num_envs=256, steps=32, seed=0, players=2, opponents="greedy",
          lr=0.01, gamma=0.99, entropy=0.01, progress=False):
    """A2C on round episodes; returns the agent and the curve (iteration, share of the
    episodes that ended in it that the agent won)."""
    env = uno_sim.vector_env(num_envs, players=players, opponents=opponents, episode="round")
    obs, _ = env.reset(seed=seed)
    d, n_a = env.single_observation_space["observation"].shape[0], env.single_action_space.n
    agent = LinearAgent(d, n_a)
    opt = Adam([agent.W, agent.b, agent.u, agent.c], lr=lr)
    rng = np.random.default_rng(seed)
    curve = []
    it = range(iterations)
    if progress:
        from tqdm import tqdm

        it = tqdm(it, desc="training")
    for i in it:
        X = np.empty((steps, num_envs, d), np.float32)
        M = np.empty((steps, num_envs, n_a), bool)
        A = np.empty((steps, num_envs), np.int64)
        R = np.empty((steps, num_envs), np.float32)
        D = np.empty((steps, num_envs), bool)
        for t in range(steps):
            X[t], M[t] = obs["observation"], obs["action_mask"].astype(bool)
            A[t] = agent.act(X[t], M[t], rng)
            obs, R[t], term, trunc, _ = env.step(A[t])
            D[t] = term | trunc
        done_r = R[D]
        curve.append((i, float((done_r > 0).mean()) if len(done_r) else np.nan))
        # returns, bootstrapped from the value of the state the rollout stopped in
        G = np.empty_like(R)
        g = agent.value(obs["observation"])
        for t in range(steps - 1, -1, -1):
            g = R[t] + gamma * np.where(D[t], 0.0, g)
            G[t] = g
        x, m, a, G = X.reshape(-1, d), M.reshape(-1, n_a), A.reshape(-1), G.reshape(-1)
        v = agent.value(x)
        adv = G - v
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        p = agent.probs(x, m)
        # d(-log pi(a|x) * adv)/d logits = (p - onehot(a)) * adv; entropy bonus on top
        dz = p.copy()
        dz[np.arange(len(a)), a] -= 1.0
        dz *= adv[:, None]
        logp = np.log(np.where(m, p, 1.0))
        ent = -(p * logp).sum(1, keepdims=True)
        dz += entropy * p * (logp + ent)  # d(-entropy)/d logits
        dz = np.where(m, dz, 0.0).astype(np.float32)
        n = len(a)
        dv = ((v - G) / n).astype(np.float32)  # the value's squared error, halved
        opt.step([x.T @ dz / n, dz.sum(0) / n, x.T @ dv, np.array([dv.sum()], np.float32)])
    env.close()
    return agent, curve


def evaluate(agent, rounds=4000, num_envs=200, seed=10_000, players=2, opponents="greedy",
             greedy=False):
    """Rounds won against `opponents` in the first `rounds` round episodes: (won, played).
    agent None: a uniformly random legal action; `greedy`: the agent's most likely legal
    action rather than one drawn from its policy.  The same seed gives both agents the
    same games to start from (common random numbers)."""
    env = uno_sim.vector_env(num_envs, players=players, opponents=opponents, episode="round")
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    won = played = 0
    while played < rounds:
        mask = obs["action_mask"].astype(bool)
        if agent is None:
            a = (rng.random(mask.shape, dtype=np.float32) + mask).argmax(1)
        else:
            a = agent.act(obs["observation"], mask, rng, greedy=greedy)
        obs, r, term, trunc, _ = env.step(a)
        ended = term | trunc
        won += int((r[ended] > 0).sum())
        played += int(ended.sum())
    env.close()
    return won, played


def interval(won, played):
    """The share won with its 95% Clopper-Pearson interval."""
    ci = binomtest(won, played).proportion_ci(0.95)
    return won / played, ci.low, ci.high


def compare(name, agent, rounds, opponents=("greedy", "random"), greedy=False):
    """Print the share of rounds won by a random legal action and by `agent` (called
    `name`; `greedy`: its most likely legal action) against each of `opponents`, on the
    same rounds, with 95% intervals."""
    for opp in opponents:
        for who, a in (("random legal action", None), (name, agent)):
            won, played = evaluate(a, rounds, opponents=opp, greedy=greedy)
            share, lo, hi = interval(won, played)
            print(f"{who}: {share:.3f} of {played} rounds won against {opp} "
                  f"(95% CI {lo:.3f}-{hi:.3f})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=150)
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--steps", type=int, default=32, help="rollout steps per iteration")
    ap.add_argument("--eval", type=int, default=10_000, help="rounds per evaluation")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--plot", default=str(Path(__file__).with_suffix(".png")))
    ap.add_argument("--save", default="train_masked_pg.npz",
                    help="the trained weights, written before the evaluation ('' : not saved)")
    args = ap.parse_args(argv)
    agent, curve = train(args.iterations, args.envs, args.steps, args.seed, progress=True)
    if args.save:
        np.savez(args.save, W=agent.W, b=agent.b, u=agent.u, c=agent.c)
        print(f"weights: {args.save}")
    rows = [("random legal action", evaluate(None, args.eval)),
            ("trained A2C (linear)", evaluate(agent, args.eval))]
    for name, (won, played) in rows:
        share, lo, hi = interval(won, played)
        print(f"{name}: {share:.3f} of {played} rounds won against greedy "
              f"(95% CI {lo:.3f}-{hi:.3f})")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        it = np.array([c[0] for c in curve])
        share = np.array([c[1] for c in curve])
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.plot(it, share, lw=0.8, color="C0", alpha=0.5, label="per iteration")
        k = min(10, len(share))
        ax.plot(it[k - 1:], np.convolve(share, np.ones(k) / k, "valid"), color="C0",
                label=f"mean of {k}")
        s0, lo, hi = interval(*rows[0][1])
        ax.axhspan(lo, hi, color="C3", alpha=0.3, label=f"random legal action ({s0:.2f})")
        ax.set_xlabel(f"iteration ({args.envs} envs x {args.steps} steps)")
        ax.set_ylabel("share of rounds won vs greedy")
        ax.set_title("A2C, linear masked policy, classic UNO, 2 players")
        ax.legend(loc="lower right", fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print(f"learning curve: {args.plot}")


if __name__ == "__main__":
    main()
