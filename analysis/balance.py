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
from dataclasses import fields

import numpy as np
import polars as pl

from .common import (Setup, chisq_table_row, fmt_ci, interval_bars, new_figure,
                     note_undefined, run_games, rules_text, save, seat_shares, temp_out)
from .doc import Section, StudyResult
from .gamestats import Z95, chisquare_equal, diff_test, holm, share_test
from uno_sim import rules as rules_mod
from uno_sim.cards import COLORS, Effect, deck_for
from uno_sim.rules import Rules, RulesError
from uno_sim.stats import wilson

FACE_NAMES = {"S": "Skip", "R": "Reverse", "+2": "Draw Two", "W": "Wild", "W+4": "Wild Draw Four",
              "+1": "Draw One", "F": "Flip", "W+2": "Wild Draw Two", "+5": "Draw Five",
              "SE": "Skip Everyone", "DW": "Wild", "DW+C": "Wild Draw Color",
              "H2": "Hit 2", "DA": "Discard All", "WH": "Extreme Hit",
              "WBM": "Badtz-Maru Wild", "WX": "Hand-Exchange Wild"}


def face_of(code: str) -> str:
    """Card code -> face with colors pooled: `R7` -> `7`, `GS` -> `Skip`, `W+4` -> `Wild Draw Four`,
    `W:draw_three` -> `Custom Wild (draw three)` (S3)."""
    if code.startswith("W:"):
        return f"Custom Wild ({code[2:].replace('_', ' ')})"
    face = code[1:] if len(code) > 1 and code[0] in COLORS and code[:2] != "W+" else code
    return FACE_NAMES.get(face, face)


def kinds_of(code: str) -> list[str]:
    """The printed kinds of a card, colors pooled: one for a one-sided card, two for a Flip card.

    A two-faced card (`light/dark` in the trace, F1) holds one light kind and one dark
    kind, each pooled with the other cards of its side that print the same face:
    `R7/T2` -> `light 7`, `dark 2`.  The pairing of the two faces is not a kind.
    """
    if "/" not in code:
        return [face_of(code)]
    light, dark = code.split("/", 1)
    return [f"light {face_of(light)}", f"dark {face_of(dark)}"]


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
            cur["winner"] = winner  # None (null) for a stalemate, as in rounds.parquet
            rounds.append(cur)
            for seat, hand in enumerate(hands):
                obs.append({"game": game, "round": cur["round"], "seat": seat,
                            "won": int(winner == seat)})
                counts = {}
                for code in hand:
                    for f in kinds_of(code):
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
    return {"rounds": pl.DataFrame(rounds, schema_overrides={"winner": pl.Int8}), "obs": pl.DataFrame(obs),
            "holdings": pl.DataFrame(hold, schema={"game": pl.Int64, "round": pl.Int64,
                                                   "seat": pl.Int64, "face": pl.Utf8,
                                                   "count": pl.Int64})}


def card_value(obs: pl.DataFrame, holdings: pl.DataFrame, z: float = Z95) -> pl.DataFrame:
    """Per printed kind: win rate of opening hands holding it vs not, difference, 95% interval,
    two-proportion test (p) and its Holm correction over the kinds (p_holm).

    A kind in every hand or in none has no comparison and no row.
    """
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
    t = (yes.join(no, on="face", how="inner")
         .with_columns((pl.col("p_with") - pl.col("p_without")).alias("effect")))
    se = (pl.col("p_with") * (1 - pl.col("p_with")) / pl.col("n_with")
          + pl.col("p_without") * (1 - pl.col("p_without")) / pl.col("n_without")).sqrt()
    t = t.with_columns((pl.col("effect") - z * se).alias("low"),
                       (pl.col("effect") + z * se).alias("high"))
    p = [diff_test(r["p_with"], r["n_with"], r["p_without"], r["n_without"])
         for r in t.iter_rows(named=True)]
    return (t.with_columns(pl.Series("p", p, dtype=pl.Float64),
                           pl.Series("p_holm", holm(p), dtype=pl.Float64))
            .sort("effect", descending=True))


def deck_kinds(rules: Rules) -> list[str]:
    """The printed kinds (colors pooled; Flip: light and dark kinds) of the deck's cards."""
    deck = deck_for(rules)
    if deck.sides == 1:
        codes = {deck.kinds[k].code for k in deck.card_kind}
    else:
        codes = {f"{deck.kinds[a].code}/{deck.kinds[b].code}"
                 for a, b in zip(deck.card_kind, deck.dark_kind)}
    return sorted({f for c in codes for f in kinds_of(c)})


