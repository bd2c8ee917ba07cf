"""Paired analysis of counterfactual decision values (`uno_sim.counterfactual`).

A decision-values frame holds one row per decision point of one seat: the
game replayed from that exact state once per alternative (a = 0: the honest
card / accept; a = 1: the bluff / the challenge) with common random numbers,
and the seat's outcome under each: `round_win_a` (won the round of the
decision), `points_a` (points it scored in that round), `game_win_a` (its
share of the game's win).  The value of the decision is the paired
difference alt 1 - alt 0.

Standard errors.  Decision points of one game are not independent (a seat can
face several in one game), so every standard error here is clustered by game:
SE^2 = G/(G-1) * sum_g (sum_{i in g} (d_i - mean))^2 / n^2 over the G games
holding the n points (with one point per game it is the usual s^2/n).  Next
to the paired SE of the difference stands the unpaired SE, the one the two
alternatives would give as independent samples, sqrt(SE_0^2 + SE_1^2) with
each alternative's SE clustered the same way; their squared ratio is the
variance reduction that the common random numbers buy.

Break-even posterior.  Among challenge points, V1 is the mean value of
challenging when the card was a bluff (truth = 1) and V0 when it was legal.
A challenge made with posterior probability p that the card is a bluff is
worth p V1 + (1 - p) V0, which is positive above p* = -V0 / (V1 - V0).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from uno_sim.stats import Z95

from .common import StudyError
from .equilibrium import bootstrap_stat

METRICS = ("round_win", "points", "game_win")
STATE_COLUMNS = ("other_size", "own_size", "players", "variant")
SIZE_CAP = 6  # hand sizes above this are pooled as "6+" in the by-state tables


def _cluster_keys(frame: pl.DataFrame) -> list[str]:
    return [c for c in ("variant", "players", "game") if c in frame.columns]


def check_frame(frame: pl.DataFrame, metrics=METRICS) -> None:
    """StudyError naming the first column a decision-values frame lacks."""
    need = ["game"] + [f"{m}_{a}" for m in metrics for a in (0, 1)]
    for c in need:
        if c not in frame.columns:
            raise StudyError(f"invalid decision-values frame: no column {c!r}")


def clustered_se(values, clusters) -> float:
    """Standard error of the mean of `values`, clustered by the labels `clusters`."""
    v = np.asarray(values, dtype=float)
    n = v.size
    if n < 2:
        return math.nan
    _, inv = np.unique(np.asarray(clusters), return_inverse=True, axis=0)
    g = int(inv.max()) + 1
    if g < 2:
        return math.nan
    sums = np.bincount(inv.ravel(), weights=v - v.mean(), minlength=g)
    return math.sqrt(g / (g - 1) * float((sums ** 2).sum())) / n


def _cluster_labels(sub: pl.DataFrame, keys: list[str]) -> np.ndarray:
    return sub.select(pl.concat_str([pl.col(k).cast(pl.Utf8) for k in keys],
                                    separator="/")).to_series().to_numpy()


def _size_label(col: str) -> pl.Expr:
    """A hand-size column as text, sizes of SIZE_CAP and above pooled as "6+"."""
    return (pl.when(pl.col(col) >= SIZE_CAP).then(pl.lit(f"{SIZE_CAP}+"))
            .otherwise(pl.col(col).cast(pl.Utf8)))


def decision_effects(frame: pl.DataFrame, by=(), metrics=METRICS, z: float = Z95,
                     min_points: int = 1) -> pl.DataFrame:
    """Value of the decision (alt 1 - alt 0) per group of `by` columns.

    Columns: the `by` columns, `points` (decision points), `games` (distinct
    games), `natural` (share of points where the policy itself chose alt 1,
    when the frame has it), and per metric m: m_0 and m_1 (mean outcome under
    each alternative), d_m with d_m_low / d_m_high (paired 95% interval),
    se_m (paired SE), se_unpaired_m, and vr_m = (se_unpaired_m / se_m)^2.
    Groups with fewer than `min_points` points are left out.
    """
    check_frame(frame, metrics)
    by = list(by)
    keys = _cluster_keys(frame)
    rows = []
    groups = frame.group_by(by, maintain_order=True) if by else [((), frame)]
    for key, sub in groups:
        if sub.height < min_points:
            continue
        key = key if isinstance(key, tuple) else (key,)
        clusters = _cluster_labels(sub, keys)
        row = dict(zip(by, key))
        row["points"] = sub.height
        row["games"] = int(len(np.unique(clusters)))
        if "natural" in sub.columns:
            row["natural"] = float(sub["natural"].mean())
        for m in metrics:
            a0 = sub[f"{m}_0"].to_numpy().astype(float)
            a1 = sub[f"{m}_1"].to_numpy().astype(float)
            d = a1 - a0
            se = clustered_se(d, clusters)
            se_u = math.hypot(clustered_se(a0, clusters), clustered_se(a1, clusters))
            mean = float(d.mean())
            row.update({f"{m}_0": float(a0.mean()), f"{m}_1": float(a1.mean()),
                        f"d_{m}": mean, f"d_{m}_low": mean - z * se,
                        f"d_{m}_high": mean + z * se, f"se_{m}": se,
                        f"se_unpaired_{m}": se_u,
                        f"vr_{m}": (se_u / se) ** 2 if se > 0 else math.nan})
        rows.append(row)
    if not rows:
        return pl.DataFrame()
    out = pl.DataFrame(rows)
    return out.sort(by) if by else out


def by_state(frame: pl.DataFrame, state: str = "other_size", metrics=METRICS,
             min_points: int = 30, extra=("variant", "players")) -> pl.DataFrame:
    """`decision_effects` by one hand-size column (sizes from SIZE_CAP up pooled, the
    column then holding labels "1", "2", ..., "6+") within each variant and player count."""
    by = [c for c in extra if c in frame.columns]
    f = frame.with_columns(pl.min_horizontal(pl.col(state), pl.lit(SIZE_CAP)).alias(state))
    eff = decision_effects(f, by=by + [state], metrics=metrics, min_points=min_points)
    return eff if eff.is_empty() else eff.with_columns(_size_label(state).alias(state))


# ---------------------------------------------------------------------------
# Break-even posterior of a challenge
# ---------------------------------------------------------------------------

def _per_game(frame: pl.DataFrame, metric: str) -> dict:
    """Per game: sum and count of the challenge value d among bluffs (1) and legal cards (0)."""
    keys = _cluster_keys(frame)
    d = pl.col(f"{metric}_1") - pl.col(f"{metric}_0")
    g = frame.group_by(keys).agg(
        pl.when(pl.col("truth") == 1).then(d).otherwise(0.0).sum().alias("s1"),
        (pl.col("truth") == 1).sum().cast(pl.Float64).alias("n1"),
        pl.when(pl.col("truth") == 0).then(d).otherwise(0.0).sum().alias("s0"),
        (pl.col("truth") == 0).sum().cast(pl.Float64).alias("n0")).sort(keys)
    return {c: g[c].to_numpy() for c in ("s1", "n1", "s0", "n0")}


def _break_even(s: dict) -> dict:
    n1, n0 = s["n1"].sum(), s["n0"].sum()
    v1 = s["s1"].sum() / n1 if n1 else math.nan
    v0 = s["s0"].sum() / n0 if n0 else math.nan
    p = -v0 / (v1 - v0) if v1 > v0 else math.nan
    return {"v1": v1, "v0": v0, "p_star": min(1.0, max(0.0, p)) if math.isfinite(p) else p}


def break_even_posterior(frame: pl.DataFrame, metric: str = "game_win", by=(),
                         n_boot: int = 500, seed: int = 0, min_each: int = 20) -> pl.DataFrame:
    """Break-even posterior P(bluff) of a challenge, with bootstrap intervals.

    Per group of `by`: V1 (mean value of challenging a bluff), V0 (of
    challenging a legal card) and p* = -V0 / (V1 - V0), clipped to [0, 1]
    (0: challenging pays even against a legal card; null when V1 <= V0, no
    posterior makes it pay).  Intervals: percentile bootstrap resampling whole
    games (all decision points of a game together).  Groups with fewer than
    `min_each` bluffs or legal cards are left out.
    """
    check_frame(frame, (metric,))
    if "truth" not in frame.columns:
        raise StudyError("invalid challenge frame: no column 'truth'")
    by = list(by)
    rows = []
    groups = frame.group_by(by, maintain_order=True) if by else [((), frame)]
    for key, sub in groups:
        key = key if isinstance(key, tuple) else (key,)
        n1 = int((sub["truth"] == 1).sum())
        n0 = int((sub["truth"] == 0).sum())
        if n1 < min_each or n0 < min_each:
            continue
        res = bootstrap_stat(_per_game(sub, metric), _break_even, n_boot=n_boot, seed=seed)
        row = dict(zip(by, key))
        row.update({"bluffs": n1, "legal": n0})
        for k in ("v1", "v0", "p_star"):
            row[k], row[f"{k}_low"], row[f"{k}_high"] = res[k]
        rows.append(row)
    if not rows:
        return pl.DataFrame()
    out = pl.DataFrame(rows)
    return out.sort(by) if by else out


def run_values(kind: str, variant: str, players: int, policies: list, seat: int, games: int,
               seed: int, n_jobs: int = 1, values=None, every: int = 1,
               rounds: bool = False) -> pl.DataFrame:
    """`uno_sim.counterfactual.decision_values` (or `values`, same signature) for one setup;
    `every` > 1 replays one decision point in `every` (for expensive policies); `rounds`:
    each alternative's later rounds too."""
    if values is None:
        try:
            from uno_sim.counterfactual import decision_values as values
        except ImportError:
            raise StudyError("this build of uno_sim has no counterfactual API "
                             "(uno_sim.counterfactual.decision_values)") from None
    kw = {"every": every} if every != 1 else {}
    if rounds:
        kw["rounds"] = True
    return values(kind, variant=variant, players=players, policies=list(policies), seat=seat,
                  games=games, seed=seed, n_jobs=n_jobs, **kw)
