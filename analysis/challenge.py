"""Challenge study: when does a challenge pay, which challenge rule answers each bluffing
rule, and the equilibrium of the bluff/challenge game.

1. Counterfactual value of a challenge (`uno_sim.counterfactual`): seat 0
   bluffs whenever it can (`greedy(bluff=1)`), so restricted cards played on
   seat 1 are bluffs and legal cards both; at each one, the game is played on
   once with seat 1 accepting and once with it challenging (common random
   numbers).  V1 is the mean value of challenging a bluff, V0 of challenging
   a legal card, and p* = -V0 / (V1 - V0) the break-even posterior: a
   challenge pays when the challenger's posterior P(bluff) exceeds p*.
   Bootstrap intervals over games, overall and by the offender's hand size.
2. The challengers' best response to each bluffing rule of the game over
   the rule families (`uno_sim.analysis.bluffgame`), and
3. its equilibrium by double oracle, with a joint bootstrap over games for
   the value, both mixes and what bluffing and challenging are worth.
"""

from __future__ import annotations

import os

import numpy as np
import polars as pl

from . import bluffgame
from .bluff import group_best, how_sure, make_setup
from .bluffgame import FamilyGame, Rule
from .common import Setup, fmt_ci, interval_bars, new_figure, note_undefined, save
from .counterfactual import SIZE_CAP, break_even_posterior, decision_effects, run_values
from .doc import Section, StudyResult

OFFENDER = Rule("bluff", "always")

VALUES_METHOD = (
    "Break-even posterior: seat 0 bluffs whenever it can, so the restricted cards played on "
    "seat 1 are bluffs and legal cards both; at each one the game is played on once with seat 1 "
    "accepting and once challenging (common random numbers). V1 is the mean value of "
    "challenging a bluff, V0 of challenging a legal card, and p* = -V0 / (V1 - V0) the "
    "posterior P(bluff) above which a challenge pays; bootstrap intervals resample whole games.")
RULES_METHOD = (
    "The challengers' best response to each bluffing rule of the game over the rule families, "
    "and the game's equilibrium by double oracle, with a joint bootstrap over games for the "
    "value, both mixes and what the options to bluff and to challenge are worth. A mix "
    "weight's bootstrap interval can span most of 0-1 while the value's is narrow: where the "
    "game is nearly indifferent between two rules, a resample of games tips the mix from one "
    "to the other without changing the value much; the share of the resamples whose "
    "equilibrium plays a rule says which rules matter.")


def challenge_values(variant: str, players: int, games: int, seed: int, n_jobs: int = 1,
                     values=None, focal=None, table=None, every: int = 1) -> pl.DataFrame:
    """Counterfactual challenge decision points of seat 1 (plain greedy, as every seat
    but seat 0, which bluffs whenever it can); with `focal` or `table`, seat 1 plays
    `focal` (default greedy) and every other seat `table` (default greedy)."""
    if focal is not None or table is not None:
        from .strongplay import seats

        pols = seats("challenge", players, focal or "greedy", table or "greedy")
    else:
        pols = [OFFENDER.spec(players)] + ["greedy"] * (players - 1)
    return run_values("challenge", variant, players, pols, 1, games, seed, n_jobs, values,
                      every)


