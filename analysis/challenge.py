"""Challenge study: best responses and the equilibrium of the bluff/challenge game.

The payoff grid is seat 0's mean win share when it bluffs with probability b
and every opponent challenges with probability c (the bluff study's grid, the
same paired runs).  Opponents play alike, so minimizing seat 0's share is the
same as maximizing the opponents' mean share (1 - share) / (K - 1): the game
"bluffer against the table" is zero-sum.  The best-response challenge rate for
a bluff rate b is the grid c with the lowest seat-0 share; the equilibrium is
the solution of the matrix game (`equilibrium.solve_zero_sum`) over the grid,
its value seat 0's guaranteed share.  Sampling noise in the grid passes into
both, so read them with the intervals of the table.

`challenge=auto`: when the policies know it (a `challenge_threshold` knob),
the opponents challenge by threshold instead; the best threshold is the one
that minimizes the bluffer's best-response share (minimax over the b grid).
"""

from __future__ import annotations

import os

import numpy as np
import polars as pl

from .bluff import GRID, grid_setup, run_grid
from .common import new_figure, run_games, save
from .doc import Section, StudyResult
from .equilibrium import solve_zero_sum
from uno_sim.policies import parse_policy
from uno_sim.rules import RulesError
from uno_sim.stats import wilson

THRESHOLDS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def payoff_table(grid: pl.DataFrame, arm2: str = "c") -> pl.DataFrame:
    """Seat 0's mean win share per (b, arm2) with 95% Wilson intervals."""
    t = (grid.group_by("b", arm2).agg(pl.col("win").sum().alias("wins"), pl.len().alias("n"))
         .sort("b", arm2))
    lows, highs = zip(*(wilson(w, n) for w, n in zip(t["wins"], t["n"]))) if t.height else ((), ())
    return t.with_columns((pl.col("wins") / pl.col("n")).alias("share"),
                          pl.Series("low", lows, dtype=pl.Float64),
                          pl.Series("high", highs, dtype=pl.Float64))


def payoff_matrix(table: pl.DataFrame, arm2: str = "c"):
    """(bs, cs, matrix[b, c] of seat-0 shares)."""
    bs = sorted(set(table["b"].to_list()))
    cs = sorted(set(table[arm2].to_list()))
    m = np.full((len(bs), len(cs)), np.nan)
    for r in table.iter_rows(named=True):
        m[bs.index(r["b"]), cs.index(r[arm2])] = r["share"]
    return bs, cs, m


def best_responses(table: pl.DataFrame, arm2: str = "c") -> pl.DataFrame:
    """Per bluff rate: the challenge setting that minimizes seat 0's share, and that share."""
    best = (table.sort("share", arm2).group_by("b", maintain_order=False)
            .agg(pl.col(arm2).first().alias(f"best_{arm2}"), pl.col("share").first(),
                 pl.col("low").first(), pl.col("high").first())
            .sort("b"))
    return best


def equilibrium(table: pl.DataFrame, arm2: str = "c") -> dict:
    bs, cs, m = payoff_matrix(table, arm2)
    x, y, v = solve_zero_sum(m)
    return {"b": bs, arm2: cs, "bluff_mix": x, "challenge_mix": y, "value": v, "matrix": m}


def auto_supported() -> bool:
    """Whether the policies take `challenge=auto` with a `challenge_threshold` knob."""
    try:
        spec = parse_policy("greedy(challenge=auto)")
        return "challenge_threshold" in spec.knobs()
    except (RulesError, ValueError, KeyError):
        return False


def run_auto_grid(variant, players, games, seed, bluffs=GRID, thresholds=THRESHOLDS,
                  n_jobs: int = 1) -> pl.DataFrame | None:
    """Like `bluff.run_grid` with opponents on `challenge=auto` per threshold; None if unsupported."""
    if not auto_supported():
        return None
    parts = []
    for t in thresholds:
        spec = f"greedy(challenge=auto,challenge_threshold={t:g})"
        try:
            parse_policy(spec)
        except RulesError:
            continue
        for b in bluffs:
            g = run_games(variant, players, [f"greedy(bluff={b:g})"] + [spec] * (players - 1),
                          games, seed, n_jobs=n_jobs)
            parts.append(g.select(pl.lit(float(b)).alias("b"), pl.lit(float(t)).alias("t"),
                                  "game", pl.col("win_0").alias("win")))
    return pl.concat(parts) if parts else None


def figure(table, br, eq, setup, path) -> str:
    fig, axes = new_figure(setup, f"Challenging: seat 0's win share by challenge rate "
                                  f"({setup.variant}, {setup.players} players)", ncols=2,
                           width=5.2, height=4.6)
    ax = axes[0]
    for b in sorted(set(table["b"].to_list())):
        sub = table.filter(pl.col("b") == b).sort("c")
        c, s = sub["c"].to_numpy(), sub["share"].to_numpy()
        ax.errorbar(c, s, yerr=[s - sub["low"].to_numpy(), sub["high"].to_numpy() - s],
                    marker="o", ms=3, capsize=2, label=f"b={b:g}")
    ax.scatter(br["best_c"], br["share"], s=80, facecolors="none", edgecolors="k",
               label="best response", zorder=5)
    ax.axhline(1 / setup.players, color="0.5", ls=":", lw=1)
    ax.set_xlabel("opponents' challenge probability c")
    ax.set_ylabel("seat 0 win share (95% Wilson)")
    ax.legend(fontsize=7)
    ax = axes[1]
    w = 0.4
    ax.bar(np.arange(len(eq["b"])) - w / 2, eq["bluff_mix"], w, label="bluffer: b")
    ax.bar(np.arange(len(eq["c"])) + w / 2, eq["challenge_mix"], w, label="challengers: c")
    ax.set_xticks(range(len(eq["b"])), [f"{v:g}" for v in eq["b"]])
    ax.set_xlabel("grid value (b for the bluffer, c for the challengers)")
    ax.set_ylabel("equilibrium probability")
    ax.set_title(f"equilibrium, value {eq['value']:.4f}", fontsize=9)
    ax.legend(fontsize=7)
    return save(fig, path)


