"""Bluff study: what bluffing restricted wilds is worth against challengers.

Design.  Seat 0 plays ``greedy(bluff=b)``, every other seat plays
``greedy(challenge=c)``, for every (b, c) of a grid.  Every arm plays the same
seed and game numbers, so the same deals (the engine seeds game g from
(seed, g)); the effect of b is the per-game paired difference against the arm
b = 0 with the same c, averaged with a normal 95% interval.  Two outcomes per
game: seat 0's share of the win, and seat 0's points per round (its final
score over the game's rounds).  The break-even line is where the effect on the
win share crosses zero along c.
"""

from __future__ import annotations

import os

import numpy as np
import polars as pl

from .common import (Setup, StudyError, fmt_ci, new_figure, paired_diff, require_restricted,
                     run_games, save, rules_text)
from .doc import Section, StudyResult
from uno_sim.rules import Rules

GRID = (0.0, 0.25, 0.5, 0.75, 1.0)


def arm_policies(b: float, c: float, players: int) -> list[str]:
    return [f"greedy(bluff={b:g})"] + [f"greedy(challenge={c:g})"] * (players - 1)


def run_grid(variant: str = "classic", players: int = 4, games: int = 1000, seed: int = 0,
             bluffs=GRID, challenges=GRID, n_jobs: int = 1) -> pl.DataFrame:
    """One row per (b, c, game): seat 0's win share `win` and points per round `ppr`,
    its bluffs, and the challenges its opponents made."""
    require_restricted(variant, "bluff")
    if 0.0 not in [float(b) for b in bluffs]:
        raise StudyError("the bluff grid needs b = 0, the baseline of the paired differences")
    parts = []
    for c in challenges:
        for b in bluffs:
            g = run_games(variant, players, arm_policies(b, c, players), games, seed,
                          n_jobs=n_jobs)
            opp = [f"challenges_{s}" for s in range(1, players)]
            parts.append(g.select(
                pl.lit(float(b)).alias("b"), pl.lit(float(c)).alias("c"), "game",
                pl.col("win_0").alias("win"),
                (pl.col("scores_0") / pl.col("rounds")).alias("ppr"),
                pl.col("bluffs_0").alias("bluffs"),
                pl.sum_horizontal(opp).alias("challenges"),
                pl.col("rounds")))
    return pl.concat(parts).with_columns(pl.lit(variant).alias("variant"),
                                         pl.lit(players).alias("players"))


def grid_setup(variant: str, players: int, games: int, seed: int, out: str | None,
               study: str) -> tuple[str, Setup]:
    """The output folder (made if needed) and the stated setup of a bluff x challenge grid;
    StudyError for a variant with nothing to bluff."""
    require_restricted(variant, study)
    from .common import temp_out

    out = out or temp_out(f"uno-{study}-")
    os.makedirs(out, exist_ok=True)
    setup = Setup(variant, players, games, seed,
                  "seat 0 greedy(bluff=b), others greedy(challenge=c)",
                  rules_text(Rules(variant=variant, players=players)))
    return out, setup


def effects(grid: pl.DataFrame) -> pl.DataFrame:
    """Paired effect of b against b = 0 at the same c: d_win, d_ppr with 95% intervals."""
    return paired_diff(grid, "b", 0.0, ["win", "ppr"], keys=["c"])


def break_even(eff: pl.DataFrame, metric: str = "d_win") -> pl.DataFrame:
    """For each b > 0, the challenge rate where the effect crosses zero (linear
    interpolation between grid points); null where it keeps one sign over the grid."""
    rows = []
    for b in sorted(set(eff["b"].to_list())):
        if b == 0:
            continue
        sub = eff.filter(pl.col("b") == b).sort("c")
        cs, ds = sub["c"].to_numpy(), sub[metric].to_numpy()
        cross = None
        for i in range(len(cs) - 1):
            if ds[i] == 0:
                cross = float(cs[i])
                break
            if ds[i] * ds[i + 1] < 0:
                cross = float(cs[i] + (cs[i + 1] - cs[i]) * ds[i] / (ds[i] - ds[i + 1]))
                break
        if cross is None and len(ds) and ds[-1] == 0:
            cross = float(cs[-1])
        rows.append({"b": b, "break_even_c": cross,
                     "sign_at_c0": float(np.sign(ds[0])) if len(ds) else None})
    return pl.DataFrame(rows, schema={"b": pl.Float64, "break_even_c": pl.Float64,
                                      "sign_at_c0": pl.Float64})


