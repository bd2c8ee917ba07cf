"""Balance study: seat fairness, game length, scores, reshuffles, card value, house rules.

Per variant and player count, every seat plays the same policy (greedy by
default).  From the games of the run: seat win shares with 95% Wilson
intervals and Pearson's chi-square test of equal shares; rounds per game;
final scores; reshuffles per round.  From a sample of traced games (the event
trace, docs/trace.md): turns per round, the share of rounds with a reshuffle,
and card value: for each card face (colors pooled), the chance to win the
round when the opening hand holds at least one such card minus the chance
when it holds none, with a normal 95% interval for the difference of two
proportions (the seats of one round are treated as independent observations,
which they are not quite: one of them wins).  House rules: every rule switch
beyond the printed rules, on against off, paired on the same games.
"""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import fields

import numpy as np
import polars as pl

from .common import (Setup, chisq_table_row, new_figure, run_games, rules_text,
                     save, seat_shares)
from .doc import Section, StudyResult
from uno_sim import rules as rules_mod
from uno_sim.cards import COLORS
from uno_sim.rules import Rules, RulesError
from uno_sim.stats import Z95

FACE_NAMES = {"S": "Skip", "R": "Reverse", "+2": "Draw Two", "W": "Wild", "W+4": "Wild Draw Four"}


def face_of(code: str) -> str:
    """Card code -> face with colors pooled: `R7` -> `7`, `GS` -> `Skip`, `W+4` -> `Wild Draw Four`."""
    face = code[1:] if len(code) > 1 and code[0] in COLORS and code[:2] != "W+" else code
    return FACE_NAMES.get(face, face)


# ---------------------------------------------------------------------------
# Traces -> frames
# ---------------------------------------------------------------------------

def trace_frames(events, game: int = 0) -> tuple[list, list, list]:
    """Rows of (rounds, opening-hand observations, holdings) from one game's events.

    rounds: game, round, turns (plays + passes - vintage take-backs), reshuffles, winner.
    obs: game, round, seat, won.  holdings: game, round, seat, face, count.
    """
    rounds, obs, hold = [], [], []
    cur = None
    for ev in events:
        e = ev["e"]
        if e == "round_start":
            cur = {"game": game, "round": ev["round"], "turns": 0, "reshuffles": 0}
            hands = ev["hands"]
        elif cur is None:
            continue
        elif e in ("play", "pass"):
            cur["turns"] += 1
        elif e == "take_back":
            cur["turns"] -= 1
        elif e == "reshuffle":
            cur["reshuffles"] += 1
        elif e == "round_end":
            winner = ev["p"]
            cur["winner"] = -1 if winner is None else winner
            rounds.append(cur)
            for seat, hand in enumerate(hands):
                obs.append({"game": game, "round": cur["round"], "seat": seat,
                            "won": int(winner == seat)})
                counts = {}
                for code in hand:
                    f = face_of(code)
                    counts[f] = counts.get(f, 0) + 1
                hold += [{"game": game, "round": cur["round"], "seat": seat, "face": f,
                          "count": n} for f, n in counts.items()]
            cur = None
    return rounds, obs, hold


def trace_sample(variant: str, players: int, games: int, seed: int, policies="greedy",
                 rules=None) -> dict:
    """Play `games` traced games (C engine); frames rounds, obs, holdings."""
    from uno_sim import play_game

    rules = rules or Rules(variant=variant, players=players)
    rounds, obs, hold = [], [], []
    for g in range(games):
        res = play_game(rules, policies, seed=seed, game=g, trace=True)
        r, o, h = trace_frames(res.events, g)
        rounds += r
        obs += o
        hold += h
    return {"rounds": pl.DataFrame(rounds), "obs": pl.DataFrame(obs),
            "holdings": pl.DataFrame(hold, schema={"game": pl.Int64, "round": pl.Int64,
                                                   "seat": pl.Int64, "face": pl.Utf8,
                                                   "count": pl.Int64})}


