"""Self-play: proximal policy optimisation in the C vector environment (docs/training.md).

The learning seat plays `recipe.envs` games at once against the pool's policies (one
`UnoVectorEnv` per opponent spec and seat), one batched forward of the network per step;
an iteration is `recipe.steps` decisions of every game, then `recipe.epochs` passes of
minibatch Adam steps on PPO's clipped objective (Schulman et al. 2017) with an entropy
bonus.

Rewards.  A game's outcome alone (+1 / -1 after a few hundred decisions) is a weak signal
for a policy that rarely wins; each round's outcome is a dense one.  The policy learns
from the return `round_reward x (rounds won - rounds lost) + game_reward x (+1 won, -1
lost)` over the rest of the game, read from the scores in the observations (the round's
winner is the seat whose score went up: standard scoring), through an auxiliary linear
head that predicts it (GAE(lambda), gamma 1).  The value head, the one the weight file
keeps, learns P(win the game) from the game's outcome alone: its target is the
lambda-return of that outcome (TD(lambda) with the value's own P(win) at the states
between), under the logistic loss.

A game the engine's safety limits stop (a network can stall one: docs/engine.md) ends
truncated: reward 0, no bootstrap, a new game in its place; the iteration counts it
(`games_cut`).

Every random draw of iteration k comes from SeedSequence([seed, STAGE_SELFPLAY, k, ...]);
the games restart from new runs every `recipe.segment` iterations (`Pool.reset`).
"""

from __future__ import annotations

import numpy as np

from .model import input_columns, masked_log_softmax, sample_actions, sigmoid

STAGE_SELFPLAY = 2


def run_seed(*words) -> int:
    """A 62-bit seed of the engine's runs, drawn from SeedSequence(words)."""
    a, b = np.random.SeedSequence(list(words)).generate_state(2, dtype=np.uint32)
    return (int(a) << 30) ^ int(b)


