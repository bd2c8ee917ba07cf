"""Strong play: do the report's answers hold for a strong player?

Two report sections and one summary answer (`summary.LATER_ANSWERS`):

1. A small league (`uno_sim.players.league`): random, greedy, strategic, the strong player and
   the other search players of `league_players` (a cheating search at the strong
   player's budget among them: the upper bound), at the tables of `LEAGUE_TABLES`
   (classic and Flip at 2 and 4 players), its Bradley-Terry ratings with bootstrap
   intervals and the strength-against-thinking-time figure.
2. Counterfactual bluff and challenge values (`uno_sim.counterfactual`'s forcing, which
   reaches a search player's own decisions) at each table of `VALUE_TABLES`, three arms
   per kind on the same games (`arms`): plain greedy at the focal seat against the usual
   table, the strong player (`focal`, any policy spec; default `FOCAL`) at the focal seat
   against that table, and the strong player at every seat.  Bluff: seat 0 decides, the
   usual table plain greedy (never challenges).  Challenge: seat 1 decides, the usual
   table `OFFENDER` (bluffs whenever it can); with the strong player at every seat the
   offender is the strong player, whose own bluffs are what there is to challenge.

Estimators.  An arm whose seats are all blind to the scores carries the control variate
of `uno_sim.analysis.luck` (the later rounds' deals, AIVAT-style); an arm with a seat that
reads them (the default search player values its rollouts by the game-win table) is
plain unless asked (`luck="replay"`: its rounds replayed from scores of 0, which at the
default budget costs about a third more CPU for a variance ratio near 0.9); greedy's arm
plays `greedy_games` games with every decision point
replayed both ways (it is cheap), the strong player's arms `games` games with one point
in `every` (a systematic sample).  Per state (the next player's or the offender's hand,
6 and more pooled; `all` pools every state): points, acts (a Wilson interval on the
effective points, `verdict.share_interval`), the value of acting (game-win share), its
plain 95% interval and its Holm interval, the value of its own answers (choice), and the
control variate's variance ratio.  The difference strong player less greedy is tested
too (`verdict.arm_difference`).  Holm's correction (statsmodels) runs over two families:
every pooled value and pooled difference of the section (what the verdicts read), and
every by-state value; each value's Holm interval is the interval at the level Holm's
step-down tested it at, so a verdict and its printed interval agree (`verdict.
holm_intervals`).  Ceilings (a player winning every game whichever it answers) and empty
cells (no decision point) are named as such, and an undetermined verdict comes with the
games per arm that would settle it and what they would cost at the measured speed.

Every size is an argument (the report's --strong-deals, --strong-games,
--strong-greedy-games, --strong-player); the sections state them and the time each arm
took.  Results do not depend on `n_jobs`.
"""

from __future__ import annotations

import math
import os
import time

import numpy as np
import polars as pl

from .common import StudyError, fmt_ci
from .doc import Section

# The default strong player: the shipped network player (uno_sim.players.net), its weights
# chosen by variant and player count; it decides in microseconds, so its arms can be sized
# to decide (docs/studies.md "Strong play").  The search check beside it: the league's
# strongest non-cheating search player at 2 players, on fewer games.
FOCAL = "net"
SEARCH = "ismcts(iterations=80)"
SEARCH_PLAYERS = (2,)  # the player counts where the search check runs
OTHER_SEARCH = ("pimc(samples=16,rollouts=2)", "ismcts(iterations=80)")
# The shipped network player (uno_sim.players.net) and the search anchored on it, the
# strongest player at 2 players (docs/policies.md "The anchor and the opponents'
# challenges"), at every league table: weights ship for each of them.
LEARNED = ("net", "ismcts(anchor=net,z=1,rollout_challenge=1)")
LEAGUE_TABLES = (("classic", 2), ("flip", 2), ("classic", 4), ("flip", 4))
VALUE_TABLES = (("classic", 2), ("classic", 4), ("flip", 2), ("flip", 4))
DEFAULT_DEALS = 48
DEFAULT_GAMES = 50_000        # the strong player's arms, per table (times SPREAD)
DEFAULT_GREEDY_GAMES = 10_000  # greedy's arm, per table (every point replayed)
EVERY = 4  # one decision point of the strong player in EVERY replayed both ways
# (games, every) multipliers of the strong player's arms by kind: a game holds about 2.5
# times as many bluff points as challenge points, and they are correlated within the game,
# so the bluff arms spread their replays over 6 times the games, one point in 16 (measured
# on Flip at 2 players, docs/studies.md "Why spread the bluff points": 1.4 to 1.9 times
# the information per CPU-second of one in 4; the challenge arms lose by it, 1.7 times)
SPREAD = {"bluff": (6, 4), "challenge": (1, 1)}
SEARCH_EVERY = 8  # ... and of the search player
NO_EFFECT = 0.01  # a value whose Holm interval lies within +-NO_EFFECT: "no effect"
MIN_POINTS = 20  # a state with fewer points has no row
MAX_SIZE = 10**5
OFFENDER = "greedy(bluff=1)"  # seat 0 of the challenge design: bluffs whenever it can
KINDS = ("bluff", "challenge")