# ---------------------------------------------------------------------------
# Rounds: the winner's position relative to the dealer
# ---------------------------------------------------------------------------

def first_to_play(dealer: int, effect: Effect, players: int) -> tuple[int, int]:
    """C5: (the seat that takes the first turn, the direction of play +1/-1) after a starter
    of this effect, seats numbered in the starting direction of play."""
    if effect in (Effect.SKIP, Effect.DRAW, Effect.HIT):  # the dealer's left is skipped
        return (dealer + 2) % players, 1
    if effect == Effect.REVERSE:  # the dealer plays first, then play goes the other way
        return dealer, -1
    return (dealer + 1) % players, 1


def round_positions(rounds: pl.DataFrame, players: int, rules: Rules) -> pl.DataFrame:
    """The rounds with a winner, with the winner's position and place in the order of play.

    position: the winner's seat offset from the dealer, clockwise (the starting
    direction of play, the seat order of C4's deal): 1 is the dealer's left,
    the first to play after a plain starter, ..., `players` is the dealer.
    play_position: the winner's place in the order of the round's first turns, 1 being
    the first to play: a starter Skip or Draw Two makes the dealer's left the last to
    play, a Reverse makes the dealer the first and turns the order round (C5).
    """
    r = rounds.filter(pl.col("winner").is_not_null())
    effects = {k.code: k.effect for k in deck_for(rules).kinds}
    dealer = r["dealer"].to_numpy().astype(np.int64)
    winner = r["winner"].to_numpy().astype(np.int64)
    first, direction = np.empty_like(dealer), np.empty_like(dealer)
    for i, (d, code) in enumerate(zip(dealer, r["starter"].to_list())):
        first[i], direction[i] = first_to_play(int(d), effects[code], players)
    return r.select("game", "round", "dealer", "starter", "winner").with_columns(
        pl.Series("position", (winner - dealer - 1) % players + 1),
        pl.Series("play_position", ((winner - first) * direction) % players + 1))


def position_shares(positions: pl.DataFrame, players: int, column: str = "position",
                    z: float = Z95) -> tuple[pl.DataFrame, dict]:
    """Share of rounds won per position with 95% Wilson intervals, the edge over 1/K and
    its two-sided test (p) with Holm's correction over the K positions (p_holm); and the
    chi-square goodness-of-fit test of equal shares as a dict."""
    n = positions.height
    counts = np.bincount(positions[column].to_numpy(), minlength=players + 1)[1:]
    rows = []
    for pos, w in enumerate(counts, start=1):
        lo, hi = wilson(float(w), n, z)
        rows.append({"position": pos, "wins": int(w), "rounds": n,
                     "share": w / n if n else math.nan, "low": lo, "high": hi,
                     "edge": (w / n if n else math.nan) - 1 / players,
                     "p": share_test(float(w), n, 1 / players)[1]})
    t = pl.DataFrame(rows)
    t = t.with_columns(pl.Series("p_holm", holm(t["p"].to_numpy()), dtype=pl.Float64))
    stat, df, p = chisquare_equal(counts)
    return t, {"players": players, "rounds": n, "chi2": stat, "df": df, "p": p}


def winner_points(rounds: pl.DataFrame, players: int) -> np.ndarray:
    """Points the winner of each won round scored (C17), from a rounds frame."""
    r = rounds.filter(pl.col("winner").is_not_null())
    pts = r.select([f"points_{s}" for s in range(players)]).to_numpy()
    return pts[np.arange(r.height), r["winner"].to_numpy()]


