"""Nothing lost, nothing mixed: endless games stop in both engines, foreign files are never
run data, damaged runs are found, progress output and a full disk cannot ruin a run
(docs/engine.md "Safety limits", docs/cluster.md "Checking a run")."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from uno_sim import Rules, engine, reference
from uno_sim.cli import main
from uno_sim.engine import GameLimitError
from uno_sim.userpolicy import DRAW_ACTION

CLI = [sys.executable, "-m", "uno_sim.cli"]


def cli(*args, env=None, **kw):
    full = None if env is None else {**os.environ, **env}
    return subprocess.run(CLI + [str(a) for a in args], capture_output=True, text=True,
                          env=full, **kw)


class Done:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr

    def __repr__(self):
        return f"Done({self.returncode}, {self.stdout!r}, {self.stderr!r})"


@pytest.fixture
def run_cli(capsys):
    """`uno-sim ARGS` in this process (as `cli`, without an interpreter's start-up)."""
    def go(*args):
        capsys.readouterr()
        code = main([str(a) for a in args])
        cap = capsys.readouterr()
        return Done(code, cap.out, cap.err)
    return go


def one_line_error(proc, *words, code=2):
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("uno-sim: error:"), \
        proc.stderr
    for w in words:
        assert w in proc.stderr, proc.stderr


# -- 1. the reference engine's safety limits -------------------------------------------

def all_draw(obs):
    return DRAW_ACTION if DRAW_ACTION in obs.actions else obs.actions[0]


@pytest.mark.parametrize("policies, limits", [
    ("greedy(voluntary_draw=1)", dict(max_turns=3000)),       # a round that never ends
    ([all_draw] * 3, dict(max_rounds=12)),                     # every round a stalemate
    ("random(forget_uno=1,catch=1)", dict(max_turns=3000)),
])
def test_both_engines_stop_an_endless_game_at_the_same_turn_with_the_same_error(policies,
                                                                                 limits):
    rules = Rules(players=3)
    errors = []
    for play in (engine.play_game, reference.play_game):
        with pytest.raises(GameLimitError) as e:
            play(rules, policies, seed=0, game=5, trace=True, **limits)
        errors.append(e.value)
    c, ref = errors
    assert str(c) == str(ref) and "did not end within" in str(c)
    assert c.events == ref.events and len(c.events) > 100


def test_the_api_on_the_reference_engine_gives_up_like_the_c_engine():
    from uno_sim import play_game

    errors = []
    for eng in ("c", "reference"):
        with pytest.raises(GameLimitError) as e:
            play_game(policies="random(forget_uno=1,catch=1)", seed=0, game=5, engine=eng)
        errors.append(str(e.value))
    assert errors[0] == errors[1]


def test_the_reference_engine_has_the_c_engines_default_limits():
    from uno_sim import _engine

    g = reference.Game
    assert (g.max_turns, g.max_rounds, g.max_game_turns) == (
        _engine.MAX_TURNS, _engine.MAX_ROUNDS, _engine.MAX_GAME_TURNS)


def test_the_game_turn_limit_is_checked_before_each_round():
    from uno_sim.rng import Rng, key_from_seed

    g = reference.Game(Rules(players=3), [all_draw] * 3, Rng(key_from_seed(0), 0), trace=True)
    g.max_game_turns = 1  # the first round takes more turns than that
    with pytest.raises(GameLimitError, match="or 1 turns in all"):
        g.play_game(seed=0, game=0)
    assert g.rounds == 1 and g.turns > 1
    assert sum(ev["e"] == "round_end" for ev in g.events) == 1


def test_cli_run_play_and_replay_on_the_reference_engine_stop_with_one_line(monkeypatch,
                                                                            capsys):
    monkeypatch.setattr(reference.Game, "max_turns", 2000)
    for argv in (["run", "--games", "1"], ["play"], ["replay"]):
        code = main(argv + ["--engine", "reference", "--policy", "greedy(voluntary_draw=1)"])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1, (argv, err)
        assert "did not end within 2000 turns in a round" in err


@pytest.mark.slow
def test_cli_reference_run_of_an_endless_game_ends_like_the_c_engines():
    args = ("run", "--games", "1", "--policy", "greedy(voluntary_draw=1)")
    c, ref = cli(*args), cli(*args, "--engine", "reference", timeout=120)
    one_line_error(ref, "did not end within 100000 turns in a round")
    assert ref.stderr == c.stderr


# -- 2. foreign files are never run data --------------------------------------------------

RUN = ("run", "--games", "300", "--shard-size", "100", "--players", "3", "--rule",
       "target=150")


def a_run(tmp_path, name="r", *extra):
    out = tmp_path / name
    assert main([str(a) for a in (*RUN, *extra, "--out", out)]) == 0
    return out


@pytest.mark.parametrize("plant", ["games.parquet/mydata.parquet", "summary.json",
                                   "shards/notes.txt", "rounds.parquet"])
def test_a_folder_holding_only_a_users_files_is_refused_untouched(tmp_path, plant, run_cli):
    out = tmp_path / "mine"
    (out / plant).parent.mkdir(parents=True, exist_ok=True)
    (out / plant).write_text("the user's own")
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    one_line_error(run_cli(*RUN, "--out", out), "not empty and holds no uno-sim run")
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before
    assert (out / plant).read_text() == "the user's own"


def test_a_foreign_part_in_a_finished_run_is_never_read_as_rows(tmp_path, run_cli):
    import polars as pl

    from uno_sim.runner import load

    out = a_run(tmp_path)
    games = load(str(out)).games
    pl.DataFrame({"x": [1, 2, 3]}).write_parquet(out / "games.parquet" / "mydata.parquet")
    assert load(str(out)).games.equals(games)  # the run's own parts, by name
    for args in (("run", "--resume", out), ("merge", out)):
        one_line_error(run_cli(*args), "mydata.parquet", "did not write", "move them out")
    assert (out / "games.parquet" / "mydata.parquet").exists()


@pytest.mark.parametrize("name", ["study.md", "study.json"])
def test_study_refuses_a_folder_with_a_users_study_file(tmp_path, name):
    out = tmp_path / "s"
    out.mkdir()
    (out / name).write_text("my notes")
    assert main(["study", "balance", "--games", "10", "--players", "2", "--out",
                 str(out)]) == 2
    assert (out / name).read_text() == "my notes" and os.listdir(out) == [name]


def test_a_study_folder_is_written_again_only_while_it_holds_only_uno_sims_files(tmp_path):
    from uno_sim.analysis.cli import OUTPUT_MARK, _mark_output, _writable_out
    from uno_sim.analysis.common import StudyError

    out = tmp_path / "s"
    _writable_out(str(out))
    assert os.listdir(out) == []  # nothing written, no mark
    (out / "study.md").write_text("written by a study")
    _mark_output(str(out))  # what `study` does when it has written
    assert _writable_out(str(out)) == str(out)
    (out / "notes.txt").write_text("mine")
    with pytest.raises(StudyError, match="'notes.txt', which uno-sim did not write"):
        _writable_out(str(out))
    (out / "notes.txt").unlink()
    (out / OUTPUT_MARK).write_text("[]")  # a damaged mark vouches for nothing
    with pytest.raises(StudyError, match="'study.md'"):
        _writable_out(str(out))
    (out / OUTPUT_MARK).unlink()
    (out / OUTPUT_MARK).symlink_to("/dev/zero")  # a mark that never ends is not read whole
    with pytest.raises(StudyError, match="'study.md'"):
        _writable_out(str(out))


# -- 3. a finished run knows when it is damaged ------------------------------------------

def truncate(path):
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)


