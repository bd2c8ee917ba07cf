"""Bluff and challenge decisions of any policy: how often it bluffs or challenges, by state,
and what each decision is worth.

The counterfactual machinery (`uno_sim.counterfactual.decision_values`) plays
every decision point of one seat on both ways with common random numbers,
whatever the seats' policies: any built-in policy spec (greedy, strategic,
the search players, with any knobs) can be the focal seat and the table.
Seat 0 is the focal seat of bluff decisions and seat 1 of challenge
decisions (the restricted cards played on it); every other seat plays the
table's spec.  `natural` is the focal policy's own answer at each point.

`decision_table` reads, per state (a hand size, pooled from SIZE_CAP up):

* ``acts``: the share of the decision points where the focal policy bluffs
  (challenges), with a 95% interval clustered by game;
* ``value``: what bluffing (challenging) instead of not is worth there
  (game-win share, paired, 95% interval clustered by game);
* ``choice``: what the policy's own answer is worth against the other
  answer (its answer minus the other, the same points): positive where its
  choices are right on average.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from .common import StudyError, policy_text
from .counterfactual import SIZE_CAP, clustered_se, decision_effects, run_values

KINDS = ("bluff", "challenge")


def focal_seat(kind: str) -> int:
    """The seat whose decisions are replayed: 0 bluffs, 1 challenges (cards played on it)."""
    if kind not in KINDS:
        raise StudyError(f"invalid kind {kind!r}: expected bluff or challenge")
    return 0 if kind == "bluff" else 1


def seats(kind: str, players: int, focal, table) -> list[str]:
    """Per-seat specs: the focal policy at the deciding seat, the table everywhere else."""
    from uno_sim.players.specs import parse_policy

    focal, table = parse_policy(focal), parse_policy(table)
    for what, spec in (("focal", focal), ("table", table)):
        if spec.name == "user":
            raise StudyError(f"invalid {what} policy {spec}: counterfactual values need a "
                             "built-in policy")
    out = [str(table)] * players
    out[focal_seat(kind)] = str(focal)
    return out


def decision_values(kind: str, variant: str, players: int, focal="greedy", table="greedy",
                    games: int = 1000, seed: int = 0, n_jobs: int = 1,
                    values=None, every: int = 1, rounds: bool = False) -> pl.DataFrame:
    """The decision-values frame of the focal seat (`uno_sim.counterfactual`), with the
    columns `focal` and `table` (the policies as `policy_text` states them); `every` > 1
    replays one decision point in `every` (a search player's decisions are expensive);
    `rounds`: each alternative's later rounds too (for `uno_sim.analysis.luck`)."""
    pols = seats(kind, players, focal, table)
    f = run_values(kind, variant, players, pols, focal_seat(kind), games, seed, n_jobs, values,
                   every, rounds)
    return f.with_columns(pl.lit(policy_text(focal)).alias("focal"),
                          pl.lit(policy_text(table)).alias("table"))


def _chosen(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with the alternatives reordered: 1 the policy's own answer, 0 the other."""
    cols = {}
    for m in ("round_win", "points", "game_win"):
        own = pl.when(pl.col("natural") == 1).then(pl.col(f"{m}_1")).otherwise(pl.col(f"{m}_0"))
        other = pl.when(pl.col("natural") == 1).then(pl.col(f"{m}_0")).otherwise(pl.col(f"{m}_1"))
        cols[f"{m}_1"], cols[f"{m}_0"] = own, other
    return frame.with_columns(**cols)


def decision_table(frame: pl.DataFrame, state: str = "other_size",
                   min_points: int = 20) -> pl.DataFrame:
    """Per state: points, games, how often the focal policy acts (share with a 95%
    interval clustered by game), the value of acting and of its own choice (game-win
    share, paired 95% intervals clustered by game); a last row `all` pools every state."""
    if frame.height == 0:
        return pl.DataFrame()
    from uno_sim.stats import Z95

    f = frame.with_columns(pl.min_horizontal(pl.col(state), pl.lit(SIZE_CAP)).alias(state))
    rows = []
    groups = [(k[0], sub) for k, sub in f.group_by([state], maintain_order=True)]
    groups = sorted(groups, key=lambda kv: kv[0]) + [("all", f)]
    for key, sub in groups:
        if sub.height < min_points:
            continue
        val = decision_effects(sub, metrics=("game_win",)).row(0, named=True)
        ch = decision_effects(_chosen(sub), metrics=("game_win",)).row(0, named=True)
        acts = sub["natural"].cast(pl.Float64).to_numpy()
        se = clustered_se(acts, sub["game"].to_numpy())
        a = float(acts.mean())
        half = Z95 * se if math.isfinite(se) else math.nan
        rows.append({
            "state": key if key == "all" else (f"{SIZE_CAP}+" if key >= SIZE_CAP else str(key)),
            "points": sub.height, "games": val["games"],
            "acts": a, "acts_low": max(0.0, a - half), "acts_high": min(1.0, a + half),
            "value": val["d_game_win"], "value_low": val["d_game_win_low"],
            "value_high": val["d_game_win_high"],
            "choice": ch["d_game_win"], "choice_low": ch["d_game_win_low"],
            "choice_high": ch["d_game_win_high"]})
    return pl.DataFrame(rows)


def reading(kind: str, table: pl.DataFrame, focal: str, against: str) -> str:
    """One paragraph from a `decision_table`."""
    if table.is_empty():
        return (f"Too few {kind} decision points of {focal} against {against} for a "
                "breakdown.")
    o = table.filter(pl.col("state") == "all").row(0, named=True)
    verb = "bluffs" if kind == "bluff" else "challenges"
    text = (f"{focal} {verb} at {o['acts']:.1%} [{o['acts_low']:.1%}, {o['acts_high']:.1%}] of "
            f"its {o['points']:,} {kind} decision points against {against}; "
            f"{'bluffing' if kind == 'bluff' else 'challenging'} instead of not is worth "
            f"{o['value']:+.4f} [{o['value_low']:+.4f}, {o['value_high']:+.4f}] of game-win share "
            f"there on average, and its own answers are worth "
            f"{o['choice']:+.4f} [{o['choice_low']:+.4f}, {o['choice_high']:+.4f}] against the "
            "other answer at the same points")
    wrong = [r["state"] for r in table.iter_rows(named=True)
             if r["state"] != "all" and r["choice_high"] < 0]
    if wrong:
        text += f"; its answers cost it (interval below zero) at hand size {', '.join(wrong)}"
    return text + "."


def decision_tables(variant: str, players: int, focal="greedy", table="greedy",
                    games: int = 1000, seed: int = 0, n_jobs: int = 1, values=None,
                    every: int = 1) -> dict:
    """Both kinds at once: {kind: {"frame", "by_other", "by_own"}}."""
    out = {}
    for kind in KINDS:
        f = decision_values(kind, variant, players, focal, table, games, seed, n_jobs, values,
                            every)
        out[kind] = {"frame": f, "by_other": decision_table(f, "other_size"),
                     "by_own": decision_table(f, "own_size")}
    return out


def natural_rate(frame: pl.DataFrame) -> float:
    """The share of points where the focal policy acts (NaN without points)."""
    return float(np.mean(frame["natural"].to_numpy())) if frame.height else math.nan