def compound(points, players: int, deltas, target: int = 500, games: int = 10_000,
             seed: int = 0) -> pl.DataFrame:
    """How a per-round edge compounds over a game to `target`: a simple model, simulated.

    Model: rounds are independent; player 0 wins a round with probability
    1/K + delta, each other player with (1 - 1/K - delta) / (K - 1); the round's winner
    scores a number of points drawn from `points` (the winners' round points of a
    real run), and the first to reach `target` wins the game (C17).  Each model game
    draws from the engine's generator for (seed, game), the same stream for every
    delta (common random numbers).  Returns per delta: player 0's game win share with
    its Wilson interval, the edge over 1/K and its paired 95% interval against
    delta = 0, and the gain (game edge / round edge).
    """
    from uno_sim.rng import Rng, key_from_seed

    from .gamestats import paired_ci

    pts = [int(x) for x in points]
    if not pts or max(pts) <= 0:
        raise ValueError("compound needs round points with at least one positive value")
    key = key_from_seed(seed)
    base = None
    rows = []
    for delta in [0.0] + [float(d) for d in deltas if d != 0]:
        q = 1 / players + delta
        if not 0 < q < 1:
            raise ValueError(f"invalid delta {delta!r}: 1/K + delta must lie in (0, 1)")
        other = (1 - q) / (players - 1)
        won = np.zeros(games)
        for g in range(games):
            rng = Rng(key, g)
            scores = [0] * players
            while True:
                u = rng.uniform()
                w = 0 if u < q else 1 + min(players - 2, int((u - q) / other))
                scores[w] += pts[rng.bounded(len(pts))]
                if scores[w] >= target:
                    break
            won[g] = w == 0
        if base is None:
            base = won
        share = float(won.mean())
        lo, hi = wilson(float(won.sum()), games)
        m, dlo, dhi = paired_ci(won - base)
        rows.append({"round_edge": delta, "round_share": q, "game_share": share,
                     "low": lo, "high": hi, "game_edge": m, "game_edge_low": dlo,
                     "game_edge_high": dhi, "gain": m / delta if delta else math.nan})
    return pl.DataFrame(rows)


# ---------------------------------------------------------------------------
# Game-level pipelines
# ---------------------------------------------------------------------------

def length_stats(games: pl.DataFrame) -> dict:
    """Rounds per game (mean with its normal 95% interval, median, 90th percentile), turns,
    points and reshuffles per round, from a games frame."""
    p = len([c for c in games.columns if c.startswith("scores_")])
    pts = pl.sum_horizontal([pl.col(f"scores_{s}") for s in range(p)])
    half = Z95 * pl.col("rounds").std(ddof=1).fill_null(0.0) / math.sqrt(max(games.height, 1))
    r = games.select(
        pl.col("rounds").mean().alias("rounds_mean"),
        (pl.col("rounds").mean() - half).alias("rounds_mean_low"),
        (pl.col("rounds").mean() + half).alias("rounds_mean_high"),
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
                n_jobs: int = 1) -> tuple[pl.DataFrame | None, list[str]]:
    """Paired effect of each house rule on rounds per game, turns and points per round.

    Returns (effects, unchanged): `unchanged` names the arms that play every game
    exactly as the printed rules do (no row: their effect is zero by construction).
    A seat's win share is not measured: with the same policy at every seat and a
    random first dealer it is 1/K under any rule, by symmetry.  (None, []) when
    there is no house rule.
    """
    from .common import paired_diff

    switches = house_rule_switches()
    if not switches:
        return None, []
    base_rules = Rules(variant=variant, players=players)
    p = players

    def frame(rules, label):
        g = run_games(variant, players, policies, games, seed, rules=rules, n_jobs=n_jobs)
        pts = pl.sum_horizontal([pl.col(f"scores_{s}") for s in range(p)])
        return g.select(pl.lit(label).alias("arm"), "game", pl.col("rounds").cast(pl.Float64),
                        (pl.col("turns") / pl.col("rounds")).alias("turns_per_round"),
                        (pts / pl.col("rounds")).alias("points_per_round"),
                        pl.concat_str([pl.col(c) for c in ["rounds", "turns"]
                                       + [f"scores_{s}" for s in range(p)]],
                                      separator=",").alias("_sig"))

    base = frame(base_rules, "printed rules")
    rows, unchanged = [], []
    for key, values in switches.items():
        for v in values:
            try:
                rules = base_rules.replace(**{key: v})
            except RulesError:
                continue
            label = f"{key}={v}"
            arm = frame(rules, label)
            if (arm["_sig"] == base["_sig"]).all():
                unchanged.append(label)
                continue
            d = paired_diff(pl.concat([base, arm]).drop("_sig"), "arm", "printed rules",
                            ["rounds", "turns_per_round", "points_per_round"])
            changed = int((arm["_sig"] != base["_sig"]).sum())
            rows.append(d.filter(pl.col("arm") != "printed rules")
                        .with_columns(pl.lit(changed).alias("games_changed")))
    return (pl.concat(rows) if rows else None), unchanged


# ---------------------------------------------------------------------------
# The study
# ---------------------------------------------------------------------------