def flip_a_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def edit_record(path):
    rec = json.loads(path.read_text())
    rec["aggregates"]["wins"][0] += 5  # a hand-edited aggregate, checksum left alone
    path.write_text(json.dumps(rec))


PART = "games.parquet/part-000001.parquet"
RECORD = "shards/shard-000001.json"


def damage(out, other, kind):
    """Damage the finished run `out` (`other`: a finished run of another seed)."""
    if kind == "truncated part":
        truncate(out / PART)
    elif kind == "flipped byte in a part":
        flip_a_byte(out / "rounds.parquet/part-000002.parquet")
    elif kind == "deleted part":
        (out / PART).unlink()
    elif kind == "another run's part":
        shutil.copy(other / PART, out / PART)
    elif kind == "deleted record":
        (out / RECORD).unlink()
    elif kind == "truncated record":
        truncate(out / RECORD)
    elif kind == "edited record":
        edit_record(out / RECORD)
    elif kind == "garbage summary":
        (out / "summary.json").write_text("garbage")
    elif kind == "edited summary":
        s = json.loads((out / "summary.json").read_text())
        s["games"] += 1
        (out / "summary.json").write_text(json.dumps(s))


DAMAGE = ["truncated part", "flipped byte in a part", "deleted part", "another run's part",
          "deleted record", "truncated record", "edited record", "garbage summary",
          "edited summary"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    base = tmp_path_factory.mktemp("finished")
    return a_run(base, "run"), a_run(base, "other", "--seed", "1")


@pytest.mark.parametrize("kind", DAMAGE)
def test_damage_to_a_finished_run_is_found_by_verify_merge_and_resume(finished, tmp_path,
                                                                      kind, run_cli):
    good, other = finished
    out = tmp_path / "run"
    shutil.copytree(good, out)
    assert run_cli("verify", out).returncode == 0
    damage(out, other, kind)
    found = run_cli("verify", out)
    assert found.returncode == 1 and found.stdout == "", found
    assert found.stderr.count("\n") == 1 and "--resume" in found.stderr, found.stderr
    where = ("summary.json" if "summary" in kind else
             "shard 2" if kind == "flipped byte in a part" else "shard 1")
    assert where in found.stderr, found.stderr
    merged = run_cli("merge", out)
    if "summary" in kind:  # merge rewrites what the intact records determine
        assert merged.returncode == 0, merged.stderr
    else:
        one_line_error(merged, "absent or damaged", "--resume")
    resumed = run_cli("run", "--resume", out)
    assert resumed.returncode == 0, resumed.stderr
    ok = run_cli("verify", out)
    assert ok.returncode == 0 and ok.stdout.startswith("OK:"), ok
    for what in ("games", "rounds"):
        for i in range(3):
            assert (out / f"{what}.parquet/part-{i:06d}.parquet").read_bytes() == \
                (good / f"{what}.parquet/part-{i:06d}.parquet").read_bytes(), (what, i)
    assert json.loads((out / "summary.json").read_text())["win_share"] == \
        json.loads((good / "summary.json").read_text())["win_share"]


def test_a_foreign_part_and_another_runs_record_are_refused_not_used(finished, tmp_path,
                                                                    run_cli):
    good, other = finished
    out = tmp_path / "run"
    shutil.copytree(good, out)
    shutil.copy(good / PART, out / "games.parquet/part-000007.parquet")  # past the plan
    found = run_cli("verify", out)
    assert found.returncode == 1 and "part-000007.parquet" in found.stderr
    one_line_error(run_cli("run", "--resume", out), "part-000007.parquet", "did not write")
    (out / "games.parquet/part-000007.parquet").unlink()
    shutil.copy(other / RECORD, out / RECORD)
    for args in (("verify", out), ("merge", out), ("run", "--resume", out)):
        one_line_error(run_cli(*args), "shard 1", "belongs to another run")


def test_verify_of_a_folder_without_a_run_is_one_line_and_status_2(tmp_path, run_cli):
    one_line_error(run_cli("verify", tmp_path), "no manifest.json")
    one_line_error(run_cli("verify", tmp_path / "nowhere"), "no such directory")


@pytest.mark.slow
def test_a_run_killed_while_it_writes_is_found_and_finished(tmp_path):
    import signal
    import time

    out = tmp_path / "killed"
    proc = subprocess.Popen(CLI + [*RUN[:2], "20000", "--shard-size", "500", "--players", "3",
                                   "--out", str(out)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    shards = out / "shards"
    deadline = time.time() + 60
    while time.time() < deadline and not (shards.exists() and
                                          len(list(shards.glob("*.json"))) >= 3):
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    found = cli("verify", out)
    assert found.returncode == 1 and "not computed yet" in found.stderr, found
    assert cli("run", "--resume", out).returncode == 0
    assert cli("verify", out).returncode == 0
    assert not [p for p in out.rglob("*") if ".tmp" in p.name]


def python(code, *args):
    """Run `code` in a fresh interpreter (forked workers must not inherit a Polars thread
    pool that this test process may have started)."""
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "UNO_SIM_POOL": "fork"})


KILL_WHILE_WRITING = """
import os, sys
from uno_sim import Rules
from uno_sim.runner import simulate, storage
out, flag = sys.argv[1], sys.argv[2]
real = storage._write_bytes
def write_then_die(path, data):
    if "shard-000002" in path and not os.path.exists(flag):
        open(flag, "w").close()
        with open(path, "wb") as f:
            f.write(data[: len(data) // 2])
        os._exit(9)
    real(path, data)
storage._write_bytes = write_then_die
simulate(games=400, players=3, rules=Rules(players=3, target=150), shard_size=100, n_jobs=2,
         out=out)
"""


def test_temporary_files_of_a_killed_worker_are_removed(tmp_path):
    """A worker killed while it writes a shard leaves its temporary file; the run, which
    computes the shard again, removes it when it merges."""
    out, flag = tmp_path / "r", tmp_path / "died"
    proc = python(KILL_WHILE_WRITING, out, flag)
    assert proc.returncode == 0, proc.stderr
    assert flag.exists()
    assert not [p.name for p in out.rglob("*") if ".tmp" in p.name]
    assert cli("verify", out).returncode == 0


# -- 4. progress output can never kill a run -------------------------------------------

def _closed_pipe():
    r, w = os.pipe()
    os.close(r)
    return w


def _full_pipe():
    r, w = os.pipe()
    os.set_blocking(w, False)
    try:
        while True:
            os.write(w, b"x" * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(w, True)
    return w, r


@pytest.mark.parametrize("stderr", ["closed pipe", "full pipe", "closed descriptor"])
def test_a_progress_bar_on_a_dead_stderr_does_not_stop_the_run(tmp_path, stderr):
    out = tmp_path / "p"
    keep = None
    if stderr == "closed pipe":
        err = _closed_pipe()
    elif stderr == "full pipe":
        err, keep = _full_pipe()
    else:
        err = None
    cmd = CLI + [*RUN, "--out", str(out)]
    env = {**os.environ, "UNO_SIM_PROGRESS": "1"}
    if err is None:  # stderr closed altogether: 2>&-
        proc = subprocess.run(["sh", "-c", 'exec "$@" 2>&-', "sh", *cmd], env=env,
                              capture_output=False, stdout=subprocess.PIPE, text=True,
                              timeout=120)
    else:
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=err, text=True,
                              timeout=120)
        os.close(err)
    if keep is not None:
        os.close(keep)
    assert proc.returncode == 0 and "results in" in proc.stdout, proc
    assert cli("verify", out).returncode == 0


# -- 5. a full disk ------------------------------------------------------------------------

FULL_DISK = """
import errno, os, sys
from uno_sim.cli import main
from uno_sim.runner import storage
real, count, allowed = storage._write_bytes, [0], int(sys.argv[1])
def write(path, data):
    count[0] += 1
    if count[0] > allowed:
        with open(path, "wb") as f:
            f.write(data[:100])  # part of it, as a full disk takes
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
    real(path, data)
storage._write_bytes = write
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_full_disk_is_one_line_and_the_finished_shards_survive(tmp_path, jobs):
    """Every write of a shard file fails with ENOSPC after the first few (in each process:
    a worker counts its own), as a full disk does."""
    out = tmp_path / "full"
    args = [*RUN[:2], "600", "--shard-size", "100", "--players", "3", "--jobs", jobs]
    full = python(FULL_DISK, 4, *args, "--out", out)  # two shards' games and rounds
    one_line_error(full, "no space left on the device", "free some space",
                   f"--resume {out}")
    assert not [p.name for p in out.rglob("*") if ".tmp" in p.name]
    done = len(list((out / "shards").glob("*.json")))
    assert done >= 1
    still = python(FULL_DISK, 0, "run", "--resume", out)
    one_line_error(still, "no space left on the device", f"--resume {out}")
    assert len(list((out / "shards").glob("*.json"))) == done
    assert cli("run", "--resume", out).returncode == 0  # space freed
    assert cli("verify", out).returncode == 0


def _can_mount_tmpfs():
    if not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs none /tmp"],
                          capture_output=True).returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs unprivileged user namespaces")
def test_a_real_full_disk_is_one_line_for_jobs_1_2_and_resume(tmp_path):
    """A 400 KiB tmpfs, mounted in a user namespace of its own (no root needed)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    script = f"""
    mount -t tmpfs -o size=400k none {disk}
    cd {disk}
    for j in 1 2; do
        {sys.executable} -m uno_sim run --games 20000 --shard-size 1000 --players 3 \\
            --jobs $j --out r$j 2>{tmp_path}/err$j; echo "$?" > {tmp_path}/rc$j
    done
    {sys.executable} -m uno_sim run --resume r1 2>{tmp_path}/err3; echo "$?" > {tmp_path}/rc3
    cd {tmp_path}
    cat rc1 rc2 rc3 err1 err2 err3
    """
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True,
                          text=True, timeout=300)
    lines = proc.stdout.splitlines()
    assert lines[:3] == ["2", "2", "2"], proc.stdout + proc.stderr
    assert len(lines) == 6, proc.stdout
    for line in lines[3:]:
        assert line.startswith("uno-sim: error: cannot write") and "no space left" in line


