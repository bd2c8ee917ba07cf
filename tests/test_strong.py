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


@pytest.mark.slow
def test_sections_render_with_tables_a_figure_and_summary_lines(tmp_path):
    """Tiny sizes: the league section has its rating tables and figure, the values section
    its two tables, and the summary gains its strong-play answer with intervals."""
    _search_known()
    r = strong.study(deals=1, games=4, seed=2, out=str(tmp_path), tables=(("classic", 2),))
    md = render_markdown(r["sections"], base=str(tmp_path))
    assert "## Strong play: the league" in md and "Ratings, classic, 2 players" in md
    assert (tmp_path / "strong_league_2p.png").stat().st_size > 0
    assert "](strong_league_2p.png)" in md
    assert "Value of challenging" in md and "Value of bluffing" in md
    # the sizes are said
    assert "1 deals per pairing" in md and "games 0-3" in md
    assert "point of the focal seat in" in md
    res = summary.Results()
    ans = [a for a in summary.answers(res, {"strong": r}) if "strong play" in a.question]
    assert len(ans) == 1
    t = ans[0].table
    ratings = [a for q, a in t.iter_rows() if q.startswith("strongest")]
    assert ratings and all(INTERVAL.search(a) for a in ratings)
    assert any(q.startswith("bluff value") for q, _ in t.iter_rows())
    verdicts = [a for q, a in t.iter_rows() if q.startswith(("bluff:", "challenge:"))]
    assert len(verdicts) == 2
    assert all(a.endswith(("contradicted", "confirmed", "both are clearly signed)"))
               for a in verdicts)
    assert summary.answers(res, {}) == []  # nothing run, no strong-play line