def check_size(value, what: str) -> int:
    """A size of the strong-play sections: a whole number 0..MAX_SIZE (0: not run)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or \
            not 0 <= value <= MAX_SIZE:
        raise StudyError(f"invalid {what} {value!r}: expected a whole number 0..{MAX_SIZE}")
    return int(value)


def check_player(spec, what: str = "strong player") -> str:
    """The strong player (or `what`): a built-in or search policy spec (one line when it
    is not)."""
    from uno_sim.players.specs import parse_policy
    from uno_sim.rules import RulesError

    try:
        p = parse_policy(spec)
    except (RulesError, ValueError) as e:
        raise StudyError(f"invalid {what} {spec!r}: {e}") from None
    if p.name == "user":
        raise StudyError(f"invalid {what} {spec!r}: counterfactual values need a "
                         "built-in policy")
    return str(p)


def cheat_of(spec: str) -> str | None:
    """The cheating version of a search spec (the upper bound at its budget), or None."""
    from uno_sim.players.specs import parse_policy

    p = parse_policy(spec)
    if p.name not in ("pimc", "ismcts"):
        return None
    return str(parse_policy(spec[:-1] + ",cheat=1)" if spec.endswith(")") else
                            spec + "(cheat=1)"))


def league_players(focal: str = FOCAL) -> tuple:
    """random, greedy, strategic, the strong player, the other search players, the network
    player with its shipped weights, and the cheating search at the strong player's budget
    (when it searches; else at the first search player's)."""
    out = ["random", "greedy", "strategic", focal]
    out += [p for p in OTHER_SEARCH + LEARNED if p != focal]
    cheat = cheat_of(focal) or cheat_of(OTHER_SEARCH[0])
    if cheat:
        out.append(cheat)
    return tuple(dict.fromkeys(out))


# --- counterfactual values ------------------------------------------------------------

def arms(kind: str, focal: str | None = None) -> list[tuple[str, str]]:
    """The (focal seat, table) pairs of one kind: greedy and `focal` (default `FOCAL`) at
    the focal seat against the usual table (bluff: plain greedy, which never challenges;
    challenge: `OFFENDER`, which bluffs whenever it can), then `focal` at every seat."""
    focal = focal or FOCAL
    usual = "greedy" if kind == "bluff" else OFFENDER
    return [("greedy", usual), (focal, usual), (focal, focal)]


def search_arms(kind: str, search: str | None, focal: str | None = None) -> list:
    """The search check's (focal seat, table) pairs of one kind: `search` against the usual
    table and at every seat; none without a search player or when it is the strong
    player itself."""
    if not search or search == (focal or FOCAL):
        return []
    return arms(kind, search)[1:]


def play_values(variant: str, players: int, games: int, seed: int,
                focal: str | None = None, n_jobs: int = 1, every: int = EVERY,
                greedy_games: int | None = None, luck: str = "auto",
                search: str | None = None, search_games: int = 0,
                search_every: int = SEARCH_EVERY) -> dict:
    """{(kind, focal policy, table policy): {'frame', 'seconds', 'games', 'every',
    'luck'}} for every arm of `arms` on the same seed and game numbers: greedy's arm on
    `greedy_games` games (default `games`) with every point replayed, the strong player's
    on `games` with one point in `every` (times `SPREAD[kind]`: the bluff arms on 6 times
    the games, one point in 4 times `every`), and with `search` and `search_games` the search
    check's arms (`search_arms`) on the first `search_games` games with one point in
    `search_every`; each frame corrected by the control variate
    (`luck.adjust`): `luck` "auto" where every seat is blind to the scores (own rounds;
    the others plain: their rounds replayed from scores of 0 cost about a third more CPU
    for a variance ratio near 0.9 at the default search budget, docs/studies.md),
    "replay" (own rounds where blind, replayed rounds elsewhere) or "none"."""
    if luck not in ("auto", "replay", "none"):
        raise StudyError(f"invalid luck {luck!r}: expected auto, replay or none")
    from . import luck as luck_mod
    from .strongplay import decision_values, focal_seat, seats

    out = {}
    for kind in KINDS:
        gm, em = SPREAD[kind]
        todo = [(who, table, (greedy_games if greedy_games is not None else games), 1)
                if who == "greedy" else (who, table, games * gm, every * em)
                for who, table in arms(kind, focal)]
        if search_games:
            todo += [(who, table, search_games, search_every)
                     for who, table in search_arms(kind, search, focal)]
        for who, table, n, ev in todo:
            t0, c0 = time.perf_counter(), time.process_time()
            f = decision_values(kind, variant, players, who, table, n, seed, n_jobs,
                                every=ev, rounds=True)
            pols = seats(kind, players, who, table)
            blind = all(luck_mod.score_blind(p) for p in pols)
            use = n and (luck == "replay" or (luck == "auto" and blind))
            m = luck_mod.model(variant, players, focal_seat(kind), pols, seed=seed) \
                if use else None
            f = luck_mod.adjust(f, m)
            wall = time.perf_counter() - t0
            # CPU seconds: this process's own with one job; with workers, the wall time
            # times the jobs (an upper bound: the workers' CPU is not this process's)
            cpu = time.process_time() - c0 if n_jobs == 1 else wall * max(1, n_jobs)
            out[(kind, who, table)] = {"frame": f, "seconds": cpu, "wall": wall,
                                       "games": n, "every": ev,
                                       "luck": m.mode if m is not None else "none"}
    return out


def equilibrium_rates(frame: pl.DataFrame, mix, players: int) -> np.ndarray:
    """Per decision point of `frame`: the probability that the equilibrium mix of the
    deciding side ([(rule or strategy, weight)], `bluffgame` / `exploit`) bluffs
    (challenges) there, read the way the engine reads the rules (`exploit.fires`)."""
    from .exploit import fires

    p = np.zeros(frame.height)
    if not frame.height:
        return p
    other, own = frame["other_size"].to_numpy(), frame["own_size"].to_numpy()
    q = frame["could_bluff_p"].fill_null(0.0).to_numpy()
    for rule, w in mix:
        p += float(w) * fires(rule, other, own, q, players)
    return p


def mixes_of(rows, x, cols, y, eps: float = 1e-9) -> dict:
    """{'bluff': [(rule, weight)], 'challenge': [...]}: an equilibrium's two mixes."""
    return {"bluff": [(r, float(w)) for r, w in zip(rows, x) if w > eps],
            "challenge": [(c, float(w)) for c, w in zip(cols, y) if w > eps]}


def _rows(f: pl.DataFrame, kind: str, state: str, min_points: int) -> list[dict]:
    """Per state of one arm's (corrected) frame, and `all`: the numbers of a value table."""
    from uno_sim.stats import Z95

    from . import luck as luck_mod
    from .counterfactual import SIZE_CAP, clustered_se, decision_effects
    from .strongplay import _chosen
    from .verdict import cell_state, share_interval

    g = f.with_columns(pl.min_horizontal(pl.col(state), pl.lit(SIZE_CAP)).alias("s"))
    groups = sorted(((k[0], sub) for k, sub in g.group_by(["s"], maintain_order=True)),
                    key=lambda kv: kv[0]) + [("all", g)]
    rows = []
    for key, sub in groups:
        if sub.height < min_points and key != "all":
            continue
        label = "all" if key == "all" else (f"{SIZE_CAP}+" if key >= SIZE_CAP else str(key))
        games = sub["game"].to_numpy()
        cell = cell_state(sub["raw_game_win_0"].to_numpy(), sub["raw_game_win_1"].to_numpy())
        acts = share_interval(sub["natural"].cast(pl.Float64).to_numpy(), games)
        row = {"state": label, "points": sub.height, "games": int(np.unique(games).size),
               "cell": cell, "acts": acts[0], "acts_low": acts[1], "acts_high": acts[2]}
        if "eq_rate" in sub.columns:
            row["equilibrium"] = float(sub["eq_rate"].mean())
        if sub.height >= 2:
            val = decision_effects(sub, metrics=("game_win",)).row(0, named=True)
            raw = decision_effects(sub.with_columns(game_win_0=sub["raw_game_win_0"],
                                                    game_win_1=sub["raw_game_win_1"]),
                                   metrics=("game_win",)).row(0, named=True)
            ch = decision_effects(_chosen(sub), metrics=("game_win",)).row(0, named=True)
            se = math.hypot(val["se_game_win"], luck_mod.pool_se(sub))
            row.update(value=val["d_game_win"], se=se, se_plain=raw["se_game_win"],
                       plain=raw["d_game_win"], choice=ch["d_game_win"],
                       choice_low=ch["d_game_win_low"], choice_high=ch["d_game_win_high"],
                       round_value=float((sub["round_win_1"] - sub["round_win_0"]).mean()))
        if kind == "challenge":
            x = sub["truth"].cast(pl.Float64).to_numpy()
            half = Z95 * clustered_se(x, games) if x.size > 1 else math.nan
            m = float(x.mean())
            row.update(bluffs=m, bluffs_low=max(0.0, m - half) if math.isfinite(half)
                       else math.nan, bluffs_high=min(1.0, m + half) if math.isfinite(half)
                       else math.nan)
        rows.append(row)
    return rows


def value_table(arm_runs: dict, kind: str, min_points: int = MIN_POINTS,
                mix=None, players: int = 2) -> pl.DataFrame:
    """Per arm (focal, table) and state (the next player's / the offender's hand size, 6+
    pooled; `all`): points, games, the cell ('measured', 'ceiling' or 'empty'), acts with
    its interval, with `mix` (the deciding side's equilibrium mix, `mixes_of`) how often
    that mix would act at the same points (`equilibrium`), the value (corrected) with its
    SE (the pool's error added), the plain
    value and SE, choice, round_value, for challenges the share of bluffs among the points,
    and for `all` the variance ratio of the control variate with its interval; the
    intervals (plain 95% and Holm) are filled in by `holm_fill`."""
    from . import luck as luck_mod

    parts = []
    for (k, who, table), run in arm_runs.items():
        if k != kind:
            continue
        f = run["frame"]
        if mix is not None and f.height:
            f = f.with_columns(eq_rate=pl.Series(equilibrium_rates(f, mix, players)))
        rows = _rows(f, kind, "other_size", min_points) if f.height else \
            [{"state": "all", "points": 0, "games": 0, "cell": "empty"}]
        vr = luck_mod.variance_ratio(f, n_resamples=499) \
            if f.height and run["luck"] != "none" else (math.nan,) * 3
        for r in rows:
            r.update(focal=who, table=table, seconds=run["seconds"], run_games=run["games"],
                     every=run["every"], luck=run["luck"])
            if r["state"] == "all":
                r.update(vr=vr[0], vr_low=vr[1], vr_high=vr[2])
        parts.append(pl.DataFrame(rows, infer_schema_length=None))
    if not parts:
        return pl.DataFrame()
    t = pl.concat(parts, how="diagonal_relaxed")
    first = ["focal", "table", "state"]
    return t.select(first + [c for c in t.columns if c not in first])


def differences(arm_runs: dict, kind: str) -> pl.DataFrame:
    """Per strong-player arm of one kind: its pooled value less greedy's (both corrected,
    the same games), with the SE clustered by game (`verdict.arm_difference`) and both
    pools' errors added."""
    runs = [(who, table, run) for (k, who, table), run in arm_runs.items() if k == kind]
    if not runs:
        return pl.DataFrame()
    gwho, gtable, grun = runs[0]
    rows = []
    for who, table, run in runs[1:]:
        d, se = frame_difference(run["frame"], grun["frame"])
        rows.append({"focal": who, "table": table, "against": f"{gwho} vs {gtable}",
                     "value": d, "se": se})
    return pl.DataFrame(rows)


def frame_difference(fb: pl.DataFrame, fa: pl.DataFrame) -> tuple[float, float]:
    """(difference, SE) of two arms' pooled values, `fb`'s less `fa`'s (each corrected):
    the SE clustered by game (`verdict.arm_difference`) with both pools' errors added;
    NaN where an arm has fewer than 2 points."""
    from . import luck as luck_mod
    from .verdict import arm_difference

    if fa.height < 2 or fb.height < 2:
        return math.nan, math.nan
    d, se = arm_difference((fb["game_win_1"] - fb["game_win_0"]).to_numpy(),
                           fb["game"].to_numpy(),
                           (fa["game_win_1"] - fa["game_win_0"]).to_numpy(),
                           fa["game"].to_numpy())
    return d, math.sqrt(se ** 2 + luck_mod.pool_se(fb) ** 2 + luck_mod.pool_se(fa) ** 2)


def holm_fill(tables: dict, diffs: dict | None = None) -> dict:
    """Fill p, p_holm, reject, low/high (plain 95%) and holm_low/holm_high in every value
    table and difference table: Holm's correction (`verdict.holm_intervals`) over the
    family of every pooled value and every difference (what the verdicts read), and over
    the family of every by-state value.  A ceiling or empty cell is in no family.
    Returns {'pooled': m, 'states': m}."""
    from .verdict import holm_intervals

    diffs = diffs or {}
    sizes = {}
    for fam, pooled in (("pooled", True), ("states", False)):
        where, est, ses = [], [], []
        for name, store in (("t", tables), ("d", diffs)):
            if name == "d" and not pooled:
                continue
            for key, t in store.items():
                if t is None or t.is_empty():
                    continue
                for i, r in enumerate(t.iter_rows(named=True)):
                    is_pooled = name == "d" or r["state"] == "all"
                    if is_pooled != pooled or r.get("cell", "measured") != "measured":
                        continue
                    where.append((name, key, i))
                    est.append(r.get("value", math.nan))
                    ses.append(r.get("se", math.nan))
        res = holm_intervals(est, ses)
        sizes[fam] = res[0]["family"] if res else 0
        fill: dict = {}
        for (name, key, i), r in zip(where, res):
            fill.setdefault((name, key), {})[i] = r
        for (name, key), by_row in fill.items():
            store = tables if name == "t" else diffs
            t = store[key]
            cols = {c: [by_row[i][c] if i in by_row else
                        (t[c][i] if c in t.columns else (False if c == "reject" else math.nan))
                        for i in range(t.height)]
                    for c in ("p", "p_holm", "reject", "low", "high", "holm_low", "holm_high")}
            store[key] = t.with_columns(**{c: pl.Series(c, v, dtype=pl.Boolean if c == "reject"
                                                      else pl.Float64)
                                           for c, v in cols.items()})
    for store in (tables, diffs):
        for key, t in list(store.items()):
            if t is not None and not t.is_empty() and "reject" not in t.columns:
                store[key] = t.with_columns(
                    **{c: pl.lit(math.nan) for c in ("p", "p_holm", "low", "high", "holm_low",
                                                     "holm_high")}, reject=pl.lit(False))
    return sizes


def sign_of(row: dict | None) -> int:
    """+1 / -1 where a value is clearly positive / negative (Holm's step-down rejects 0:
    its Holm interval excludes 0), 0 where it is not clearly signed."""
    if not row or not row.get("reject"):
        return 0
    v = row.get("value")
    return 0 if v is None or not math.isfinite(v) or v == 0 else (1 if v > 0 else -1)


def verdict(greedy: int, other: int) -> str:
    """Whether the greedy answer's sign holds for another arm: both clearly signed and
    equal ('holds'), opposite ('contradicted'), else 'undetermined'."""
    if greedy and other:
        return "holds" if greedy == other else "contradicted"
    return "undetermined"


def negligible(row: dict | None, bound: float = NO_EFFECT) -> bool:
    """Whether a value's Holm interval lies within +-`bound`: no effect larger than that
    (an equivalence test at the level Holm tested the value at)."""
    if not row or row.get("cell", "measured") != "measured":
        return False
    lo, hi = row.get("holm_low"), row.get("holm_high")
    return _ok(lo, hi) and -bound <= lo and hi <= bound


def beyond(row: dict | None, bound: float = NO_EFFECT) -> bool:
    """Whether a value's Holm interval lies wholly beyond +-`bound`."""
    lo, hi = (row or {}).get("holm_low"), (row or {}).get("holm_high")
    return _ok(lo, hi) and (lo > bound or hi < -bound)


def verdict_of(g: dict | None, o: dict | None, bound: float = NO_EFFECT) -> str:
    """The verdict on greedy's answer for a strong player (pooled rows with Holm intervals):
    'holds' / 'contradicted' where both are clearly signed (the same sign / opposite);
    'no effect' where the strong player's value lies within +-`bound` (whatever greedy's:
    for the strong player the decision moves no more than that); 'contradicted' too where
    greedy's lies within +-`bound` and the strong player's wholly beyond it; else
    'undetermined'."""
    gs, os_ = sign_of(g), sign_of(o)
    if gs and os_:
        return verdict(gs, os_)
    if negligible(o, bound):
        return "no effect"
    if negligible(g, bound) and beyond(o, bound):
        return "contradicted"
    return "undetermined"


def games_to_decide(row: dict, family: int, bound: float = NO_EFFECT) -> float:
    """Games per arm that would decide an open value (80% power were the estimate the
    truth): clearly signed (`verdict.games_to_settle`) or within +-`bound` (`verdict.
    games_to_bound`), whichever is fewer; a value already clearly signed (open only
    because greedy's lies within +-`bound`): within +-`bound` or wholly beyond it."""
    from .verdict import games_to_bound, games_to_settle

    est, se, n = row.get("value", math.nan), row.get("se", math.nan), row.get("run_games", 0)
    b = games_to_bound(est, se, n, bound, family)
    if sign_of(row):
        return b
    vals = [games_to_settle(est, se, n, family)] + ([b] if abs(est) < bound else [])
    vals = [x for x in vals if isinstance(x, float) and not math.isnan(x)]
    return min(vals) if vals else math.nan


def _arm_rows(t: pl.DataFrame, who: str, table: str) -> dict:
    return {r["state"]: r for r in t.filter((pl.col("focal") == who) & (pl.col("table") == table))
            .iter_rows(named=True)}


def compare(t: pl.DataFrame, focal: str, table: str, diffs: pl.DataFrame | None = None,
            family: int = 1) -> dict:
    """Greedy's arm (the first of the table) against the arm (`focal`, `table`): the
    pooled verdict (cells named: 'ceiling' or 'no decision points' where one arm has
    one), the difference row, per state how many share a clear sign and how many are of
    clearly opposite signs, and for an undetermined verdict the games per arm that would
    settle it (`verdict.games_to_settle`, 80% power at the family's level)."""
    from .verdict import games_to_settle

    empty = {"pooled": "undetermined", "agree": 0, "opposite": 0, "states": 0,
             "greedy": None, "other": None, "diff": None, "settle": math.nan, "why": "",
             "settle_arm": None, "signed": False}
    if t.is_empty():
        return empty
    first = t.row(0, named=True)
    g, o = _arm_rows(t, first["focal"], first["table"]), _arm_rows(t, focal, table)
    gd, od = g.get("all"), o.get("all")
    diff = None
    if diffs is not None and not diffs.is_empty():
        sub = diffs.filter((pl.col("focal") == focal) & (pl.col("table") == table))
        diff = sub.row(0, named=True) if sub.height else None
    common = [s for s in g if s in o and s != "all"]
    agree = sum(1 for s in common if sign_of(g[s]) and sign_of(g[s]) == sign_of(o[s]))
    opp = sum(1 for s in common if sign_of(g[s]) * sign_of(o[s]) == -1)
    out = dict(empty, agree=agree, opposite=opp, states=len(common), greedy=gd, other=od,
               diff=diff)
    for who, r in (("greedy's", gd), ("the strong player's", od)):
        cell = (r or {}).get("cell", "empty")
        if cell != "measured":
            out["pooled"] = {"ceiling": "ceiling", "unchanged": "unchanged"}.get(
                cell, "no decision points")
            out["why"] = {
                "ceiling": f"{who} arm wins every game whichever it answers: a single "
                           "decision cannot change the game's winner",
                "unchanged": f"at none of {who} arm's points did the answer change who won "
                             "the game: a value of 0 without spread, near a ceiling"}.get(
                cell, f"{who} arm met no decision point")
            return out
    out["pooled"] = verdict_of(gd, od)
    if out["pooled"] == "undetermined":
        open_ = [(who, r) for who, r in (("greedy", gd), ("strong", od))
                 if not sign_of(r) and not negligible(r)]
        signed = not open_  # greedy's within the bound, the strong player's signed
        open_ = open_ or [("strong", od)]
        out["why"] = (f"the strong player's value is clearly signed but neither within "
                      f"+-{NO_EFFECT:g} nor wholly beyond it, where greedy's lies within it"
                      if signed else "neither value is clearly signed" if len(open_) == 2
                      else "greedy's value is not clearly signed" if open_[0][0] == "greedy"
                      else "the strong player's value is not clearly signed")
        need = [(games_to_decide(r, family), who) for who, r in open_]
        n, who = max(need, key=lambda x: x[0] if math.isfinite(x[0]) else math.inf)
        out["settle"], out["settle_arm"], out["signed"] = n, who, signed
    return out


# --- the sections ---------------------------------------------------------------------

def _league(deals: int, seed: int, n_jobs: int, tables, players):
    from uno_sim.players.league import play_league

    leagues = []
    for k in sorted({k for _, k in tables}):
        vs = [v for v, kk in tables if kk == k]
        leagues.append(play_league(list(players), variants=vs, player_counts=[k],
                                   deals=deals, seed=seed, bootstrap=300, jobs=n_jobs))
    return leagues


def _ok(*xs):
    return all(x is not None and isinstance(x, (int, float)) and math.isfinite(x) for x in xs)


def study(deals: int = DEFAULT_DEALS, games: int = DEFAULT_GAMES, seed: int = 0,
          out: str = ".", n_jobs: int = 1, tables=LEAGUE_TABLES,
          value_tables=VALUE_TABLES, every: int = EVERY, min_points: int = MIN_POINTS,
          focal: str = FOCAL, greedy_games: int | None = None, luck: str = "auto",
          search: str | None = SEARCH, search_games: int = 0,
          search_every: int = SEARCH_EVERY, search_players=SEARCH_PLAYERS,
          equilibria: dict | None = None) -> dict:
    """Run the league (`deals` per pairing; 0: none) at `tables` and the strong-play values
    (at each (variant, players) of `value_tables`: greedy's arm on `greedy_games` games
    (default DEFAULT_GREEDY_GAMES, at most MAX_SIZE), the strong player's arms on `games`
    games with one point in `every`, each times `SPREAD[kind]`; `games` 0: none; at
    `search_players` players the search check's arms of `search` on `search_games`
    games, one point in `search_every`; `equilibria`: {(variant, players):
    `mixes_of(...)`}, the reported equilibrium whose rates stand beside each arm's);
    returns {'sections', 'leagues',
    'runs', 'tables': {(variant, players, kind): value table}, 'diffs', 'holm', 'compare',
    'agreement', ...} (the league figures written into `out`)."""
    deals, games = check_size(deals, "strong-deals"), check_size(games, "strong-games")
    greedy_games = check_size(DEFAULT_GREEDY_GAMES if greedy_games is None else greedy_games,
                              "strong-greedy-games")
    search_games = check_size(search_games, "strong-search-games")
    focal = check_player(focal)
    search = check_player(search, "search player") if search and search_games else None
    os.makedirs(out, exist_ok=True)
    players = league_players(focal)
    equilibria = equilibria or {}
    res = {"sections": [], "leagues": [], "runs": {}, "tables": {}, "diffs": {}, "holm": {},
           "deals": deals, "games": games, "greedy_games": greedy_games, "focal": focal,
           "every": every, "value_tables": tuple(value_tables), "compare": {}, "seed": seed,
           "n_jobs": n_jobs, "search": search, "search_games": search_games if search else 0,
           "search_every": search_every, "search_players": tuple(search_players),
           "equilibria": equilibria, "agreement": {}}
    if deals:
        res["sections"].append(_league_section(deals, seed, n_jobs, tables, players, out, res))
    if games:
        sec = Section("Strong play: bluff and challenge values")
        for v, k in value_tables:
            sg = res["search_games"] if k in search_players else 0
            runs = play_values(v, k, games, seed, focal, n_jobs, every, greedy_games, luck,
                               search, sg, search_every)
            res["runs"][(v, k)] = runs
            mixes = equilibria.get((v, k)) or {}
            for kind in KINDS:
                res["tables"][(v, k, kind)] = value_table(runs, kind, min_points,
                                                          mixes.get(kind), k)
                res["diffs"][(v, k, kind)] = differences(runs, kind)
        res["holm"] = holm_fill(res["tables"], res["diffs"])
        for (v, k, kind), t in res["tables"].items():
            for who, table in strong_arms(res, v, k, kind):
                res["compare"][(v, k, kind, who, table)] = compare(
                    t, who, table, res["diffs"][(v, k, kind)], res["holm"].get("pooled", 1))
            if search and k in search_players:
                res["agreement"][(v, k, kind)] = agreement(res, v, k, kind)
        _values_section(sec, res, min_points)
        res["sections"].append(sec)
    return res


def strong_arms(res: dict, variant: str, players: int, kind: str) -> list:
    """The (focal, table) arms of one setup and kind that were run, greedy's left out: the
    strong player's, then the search check's."""
    runs = res["runs"].get((variant, players), {})
    return [(who, table) for (kd, who, table) in runs if kd == kind and who != "greedy"]


def _rating(res: dict, variant: str, players: int, who: str):
    """The league rating row of `who` at (variant, players), or None."""
    for lg in res.get("leagues", []):
        for t in lg.tables:
            if t.title() != f"{variant}, {players} players":
                continue
            for r in t.rows():
                if r["player"] == who:
                    return r
    return None


def agreement(res: dict, variant: str, players: int, kind: str) -> list[dict]:
    """Per table (the usual one, every seat): the learned player's verdict beside the search
    player's, whether they agree, the difference of their values (learned less search,
    SE clustered by game, `frame_difference`) and which answer the report trusts, and
    why."""
    focal, search = res["focal"], res["search"]
    out = []
    runs = res["runs"][(variant, players)]
    for (fw, ft), (sw, st) in zip(arms(kind, focal)[1:], search_arms(kind, search, focal)):
        a = res["compare"].get((variant, players, kind, fw, ft))
        b = res["compare"].get((variant, players, kind, sw, st))
        if a is None or b is None:
            continue
        va, vb = a["pooled"], b["pooled"]
        det = ("holds", "contradicted", "no effect")
        if va in det and vb in det:
            agree = "agree" if va == vb else "disagree"
        else:
            agree = "open"
        d, se = frame_difference(runs[(kind, fw, ft)]["frame"], runs[(kind, sw, st)]["frame"])
        ra, rb = _rating(res, variant, players, fw), _rating(res, variant, players, sw)
        stronger = None
        if ra and rb:
            stronger = sw if rb["rating"] > ra["rating"] else fw
        if agree == "agree":
            trust, why = fw, "both answers agree"
        elif agree == "disagree":
            trust = stronger or sw
            why = (f"`{trust}` is the stronger in the league ({_rating_text(ra, fw)}, "
                   f"{_rating_text(rb, sw)}), and the question is what good play does"
                   if stronger else "the search looks further ahead at each decision")
        elif va in det:
            trust, why = fw, f"the search's arm ({runs[(kind, sw, st)]['games']:,} games) " \
                             "does not decide it"
        elif vb in det:
            trust, why = sw, "the learned player's arm does not decide it"
        else:
            trust, why = None, "neither arm decides it"
        out.append({"table": "usual" if ft != fw else "every seat", "learned": fw,
                    "learned_table": ft, "search": sw, "search_table": st,
                    "learned_verdict": va, "search_verdict": vb, "agreement": agree,
                    "difference": d, "se": se, "trust": trust, "why": why})
    return out


def _rating_text(r, who) -> str:
    return f"`{who}` {fmt_ci(r['rating'], r['low'], r['high'], 0)}" if r else f"`{who}` unrated"


def _league_section(deals, seed, n_jobs, tables, players, out, res) -> Section:
    from uno_sim.players.league import BOUND_NOTE

    sec = Section("Strong play: the league")
    leagues = _league(deals, seed, n_jobs, tables, players)
    res["leagues"] = leagues
    sec.p(f"Every pairing of {', '.join(f'`{p}`' for p in players)} on {deals} "
          "deals per pairing, each deal played once per seat rotation (uno_sim.players.league; "
          "docs/policies.md \"League\"); Bradley-Terry ratings on the Elo scale, greedy = "
          "0, with percentile 95% bootstrap intervals over deals (300 resamples); seed "
          f"{seed}. The cheating search (`cheat=1`) sees every hand (not the order of the "
          "draw pile) and challenges exactly the bluffs it sees: an upper bound on what "
          "seeing the cards buys at that budget. `us/decision`: CPU microseconds per "
          "decision in self-play, measured on the machine that made the report (the one "
          "number here that a rerun does not reproduce exactly).")
    for lg in leagues:
        for t in lg.tables:
            rows = pl.DataFrame([{"player": r["player"] + (" *" if r["bound"] else ""),
                                  "rating": fmt_ci(r["rating"], r["low"], r["high"], 0),
                                  "share": round(r["share"], 3),
                                  "us/decision": round(r["cpu_seconds_per_decision"] * 1e6, 3)}
                                 for r in t.rows()])
            sec.table(f"Ratings, {t.title()} ({deals} deals per pairing)", rows)
            sec.p(_reading(t) + (" " + BOUND_NOTE.lstrip("* ").capitalize().replace(
                "Every pairing of this player", "(*) Every pairing of a starred player")
                + "." if t.bounded() else ""))
    for lg in leagues:
        fig = os.path.join(out, f"strong_league_{lg.player_counts[0]}p.png")
        lg.plot(fig)
        sec.figure(f"Rating against CPU time per decision (log scale) with 95% intervals, "
                   f"{lg.player_counts[0]} players: {deals} deals per pairing, seed {seed}",
                   fig)
    return sec


def _card(variant: str) -> str:
    from .balance import face_of
    from .common import restricted_cards

    names = list(dict.fromkeys(face_of(c) for c in restricted_cards(variant)))
    return " or ".join(names) if names else "restricted card"


def _ci(r: dict | None, col: str = "value", lo: str = "low", hi: str = "high",
        digits: int = 3) -> str:
    if not r:
        return "-"
    m, a, b = r.get(col), r.get(lo), r.get(hi)
    return fmt_ci(m, a, b, digits) if _ok(m, a, b) else "-"


def _share(r: dict, col: str) -> str:
    m, lo, hi = r.get(col), r.get(f"{col}_low"), r.get(f"{col}_high")
    if not _ok(m):
        return "-"
    return f"{m:.1%} [{lo:.1%}, {hi:.1%}]" if _ok(lo, hi) else f"{m:.1%}"


def shown_table(t: pl.DataFrame, kind: str) -> pl.DataFrame:
    """A value table as the section prints it: intervals as text, both labelled."""
    rows = []
    for r in t.iter_rows(named=True):
        cell = r.get("cell", "measured")
        row = {"focal": r["focal"], "table": r["table"], "state": r["state"],
               "points": r["points"], "acts": _share(r, "acts"),
               **({"equilibrium": _pct(r.get("equilibrium"))} if "equilibrium" in t.columns
                  else {}),
               "value [95%]": _ci(r) if cell == "measured" else cell,
               "value [Holm]": _ci(r, lo="holm_low", hi="holm_high") if cell == "measured"
               else cell,
               "p_holm": r.get("p_holm"),
               "choice": _ci(r, "choice", "choice_low", "choice_high"),
               "variance ratio": _ci(r, "vr", "vr_low", "vr_high", 2) if r["state"] == "all"
               else ""}
        if kind == "challenge":
            row["bluffs"] = _share(r, "bluffs")
        rows.append(row)
    return pl.DataFrame(rows)


def _pct(x) -> str:
    return f"{x:.1%}" if _ok(x) else "-"


def _diff_text(diff: dict | None) -> str:
    if not diff or not _ok(diff.get("value")):
        return "their difference cannot be measured"
    d = _ci(diff, lo="holm_low", hi="holm_high")
    if diff.get("reject"):
        return (f"the strong player's value is clearly {'above' if diff['value'] > 0 else 'below'}"
                f" greedy's, by {d} (Holm)")
    return f"their difference, {d} (Holm), is not clear"


def _settle_text(c: dict, runs: dict, n_jobs: int, kind: str, who: str, table: str) -> str:
    """'; about N games for the ... arm would settle it (..., about H CPU-hours ...)'."""
    from .verdict import round_size

    n = c.get("settle")
    if n is None or not (isinstance(n, float) and not math.isnan(n)):
        return ""
    if not math.isfinite(n):
        return "; no size in reach would settle it (an estimate of 0)"
    arm = c.get("settle_arm")
    run = runs.get((kind, *arms(kind, who)[0])) if arm == "greedy" else \
        runs.get((kind, who, table))
    cost = ""
    if run and run["games"]:
        secs = n / run["games"] * run["seconds"]
        mins = max(1, round(secs / 60))
        cost = (f", about {secs / 3600:.1f} CPU-hours" if secs >= 360 else
                f", about {mins} CPU-minute{'s' if mins > 1 else ''}") + " at this run's speed"
    return (f"; about {round_size(n)} games for the {'greedy' if arm == 'greedy' else 'strong'}"
            f" arm would decide it ("
            + (f"within +-{NO_EFFECT:g} or wholly beyond it" if c.get("signed") else
               f"clearly signed, or within +-{NO_EFFECT:g}")
            + f"; 80% power if its estimate is the truth{cost}): not run, the report's "
            "default sizes keep it within 90 minutes on two cores")


def setup_reading(t: pl.DataFrame, kind: str, where: str, res: dict, v: str, k: int) -> str:
    """Per strong-player arm: its verdict against greedy's, the difference, the settling
    size where undetermined, and the designer's sentence."""
    from .verdict import advice

    parts = []
    for who, table in strong_arms(res, v, k, kind):
        c = res["compare"][(v, k, kind, who, table)]
        g, o = c["greedy"], c["other"]
        head = f"`{who}` against `{table}`"
        if c["pooled"] in ("ceiling", "unchanged", "no decision points"):
            parts.append(f"{head}: {c['pooled']} ({c['why']})")
            continue
        text = (f"{head}: value {_ci(o, lo='holm_low', hi='holm_high')} against greedy's "
                f"{_ci(g, lo='holm_low', hi='holm_high')} (Holm intervals): greedy's sign "
                + {"holds": "holds for the strong player",
                   "contradicted": "is contradicted by the strong player",
                   "no effect": ("does not carry over: for the strong player" if sign_of(g)
                                 else "is not to be had (its value is not clearly signed), "
                                 "and for the strong player too") + " the decision moves no more "
                                f"than {NO_EFFECT:g} of game-win share either way (no "
                                f"effect larger than {NO_EFFECT:g})"}.get(
                    c["pooled"], f"is neither confirmed nor contradicted ({c['why']}"
                    + _settle_text(c, res["runs"][(v, k)], res["n_jobs"], kind, who, table)
                    + ")")
                + f"; {_diff_text(c['diff'])}; by state, {c['agree']} of {c['states']} states "
                f"share a clear sign and {c['opposite']} are of clearly opposite signs")
        parts.append(text)
    sentences = []
    for who, table in [arms(kind, res["focal"])[0]] + strong_arms(res, v, k, kind):
        rows = _arm_rows(t, who, table)
        pooled = rows.get("all")
        if pooled is None:
            continue
        states = [r for s, r in rows.items() if s != "all"]
        sentences.append(advice(kind, _card(v), f"`{who}`", f"`{table}`", pooled, states))
    return f"{where}, {kind}: " + "; ".join(parts) + ". " + " ".join(sentences)


def _values_section(sec: Section, res: dict, min_points: int) -> None:
    sec.p(values_intro(res, min_points))
    vt = verdict_table(res)
    if vt.height:
        sec.table("The verdicts, one row per kind, variant, player count and arm (focal "
                  "seat, table): the arm's pooled value and greedy's on the same games "
                  "(game-win share, Holm intervals), how often the focal seat acts beside the "
                  "reported equilibrium's rate at the same points, and the verdict word "
                  "(holds, contradicted, no effect, undetermined, or a named cell)", vt)
    for (v, k, kind), t in res["tables"].items():
        where = f"{v}, {k} players"
        if t.is_empty():
            sec.p(f"{where}: no {kind} decision point in any arm.")
            continue
        what = "next player's" if kind == "bluff" else "offender's"
        sec.table(f"{'Bluffing' if kind == 'bluff' else 'Challenging'}, {where}, by the "
                  f"{what} hand size (state): points, how often the focal seat "
                  f"{'bluffs' if kind == 'bluff' else 'challenges'} (acts)"
                  + (", how often the reported equilibrium's mix would at the same points "
                     "(equilibrium)" if "equilibrium" in t.columns else "")
                  + ", the value of "
                  "doing so in game-win share with its plain 95% interval and its Holm "
                  "interval (the one the verdicts read), Holm's p, the value of its own "
                  "answers (choice, 95%), and the control variate's variance ratio"
                  + ("; bluffs: the share of the points where the offender's card was a "
                     "bluff" if kind == "challenge" else ""), shown_table(t, kind))
        d = res["diffs"].get((v, k, kind))
        if d is not None and not d.is_empty():
            sec.table(f"Strong player less greedy, {where}, {kind}: the difference of the "
                      "pooled values (game-win share; the same games, SE clustered by game)",
                      pl.DataFrame([{"focal": r["focal"], "table": r["table"],
                                     "difference [95%]": _ci(r),
                                     "difference [Holm]": _ci(r, lo="holm_low",
                                                              hi="holm_high"),
                                     "p_holm": r.get("p_holm")}
                                    for r in d.iter_rows(named=True)]))
        sec.p(setup_reading(t, kind, where, res, v, k))
        does = does_reading(t, kind, where, res, v, k)
        if does:
            sec.p(does)
        ag = res["agreement"].get((v, k, kind))
        if ag:
            sec.p(agreement_reading(ag, kind, where))
    sec.table("Cost of each arm: CPU seconds on the machine that made this run (with more "
              "than one job, wall seconds times the jobs, an upper bound), the control "
              "variate's pools included; the strong player's arms replay "
              f"{_strong_sizes(res['games'], res['every'], with_games=False)}, greedy's every point"
              + (f", the search check's one in {res['search_every']}" if res.get("search")
                 else ""), cost_table(res))


def verdict_table(res: dict) -> pl.DataFrame:
    """One row per kind, variant, player count and non-greedy arm (the strong player's and
    the search check's): values (Holm), acts beside the equilibrium's rate, the verdict
    word, and for an open one the games per arm that would decide it."""
    from .verdict import round_size

    rows = []
    for (v, k, kind), t in res.get("tables", {}).items():
        if t is None or t.is_empty():
            continue
        for who, table in strong_arms(res, v, k, kind):
            c = res["compare"][(v, k, kind, who, table)]
            g, o = c["greedy"] or {}, c["other"] or {}
            n = c.get("settle")
            rows.append({
                "kind": kind, "variant": v, "players": k, "focal": who, "table": table,
                "value [Holm]": _ci(o, lo="holm_low", hi="holm_high"),
                "greedy's [Holm]": _ci(g, lo="holm_low", hi="holm_high"),
                "acts": _share(o, "acts") if o else "-",
                "equilibrium acts": _pct(o.get("equilibrium")),
                "verdict": c["pooled"],
                "games to decide": round_size(n) if isinstance(n, float) and
                not math.isnan(n) else ""})
    return pl.DataFrame(rows)


def does_reading(t: pl.DataFrame, kind: str, where: str, res: dict, v: str, k: int) -> str:
    """What the strong player does: how often it acts, overall and by state, beside how often
    the reported equilibrium's mix would at the same points."""
    if "equilibrium" not in t.columns:
        return ""
    verb = "bluffs" if kind == "bluff" else "challenges"
    whose = "the next player" if kind == "bluff" else "the offender"
    parts = []
    for who, table in strong_arms(res, v, k, kind):
        rows = _arm_rows(t, who, table)
        o = rows.get("all")
        if not o or not _ok(o.get("equilibrium"), o.get("acts")):
            continue
        by = [f"{s}: {_pct(r['acts'])} vs {_pct(r.get('equilibrium'))}"
              for s, r in rows.items() if s != "all" and _ok(r.get("equilibrium"))]
        lo, hi = o.get("acts_low"), o.get("acts_high")
        e = o["equilibrium"]
        rel = ("more often than" if _ok(lo) and lo > e else
               "less often than" if _ok(hi) and hi < e else "about as often as")
        parts.append(f"`{who}` against `{table}` {verb} at {_share(o, 'acts')}, {rel} the "
                     f"equilibrium's {_pct(e)} at the same points (by {whose}'s hand: "
                     + "; ".join(by) + ")")
    if not parts:
        return ""
    return (f"What a strong player does, {where}, {kind}: " + "; ".join(parts) + ". The "
            "equilibrium is the one the report's bluff/challenge game reaches (after the "
            "exploitability section's double-oracle rounds where they ran), over "
            "knob rules of greedy; a learned player that departs from it is not wrong for "
            "that: the rules see only hand sizes and the posterior.")


def agreement_reading(ag: list[dict], kind: str, where: str) -> str:
    """The search check's line: does the learned player's answer agree with the search's?"""
    from uno_sim.stats import Z95

    parts = []
    for a in ag:
        m, se = a["difference"], a["se"]
        d = fmt_ci(m, m - Z95 * se, m + Z95 * se, 3) if _ok(m, se) else "-"
        head = (f"against {'the usual table' if a['table'] == 'usual' else 'itself at every seat'}"
                f", `{a['learned']}` reads {a['learned_verdict']} and `{a['search']}` "
                f"{a['search_verdict']}")
        if a["agreement"] == "agree":
            tail = "they agree"
        elif a["agreement"] == "disagree":
            tail = f"they disagree; the report trusts `{a['trust']}`: {a['why']}"
        else:
            tail = ("not both decided; the answer stands on "
                    f"`{a['trust']}`'s ({a['why']})" if a["trust"] else "neither decides it")
        parts.append(f"{head}: {tail} (their values differ by {d}, learned less search, "
                     "95%)")
    return f"Search check, {where}, {kind}: " + "; ".join(parts) + "."


def cost_table(res: dict) -> pl.DataFrame:
    rows = []
    for (v, k), runs in res["runs"].items():
        for (kind, who, table), run in runs.items():
            f = run["frame"]
            rows.append({"variant": v, "players": k, "kind": kind, "focal": who,
                         "table": table, "games": run["games"], "every": run["every"],
                         "points": f.height, "control variate": run["luck"],
                         "CPU s": round(run["seconds"], 1),
                         "ms per game": round(1000 * run["seconds"] / max(run["games"], 1), 1)})
    return pl.DataFrame(rows)


def _strong_sizes(games: int, every: int, with_games: bool = True) -> str:
    """The strong player's arms' sizes by kind (`SPREAD`): 'challenge: games 0-N, one point
    of the focal seat in E; bluff: ...' (the games left out without `with_games`)."""
    parts = []
    for kind in ("challenge", "bluff"):
        gm, em = SPREAD[kind]
        n = f"games 0-{games * gm - 1}, " if with_games else ""
        parts.append(f"{kind}: {n}one point of the focal seat in {every * em}")
    return "; ".join(parts)


def values_intro(res: dict, min_points: int) -> str:
    focal, games, gg, every, seed = (res["focal"], res["games"], res["greedy_games"],
                                     res["every"], res["seed"])
    h = res["holm"]
    where = "; ".join(f"{v} at {k} players" for v, k in res["value_tables"])
    return (f"{where}; seed {seed}. Three arms per kind on the same games: plain greedy at "
            f"the focal seat against the usual table (games 0-{gg - 1}, every decision point "
            f"replayed), the strong player `{focal}` at the focal seat against the same "
            f"table, and `{focal}` at every seat ({_strong_sizes(games, every)}, a "
            "systematic sample)"
            + (f"; at {', '.join(map(str, res['search_players']))} players the search check "
               f"`{res['search']}` plays the same two arms (games 0-{res['search_games'] - 1}, "
               f"one point in {res['search_every']})" if res.get("search") else "")
            + ". Bluff: seat 0 decides; the usual "
            "table is plain greedy, which never challenges. Challenge: seat 1 decides on the "
            f"restricted cards played on it; the usual table is `{OFFENDER}`, which bluffs "
            "whenever it can; with the strong player at every seat the offender is the "
            "strong player itself (`bluffs` says how often its restricted cards were "
            "bluffs). Each point is played on both ways with common random numbers "
            "(uno_sim.counterfactual), the alternative the policy chose read from the game "
            "itself. An arm whose seats are all blind to the scores carries the control "
            "variate of the later rounds' deals (uno_sim.analysis.luck, AIVAT-style, "
            "unbiased; `own` in the cost table), whose variance ratio (corrected over "
            "plain, clustered by game, bootstrap 95% interval) its pooled row gives; an arm "
            "with a seat that reads the scores (a search player valuing its rollouts by the "
            "game-win table) is plain (`none`). "
            "acts: how often the focal policy bluffs / challenges (Wilson interval on the "
            "effective points); value: alternative 1 (bluff / challenge) less 0, game-win "
            "share, SE clustered by game; choice: its own answer less the other. A value is "
            "clearly signed when Holm's step-down rejects 0, and its Holm interval (the "
            "interval at the level Holm tested it at) then excludes 0: Holm's correction runs "
            f"over the {h.get('pooled', 0)} pooled values and differences together (what "
            f"the verdicts read) and separately over the {h.get('states', 0)} by-state "
            f"values. States with fewer than {min_points} points are left out. A ceiling "
            "(the focal seat wins every game whichever it answers) is named, not tested. "
            "Verdict: 'holds' / 'contradicted' where greedy's pooled value and the arm's are "
            "both clearly signed, alike / opposite; 'no effect' where the arm's Holm "
            f"interval lies within +-{NO_EFFECT:g} of game-win share (an equivalence test at "
            "the same level); 'undetermined' otherwise, with the games per arm that would "
            "decide it.")


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
    return (f"{t.title()}: the strongest non-cheating player after greedy, `{best['player']}`, "
            f"is rated {fmt_ci(best['rating'], best['low'], best['high'], 0)}, {g} greedy, "
            f"at {best['cpu_seconds_per_decision'] * 1e6:.0f} us per decision against "
            f"{rows['greedy']['cpu_seconds_per_decision'] * 1e6:.2f} for greedy.{tail}")


# --- the summary's answer -------------------------------------------------------------

def league_answer(results, extra: dict):
    """The summary's answer "how strong are the strong players?" from extra['strong']."""
    from uno_sim.players.specs import parse_policy

    from .summary import Answer

    res = (extra or {}).get("strong")
    if not res or not res.get("leagues"):
        return None
    rows = []
    for lg in res["leagues"]:
        for t in lg.tables:
            by = {r["player"]: r for r in t.rows()}
            s = next((r for r in t.rows() if "cheat=1" not in r["player"]
                      and parse_policy(r["player"]).name not in ("random", "greedy",
                                                                 "strategic")), None)
            f = by.get(res["focal"])
            rows.append({"table": t.title(),
                         "strongest non-cheating player": f"`{s['player']}` "
                         f"{fmt_ci(s['rating'], s['low'], s['high'], 0)}" if s else "-",
                         "the strong player": f"`{res['focal']}` "
                         f"{fmt_ci(f['rating'], f['low'], f['high'], 0)}" if f else "-"})
    return Answer("How strong are the strong players?",
                  "League ratings against greedy (Elo scale, greedy = 0, 95% bootstrap "
                  "intervals over deals): the strongest non-cheating player at each table and "
                  "the strong player whose answers the next question reads. See the league "
                  "section.", pl.DataFrame(rows))


def strong_answer(results, extra: dict):
    """The summary's answer "do the answers hold for strong play?" from extra['strong']:
    the verdict table (`verdict_table`), one row per kind, variant, player count and arm."""
    from .summary import Answer

    res = (extra or {}).get("strong")
    if not res or not res.get("tables"):
        return None
    vt = verdict_table(res)
    if not vt.height:
        return None
    det = ("holds", "contradicted", "no effect")
    said = []
    for k in sorted(set(vt["players"].to_list())):
        sub = vt.filter((pl.col("players") == k) & (pl.col("focal") == res["focal"]))
        if not sub.height:
            continue
        words = sub["verdict"].to_list()
        n = sum(w in det for w in words)
        counts = ", ".join(f"{w} {words.count(w)}" for w in det + ("undetermined",)
                           if words.count(w))
        said.append(f"at {k} players {n} of {len(words)} of `{res['focal']}`'s verdicts are "
                    f"determined ({counts})")
    ag = [a for rows in res.get("agreement", {}).values() for a in rows]
    both = [a for a in ag if a["agreement"] in ("agree", "disagree")]
    if ag:
        said.append(f"the search check `{res['search']}` decides alongside it in "
                    f"{len(both)} of {len(ag)} cases and agrees in "
                    f"{sum(a['agreement'] == 'agree' for a in both)} of them")
    h = res.get("holm", {})
    text = ("Per kind, variant, player count and arm, the value of bluffing / challenging "
            "(game-win share) with the strong player at the focal seat against the usual "
            "table and at every seat (and the search check's arms), beside plain greedy at "
            "the focal seat on the same games; 'holds' where both pooled values are clearly "
            "of the same sign, 'contradicted' where clearly opposite, 'no effect' where the "
            f"strong player's value lies within +-{NO_EFFECT:g} (no effect larger than "
            f"{NO_EFFECT:g}), 'undetermined' otherwise (with the games per arm that would "
            "decide it). Intervals are Holm intervals (the level Holm's step-down tested "
            f"each value at, over the {h.get('pooled', 0)} pooled values and differences); "
            "acts: how often the focal seat bluffs / challenges, beside the reported "
            "equilibrium's rate at the same points. See the strong-play sections.")
    return Answer("Do the answers hold for strong play?", text, vt,
                  verdict=_sentence("; ".join(said)) if said else "")


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def _register() -> None:
    """The summary's answers, registered when this module is imported (as exploit's): the
    first of the later answers (`summary.LATER_ANSWERS`), whoever registered before."""
    from . import summary

    for fn in (strong_answer, league_answer):
        if fn not in summary.LATER_ANSWERS:
            summary.LATER_ANSWERS.insert(0, fn)


_register()
