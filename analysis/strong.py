"""Strong play: do the report's answers hold for the search players?

Two report sections and one summary answer (`summary.LATER_ANSWERS`):

1. A small league (`uno_sim.players.league`): random, greedy, strategic, one pimc and one ismcts
   budget of about the same CPU time per decision and one `cheat=1` pimc at the same
   budget (the upper bound), at the tables of `LEAGUE_TABLES` (classic and Flip at 2
   and 4 players), its Bradley-Terry ratings with bootstrap intervals and the
   strength-against-thinking-time figure.
2. Counterfactual bluff and challenge values (`uno_sim.counterfactual`'s forcing, which
   reaches a search player's own decisions) at each table of `VALUE_TABLES` (classic and
   Flip at 2 and 4 players), three arms per kind on the same games (`arms`): plain
   greedy at the focal seat against the usual table, the search player `FOCAL` at the
   focal seat against that table, and `FOCAL` at every seat.  Bluff: seat 0 decides, the
   usual table plain greedy (never challenges).  Challenge: seat 1 decides, the usual
   table `OFFENDER` (bluffs whenever it can); with `FOCAL` at every seat the offender is
   the search player, whose own bluffs are what there is to challenge (the share of bluffs
   among the points is shown).  Per state (`strongplay.decision_table`): points, acts,
   value and choice with 95% intervals clustered by game, and the value's p-value with
   Holm's correction (`holm_fill`: one family of the by-state values, one of the pooled
   ones).  A search player's games are expensive, so one decision point in `EVERY` is
   replayed both ways (`strongplay.decision_values(..., every=EVERY)`, a systematic
   sample).  The summary says per table and kind whether greedy's sign holds for the
   search player (`compare`, `verdict`).

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

# The search budgets: pimc at 16 samples of 2 rollouts wins about 0.6 of 2-player games
# against greedy at some 0.1 ms of CPU per own turn; ismcts at 80 iterations takes about as
# long per decision; the cheating pimc has the same budget (docs/studies.md "Strong play").
FOCAL = "pimc(samples=16,rollouts=2)"  # the search player at the focal seat and the table
LEAGUE_PLAYERS = ("random", "greedy", "strategic", FOCAL, "ismcts(iterations=80)",
                  "pimc(samples=16,rollouts=2,cheat=1)")
LEAGUE_TABLES = (("classic", 2), ("flip", 2), ("classic", 4), ("flip", 4))
VALUE_TABLES = (("classic", 2), ("classic", 4), ("flip", 2), ("flip", 4))  # bluff/challenge values
DEFAULT_DEALS = 48
DEFAULT_GAMES = 300
EVERY = 8  # one decision point in EVERY replayed both ways (strongplay.decision_values)
MIN_POINTS = 20  # a state with fewer points has no row
MAX_SIZE = 10**5
OFFENDER = "greedy(bluff=1)"  # seat 0 of the challenge design: bluffs whenever it can


def check_size(value, what: str) -> int:
    """A size of the strong-play sections: a whole number 0..MAX_SIZE (0: not run)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or \
            not 0 <= value <= MAX_SIZE:
        raise StudyError(f"invalid {what} {value!r}: expected a whole number 0..{MAX_SIZE}")
    return int(value)


# --- counterfactual values ------------------------------------------------------------

def arms(kind: str, focal: str | None = None) -> list[tuple[str, str]]:
    """The (focal seat, table) pairs of one kind: greedy and `focal` (default `FOCAL`) at
    the focal seat against the usual table (bluff: plain greedy, which never challenges;
    challenge: `OFFENDER`, which bluffs whenever it can), then `focal` at every seat."""
    focal = focal or FOCAL
    usual = "greedy" if kind == "bluff" else OFFENDER
    return [("greedy", usual), (focal, usual), (focal, focal)]


def play_values(variant: str, players: int, games: int, seed: int,
                focal: str | None = None, n_jobs: int = 1, every: int = EVERY) -> dict:
    """{(kind, focal policy, table policy): frame} for every arm of `arms`, on the same
    games (the same seed and game numbers), one decision point in `every` replayed
    (`strongplay.decision_values`)."""
    from .strongplay import KINDS, decision_values

    return {(kind, who, table): decision_values(kind, variant, players, who, table, games,
                                                seed, n_jobs, every=every)
            for kind in KINDS for who, table in arms(kind, focal)}


