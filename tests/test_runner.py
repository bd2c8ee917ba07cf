"""The runner: determinism across workers and backends, resume after SIGKILL, array jobs."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import polars as pl
import pytest

from uno_sim import Rules
from uno_sim.cli import main
from uno_sim.runner import RunError, load, merge, resume, simulate

SMALL = dict(players=3, rules=Rules(players=3, target=150), policies="greedy(forget_uno=0.2,bluff=0.3,challenge=0.5)")


def frame_equal(a: pl.DataFrame, b: pl.DataFrame):
    assert a.columns == b.columns
    assert a.equals(b)


def test_jobs_1_and_2_give_identical_games(tmp_path):
    one = simulate(games=3000, seed=11, n_jobs=1, shard_size=400, **SMALL)
    two = simulate(games=3000, seed=11, n_jobs=2, shard_size=400, **SMALL)
    frame_equal(one.games, two.games)
    assert one.summary()["win_share"] == two.summary()["win_share"]
    on_disk = simulate(games=3000, seed=11, n_jobs=2, shard_size=700, out=str(tmp_path / "d"), **SMALL)
    frame_equal(one.games, on_disk.games)
    frame_equal(one.rounds, two.rounds)
    frame_equal(one.rounds, on_disk.rounds)
    assert one.games["game"].to_list() == list(range(3000))


def test_summary_only_keeps_the_same_aggregates(tmp_path):
    full = simulate(games=1500, seed=3, shard_size=500, **SMALL)
    agg = simulate(games=1500, seed=3, shard_size=500, summary_only=True, out=str(tmp_path / "s"), **SMALL)
    assert not (tmp_path / "s" / "games.parquet").exists()
    a, b = full.summary(), agg.summary()
    for k in ("games", "rounds", "win_share", "rounds_per_game_median", "points_per_round", "bluffs"):
        assert a[k] == b[k]
    with pytest.raises(RunError, match="summary_only"):
        agg.games


def test_summary_matches_hand_computed_aggregates():
    res = simulate(games=800, seed=5, shard_size=300, **SMALL)
    g = res.games
    s = res.summary()
    wins = [(g["winner"] == k).sum() for k in range(3)]
    assert [w["share"] for w in s["win_share"]] == [w / 800 for w in wins]
    assert s["rounds"] == g["rounds"].sum()
    assert s["rounds_per_game_median"] == float(np.median(g["rounds"].to_numpy()))
    assert s["bluffs"] == sum(g[f"bluffs_{k}"].sum() for k in range(3))
    assert res.games.to_pandas().shape[0] == 800
    r = res.rounds
    assert r.height == s["rounds"]
    assert s["turns_per_round_median"] == float(np.median(r["turns"].to_numpy()))
    per_game = r.group_by("game").agg(pl.len().alias("n"), pl.col("turns").sum()).sort("game")
    assert per_game["n"].to_list() == g["rounds"].to_list()
    assert per_game["turns"].to_list() == g["turns"].to_list()
    scored = r.group_by("game").agg([pl.col(f"points_{k}").sum() for k in range(3)]).sort("game")
    for k in range(3):
        assert scored[f"points_{k}"].to_list() == g[f"scores_{k}"].to_list()


def test_dask_local_cluster_gives_identical_games():
    distributed = pytest.importorskip("dask.distributed")
    ref = simulate(games=1200, seed=2, shard_size=300, **SMALL)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        res = simulate(games=1200, seed=2, shard_size=300, backend="dask",
                       scheduler=cluster.scheduler_address, n_jobs=2, **SMALL)
    frame_equal(ref.games, res.games)


def test_sigkill_mid_run_then_resume_equals_uninterrupted(tmp_path):
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "uno_sim.cli", "run", "--games", "120", "--players", "3",
           "--rule", "target=100", "--seed", "9", "--engine", "reference", "--shard-size", "6",
           "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shards = out / "shards"
    deadline = time.time() + 60
    while time.time() < deadline:
        done = [f for f in os.listdir(shards)] if shards.exists() else []
        if sum(f.endswith(".json") for f in done) >= 3:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (out / "summary.json").exists(), "the run finished before it could be killed"
    finished = sum(f.endswith(".json") for f in os.listdir(shards))
    assert 3 <= finished < 20
    assert main(["run", "--resume", str(out)]) == 0
    whole = simulate(games=120, players=3, rules=Rules(players=3, target=100), seed=9,
                     engine="reference", shard_size=6)
    frame_equal(load(str(out)).games, whole.games)


def test_array_job_shards_merge(tmp_path):
    out = str(tmp_path / "arr")
    for k in (2, 0):
        assert simulate(games=1000, seed=4, shard_size=100, out=out, shard=(k, 3), **SMALL) is None
    with pytest.raises(RunError, match="missing 3 of 10 shards: 3, 4, 5"):
        merge(out)
    assert main(["run", "--games", "1000", "--players", "3", "--rule", "target=150",
                 "--policy", "greedy(forget_uno=0.2,bluff=0.3,challenge=0.5)", "--seed", "4",
                 "--shard-size", "100", "--out", out, "--shard", "1/3"]) == 0
    merged = merge(out)
    whole = simulate(games=1000, seed=4, shard_size=100, **SMALL)
    frame_equal(merged.games, whole.games)
    assert json.load(open(os.path.join(out, "summary.json")))["games"] == 1000


def test_merge_refuses_a_shard_of_another_run(tmp_path):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    simulate(games=200, seed=1, shard_size=100, out=a, shard=(0, 2), **SMALL)
    simulate(games=200, seed=2, shard_size=100, out=b, shard=(1, 2), **SMALL)
    os.replace(os.path.join(b, "shards", "shard-000001.json"), os.path.join(a, "shards", "shard-000001.json"))
    with pytest.raises(RunError, match="shard 1 .* belongs to another run"):
        merge(a)


def test_resume_of_a_complete_run_recomputes_nothing(tmp_path):
    out = str(tmp_path / "c")
    first = simulate(games=300, seed=8, shard_size=100, out=out, **SMALL)
    part = os.path.join(out, "games.parquet", "part-000000.parquet")
    stamp = os.path.getmtime(part)
    again = resume(out)
    assert os.path.getmtime(part) == stamp
    frame_equal(first.games, again.games)


def test_another_runs_directory_is_refused_and_left_untouched(tmp_path, capsys):
    out = str(tmp_path / "d")
    simulate(games=100, seed=1, shard_size=100, out=out, **SMALL)
    before = open(os.path.join(out, "manifest.json")).read()
    assert main(["run", "--games", "100", "--players", "3", "--rule", "target=150", "--policy",
                 "greedy(forget_uno=0.2,bluff=0.3,challenge=0.5)", "--shard-size", "100",
                 "--seed", "2", "--out", out]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds another run" in err[0] and "seed 1 != 2" in err[0]
    assert open(os.path.join(out, "manifest.json")).read() == before


def test_unwritable_out_is_one_line(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["run", "--games", "10", "--out", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(blocker / "sub") in err[0]


def test_config_file_takes_the_flag_keys(tmp_path, capsys):
    cfg = tmp_path / "exp.toml"
    cfg.write_text('games = "300"\nplayers = 3\nseed = 6\npolicy = "greedy"\n'
                   '[rule]\ntarget = 150\n')
    assert main(["run", "--config", str(cfg), "--out", str(tmp_path / "o")]) == 0
    res = load(str(tmp_path / "o"))
    assert res.n_games == 300 and res.rules.target == 150 and res.rules.players == 3
    bad = tmp_path / "bad.toml"
    bad.write_text("gamez = 3\n")
    assert main(["run", "--config", str(bad)]) == 2
    assert "'gamez'" in capsys.readouterr().err


def test_shard_aggregates_fold_in_shard_order_whatever_the_arrival():
    """Aggregates are merged in shard order as shards arrive (bounded memory, same sums)."""
    import random

    from uno_sim.policies import parse_policy
    from uno_sim.runner import aggregate, merge_aggregates, play_columns
    from uno_sim.runner.execute import _Fold

    specs = [parse_policy(p) for p in ("random", "greedy", "strategic")]
    parts = [aggregate(play_columns(Rules(players=3), specs, 5, 7 * i, 7)) for i in range(6)]
    expected = merge_aggregates(parts)
    for seed in range(5):
        order = list(range(6))
        random.Random(seed).shuffle(order)
        fold, most_waiting = _Fold(range(6)), 0
        for i in order:
            fold.add(i, parts[i])
            most_waiting = max(most_waiting, len(fold.pending))
        assert fold.total == expected and not fold.pending
        assert most_waiting <= 5


def test_output_tables_are_datasets_of_one_part_per_shard(tmp_path):
    """games.parquet / rounds.parquet: one part per shard, read back as one table in game order."""
    out = str(tmp_path / "ds")
    res = simulate(games=250, seed=4, shard_size=100, out=out, **SMALL)
    for what in ("games", "rounds"):
        parts = sorted(os.listdir(os.path.join(out, f"{what}.parquet")))
        assert parts == [f"part-{i:06d}.parquet" for i in range(3)]
    games = pl.read_parquet(os.path.join(out, "games.parquet"))
    assert games["game"].to_list() == list(range(250))
    rounds = pl.read_parquet(os.path.join(out, "rounds.parquet"))
    assert rounds["game"].is_sorted() and rounds["game"].n_unique() == 250
    frame_equal(res.games, games)
    assert not [f for f in os.listdir(os.path.join(out, "shards")) if f.endswith(".parquet")]


def test_finalize_interrupted_halfway_completes_on_merge(tmp_path):
    """A merge cut off after moving some parts (no summary yet) finishes on the next merge."""
    out = str(tmp_path / "half")
    simulate(games=300, seed=6, shard_size=100, out=out, shard=(0, 1), **SMALL)
    os.makedirs(os.path.join(out, "games.parquet"))
    os.replace(os.path.join(out, "shards", "shard-000000.games.parquet"),
               os.path.join(out, "games.parquet", "part-000000.parquet"))
    res = merge(out)
    whole = simulate(games=300, seed=6, shard_size=100, **SMALL)
    frame_equal(res.games, whole.games)
    os.remove(os.path.join(out, "rounds.parquet", "part-000001.parquet"))
    os.remove(os.path.join(out, "summary.json"))
    with pytest.raises(RunError, match=r"missing 1 of 3 shards: 1 \(absent or damaged\)"):
        merge(out)
    frame_equal(resume(out).rounds, whole.rounds)  # the damaged shard computed again


@pytest.mark.parametrize("pool", ["auto", "fork", "loky"])
def test_local_worker_pools_give_identical_games(tmp_path, pool):
    """The CLI's workers (forked when Polars is not loaded yet, else loky) change nothing."""
    env = dict(os.environ, UNO_SIM_POOL=pool)
    outs = {}
    for jobs in ("1", "2"):
        out = str(tmp_path / f"{pool}-{jobs}")
        subprocess.run([sys.executable, "-m", "uno_sim.cli", "run", "--games", "3000",
                        "--shard-size", "500", "--players", "3", "--seed", "5", "--jobs", jobs,
                        "--out", out], check=True, env=env, stdout=subprocess.DEVNULL)
        outs[jobs] = pl.read_parquet(os.path.join(out, "games.parquet"))
    frame_equal(outs["1"], outs["2"])
    probe = ("import sys, uno_sim.runner.execute as r; print(r._local_pool_kind(), "
             "'polars' in sys.modules)")
    kind = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True, check=True).stdout.split()
    expected = ("fork" if sys.platform.startswith("linux") else "loky") if pool == "auto" else pool
    assert kind[0] == expected and (kind[1] == "True") == (expected == "fork")


def test_bad_pool_kind_is_refused(monkeypatch):
    from uno_sim.runner.execute import _local_pool_kind

    monkeypatch.setenv("UNO_SIM_POOL", "threads")
    with pytest.raises(RunError, match="invalid UNO_SIM_POOL 'threads'"):
        _local_pool_kind()
