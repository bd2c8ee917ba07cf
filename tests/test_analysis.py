"""The studies: pipelines against hand-computed aggregates, the chi-square p-value, the
report, the CLI and the notebook."""

import math
import os

import numpy as np
import polars as pl
import pytest

pytest.importorskip("matplotlib")

from analysis import STUDIES, variants  # noqa: E402
from analysis.balance import (card_value, face_of, house_rule_switches, length_stats,  # noqa: E402
                              trace_frames)
from analysis.common import (parse_players, parse_variants, paired_diff, seat_shares,  # noqa: E402
                             with_wins, StudyError)
from analysis.gamestats import chi2_sf, chisquare_equal, gammaincc, paired_ci  # noqa: E402


# --- chi-square ---------------------------------------------------------------

@pytest.mark.parametrize("x,df,p", [(3.841458820694124, 1, 0.05), (5.991464547107979, 2, 0.05),
                                    (11.070497693516351, 5, 0.05), (23.209251158954356, 10, 0.01),
                                    (0.0, 3, 1.0)])
def test_chi2_sf_known_quantiles(x, df, p):
    assert chi2_sf(x, df) == pytest.approx(p, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 3.0, 10.0, 40.0, 120.0])
def test_chi2_sf_closed_forms(x):
    assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-10)
    for k in (1, 2, 3, 5, 9):  # even df: Q(k, y) = e^-y sum_{i<k} y^i / i!
        y = x / 2
        exact = math.exp(-y) * sum(y ** i / math.factorial(i) for i in range(k))
        assert chi2_sf(x, 2 * k) == pytest.approx(exact, rel=1e-10)


def test_gammaincc_rejects_bad_arguments():
    with pytest.raises(ValueError):
        gammaincc(0, 1)
    with pytest.raises(ValueError):
        gammaincc(1, -1)


def test_chisquare_equal_textbook_example():
    stat, df, p = chisquare_equal([16, 18, 16, 14, 12, 12])
    assert (stat, df) == (pytest.approx(2.0), 5)
    assert p == pytest.approx(0.84914503608460956, rel=1e-9)
    assert chisquare_equal([7, 7, 7])[2] == pytest.approx(1.0)


# --- pipelines on hand-made frames ------------------------------------------------

def _games(rows, players=3):
    cols = ["game", "winner", "team"] + [f"scores_{s}" for s in range(players)]
    return pl.DataFrame([dict(zip(cols, r)) for r in rows])


def test_win_shares_single_team_and_shared_wins():
    g = with_wins(_games([(0, 1, -1, 10, 500, 20),    # seat 1 wins
                          (1, -1, -1, 30, 30, 90),    # lowest score shared by seats 0 and 1
                          (2, 2, -1, 0, 0, 520)]), 3)
    assert g["win_0"].to_list() == [0, 0.5, 0]
    assert g["win_1"].to_list() == [1, 0.5, 0]
    assert g["win_2"].to_list() == [0, 0, 1]
    sh = seat_shares(g, 3)
    assert sh["wins"].to_list() == [0.5, 1.5, 1.0]
    assert sh["share"].to_list() == pytest.approx([0.5 / 3, 0.5, 1 / 3])
    t = with_wins(_games([(0, -1, 1, 0, 600, 0, 10)], 4), 4)
    assert [t[f"win_{s}"][0] for s in range(4)] == [0, 1, 0, 1]


def test_paired_diff_hand_computed():
    f = pl.DataFrame({"b": [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0],
                      "c": [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0],
                      "game": [0, 1, 2, 0, 1, 2, 0, 0],
                      "win": [1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]})
    d = paired_diff(f, "b", 0.0, ["win"], keys=["c"])
    row = d.filter((pl.col("b") == 1) & (pl.col("c") == 0)).row(0, named=True)
    diffs = [-1.0, 1.0, 1.0]
    m, lo, hi = paired_ci(diffs)
    assert row["n"] == 3 and row["d_win"] == pytest.approx(1 / 3) == pytest.approx(m)
    assert (row["d_win_low"], row["d_win_high"]) == (pytest.approx(lo), pytest.approx(hi))
    sd = math.sqrt(sum((x - 1 / 3) ** 2 for x in diffs) / 2)
    assert hi - m == pytest.approx(1.959963984540054 * sd / math.sqrt(3))
    base = d.filter(pl.col("b") == 0)
    assert base["d_win"].to_list() == [0, 0] and base["d_win_low"].to_list() == [0, 0]
    one = d.filter((pl.col("b") == 1) & (pl.col("c") == 1)).row(0, named=True)
    assert one["n"] == 1 and one["d_win"] == 0


