"""PPO with action masking in CleanRL's single-file style, on gymnasium.make_vec("uno_sim/Uno-v0").

    pip install torch==2.13.0 && pip install -e '.[examples]'   # torch first: a CPU build
    python docs/examples/cleanrl_ppo.py --init net         # 300,000 steps from net's weights
    python docs/examples/cleanrl_ppo.py --init scratch     # the same from scratch

The whole learner is in this file, as CleanRL writes it (ppo.py: rollout buffer, GAE,
clipped surrogate, one loop), with one change for UNO: the action mask.  Illegal actions
get a logit of -1e8 before the softmax, so they are never sampled and take no gradient.
The games are stepped in C by uno_sim's vector env, made through Gymnasium's registry
with ``vectorization_mode="vector_entry_point"`` (one C call steps every game; its
autoreset is Gymnasium's same-step mode, so the observation after an ended episode is
already the next one's).

The network is the network player's (docs/net.md; `uno_sim.players.torchnet`): the
observation cut to the game's seats, hidden ReLU layers shared by a policy head and a
value head.  ``--init net`` starts from the weights uno_sim ships for two-player classic
(what ``uno-sim run --policy net`` plays), ``--init FILE`` from a ``.unonet`` file, and
``--init scratch`` from CleanRL's orthogonal initialisation of the same shape.  The
trained network is written as a ``.unonet`` (--save) before the evaluation: ``uno-sim
run --players 2 --policy "net(weights=FILE)"`` plays it, and ``--init FILE`` goes on from it.

The learning curve (--curve, CSV) is the share of the rounds ended in each iteration that
the learning seat won, its actions drawn from the policy; plot_curves.py draws it.  The
evaluation is the numpy example's (train_masked_pg.py), with the policy's most likely
legal action (how the network player plays the file): rounds won against greedy and
against random opponents, with a random legal action on the same rounds, 95%
Clopper-Pearson intervals.  Not run by the test suite (torch); tests/test_sb3.py checks
the loaded network against the network player's.
"""

from __future__ import annotations

import argparse
import csv
import time

import gymnasium
import numpy as np

import uno_sim  # noqa: F401 (registers uno_sim/Uno-v0)

try:
    import torch
    from torch import nn

    from uno_sim.players import netfile
    from uno_sim.players.net import for_rules, game_layout
    from uno_sim.players.torchnet import TorchNet
except ImportError as exc:
    raise SystemExit(f"this example needs torch (pip install torch==2.13.0 && pip install -e "
                     f"'.[examples]'): {exc}")

from train_masked_pg import compare  # noqa: E402 (the file next to this one)


def layer_init(lin, std=np.sqrt(2)):
    """CleanRL's initialisation: orthogonal weights of gain `std`, zero biases."""
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)


class Agent(nn.Module):
    """CleanRL's actor-critic on the network player's shape (`TorchNet`): one trunk, the
    actor's logits masked."""

    def __init__(self, net: TorchNet):
        super().__init__()
        self.net = net

    def forward(self, x, mask):
        """(the masked policy, the values) for observations x and masks."""
        logits, v = self.net(x)
        return torch.distributions.Categorical(logits=torch.where(mask, logits, -1e8)), v

    def act(self, x, mask, rng=None, greedy=False):
        """The numpy example's agent interface (evaluate())."""
        with torch.no_grad():
            pi, _ = self(torch.as_tensor(x), torch.as_tensor(mask))
            return (pi.logits.argmax(-1) if greedy else pi.sample()).numpy()


