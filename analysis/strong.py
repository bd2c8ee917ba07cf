"""Strong play: do the report's answers hold for the search players?

Two report sections and one summary answer (`summary.LATER_ANSWERS`):

1. A small league (`uno_sim.league`): random, greedy, strategic, one pimc and one ismcts
   budget and one `cheat=1` search player (the upper bound), at the tables of
   `LEAGUE_TABLES` (classic and Flip at 2 players, classic at 4), its Bradley-Terry ratings
   with bootstrap intervals and the strength-against-thinking-time figure.
2. Counterfactual bluff and challenge values (`uno_sim.counterfactual`'s forcing, which
   reaches a search player's own decisions) with the search player `FOCAL` at the focal
   seat, beside plain greedy at that seat on the same games: seat 0 bluffing against a
   table that never challenges; seat 1 challenging a table that bluffs whenever it can.
   A search player's games are expensive, so one decision point in `EVERY` is replayed
   both ways (`strongplay.decision_values(..., every=EVERY)`, a systematic sample).

Every size is an argument (the report's --strong-deals, --strong-games); the sections
state them.  Results do not depend on `n_jobs`.
"""

from __future__ import annotations

import math
import os

import numpy as np
import polars as pl

from .common import StudyError, fmt_ci
from .doc import Section

LEAGUE_PLAYERS = ("random", "greedy", "strategic", "pimc(samples=4,rollouts=2)",
                  "ismcts(iterations=25)", "pimc(samples=4,rollouts=2,cheat=1)")
FOCAL = "pimc(samples=4,rollouts=2)"  # the search player at the focal seat
LEAGUE_TABLES = (("classic", 2), ("flip", 2), ("classic", 4))
DEFAULT_DEALS = 48
DEFAULT_GAMES = 300
EVERY = 4  # one decision point in EVERY replayed both ways (strongplay.decision_values)
MAX_SIZE = 10**5
OFFENDER = "greedy(bluff=1)"  # seat 0 of the challenge design: bluffs whenever it can


