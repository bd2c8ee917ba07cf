"""Variance reduction for counterfactual values: the luck of the later rounds' deals as a
control variate, in the spirit of AIVAT (Burch, Schmid, Moravcik, Morrill and Bowling,
"AIVAT: A New Variance Reduction Technique for Agent Evaluation in Imperfect Information
Games", AAAI 2018).

What it reduces.  A decision point's value is W_1 - W_0, the seat's game-win share with
the point answered 1 and 0 (`uno_sim.counterfactual`, common random numbers).  Most of its
variance is not the decision's: the decision changes the scores at the end of its round,
and the rounds after it decide, by their own luck, whether that change turns the game.
Each later round j begins with a deal: a chance event whose distribution is known (a
uniform shuffle and the round's own decision streams, drawn from the round's own seed,
independent of everything before it: docs/engine.md).  AIVAT subtracts, at each chance
event, a value estimate of what it dealt less that estimate's expectation over what it
could have dealt; each such term has expectation 0 whatever the estimate, so the sum
can be taken from the outcome without bias, and the better the estimate the more luck
it removes.

The estimate.  V(s, r) = Phi(g(s) + r): s the scores before the round (the focal seat's
own and the best other seat's, each cut down to a multiple of `STEP` by g), r what the
round scored, Phi the chance that the focal seat wins the game from those scores (1 or 0
when a target is reached; else a table `T` by score cells and dealer, solved by dynamic
programming over the rounds of simulated games, "pool A": `_table`).  The expectation of V over the
deal, F(g(s), dealer), is the mean of Phi(g(s) + r) over the rounds of other simulated
games ("pool B", per dealer position): an independent sample of the round's
distribution, so E[F] is the exact expectation and each term has mean 0 exactly.

Which round's result r is.
* ``own`` (every seat blind to the scores: the built-in policies, whose decisions never
  read them): the round played is itself a function of its deal and streams, so r is the
  round's actual result, pool B is rounds of the same policies at the same seats, and
  the coefficient is 1: y_a = W_a - sum_j [V(s_j, r_j) - F(s_j, d_j)].  With a perfect
  estimate this removes every later round's luck and leaves the decision round's.
* ``proxy`` (a seat that reads the scores, e.g. a search player valuing rollouts by the
  game-win table, or one whose rounds are too dear to pool): r is the result of round j
  played by `PROXY` (greedy at every seat) on the same deal (the same seed and game
  number: the deals of a round depend on them only), pool B is rounds of that proxy, and
  the coefficient beta is fitted by least squares on the other half of the games (split
  by game number, cross-fitting: a coefficient never fitted on the games it corrects
  keeps the estimator unbiased).

The pools' own sampling error is shared by every point (one pool for all); it is
measured by splitting pool B in `SPLITS` parts (`pool_se`) and added to the standard
errors the studies print (in quadrature).  Supported: standard scoring without teams
(C17); other scorings have no control variate (`model` returns None) and the plain
estimator is used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import polars as pl

STEP = 5           # g(s): scores cut down to a multiple of STEP before the round's points
POOL_A = 4000      # games of pool A (the table T)
POOL_B = 4000      # games of pool B (the expectations F)
SPLITS = 8         # pool B's parts for its sampling error
POOL_SEED = 7_919  # pools: seed + POOL_SEED (A) and seed + 2 * POOL_SEED (B)
PROXY = "greedy"   # the proxy policy (every seat) of `proxy` mode
BLIND = ("random", "greedy", "strategic")  # policies that never read the scores


@dataclass
class LuckModel:
    """The control variate of one setup: `seat` is the focal seat (its win share is the
    outcome), `policies` the seats' specs, `mode` ``own`` or ``proxy``; `T` the table
    [dealer, own cell, best cell]; `F` per pool-B part: [dealer, best seat, own cell, best
    cell] expectations; `proxy_rounds` the proxy games' rounds by game (proxy mode)."""

    variant: str
    players: int
    seat: int
    policies: tuple
    seed: int
    mode: str
    target: int
    T: np.ndarray
    F: np.ndarray
    pool_rounds: int
    proxy_policies: tuple = ()
    proxy_rounds: dict = field(default_factory=dict)

    def rotate(self, pts) -> np.ndarray:
        """Per-seat numbers turned so the focal seat is first, then the seats after it."""
        a = np.asarray(pts)
        return np.roll(a, -self.seat, axis=-1)

    def rel(self, dealer: int) -> int:
        return (int(dealer) - self.seat) % self.players


def score_blind(spec) -> bool:
    """Whether a policy's decisions never read the scores (the built-in policies)."""
    from uno_sim.policies import parse_policy

    return parse_policy(spec).name in BLIND


def supported(rules) -> bool:
    return rules.scoring == "standard" and not rules.teams


