"""The strong-play sections of the report (uno_sim.analysis.strong) and the counterfactual
forcing of a search player's own decisions (C7 bluff, C12 challenge)."""

from __future__ import annotations

import re

import polars as pl
import pytest

pytest.importorskip("scipy")
pytest.importorskip("matplotlib")

from uno_sim.analysis import strong, summary  # noqa: E402
from uno_sim.analysis.common import StudyError  # noqa: E402
from uno_sim.analysis.doc import render_markdown  # noqa: E402
from uno_sim.policies import parse_policy  # noqa: E402
from uno_sim.rules import RulesError  # noqa: E402

INTERVAL = re.compile(r"[+-]?\d+(\.\d+)? \[[+-]?\d+(\.\d+)?, [+-]?\d+(\.\d+)?\]")
TINY = "pimc(samples=1,rollouts=1)"


def _search_known():
    try:
        parse_policy(TINY)
    except RulesError:
        pytest.skip("no search players in this build")


@pytest.mark.parametrize("kind", ["bluff", "challenge"])
def test_a_search_player_at_the_focal_seat_is_forced_both_ways(kind):
    """C7 / C12: with a search player at the focal seat the forced point takes both answers
    (the outcomes differ somewhere), and the alternative that agrees with the search's own
    answer replays the game it played (one outcome per game for that alternative)."""
    _search_known()
    from uno_sim.analysis.strongplay import decision_values as values

    table = "greedy" if kind == "bluff" else "greedy(bluff=1)"
    f = values(kind, "classic", 2, TINY, table, 8, 3, every=4)
    assert f.height > 0
    if kind == "challenge":
        assert (f["points_0"] != f["points_1"]).any()
    pols = [TINY, "greedy"] if kind == "bluff" else ["greedy(bluff=1)", TINY]
    seat = 0 if kind == "bluff" else 1
    from uno_sim.counterfactual import decision_values

    full = decision_values(kind, variant="classic", players=2, policies=pols, seat=seat,
                           games=2, seed=3)
    nat = full.with_columns(pl.when(pl.col("natural") == 1).then(pl.col("game_win_1"))
                            .otherwise(pl.col("game_win_0")).alias("nat"))
    assert (nat.group_by("game").agg(pl.col("nat").n_unique())["nat"] == 1).all()


def test_sizes_are_checked_in_one_line():
    for bad in (-1, 1.5, True, "3", strong.MAX_SIZE + 1):
        with pytest.raises(StudyError, match=r"invalid strong-games") as e:
            strong.check_size(bad, "strong-games")
        assert "\n" not in str(e.value)


