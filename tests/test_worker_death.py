"""A dead worker never hangs a run: its shard is computed again, or the run stops with one
line that says to resume; Ctrl-C and SIGTERM end a run cleanly (docs/cluster.md)."""

import os
import signal
import subprocess
import sys
import time

import pytest

from uno_sim import Rules
from uno_sim.runner import RunError, load, simulate

ARGS = ["--games", "120", "--players", "3", "--rule", "target=100", "--seed", "9",
        "--engine", "reference", "--shard-size", "6", "--jobs", "2"]
WHOLE = dict(games=120, players=3, rules=Rules(players=3, target=100), seed=9,
             engine="reference", shard_size=6)


def children(pid):
    """Worker processes of `pid` (not multiprocessing's or loky's helper processes)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = [int(k) for k in f.read().split()]
    except OSError:
        return []
    out = []
    for k in kids:
        try:
            with open(f"/proc/{k}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if b"resource_tracker" not in cmd and b"semaphore_tracker" not in cmd:
            out.append(k)
    return out


def start(out, pool, extra=()):
    env = dict(os.environ, UNO_SIM_POOL=pool)
    return subprocess.Popen([sys.executable, "-m", "uno_sim.cli", "run", *ARGS, *extra,
                             "--out", str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def wait_for_shards(out, n, proc):
    shards = out / "shards"
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if shards.exists() and sum(f.endswith(".json") for f in os.listdir(shards)) >= n:
            return
        time.sleep(0.02)
    pytest.fail("the run did not get going")


@pytest.mark.parametrize("pool", ["fork", "loky"])
def test_kill_9_of_a_worker_mid_run_recomputes_its_shard(tmp_path, pool):
    out = tmp_path / pool
    proc = start(out, pool)
    wait_for_shards(out, 2, proc)
    workers = children(proc.pid)
    if pool == "loky":
        workers = [w for w in workers if b"loky" in open(f"/proc/{w}/cmdline", "rb").read()]
    assert workers, "no worker to kill"
    os.kill(workers[0], signal.SIGKILL)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the run hung after its worker was killed")
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert load(str(out)).games.equals(simulate(**WHOLE).games)


def test_workers_dying_again_and_again_stop_the_run_with_one_line(tmp_path, monkeypatch):
    import uno_sim.runner.execute as execute

    monkeypatch.setenv("UNO_SIM_POOL", "fork")
    monkeypatch.setattr(execute, "run_shard", lambda *a, **k: os._exit(9))
    out = str(tmp_path / "doomed")
    with pytest.raises(RunError, match=r"a worker process died 4 times .*--resume " + out):
        simulate(games=40, players=3, rules=Rules(players=3, target=100), shard_size=10,
                 n_jobs=2, out=out)


@pytest.mark.parametrize("pool", ["fork", "loky"])
@pytest.mark.parametrize("sig,code,word", [(signal.SIGINT, 130, "interrupted"),
                                           (signal.SIGTERM, 143, "terminated")])
def test_interrupt_with_two_workers_is_one_line_and_resumable(tmp_path, sig, code, word, pool):
    out = tmp_path / "int"
    proc = start(out, pool)
    wait_for_shards(out, 2, proc)
    workers = children(proc.pid)
    proc.send_signal(sig)
    if sig == signal.SIGINT:  # a terminal's Ctrl-C reaches the whole process group
        for w in workers:
            try:
                os.kill(w, signal.SIGINT)
            except ProcessLookupError:
                pass
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == code
    assert err.strip().count("\n") == 0 and word in err and "--resume" in err, err
    def alive():
        out = []
        for w in workers:
            try:
                with open(f"/proc/{w}/stat") as f:
                    if f.read().split()[2] != "Z":
                        out.append(w)
            except OSError:
                pass
        return out

    deadline = time.time() + 10
    while alive() and time.time() < deadline:
        time.sleep(0.05)
    assert not alive(), "workers outlived the run"
    res = subprocess.run([sys.executable, "-m", "uno_sim.cli", "run", "--resume", str(out)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert load(str(out)).games.equals(simulate(**WHOLE).games)


def test_workers_of_a_killed_run_end_with_it_quietly(tmp_path):
    out = tmp_path / "orphans"
    proc = start(out, "fork", ["--games", "1200"])
    wait_for_shards(out, 2, proc)
    workers = children(proc.pid)
    assert workers
    proc.kill()
    _, err = proc.communicate(timeout=60)
    deadline = time.time() + 10
    while time.time() < deadline and any(os.path.exists(f"/proc/{w}") for w in workers):
        time.sleep(0.05)
    left = [w for w in workers if os.path.exists(f"/proc/{w}")]
    for w in left:
        os.kill(w, signal.SIGKILL)
    assert not left, "workers outlived the killed run"
    assert "Traceback" not in err


def test_loky_runs_and_joblib_parallel_share_one_process(monkeypatch):
    """A run on the loky pool, then joblib.Parallel (as the studies do), then a run again."""
    import joblib

    monkeypatch.setenv("UNO_SIM_POOL", "loky")
    a = simulate(games=40, players=3, rules=Rules(players=3, target=100), shard_size=10,
                 n_jobs=2)
    assert joblib.Parallel(n_jobs=2)(joblib.delayed(abs)(-i) for i in range(4)) == [0, 1, 2, 3]
    b = simulate(games=40, players=3, rules=Rules(players=3, target=100), shard_size=10,
                 n_jobs=2)
    assert a.games.equals(b.games)