def test_card_value_hand_computed():
    obs = pl.DataFrame({"game": [0] * 4, "round": [1, 1, 2, 2], "seat": [0, 1, 0, 1],
                        "won": [1, 0, 0, 1]})
    hold = pl.DataFrame({"game": [0, 0, 0], "round": [1, 1, 2], "seat": [0, 1, 1],
                         "face": ["Wild", "7", "Wild"], "count": [2, 1, 1]})
    cv = card_value(obs, hold)
    w = cv.filter(pl.col("face") == "Wild").row(0, named=True)
    assert (w["p_with"], w["n_with"], w["p_without"], w["n_without"]) == (1.0, 2, 0.0, 2)
    s = cv.filter(pl.col("face") == "7").row(0, named=True)
    assert (s["p_with"], s["n_with"], s["p_without"], s["n_without"]) == \
        (0.0, 1, pytest.approx(2 / 3), 3)
    assert s["effect"] == pytest.approx(-2 / 3)


def test_face_of():
    assert [face_of(c) for c in ("R7", "GS", "BR", "Y+2", "W", "W+4", "B0")] == \
        ["7", "Skip", "Reverse", "Draw Two", "Wild", "Wild Draw Four", "0"]


def test_length_stats_hand_computed():
    g = pl.DataFrame({"rounds": [2, 4, 6], "turns": [20, 40, 60], "reshuffles": [0, 1, 2],
                      "scores_0": [500, 0, 100], "scores_1": [100, 520, 500]})
    s = length_stats(g)
    assert s["rounds_mean"] == 4 and s["rounds_median"] == 4
    assert s["turns_per_round"] == 10 and s["reshuffles_per_round"] == 0.25
    assert s["points_per_round"] == pytest.approx(1720 / 12)


def test_trace_frames_agree_with_the_game_counters():
    import uno_sim

    for game in range(5):
        res = uno_sim.play_game(players=3, seed=11, game=game, trace=True)
        rounds, obs, hold = trace_frames(res.events, game)
        assert len(rounds) == res.rounds and len(obs) == 3 * res.rounds
        assert sum(r["turns"] for r in rounds) == res.turns
        assert sum(r["reshuffles"] for r in rounds) == res.reshuffles
        assert sum(o["won"] for o in obs) == res.rounds - res.stalemates
        first = [h for h in hold if h["round"] == 1]
        assert sum(h["count"] for h in first) == 3 * 7


# --- options, detection -----------------------------------------------------

def test_variants_come_from_the_code():
    from uno_sim.rules import VARIANTS

    assert variants() == tuple(VARIANTS)
    assert parse_variants("all") == list(VARIANTS)
    with pytest.raises(StudyError, match="nope"):
        parse_variants("nope")


def test_parse_players():
    assert parse_players("2-4,7") == [2, 3, 4, 7]
    assert parse_players(None, (4,)) == [4]
    with pytest.raises(StudyError):
        parse_players("11")


def test_house_rules_detected_from_rules_fields():
    from dataclasses import fields

    from uno_sim.rules import Rules

    names = {f.name for f in fields(Rules)}
    for key, values in house_rule_switches().items():
        assert key in names and values


# --- studies, report, CLI, notebook on small runs --------------------------------

def test_bluff_and_challenge_studies_small(tmp_path):
    from analysis import bluff, bluffgame, challenge
    from analysis.bluffgame import Rule

    rows = [Rule("bluff", "never"), Rule("bluff", "own", 1), Rule("bluff", "next", 2),
            Rule("bluff", "always")]
    cols = [Rule("challenge", "never"), Rule("challenge", "posterior", 0.5),
            Rule("challenge", "always")]
    game = bluffgame.solve("classic", 2, 40, 5, rows=rows, cols=cols, n_boot=20)
    assert game.matrix.shape == (4, 3) and all(len(v) == 40 for v in game.pairs.values())
    # own<=1 never bluffs (a bluff needs the restricted card and a card of the active
    # color): with common random numbers it plays exactly the games of never bluffing
    for c in cols:
        assert (game.pairs[(rows[0], c)] == game.pairs[(rows[1], c)]).all()
    r = bluff.study("classic", 2, 40, 5, str(tmp_path), game=game, value_games=20, n_boot=20)
    assert all(os.path.exists(f) for f in r.figures)
    assert {"never", "always"} == set(r.data["values"]["against"].unique().to_list())
    c = challenge.study("classic", 2, 40, 5, str(tmp_path), game=game, value_games=20,
                        n_boot=20)
    v, lo, hi = game.boot.value
    assert 0 <= lo <= v <= hi <= 1
    md = c.markdown()
    assert "fair share" in md and "variant classic" in md and "seed 5" in md


