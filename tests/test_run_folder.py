"""One output folder, one run; damaged shards found and computed again (docs/cluster.md)."""

import json
import os
import subprocess
import sys
import time

import pytest

from uno_sim import Rules
from uno_sim.runner import RunError, lock_out, merge, resume, simulate

SMALL = dict(players=3, rules=Rules(players=3, target=150), policies="greedy")
CLI = [sys.executable, "-m", "uno_sim.cli", "run"]


def cli(*args, **kw):
    return subprocess.run(CLI + [str(a) for a in args], capture_output=True, text=True, **kw)


def test_second_concurrent_run_on_one_folder_gets_one_line_and_exit_2(tmp_path):
    import signal

    out = tmp_path / "shared"
    first = subprocess.Popen(CLI + ["--games", "400000", "--shard-size", "20000",
                                    "--summary-only", "--out", str(out)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        deadline = time.time() + 60
        while not (out / "manifest.json").exists() and time.time() < deadline:
            time.sleep(0.05)
        second = cli("--games", "1000", "--seed", "5", "--out", out)
        assert first.poll() is None, "the first run ended before the second started"
        assert second.returncode == 2
        assert second.stderr.count("\n") == 1 and "in use by another uno-sim run" in second.stderr
        resumed = cli("--resume", out)
        assert resumed.returncode == 2 and "in use" in resumed.stderr
    finally:
        # the first run is stopped as by Ctrl-C rather than played to its end (that cost
        # half a CPU-minute): it ends as an interrupt, not as a failure the others caused
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGINT)
        first.wait(timeout=300)
    assert first.returncode in (0, 130), first.stderr  # 0: it ended before the signal
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == 0 and manifest["games"] == 400000


def test_lock_is_released_with_the_process(tmp_path):
    out = str(tmp_path / "r")
    simulate(games=200, shard_size=100, out=out, **SMALL)
    fd = lock_out(out)  # nothing holds it any more
    os.close(fd)


def test_array_tasks_share_a_folder_but_a_whole_run_does_not(tmp_path):
    out = str(tmp_path / "arr")
    simulate(games=300, shard_size=100, out=out, shard=(0, 3), **SMALL)
    fd = lock_out(out, shared=True)  # another array task runs meanwhile
    try:
        simulate(games=300, shard_size=100, out=out, shard=(1, 3), **SMALL)
        with pytest.raises(RunError, match="in use"):
            merge(out)
    finally:
        os.close(fd)
    simulate(games=300, shard_size=100, out=out, shard=(2, 3), **SMALL)
    assert merge(out).n_games == 300


def test_folder_that_is_not_a_run_is_refused_untouched(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("keep me")
    with pytest.raises(RunError, match=r"not empty and holds no uno-sim run .*thesis\.tex"):
        simulate(games=100, out=str(out), **SMALL)
    assert sorted(os.listdir(out)) == ["thesis.tex"]


@pytest.mark.parametrize("bad", [dict(seed=-1), dict(seed=1.5), dict(summary_only="no"),
                                 dict(policies=lambda obs: obs.actions[0])])
def test_bad_input_is_refused_before_the_folder_is_touched(tmp_path, bad):
    out = tmp_path / "run"
    args = dict(SMALL, games=100, out=str(out))
    args.update(bad)
    with pytest.raises(RunError if "policies" in bad or "summary_only" in bad else Exception,
                       match="invalid"):
        simulate(**args)
    assert not out.exists()
    args["out"] = None
    with pytest.raises(Exception, match="invalid"):
        simulate(**args)


def _finished_run(tmp_path, name="t"):
    out = str(tmp_path / name)
    simulate(games=300, seed=2, shard_size=100, out=out, shard=(0, 1), **SMALL)
    return out


@pytest.mark.parametrize("damage", ["marker", "games", "rounds"])
def test_truncated_shard_is_found_by_merge_and_computed_again_by_resume(tmp_path, damage):
    out = _finished_run(tmp_path)
    base = os.path.join(out, "shards", "shard-000001")
    path = base + (".json" if damage == "marker" else f".{damage}.parquet")
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)
    with pytest.raises(RunError, match=r"missing 1 of 3 shards: 1 \(absent or damaged\).*--resume"):
        merge(out)
    whole = simulate(games=300, seed=2, shard_size=100, **SMALL)
    res = resume(out)
    assert res.games.equals(whole.games) and res.rounds.equals(whole.rounds)


def test_resume_cleans_the_temporary_files_of_dead_writers(tmp_path):
    out = _finished_run(tmp_path)
    junk = os.path.join(out, "shards", "shard-000002.games.parquet.tmp4242")
    with open(junk, "w") as f:
        f.write("half a file")
    resume(out)
    assert not os.path.exists(junk)


@pytest.mark.parametrize("manifest", ["[1, 2]", '"run"', "{}", '{"rules": {}}', "\x00\xff"])
def test_damaged_manifest_is_one_line(tmp_path, manifest):
    out = _finished_run(tmp_path)
    with open(os.path.join(out, "manifest.json"), "w", encoding="latin-1") as f:
        f.write(manifest)
    with pytest.raises(RunError, match="manifest"):
        resume(out)
