"""Self-play: proximal policy optimisation in the C vector environment (docs/training.md).

The learning seat plays `recipe.envs` games at once against the pool's policies (one
`UnoVectorEnv` per opponent spec and seat), one batched forward of the network per step;
an iteration is `recipe.steps` decisions of every game, then `recipe.epochs` passes of
minibatch Adam steps on PPO's clipped objective (Schulman et al. 2017) with an entropy
bonus, and the value head's logistic loss on the lambda-returns read as P(win).
Advantages are GAE(lambda) with gamma 1: the reward is the episode's outcome (+1 / -1).

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
    """The learning seat's games: for each opponent spec and seat, a vector env of its share
    of the `envs` games (the seats taken in turn, so every seat is learned); `episode`:
    "game" (reward +1 / -1 at the game's end) or "round" (+1 / -1 / 0 at each round's)."""

    def __init__(self, recipe, episode: str = "game"):
        from ..vecenv import SEATS, UnoVectorEnv

        rules = recipe.rules()
        groups = [(spec, seat) for spec in recipe.opponents for seat in range(rules.players)]
        sizes = [recipe.envs // len(groups) + (i < recipe.envs % len(groups))
                 for i in range(len(groups))]
        self.episode = episode
        self.fresh = True  # no game started yet
        self.envs = [UnoVectorEnv(n, rules=rules, opponents=spec, seat=seat, episode=episode,
                                  copy=False)
                     for (spec, seat), n in zip(groups, sizes) if n]
        self.sizes = [n for n in sizes if n]
        self.n = sum(self.sizes)
        self.cols = input_columns(self.envs[0].observation_layout, SEATS, rules.players)
        self.n_actions = len(self.envs[0].card_codes) + 7 + rules.players

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
        """Steps every env; returns (inputs, masks, rewards, dones)."""
        rewards, dones = [], []
        at = 0
        for g, (env, n) in enumerate(zip(self.envs, self.sizes)):
            self.last[g], r, term, trunc, _ = env.step(actions[at:at + n].astype(np.int32))
            rewards.append(r.copy())
            dones.append(term | trunc)
            at += n
        obs, mask = self.observe()
        return obs, mask, np.concatenate(rewards), np.concatenate(dones)

    def close(self):
        """Closes every env."""
        for e in self.envs:
            e.close()


def rollout(state, pool: Pool, k: int):
    """`steps` decisions of the learning seat in each game, from where the games stand (new
    runs at the start of a segment): the arrays (T, N, ...) of observations, masks, actions,
    log-probabilities, values, rewards, dones, and the value of the state each game stopped
    in."""
    r = state.recipe
    rng = np.random.default_rng(np.random.SeedSequence([r.seed, STAGE_SELFPLAY, k, 1]))
    T, N = r.steps, pool.n
    obs, mask = pool.reset(r.seed, k) if k % r.segment == 0 or pool.fresh else pool.observe()
    X = np.empty((T, N, obs.shape[1]), np.float32)
    M = np.empty((T, N, mask.shape[1]), bool)
    A = np.empty((T, N), np.int64)
    LP = np.empty((T, N), np.float32)
    V = np.empty((T, N), np.float32)
    R = np.empty((T, N), np.float32)
    D = np.empty((T, N), bool)
    for t in range(T):
        X[t], M[t] = obs, mask
        logits, v = state.net.forward(obs)
        logp = masked_log_softmax(logits, mask)
        a = sample_actions(logp, rng)
        A[t], LP[t], V[t] = a, logp[np.arange(N), a], v
        obs, mask, R[t], D[t] = pool.step(a)
    last_v = state.net.forward(obs)[1]
    return X, M, A, LP, V, R, D, last_v


def advantages(V, R, D, last_v, lam):
    """GAE(lambda) with gamma 1 on the game's outcome, the values as expected rewards
    2 P(win) - 1; returns (advantages, lambda-returns), both (T, N)."""
    ev = 2.0 * sigmoid(V.astype(np.float64)) - 1.0
    nxt = 2.0 * sigmoid(last_v.astype(np.float64)) - 1.0
    adv = np.zeros(V.shape, np.float64)
    g = np.zeros(V.shape[1], np.float64)
    for t in range(V.shape[0] - 1, -1, -1):
        live = ~D[t]
        delta = R[t] + np.where(live, nxt, 0.0) - ev[t]
        g = delta + lam * np.where(live, g, 0.0)
        adv[t] = g
        nxt = ev[t]
    return adv, adv + ev


def ppo_update(state, batch, k: int) -> dict:
    """`epochs` passes of minibatch Adam steps on PPO's clipped objective, the entropy
    bonus and the value's logistic loss; returns the mean losses."""
    r = state.recipe
    X, M, A, LP, adv, ret = batch
    n = len(A)
    rng = np.random.default_rng(np.random.SeedSequence([r.seed, STAGE_SELFPLAY, k, 2]))
    frac = k / max(1, r.iterations)
    lr = r.lr + (r.lr_end - r.lr) * frac
    target = ((ret + 1.0) / 2.0).clip(0.0, 1.0)  # the lambda-return as P(win)
    sums = np.zeros(4)
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
            sv = sigmoid(v.astype(np.float64))
            dv = r.value_coef * (sv - target[i]) / len(i)
            grads = state.net.backward(hs, dz, dv)
            state.opt.step(grads, lr=lr, clip=r.grad_clip)
            pg = -np.minimum(ratio * ad, np.clip(ratio, 1 - r.clip, 1 + r.clip) * ad).mean()
            eps = 1e-7
            vl = -(target[i] * np.log(sv + eps) + (1 - target[i]) * np.log(1 - sv + eps)).mean()
            sums += (pg, vl, ent.mean(), clipped.mean())
            count += 1
    pg, vl, ent, cf = sums / max(1, count)
    return {"policy_loss": pg, "value_loss": vl, "entropy": ent, "clipped": cf}


def selfplay_iteration(state, pool: Pool) -> dict:
    """One PPO iteration: a rollout, then the update; the state moves to iteration k + 1."""
    k = state.iteration
    X, M, A, LP, V, R, D, last_v = rollout(state, pool, k)
    adv, ret = advantages(V, R, D, last_v, state.recipe.lam)
    T, N = A.shape
    batch = (X.reshape(T * N, -1), M.reshape(T * N, -1), A.reshape(-1),
             LP.reshape(-1).astype(np.float64), adv.reshape(-1), ret.reshape(-1))
    out = ppo_update(state, batch, k)
    ended = D.sum()
    out.update({"iteration": k, "episode": pool.episode, "episodes_ended": int(ended),
                "reward_per_episode": float(R.sum() / ended) if ended else float("nan")})
    state.iteration += 1
    state.steps += T * N
    return out