def test_four_player_focal_seat_design():
    from analysis import bluffgame
    from analysis.bluffgame import Rule
    from analysis.common import run_games

    rows = [Rule("bluff", "never"), Rule("bluff", "always")]
    cols = [Rule("challenge", "never"), Rule("challenge", "always")]
    game = bluffgame.solve("flip", 4, 30, 2, rows=rows, cols=cols, n_boot=10, finer=False)
    assert game.stats[(rows[1], cols[1])]["challenges"] > 0
    assert game.stats[(rows[1], cols[0])]["challenges"] == 0
    # suspect=0: opponents that bluff and challenge everything never challenge each other,
    # so against an honest seat 0 none of their challenges succeeds
    table = "greedy(bluff=1,challenge=1{})"
    won = []
    for suspect in (",suspect=0", ""):
        g = run_games("classic", 4, ["greedy"] + [table.format(suspect)] * 3, 60, 3)
        won.append(sum(int(g[f"challenges_won_{s}"].sum()) for s in (1, 2, 3)))
    assert won[0] == 0 < won[1]


def test_balance_study_small(tmp_path):
    from analysis import balance

    r = balance.study("classic", [2, 3], 60, 2, str(tmp_path), trace_games=10, card_games=20)
    shares = r.data["shares"]
    assert shares.group_by("players").agg(pl.col("share").sum())["share"].to_list() == \
        pytest.approx([1, 1])
    assert set(r.data["chisq"]["players"].to_list()) == {2, 3}
    assert all(0 <= p <= 1 for p in r.data["chisq"]["p"])
    assert r.data["card_value"].height > 10
    assert all(os.path.exists(f) for f in r.figures)


def test_report_renders(tmp_path):
    from analysis.report import build

    out = str(tmp_path / "rep")
    res = build("all", games=30, seed=3, out=out, players="2", balance_players="2,3",
                trace_games=10, card_games=20, command="uno-sim report --games 30")
    md = open(res["md"], encoding="utf-8").read()
    html = open(res["html"], encoding="utf-8").read()
    assert md.splitlines()[0].startswith("# ")
    assert "uno-sim report --games 30" in md.split("##")[1]
    for name in ("Bluff", "Challenge", "Balance"):
        assert name in md and name in html
    assert html.count("data:image/png;base64,") >= 4
    pngs = [f for f in os.listdir(out) if f.endswith(".png")]
    assert len(pngs) >= 4 and all(p in md for p in pngs)
    from uno_sim.rules import VARIANTS

    for v in VARIANTS:  # every variant has its balance study
        assert f"Balance: seat win shares, {v}" in md, v
    # E1: no restricted card in Extreme, so its bluff and challenge studies are skipped
    assert "## Bluff and challenge: extreme" in md and "Bluff: extreme" not in md


def test_cli_study_and_report(tmp_path, capsys):
    from uno_sim.cli import main

    assert main(["study", "bluff", "--games", "20", "--players", "2", "--seed", "1",
                 "--out", str(tmp_path / "s")]) == 0
    assert "Bluff: classic, 2 players" in capsys.readouterr().out
    assert os.path.exists(tmp_path / "s" / "study.md")
    assert main(["study", "balance", "--variant", "nope"]) == 2
    assert "nope" in capsys.readouterr().err
    assert main(["study", "bluff", "--variant", "extreme", "--games", "10"]) == 2
    assert "no restricted card" in capsys.readouterr().err
    assert main(["report", "--games", "0"]) == 2
    assert main(["report", "--jobs", "0"]) == 2
    assert "invalid --jobs '0'" in capsys.readouterr().err
    assert set(STUDIES) == {"bluff", "challenge", "balance"}


def test_example_notebook_runs():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    here = os.path.dirname(__file__)
    path = os.path.join(here, "..", "analysis", "example.ipynb")
    nb = nbformat.read(path, as_version=4)
    params = next(c for c in nb.cells if c.cell_type == "code")
    assert "GAMES =" in params.source
    params.source = "GAMES = 30\nPLAYERS = 3\nSEED = 1"
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": os.path.join(here, "..")}})
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)


def test_house_rule_arms_are_the_house_rules_only():
    """The balance study's house-rule arms are C-H1..C-H5, not the readings of printed rules."""
    from analysis.balance import house_rule_switches
    from uno_sim.rules import HOUSE_RULES

    sw = house_rule_switches()
    assert set(sw) == set(HOUSE_RULES)
    assert sw["stacking"] == ["draw2", "draw4", "both"] and sw["jump_in"] == [True]