def _simulate(variant, players, policies, games, seed, n_jobs):
    """Games frame (with win_i columns) and rounds frame of one run."""
    from uno_sim.runner import simulate

    from .common import with_wins

    res = simulate(variant=variant, players=players, games=games, policies=policies,
                   seed=seed, n_jobs=n_jobs)
    return with_wins(res.games, players), res.rounds


def game_share_tests(shares: pl.DataFrame, players: int) -> pl.DataFrame:
    """A seat_shares frame with each seat's test against 1/K (p) and Holm's p_holm."""
    p = [share_test(w, n, 1 / players)[1] for w, n in zip(shares["wins"], shares["games"])]
    return shares.with_columns(pl.Series("p", p, dtype=pl.Float64),
                               pl.Series("p_holm", holm(p), dtype=pl.Float64))


def run(variant: str = "classic", players=range(2, 11), games: int = 1000, seed: int = 0,
        policies: str = "greedy", trace_games: int = 200, card_players: int = 4,
        card_games: int = 1000, n_jobs: int = 1, model_games: int = 20_000) -> dict:
    """All the frames of the balance study."""
    players = list(players)
    shares, tests, lengths, scores, traced, hist = [], [], [], [], [], {}
    pos_tabs, pos_tests, play_tabs, play_tests, points = [], [], [], [], {}
    for k in players:
        g, rounds = _simulate(variant, k, policies, games, seed, n_jobs)
        sh = game_share_tests(seat_shares(g, k), k).with_columns(pl.lit(k).alias("players"))
        shares.append(sh)
        tests.append(chisq_table_row(k, sh))
        pos = round_positions(rounds, k, Rules(variant=variant, players=k))
        for col, tabs, tsts in (("position", pos_tabs, pos_tests),
                                ("play_position", play_tabs, play_tests)):
            t, chi = position_shares(pos, k, col)
            tabs.append(t.with_columns(pl.lit(k).alias("players")))
            tsts.append(chi)
        points[k] = winner_points(rounds, k)
        lengths.append({"players": k, **length_stats(g)})
        hist[k] = np.bincount(g["rounds"].to_numpy()) / g.height
        scores.append(final_scores(g, k).with_columns(pl.lit(k).alias("players")))
        if trace_games:
            t = trace_sample(variant, k, min(trace_games, games), seed, policies)
            traced.append(t["rounds"].with_columns(pl.lit(k).alias("players")))
    first = ["players"]
    out = {
        "positions": pl.concat(pos_tabs).select(first + pos_tabs[0].columns[:-1]),
        "positions_chisq": pl.DataFrame(pos_tests),
        "play_positions": pl.concat(play_tabs).select(first + play_tabs[0].columns[:-1]),
        "play_positions_chisq": pl.DataFrame(play_tests),
        "shares": pl.concat(shares).select("players", "seat", "wins", "games", "share", "low",
                                           "high", "p", "p_holm"),
        "chisq": pl.DataFrame(tests),
        "length": pl.DataFrame(lengths),
        "scores": pl.concat(scores),
        "rounds": pl.concat(traced) if traced else None,
        "card_value": None, "house": None, "house_unchanged": [], "rounds_hist": hist,
        "compound": None,
    }
    if out["rounds"] is not None:
        rs = out["rounds"].group_by("players").agg(
            pl.len().alias("sampled_rounds"),
            pl.col("turns").median().alias("turns_median"),
            pl.col("turns").quantile(0.9, "nearest").alias("turns_p90"),
            (pl.col("reshuffles") > 0).mean().alias("rounds_with_reshuffle"))
        out["length"] = out["length"].join(rs, on="players", how="left").sort("players")
    ck = card_players if card_players in players else players[0]
    rules = Rules(variant=variant, players=ck)
    if model_games and rules.scoring == "standard" and points[ck].size and points[ck].max() > 0:
        edge = out["positions"].filter((pl.col("players") == ck) & (pl.col("position") == 1))
        measured = round(float(edge["edge"][0]), 4)
        deltas = sorted({measured, 0.01, 0.02, 0.05} - {0.0})
        out["compound"] = compound(points[ck], ck, deltas, rules.target, model_games, seed)
        out["compound_players"] = ck
        out["compound_measured"] = measured
        out["compound_mean_points"] = float(points[ck].mean())
    if card_games and card_players:
        t = trace_sample(variant, card_players, card_games, seed, policies)
        out["card_value"] = card_value(t["obs"], t["holdings"])
        out["card_rounds"] = t["rounds"].height
        out["card_dropped"] = sorted(set(deck_kinds(Rules(variant=variant)))
                                     - set(out["card_value"]["face"].to_list()))
    out["house"], out["house_unchanged"] = house_rules(variant, card_players or players[0],
                                                       games, seed, policies, n_jobs)
    return out