def heatmap(eff: pl.DataFrame, setup: Setup, path: str) -> str:
    bs = sorted(set(eff["b"].to_list()))
    cs = sorted(set(eff["c"].to_list()))
    fig, axes = new_figure(setup, f"Bluffing restricted wilds: paired effect on seat 0 "
                                  f"({setup.variant}, {setup.players} players)", ncols=2,
                           width=5.2, height=4.8)
    for ax, metric, label in ((axes[0], "d_win", "change in win share"),
                              (axes[1], "d_ppr", "change in points per round")):
        z = np.full((len(bs), len(cs)), np.nan)
        for r in eff.iter_rows(named=True):
            z[bs.index(r["b"]), cs.index(r["c"])] = r[metric]
        lim = np.nanmax(np.abs(z)) or 1.0
        im = ax.imshow(z, origin="lower", cmap="RdBu", vmin=-lim, vmax=lim, aspect="auto",
                       extent=(-0.5, len(cs) - 0.5, -0.5, len(bs) - 0.5))
        if np.nanmin(z[1:]) < 0 < np.nanmax(z[1:]) and len(bs) > 1 and len(cs) > 1:
            ax.contour(np.arange(len(cs)), np.arange(len(bs)), z, levels=[0.0], colors="k",
                       linewidths=1.5)
        for i in range(len(bs)):
            for j in range(len(cs)):
                ax.text(j, i, f"{z[i, j]:+.3f}" if metric == "d_win" else f"{z[i, j]:+.1f}",
                        ha="center", va="center", fontsize=7)
        ax.set_xticks(range(len(cs)), [f"{c:g}" for c in cs])
        ax.set_yticks(range(len(bs)), [f"{b:g}" for b in bs])
        ax.set_xlabel("opponents' challenge probability c")
        ax.set_ylabel("seat 0 bluff probability b")
        ax.set_title(label + " (black: break-even)", fontsize=9)
        fig.colorbar(im, ax=ax, shrink=0.8)
    return save(fig, path)


def reading(eff: pl.DataFrame, be: pl.DataFrame, players: int) -> str:
    """A short reading generated from the numbers."""
    full = eff.filter(pl.col("b") == pl.col("b").max())
    if full.is_empty():
        return "No bluffing arm was run."
    bmax = full["b"][0]
    at0 = full.filter(pl.col("c") == pl.col("c").min()).row(0, named=True)
    at1 = full.filter(pl.col("c") == pl.col("c").max()).row(0, named=True)

    def verdict(r):
        if r["d_win_low"] > 0:
            return "gains"
        if r["d_win_high"] < 0:
            return "loses"
        return "changes nothing measurable in"

    parts = [
        f"With {players} players, a seat bluffing with b = {bmax:g} {verdict(at0)} win share "
        f"against opponents who challenge with c = {at0['c']:g} "
        f"({fmt_ci(at0['d_win'], at0['d_win_low'], at0['d_win_high'])}, "
        f"{at0['d_ppr']:+.1f} points per round), and {verdict(at1)} win share against "
        f"c = {at1['c']:g} ({fmt_ci(at1['d_win'], at1['d_win_low'], at1['d_win_high'])}, "
        f"{at1['d_ppr']:+.1f} points per round)."]
    row = be.filter(pl.col("b") == bmax)
    if not row.is_empty() and row["break_even_c"][0] is not None:
        parts.append(f"The effect on win share crosses zero near c = {row['break_even_c'][0]:.2f}: "
                     "against opponents who challenge more often than that, bluffing costs.")
    elif not row.is_empty():
        side = "positive" if (row["sign_at_c0"][0] or 0) > 0 else "negative"
        parts.append(f"The effect on win share stays {side} over the whole challenge grid "
                     "(no break-even inside it).")
    return " ".join(parts)


def study(variant: str = "classic", players: int = 4, games: int = 1000, seed: int = 0,
          out: str | None = None, bluffs=GRID, challenges=GRID, grid: pl.DataFrame | None = None,
          n_jobs: int = 1) -> StudyResult:
    """Run (or reuse `grid`) and return tables, heatmap and reading for one variant and K."""
    out, setup = grid_setup(variant, players, games, seed, out, "bluff")
    if grid is None:
        grid = run_grid(variant, players, games, seed, bluffs, challenges, n_jobs)
    eff = effects(grid)
    be = break_even(eff)
    fig = heatmap(eff, setup, os.path.join(out, f"bluff-{variant}-{players}p.png"))
    sec = Section(f"Bluff: {variant}, {players} players")
    sec.p(f"Setup: {setup.text()}. Paired design: every arm plays the same games; "
          "effects are per-game differences against b = 0 at the same c, mean and 95% interval.")
    sec.p(reading(eff, be, players))
    sec.figure(f"Effect of bluffing on seat 0 ({setup.text()})", fig)
    shown = eff.filter(pl.col("b") > 0).select(
        "b", "c", "n", "d_win", "d_win_low", "d_win_high", "d_ppr", "d_ppr_low", "d_ppr_high")
    sec.table(f"Paired effects against b = 0 ({setup.text()})", shown)
    sec.table(f"Break-even challenge rate per bluff rate ({setup.text()})", be)
    return StudyResult("bluff", [sec], data={"grid": grid, "effects": eff, "break_even": be,
                                             "setup": setup}, figures=[fig])
