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
  read them, and a search player whose rollouts are worth the round): the round played
  is itself a function of its deal and streams, so r is the round's actual result, and
  pool B is rounds of the same policies at the same seats (of whole games for the
  built-in policies; from scores of 0, below, where a seat's games are dear).
* ``replay`` (a seat that reads the scores: a search player valuing its rollouts by the
  game-win table, a network that sees them): r is the result of the same round (the same
  deal and decision streams: `Engine.play_round_of`) played again by the same policies
  from scores of 0 for every seat, a function of the round's chance alone; pool
  B is rounds played from those scores on independent seeds.  A seat that reads the
  scores little plays the replay as it played the round, and the correction is nearly
  that of ``own``.

In both, y_a = W_a - sum_j [V(s_j, r_j) - F(s_j, d_j)] (coefficient 1: any fixed
coefficient keeps the estimator unbiased, and 1 is the one a perfect estimate wants).
With a perfect estimate this removes every later round's luck and leaves the decision
round's.

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
REPLAY_POOL = 3000 # rounds of the replay pool (replay mode): a third for T, the rest for F
BLIND = ("random", "greedy", "strategic")  # policies that never read the scores


@dataclass
class LuckModel:
    """The control variate of one setup: `seat` is the focal seat (its win share is the
    outcome), `policies` the seats' specs, `mode` ``own`` or ``replay``; `T` the table
    [dealer, own cell, best cell]; `F` per pool-B part: [dealer, best seat, own cell, best
    cell] expectations; `replays` the replayed rounds' points by (game, round) (replay
    mode)."""

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
    replays: dict = field(default_factory=dict)

    def rotate(self, pts) -> np.ndarray:
        """Per-seat numbers turned so the focal seat is first, then the seats after it."""
        a = np.asarray(pts)
        return np.roll(a, -self.seat, axis=-1)

    def rel(self, dealer: int) -> int:
        return (int(dealer) - self.seat) % self.players


def score_blind(spec) -> bool:
    """Whether a policy's decisions never read the scores: the built-in policies, and a
    search player whose rollouts are worth the round (value=round: played to the round's
    end by a built-in rollout policy, the scores never looked at)."""
    from uno_sim.players.specs import parse_policy

    p = parse_policy(spec)
    return p.name in BLIND or (p.name in ("pimc", "ismcts") and p.knob("value") == "round"
                               and not p.knob("cheat"))


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
    """The columns of `games` simulated games with their round rows (Engine.play_games
    with rounds: round_dealer, round_points, ...)."""
    from uno_sim.engine import _setup
    from uno_sim.rng import key_from_seed
    from uno_sim.rules import Rules

    _, _, eng = _setup(Rules(variant=variant, players=players), list(policies))
    cols, _ = eng.play_games(key_from_seed(seed), 0, games, rounds=True)
    return cols


def _table(cols, m: LuckModel) -> np.ndarray:
    """T[dealer, own cell, best cell]: the focal seat's chance to win the game from the
    scores (own, best other) at the start of a round with that dealer, cells of STEP
    points, by dynamic programming over the rounds of pool A (per dealer: who wins, its
    points cut down to STEP): the focal seat wins a round and scores, or another seat
    does, which is the best other seat with chance 1 / (K - 1) (exact with two players;
    with more, a model that leaves the other seats' own scores out); the first to the
    target wins."""
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
    part = np.zeros(len(d), dtype=int)  # each dealer's rounds dealt to the parts in turn
    for dl in range(k):
        at = np.flatnonzero(d == dl)
        part[at] = np.arange(at.size) % SPLITS
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


def _replay_pool(variant, players, policies, rounds, seed) -> dict:
    """Round rows of `rounds` rounds played from scores of 0 by `policies`: round 1 of
    games 0, 1, ... of `seed`, dealt by seats 0, 1, ... in turn (the columns of
    `_rounds`, one round per game)."""
    from uno_sim.engine import _setup
    from uno_sim.rng import key_from_seed
    from uno_sim.rules import Rules

    _, _, eng = _setup(Rules(variant=variant, players=players), list(policies))
    key = key_from_seed(seed)
    ref = [0] * players
    dealer = np.arange(rounds) % players
    pts = np.array([eng.play_round_of(key, g, 1, int(d), ref)["scores"]
                    for g, d in enumerate(dealer)], dtype=np.int32).reshape(rounds, players)
    return {"round_points": pts, "round_dealer": dealer, "round_game": np.arange(rounds),
            "winner": np.full(rounds, -1)}


def model(variant: str, players: int, seat: int, policies, seed: int = 0,
          pool_games: tuple = (POOL_A, POOL_B), replay: bool | None = None,
          replay_rounds: int = REPLAY_POOL) -> LuckModel | None:
    """The control variate for the focal seat `seat` of games with `policies` (one spec
    per seat): ``own`` mode when every policy is blind to the scores (`replay` None or
    False), else ``replay`` mode (`replay` True forces it).  None where the rules have no
    such control variate (a scoring other than standard, teams)."""
    from uno_sim.players.specs import parse_policy
    from uno_sim.rules import Rules

    rules = Rules(variant=variant, players=players)
    if not supported(rules):
        return None
    pols = tuple(str(p) for p in policies)
    blind = all(score_blind(p) for p in pols)
    if replay is False and not blind:
        raise ValueError("own-round control variates need seats blind to the scores")
    own = blind and not replay
    m = LuckModel(variant, players, seat, pols, seed, "own" if own else "replay",
                  rules.target, np.zeros(0), np.zeros(0), 0)
    if own and all(parse_policy(p).name in BLIND for p in pols):  # cheap whole games
        cols_a = _rounds(variant, players, pols, pool_games[0], seed + POOL_SEED)
        cols_b = _rounds(variant, players, pols, pool_games[1], seed + 2 * POOL_SEED)
    else:  # rounds from scores of 0: what replay mode needs, and for a dear seat enough
        pool = _replay_pool(variant, players, pols, replay_rounds, seed + POOL_SEED)
        cut = replay_rounds // 3
        cols_a = {k: v[:cut] for k, v in pool.items()}
        cols_b = {k: v[cut:] for k, v in pool.items()}
    m.T = _table(cols_a, m)
    m.pool_rounds = int(len(cols_b["round_dealer"]))
    m.F = _expectations(cols_b, m)
    return m


def _replays(m: LuckModel, frame: pl.DataFrame) -> None:
    """Into m.replays: every later round of the frame's games (any alternative's) played
    again from scores of 0 (replay mode)."""
    from uno_sim.engine import _setup
    from uno_sim.rng import key_from_seed

    k = m.players
    need = {}
    for a in (0, 1):
        for later, g, r0 in zip(frame[f"later_{a}"].to_list(), frame["game"].to_list(),
                                frame["round"].to_list()):
            rows = np.asarray(later[k:], dtype=np.int64).reshape(-1, k + 1)
            for j, d in enumerate(rows[:, 0]):
                need.setdefault((int(g), int(r0) + 1 + j), int(d))
    todo = [x for x in need if x not in m.replays]
    if not todo:
        return
    from uno_sim.rules import Rules

    _, _, eng = _setup(Rules(variant=m.variant, players=m.players), list(m.policies))
    key = key_from_seed(m.seed)
    ref = [0] * k
    for g, j in sorted(todo):
        m.replays[(g, j)] = np.asarray(eng.play_round_of(key, g, j, need[(g, j)], ref)["scores"])


def terms(m: LuckModel, later: list, games, first_rounds) -> np.ndarray:
    """Per alternative (one `later` list each: uno_sim.counterfactual's scores after the
    point's round, then per later round its dealer and points) and pool-B part: the sum
    over its later rounds of V(s_j, r_j) - F(s_j, d_j), rounds numbered from the
    alternative's entry of `first_rounds`, of game `games`.  Returns alternatives x parts."""
    k = m.players
    starts, dealers, rs, owner = [], [], [], []
    for i, (lt, g, first) in enumerate(zip(later, games, first_rounds)):
        lt = np.asarray(lt, dtype=np.int64)
        rows = lt[k:].reshape(-1, k + 1)
        if rows.shape[0] == 0:
            continue
        p = m.rotate(rows[:, 1:])
        s = m.rotate(lt[:k]) + np.vstack([np.zeros((1, k), np.int64), np.cumsum(p, 0)[:-1]])
        if m.mode == "replay":
            r = m.rotate(np.array([m.replays[(int(g), int(first) + j)]
                                   for j in range(rows.shape[0])]))
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


def adjust(frame: pl.DataFrame, m: LuckModel | None) -> pl.DataFrame:
    """The frame with game_win_0 / game_win_1 corrected by the control variate (the raw
    ones kept as raw_game_win_0 / raw_game_win_1), the column `luck` (what was taken from
    the value: the difference of the two alternatives' corrections) and `luck_parts` (the
    same per pool-B part, for `pool_se`).  The frame needs later_0 and later_1 (decision
    values with rounds=True).  m None: the frame unchanged but for those columns (luck
    0)."""
    raw = {f"raw_game_win_{a}": frame[f"game_win_{a}"] for a in (0, 1)}
    if m is None or frame.height == 0:
        return frame.with_columns(**raw, luck=pl.lit(0.0),
                                  luck_parts=pl.lit([0.0] * SPLITS))
    if m.mode == "replay":
        _replays(m, frame)
    games, first = frame["game"].to_numpy(), frame["round"].to_numpy() + 1
    z = {a: terms(m, frame[f"later_{a}"].to_list(), games, first) for a in (0, 1)}
    dz = z[1] - z[0]  # points x parts
    out = {f"game_win_{a}": pl.Series(f"game_win_{a}", frame[f"game_win_{a}"].to_numpy()
                                      - z[a].mean(axis=1)) for a in (0, 1)}
    return frame.with_columns(**raw, **out, luck=pl.Series("luck", dz.mean(axis=1)),
                              luck_parts=pl.Series("luck_parts", dz.tolist()))


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

    with np.errstate(divide="ignore", invalid="ignore"):
        point = float(ratio(sy, sd, n))
        if not math.isfinite(point):
            return math.nan, math.nan, math.nan
        res = stats.bootstrap((sy, sd, n), ratio, paired=True, vectorized=True,
                              n_resamples=n_resamples, method="percentile",
                              random_state=np.random.default_rng(seed))
    ci = res.confidence_interval
    return point, float(ci.low), float(ci.high)