def _fig_fair_shares(frame, key, setup, path, title, xlabel, ylabel):
    """Shares x K per player count K against `key` (seat or position), 1 = fair."""
    fig, axes = new_figure(setup, title)
    ax = axes[0]
    for k in sorted(set(frame["players"].to_list())):
        s = frame.filter(pl.col("players") == k).sort(key)
        x = s[key].to_numpy() + (k - 6) * 0.03
        interval_bars(ax, x, s["share"].to_numpy() * k, s["low"].to_numpy() * k,
                      s["high"].to_numpy() * k, marker="o", ms=3, lw=0.8, label=f"{k} players")
    ax.axhline(1.0, color="0.4", ls=":")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.xaxis.get_major_locator().set_params(integer=True)  # seats and positions are whole
    ax.legend(fontsize=6, ncol=3)
    return save(fig, path)


def _fig_shares(d, setup, path):
    return _fig_fair_shares(d["shares"], "seat", setup, path,
                            f"Seat win shares relative to a fair share ({setup.variant})",
                            "seat", "win share x players (1 = fair; 95% Wilson)")


def _fig_positions(d, setup, path):
    return _fig_fair_shares(d["positions"], "position", setup, path,
                            f"Round wins by position from the dealer ({setup.variant})",
                            "position from the dealer (1 = dealer's left, K = dealer)",
                            "round win share x players (1 = fair; 95% Wilson)")


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
    fig, axes = new_figure(setup, f"Card value: opening hand holds the kind vs not ({setup.variant})",
                           height=4.8)
    ax = axes[0]
    cv = cv.sort("effect")
    y = np.arange(cv.height)
    undefined = interval_bars(ax, y, cv["effect"].to_numpy(), cv["low"].to_numpy(),
                              cv["high"].to_numpy(), horizontal=True, marker="o", ls="none")
    note_undefined(ax, undefined, "too few rounds")
    ax.axvline(0, color="0.4", ls=":")
    ax.set_yticks(y, cv["face"].to_list(), fontsize=7)
    ax.set_xlabel("change in the chance to win the round (95% interval)")
    return save(fig, path)


