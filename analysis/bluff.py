"""Bluff study: when does bluffing a restricted card pay, and which bluffing rule answers
each challenge rule?

Two designs, both on seat 0 (the bluffer) against greedy challengers (see
`uno_sim.analysis.bluffgame` for the rules and the 2-player / 4-player focal-seat
setup):

1. Counterfactual value of a bluff (`uno_sim.counterfactual`): at every turn
   where seat 0 (plain greedy, so it never bluffs by itself) holds a
   restricted card it could bluff, the game is played on from that exact
   state twice, once with the honest card and once with the bluff, with
   common random numbers.  The paired difference is the value of bluffing
   now, broken down by the next player's hand size and seat 0's own; this is
   what separates "bluffing" from "spending the card early" (against a table
   that never challenges, a bluff is pure timing).  Measured against a table
   that never challenges and one that always does.
2. The game over the rule families: seat 0's win share for every pair
   (bluffing rule, challenge rule); the bluffer's best response to each
   challenge rule, with bootstrap intervals, and the paired effect of each
   bluffing rule against never bluffing.
"""

from __future__ import annotations

import os

import numpy as np
import polars as pl

from . import bluffgame
from .bluffgame import FamilyGame, Rule, policies, setup_policies
from .common import (Setup, fmt_ci, interval_bars, new_figure, note_undefined,
                     require_restricted, rules_text, save)
from .counterfactual import by_state, decision_effects, run_values
from .doc import Section, StudyResult
from .gamestats import paired_ci
from uno_sim.rules import Rules

AGAINST = (Rule("challenge", "never"), Rule("challenge", "always"))

VALUES_METHOD = (
    "Counterfactual value of a bluff: at every turn where seat 0 (plain greedy, so it never "
    "bluffs by itself) could bluff a restricted card, the game is played on from that state "
    "once with the honest card and once with the bluff, with common random numbers; the value "
    "is the paired difference (game-win share, round win, round points), by the next player's "
    "hand size and by seat 0's own, with 95% intervals clustered by game. Next to each paired "
    "SE stands the unpaired one; their squared ratio (vr) is the variance reduction bought by "
    "the pairing.")
RULES_METHOD = (
    "The game over the rule families: seat 0's win share for every pair (bluffing rule, "
    "challenge rule), every pair on the same games. The bluffer's best response to each "
    "challenge rule is the rule of highest share, with how often it is the best in the "
    "bootstrap resamples of games and its gain over never bluffing (95% percentile intervals).")


def make_setup(variant: str, players: int, games: int, seed: int, out: str | None,
               study: str) -> tuple[str, Setup]:
    """The output folder (made if needed) and the stated setup of the bluff/challenge game;
    StudyError for a variant with nothing to bluff."""
    require_restricted(variant, study)
    from .common import temp_out

    out = out or temp_out(f"uno-{study}-")
    os.makedirs(out, exist_ok=True)
    return out, Setup(variant, players, games, seed, setup_policies(players),
                      rules_text(Rules(variant=variant, players=players)))


def bluff_values(variant: str, players: int, games: int, seed: int, against=AGAINST,
                 n_jobs: int = 1, values=None) -> pl.DataFrame:
    """Counterfactual bluff decision points of seat 0 (plain greedy) against each challenge
    rule of `against`: the decision-values frame with a column `against`."""
    parts = []
    for c in against:
        f = run_values("bluff", variant, players, policies(Rule("bluff", "never"), c, players),
                       0, games, seed, n_jobs, values)
        parts.append(f.with_columns(pl.lit(c.label).alias("against")))
    return pl.concat(parts, how="diagonal_relaxed")


def rule_effects(game: FamilyGame) -> pl.DataFrame:
    """Paired effect on seat 0's win share of each bluffing rule against never bluffing,
    for each challenge rule (same games), mean and 95% interval."""
    never = next(r for r in game.rows if r.family == "never")
    rows = []
    for c in game.cols:
        for r in game.rows:
            if r == never:
                continue
            m, lo, hi = paired_ci(game.pairs[(r, c)] - game.pairs[(never, c)])
            rows.append({"bluff rule": r.label, "challenge rule": c.label, "d_win": m,
                         "d_win_low": lo, "d_win_high": hi})
    return pl.DataFrame(rows)


def best_responses(game: FamilyGame) -> pl.DataFrame:
    """The bluffer's best response to each challenge rule, with bootstrap intervals."""
    rows = []
    for j, c in enumerate(game.cols):
        i = int(np.argmax(game.matrix[:, j]))
        best = game.rows[i]
        shares = game.boot.row_br[c]
        s, slo, shi = game.boot.derived[f"best_{c.label}"]
        g, glo, ghi = game.boot.derived[f"gain_{c.label}"]
        rows.append({"challenge rule": c.label, "best bluff rule": best.label,
                     "best in resamples": shares.get(best, 0.0),
                     "runner-up": max(((k.label, v) for k, v in shares.items() if k != best),
                                      key=lambda kv: kv[1], default=("-", 0.0))[0],
                     "share": s, "share_low": slo, "share_high": shi,
                     "gain": g, "gain_low": glo, "gain_high": ghi})
    return pl.DataFrame(rows)