def _p_two_sided(value, low, high) -> float:
    """Two-sided normal p-value of `value` = 0 from its 95% interval (the interval's
    half-width is Z95 standard errors); NaN where the interval is degenerate."""
    from scipy import stats

    from uno_sim.stats import Z95

    if not _ok(value, low, high) or high <= low:
        return math.nan
    se = (high - low) / (2 * Z95)
    return float(2 * stats.norm.sf(abs(value) / se))


def value_table(frames: dict, kind: str, min_points: int = 20) -> pl.DataFrame:
    """Per arm (focal, table) and state (the next player's / the offender's hand size,
    `counterfactual.SIZE_CAP` and more pooled; `all`: every state): `strongplay.
    decision_table`'s points, acts, value and choice with their 95% intervals, the
    value's two-sided p, and for challenges the share of the points that were bluffs
    (`bluffs`, with its interval clustered by game).  p_holm is filled in by `holm_fill`."""
    from uno_sim.stats import Z95

    from .counterfactual import SIZE_CAP, clustered_se
    from .strongplay import decision_table

    parts = []
    for (k, who, table), f in frames.items():
        if k != kind or f.is_empty():
            continue
        t = decision_table(f, "other_size", min_points=min_points)
        if t.is_empty():
            continue
        if kind == "challenge":
            g = f.with_columns(pl.min_horizontal(pl.col("other_size"), pl.lit(SIZE_CAP))
                               .alias("s"))
            bl = []
            for st in t["state"].to_list():
                sub = g if st == "all" else g.filter(
                    pl.col("s") == (SIZE_CAP if st.endswith("+") else int(st)))
                x = sub["truth"].cast(pl.Float64).to_numpy()
                half = Z95 * clustered_se(x, sub["game"].to_numpy())
                m = float(x.mean())
                bl.append((m, max(0.0, m - half), min(1.0, m + half))
                          if math.isfinite(half) else (m, math.nan, math.nan))
            t = t.with_columns(pl.Series("bluffs", [b[0] for b in bl], dtype=pl.Float64),
                               pl.Series("bluffs_low", [b[1] for b in bl], dtype=pl.Float64),
                               pl.Series("bluffs_high", [b[2] for b in bl], dtype=pl.Float64))
        p = [_p_two_sided(r["value"], r["value_low"], r["value_high"])
             for r in t.iter_rows(named=True)]
        parts.append(t.with_columns(pl.lit(who).alias("focal"), pl.lit(table).alias("table"),
                                    pl.Series("p", p, dtype=pl.Float64),
                                    pl.lit(math.nan).alias("p_holm")))
    if not parts:
        return pl.DataFrame()
    t = pl.concat(parts, how="diagonal")
    first = ["focal", "table", "state"]
    return t.select(first + [c for c in t.columns if c not in first])


def holm_fill(tables: dict) -> dict:
    """Fill `p_holm` in every value table: Holm's correction (`gamestats.holm`) over two
    families, the by-state rows of every table, and the pooled rows (`all`) of every
    table.  Returns {'states': m, 'pooled': m}, the sizes of the two families."""
    from .gamestats import holm

    keys = [k for k, t in tables.items() if t is not None and not t.is_empty()]
    sizes = {}
    for fam, pooled in (("states", False), ("pooled", True)):
        ps, where = [], []
        for k in keys:
            for i, r in enumerate(tables[k].iter_rows(named=True)):
                if (r["state"] == "all") == pooled and _ok(r["p"]):
                    ps.append(r["p"])
                    where.append((k, i))
        sizes[fam] = len(ps)
        adj = holm(ps) if ps else []
        for (k, i), a in zip(where, adj):
            tables[k] = tables[k].with_columns(
                pl.when(pl.int_range(pl.len()) == i).then(pl.lit(float(a)))
                .otherwise(pl.col("p_holm")).alias("p_holm"))
    return sizes


def sign_of(row: dict, alpha: float = 0.05) -> int:
    """+1 / -1 where a value is clearly positive / negative after Holm's correction
    (p_holm < alpha), 0 where it is not clearly signed."""
    p, v = row.get("p_holm"), row.get("value")
    if not _ok(p, v) or p >= alpha or v == 0:
        return 0
    return 1 if v > 0 else -1


def verdict(greedy: int, other: int) -> str:
    """Whether the greedy answer's sign holds for another arm: both clearly signed and
    equal ('holds'), opposite ('contradicted'), else 'undetermined'."""
    if greedy and other:
        return "holds" if greedy == other else "contradicted"
    return "undetermined"