def study(variant: str = "classic", players=range(2, 11), games: int = 1000, seed: int = 0,
          out: str | None = None, policies: str = "greedy", trace_games: int = 200,
          card_players: int = 4, card_games: int = 1000, n_jobs: int = 1,
          model_games: int = 20_000) -> StudyResult:
    out = out or temp_out("uno-balance-")
    os.makedirs(out, exist_ok=True)
    players = list(players)
    d = run(variant, players, games, seed, policies, trace_games, card_players, card_games,
            n_jobs, model_games)
    d["model_games"] = model_games
    if len(players) == 1:
        pr = players[0]
    elif players == list(range(players[0], players[-1] + 1)):
        pr = f"{players[0]}-{players[-1]}"
    else:
        pr = ",".join(map(str, players))
    rtext = rules_text(Rules(variant=variant))
    setup = Setup(variant, pr, games, seed, policies, rtext,
                  unit="games per player count")
    secs = []

    sec = Section(f"Balance: round wins by position from the dealer, {variant}")
    pos, pchi = d["positions"], d["positions_chisq"]
    sec.setup(setup.text() + ".")
    sec.method("balance-positions",
               "Round wins by position from the dealer. A seat's position in a round is its "
               "offset from that round's dealer, clockwise: in the starting direction of play, "
               "to the left, the order of the deal (C4). Position 1 is the dealer's left, the "
               "first to play after a plain starter card, and position K is the dealer. Per "
               "player count K: the share of the rounds with a winner won from each position, "
               "with 95% Wilson intervals, its edge over 1/K, a two-sided test of share = 1/K "
               "per position with Holm's correction over the K positions (p_holm), and the chi-"
               "square goodness-of-fit test of equal shares over all positions. The rounds of "
               "one game are counted as independent observations: each is dealt from its own "
               f"stream and the {policies} policy does not look at the scores. By place in the "
               "order of play instead: a starter Skip or Draw Two skips the dealer's left, a "
               "starter Reverse makes the dealer play first and turns the order round (C5), so "
               "the first to play is not always position 1.")
    ones = pos.filter(pl.col("position") == 1).sort("players")
    reading = []
    for r in ones.iter_rows(named=True):
        reading.append(f"{r['players']} players {r['share']:.4f} [{r['low']:.4f}, "
                       f"{r['high']:.4f}] against {1 / r['players']:.4f} (edge "
                       f"{r['edge']:+.4f}, Holm p {r['p_holm']:.2g})")
    rejected = pchi.filter(pl.col("p") < 0.05)["players"].to_list()
    sec.p("Position 1 (the dealer's left) wins a share of the rounds of " + "; ".join(reading)
          + f". In {variant}, the chi-square test rejects equal position shares at the 5% "
          "level for "
          + (", ".join(map(str, rejected)) + " players." if rejected else "no player count."))
    best = pos.sort("edge", descending=True).row(0, named=True)
    worst = pos.sort("edge").row(0, named=True)
    sec.p(f"Largest edge: position {best['position']} with {best['players']} players, "
          f"{best['edge']:+.4f} [{best['low'] - 1 / best['players']:+.4f}, "
          f"{best['high'] - 1 / best['players']:+.4f}]; largest deficit: position "
          f"{worst['position']} with {worst['players']} players, {worst['edge']:+.4f} "
          f"[{worst['low'] - 1 / worst['players']:+.4f}, "
          f"{worst['high'] - 1 / worst['players']:+.4f}].")
    f1 = _fig_positions(d, setup, os.path.join(out, f"balance-positions-{variant}.png"))
    sec.figure(f"Round win share by position from the dealer, {variant}: share x K per player "
               "count K (1 = fair), 95% Wilson intervals.", f1,
               alt=f"Error-bar chart: round win share by position from the dealer, {variant}, "
                   f"players {pr}")
    sec.table(f"Chi-square test of equal round shares by position from the dealer, {variant}",
              pchi)
    sec.table(f"Round win share by position from the dealer, {variant}; 95% Wilson intervals, "
              "Holm-corrected tests of share = 1/K", pos.drop("rounds"))
    ppos = d["play_positions"]
    p1 = ppos.filter(pl.col("position") == 1).sort("players")
    sec.p("By place in the order of play, the first to play wins "
          + "; ".join(f"{r['share']:.4f} [{r['low']:.4f}, {r['high']:.4f}] with "
                      f"{r['players']} players" for r in p1.iter_rows(named=True))
          + " of the rounds.")
    sec.table(f"Chi-square test of equal round shares by place in the order of play, {variant}",
              d["play_positions_chisq"])
    sec.table(f"Round win share by place in the order of play (1 = first to play), {variant}; "
              "Holm-corrected tests of share = 1/K",
              ppos.drop("rounds").rename({"position": "place"}))
    cp = d.get("compound")
    if cp is not None:
        k = d["compound_players"]
        m = cp.filter(pl.col("round_edge") == d["compound_measured"])
        m = m.row(0, named=True) if m.height else None
        big = cp.sort("round_edge").row(-1, named=True)
        gains = cp.filter(pl.col("round_edge") != 0)["gain"]
        sec.method("balance-compound",
                   "How a per-round edge compounds over a game to the target score: a simple "
                   f"model, simulated ({d['model_games']:,} model games per edge, common random "
                   "numbers). In the model one of K players wins each round with probability "
                   "1/K + delta, the others share the rest equally, and the round's winner "
                   "scores points drawn from the winners' round points of the K-player run; "
                   "the first to reach the target wins (C17). No seat keeps position 1 in a "
                   "real game: the deal passes to the left every round, so each seat takes "
                   "every position in turn and the per-round edges average out over a game.")
        sec.p(f"Compounding over a game to {Rules(variant=variant).target} points, {k} players "
              f"(winners' mean round points {d['compound_mean_points']:.1f}): "
              + (f"a player who won every round with position 1's measured edge "
                 f"({m['round_edge']:+.4f}) would win {m['game_share']:.4f} [{m['low']:.4f}, "
                 f"{m['high']:.4f}] of the games instead of {1 / k:.4f}: a game edge of "
                 f"{m['game_edge']:+.4f} [{m['game_edge_low']:+.4f}, "
                 f"{m['game_edge_high']:+.4f}] (paired against delta = 0). " if m else "")
              + f"A round edge of {big['round_edge']:+.2f} gives {big['game_edge']:+.4f} "
              f"[{big['game_edge_low']:+.4f}, {big['game_edge_high']:+.4f}]; the game edge is "
              f"{gains.min():.1f} to {gains.max():.1f} times the round edge, because a game "
              "takes several won rounds and the favoured player needs fewer of them.")
        sec.table(f"Model, {variant}: per-round edge of one player -> its game win share ({k} "
                  f"players, target {Rules(variant=variant).target})", cp)
    secs.append(sec)

    sec = Section(f"Balance: seat win shares over whole games (a check), {variant}")
    chi = d["chisq"]
    sec.setup(setup.text() + ".")
    flagged = d["shares"].filter(pl.col("p_holm") < 0.05)
    rejected = chi.filter(pl.col("p") < 0.05)["players"].to_list()
    sec.method("balance-check",
               "Seat win shares over whole games are equal by construction: every seat plays "
               "the same policy, the first dealer is drawn at random (C3) and the deal then "
               "passes to the left every round, so each seat holds every position equally "
               "often in expectation. The table is a check of the simulator, not a finding: "
               f"any departure would be a bug or chance. With {games:,} games per player count, "
               f"a seat's 95% interval is at most +-{Z95 * math.sqrt(0.25 / games):.3f} wide "
               "around its share.")
    sec.p(f"In {variant}, the chi-square test of equal seat shares "
          + (f"rejects at the 5% level for {', '.join(map(str, rejected))} players"
             if rejected else "rejects at the 5% level for no player count")
          + f" ({chi.height} tests, so about {0.05 * chi.height:.1f} false alarms are expected "
          "by chance); the per-seat tests, Holm-corrected within each player count, flag "
          + (", ".join(f"seat {r['seat']} of {r['players']}" for r in
                       flagged.iter_rows(named=True)) if flagged.height else "no seat")
          + ".")
    f0 = _fig_shares(d, setup, os.path.join(out, f"balance-shares-{variant}.png"))
    sec.figure(f"Seat win shares over whole games, {variant} (a check): share x K per player "
               "count K (1 = fair), 95% Wilson intervals.", f0,
               alt=f"Error-bar chart: seat win shares over whole games, {variant}, players {pr}")
    sec.table(f"Check, {variant}: chi-square test of equal seat shares", chi)
    sec.table(f"Check, {variant}: seat win shares with 95% Wilson intervals and Holm-corrected "
              "tests of share = 1/K",
              d["shares"].select("players", "seat", "share", "low", "high", "p", "p_holm"))
    secs.append(sec)

    sec = Section(f"Balance: game length, scores and reshuffles, {variant}")
    ln = d["length"]
    r_lo, r_hi = ln.row(0, named=True), ln.row(-1, named=True)
    sec.setup(setup.text() + ".")
    sec.method("balance-length",
               "Game length: rounds per game (mean with a normal 95% interval, median, 90th "
               "percentile), turns, points and reshuffles per round from the games of the run; "
               "turns-per-round quantiles and the share of rounds with a reshuffle from "
               f"{min(trace_games, games):,} traced games per player count.")
    def rounds(r):
        return fmt_ci(r["rounds_mean"], r["rounds_mean_low"], r["rounds_mean_high"], 2, False)

    sec.p(f"A {variant} game lasts {rounds(r_lo)} rounds on average with {r_lo['players']} "
          f"players and {rounds(r_hi)} with {r_hi['players']}; a round takes "
          f"{r_lo['turns_per_round']:.1f} turns with {r_lo['players']} players and "
          f"{r_hi['turns_per_round']:.1f} with {r_hi['players']}. Reshuffles happen "
          f"{r_lo['reshuffles_per_round']:.3f} times per round with {r_lo['players']} players "
          f"and {r_hi['reshuffles_per_round']:.3f} with {r_hi['players']}.")
    f2 = _fig_length(d, setup, os.path.join(out, f"balance-length-{variant}.png"))
    sec.figure(f"Game and round length, {variant}: distribution of rounds per game (left) and "
               "of turns per round in the traced sample (right), one line per player count.",
               f2, alt=f"Line charts: rounds per game and turns per round, {variant}")
    f3 = _fig_scores(d, setup, os.path.join(out, f"balance-scores-{variant}.png"))
    sec.figure(f"Final scores of winners and of the other seats per player count, {variant} "
               "(boxes: quartiles; whiskers: 1.5 interquartile ranges).", f3,
               alt=f"Box plots: final scores of winners and others by player count, {variant}")
    sec.table(f"Game length, points and reshuffles per player count, {variant}", ln)
    sq = (d["scores"].group_by("players", "won").agg(
        pl.col("score").mean().alias("mean"), pl.col("score").median().alias("median"),
        pl.col("score").quantile(0.1, "nearest").alias("p10"),
        pl.col("score").quantile(0.9, "nearest").alias("p90")).sort("players", "won"))
    sec.table(f"Final score by player count, winners (won=true) and others, {variant}", sq)
    secs.append(sec)

    figs = [f1, f0, f2, f3]
    if d["card_value"] is not None:
        cs = Setup(variant, card_players, card_games, seed, policies, rtext,
                   unit="traced games")
        cv = d["card_value"]
        sec = Section(f"Balance: card value, {variant}, {card_players} players")
        top, bottom = cv.row(0, named=True), cv.row(-1, named=True)
        sig_pos = cv.filter((pl.col("p_holm") < 0.05) & (pl.col("effect") > 0))["face"].to_list()
        sig_neg = cv.filter((pl.col("p_holm") < 0.05) & (pl.col("effect") < 0))["face"].to_list()
        sec.setup(f"{cs.text()} ({d['card_rounds']:,} rounds, "
                  f"{d['card_rounds'] * card_players:,} opening hands).")
        flip = cv["face"].str.starts_with("light ").any()
        sec.method("balance-cards",
                   "Card value. Per printed kind (colors pooled): the chance to win the round "
                   "when the opening hand holds at least one such card minus the chance when it "
                   "holds none, with a 95% interval per kind, a two-proportion test per kind and "
                   "Holm's correction over the family of the deck's kinds (p_holm).")
        if flip:
            sec.method("balance-cards-flip",
                       "UNO Flip cards have two faces: each face is a kind of its side (light "
                       "kinds and dark kinds separately, F1), so a card counts once for its "
                       "light kind and once for its dark kind; the light/dark pairing is not a "
                       "kind.")
        dropped = d.get("card_dropped") or []
        sec.p(f"Holding a {top['face']} in the opening hand changes the chance to win the round "
              f"by {top['effect']:+.4f} [{top['low']:+.4f}, {top['high']:+.4f}] (base rate "
              f"{1 / card_players:.4f}); holding a {bottom['face']} by {bottom['effect']:+.4f} "
              f"[{bottom['low']:+.4f}, {bottom['high']:+.4f}]. Helpful after Holm's correction "
              f"(p_holm < 0.05): {', '.join(sig_pos) or 'none'}; harmful: "
              f"{', '.join(sig_neg) or 'none'}."
              + (f" Left out, held by no opening hand or by every one (no comparison): "
                 f"{', '.join(dropped)}." if dropped else ""))
        f4 = _fig_cards(cv, cs, os.path.join(out, f"balance-cards-{variant}.png"))
        sec.figure(f"Card value, {variant}, {card_players} players: change in the chance to "
                   "win the round when the opening hand holds the kind, with 95% intervals.",
                   f4, alt=f"Dot plot: card value by kind, {variant}, {card_players} players")
        sec.table(f"Card value, {variant}: round win rate with and without the kind, "
                  "Holm-corrected tests",
                  cv.select("face", "p_with", "n_with", "p_without", "n_without", "effect",
                            "low", "high", "p", "p_holm").rename({"face": "kind"}))
        secs.append(sec)
        figs.append(f4)

    sec = Section(f"Balance: house rules, {variant}")
    hk = card_players or players[0]
    unchanged = d["house_unchanged"]
    if d["house"] is None and not unchanged:
        sec.p("Skipped: this build has no house-rule switches (every rule switch is a printed "
              "rule; see docs/rules.md).")
    else:
        sec.setup(setup.text() + ".")
        sec.method("balance-house",
                   f"House rules: each house rule on against the printed rules at {hk} players, "
                   "paired on the same games (mean per-game difference and 95% interval; a rule "
                   "the deck has no cards for is left out). Seat win shares are not compared: "
                   "with the same policy at every seat and a random first dealer they are 1/K "
                   "under any rule, by symmetry.")
        if unchanged:
            why = (" (forced play: greedy never draws while it holds a playable card, and "
                   "always plays a playable drawn card)" if "forced_play=True" in unchanged
                   else "")
            sec.p(f"Left out of the {variant} table, identical to the printed rules in every "
                  "game with these policies: " + ", ".join(unchanged) + why + ".")
        if d["house"] is not None:
            sec.table(f"House-rule effects, {variant}, {hk} players", d["house"])
    secs.append(sec)
    return StudyResult("balance", secs, data={**d, "setup": setup}, figures=figs)