def _sizes(eff: pl.DataFrame, test) -> str:
    """The hand sizes of the rows that pass `test`, as text: "1 card", "3, 4, 6+ cards"."""
    sizes = [r["other_size"] for r in eff.iter_rows(named=True) if test(r)]
    return "" if not sizes else "1 card" if sizes == ["1"] else ", ".join(sizes) + " cards"


def against_rules(game: FamilyGame) -> list[Rule]:
    """The tables the bluff values are measured against: never and always challenging,
    and the challengers' equilibrium rule of largest weight when it is neither."""
    eq = max(game.do.support("col").items(), key=lambda kv: kv[1])[0]
    return list(AGAINST) + ([eq] if eq not in AGAINST else [])


def values_reading(eff_state: pl.DataFrame, overall: pl.DataFrame, players: int,
                   order=(c.label for c in AGAINST), equilibrium: str | None = None) -> str:
    """Where a bluff pays, from the counterfactual values by the next player's hand."""
    if eff_state.is_empty():
        return "Too few bluff decision points for a breakdown by state."
    parts = []
    order = list(order)
    for against in sorted(overall["against"].to_list(),
                          key=lambda a: order.index(a) if a in order else len(order)):
        sub = eff_state.filter(pl.col("against") == against)
        o = overall.filter(pl.col("against") == against).row(0, named=True)
        pays = _sizes(sub, lambda r: r["d_game_win_low"] > 0)
        costs = _sizes(sub, lambda r: r["d_game_win_high"] < 0)
        table = "a table that never challenges" if against == "never" else \
            f"a table whose challenge rule is {against}"
        if against == equilibrium:
            table += " (the challengers' main equilibrium rule)"
        text = (f"Against {table}, bluffing now instead of playing the honest card changes "
                f"seat 0's game-win share by "
                f"{fmt_ci(o['d_game_win'], o['d_game_win_low'], o['d_game_win_high'])} on "
                f"average over {o['points']:,} decision points")
        detail = []
        if pays:
            detail.append(f"it pays (interval above zero) when the next player holds {pays}")
        if costs:
            detail.append(f"it costs (interval below zero) when the next player holds {costs}")
        if not detail:
            detail.append("no hand size of the next player gives an interval clear of zero")
        parts.append(text + "; " + "; ".join(detail) + ".")
    vr = overall["vr_game_win"].to_numpy()
    vr = vr[np.isfinite(vr)]
    if vr.size:
        parts.append(f"Pairing the two alternatives on the same continuation cuts the "
                     f"variance of the estimated value by a factor of {vr.min():.1f} to "
                     f"{vr.max():.1f} (unpaired SE over paired SE, squared).")
    return " ".join(parts)


def group_best(br: pl.DataFrame, against: str, best: str) -> list[tuple[str, list[str]]]:
    """[(best response, [opponent rules it answers])], in the order the bests first appear."""
    groups: dict = {}
    for r in br.iter_rows(named=True):
        groups.setdefault(r[best], []).append(r[against])
    return list(groups.items())


def how_sure(sub: pl.DataFrame) -> str:
    """How often the best responses of `sub` are best in the bootstrap resamples."""
    lo, hi = sub["best in resamples"].min(), sub["best in resamples"].max()
    span = f"{lo:.0%}" if round(lo, 2) == round(hi, 2) else f"{lo:.0%} to {hi:.0%}"
    return f"best in {span} of the resamples"


def br_reading(game: FamilyGame, br: pl.DataFrame) -> str:
    parts = []
    for best, against in group_best(br, "challenge rule", "best bluff rule"):
        sub = br.filter(pl.col("challenge rule").is_in(against))
        sure = how_sure(sub)
        if best == "never":
            parts.append(f"never bluffing against {', '.join(against)} ({sure})")
            continue
        top = sub.sort("gain", descending=True).row(0, named=True)
        parts.append(f"{best} against {', '.join(against)} ({sure}; the largest gain over "
                     f"never bluffing, against {top['challenge rule']}: "
                     f"{fmt_ci(top['gain'], top['gain_low'], top['gain_high'])} win share)")
    return (f"The bluffer's best response (seat 0's fair share {game.fair:.4f}): "
            + "; ".join(parts) + ".")