def _mix_text(values, mix):
    return ", ".join(f"{v:g}: {p:.2f}" for v, p in zip(values, mix) if p > 0.005)


def study(variant: str = "classic", players: int = 4, games: int = 1000, seed: int = 0,
          out: str | None = None, bluffs=GRID, challenges=GRID, grid: pl.DataFrame | None = None,
          thresholds=THRESHOLDS, n_jobs: int = 1) -> StudyResult:
    out, setup = grid_setup(variant, players, games, seed, out, "challenge")
    if grid is None:
        grid = run_grid(variant, players, games, seed, bluffs, challenges, n_jobs)
    table = payoff_table(grid)
    br = best_responses(table)
    eq = equilibrium(table)
    fig = figure(table, br, eq, setup, os.path.join(out, f"challenge-{variant}-{players}p.png"))
    sec = Section(f"Challenge: {variant}, {players} players")
    sec.p(f"Setup: {setup.text()}.")
    fair = 1 / players
    pure_b0 = table.filter(pl.col("b") == 0)
    text = [f"Solved over the {len(eq['b'])} x {len(eq['c'])} grid, the bluff/challenge game has "
            f"value {eq['value']:.4f} for the bluffing seat (a fair share is {fair:.4f}); "
            f"equilibrium bluff mix {{{_mix_text(eq['b'], eq['bluff_mix'])}}}, challenge mix "
            f"{{{_mix_text(eq['c'], eq['challenge_mix'])}}}."]
    base = table.filter((pl.col("b") == 0) & (pl.col("c") == 0))
    if base.height:
        r0 = base.row(0, named=True)
        text.append(f"For comparison, seat 0's share when nobody bluffs or challenges is "
                    f"{r0['share']:.4f} [{r0['low']:.4f}, {r0['high']:.4f}].")
    brs = br["best_c"].to_list()
    text.append("Best-response challenge rate by bluff rate: "
                + ", ".join(f"b={b:g} -> c={c:g}" for b, c in zip(br["b"], brs)) + ".")
    if pure_b0.height > 1:
        h = pure_b0.sort("c")
        lo_c, hi_c = h.row(0, named=True), h.row(-1, named=True)
        text.append(f"Against an honest seat (b = 0), seat 0's share is {lo_c['share']:.4f} "
                    f"[{lo_c['low']:.4f}, {lo_c['high']:.4f}] at c = {lo_c['c']:g} and "
                    f"{hi_c['share']:.4f} [{hi_c['low']:.4f}, {hi_c['high']:.4f}] at "
                    f"c = {hi_c['c']:g}.")
    sec.p(" ".join(text))
    sec.figure(f"Seat 0 win share by challenge rate, and the equilibrium ({setup.text()})", fig)
    sec.table(f"Best-response challenge rate per bluff rate ({setup.text()})",
              br.select("b", "best_c", "share", "low", "high"))
    mix = pl.DataFrame({"grid value": eq["b"], "bluff probability": eq["bluff_mix"],
                        "challenge probability": eq["challenge_mix"]}) \
        if eq["b"] == eq["c"] else None
    if mix is not None:
        sec.table(f"Equilibrium mixed strategies, value {eq['value']:.4f} ({setup.text()})", mix)
    data = {"grid": grid, "payoff": table, "best_response": br, "equilibrium": eq,
            "setup": setup, "auto": None}

    auto = run_auto_grid(variant, players, games, seed, bluffs, thresholds, n_jobs)
    sec2 = Section(f"Challenge=auto threshold: {variant}, {players} players")
    if auto is None:
        sec2.p("Skipped: the policies in this build do not take `challenge=auto` with a "
               "`challenge_threshold` knob.")
    else:
        at = payoff_table(auto, "t")
        worst = (at.sort("share", descending=True).group_by("t")
                 .agg(pl.col("b").first().alias("bluffer_best_b"),
                      pl.col("share").first().alias("bluffer_best_share")).sort("t"))
        best = worst.sort("bluffer_best_share").row(0, named=True)
        auto_setup = setup.text().replace("greedy(challenge=c)",
                                          "greedy(challenge=auto,challenge_threshold=t)")
        sec2.p(f"Setup: {auto_setup}. "
               f"The threshold that leaves a best-responding bluffer the least is t = {best['t']:g}: "
               f"the bluffer's best rate there is b = {best['bluffer_best_b']:g} for a share of "
               f"{best['bluffer_best_share']:.4f} (fair share {fair:.4f}).")
        sec2.table(f"Bluffer's best response per threshold ({auto_setup})", worst)
        data["auto"] = at
    return StudyResult("challenge", [sec, sec2], data=data, figures=[fig])