# -- 6. a Dask worker lost mid-run ---------------------------------------------------------

WHOLE = dict(games=120, players=3, rules=Rules(players=3, target=100), seed=9,
             engine="reference", shard_size=6)


def _dask_run_losing_a_worker(out, allowed_failures):
    import signal
    import threading
    import time

    import dask
    from distributed import Client, LocalCluster

    from uno_sim.runner import simulate

    with dask.config.set({"distributed.scheduler.allowed-failures": allowed_failures}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                         dashboard_address=":0") as cluster, Client(cluster) as client:
        pids = list(client.run(os.getpid).values())

        def kill_one():
            shards = os.path.join(out, "shards")
            deadline = time.time() + 60
            while time.time() < deadline and not (
                    os.path.isdir(shards) and
                    sum(f.endswith(".json") for f in os.listdir(shards)) >= 2):
                time.sleep(0.01)
            os.kill(pids[0], signal.SIGKILL)

        killer = threading.Thread(target=kill_one, daemon=True)
        killer.start()
        try:
            return simulate(out=out, backend="dask", n_jobs=2, progress=False, **WHOLE)
        finally:
            killer.join(timeout=60)


@pytest.mark.slow
def test_a_dask_worker_killed_mid_run_has_its_shard_computed_again(tmp_path):
    from uno_sim.runner import simulate, verify

    out = str(tmp_path / "dask")
    res = _dask_run_losing_a_worker(out, allowed_failures=3)
    assert verify(out).ok
    assert res.games.equals(simulate(**WHOLE).games)


@pytest.mark.slow
def test_dask_workers_dying_past_the_retries_stop_the_run_with_one_line(tmp_path):
    from uno_sim.runner import RunError

    out = str(tmp_path / "dask")
    with pytest.raises(RunError, match=r"Dask workers died .*--resume " + out):
        _dask_run_losing_a_worker(out, allowed_failures=0)