def heatmap(eff: pl.DataFrame, game: FamilyGame, setup: Setup, path: str) -> str:
    rs = [r.label for r in game.rows if r.family != "never"]
    cs = [c.label for c in game.cols]
    z = np.full((len(rs), len(cs)), np.nan)
    half = np.full((len(rs), len(cs)), np.nan)  # half-width of the 95% interval
    for r in eff.iter_rows(named=True):
        i, j = rs.index(r["bluff rule"]), cs.index(r["challenge rule"])
        z[i, j] = r["d_win"]
        half[i, j] = (r["d_win_high"] - r["d_win_low"]) / 2
    fig, axes = new_figure(setup, f"Bluffing rules against challenge rules: paired effect on "
                                  f"seat 0's win share ({setup.variant}, {setup.players} "
                                  "players)", width=8.5, height=5.4,
                           legend=f"Bluffing rules: {bluffgame.rule_legend('bluff', rs)}. "
                                  f"Challenge rules: {bluffgame.rule_legend('challenge', cs)}.")
    ax = axes[0]
    lim = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
    im = ax.imshow(z, cmap="RdBu", vmin=-lim or -1, vmax=lim or 1, aspect="auto")
    for i in range(len(rs)):
        for j in range(len(cs)):
            if not np.isfinite(z[i, j]):
                continue
            sure = abs(z[i, j]) > half[i, j]  # the 95% interval excludes 0
            ax.text(j, i, f"{z[i, j]:+.3f}\n±{half[i, j]:.3f}", ha="center", va="center",
                    fontsize=5.5, fontweight="bold" if sure else "normal",
                    color=("1" if abs(z[i, j]) > 0.6 * lim else "0") if sure else "0.45")
    ax.set_xticks(range(len(cs)), cs, rotation=45, ha="right", fontsize=7)
    ax.set_yticks(range(len(rs)), rs, fontsize=7)
    ax.set_xlabel("challenge rule of the other seats")
    ax.set_ylabel("seat 0's bluffing rule")
    ax.set_title("each cell: paired effect ± half its 95% interval; bold: the interval "
                 "excludes 0", fontsize=7)
    cbar = fig.colorbar(im, ax=ax, shrink=0.8, pad=0.03)
    cbar.set_label("change in win share vs never bluffing", fontsize=8, labelpad=8)
    cbar.ax.tick_params(labelsize=7)
    return save(fig, path)


def values_figure(eff: pl.DataFrame, setup: Setup, path: str) -> str:
    fig, axes = new_figure(setup, f"Counterfactual value of a bluff by the next player's hand "
                                  f"({setup.variant}, {setup.players} players)", ncols=2,
                           width=5.0, height=4.4)
    for ax, metric, label in ((axes[0], "game_win", "win share"),
                              (axes[1], "points", "round points")):
        tables = sorted(set(eff["against"].to_list())) if "against" in eff.columns else []
        undefined = 0
        for k, against in enumerate(tables):
            sub = eff.filter(pl.col("against") == against)
            x = np.arange(sub.height) + (k - (len(tables) - 1) / 2) * 0.15
            undefined += interval_bars(ax, x, sub[f"d_{metric}"].to_numpy(),
                                       sub[f"d_{metric}_low"].to_numpy(),
                                       sub[f"d_{metric}_high"].to_numpy(), marker="o", ms=3,
                                       ls="none", label=f"table: {against}")
            ax.set_xticks(np.arange(sub.height), sub["other_size"].to_list())
        note_undefined(ax, undefined, "decision points of a single game")
        if not tables:
            ax.text(0.5, 0.5, "too few bluff decision points for a breakdown by hand size",
                    transform=ax.transAxes, ha="center", va="center", fontsize=7, wrap=True)
        ax.axhline(0, color="0.5", ls=":", lw=1)
        ax.set_xlabel("next player's hand size")
        ax.set_ylabel(f"bluff - honest card: {label}")
        ax.set_title("paired 95% intervals, clustered by game", fontsize=8)
        if tables:
            ax.legend(fontsize=7)
    return save(fig, path)