def check_size(value, what: str) -> int:
    """A size of the strong-play sections: a whole number 0..MAX_SIZE (0: not run)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or \
            not 0 <= value <= MAX_SIZE:
        raise StudyError(f"invalid {what} {value!r}: expected a whole number 0..{MAX_SIZE}")
    return int(value)


# --- counterfactual values ------------------------------------------------------------

def play_values(variant: str, players: int, games: int, seed: int, focal: str = FOCAL,
                n_jobs: int = 1, every: int = EVERY) -> dict:
    """{(kind, focal policy): frame} for greedy and `focal` at the focal seat, same games,
    one decision point in `every` replayed (`strongplay.decision_values`)."""
    from .strongplay import decision_values

    out = {}
    for who in ("greedy", focal):
        out[("bluff", who)] = decision_values("bluff", variant, players, who, "greedy", games,
                                              seed, n_jobs, every=every)
        out[("challenge", who)] = decision_values("challenge", variant, players, who, OFFENDER,
                                                  games, seed, n_jobs, every=every)
    return out


def value_table(frames: dict, kind: str, focal: str) -> pl.DataFrame:
    """Per focal policy and state (the next player's / the offender's hand size, pooled
    from 4 up): points, how often the policy itself bluffs / challenges, and the value of
    doing so in game-win share with its clustered 95% interval."""
    from .counterfactual import decision_effects

    rows = []
    for who in ("greedy", focal):
        f = frames[(kind, who)]
        if f.is_empty():
            continue
        f = f.with_columns(pl.when(pl.col("other_size") >= 4).then(pl.lit("4+"))
                           .otherwise(pl.col("other_size").cast(pl.Utf8)).alias("state"))
        for by in ((), ("state",)):
            eff = decision_effects(f, by=by, metrics=("game_win",), min_points=2)
            for r in eff.iter_rows(named=True):
                rows.append({"focal": who, "state": r.get("state", "all"),
                             "points": r["points"], "natural": r["natural"],
                             "d_game_win": r["d_game_win"],
                             "d_game_win_low": r["d_game_win_low"],
                             "d_game_win_high": r["d_game_win_high"]})
    return pl.DataFrame(rows) if rows else pl.DataFrame()


# --- the sections ---------------------------------------------------------------------

def _league(deals: int, seed: int, n_jobs: int, tables, out: str):
    from uno_sim.league import play_league

    leagues = []
    for k in sorted({k for _, k in tables}):
        vs = [v for v, kk in tables if kk == k]
        leagues.append(play_league(list(LEAGUE_PLAYERS), variants=vs, player_counts=[k],
                                   deals=deals, seed=seed, bootstrap=300, jobs=n_jobs))
    return leagues


def _ok(*xs):
    return all(x is not None and math.isfinite(x) for x in xs)


def study(deals: int = DEFAULT_DEALS, games: int = DEFAULT_GAMES, seed: int = 0,
          out: str = ".", n_jobs: int = 1, tables=LEAGUE_TABLES, variant: str = "classic",
          players: int = 2) -> dict:
    """Run the league (`deals` per pairing; 0: none) and the strong-play values (`games`
    games of `variant` at `players`; 0: none); returns {'sections', 'leagues', 'frames',
    'tables', ...} (the league figures written into `out`)."""
    deals, games = check_size(deals, "strong-deals"), check_size(games, "strong-games")
    os.makedirs(out, exist_ok=True)
    res = {"sections": [], "leagues": [], "frames": {}, "tables": {}, "deals": deals,
           "games": games, "focal": FOCAL, "variant": variant, "players": players}
    if deals:
        sec = Section("Strong play: the league")
        leagues = _league(deals, seed, n_jobs, tables, out)
        res["leagues"] = leagues
        sec.p(f"Every pairing of {', '.join(f'`{p}`' for p in LEAGUE_PLAYERS)} on {deals} "
              "deals per pairing, each deal played once per seat rotation (uno_sim.league; "
              "docs/policies.md \"League\"); Bradley-Terry ratings on the Elo scale, greedy = "
              "0, with percentile 95% bootstrap intervals over deals (300 resamples); seed "
              f"{seed}. The search budgets are low so that the report stays cheap: "
              "`uno-sim league` plays bigger ones. `us/decision`: CPU microseconds per "
              "decision in self-play, measured on the machine that made the report (the one "
              "number here that a rerun does not reproduce exactly).")
        for lg in leagues:
            for t in lg.tables:
                rows = pl.DataFrame([{"player": r["player"] + (" *" if r["bound"] else ""),
                                      "rating": fmt_ci(r["rating"], r["low"], r["high"], 0),
                                      "share": round(r["share"], 3),
                                      "us/decision": round(r["cpu_seconds_per_decision"] * 1e6,
                                                           3)}
                                     for r in t.rows()])
                sec.table(f"Ratings, {t.title()} ({deals} deals per pairing)", rows)
                from uno_sim.league import BOUND_NOTE

                sec.p(_reading(t) + (" " + BOUND_NOTE.lstrip("* ").capitalize().replace(
                    "Every pairing of this player", "(*) Every pairing of a starred player")
                    + "." if t.bounded() else ""))
        for lg in leagues:
            fig = os.path.join(out, f"strong_league_{lg.player_counts[0]}p.png")
            lg.plot(fig)
            sec.figure(f"Rating against CPU time per decision (log scale) with 95% intervals, "
                       f"{lg.player_counts[0]} players: {deals} deals per pairing, seed {seed}",
                       fig)
        res["sections"].append(sec)
    if games:
        frames = play_values(variant, players, games, seed, FOCAL, n_jobs)
        res["frames"] = frames
        sec = Section("Strong play: bluff and challenge values of a search player")
        sec.p(f"{variant}, {players} players, games 0-{games - 1}, seed {seed}. One decision "
              f"point of the focal seat in {EVERY} (a systematic sample) is played on both "
              "ways with common random numbers (uno_sim.counterfactual). Bluff: "
              f"seat 0 is plain greedy or `{FOCAL}`, the table plain greedy (never "
              f"challenges). Challenge: the table `{OFFENDER}` (bluffs whenever it can), seat 1 "
              f"plain greedy or `{FOCAL}`. `natural`: how often the focal policy itself "
              "bluffs / challenges at those points; value: game-win share, alternative 1 "
              "minus 0, 95% intervals clustered by game.")
        for kind in ("bluff", "challenge"):
            t = value_table(frames, kind, FOCAL)
            res["tables"][kind] = t
            if t.is_empty():
                sec.p(f"No {kind} decision point in these games.")
                continue
            shown = t.with_columns(
                pl.struct(["d_game_win", "d_game_win_low", "d_game_win_high"]).map_elements(
                    lambda s: fmt_ci(s["d_game_win"], s["d_game_win_low"],
                                     s["d_game_win_high"], 3), return_dtype=pl.Utf8)
                .alias("value"), pl.col("natural").round(3)).select(
                "focal", "state", "points", "natural", "value")
            what = "next player's" if kind == "bluff" else "offender's"
            sec.table(f"Value of {'bluffing' if kind == 'bluff' else 'challenging'} by the "
                      f"{what} hand size (state)", shown)
        sec.p(same_sign_reading(res["tables"]))
        res["sections"].append(sec)
    return res


def _reading(t) -> str:
    rows = {r["player"]: r for r in t.rows()}
    best = next((r for r in t.rows() if "cheat=1" not in r["player"]
                 and r["player"] not in ("random", "greedy", "strategic")), None)
    if best is None:
        return ""
    g = "above" if best["low"] > 0 else "below" if best["high"] < 0 else "not clearly apart from"
    cheat = next((r for r in t.rows() if "cheat=1" in r["player"]), None)
    tail = (f" The cheating player, which sees every hand, is rated "
            f"{fmt_ci(cheat['rating'], cheat['low'], cheat['high'], 0)}: an upper bound on "
            "what searching from the true state buys." if cheat else "")
    return (f"{t.title()}: the strongest non-cheating search player, `{best['player']}`, "
            f"is rated {fmt_ci(best['rating'], best['low'], best['high'], 0)}, {g} greedy, "
            f"at {best['cpu_seconds_per_decision'] * 1e6:.0f} us per decision against "
            f"{rows['greedy']['cpu_seconds_per_decision'] * 1e6:.2f} for greedy.{tail}")


def _signs(t: pl.DataFrame, who: str) -> dict:
    out = {}
    for r in t.filter(pl.col("focal") == who).iter_rows(named=True):
        lo, hi = r["d_game_win_low"], r["d_game_win_high"]
        out[r["state"]] = 1 if _ok(lo) and lo > 0 else -1 if _ok(hi) and hi < 0 else 0
    return out


def same_sign(t: pl.DataFrame) -> tuple[int, int, int]:
    """(states where both focal policies' values are clearly signed and agree, where they
    are clearly signed and disagree, states compared)."""
    focal = [w for w in t["focal"].unique(maintain_order=True) if w != "greedy"]
    if t.is_empty() or not focal:
        return 0, 0, 0
    a, b = _signs(t, "greedy"), _signs(t, focal[0])
    common = [s for s in a if s in b and s != "all"]
    agree = sum(1 for s in common if a[s] and a[s] == b[s])
    disagree = sum(1 for s in common if a[s] and b[s] and a[s] != b[s])
    return agree, disagree, len(common)


def same_sign_reading(tables: dict) -> str:
    parts = []
    for kind, t in tables.items():
        if t is None or t.is_empty():
            continue
        agree, disagree, n = same_sign(t)
        parts.append(f"{kind}: of {n} states with both policies' points, the values are "
                     f"clearly of the same sign in {agree} and of opposite signs in "
                     f"{disagree} (the rest: an interval holds 0)")
    return ("Does the greedy answer hold for the search player? " + "; ".join(parts) + "."
            if parts else "")


# --- the summary's answer -------------------------------------------------------------

def strong_answer(results, extra: dict):
    """The summary's answer "do the answers hold for strong play?" from extra['strong']."""
    from uno_sim.policies import parse_policy

    from .summary import Answer

    res = (extra or {}).get("strong")
    if not res:
        return None
    rows = []
    for lg in res.get("leagues", []):
        for t in lg.tables:
            s = next((r for r in t.rows() if "cheat=1" not in r["player"]
                      and parse_policy(r["player"]).name in ("pimc", "ismcts")), None)
            rows.append({"question": f"strongest non-cheating search player vs greedy (rating), "
                                     f"{t.title()}",
                         "answer": f"`{s['player']}` "
                                   f"{fmt_ci(s['rating'], s['low'], s['high'], 0)}"
                         if s else "-"})
    for kind, t in res.get("tables", {}).items():
        if t is None or t.is_empty():
            continue
        for who in ("greedy", FOCAL):
            al = t.filter((pl.col("focal") == who) & (pl.col("state") == "all"))
            if al.height:
                r = al.row(0, named=True)
                rows.append({"question": f"{kind} value, {who} at the focal seat, "
                                         f"{res['variant']} {res['players']}p",
                             "answer": fmt_ci(r["d_game_win"], r["d_game_win_low"],
                                              r["d_game_win_high"], 3)
                             + f" ({kind}s {r['natural']:.2f} of the points)"})
        agree, disagree, n = same_sign(t)
        rows.append({"question": f"{kind}: states where greedy and the search player's values "
                                 "share a clear sign / clearly differ",
                     "answer": f"{agree} / {disagree} of {n}: "
                               + ("contradicted" if disagree else "confirmed" if agree
                                  else "neither (no state where both are clearly signed)")})
    if not rows:
        return None
    return Answer("Do the answers hold for strong play?",
                  "The strongest non-cheating search player against greedy in the league (Elo "
                  f"scale, 95% intervals); the value of bluffing and of challenging with `{FOCAL}` "
                  "at the focal seat beside greedy there, on the same games (game-win share, "
                  "95% intervals), and per state whether the two values share a clear sign: "
                  "see the strong-play sections.", pl.DataFrame(rows))
