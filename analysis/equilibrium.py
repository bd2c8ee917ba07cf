"""Zero-sum games between strategy families, solved from simulated payoffs.

* `solve_zero_sum`: optimal mixed strategies and value of a two-player
  zero-sum matrix game, by linear programming (`scipy.optimize.linprog`,
  HiGHS).
* `double_oracle`: the equilibrium of a game whose strategies are whole
  families (policy specs), found without simulating every pair: solve the
  game restricted to the strategies found so far, add each side's best
  response over its full family, stop when neither improves.
* `bootstrap`: uncertainty of everything derived from the per-game payoffs
  (value, mixes, best responses, any other number), resampling games jointly
  across all arms.

Payoffs are per game: ``oracle(r, c)`` returns one number per game for the
row player (the maximizer), and every pair plays the same game numbers of the
same seed, so the arms are paired game by game (common random numbers).  The
bootstrap relies on that pairing: a resample picks game indices once and
applies them to every arm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Hashable, Sequence

import numpy as np
from scipy.optimize import linprog


def _as_matrix(payoff) -> np.ndarray:
    a = np.asarray(payoff, dtype=float)
    if a.ndim != 2 or a.size == 0 or not np.isfinite(a).all():
        raise ValueError(f"invalid payoff matrix of shape {a.shape}: expected a non-empty "
                         "finite 2-D matrix")
    return a


def _maximin(a: np.ndarray) -> tuple[np.ndarray, float]:
    """The maximizer's optimal mix of the rows of `a` and the value:
    max v  s.t.  a' x >= v 1,  1' x = 1,  x >= 0  (variables x, v; v free)."""
    m, n = a.shape
    c = np.zeros(m + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-a.T, np.ones((n, 1))])          # v - sum_i x_i a_ij <= 0
    a_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    bounds = [(0, None)] * m + [(None, None)]
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(n), A_eq=a_eq, b_eq=[1.0], bounds=bounds,
                  method="highs")
    if res.status != 0:  # cannot happen for a finite matrix: the LP is feasible and bounded
        raise ArithmeticError(f"linprog failed on the zero-sum game: {res.message}")
    x = np.clip(res.x[:m], 0.0, None)
    return x / x.sum(), float(res.x[-1])


def solve_zero_sum(payoff) -> tuple[np.ndarray, np.ndarray, float]:
    """Optimal strategies of a zero-sum matrix game: (row mix x, column mix y, value).

    The row player picks a row and receives ``payoff[i, j]``, maximizing; the
    column player minimizes.  Two LPs: the row player's maximin, and the
    column player's, which is the maximin of ``-payoff'``; by LP duality both
    give the same value (the mean of the two is returned; they agree to the
    solver's tolerance).
    """
    a = _as_matrix(payoff)
    x, v_row = _maximin(a)
    y, v_col = _maximin(-a.T)
    return x, y, 0.5 * (v_row - v_col)


# ---------------------------------------------------------------------------
# Double oracle
# ---------------------------------------------------------------------------

@dataclass
class DoubleOracleResult:
    """The equilibrium found by `double_oracle`.

    `rows` / `cols`: the strategies of the restricted game, in the order they
    were added; `matrix`: its mean payoffs; `row_mix` / `col_mix` / `value`:
    its solution, which is an equilibrium of the full game (no strategy of
    either family improves on it by more than the tolerance); `pairs`: every
    (row, col) the method needed -> per-game payoffs; `history`: per iteration the
    value and the strategies added.
    """

    rows: list
    cols: list
    matrix: np.ndarray
    row_mix: np.ndarray
    col_mix: np.ndarray
    value: float
    pairs: dict
    history: list = field(default_factory=list)

    def support(self, side: str = "row", eps: float = 1e-9) -> dict:
        """{strategy: weight} of the strategies played with positive probability."""
        names, mix = (self.rows, self.row_mix) if side == "row" else (self.cols, self.col_mix)
        return {s: float(w) for s, w in zip(names, mix) if w > eps}


class PayoffCache:
    """`oracle(r, c)` evaluated once per pair, checked to give one payoff per game."""

    def __init__(self, oracle: Callable[[Hashable, Hashable], Sequence[float]],
                 pairs: dict | None = None):
        self.oracle = oracle
        self.pairs: dict = dict(pairs or {})
        self.used: set = set()  # the pairs asked for, whether evaluated here or passed in
        self.games: int | None = None
        for v in self.pairs.values():
            self.games = len(v)
            break

    def __call__(self, r, c) -> np.ndarray:
        key = (r, c)
        self.used.add(key)
        if key not in self.pairs:
            v = np.asarray(self.oracle(r, c), dtype=float)
            if v.ndim != 1 or v.size == 0 or not np.isfinite(v).all():
                raise ValueError(f"invalid payoffs for {r!r} against {c!r}: expected a "
                                 "non-empty finite 1-D array (one payoff per game)")
            if self.games is not None and v.size != self.games:
                raise ValueError(f"invalid payoffs for {r!r} against {c!r}: {v.size} games, "
                                 f"the other pairs have {self.games}")
            self.games = v.size
            self.pairs[key] = v
        return self.pairs[key]

    def mean(self, r, c) -> float:
        return float(self(r, c).mean())

    def matrix(self, rows, cols) -> np.ndarray:
        return np.array([[self.mean(r, c) for c in cols] for r in rows])


def double_oracle(oracle, rows: Sequence[Hashable], cols: Sequence[Hashable], *,
                  start_rows: Sequence[Hashable] | None = None,
                  start_cols: Sequence[Hashable] | None = None, tol: float = 1e-9,
                  max_iter: int = 100, pairs: dict | None = None) -> DoubleOracleResult:
    """Equilibrium of the zero-sum game rows x cols by the double oracle method.

    `oracle(r, c)` -> per-game payoffs to the row player (maximizer), the same
    game numbers for every pair; each pair is evaluated at most once (`pairs`
    may pass in payoffs already known).  Start from `start_rows` x
    `start_cols` (default: the first of each family).  Each iteration solves
    the restricted game, then finds the row maximizing the payoff against the
    column mix (over all `rows`, evaluating each against the columns in the
    mix's support only) and the column minimizing it against the row mix;
    a best response that beats the restricted value by more than `tol` joins
    the restricted game.  When neither does, the restricted solution is an
    equilibrium of the full game (its value lies between the two best-response
    payoffs, which are then within `tol` of it).
    """
    rows, cols = list(rows), list(cols)
    if not rows or not cols:
        raise ValueError("double_oracle needs at least one row and one column strategy")
    if len(set(rows)) != len(rows) or len(set(cols)) != len(cols):
        raise ValueError("double_oracle: a strategy family lists a strategy twice")
    r_set = list(start_rows) if start_rows else rows[:1]
    c_set = list(start_cols) if start_cols else cols[:1]
    for s in r_set:
        if s not in rows:
            raise ValueError(f"invalid start row {s!r}: not in the row family")
    for s in c_set:
        if s not in cols:
            raise ValueError(f"invalid start column {s!r}: not in the column family")
    cache = PayoffCache(oracle, pairs)
    history = []
    for it in range(max_iter):
        m = cache.matrix(r_set, c_set)
        x, y, v = solve_zero_sum(m)
        c_sup = [(c, w) for c, w in zip(c_set, y) if w > 1e-12]
        r_sup = [(r, w) for r, w in zip(r_set, x) if w > 1e-12]
        row_pay = {r: sum(w * cache.mean(r, c) for c, w in c_sup) for r in rows}
        col_pay = {c: sum(w * cache.mean(r, c) for r, w in r_sup) for c in cols}
        br_r = max(rows, key=lambda r: (row_pay[r], -rows.index(r)))
        br_c = min(cols, key=lambda c: (col_pay[c], cols.index(c)))
        added = []
        if row_pay[br_r] > v + tol and br_r not in r_set:
            r_set.append(br_r)
            added.append(("row", br_r))
        if col_pay[br_c] < v - tol and br_c not in c_set:
            c_set.append(br_c)
            added.append(("col", br_c))
        history.append({"iteration": it, "value": v, "row_br": br_r,
                        "row_br_payoff": row_pay[br_r], "col_br": br_c,
                        "col_br_payoff": col_pay[br_c], "added": added})
        if not added:
            used = {k: cache.pairs[k] for k in cache.used}
            return DoubleOracleResult(r_set, c_set, m, x, y, v, used, history)
    raise ArithmeticError(f"double_oracle did not converge in {max_iter} iterations")


# ---------------------------------------------------------------------------
# Bootstrap
# ---------------------------------------------------------------------------

@dataclass
class BootstrapResult:
    """Percentile intervals from `bootstrap`.

    `value`, `row_mix`, `col_mix`, `derived`: (estimate, low, high) on the full
    sample and the resamples' percentiles; `row_br[c]` / `col_br[r]`: for each
    column (row) strategy, {row (column) strategy: share of resamples in which
    it is the best response}; `draws`: the resampled numbers themselves
    (`value`, `row_mix`, `col_mix`, `derived` keys).
    """

    n_boot: int
    level: float
    value: tuple
    row_mix: dict
    col_mix: dict
    row_br: dict
    col_br: dict
    derived: dict
    draws: dict


def percentile_interval(draws, level: float = 0.95) -> tuple[float, float]:
    """The central `level` percentile interval of bootstrap draws (NaNs ignored)."""
    d = np.asarray(draws, dtype=float)
    d = d[np.isfinite(d)]
    if d.size == 0:
        return (math.nan, math.nan)
    a = (1 - level) / 2
    lo, hi = np.quantile(d, [a, 1 - a])
    return (float(lo), float(hi))


def resample_indices(games: int, n_boot: int, seed: int) -> np.ndarray:
    """`n_boot` x `games` game indices drawn with replacement, from a seeded generator
    (numpy's PCG64 under `SeedSequence(seed)`): the same indices for every arm."""
    if games < 1 or n_boot < 1:
        raise ValueError(f"invalid bootstrap size: {games} games, {n_boot} resamples")
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
    return rng.integers(0, games, size=(n_boot, games))


def bootstrap(pairs: dict, rows: Sequence[Hashable], cols: Sequence[Hashable], *,
              n_boot: int = 1000, seed: int = 0, level: float = 0.95,
              derived: Callable[[Callable[[Hashable, Hashable], float], float], dict]
              | None = None,
              ) -> BootstrapResult:
    """Bootstrap over games of the zero-sum game rows x cols.

    `pairs`: (row, col) -> per-game payoffs, all the same length and paired by
    game (every pair of rows x cols must be there; extra pairs are resampled
    too, for `derived`).  Each resample draws game indices with replacement
    once and applies them to every arm, recomputes the mean matrix, re-solves
    it and records the value, both mixes and each side's best response to
    every pure strategy of the other.  `derived(mean, value)` -> {name:
    number} computes any further number from `mean(r, c)`, the resample's
    mean payoff of a pair, and the resample's game value; it is evaluated on
    the full sample and on every resample.  The resamples are
    ``scipy.stats.bootstrap``'s (paired: the same games for every arm); the
    intervals are the draws' percentiles, a NaN draw of a derived number left out.
    """
    rows, cols = list(rows), list(cols)
    missing = [(r, c) for r in rows for c in cols if (r, c) not in pairs]
    if missing:
        raise ValueError(f"bootstrap: no payoffs for the pair {missing[0]!r}")
    keys = list(pairs)
    data = np.vstack([np.asarray(pairs[k], dtype=float) for k in keys])
    if not 0 < level < 1:
        raise ValueError(f"invalid level {level!r}: expected 0 < level < 1")
    pos = {k: i for i, k in enumerate(keys)}
    ri = np.array([[pos[(r, c)] for c in cols] for r in rows])

    def evaluate(means: np.ndarray):
        m = means[ri]
        x, y, v = solve_zero_sum(m)
        extra = derived(lambda r, c: float(means[pos[(r, c)]]), v) if derived else {}
        return m, x, y, v, extra

    import warnings

    from scipy import stats

    m0, x0, y0, v0, d0 = evaluate(data.mean(axis=1))
    nr, nc, names = len(rows), len(cols), list(d0)
    games = data.shape[1]

    def numbers(*arms, axis=-1):
        """Per resample (arms[k]: a batch of resampled games of arm k): the value, both
        mixes, each side's best responses and the derived numbers, one column each."""
        means = np.stack([a.mean(axis=axis) for a in arms])  # arm x resample
        out = np.empty((1 + nr + nc + nc + nr + len(names), means.shape[1]))
        for b in range(means.shape[1]):
            m, x, y, v, extra = evaluate(means[:, b])
            out[:, b] = [v, *x, *y, *m.argmax(axis=0), *m.argmin(axis=1),
                         *(extra.get(k, math.nan) for k in names)]
        return out

    if n_boot < 1:
        raise ValueError(f"invalid bootstrap size: {games} games, {n_boot} resamples")
    if games < 2:  # every resample is the one game (scipy.stats.bootstrap wants two)
        draws = numbers(*(np.broadcast_to(arm, (n_boot, games)) for arm in data))
    else:
        # scipy.stats.bootstrap draws the game indices once per resample for every arm
        # (paired) from numpy's PCG64 under SeedSequence(seed), `resample_indices`'s
        # stream; the batches keep the resampled arms to about 64 MB
        batch = max(1, min(n_boot, 8_000_000 // (len(keys) * games)))
        with warnings.catch_warnings():  # scipy's interval of a NaN derived number (unused:
            warnings.simplefilter("ignore", stats.DegenerateDataWarning)  # est() skips NaNs)
            draws = stats.bootstrap(tuple(data), numbers, n_resamples=n_boot, paired=True,
                                    vectorized=True, batch=batch, method="percentile",
                                    rng=np.random.default_rng(seed)).bootstrap_distribution
    vals, xs, ys = draws[0], draws[1:1 + nr].T, draws[1 + nr:1 + nr + nc].T
    row_br = draws[1 + nr + nc:1 + nr + 2 * nc].T.astype(int)
    col_br = draws[1 + nr + 2 * nc:1 + 2 * nr + 2 * nc].T.astype(int)
    dd = {k: draws[1 + 2 * nr + 2 * nc + i] for i, k in enumerate(names)}

    def est(point, draws):
        return (float(point), *percentile_interval(draws, level))

    def shares(choice, names):
        return {names[i]: float(np.mean(choice == i)) for i in range(len(names))
                if np.any(choice == i)}

    return BootstrapResult(
        n_boot=n_boot, level=level, value=est(v0, vals),
        row_mix={r: est(x0[i], xs[:, i]) for i, r in enumerate(rows)},
        col_mix={c: est(y0[j], ys[:, j]) for j, c in enumerate(cols)},
        row_br={c: shares(row_br[:, j], rows) for j, c in enumerate(cols)},
        col_br={r: shares(col_br[:, i], cols) for i, r in enumerate(rows)},
        derived={k: est(d0[k], dd[k]) for k in d0},
        draws={"value": vals, "row_mix": xs, "col_mix": ys, "derived": dd})


def bootstrap_stat(samples: dict, stat: Callable[[dict], float | dict], *, n_boot: int = 1000,
                   seed: int = 0, level: float = 0.95) -> dict:
    """Percentile intervals of any statistic of paired per-game samples.

    `samples`: name -> per-game array (all the same length, paired by game);
    `stat(resampled)` -> a number or {name: number}.  Returns {name: (estimate,
    low, high)} (name ``"value"`` for a plain number).
    """
    keys = list(samples)
    arrays = [np.asarray(samples[k], dtype=float) for k in keys]
    n = {a.size for a in arrays}
    if len(n) != 1:
        raise ValueError(f"bootstrap_stat: samples of different lengths {sorted(n)}")

    def as_dict(v):
        return v if isinstance(v, dict) else {"value": v}

    point = as_dict(stat(dict(zip(keys, arrays))))
    idx = resample_indices(n.pop(), n_boot, seed)
    draws = {k: np.empty(n_boot) for k in point}
    for b in range(n_boot):
        got = as_dict(stat({k: a[idx[b]] for k, a in zip(keys, arrays)}))
        for k in draws:
            draws[k][b] = got.get(k, math.nan)
    return {k: (float(point[k]), *percentile_interval(draws[k], level)) for k in point}