def card_value(obs: pl.DataFrame, holdings: pl.DataFrame, z: float = Z95) -> pl.DataFrame:
    """Per face: win rate of opening hands holding it vs not, difference and 95% interval."""
    key = ["game", "round", "seat"]
    faces = holdings.select("face").unique()
    full = (obs.join(faces, how="cross")
            .join(holdings, on=key + ["face"], how="left")
            .with_columns((pl.col("count").fill_null(0) > 0).alias("has")))
    g = full.group_by("face", "has").agg(pl.col("won").mean().alias("p"),
                                         pl.len().alias("n"))
    yes = g.filter(pl.col("has")).select("face", pl.col("p").alias("p_with"),
                                         pl.col("n").alias("n_with"))
    no = g.filter(~pl.col("has")).select("face", pl.col("p").alias("p_without"),
                                         pl.col("n").alias("n_without"))
    t = yes.join(no, on="face", how="full", coalesce=True).with_columns(
        (pl.col("p_with") - pl.col("p_without")).alias("effect"))
    se = (pl.col("p_with") * (1 - pl.col("p_with")) / pl.col("n_with")
          + pl.col("p_without") * (1 - pl.col("p_without")) / pl.col("n_without")).sqrt()
    return t.with_columns((pl.col("effect") - z * se).alias("low"),
                          (pl.col("effect") + z * se).alias("high")).sort("effect",
                                                                          descending=True)


# ---------------------------------------------------------------------------
# Game-level pipelines
# ---------------------------------------------------------------------------

def length_stats(games: pl.DataFrame) -> dict:
    """Rounds per game (mean, median, 90th percentile), turns and points per round,
    reshuffles per round, from a games frame."""
    p = len([c for c in games.columns if c.startswith("scores_")])
    pts = pl.sum_horizontal([pl.col(f"scores_{s}") for s in range(p)])
    r = games.select(
        pl.col("rounds").mean().alias("rounds_mean"),
        pl.col("rounds").median().alias("rounds_median"),
        pl.col("rounds").quantile(0.9, "nearest").alias("rounds_p90"),
        (pl.col("turns").sum() / pl.col("rounds").sum()).alias("turns_per_round"),
        (pts.sum() / pl.col("rounds").sum()).alias("points_per_round"),
        (pl.col("reshuffles").sum() / pl.col("rounds").sum()).alias("reshuffles_per_round"),
    ).row(0, named=True)
    return {k: float(v) for k, v in r.items()}


def final_scores(games: pl.DataFrame, players: int) -> pl.DataFrame:
    """Long frame: game, seat, score, won (win share > 0), from a frame with win_i columns."""
    return pl.concat([games.select("game", pl.lit(s).alias("seat"),
                                   pl.col(f"scores_{s}").alias("score"),
                                   (pl.col(f"win_{s}") > 0).alias("won"))
                      for s in range(players)])


def house_rule_switches() -> dict:
    """{switch: [non-default values]} for every house rule (rules.HOUSE_RULES, C-H1..C-H5).

    Read from the Rules dataclass: a bool switch is tried True; a str switch takes
    the values of the tuple `rules.<SWITCH upper-case>`.  The switches that choose
    between readings of the printed rules (editions, Flip pairing, launcher law,
    exchange mode, ...) are not house rules and are left out.
    """
    out = {}
    for f in fields(Rules):
        if f.name not in rules_mod.HOUSE_RULES:
            continue
        default = f.default
        values = []
        if isinstance(default, bool):
            values = [not default]
        else:
            choices = getattr(rules_mod, f.name.upper(), None)
            if isinstance(choices, tuple):
                values = [v for v in choices if v != default]
        if values:
            out[f.name] = values
    return out


def house_rules(variant: str, players: int, games: int, seed: int, policies="greedy",
                n_jobs: int = 1) -> pl.DataFrame | None:
    """Paired effect of each house rule on rounds per game, turns per round (per game) and
    seat 0's win share; None when there is no house rule."""
    from .common import paired_diff

    switches = house_rule_switches()
    if not switches:
        return None
    base_rules = Rules(variant=variant, players=players)
    parts = []

    def frame(rules, label):
        g = run_games(variant, players, policies, games, seed, rules=rules, n_jobs=n_jobs)
        return g.select(pl.lit(label).alias("arm"), "game", pl.col("rounds").cast(pl.Float64),
                        (pl.col("turns") / pl.col("rounds")).alias("turns_per_round"),
                        pl.col("win_0"))

    base = frame(base_rules, "printed rules")
    rows = []
    for key, values in switches.items():
        for v in values:
            try:
                rules = base_rules.replace(**{key: v})
            except RulesError:
                continue
            parts = pl.concat([base, frame(rules, f"{key}={v}")])
            d = paired_diff(parts, "arm", "printed rules",
                            ["rounds", "turns_per_round", "win_0"])
            rows.append(d.filter(pl.col("arm") != "printed rules"))
    return pl.concat(rows) if rows else None


# ---------------------------------------------------------------------------
# The study
# ---------------------------------------------------------------------------

