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
                       (["--strong-games", "1e9"], "at most")):
        assert main(["report", "--games", "5", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert text in err and len(err.splitlines()) == 1, err


def test_the_arms_put_the_search_player_at_the_focal_seat_and_at_the_table():
    """C7 / C12 designs: greedy and the search player against the usual table (bluff: a
    plain greedy table; challenge: an offender that bluffs whenever it can), then the search
    player at every seat; the summary compares with the first arm."""
    for kind, usual in (("bluff", "greedy"), ("challenge", strong.OFFENDER)):
        a = strong.arms(kind)
        assert a == [("greedy", usual), (strong.FOCAL, usual), (strong.FOCAL, strong.FOCAL)]
    assert parse_policy(strong.OFFENDER).knob("bluff") == 1
    assert {(v, k) for v, k in strong.VALUE_TABLES} == {("classic", 2), ("classic", 4),
                                                        ("flip", 2), ("flip", 4)}


def _arm_rows(focal, table, rows):
    """A value table's rows of one arm from (state, value, low, high)."""
    return [{"focal": focal, "table": table, "state": s, "points": 50, "games": 20,
             "acts": 0.1, "acts_low": 0.0, "acts_high": 0.2, "value": v, "value_low": lo,
             "value_high": hi, "choice": -v, "choice_low": -hi, "choice_high": -lo,
             "p": strong._p_two_sided(v, lo, hi), "p_holm": float("nan")}
            for s, v, lo, hi in rows]


def _table(kind, greedy_rows, focal_rows, whole_rows):
    (g, ug), (f, uf), (w, uw) = strong.arms(kind)
    return pl.DataFrame(_arm_rows(g, ug, greedy_rows) + _arm_rows(f, uf, focal_rows)
                        + _arm_rows(w, uw, whole_rows))


def test_the_verdict_follows_the_corrected_intervals():
    """'holds' only where both pooled values are clearly of one sign after Holm's
    correction, 'contradicted' where clearly opposite, else 'undetermined'; the states are
    counted the same way, and the summary's line says the verdict with both intervals."""
    neg, pos, zero = (-0.05, -0.07, -0.03), (0.05, 0.03, 0.07), (0.01, -0.02, 0.04)
    t = _table("bluff",
               [("1", *pos), ("3", *neg), ("all", *neg)],
               [("1", *pos), ("3", *pos), ("all", *neg)],
               [("1", *zero), ("3", *neg), ("all", *pos)])
    tables = {("classic", 2, "bluff"): t}
    sizes = strong.holm_fill(tables)
    assert sizes == {"states": 6, "pooled": 3}
    t = tables[("classic", 2, "bluff")]
    assert (t["p_holm"] >= t["p"]).all()
    focal, whole = strong.arms("bluff")[1:]
    c = strong.compare(t, *focal)
    assert (c["pooled"], c["agree"], c["opposite"], c["states"]) == ("holds", 1, 1, 2)
    c = strong.compare(t, *whole)
    assert (c["pooled"], c["agree"], c["opposite"], c["states"]) == ("contradicted", 1, 0, 2)
    rows = strong.answer_rows(t, "classic", 2, "bluff")
    assert len(rows) == 2
    assert rows[0]["answer"].startswith("-0.050 [-0.070, -0.030]")
    assert ": holds;" in rows[0]["answer"] and ": contradicted;" in rows[1]["answer"]
    assert "sharing a clear sign 1, opposite 1, of 2" in rows[0]["answer"]
    # greedy's value not clearly signed: no sign to hold, whatever the search player's
    tables = {1: _table("challenge", [("all", *zero)], [("all", *neg)], [("all", *zero)])}
    strong.holm_fill(tables)
    rows = strong.answer_rows(tables[1], "flip", 2, "challenge")
    assert [r["answer"].split(": ")[-1].split(";")[0] for r in rows] == [
        "undetermined (greedy's value is not clearly signed)",
        "undetermined (neither value is clearly signed)"]


def test_holm_makes_a_nominally_clear_value_undetermined():
    """A pooled value with raw p 0.03 is clear alone (its 95% interval excludes 0) but not
    after Holm's correction beside two values with p 1 (p_holm 0.09)."""
    from uno_sim.stats import Z95

    se = 0.01
    v = -se * float(__import__("scipy").stats.norm.isf(0.015))  # two-sided p = 0.03
    clear = (v, v - Z95 * se, v + Z95 * se)
    assert clear[2] < 0
    alone = _table("bluff", [("all", *clear)], [("all", *clear)], [("all", *clear)])
    assert strong.holm_fill({1: alone}) == {"states": 0, "pooled": 3}
    t = {1: _table("challenge", [("all", *clear)], [("all", 0.0, -0.01, 0.01)],
                   [("all", 0.0, -0.01, 0.01)])}
    strong.holm_fill(t)
    g = t[1].filter(pl.col("focal") == "greedy").row(0, named=True)
    assert g["p"] == pytest.approx(0.03) and g["p_holm"] == pytest.approx(0.09)
    assert strong.sign_of(g) == 0
    alone_only = {1: pl.DataFrame(_arm_rows("greedy", "greedy", [("all", *clear)]))}
    strong.holm_fill(alone_only)
    assert strong.sign_of(alone_only[1].row(0, named=True)) == -1


def test_values_do_not_depend_on_jobs(monkeypatch):
    """Every arm of one table at tiny sizes: the same value tables at 1 and 2 jobs."""
    _search_known()
    monkeypatch.setattr(strong, "FOCAL", TINY)
    a = strong.study(deals=0, games=3, seed=4, out=".", value_tables=(("classic", 2),),
                     min_points=1, n_jobs=1)
    b = strong.study(deals=0, games=3, seed=4, out=".", value_tables=(("classic", 2),),
                     min_points=1, n_jobs=2)
    for key, t in a["tables"].items():
        assert t.equals(b["tables"][key], null_equal=True), key
    assert {(f, t) for f, t in zip(a["tables"][("classic", 2, "challenge")]["focal"],
                                   a["tables"][("classic", 2, "challenge")]["table"])} \
        == set(strong.arms("challenge"))


@pytest.mark.slow
def test_sections_render_with_tables_a_figure_and_summary_lines(tmp_path, monkeypatch):
    """Tiny sizes: the league section has its rating tables and figure, the values section
    a table per setup and kind with every arm, and the summary gains its strong-play answer
    with intervals and a verdict per setup, kind and search arm."""
    _search_known()
    r = strong.study(deals=1, games=0, seed=2, out=str(tmp_path), tables=(("classic", 2),))
    monkeypatch.setattr(strong, "FOCAL", TINY)
    v = strong.study(deals=0, games=4, seed=2, out=str(tmp_path), min_points=1)
    r["sections"] += v["sections"]
    r.update(tables=v["tables"], holm=v["holm"])
    md = render_markdown(r["sections"], base=str(tmp_path))
    assert "## Strong play: the league" in md and "Ratings, classic, 2 players" in md
    assert (tmp_path / "strong_league_2p.png").stat().st_size > 0
    assert "](strong_league_2p.png)" in md
    for where in ("classic, 2 players", "classic, 4 players", "flip, 2 players",
                  "flip, 4 players"):
        for kind in ("Bluffing", "Challenging"):
            assert f"{kind}, {where}, by the" in md, (kind, where)
    assert set(v["tables"]) == {(a, k, kind) for a, k in strong.VALUE_TABLES
                                for kind in ("bluff", "challenge")}
    for (_, _, kind), t in v["tables"].items():
        assert set(zip(t["focal"], t["table"])) == set(strong.arms(kind)), kind
    # the sizes are said
    assert "1 deals per pairing" in md and "games 0-3 per arm" in md
    assert f"point of the focal seat in {strong.EVERY}" in md
    assert f"over the {v['holm']['states']} by-state values" in md
    res = summary.Results()
    ans = [a for a in summary.answers(res, {"strong": r}) if "strong play" in a.question]
    assert len(ans) == 1
    t = ans[0].table
    ratings = [a for q, a in t.iter_rows() if q.startswith("strongest")]
    assert ratings and all(INTERVAL.search(a) for a in ratings)
    verdicts = [a for q, a in t.iter_rows() if q.startswith(("bluff value", "challenge value"))]
    assert len(verdicts) == 2 * 2 * len(strong.VALUE_TABLES)
    assert all(len(INTERVAL.findall(a)) >= 2 and
               re.search(r": (holds|contradicted|undetermined \([a-z' ]+\));", a) for a in verdicts)
    assert summary.answers(res, {}) == []  # nothing run, no strong-play line