def make_net(init, rules, widths):
    """The network to start from: the shipped weights ("net"), a .unonet file, or CleanRL's
    initialisation of `widths` ("scratch")."""
    if init != "scratch":
        return TorchNet.from_net(for_rules("" if init == "net" else init, rules).net)
    net = TorchNet(game_layout(rules), widths)
    for lin in net.trunk.layers:
        layer_init(lin)
    layer_init(net.policy, std=0.01)
    layer_init(net.value, std=1.0)
    return net


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--init", default="net",
                    help="net (the shipped weights), scratch, or a .unonet file (default net)")
    ap.add_argument("--widths", default="256,128", help="hidden layers of --init scratch")
    ap.add_argument("--total-timesteps", type=int, default=300_000)
    ap.add_argument("--num-envs", type=int, default=64)
    ap.add_argument("--num-steps", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2.5e-4)
    ap.add_argument("--gamma", type=float, default=0.99)
    ap.add_argument("--gae-lambda", type=float, default=0.95)
    ap.add_argument("--minibatches", type=int, default=4)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--clip", type=float, default=0.2)
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--vf-coef", type=float, default=0.5)
    ap.add_argument("--eval", type=int, default=10_000, help="rounds per evaluation")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", default="cleanrl_ppo.unonet",
                    help="the trained network, written before the evaluation")
    ap.add_argument("--curve", default="cleanrl_ppo.csv", help="the learning curve ('': none)")
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # one core: the figures in docs/env.md are per core

    envs = gymnasium.make_vec("uno_sim/Uno-v0", num_envs=args.num_envs,
                              vectorization_mode="vector_entry_point", players=2,
                              opponents="greedy", episode="round")
    rules = envs.rules
    n_obs = envs.single_observation_space["observation"].shape[0]
    n_act = envs.single_action_space.n
    agent = Agent(make_net(args.init, rules, [int(w) for w in args.widths.split(",")]))
    opt = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)

    T, N = args.num_steps, args.num_envs
    obs_buf = torch.zeros((T, N, n_obs))
    mask_buf = torch.zeros((T, N, n_act), dtype=torch.bool)
    act_buf = torch.zeros((T, N), dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((T, N)) for _ in range(4))

    obs, _ = envs.reset(seed=args.seed)
    x = torch.as_tensor(obs["observation"])
    m = torch.as_tensor(obs["action_mask"].astype(bool))
    done = torch.zeros(N)
    iterations = args.total_timesteps // (T * N)
    batch = T * N
    mb = batch // args.minibatches
    curve = []
    t0 = time.process_time()
    for it in range(iterations):
        for g in opt.param_groups:  # CleanRL's learning-rate annealing
            g["lr"] = args.lr * (1.0 - it / iterations)
        won = ended = 0
        for t in range(T):
            obs_buf[t], mask_buf[t], done_buf[t] = x, m, done
            with torch.no_grad():
                pi, v = agent(x, m)
                a = pi.sample()
                logp_buf[t], val_buf[t] = pi.log_prob(a), v
            act_buf[t] = a
            obs, r, term, trunc, _ = envs.step(a.numpy())
            rew_buf[t] = torch.as_tensor(r)
            x = torch.as_tensor(obs["observation"])
            m = torch.as_tensor(obs["action_mask"].astype(bool))
            ends = term | trunc
            done = torch.as_tensor(ends.astype(np.float32))
            won += int((r[ends] > 0).sum())
            ended += int(ends.sum())
        curve.append((it + 1, (it + 1) * batch, won / max(ended, 1)))
        with torch.no_grad():  # generalized advantage estimation
            next_v = agent(x, m)[1]
            adv = torch.zeros((T, N))
            gae = torch.zeros(N)
            for t in reversed(range(T)):
                nonterminal = 1.0 - (done if t == T - 1 else done_buf[t + 1])
                v_next = next_v if t == T - 1 else val_buf[t + 1]
                delta = rew_buf[t] + args.gamma * v_next * nonterminal - val_buf[t]
                gae = delta + args.gamma * args.gae_lambda * nonterminal * gae
                adv[t] = gae
            ret = adv + val_buf
        b_obs, b_mask = obs_buf.reshape(batch, n_obs), mask_buf.reshape(batch, n_act)
        b_act, b_logp = act_buf.reshape(batch), logp_buf.reshape(batch)
        b_adv, b_ret = adv.reshape(batch), ret.reshape(batch)
        order = np.arange(batch)
        rng = np.random.default_rng(args.seed + it)
        for _ in range(args.epochs):
            rng.shuffle(order)
            for s in range(0, batch, mb):
                i = torch.as_tensor(order[s:s + mb])
                pi, v = agent(b_obs[i], b_mask[i])
                ratio = (pi.log_prob(b_act[i]) - b_logp[i]).exp()
                a_i = (b_adv[i] - b_adv[i].mean()) / (b_adv[i].std() + 1e-8)
                pg = torch.max(-a_i * ratio,
                               -a_i * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                v_loss = 0.5 * ((v - b_ret[i]) ** 2).mean()
                loss = pg - args.ent_coef * pi.entropy().mean() + args.vf_coef * v_loss
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                opt.step()
    cpu = time.process_time() - t0
    steps = iterations * batch
    print(f"PPO (CleanRL style, --init {args.init}): {steps:,} steps of the learning seat in "
          f"{cpu:.0f} CPU-s ({steps / max(cpu, 1e-9):,.0f} steps/s with the updates)")
    meta = {"variant": "classic", "players": 2, "example": "docs/examples/cleanrl_ppo.py",
            "init": args.init, "steps": steps, "seed": args.seed}
    netfile.write(args.save, agent.net.to_net(meta))  # saved before the evaluation
    print(f"network: {args.save}")
    if args.curve:
        with open(args.curve, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["iteration", "steps", "share_won"])
            w.writerows(curve)
        print(f"learning curve: {args.curve}")
    compare("PPO", agent, args.eval, greedy=True)
    print(f"uno_sim {uno_sim.__version__}, torch {torch.__version__}, seed {args.seed}")


if __name__ == "__main__":
    main()