def test_report_options_are_one_line_errors(capsys):
    from uno_sim.cli import main

    for argv, text in ((["--strong-deals", "0"], "--strong-deals '0'"),
                       (["--strong-games", "x"], "--strong-games 'x'"),
                       (["--strong-games", "1e9"], "at most"),
                       (["--strong-search-games", "x"], "--strong-search-games 'x'"),
                       (["--strong-search", "bad"], "invalid search player 'bad'"),
                       (["--exploit-deep-games", "-5"], "--exploit-deep-games '-5'")):
        assert main(["report", "--games", "5", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert text in err and len(err.splitlines()) == 1, err


def test_the_arms_put_the_strong_player_at_the_focal_seat_and_at_the_table():
    """C7 / C12 designs: greedy and the search player against the usual table (bluff: a
    plain greedy table; challenge: an offender that bluffs whenever it can), then the search
    player at every seat; the summary compares with the first arm."""
    for kind, usual in (("bluff", "greedy"), ("challenge", strong.OFFENDER)):
        a = strong.arms(kind)
        assert a == [("greedy", usual), (strong.FOCAL, usual), (strong.FOCAL, strong.FOCAL)]
    assert parse_policy(strong.OFFENDER).knob("bluff") == 1
    assert {(v, k) for v, k in strong.VALUE_TABLES} == {("classic", 2), ("classic", 4),
                                                        ("flip", 2), ("flip", 4)}


def _arm_rows(focal, table, rows, games=20):
    """A value table's rows of one arm from (state, value, se)."""
    return [{"focal": focal, "table": table, "state": s, "points": 50, "games": games,
             "cell": "measured", "acts": 0.1, "acts_low": 0.0, "acts_high": 0.2, "value": v,
             "se": se, "choice": -v, "choice_low": -v - 0.01, "choice_high": -v + 0.01,
             "run_games": games}
            for s, v, se in rows]


def _table(kind, greedy_rows, focal_rows, whole_rows):
    (g, ug), (f, uf), (w, uw) = strong.arms(kind)
    return pl.DataFrame(_arm_rows(g, ug, greedy_rows) + _arm_rows(f, uf, focal_rows)
                        + _arm_rows(w, uw, whole_rows))


NEG, POS, ZERO = (-0.05, 0.005), (0.05, 0.005), (0.01, 0.02)


def test_the_verdict_follows_the_holm_intervals():
    """'holds' only where both pooled values are clearly of one sign (Holm's step-down
    rejects 0, so their Holm intervals exclude it), 'contradicted' where clearly opposite,
    else 'undetermined' with the games that would settle it; the states are counted the
    same way, and the difference is in the pooled family."""
    t = _table("bluff", [("1", *POS), ("3", *NEG), ("all", *NEG)],
               [("1", *POS), ("3", *POS), ("all", *NEG)],
               [("1", *ZERO), ("3", *NEG), ("all", *POS)])
    focal, whole = strong.arms("bluff")[1:]
    diffs = {1: pl.DataFrame([{"focal": focal[0], "table": focal[1], "value": 0.0, "se": 0.01},
                              {"focal": whole[0], "table": whole[1], "value": 0.1,
                               "se": 0.01}])}
    tables = {1: t}
    sizes = strong.holm_fill(tables, diffs)
    assert sizes == {"pooled": 5, "states": 6}
    t = tables[1]
    for r in t.iter_rows(named=True):
        assert r["reject"] == (r["holm_low"] > 0 or r["holm_high"] < 0)
        assert r["holm_high"] - r["holm_low"] >= r["high"] - r["low"] - 1e-12
    c = strong.compare(t, *focal, diffs[1], sizes["pooled"])
    assert (c["pooled"], c["agree"], c["opposite"], c["states"]) == ("holds", 1, 1, 2)
    assert not c["diff"]["reject"]
    c = strong.compare(t, *whole, diffs[1], sizes["pooled"])
    assert (c["pooled"], c["agree"], c["opposite"], c["states"]) == ("contradicted", 1, 0, 2)
    assert c["diff"]["reject"] and c["diff"]["value"] > 0
    # greedy's value not clearly signed: undetermined, with the size that would settle it
    tables = {1: _table("challenge", [("all", *ZERO)], [("all", *NEG)], [("all", *ZERO)])}
    strong.holm_fill(tables)
    c = strong.compare(tables[1], *strong.arms("challenge")[1], None, 3)
    assert c["pooled"] == "undetermined" and c["why"] == "greedy's value is not clearly signed"
    assert c["settle_arm"] == "greedy" and c["settle"] > 20


def test_no_effect_where_the_strong_players_holm_interval_lies_within_a_hundredth():
    """C7 bluff: a strong player's value whose Holm interval lies within +-0.01 reads
    'no effect' whatever greedy's sign; one just too wide is undetermined, with the games
    that would bring it within the bound (fewer than would sign it); greedy within the
    bound and the strong player clearly beyond it is 'contradicted'."""
    t = _table("bluff", [("all", *NEG)], [("all", 0.001, 0.002)], [("all", 0.004, 0.004)])
    tables = {1: t}
    fam = strong.holm_fill(tables)["pooled"]
    focal, whole = strong.arms("bluff")[1:]
    c = strong.compare(tables[1], *focal, None, fam)
    assert c["pooled"] == "no effect" and strong.negligible(c["other"])
    c = strong.compare(tables[1], *whole, None, fam)
    o = c["other"]
    assert c["pooled"] == "undetermined" and o["holm_high"] > strong.NO_EFFECT
    from uno_sim.analysis.verdict import games_to_bound, games_to_settle

    assert c["settle"] == pytest.approx(games_to_bound(0.004, 0.004, 20, 0.01, fam))
    assert c["settle"] < games_to_settle(0.004, 0.004, 20, fam)
    assert 20 < c["settle"] < 20 * 30
    t = _table("bluff", [("all", 0.0, 0.002)], [("all", *NEG)], [("all", -0.011, 0.002)])
    tables = {1: t}
    fam = strong.holm_fill(tables)["pooled"]
    assert strong.compare(tables[1], *focal, None, fam)["pooled"] == "contradicted"
    # clearly signed, but its interval reaches inside the bound: not enough to contradict;
    # what decides it is the interval wholly beyond the bound, not a sign it already has
    c = strong.compare(tables[1], *whole, None, fam)
    assert c["pooled"] == "undetermined" and c["signed"] and "clearly signed but" in c["why"]
    assert c["settle"] == pytest.approx(games_to_bound(-0.011, 0.002, 20, 0.01, fam))
    assert c["settle"] > 20 * 10 > games_to_settle(-0.011, 0.002, 20, fam)
    # ... and, signed inside the bound, its interval within it
    t = _table("bluff", [("all", 0.0, 0.002)], [("all", *NEG)], [("all", -0.008, 0.001)])
    tables = {1: t}
    fam = strong.holm_fill(tables)["pooled"]
    c = strong.compare(tables[1], *whole, None, fam)
    assert c["pooled"] == "undetermined" and c["signed"] and c["other"]["holm_low"] < -0.01
    assert c["settle"] == pytest.approx(games_to_bound(-0.008, 0.001, 20, 0.01, fam))
    assert c["settle"] > 20


def test_games_to_bound_within_and_beyond():
    """The games that bring an interval within +-bound (|est| < bound) or wholly beyond it
    (|est| > bound) shrink as the estimate moves away from the bound, and scale with the
    games already played."""
    from uno_sim.analysis.verdict import games_to_bound

    assert games_to_bound(0.0, 0.01, 100, 0.01) < games_to_bound(0.005, 0.01, 100, 0.01)
    assert games_to_bound(0.03, 0.01, 100, 0.01) < games_to_bound(-0.015, 0.01, 100, 0.01)
    assert games_to_bound(0.01, 0.01, 100, 0.01) == float("inf")
    assert games_to_bound(0.02, 0.01, 200, 0.01) == pytest.approx(
        2 * games_to_bound(0.02, 0.01, 100, 0.01))


def test_equilibrium_rates_read_the_rules_as_the_engine_does():
    """C7 / C12: at each decision point, the mix's weight on the rules that fire there: a
    bluffer mixing next<=1 (0.25) and own<=2 (0.75); a challenger at posterior>0.6."""
    from uno_sim.analysis.bluffgame import Rule

    f = pl.DataFrame({"other_size": [1, 1, 3, 3], "own_size": [5, 2, 2, 7],
                      "could_bluff_p": [0.2, 0.9, 0.5, None]})
    mix = [(Rule("bluff", "next", 1), 0.25), (Rule("bluff", "own", 2), 0.75)]
    assert strong.equilibrium_rates(f, mix, 2).tolist() == [0.25, 1.0, 0.75, 0.0]
    post = [(Rule("challenge", "posterior", 0.6), 1.0)]
    # posterior = q b / (q b + 1 - q) with the prior b = 0.5: 0.11, 0.82, 0.33, 0
    assert strong.equilibrium_rates(f, post, 2).tolist() == [0.0, 1.0, 0.0, 0.0]
    m = strong.mixes_of(["a", "b"], [0.0, 1.0], ["c"], [1.0])
    assert m == {"bluff": [("b", 1.0)], "challenge": [("c", 1.0)]}


def test_holm_makes_a_nominally_clear_value_undetermined():
    """A pooled value with raw p 0.03 is clear alone (its 95% interval excludes 0) but not
    beside two values with p 1 (p_holm 0.09), and its Holm interval then holds 0."""
    from scipy import stats

    se = 0.01
    v = -se * float(stats.norm.isf(0.015))  # two-sided p = 0.03
    t = {1: _table("challenge", [("all", v, se)], [("all", 0.0, 0.01)], [("all", 0.0, 0.01)])}
    strong.holm_fill(t)
    g = t[1].filter(pl.col("focal") == "greedy").row(0, named=True)
    assert g["p"] == pytest.approx(0.03) and g["p_holm"] == pytest.approx(0.09)
    assert g["high"] < 0 < g["holm_high"] and strong.sign_of(g) == 0
    alone = {1: pl.DataFrame(_arm_rows("greedy", "greedy", [("all", v, se)]))}
    strong.holm_fill(alone)
    assert strong.sign_of(alone[1].row(0, named=True)) == -1


def test_a_ceiling_is_named_not_tested():
    """A player that wins every game whichever it answers has a value of 0 without spread:
    no test, no verdict on its sign, the word ceiling."""
    t = _table("challenge", [("all", *NEG)], [("all", 0.0, 0.0)], [("all", *NEG)])
    t = t.with_columns(cell=pl.when((pl.col("focal") != "greedy") & (pl.col("se") == 0))
                       .then(pl.lit("ceiling")).otherwise(pl.col("cell")))
    tables = {1: t}
    assert strong.holm_fill(tables)["pooled"] == 2
    c = strong.compare(tables[1], *strong.arms("challenge")[1])
    assert c["pooled"] == "ceiling" and "wins every game" in c["why"]


def test_values_do_not_depend_on_jobs():
    """Every arm of one table at tiny sizes: the same value tables at 1 and 2 jobs."""
    _search_known()
    kw = dict(deals=0, games=3, greedy_games=6, seed=4, out=".", focal=TINY, min_points=1,
              value_tables=(("classic", 2),))
    a = strong.study(n_jobs=1, **kw)
    b = strong.study(n_jobs=2, **kw)
    drop = ["seconds", "vr", "vr_low", "vr_high"]  # timings; the bootstrap is seeded but
    for key, t in a["tables"].items():
        assert t.drop(drop).equals(b["tables"][key].drop(drop), null_equal=True), key
    assert set(zip(a["tables"][("classic", 2, "challenge")]["focal"],
                   a["tables"][("classic", 2, "challenge")]["table"])) \
        == set(strong.arms("challenge", TINY))


def test_the_strong_player_is_a_parameter():
    assert strong.arms("bluff", TINY)[1] == (TINY, "greedy")
    assert strong.league_players(TINY)[-1] == "pimc(samples=1,rollouts=1,cheat=1)"
    assert strong.league_players("greedy") == (
        "random", "greedy", "strategic", "pimc(samples=16,rollouts=2)",
        "ismcts(iterations=80)", "net", "ismcts(anchor=net,z=1,rollout_challenge=1)",
        "pimc(samples=16,rollouts=2,cheat=1)")
    assert strong.FOCAL == "net" and strong.search_arms("bluff", strong.SEARCH) == [
        (strong.SEARCH, "greedy"), (strong.SEARCH, strong.SEARCH)]
    assert strong.search_arms("bluff", strong.FOCAL) == []  # the strong player itself
    with pytest.raises(StudyError, match="invalid strong player 'user:x'"):
        strong.check_player("user:x")


@pytest.mark.slow
def test_sections_render_with_tables_a_figure_and_summary_lines(tmp_path):
    """Tiny sizes: the league section has its rating tables and figure, the values section
    a table per setup and kind with every arm, a difference table, the costs, and the
    summary gains its strong-play answer with intervals and a verdict per setup, kind and
    strong-player arm."""
    _search_known()
    r = strong.study(deals=1, games=0, seed=2, out=str(tmp_path), tables=(("classic", 2),),
                     focal=TINY)
    v = strong.study(deals=0, games=4, greedy_games=8, seed=2, out=str(tmp_path),
                     min_points=1, focal=TINY)
    r["sections"] += v["sections"]
    md = render_markdown(r["sections"], base=str(tmp_path))
    assert "## Strong play: the league" in md and "Ratings, classic, 2 players" in md
    assert (tmp_path / "strong_league_2p.png").stat().st_size > 0
    for where in ("classic, 2 players", "classic, 4 players", "flip, 2 players",
                  "flip, 4 players"):
        for kind in ("Bluffing", "Challenging"):
            assert f"{kind}, {where}, by the" in md, (kind, where)
    assert "Strong player less greedy, classic, 2 players, bluff" in md
    assert "Cost of each arm" in md and "value [Holm]" in md and "value [95%]" in md
    assert "games 0-7, every decision point" in md and "one point of the focal seat in 4" in md
    for (_, _, kind), t in v["tables"].items():
        assert set(zip(t["focal"], t["table"])) == set(strong.arms(kind, TINY)), kind
    res = summary.Results()
    ans = [a for a in summary.answers(res, {"strong": {**r, **{k: v[k] for k in (
        "tables", "diffs", "holm", "compare", "runs", "focal", "n_jobs", "agreement",
        "search")}}}) if "strong" in a.question]
    assert [a.question for a in ans] == ["How strong are the strong players?",
                                         "Do the answers hold for strong play?"]
    ratings = ans[0].table["strongest non-cheating player"].to_list()
    assert ratings and all(INTERVAL.search(a) for a in ratings)
    t = ans[1].table
    assert t.height == 2 * 2 * len(strong.VALUE_TABLES)  # kinds x arms x setups
    assert set(t["verdict"]) <= {"holds", "contradicted", "no effect", "undetermined",
                                 "ceiling", "unchanged", "no decision points"}
    assert t.select("kind", "variant", "players", "focal", "table").n_unique() == t.height
    assert ans[1].verdict.startswith("At 2 players")
    assert summary.answers(res, {}) == []  # nothing run, no strong-play line


def test_the_search_check_runs_beside_the_strong_player_and_is_compared(tmp_path):
    """C7 / C12: at 2 players the search check's two arms run on their own sizes and every
    point sample, each gets a verdict against greedy's, and a line says whether the learned
    player's verdict agrees with the search's; at 4 players there is no search arm."""
    _search_known()
    r = strong.study(deals=0, games=6, greedy_games=6, seed=3, out=str(tmp_path), min_points=1,
                     search=TINY, search_games=3, search_every=2,
                     value_tables=(("classic", 2), ("classic", 4)))
    for kind in strong.KINDS:
        runs = r["runs"][("classic", 2)]
        for who, table in strong.search_arms(kind, TINY):
            assert (runs[(kind, who, table)]["games"], runs[(kind, who, table)]["every"]) \
                == (3, 2)
            assert ("classic", 2, kind, who, table) in r["compare"]
        assert not any(who == TINY for (_, who, _) in r["runs"][("classic", 4)])
        # the strong player's bluff arms spread their replays over more games (SPREAD)
        gm, em = strong.SPREAD[kind]
        for who, table in strong.arms(kind)[1:]:
            assert (runs[(kind, who, table)]["games"], runs[(kind, who, table)]["every"]) \
                == (6 * gm, strong.EVERY * em)
        ag = r["agreement"][("classic", 2, kind)]
        assert [a["table"] for a in ag] == ["usual", "every seat"]
        assert all(a["agreement"] in ("agree", "disagree", "open") for a in ag)
        assert ("classic", 4, kind) not in r["agreement"]
    md = render_markdown(r["sections"], base=str(tmp_path))
    assert "Search check, classic, 2 players, bluff" in md
    assert "Search check, classic, 4 players" not in md
    assert "one point in 2" in md