def _phi(T, a, b, dnext, target):
    """The table's game-win chance from scores (own a, best other b) before a round dealt
    by `dnext` (relative); 1 / 0 where a target is reached."""
    a, b = np.asarray(a), np.asarray(b)
    nb = T.shape[1]
    inside = (a < target) & (b < target)
    ia = np.clip(a // STEP, 0, nb - 1)
    ib = np.clip(b // STEP, 0, nb - 1)
    v = T[dnext, ia, ib]
    return np.where(a >= target, 1.0, np.where(b >= target, 0.0, np.where(inside, v, 0.0)))


def _rounds(variant, players, policies, games, seed):
    """Round rows of `games` simulated games: (game, round, dealer, points, winner of the
    game per game) from uno_sim's engine."""
    from uno_sim.engine import _setup
    from uno_sim.rng import key_from_seed
    from uno_sim.rules import Rules

    _, _, eng = _setup(Rules(variant=variant, players=players), list(policies))
    cols, _ = eng.play_games(key_from_seed(seed), 0, games, rounds=True)
    return cols


def _table(cols, m: LuckModel) -> np.ndarray:
    """T[dealer, own cell, best cell]: the focal seat's chance to win the game from the
    scores (own, best other) at the start of a round with that dealer, cells of STEP points, by dynamic
    programming over the rounds of pool A (per dealer: who wins, its points cut down to
    STEP): the focal seat wins a round and scores, or another seat does, which is the best
    other seat with chance 1 / (K - 1) (exact with two players; with more, a model that
    leaves the other seats' own scores out); the first to the target wins."""
    k, target = m.players, m.target
    n = math.ceil(target / STEP)
    pts = m.rotate(cols["round_points"]).astype(np.int64)
    d = np.array([m.rel(x) for x in cols["round_dealer"]])
    win = np.where(pts.max(axis=1) > 0, pts.argmax(axis=1), -1)
    step = pts.max(axis=1) // STEP
    q = 1.0 / (k - 1)
    moves = []  # per dealer: (own increments, best increments, probabilities), moving only
    stay = np.zeros(k)  # per dealer: the chance that the cells do not move
    for dl in range(k):
        sel = d == dl
        tot = max(int(sel.sum()), 1)
        da, db, pr = [], [], []
        keys, counts = np.unique(np.c_[win[sel], step[sel]], axis=0, return_counts=True)
        for (w, x), c in zip(keys, counts):
            p = c / tot
            if x == 0 or w < 0:
                stay[dl] += p
            elif w == 0:
                da.append(x), db.append(0), pr.append(p)
            else:
                da.append(0), db.append(x), pr.append(p * q)
                stay[dl] += p * (1 - q)
        moves.append((np.array(da, int), np.array(db, int), np.array(pr)))
    T = np.zeros((k, n, n))

    def value(a, b, dn):
        a, b = np.asarray(a), np.asarray(b)
        inside = (a < n) & (b < n)
        v = np.where(a >= n, 1.0, 0.0)
        v[inside] = T[dn, a[inside], b[inside]]
        return v

    for total in range(2 * n - 2, -1, -1):
        for a in range(max(0, total - n + 1), min(n - 1, total) + 1):
            b = total - a
            rhs = np.array([(moves[dl][2] * value(a + moves[dl][0], b + moves[dl][1],
                                                  (dl + 1) % k)).sum() for dl in range(k)])
            # T_d = stay_d T_{d+1} + rhs_d around the dealers' cycle
            for dl in range(k):
                num, c = 0.0, 1.0
                for i in range(k):
                    e = (dl + i) % k
                    num += c * rhs[e]
                    c *= stay[e]
                T[dl, a, b] = num / (1 - c) if c < 1 else 1.0 / k
    return T


def _expectations(cols, m: LuckModel) -> np.ndarray:
    """F[part, dealer, best seat, own cell, best cell]: the mean over pool B's rounds (per
    part, per dealer) of Phi(g(s) + r).  g(s) is a multiple of STEP, so Phi(g(s) + r)
    reads r only through r // STEP: the rounds are counted by (seat, points // STEP)."""
    k, target = m.players, m.target
    n = math.ceil(target / STEP)
    pts = m.rotate(cols["round_points"]).astype(np.int64) // STEP
    d = np.array([m.rel(x) for x in cols["round_dealer"]])
    part = np.arange(len(d)) % SPLITS
    # Phi on cells, padded: past the own target 1, past the best other's 0
    pad = np.zeros((k, 2 * n + 1, 2 * n + 1))
    pad[:, :n, :n] = m.T
    pad[:, n:, :] = 1.0
    F = np.full((SPLITS, k, k, n, n), np.nan)
    for h in range(SPLITS):
        for dl in range(k):
            sel = (part == h) & (d == dl)
            if not sel.any():
                continue
            outs, counts = np.unique(np.minimum(pts[sel], n), axis=0, return_counts=True)
            w = counts / counts.sum()
            dn = (dl + 1) % k
            for b in range(1, k):
                acc = np.zeros((n, n))
                for r, wr in zip(outs, w):
                    acc += wr * pad[dn, r[0]:r[0] + n, r[b]:r[b] + n]
                F[h, dl, b] = acc
    return F


def model(variant: str, players: int, seat: int, policies, seed: int = 0,
          pool_games: tuple = (POOL_A, POOL_B), proxy: str | None = None,
          n_jobs: int = 1) -> LuckModel | None:
    """The control variate for the focal seat `seat` of games with `policies` (one spec
    per seat): ``own`` mode when every policy is blind to the scores and no `proxy` is
    named, else ``proxy`` mode with `proxy` (default PROXY) at every seat.  None where
    the rules have no such control variate (a scoring other than standard, teams)."""
    from uno_sim.rules import Rules

    rules = Rules(variant=variant, players=players)
    if not supported(rules):
        return None
    pols = tuple(str(p) for p in policies)
    own = proxy is None and all(score_blind(p) for p in pols)
    pool_pols = pols if own else (proxy or PROXY,) * players
    m = LuckModel(variant, players, seat, pols, seed, "own" if own else "proxy",
                  rules.target, np.zeros(0), np.zeros(0), 0)
    m.T = _table(_rounds(variant, players, pool_pols, pool_games[0], seed + POOL_SEED), m)
    cols_b = _rounds(variant, players, pool_pols, pool_games[1], seed + 2 * POOL_SEED)
    m.pool_rounds = int(len(cols_b["round_dealer"]))
    m.F = _expectations(cols_b, m)
    if not own:
        m.proxy_policies = pool_pols
    return m


def _proxy_games(m: LuckModel, games) -> dict:
    """{game: (dealers, points rows)} of the proxy games on the study's seed (proxy mode)."""
    need = sorted(set(int(g) for g in games) - set(m.proxy_rounds))
    if need:
        from uno_sim.engine import _setup
        from uno_sim.rng import key_from_seed
        from uno_sim.rules import Rules

        _, _, eng = _setup(Rules(variant=m.variant, players=m.players),
                           list(m.proxy_policies))
        for g in need:  # one call per game: the game numbers of the study, not a range
            cols, _ = eng.play_games(key_from_seed(m.seed), g, 1, rounds=True)
            m.proxy_rounds[g] = (np.asarray(cols["round_dealer"]),
                                 np.asarray(cols["round_points"]))
    return m.proxy_rounds


def terms(m: LuckModel, later: list, games, first_rounds) -> np.ndarray:
    """Per alternative (one `later` list each: uno_sim.counterfactual's scores after the
    point's round, then per later round its dealer and points) and pool-B part: the sum
    over its later rounds of V(s_j, r_j) - F(s_j, d_j), rounds numbered from the
    alternative's entry of `first_rounds`, of game `games`.  Returns alternatives x parts."""
    k = m.players
    starts, dealers, pts, rs, owner = [], [], [], [], []
    for i, (lt, g, first) in enumerate(zip(later, games, first_rounds)):
        lt = np.asarray(lt, dtype=np.int64)
        rows = lt[k:].reshape(-1, k + 1)
        if rows.shape[0] == 0:
            continue
        p = m.rotate(rows[:, 1:])
        s = m.rotate(lt[:k]) + np.vstack([np.zeros((1, k), np.int64), np.cumsum(p, 0)[:-1]])
        if m.mode == "proxy":
            dl, pp = m.proxy_rounds[int(g)]
            at = int(first) - 1 + np.arange(rows.shape[0])  # round numbers are 1-based
            keep = at < len(dl)  # past the proxy game's end: no term (predictable)
            if not np.array_equal(dl[at[keep]], rows[keep, 0]):
                raise AssertionError(f"game {g}: a proxy round has another dealer")
            r = m.rotate(pp[at[keep]])
            rows, s, p = rows[keep], s[keep], p[keep]
        else:
            r = p
        starts.append(s), dealers.append(rows[:, 0]), rs.append(r)
        owner.append(np.full(rows.shape[0], i))
    z = np.zeros((len(later), SPLITS))
    if not starts:
        return z
    s, r = np.vstack(starts), np.vstack(rs)
    d = (np.concatenate(dealers) - m.seat) % k
    owner = np.concatenate(owner)
    b = 1 + np.argmax(s[:, 1:], axis=1)
    rows = np.arange(len(b))
    go, gb = s[:, 0] - s[:, 0] % STEP, s[rows, b] - s[rows, b] % STEP
    actual = _phi(m.T, go + r[:, 0], gb + r[rows, b], (d + 1) % k, m.target)
    expect = m.F[:, d, b, go // STEP, gb // STEP]  # parts x terms
    for h in range(SPLITS):
        z[:, h] = np.bincount(owner, weights=actual - expect[h], minlength=len(later))
    return z


def adjust(frame: pl.DataFrame, m: LuckModel | None, folds: int = 2) -> pl.DataFrame:
    """The frame with game_win_0 / game_win_1 corrected by the control variate (the raw
    ones kept as raw_game_win_0 / raw_game_win_1), the column `luck` (what was taken from
    the value: beta times the difference of the two alternatives' terms), `luck_parts`
    (the same per pool-B part, for `pool_se`) and `beta`.  The frame needs later_0 and
    later_1 (decision values with rounds=True).  m None: the frame unchanged but for
    those columns (luck 0)."""
    h = frame.height
    raw = {f"raw_game_win_{a}": frame[f"game_win_{a}"] for a in (0, 1)}
    if m is None or h == 0:
        return frame.with_columns(**raw, luck=pl.lit(0.0), beta=pl.lit(0.0),
                                  luck_parts=pl.lit([0.0] * SPLITS))
    games = frame["game"].to_numpy()
    if m.mode == "proxy":
        _proxy_games(m, games)
    first = frame["round"].to_numpy() + 1
    z = {a: terms(m, frame[f"later_{a}"].to_list(), games, first) for a in (0, 1)}
    dz = z[1] - z[0]                       # points x parts
    dz_mean = dz.mean(axis=1)
    d = (frame["game_win_1"] - frame["game_win_0"]).to_numpy()
    beta = np.ones(h)
    if m.mode == "proxy":
        fold = games % folds
        for f in range(folds):
            fit = fold != f
            x = dz_mean[fit]
            var = float(np.var(x))
            beta[fold == f] = float(np.cov(x, d[fit])[0, 1] / var) if var > 0 and fit.sum() > 2 \
                else 0.0
    out = {f"game_win_{a}": frame[f"game_win_{a}"].to_numpy() - beta * z[a].mean(axis=1)
           for a in (0, 1)}
    return frame.with_columns(**raw, **{k: pl.Series(k, v) for k, v in out.items()},
                              luck=pl.Series("luck", beta * dz_mean),
                              beta=pl.Series("beta", beta),
                              luck_parts=pl.Series("luck_parts",
                                                   (beta[:, None] * dz).tolist()))


def pool_se(frame: pl.DataFrame) -> float:
    """The standard error the pool's sampling adds to the mean value of `frame`'s points:
    the spread of that mean's correction over pool B's parts, over sqrt(parts)."""
    if frame.height == 0 or "luck_parts" not in frame.columns:
        return 0.0
    parts = np.array(frame["luck_parts"].to_list(), dtype=float)  # points x parts
    means = parts.mean(axis=0)
    return float(means.std(ddof=1) / math.sqrt(parts.shape[1])) if parts.shape[1] > 1 else 0.0


def variance_ratio(frame: pl.DataFrame, n_resamples: int = 999, seed: int = 0) -> tuple:
    """(ratio, low, high): the clustered variance of the mean value with the control
    variate over that without (the same points), with a 95% bootstrap interval over games
    (scipy.stats.bootstrap, games resampled with all their points)."""
    from scipy import stats

    if frame.height < 4 or "raw_game_win_1" not in frame.columns:
        return math.nan, math.nan, math.nan
    g = frame["game"].to_numpy()
    keys, inv = np.unique(g, return_inverse=True)
    if keys.size < 4:
        return math.nan, math.nan, math.nan
    y = (frame["game_win_1"] - frame["game_win_0"]).to_numpy()
    d = (frame["raw_game_win_1"] - frame["raw_game_win_0"]).to_numpy()
    sy = np.bincount(inv, weights=y)
    sd = np.bincount(inv, weights=d)
    n = np.bincount(inv).astype(float)

    def ratio(sy, sd, n, axis=-1):
        my = sy.sum(axis=axis, keepdims=True) / n.sum(axis=axis, keepdims=True)
        md = sd.sum(axis=axis, keepdims=True) / n.sum(axis=axis, keepdims=True)
        num = ((sy - my * n) ** 2).sum(axis=axis)
        den = ((sd - md * n) ** 2).sum(axis=axis)
        return num / den

    point = float(ratio(sy, sd, n))
    if not math.isfinite(point):
        return math.nan, math.nan, math.nan
    res = stats.bootstrap((sy, sd, n), ratio, paired=True, vectorized=True,
                          n_resamples=n_resamples, method="percentile",
                          random_state=np.random.default_rng(seed))
    ci = res.confidence_interval
    return point, float(ci.low), float(ci.high)
