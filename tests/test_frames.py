"""Results as tables: RunResult's Polars frames and notebook views, and a study's."""

import polars as pl
import pytest

from uno_sim.runner import load, simulate


@pytest.fixture(scope="module")
def res():
    return simulate(games=120, players=3, seed=2, target=100, seats={1: "random"})


def test_win_shares_is_a_frame_with_intervals(res):
    w = res.win_shares()
    assert isinstance(w, pl.DataFrame)
    assert w.columns == ["seat", "policy", "wins", "share", "low", "high"]
    assert w["seat"].to_list() == [0, 1, 2] and w["policy"].to_list()[1] == "random"
    assert w["wins"].sum() == pytest.approx(120)
    assert (w["low"] <= w["share"]).all() and (w["share"] <= w["high"]).all()
    assert w["share"].to_list() == [x["share"] for x in res.summary()["win_share"]]


def test_seats_is_the_long_per_seat_table(res):
    s = res.seats()
    assert s.height == 3 and s["seat"].to_list() == [0, 1, 2]
    for k in ("share", "low", "high", "cards_drawn", "rounds_won", "uno_forgotten_per_game"):
        assert k in s.columns, k
    assert s["rounds_won"].sum() == res.summary()["rounds"]  # every round has one winner here
    assert s["cards_drawn"].to_list() == res.agg["seats"]["cards_drawn"]


def test_summary_frame_matches_the_summary(res):
    f = res.summary_frame()
    assert f.columns == ["metric", "value"]
    values = dict(f.iter_rows())
    s = res.summary()
    assert values["games"] == 120 and values["rounds_per_game_mean"] == s["rounds_per_game_mean"]
    assert values["win_share_2_high"] == s["win_share"][2]["high"]


def test_a_run_shows_itself_in_a_notebook(res, tmp_path):
    md, page = res._repr_markdown_(), res._repr_html_()
    assert "| seat | policy | win share | 95% interval |" in md and "| 1 | random |" in md
    assert "<table>" in page and "random" in page and "120 games" in page
    out = str(tmp_path / "r")
    simulate(games=40, players=2, seed=1, out=out)
    assert "<table>" in load(out)._repr_html_()  # a run opened from its folder too


def test_a_study_shows_its_tables_and_figures_in_a_notebook(tmp_path):
    from uno_sim.analysis.doc import Section, StudyResult

    png = tmp_path / "fig.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n")  # what a study's figure file holds (its header)
    sec = Section("Balance").p("Round wins by position.")
    sec.table("win share by position", pl.DataFrame({"position": [1, 2], "share": [0.5, 0.5]}))
    sec.figure("shares", str(png))
    study = StudyResult("balance", [sec])
    page = study._repr_html_()
    assert page.startswith("<div>") and "<html>" not in page
    assert "<table>" in page and "<td>position</td>" not in page and "data:image/png" in page
    md = study._repr_markdown_()
    assert "| position | share |" in md and "![shares]" in md