def study(variant: str = "classic", players: int = 2, games: int = 1000, seed: int = 0,
          out: str | None = None, game: FamilyGame | None = None, values=None,
          value_games: int | None = None, n_boot: int = 300, n_jobs: int = 1,
          focal=None, table=None, every: int = 1) -> StudyResult:
    """Counterfactual bluff values and the bluffer's best responses for one variant and K.

    `game`: a solved `bluffgame.FamilyGame` to reuse (the challenge study reads
    the same one); `values`: a stand-in for `uno_sim.counterfactual.decision_values`;
    `value_games`: games of the counterfactual runs (default `games`).  `focal`,
    `table`: policy specs (any built-in policy) for the counterfactual values: seat
    0 plays `focal` (default greedy) and every other seat `table` (default greedy)
    instead of plain greedy against the never / always / equilibrium challenge rules;
    the section then adds how often the focal seat bluffs, by state, and what its
    answers are worth (`uno_sim.analysis.strongplay`); `every` > 1 replays one decision
    point in `every` there (a search player's decisions are expensive).
    """
    from .common import policy_text

    out, setup = make_setup(variant, players, games, seed, out, "bluff")
    if game is None:
        game = bluffgame.solve(variant, players, games, seed, n_boot=n_boot, n_jobs=n_jobs)
    vg = value_games or games
    custom = focal is not None or table is not None
    if custom:
        from . import strongplay

        focal, table = focal or "greedy", table or "greedy"
        frame = strongplay.decision_values("bluff", variant, players, focal, table, vg, seed,
                                           n_jobs, values, every)
        frame = frame.with_columns(pl.lit(policy_text(table)).alias("against"))
        labels, eq = [policy_text(table)], None
        who = (f"seat 0 {policy_text(focal)} (each bluff decision replayed both ways); "
               f"every other seat {policy_text(table)}")
    else:
        against = against_rules(game)
        eq = against[-1].label if len(against) > len(AGAINST) else None
        frame = bluff_values(variant, players, vg, seed, against=against, n_jobs=n_jobs,
                             values=values)
        labels = [c.label for c in against]
        who = ("seat 0 plain greedy (each bluff decision replayed both ways); "
               + "; ".join(f"table {c.label}: {c.spec(players)}" for c in against))
    overall = decision_effects(frame, by=["against"])
    eff_next = by_state(frame, "other_size", extra=("against",))
    eff_own = by_state(frame, "own_size", extra=("against",))
    vsetup = Setup(variant, players, vg, seed, who, setup.rules, unit="games")
    where = f"{variant}, {players} players"
    sec = Section(f"Bluff: {where}")
    sec.setup(vsetup.text() + ".", "counterfactual values")
    sec.method("bluff-values", VALUES_METHOD)
    sec.p(values_reading(eff_next, overall, players, labels, eq))
    decisions = {}
    if custom:
        from . import strongplay

        decisions = {"by_next": strongplay.decision_table(frame, "other_size"),
                     "by_own": strongplay.decision_table(frame, "own_size")}
        sec.p(strongplay.reading("bluff", decisions["by_next"], policy_text(focal),
                                 policy_text(table)))
        for key, what in (("by_next", "the next player's"), ("by_own", "seat 0's own")):
            if not decisions[key].is_empty():
                sec.table(f"How often seat 0 bluffs and what it gains, by {what} hand size, "
                          f"{where}: acts (share of the points where it bluffs), value (of "
                          f"bluffing instead of not), choice (its own answer less the other); "
                          f"95% intervals clustered by game", decisions[key])
    fig1 = values_figure(eff_next, vsetup,
                         os.path.join(out, f"bluff-values-{variant}-{players}p.png"))
    sec.figure(f"Value of a bluff by the next player's hand size, {where}: bluff minus honest "
               "card in game-win share (left) and round points (right), one series per table; "
               "paired 95% intervals clustered by game.", fig1,
               alt=f"Error-bar chart: value of a bluff by the next player's hand size, {where}")
    cols = ["against", "points", "games", "d_game_win", "d_game_win_low", "d_game_win_high",
            "d_round_win", "d_points", "se_game_win", "se_unpaired_game_win", "vr_game_win"]
    sec.table(f"Value of a bluff overall, paired and unpaired SEs, {where}", overall.select(cols))
    for eff, size, whose in ((eff_next, "other_size", "the next player's"),
                             (eff_own, "own_size", "seat 0's own")):
        if eff.is_empty():  # by_state leaves out hand sizes with too few points
            sec.p(f"No breakdown by {whose} hand size, {where}: no hand size has enough "
                  f"bluff decision points.")
        else:
            sec.table(f"Value of a bluff by {whose} hand size, {where}",
                      eff.select([size] + cols))

    br = best_responses(game)
    eff = rule_effects(game)
    sec.setup(setup.text() + ".", "the game over the rule families")
    sec.method("bluff-rules", RULES_METHOD)
    sec.p(br_reading(game, br))
    fig2 = heatmap(eff, game, setup, os.path.join(out, f"bluff-rules-{variant}-{players}p.png"))
    sec.figure(f"Paired effect of each bluffing rule against never bluffing, {where}: one cell "
               "per pair of rules, bold where the 95% interval excludes 0.", fig2,
               alt=f"Heatmap: bluffing rules against challenge rules, {where}")
    sec.table(f"Bluffer's best response per challenge rule, {where}; bootstrap 95% intervals "
              f"over {game.boot.n_boot} resamples of games", br)
    return StudyResult("bluff", [sec], data={
        **{f"decisions_{k}": v for k, v in decisions.items()},
        "values": frame, "values_overall": overall, "values_by_next": eff_next,
        "values_by_own": eff_own, "game": game, "best_response": br, "rule_effects": eff,
        "setup": setup, "values_setup": vsetup}, figures=[fig1, fig2])
