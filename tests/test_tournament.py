"""`uno-sim tournament --jobs`, its bar and `--estimate` (docs/cli.md): the same table at
any number of workers, an estimate from a sample that costs seconds, not the tournament."""

import os

import pytest

import uno_sim.tournament as t
from uno_sim.cli import main

ARGS = ["tournament", "--policy", "greedy", "--policy", "random", "--policy",
        "greedy(bluff=0.5)", "--players", "2,3", "--deals", "60", "--seed", "4"]


def said(capsys, *argv):
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_the_table_is_the_same_at_one_and_two_jobs(capsys, monkeypatch):
    monkeypatch.setattr(t, "SAMPLE_CPU", 0.0)
    monkeypatch.setenv("UNO_SIM_POOL", "fork" if os.name == "posix" else "loky")
    one = said(capsys, *ARGS)
    two = said(capsys, *ARGS, "--jobs", "2")
    assert one[0] == two[0] == 0
    assert one[1] == two[1] and one[1].count("\n") == 2 + 3 * 2


def test_blocks_give_the_pairs_of_one_whole_run(monkeypatch):
    """Blocks of deals (the unit of parallel work) and batches inside them play the same
    deals as one piece: a pairing's scores do not depend on how its deals are cut."""
    import uno_sim.league as league

    whole = t.play_pair("greedy", "random", 3, 50, seed=2)
    monkeypatch.setattr(league, "block_size", lambda deals: 7)
    monkeypatch.setattr(t, "DEAL_BATCH", 3)
    assert t.play_pair("greedy", "random", 3, 50, seed=2) == whole


def test_progress_bar_moves_over_the_blocks(capsys, monkeypatch):
    monkeypatch.setenv("UNO_SIM_PROGRESS", "1")
    code, _, err = said(capsys, *ARGS[:5], "--players", "2", "--deals", "30")
    assert code == 0 and "tournament" in err and "block" in err, err


def test_estimate_times_a_sample_and_plays_no_tournament(capsys, monkeypatch):
    calls = []
    real = t.deal_scores
    monkeypatch.setattr(t, "deal_scores", lambda *a, **k: calls.append(a) or real(*a, **k))
    code, out, _ = said(capsys, "tournament", "--policy", "greedy", "--policy", "random",
                        "--players", "2,4", "--deals", "1e6", "--estimate", "--jobs", "2")
    assert code == 0 and not calls
    line = out.strip()
    assert line.count("\n") == 0 and line.startswith("tournament: 1 pairing(s) x 2 player "
                                                     "count(s) (2,4), 1000000 deals each")
    assert "6,000,000 games" in line and "on 2 job(s)" in line and "CPU-s of sample" in line


def test_estimate_plays_at_least_one_game_and_scales_it(monkeypatch):
    monkeypatch.setattr(t, "SAMPLE_CPU", 0.0)  # one game per pairing and count
    e = t.estimate(["greedy", "random"], [2], deals=1000, seed=1)
    assert e["games"] == 2000 and e["cpu_seconds"] == pytest.approx(
        e["sample_cpu_seconds"] * 2000, rel=1e-9)


@pytest.mark.parametrize("argv,needle", [
    (["--jobs", "0"], "--jobs '0'"),
    (["--jobs", "x"], "--jobs 'x'"),
])
def test_bad_jobs_is_one_line(argv, needle, capsys):
    code, _, err = said(capsys, "tournament", "--deals", "4", *argv)
    assert code == 2 and err.count("\n") == 1 and needle in err, err