def why_undetermined(g: dict | None, o: dict | None) -> str:
    """Which pooled value is not clearly signed when a verdict is 'undetermined'."""
    gs, os_ = (sign_of(g) if g else 0), (sign_of(o) if o else 0)
    if not gs and not os_:
        return "neither value is clearly signed"
    return "greedy's value is not clearly signed" if not gs else \
        "the search player's value is not clearly signed"


def compare(t: pl.DataFrame, focal: str, table: str) -> dict:
    """Greedy's arm (the first of `arms`) against the arm (`focal`, `table`) of one value
    table: the pooled verdict and per state (both arms with points) how many share a
    clear sign, how many are of clearly opposite signs, and how many were compared."""
    if t.is_empty():
        return {"pooled": "undetermined", "agree": 0, "opposite": 0, "states": 0,
                "greedy": None, "other": None}
    g_table = t.filter(pl.col("focal") == "greedy")["table"]
    g = {r["state"]: r for r in t.filter((pl.col("focal") == "greedy")
                                         & (pl.col("table") == g_table[0])).iter_rows(named=True)
         } if g_table.len() else {}
    o = {r["state"]: r for r in t.filter((pl.col("focal") == focal) & (pl.col("table") == table))
         .iter_rows(named=True)}
    common = [s for s in g if s in o and s != "all"]
    agree = sum(1 for s in common if sign_of(g[s]) and sign_of(g[s]) == sign_of(o[s]))
    opp = sum(1 for s in common if sign_of(g[s]) * sign_of(o[s]) == -1)
    pooled = verdict(sign_of(g["all"]), sign_of(o["all"])) if "all" in g and "all" in o \
        else "undetermined"
    return {"pooled": pooled, "agree": agree, "opposite": opp, "states": len(common),
            "greedy": g.get("all"), "other": o.get("all")}


# --- the sections ---------------------------------------------------------------------

def _league(deals: int, seed: int, n_jobs: int, tables, out: str):
    from uno_sim.players.league import play_league

    leagues = []
    for k in sorted({k for _, k in tables}):
        vs = [v for v, kk in tables if kk == k]
        leagues.append(play_league(list(LEAGUE_PLAYERS), variants=vs, player_counts=[k],
                                   deals=deals, seed=seed, bootstrap=300, jobs=n_jobs))
    return leagues


def _ok(*xs):
    return all(x is not None and math.isfinite(x) for x in xs)