def run(variant: str = "classic", players=range(2, 11), games: int = 1000, seed: int = 0,
        policies: str = "greedy", trace_games: int = 200, card_players: int = 4,
        card_games: int = 1000, n_jobs: int = 1) -> dict:
    """All the frames of the balance study."""
    players = list(players)
    shares, tests, lengths, scores, traced, hist = [], [], [], [], [], {}
    for k in players:
        g = run_games(variant, k, policies, games, seed, n_jobs=n_jobs)
        sh = seat_shares(g, k).with_columns(pl.lit(k).alias("players"))
        shares.append(sh)
        tests.append(chisq_table_row(k, sh))
        lengths.append({"players": k, **length_stats(g)})
        hist[k] = np.bincount(g["rounds"].to_numpy()) / g.height
        scores.append(final_scores(g, k).with_columns(pl.lit(k).alias("players")))
        if trace_games:
            t = trace_sample(variant, k, min(trace_games, games), seed, policies)
            traced.append(t["rounds"].with_columns(pl.lit(k).alias("players")))
    out = {
        "shares": pl.concat(shares).select("players", "seat", "wins", "games", "share", "low",
                                           "high"),
        "chisq": pl.DataFrame(tests),
        "length": pl.DataFrame(lengths),
        "scores": pl.concat(scores),
        "rounds": pl.concat(traced) if traced else None,
        "card_value": None, "house": None, "rounds_hist": hist,
    }
    if out["rounds"] is not None:
        rs = out["rounds"].group_by("players").agg(
            pl.len().alias("sampled_rounds"),
            pl.col("turns").median().alias("turns_median"),
            pl.col("turns").quantile(0.9, "nearest").alias("turns_p90"),
            (pl.col("reshuffles") > 0).mean().alias("rounds_with_reshuffle"))
        out["length"] = out["length"].join(rs, on="players", how="left").sort("players")
    if card_games and card_players:
        t = trace_sample(variant, card_players, card_games, seed, policies)
        out["card_value"] = card_value(t["obs"], t["holdings"])
        out["card_rounds"] = t["rounds"].height
    out["house"] = house_rules(variant, card_players or players[0], games, seed, policies,
                               n_jobs)
    return out


def _fig_shares(d, setup, path):
    fig, axes = new_figure(setup, f"Seat win shares relative to a fair share ({setup.variant})")
    ax = axes[0]
    for k in sorted(set(d["shares"]["players"].to_list())):
        s = d["shares"].filter(pl.col("players") == k).sort("seat")
        x = s["seat"].to_numpy() + (k - 6) * 0.03
        y = s["share"].to_numpy() * k
        ax.errorbar(x, y, yerr=[y - s["low"].to_numpy() * k, s["high"].to_numpy() * k - y],
                    marker="o", ms=3, capsize=2, lw=0.8, label=f"{k} players")
    ax.axhline(1.0, color="0.4", ls=":")
    ax.set_xlabel("seat")
    ax.set_ylabel("win share x players (1 = fair; 95% Wilson)")
    ax.legend(fontsize=6, ncol=3)
    return save(fig, path)


