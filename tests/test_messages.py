"""Each message says what happened: a repaired run is not "nothing to do", a run folder is a
run's, a deleted shards/ folder is named, an option with no use is refused rather than
ignored, memory is memory (docs/cli.md)."""

import os
import resource
import subprocess
import sys

import numpy as np
import pytest

from uno_sim.cli import main


def said(capsys, *argv):
    code = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.fixture
def finished(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--games", "60", "--players", "2", "--shard-size", "20",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    return out


def test_resume_of_a_finished_run_with_a_damaged_part_says_what_it_computed(finished, capsys):
    part = finished / "games.parquet" / "part-000001.parquet"
    part.write_bytes(part.read_bytes()[:-10])
    code, out, _ = said(capsys, "run", "--resume", finished)
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith(f"resumed {finished}: computed shard 1 again (its games rows"), first
    assert "nothing to do" not in out
    code, out, _ = said(capsys, "run", "--resume", finished)  # now it is whole
    assert out.splitlines()[0] == "nothing to do: all 60 games are done"


def test_merge_verify_and_resume_of_a_run_whose_shards_folder_is_gone(finished, capsys):
    import shutil

    shutil.rmtree(finished / "shards")
    code, _, err = said(capsys, "merge", finished)
    assert code == 2 and "has no shards/ folder" in err and "cannot read" not in err, err
    code, _, err = said(capsys, "verify", finished)
    assert code == 1 and "shards/ is missing" in err, err
    code, out, _ = said(capsys, "run", "--resume", finished)
    assert code == 0 and "computed 3 shards (0, 1, 2) (deleted)" in out
    assert said(capsys, "verify", finished)[0] == 0


def test_verify_of_a_file_a_dangling_link_and_a_link_loop(tmp_path, capsys):
    (tmp_path / "plain").write_text("x")
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling")
    os.symlink(tmp_path / "b", tmp_path / "a")
    os.symlink(tmp_path / "a", tmp_path / "b")
    for name, words in (("plain", "it is a file, not a run directory"),
                        ("dangling", "a symbolic link to nothing"),
                        ("a", "a loop of symbolic links"),
                        ("absent", "no such directory")):
        code, _, err = said(capsys, "verify", tmp_path / name)
        assert code == 2 and err.count("\n") == 1 and words in err, err


def test_study_out_on_a_run_folder_names_the_run(finished, capsys):
    pytest.importorskip("matplotlib")
    code, _, err = said(capsys, "study", "balance", "--games", "10", "--out", finished)
    assert code == 2 and "holds a uno-sim run" in err and "did not write" not in err, err


def test_replay_of_a_trace_refuses_the_options_that_choose_a_game(tmp_path, capsys):
    trace = tmp_path / "t.jsonl"
    assert main(["play", "--seed", "3", "--players", "2", "--trace", str(trace)]) == 0
    code, _, err = said(capsys, "replay", trace, "--seed", "5")
    assert code == 2 and "invalid --seed with the trace" in err, err
    code, _, err = said(capsys, "replay", trace, "--seed", "0")  # even its default value
    assert code == 2 and "--seed" in err
    code, out, _ = said(capsys, "replay", trace)
    assert code == 0 and "(seed 3)" in out.splitlines()[0]
    code, out, _ = said(capsys, "replay", "--seed", "3", "--players", "2")
    assert code == 0 and "(seed 3)" in out.splitlines()[0]


def test_big_endian_actions_are_converted():
    from uno_sim.vecenv import UnoVectorEnv

    envs = [UnoVectorEnv(num_envs=3) for _ in range(2)]
    for e in envs:
        e.reset(seed=4)
    for _ in range(20):
        act = np.array([np.flatnonzero(m)[0] for m in envs[0].action_masks()])
        a = envs[0].step(act.astype(">i4"))
        b = envs[1].step(act.astype("<i4"))
        for x, y in zip(a[:3], b[:3]):
            assert np.array_equal(x["observation"] if isinstance(x, dict) else x,
                                  y["observation"] if isinstance(y, dict) else y)


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_AS") or sys.platform != "linux",
                    reason="needs an address-space limit (Linux)")
def test_a_vector_env_too_big_for_memory_says_so_with_its_size():
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
            "from uno_sim.vecenv import UnoVectorEnv\n"
            "UnoVectorEnv(num_envs=200_000)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("MemoryError: no memory for the vector environment: 200,000 envs "
                           "need"), proc.stderr
    assert "GiB" in last and "refused" not in last


def test_report_sizes_follow_a_small_games(tmp_path, capsys, monkeypatch):
    """report --games 1: the traced, card and strong-play parts take at most --games too (the
    strong player's challenge arms, one point in four, five times --games)
    (they took their own defaults, 48 deals of search players among them: minutes)."""
    pytest.importorskip("matplotlib")
    import uno_sim.analysis.report as report

    seen = {}

    def build(variants, games, seed, out, players, **kw):
        seen.update(kw, games=games)
        return {"md": "m", "html": "h", "json": "j", "seconds": 0}

    monkeypatch.setattr(report, "build", build)
    code, _, err = said(capsys, "report", "--games", "1", "--out", tmp_path / "r")
    assert code == 0, err
    assert seen["trace_games"] == seen["card_games"] == 1
    # the strong player's arms sample one point in four: five times --games at most
    assert seen["strong"] == {"deals": 1, "games": 5, "greedy_games": 1, "focal": "net",
                              "search": "ismcts(iterations=80)", "search_games": 1}
    assert seen["exploit_deep"] is None  # the report's own default: min(40,000, 4 x games)
    said(capsys, "report", "--games", "5000", "--strong-deals", "7", "--out", tmp_path / "s")
    assert (seen["trace_games"], seen["card_games"]) == (200, 1000)
    assert seen["strong"] == {"deals": 7, "games": 25_000, "greedy_games": 5000,
                              "focal": "net", "search": "ismcts(iterations=80)",
                              "search_games": 2000}
    said(capsys, "report", "--games", "50000", "--strong-search-games", "0",
         "--exploit-deep-games", "0", "--out", tmp_path / "t")
    assert seen["strong"]["games"] == 50_000 and seen["strong"]["greedy_games"] == 10_000
    assert seen["strong"]["search_games"] == 0 and seen["exploit_deep"] == 0