class Pool:
    """The learning seat's games: for each opponent spec (the recipe's, then `members`,
    the network's snapshots) and seat, a vector env of its share of the `envs` games (the
    seats taken in turn, so every seat is learned)."""

    def __init__(self, recipe, members=()):
        from ..vecenv import SEATS, UnoVectorEnv

        rules = recipe.rules()
        self.members = list(members)
        groups = [(spec, seat) for spec in list(recipe.opponents) + self.members
                  for seat in range(rules.players)]
        sizes = [recipe.envs // len(groups) + (i < recipe.envs % len(groups))
                 for i in range(len(groups))]
        self.fresh = True  # no game started yet
        self.envs = [UnoVectorEnv(n, rules=rules, opponents=spec, seat=seat, copy=False)
                     for (spec, seat), n in zip(groups, sizes) if n]
        self.sizes = [n for n in sizes if n]
        self.n = sum(self.sizes)
        layout = self.envs[0].observation_layout
        self.cols = input_columns(layout, SEATS, rules.players)
        self.n_actions = len(self.envs[0].card_codes) + 7 + rules.players
        off = next(o for name, o, _ in layout if name == "scores")
        self.score_cols = np.arange(off, off + rules.players)  # relative seat 0 first

    def reset(self, seed: int, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Every env at the start of a new run for iteration k."""
        self.last = [env.reset(seed=run_seed(seed, STAGE_SELFPLAY, k, g))[0]
                     for g, env in enumerate(self.envs)]
        self.fresh = False
        return self.observe()

    def observe(self):
        """(the network's inputs, the masks) of every game's pending decision."""
        return (np.concatenate([o["observation"][:, self.cols] for o in self.last]),
                np.concatenate([o["action_mask"][:, :self.n_actions]
                                for o in self.last]).astype(bool))

    def step(self, actions: np.ndarray):
        """Steps every env; returns (inputs, masks, game rewards, dones, round results,
        cuts): a round result is +1 where a round the learning seat won ended in the step,
        -1 where another seat won one, else 0; a cut is a game the engine's safety limits
        stopped (truncated, not terminated: no winner, reward 0)."""
        rewards, dones, rounds, cuts = [], [], [], []
        at = 0
        for g, (env, n) in enumerate(zip(self.envs, self.sizes)):
            before = self.last[g]["observation"][:, self.score_cols].copy()
            self.last[g], r, term, trunc, info = env.step(actions[at:at + n].astype(np.int32))
            done = term | trunc
            after = self.last[g]["observation"][:, self.score_cols]
            if done.any():  # the scores at the ended game's last round
                after = np.where(done[:, None],
                                 info["final_obs"]["observation"][:, self.score_cols], after)
            up = after > before
            rounds.append(np.where(up[:, 0], 1.0, np.where(up[:, 1:].any(axis=1), -1.0, 0.0)))
            rewards.append(r.copy())
            dones.append(done)
            cuts.append(trunc & ~term)
            at += n
        obs, mask = self.observe()
        return (obs, mask, np.concatenate(rewards), np.concatenate(dones),
                np.concatenate(rounds), np.concatenate(cuts))

    def close(self):
        """Closes every env."""
        for e in self.envs:
            e.close()


def rollout(state, pool: Pool, k: int):
    """`steps` decisions of the learning seat in each game, from where the games stand (new
    runs at the start of a segment): the arrays (T, N, ...) of inputs, masks, actions,
    log-probabilities, values (T, N, 2: the value head's and the return head's), game
    rewards, dones, round results, cuts (`Pool.step`), and the values of the states the
    games stopped in."""
    r = state.recipe
    rng = np.random.default_rng(np.random.SeedSequence([r.seed, STAGE_SELFPLAY, k, 1]))
    T, N = r.steps, pool.n
    obs, mask = pool.reset(r.seed, k) if k % r.segment == 0 or pool.fresh else pool.observe()
    X = np.empty((T, N, obs.shape[1]), np.float32)
    M = np.empty((T, N, mask.shape[1]), bool)
    A = np.empty((T, N), np.int64)
    LP = np.empty((T, N), np.float32)
    V = np.empty((T, N, 2), np.float32)
    R = np.empty((T, N), np.float32)
    D = np.empty((T, N), bool)
    RR = np.empty((T, N), np.float32)
    C = np.empty((T, N), bool)
    for t in range(T):
        X[t], M[t] = obs, mask
        logits, V[t] = state.net.forward(obs)
        logp = masked_log_softmax(logits, mask)
        a = sample_actions(logp, rng)
        A[t], LP[t] = a, logp[np.arange(N), a]
        obs, mask, R[t], D[t], RR[t], C[t] = pool.step(a)
    return X, M, A, LP, V, R, D, RR, C, state.net.forward(obs)[1]


def gae(values, rewards, dones, last, lam):
    """GAE(lambda) with gamma 1: (advantages, lambda-returns), both (T, N), for the
    expected returns `values` (T, N), the rewards and dones (T, N) and the expected return
    of the states the games stopped in (N,)."""
    adv = np.zeros(values.shape, np.float64)
    g = np.zeros(values.shape[1], np.float64)
    nxt = last.astype(np.float64)
    for t in range(values.shape[0] - 1, -1, -1):
        live = ~dones[t]
        delta = rewards[t] + np.where(live, nxt, 0.0) - values[t]
        g = delta + lam * np.where(live, g, 0.0)
        adv[t] = g
        nxt = values[t]
    return adv, adv + values


def ppo_update(state, batch, k: int) -> dict:
    """`epochs` passes of minibatch Adam steps on PPO's clipped objective, the entropy
    bonus, the value head's logistic loss on `win` (the lambda-return of the game's outcome
    as P(win)) and the return head's squared error on `ret`; returns the mean losses."""
    r = state.recipe
    X, M, A, LP, adv, ret, win = batch
    n = len(A)
    rng = np.random.default_rng(np.random.SeedSequence([r.seed, STAGE_SELFPLAY, k, 2]))
    frac = k / max(1, r.iterations)
    lr = r.lr + (r.lr_end - r.lr) * frac
    target = win.clip(0.0, 1.0)
    sums = np.zeros(5)
    count = 0
    for _ in range(r.epochs):
        order = rng.permutation(n)
        for s in range(0, n, r.minibatch):
            i = order[s:s + r.minibatch]
            x, m, a = X[i], M[i], A[i]
            ad = adv[i]
            ad = (ad - ad.mean()) / (ad.std() + 1e-8)
            logits, v, hs = state.net.forward(x, keep=True)
            logp = masked_log_softmax(logits, m)
            p = np.exp(logp)
            rows = np.arange(len(i))
            ratio = np.exp(logp[rows, a].astype(np.float64) - LP[i])
            clipped = (ad > 0) & (ratio > 1 + r.clip) | (ad < 0) & (ratio < 1 - r.clip)
            # d(-min(ratio ad, clip(ratio) ad))/d logits: -ad ratio (onehot(a) - p) where
            # the unclipped term is the smaller one, 0 where the clip holds it
            coef = np.where(clipped, 0.0, -ad * ratio) / len(i)
            dz = -p * coef[:, None]
            dz[rows, a] += coef
            plogp = p * np.where(m, logp, 0.0)
            ent = -plogp.sum(1)
            dz += (r.entropy / len(i)) * np.where(m, plogp + p * ent[:, None], 0.0)
            sv = sigmoid(v[:, 0].astype(np.float64))
            dv = np.stack([r.value_coef * (sv - target[i]),
                           r.return_coef * (v[:, 1] - ret[i])], axis=1) / len(i)
            grads = state.net.backward(hs, dz, dv)
            state.opt.step(grads, lr=lr, clip=r.grad_clip)
            pg = -np.minimum(ratio * ad, np.clip(ratio, 1 - r.clip, 1 + r.clip) * ad).mean()
            eps = 1e-7
            vl = -(target[i] * np.log(sv + eps) + (1 - target[i]) * np.log(1 - sv + eps)).mean()
            rl = 0.5 * ((v[:, 1] - ret[i]) ** 2).mean()
            sums += (pg, vl, rl, ent.mean(), clipped.mean())
            count += 1
    pg, vl, rl, ent, cf = (float(x) for x in sums / max(1, count))
    return {"policy_loss": pg, "value_loss": vl, "return_loss": rl, "entropy": ent,
            "clipped": cf}


def selfplay_iteration(state, pool: Pool) -> dict:
    """One PPO iteration: a rollout, then the update; the state moves to iteration k + 1."""
    r, k = state.recipe, state.iteration
    X, M, A, LP, V, R, D, RR, C, last = rollout(state, pool, k)
    V = V.astype(np.float64)
    adv, ret = gae(V[..., 1], r.round_reward * RR + r.game_reward * R, D, last[:, 1], r.lam)
    p = sigmoid(V[..., 0])
    _, win = gae(p, np.where(D, (R + 1.0) / 2.0, 0.0), D, sigmoid(last[:, 0]), r.lam)
    T, N = A.shape
    batch = (X.reshape(T * N, -1), M.reshape(T * N, -1), A.reshape(-1),
             LP.reshape(-1).astype(np.float64), adv.reshape(-1), ret.reshape(-1),
             win.reshape(-1))
    out = ppo_update(state, batch, k)
    ended, rounds = int(D.sum()), int((RR != 0).sum())
    out.update({"iteration": k, "games_ended": ended, "games_cut": int(C.sum()),
                "games_won": float((R > 0).sum() / ended) if ended else float("nan"),
                "rounds_ended": rounds,
                "rounds_won": float((RR > 0).sum() / rounds) if rounds else float("nan")})
    state.iteration += 1
    state.steps += T * N
    return out