def _fig_length(d, setup, path):
    fig, axes = new_figure(setup, f"Game and round length ({setup.variant})", ncols=2,
                           width=5.0, height=4.2)
    ax = axes[0]
    for k, hist in d["rounds_hist"].items():
        ax.plot(range(len(hist)), hist, lw=1, label=f"{k}p")
    ax.set_xlabel("rounds per game")
    ax.set_ylabel("share of games")
    ax.legend(fontsize=6, ncol=2)
    ax = axes[1]
    if d["rounds"] is not None:
        for k in sorted(set(d["rounds"]["players"].to_list())):
            t = d["rounds"].filter(pl.col("players") == k)["turns"].to_numpy()
            hist = np.bincount(t // 5) / max(1, t.size)  # bins of 5 turns
            ax.plot(np.arange(len(hist)) * 5 + 2, hist, lw=1, label=f"{k}p")
        ax.set_xlim(0, np.percentile(d["rounds"]["turns"].to_numpy(), 99))
    ax.set_xlabel("turns per round (traced sample)")
    ax.set_ylabel("share of rounds (bins of 5 turns)")
    ax.legend(fontsize=6, ncol=2)
    return save(fig, path)


def _fig_scores(d, setup, path):
    fig, axes = new_figure(setup, f"Final scores of winners and losers ({setup.variant})")
    ax = axes[0]
    ks = sorted(set(d["scores"]["players"].to_list()))
    win = [d["scores"].filter((pl.col("players") == k) & pl.col("won"))["score"].to_numpy()
           for k in ks]
    lose = [d["scores"].filter((pl.col("players") == k) & ~pl.col("won"))["score"].to_numpy()
            for k in ks]
    pos = np.arange(len(ks))
    b1 = ax.boxplot(win, positions=pos - 0.2, widths=0.35, showfliers=False, patch_artist=True)
    b2 = ax.boxplot(lose, positions=pos + 0.2, widths=0.35, showfliers=False, patch_artist=True)
    for b, col in ((b1, "tab:green"), (b2, "tab:gray")):
        for patch in b["boxes"]:
            patch.set_facecolor(col)
    ax.set_xticks(pos, [str(k) for k in ks])
    ax.set_xlabel("players")
    ax.set_ylabel("final score")
    ax.legend([b1["boxes"][0], b2["boxes"][0]], ["winner", "others"], fontsize=7)
    return save(fig, path)


def _fig_cards(cv, setup, path):
    fig, axes = new_figure(setup, f"Card value: opening hand holds the face vs not ({setup.variant})",
                           height=4.8)
    ax = axes[0]
    cv = cv.sort("effect")
    y = np.arange(cv.height)
    e = cv["effect"].to_numpy()
    ax.errorbar(e, y, xerr=[e - cv["low"].to_numpy(), cv["high"].to_numpy() - e], fmt="o",
                capsize=2)
    ax.axvline(0, color="0.4", ls=":")
    ax.set_yticks(y, cv["face"].to_list(), fontsize=7)
    ax.set_xlabel("change in the chance to win the round (95% interval)")
    return save(fig, path)


def study(variant: str = "classic", players=range(2, 11), games: int = 1000, seed: int = 0,
          out: str | None = None, policies: str = "greedy", trace_games: int = 200,
          card_players: int = 4, card_games: int = 1000, n_jobs: int = 1) -> StudyResult:
    out = out or tempfile.mkdtemp(prefix="uno-balance-")
    os.makedirs(out, exist_ok=True)
    players = list(players)
    d = run(variant, players, games, seed, policies, trace_games, card_players, card_games,
            n_jobs)
    pr = f"{players[0]}-{players[-1]}" if len(players) > 1 else players[0]
    rtext = rules_text(Rules(variant=variant))
    setup = Setup(variant, pr, games, seed, f"{policies} at every seat", rtext,
                  unit="games per player count")
    secs = []

    sec = Section(f"Balance: seat win shares, {variant}")
    chi = d["chisq"]
    unfair = chi.filter(pl.col("p") < 0.05)["players"].to_list()
    worst = d["shares"].with_columns((pl.col("share") * pl.col("players")).alias("rel")) \
        .sort("rel").row(0, named=True)
    best = d["shares"].with_columns((pl.col("share") * pl.col("players")).alias("rel")) \
        .sort("rel", descending=True).row(0, named=True)
    sec.p(f"Setup: {setup.text()}.")
    sec.p(("The chi-square test rejects equal seat shares at the 5% level for "
           f"{', '.join(map(str, unfair))} players" if unfair else
           "The chi-square test finds no departure from equal seat shares at the 5% level for "
           "any player count")
          + f". Largest seat advantage: seat {best['seat']} with {best['players']} players, "
            f"{best['share']:.4f} [{best['low']:.4f}, {best['high']:.4f}] against a fair "
            f"{1 / best['players']:.4f}; largest disadvantage: seat {worst['seat']} with "
            f"{worst['players']} players, {worst['share']:.4f} [{worst['low']:.4f}, "
            f"{worst['high']:.4f}] against {1 / worst['players']:.4f}. With "
            f"{games:,} games per player count, a seat's 95% interval is at most "
            f"+-{Z95 * math.sqrt(0.25 / games):.3f} wide around its share.")
    f1 = _fig_shares(d, setup, os.path.join(out, f"balance-shares-{variant}.png"))
    sec.figure(f"Seat win shares ({setup.text()})", f1)
    sec.table(f"Chi-square test of equal seat shares ({setup.text()})", chi)
    sec.table(f"Seat win shares with 95% Wilson intervals ({setup.text()})",
              d["shares"].select("players", "seat", "share", "low", "high"))
    secs.append(sec)

    sec = Section(f"Balance: game length, scores and reshuffles, {variant}")
    ln = d["length"]
    r_lo, r_hi = ln.row(0, named=True), ln.row(-1, named=True)
    sec.p(f"Setup: {setup.text()}; turns-per-round quantiles and the share of rounds with a "
          f"reshuffle come from {min(trace_games, games)} traced games per player count.")
    sec.p(f"A game lasts {r_lo['rounds_mean']:.1f} rounds on average with {r_lo['players']} "
          f"players and {r_hi['rounds_mean']:.1f} with {r_hi['players']}; a round takes "
          f"{r_lo['turns_per_round']:.1f} turns with {r_lo['players']} players and "
          f"{r_hi['turns_per_round']:.1f} with {r_hi['players']}. Reshuffles happen "
          f"{r_lo['reshuffles_per_round']:.3f} times per round with {r_lo['players']} players "
          f"and {r_hi['reshuffles_per_round']:.3f} with {r_hi['players']}.")
    f2 = _fig_length(d, setup, os.path.join(out, f"balance-length-{variant}.png"))
    sec.figure(f"Rounds per game and turns per round ({setup.text()})", f2)
    f3 = _fig_scores(d, setup, os.path.join(out, f"balance-scores-{variant}.png"))
    sec.figure(f"Final scores ({setup.text()})", f3)
    sec.table(f"Game length, points and reshuffles per player count ({setup.text()})", ln)
    sq = (d["scores"].group_by("players", "won").agg(
        pl.col("score").mean().alias("mean"), pl.col("score").median().alias("median"),
        pl.col("score").quantile(0.1, "nearest").alias("p10"),
        pl.col("score").quantile(0.9, "nearest").alias("p90")).sort("players", "won"))
    sec.table(f"Final score by player count, winners (won=true) and others ({setup.text()})", sq)
    secs.append(sec)

    figs = [f1, f2, f3]
    if d["card_value"] is not None:
        cs = Setup(variant, card_players, card_games, seed, f"{policies} at every seat", rtext,
                   unit="traced games")
        cv = d["card_value"]
        sec = Section(f"Balance: card value, {variant}, {card_players} players")
        top, bottom = cv.row(0, named=True), cv.row(-1, named=True)
        sig_pos = cv.filter(pl.col("low") > 0)["face"].to_list()
        sig_neg = cv.filter(pl.col("high") < 0)["face"].to_list()
        sec.p(f"Setup: {cs.text()} "
              f"({d['card_rounds']:,} rounds, {d['card_rounds'] * card_players:,} opening hands).")
        sec.p(f"Holding a {top['face']} in the opening hand changes the chance to win the round "
              f"by {top['effect']:+.3f} [{top['low']:+.3f}, {top['high']:+.3f}] (base rate "
              f"{1 / card_players:.3f}); holding a {bottom['face']} by {bottom['effect']:+.3f} "
              f"[{bottom['low']:+.3f}, {bottom['high']:+.3f}]. Clearly helpful: "
              f"{', '.join(sig_pos) or 'none'}; clearly harmful: {', '.join(sig_neg) or 'none'}.")
        f4 = _fig_cards(cv, cs, os.path.join(out, f"balance-cards-{variant}.png"))
        sec.figure(f"Card value ({cs.text()})", f4)
        sec.table(f"Card value: round win rate with and without the face ({cs.text()})",
                  cv.select("face", "p_with", "n_with", "p_without", "n_without", "effect",
                            "low", "high"))
        secs.append(sec)
        figs.append(f4)

    sec = Section(f"Balance: house rules, {variant}")
    if d["house"] is None:
        sec.p("Skipped: this build has no house-rule switches (every rule switch is a printed "
              "rule; see docs/rules.md).")
    else:
        sec.p(f"Setup: {setup.text()}, {card_players} players; each house rule on against the "
              "printed rules, paired on the same games (mean per-game difference and 95% "
              "interval; a rule the deck has no cards for is left out).")
        same = d["house"].filter((pl.col("d_rounds_low") == 0) & (pl.col("d_rounds_high") == 0)
                                 & (pl.col("d_turns_per_round_low") == 0)
                                 & (pl.col("d_turns_per_round_high") == 0))
        if same.height:
            arms = same["arm"].to_list()
            why = (" (forced play: greedy never draws while it holds a playable card, and "
                   "always plays a playable drawn card)" if "forced_play=True" in arms else "")
            sec.p("Changes no game at all with these policies: " + ", ".join(arms) + why + ".")
        sec.table(f"House-rule effects ({setup.text()})", d["house"])
    secs.append(sec)
    return StudyResult("balance", secs, data={**d, "setup": setup}, figures=figs)