def break_even_tables(frame: pl.DataFrame, metric: str = "game_win", n_boot: int = 300,
                      seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """p* overall and by the offender's hand size after playing (pooled from SIZE_CAP up)."""
    overall = break_even_posterior(frame, metric, n_boot=n_boot, seed=seed)
    capped = frame.with_columns(pl.min_horizontal(pl.col("other_size"), pl.lit(SIZE_CAP)))
    by = break_even_posterior(capped, metric, by=["other_size"], n_boot=n_boot, seed=seed)
    if not by.is_empty():
        by = by.with_columns(pl.when(pl.col("other_size") >= SIZE_CAP)
                             .then(pl.lit(f"{SIZE_CAP}+"))
                             .otherwise(pl.col("other_size").cast(pl.Utf8)).alias("other_size"))
    return overall, by


def best_responses(game: FamilyGame) -> pl.DataFrame:
    """The challengers' best response to each bluffing rule, with bootstrap intervals."""
    rows = []
    for i, r in enumerate(game.rows):
        j = int(np.argmin(game.matrix[i]))
        best = game.cols[j]
        shares = game.boot.col_br[r]
        s, slo, shi = game.boot.derived[f"worst_{r.label}"]
        h, hlo, hhi = game.boot.derived[f"hold_{r.label}"]
        rows.append({"bluff rule": r.label, "best challenge rule": best.label,
                     "best in resamples": shares.get(best, 0.0),
                     "runner-up": max(((k.label, v) for k, v in shares.items() if k != best),
                                      key=lambda kv: kv[1], default=("-", 0.0))[0],
                     "seat 0 share": s, "share_low": slo, "share_high": shi,
                     "cut": h, "cut_low": hlo, "cut_high": hhi})
    return pl.DataFrame(rows)


def mix_table(game: FamilyGame, played: float = 0.01) -> pl.DataFrame:
    """Equilibrium weight of every rule, with bootstrap intervals, and `played in resamples`:
    the share of the bootstrap resamples whose equilibrium gives the rule a weight above
    `played` (NaN where the resamples were not kept)."""
    rows = []
    draws = getattr(game.boot, "draws", None) or {}
    for side, rules, mix, key in (("bluffer", game.rows, game.boot.row_mix, "row_mix"),
                                  ("challengers", game.cols, game.boot.col_mix, "col_mix")):
        xs = draws.get(key)
        order = list(mix)
        for r in rules:
            w, lo, hi = mix[r]
            share = float(np.mean(xs[:, order.index(r)] > played)) if xs is not None \
                and len(xs) else float("nan")
            rows.append({"side": side, "rule": r.label, "weight": w, "low": lo, "high": hi,
                         "played in resamples": share})
    return pl.DataFrame(rows)


def _mix_text(mix: pl.DataFrame, side: str) -> str:
    sub = mix.filter((pl.col("side") == side) & (pl.col("weight") > 0.005))
    return ", ".join(f"{r['rule']} {r['weight']:.2f} [{r['low']:.2f}, {r['high']:.2f}]"
                     for r in sub.iter_rows(named=True))


def break_even_reading(overall: pl.DataFrame, by: pl.DataFrame) -> str:
    if overall.is_empty():
        return ("Too few challenge decision points (bluffs and legal cards both) for a "
                "break-even posterior.")
    o = overall.row(0, named=True)
    text = (f"Challenging a bluff is worth {fmt_ci(o['v1'], o['v1_low'], o['v1_high'])} of "
            f"game-win share to the challenger, challenging a legal card "
            f"{fmt_ci(o['v0'], o['v0_low'], o['v0_high'])} ({o['bluffs']:,} bluffs, "
            f"{o['legal']:,} legal cards). ")
    if o["p_star"] is None or not np.isfinite(o["p_star"]):
        text += "No posterior makes a challenge pay (V1 <= V0)."
    else:
        text += (f"A challenge pays when the posterior probability of a bluff exceeds "
                 f"p* = {fmt_ci(o['p_star'], o['p_star_low'], o['p_star_high'], signed=False)}: "
                 f"the rule posterior>{o['p_star']:.2f} (challenge=posterior,"
                 f"challenge_threshold={o['p_star']:.2f}) challenges exactly then, if the "
                 "offender's bluff rate is the assumed challenge_prior.")
    if not by.is_empty():
        text += " By the offender's hand size after playing: " + "; ".join(
            f"holding {r['other_size']}: "
            + ("p* = " + fmt_ci(r["p_star"], r["p_star_low"], r["p_star_high"], signed=False)
               if r["p_star"] is not None and np.isfinite(r["p_star"])
               else f"no posterior pays in this sample (V1 <= V0; {r['bluffs']:,} bluffs, "
                    f"{r['legal']:,} legal cards)")
            for r in by.iter_rows(named=True)) + "."
    return text


def equilibrium_reading(game: FamilyGame, mix: pl.DataFrame) -> str:
    v, lo, hi = game.boot.value
    wb = game.boot.derived["worth_bluffing"]
    wc = game.boot.derived["worth_challenging"]
    r0, c0 = game.do_grid
    finer = (f"; the finer grids added {', '.join(r.label for r in game.refined)}"
             if game.refined else "")
    e, elo, ehi = game.boot.derived["edge"]
    rel = "above" if elo > 0 else "below" if ehi < 0 else "not distinguishable from"
    return (f"On the first grids of {r0} bluffing rules x {c0} challenge rules, the double "
            f"oracle converged after evaluating {game.do_pairs} of the {r0 * c0} pairs{finer}; "
            f"over all {len(game.rows)} x {len(game.cols)} rules (every pair evaluated for the "
            f"best-response tables) the equilibrium gives seat 0 "
            f"a win share of {fmt_ci(v, lo, hi, signed=False)} (fair share {game.fair:.4f}). "
            f"On the same games, that is {fmt_ci(e, elo, ehi)} against seat 0's share when "
            f"nobody bluffs or challenges ({game.mean(*game.baseline):.4f}, whose expectation "
            f"is the fair share: the seats are alike then), so the equilibrium value is {rel} "
            "the fair share. Equilibrium mixes (weight and 95% bootstrap interval): bluffer "
            f"{{{_mix_text(mix, 'bluffer')}}}; challengers {{{_mix_text(mix, 'challengers')}}}. "
            f"At equilibrium, the option to bluff is worth {fmt_ci(*wb)} of win share to seat 0 "
            f"(the value less what never bluffing guarantees), and the option to challenge "
            f"{fmt_ci(*wc)} to the table (what the table would concede without challenging, "
            "less the value)." + _endless_text(game))


def _endless_text(game: FamilyGame) -> str:
    """The games that never ended (scored 1/K to every seat), if any."""
    hit = {p: s["endless"] for p, s in game.stats.items() if s.get("endless")}
    if not hit:
        return ""
    pairs = "; ".join(f"{b.label} against {c.label}: {n}" for (b, c), n in sorted(
        hit.items(), key=lambda kv: (kv[0][0].label, kv[0][1].label)))
    return (f" Some games never ended (a seat that bluffs at every chance, challenged every "
            f"time, can take every card back and never shed one); each counts as a draw, "
            f"1/{game.players} of a win to every seat: {pairs} game(s) of {game.games:,}.")


def mix_figure(mix: pl.DataFrame, game: FamilyGame, setup: Setup, path: str) -> str:
    names = {side: mix.filter(pl.col("side") == side)["rule"].to_list()
             for side in ("bluffer", "challengers")}
    legend = (f"Bluffer's rules: {bluffgame.rule_legend('bluff', names['bluffer'])}. "
              f"Challengers' rules: {bluffgame.rule_legend('challenge', names['challengers'])}.")
    fig, axes = new_figure(setup, f"Equilibrium of the bluff/challenge game "
                                  f"({setup.variant}, {setup.players} players)", ncols=2,
                           width=5.2, height=4.6, legend=legend)
    for ax, side in zip(axes, ("bluffer", "challengers")):
        sub = mix.filter(pl.col("side") == side)
        w = sub["weight"].to_numpy()
        ax.bar(np.arange(sub.height), w, color="C0" if side == "bluffer" else "C1")
        note_undefined(ax, interval_bars(ax, np.arange(sub.height), w, sub["low"].to_numpy(),
                                         sub["high"].to_numpy(), color="k", marker=None,
                                         ls="none"), "too few games to resample")
        ax.set_xticks(np.arange(sub.height), sub["rule"].to_list(), rotation=45, ha="right",
                      fontsize=7)
        ax.plot(np.arange(sub.height), sub["played in resamples"].to_numpy(), "D", color="C3",
                ms=4, zorder=3, label="share of resamples that play the rule")
        ax.set_ylim(0, 1.05)
        ax.set_ylabel(f"{side}: equilibrium weight")
    v, lo, hi = game.boot.value
    axes[0].set_title(f"value {v:.3f} [{lo:.3f}, {hi:.3f}], fair {game.fair:.3f}", fontsize=9)
    axes[1].set_title("whiskers: bootstrap 95% interval of each weight", fontsize=9)
    axes[1].legend(fontsize=7, loc="upper left")
    for ax in axes:
        ax.set_xlabel("rule (rules of weight 0 at equilibrium included)", fontsize=8)
    return save(fig, path)


def study(variant: str = "classic", players: int = 2, games: int = 1000, seed: int = 0,
          out: str | None = None, game: FamilyGame | None = None, values=None,
          value_games: int | None = None, n_boot: int = 300, n_jobs: int = 1,
          focal=None, table=None, every: int = 1) -> StudyResult:
    """Break-even posterior, challengers' best responses and the equilibrium for one
    variant and K (arguments as `bluff.study`; with `focal` / `table`, seat 1 plays
    `focal` and every other seat, the offender included, `table`)."""
    from .common import policy_text

    out, setup = make_setup(variant, players, games, seed, out, "challenge")
    if game is None:
        game = bluffgame.solve(variant, players, games, seed, n_boot=n_boot, n_jobs=n_jobs)
    vg = value_games or games
    custom = focal is not None or table is not None
    if custom:
        focal, table = focal or "greedy", table or "greedy"
    frame = challenge_values(variant, players, vg, seed, n_jobs=n_jobs, values=values,
                             focal=focal, table=table, every=every)
    be, be_by = break_even_tables(frame, n_boot=n_boot, seed=seed)
    by_truth = decision_effects(frame, by=["truth"]) if frame.height else pl.DataFrame()
    who = "seat 1" if players == 2 else "seats 1-3" if players == 4 else f"seats 1-{players - 1}"
    others = "" if players == 2 else \
        " (restricted cards played on it by any seat; the others never bluff)"
    vsetup = Setup(variant, players, vg, seed,
                   f"seat 1 {policy_text(focal)}, every other seat {policy_text(table)}; seat "
                   f"1's challenge decisions (restricted cards played on it by any seat) "
                   "replayed both ways" if custom else
                   f"seat 0 {OFFENDER.spec(players)} (bluffs whenever it can); {who} plain "
                   f"greedy; seat 1's challenge decisions{others} replayed both ways",
                   setup.rules, unit="games")
    where = f"{variant}, {players} players"
    sec = Section(f"Challenge: {where}")
    sec.setup(vsetup.text() + ".", "counterfactual values")
    sec.method("challenge-values", VALUES_METHOD)
    sec.p(break_even_reading(be, be_by))
    decisions = {}
    if custom:
        from . import strongplay

        decisions = {"by_offender": strongplay.decision_table(frame, "other_size"),
                     "by_own": strongplay.decision_table(frame, "own_size")}
        sec.p(strongplay.reading("challenge", decisions["by_offender"], policy_text(focal),
                                 policy_text(table)))
        for key, what in (("by_offender", "the offender's (after playing)"),
                          ("by_own", "seat 1's own")):
            if not decisions[key].is_empty():
                sec.table(f"How often seat 1 challenges and what it gains, by {what} hand "
                          f"size, {where}: acts (share of the points where it challenges), "
                          f"value (of challenging instead of not), choice (its own answer "
                          f"less the other); 95% intervals clustered by game", decisions[key])
    if not by_truth.is_empty():
        sec.table(f"Value of challenging a bluff (truth 1) and a legal card (truth 0), paired "
                  f"and unpaired SEs, {where}",
                  by_truth.select("truth", "points", "games", "d_game_win", "d_game_win_low",
                                  "d_game_win_high", "d_round_win", "d_points", "se_game_win",
                                  "se_unpaired_game_win", "vr_game_win"))
    if not be.is_empty():
        sec.table(f"Break-even posterior p* = -V0 / (V1 - V0), bootstrap 95% intervals, {where}",
                  be)
    if not be_by.is_empty():
        sec.table(f"Break-even posterior by the offender's hand size after playing, {where}",
                  be_by)

    br = best_responses(game)
    mix = mix_table(game)
    parts = []
    for best, against in group_best(br, "bluff rule", "best challenge rule"):
        sub = br.filter(pl.col("bluff rule").is_in(against))
        parts.append(f"{best} against {', '.join(against)} ({how_sure(sub)})")
    sec.setup(setup.text() + ".", "the game over the rule families")
    sec.method("challenge-rules", RULES_METHOD)
    sec.p("The challengers' best response: " + "; ".join(parts) + ".")
    sec.table(f"Challengers' best response per bluffing rule, {where}; cut: seat 0's share "
              f"against never challenging less its share against the best response; bootstrap "
              f"95% intervals over {game.boot.n_boot} resamples of games", br)
    sec.p(equilibrium_reading(game, mix))
    fig = mix_figure(mix, game, setup,
                     os.path.join(out, f"challenge-equilibrium-{variant}-{players}p.png"))
    wide = mix.filter((pl.col("high") - pl.col("low")) > 0.8)["rule"].to_list()
    sec.figure(f"Equilibrium mixes, {where}: bars, the weight of each rule; whiskers, its "
               "bootstrap 95% interval; diamonds, the share of the resamples whose equilibrium "
               "plays the rule (weight above 0.01)."
               + (f" The intervals of {', '.join(wide)} span most of 0-1 while the value's is "
                  "narrow: the game is nearly indifferent between these rules, so a resample of "
                  "games tips the mix from one to another without changing the value much; "
                  "read the diamonds (which rules are played), not the exact weights."
                  if wide else ""),
               fig, alt=f"Bar charts: equilibrium weights of the bluffing and challenge rules, "
                        f"{where}")
    sec.table(f"Equilibrium weights, {where}, value "
              f"{fmt_ci(*game.boot.value, signed=False)}",
              mix.filter(pl.col("high") > 0.005))
    return StudyResult("challenge", [sec], data={
        **{f"decisions_{k}": v for k, v in decisions.items()},
        "values": frame, "break_even": be, "break_even_by_size": be_by,
        "values_by_truth": by_truth, "game": game, "best_response": br, "mixes": mix,
        "setup": setup, "values_setup": vsetup}, figures=[fig])