def study(deals: int = DEFAULT_DEALS, games: int = DEFAULT_GAMES, seed: int = 0,
          out: str = ".", n_jobs: int = 1, tables=LEAGUE_TABLES,
          value_tables=VALUE_TABLES, every: int = EVERY,
          min_points: int = MIN_POINTS) -> dict:
    """Run the league (`deals` per pairing; 0: none) at `tables` and the strong-play values
    (`games` games per arm at each (variant, players) of `value_tables`, one decision point
    in `every` replayed; 0: none); returns {'sections', 'leagues', 'frames', 'tables':
    {(variant, players, kind): value table}, 'holm', ...} (the league figures written into
    `out`)."""
    deals, games = check_size(deals, "strong-deals"), check_size(games, "strong-games")
    os.makedirs(out, exist_ok=True)
    res = {"sections": [], "leagues": [], "frames": {}, "tables": {}, "holm": {},
           "deals": deals, "games": games, "focal": FOCAL, "every": every,
           "value_tables": tuple(value_tables)}
    if deals:
        sec = Section("Strong play: the league")
        leagues = _league(deals, seed, n_jobs, tables, out)
        res["leagues"] = leagues
        sec.p(f"Every pairing of {', '.join(f'`{p}`' for p in LEAGUE_PLAYERS)} on {deals} "
              "deals per pairing, each deal played once per seat rotation (uno_sim.players.league; "
              "docs/policies.md \"League\"); Bradley-Terry ratings on the Elo scale, greedy = "
              "0, with percentile 95% bootstrap intervals over deals (300 resamples); seed "
              f"{seed}. The search budgets keep the report's strong-play sections to some "
              "ten minutes on two cores: pimc at 16 samples of 2 rollouts (clearly stronger "
              "than greedy at 2 players), ismcts at about the same CPU time per decision, "
              "and the cheating pimc (`cheat=1`) at pimc's budget; `uno-sim league` plays "
              "bigger ones. `us/decision`: CPU microseconds per "
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
                from uno_sim.players.league import BOUND_NOTE

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
        sec = Section("Strong play: bluff and challenge values of a search player")
        for v, k in value_tables:
            frames = play_values(v, k, games, seed, None, n_jobs, every)
            res["frames"][(v, k)] = frames
            for kind in ("bluff", "challenge"):
                res["tables"][(v, k, kind)] = value_table(frames, kind, min_points)
        res["holm"] = holm_fill(res["tables"])
        sec.p(values_intro(games, seed, every, min_points, value_tables, res["holm"]))
        for (v, k, kind), t in res["tables"].items():
            where = f"{v}, {k} players"
            if t.is_empty():
                sec.p(f"{where}: too few {kind} decision points (fewer than {min_points} in "
                      "every arm) for a table.")
                continue
            what = "next player's" if kind == "bluff" else "offender's"
            sec.table(f"{'Bluffing' if kind == 'bluff' else 'Challenging'}, {where}, by the "
                      f"{what} hand size (state): points, how often the focal seat "
                      f"{'bluffs' if kind == 'bluff' else 'challenges'} (acts), the value of "
                      "doing so and of its own answers (choice) in game-win share, 95% "
                      "intervals clustered by game, the value's Holm-corrected p"
                      + ("; bluffs: the share of the points where the offender's card was a "
                         "bluff" if kind == "challenge" else ""), shown_table(t, kind))
            sec.p(setup_reading(t, kind, where))
        res["sections"].append(sec)
    return res


def values_intro(games, seed, every, min_points, tables, holm_sizes) -> str:
    where = "; ".join(f"{v} at {k} players" for v, k in tables)
    return (f"{where}: games 0-{games - 1} per arm, seed {seed}; one decision point of the "
            f"focal seat in {every} (a systematic sample) is played on both ways with common "
            "random numbers (uno_sim.counterfactual), the same games in every arm. Three "
            "arms per kind: plain greedy at the focal seat against the usual table, the "
            f"search player `{FOCAL}` at the focal seat against the same table, and "
            f"`{FOCAL}` at every seat. Bluff: seat 0 decides; the usual table is plain "
            "greedy, which never challenges. Challenge: seat 1 decides on the restricted "
            f"cards played on it; the usual table is `{OFFENDER}`, which bluffs whenever it "
            f"can; with `{FOCAL}` at every seat the offender is the search player itself, so "
            "the points are its own restricted cards and `bluffs` says how often they were "
            "bluffs (a challenge pays against a table that bluffs often enough, so this arm "
            "asks whether it pays against the search player as it plays). acts: how often "
            "the focal policy bluffs / challenges there; value: alternative 1 (bluff / "
            "challenge) minus 0 in game-win share; choice: its own answer minus the other "
            "at the same points; 95% intervals clustered by game; states with fewer than "
            f"{min_points} points are left out (`all` pools every state). A value is called "
            "clearly signed when its Holm-corrected p is below 0.05, Holm's correction taken "
            f"over the {holm_sizes.get('states', 0)} by-state values of the tables below "
            f"together and, separately, over their {holm_sizes.get('pooled', 0)} pooled "
            "values.")


def _ci(r: dict, col: str, digits: int = 3) -> str:
    m, lo, hi = r.get(col), r.get(f"{col}_low"), r.get(f"{col}_high")
    return fmt_ci(m, lo, hi, digits) if _ok(m, lo, hi) else "-"


def _share(r: dict, col: str) -> str:
    m, lo, hi = r.get(col), r.get(f"{col}_low"), r.get(f"{col}_high")
    if not _ok(m):
        return "-"
    return f"{m:.1%} [{lo:.1%}, {hi:.1%}]" if _ok(lo, hi) else f"{m:.1%}"


def shown_table(t: pl.DataFrame, kind: str) -> pl.DataFrame:
    """A value table as the section prints it: intervals as text."""
    rows = []
    for r in t.iter_rows(named=True):
        row = {"focal": r["focal"], "table": r["table"], "state": r["state"],
               "points": r["points"], "games": r["games"], "acts": _share(r, "acts"),
               "value": _ci(r, "value"), "p_holm": r["p_holm"], "choice": _ci(r, "choice")}
        if kind == "challenge":
            row["bluffs"] = _share(r, "bluffs")
        rows.append(row)
    return pl.DataFrame(rows)


def _clear(r) -> str:
    s = sign_of(r) if r else 0
    return "clearly positive" if s > 0 else "clearly negative" if s < 0 else "not clearly signed"


def setup_reading(t: pl.DataFrame, kind: str, where: str) -> str:
    """Per search arm: its pooled value and acts against greedy's, and whether greedy's
    sign holds for it, pooled and by state (after Holm's correction)."""
    verb = "bluffs" if kind == "bluff" else "challenges"
    parts = []
    for who, table in arms(kind)[1:]:
        c = compare(t, who, table)
        g, o = c["greedy"], c["other"]
        if not g or not o:
            parts.append(f"with `{who}` against `{table}`: too few points for a comparison")
            continue
        parts.append(
            f"`{who}` against `{table}` {verb} at {_share(o, 'acts')} of {o['points']:,} "
            f"points, value {_ci(o, 'value')} ({_clear(o)}) against greedy's "
            f"{_ci(g, 'value')} ({_clear(g)}): greedy's sign "
            + {"holds": "holds for the search player",
               "contradicted": "is contradicted by the search player"}.get(
                c["pooled"], f"is neither confirmed nor contradicted ({why_undetermined(g, o)})")
            + f"; by state, {c['agree']} of {c['states']} states share a clear sign and "
            f"{c['opposite']} are of clearly opposite signs")
    return f"{where}, {kind}: " + "; ".join(parts) + "."


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


# --- the summary's answer -------------------------------------------------------------

def strong_answer(results, extra: dict):
    """The summary's answer "do the answers hold for strong play?" from extra['strong']."""
    from uno_sim.players.specs import parse_policy

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
    league_rows = len(rows)
    for (v, k, kind), t in res.get("tables", {}).items():
        rows += answer_rows(t, v, k, kind)
    if not rows:
        return None
    h = res.get("holm", {})
    if len(rows) == league_rows:
        return Answer("Do the answers hold for strong play?",
                      "The strongest non-cheating search player against greedy in the league "
                      "(Elo scale, 95% intervals)"
                      + ("; too few bluff and challenge decision points for the values"
                         if res.get("games") else "") + ": see the strong-play sections.",
                      pl.DataFrame(rows))
    return Answer("Do the answers hold for strong play?",
                  "The strongest non-cheating search player against greedy in the league (Elo "
                  "scale, 95% intervals); then per setup and kind, the value of bluffing / "
                  f"challenging (game-win share, 95% intervals) with `{FOCAL}` at the focal "
                  "seat against the usual table and at every seat, beside plain greedy at the "
                  "focal seat on the same games, and whether greedy's sign holds for the "
                  "search player: 'holds' where both pooled values are clearly of the same "
                  "sign, 'contradicted' where clearly opposite, 'undetermined' otherwise "
                  f"(clearly: Holm-corrected p < 0.05 over the {h.get('pooled', 0)} pooled "
                  f"values; by state over the {h.get('states', 0)} by-state values): see the "
                  "strong-play sections.", pl.DataFrame(rows))


def answer_rows(t: pl.DataFrame, variant: str, players: int, kind: str) -> list[dict]:
    """The summary's rows of one value table: per search arm, its pooled value and acts,
    greedy's, and the verdict (`compare`)."""
    rows = []
    if t is None or t.is_empty():
        return rows
    verb = "bluffs" if kind == "bluff" else "challenges"
    for who, table in arms(kind)[1:]:
        c = compare(t, who, table)
        g, o = c["greedy"], c["other"]
        if not g or not o:
            continue
        rows.append({"question": f"{kind} value, {variant} {players}p: `{who}` against "
                                 f"`{table}` vs greedy against `{arms(kind)[0][1]}`",
                     "answer": f"{_ci(o, 'value')} ({verb} at {_share(o, 'acts')}) vs "
                               f"{_ci(g, 'value')}: {c['pooled']}"
                               + ("" if c["pooled"] != "undetermined"
                                  else f" ({why_undetermined(g, o)})")
                               + "; states sharing a clear "
                               f"sign {c['agree']}, opposite {c['opposite']}, of "
                               f"{c['states']}"})
    return rows


def _register() -> None:
    """The summary's answer, registered when this module is imported (as exploit's): the
    first of the later answers (`summary.LATER_ANSWERS`), whoever registered before."""
    from . import summary

    if strong_answer not in summary.LATER_ANSWERS:
        summary.LATER_ANSWERS.insert(0, strong_answer)


_register()
