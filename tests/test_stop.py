"""Ctrl-C and SIGTERM stop every long computation within a second or two, C loops and the
search players' searches included, and leave a folder that resumes to the same result
(docs/engine.md "Stopping", docs/cli.md "Stopping"); output folders are checked and locked
before any game is played.

Each signal test starts `uno-sim` in a session of its own, waits until it is in the middle
of the work (a shard, a search), signals it (SIGINT to the whole process group, as a
terminal's Ctrl-C does; SIGTERM to the main process, as `kill` does) and measures the time
to its exit; the work left at that moment would take far longer.
"""

import json
import os
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"),
                                reason="process groups and /proc (Linux)")

from uno_sim.cli import main

UNO_SIM = [sys.executable, "-m", "uno_sim.cli"]
STOP_SECONDS = 2.0  # the target: a stopped command exits within this many seconds
SLOW_PIMC = "pimc(samples=400,rollouts=40)"  # one decision: many seconds of search


def start(*args, env=None):
    return subprocess.Popen(UNO_SIM + [str(a) for a in args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=None if env is None else {**os.environ, **env})


def wait_until(proc, ready, seconds=120):
    deadline = time.time() + seconds
    while not ready():
        if proc.poll() is not None:
            pytest.fail(f"it ended before the signal: {proc.communicate()}")
        if time.time() > deadline:
            proc.kill()
            pytest.fail("it did not get going")
        time.sleep(0.02)


def engine_loaded(proc):
    """Whether `proc` has loaded the compiled engine (its start-up, imports and all, is
    past: a signal before that is Python's own business, not uno-sim's)."""
    try:
        with open(f"/proc/{proc.pid}/maps") as f:
            return "_engine" in f.read()
    except OSError:
        return False


def children(proc):
    """The processes `proc` started, and theirs (objects with a pid, as engine_loaded reads)."""
    out, todo = [], [proc.pid]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                kids = [int(k) for k in f.read().split()]
        except OSError:
            kids = []
        out += [SimpleNamespace(pid=k) for k in kids]
        todo += kids
    return out


def stop(proc, sig=signal.SIGINT, after=0.5):
    """Signal `proc` (SIGINT: its whole group) `after` seconds from now; returns
    (returncode, stderr, seconds from the signal to the exit)."""
    time.sleep(after)
    assert proc.poll() is None, proc.communicate()
    t0 = time.perf_counter()
    if sig == signal.SIGINT:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("it did not stop")
    return proc.returncode, err, time.perf_counter() - t0


def stopped(result, code=130, word="interrupted", before=()):
    """The stop's checks; `before`: the starts of lines the command prints on stderr before
    its games (the league's estimate), left out of the one-line rule."""
    returncode, err, seconds = result
    err = "\n".join(ln for ln in err.splitlines() if not ln.startswith(tuple(before)))
    # a process that ends by the signal itself (-SIGINT here) has status 128 + 2 = 130 for
    # its shell, as the one that returns 130: seen now and then when the study's worker pool
    # is torn down after the interrupt (its one line printed first)
    assert returncode == code or (code == 130 and returncode == -signal.SIGINT), err
    assert "Traceback" not in err and err.strip().count("\n") == 0 and word in err, err
    assert seconds < STOP_SECONDS, f"exited {seconds:.2f} s after the signal"
    return err


def records(out):
    shards = out / "shards"
    return sum(f.endswith(".json") for f in os.listdir(shards)) if shards.exists() else 0


def uno_sim(*args):
    return subprocess.run(UNO_SIM + [str(a) for a in args], capture_output=True, text=True)


# --- run -------------------------------------------------------------------------------

@pytest.mark.parametrize("sig,code,word", [(signal.SIGINT, 130, "interrupted"),
                                           (signal.SIGTERM, 143, "terminated")])
def test_a_run_stops_mid_shard_and_resumes_to_the_same_games(tmp_path, sig, code, word):
    """One worker (the main process) in a C batch of 20,000 games (about half a second):
    stopped within the batch, a finished shard kept, the run resumed equal to an
    uninterrupted one."""
    from uno_sim.runner import simulate

    args = ["--games", "40000", "--shard-size", "20000", "--players", "2", "--summary-only"]
    out = tmp_path / "run"
    proc = start("run", *args, "--out", out)
    wait_until(proc, lambda: (out / "manifest.json").exists())
    err = stopped(stop(proc, sig, after=0.3), code, word)
    assert f"--resume {out}" in err
    assert records(out) < 2 and not (out / "summary.json").exists()
    assert not [f for f in os.listdir(out / "shards") if ".tmp" in f]  # nothing half written
    assert uno_sim("run", "--resume", out).returncode == 0
    whole = simulate(games=40000, players=2, shard_size=20000, summary_only=True,
                     out=str(tmp_path / "whole"))
    resumed = json.loads((out / "summary.json").read_text())
    want = {k: v for k, v in json.loads(json.dumps(whole.summary())).items()
            if k not in ("wall_seconds", "games_per_second", "games_played",
                         "games_already_done")}  # the timing of the call that finished it
    assert {k: resumed[k] for k in want} == want


def test_a_run_stops_in_the_middle_of_a_search(tmp_path):
    """A pimc seat whose every decision searches for seconds: stopped inside the search,
    the game in play is dropped and the folder holds nothing but what a resume goes on
    from."""
    out = tmp_path / "search"
    proc = start("run", "--games", "4", "--shard-size", "2", "--players", "2", "--seat",
                 f"0={SLOW_PIMC}", "--out", out)
    wait_until(proc, lambda: (out / "manifest.json").exists())
    stopped(stop(proc, after=1.0))
    check = uno_sim("verify", out)
    assert check.returncode == 1
    assert "not computed yet" in check.stderr and "temporary" not in check.stderr, check.stderr


# --- play, tournament, league, study -----------------------------------------------------

def test_play_stops_in_the_middle_of_a_search():
    proc = start("play", "--players", "2", "--seat", "0=ismcts(iterations=100000)")
    wait_until(proc, lambda: engine_loaded(proc))
    stopped(stop(proc, after=1.0))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_tournament_stops_at_once(jobs):
    proc = start("tournament", "--policy", "pimc", "--policy", "greedy", "--players", "2",
                 "--deals", "200", "--jobs", jobs)
    # the engine loaded, by the command or by a worker of its pool: the games begin (the
    # table and its legend are printed at the end)
    wait_until(proc, lambda: engine_loaded(proc) or any(
        engine_loaded(child) for child in children(proc)))
    stopped(stop(proc, signal.SIGTERM, after=1.0), 143, "terminated")


def test_a_league_stops_at_once_and_its_folder_takes_the_next_league(tmp_path):
    out = tmp_path / "league"
    proc = start("league", "--policy", "pimc", "--policy", "greedy", "--players", "2",
                 "--variant", "classic", "--deals", "200", "--bootstrap", "0", "--out", out)
    wait_until(proc, lambda: (out / ".lock").exists())
    stopped(stop(proc, after=1.0), before=("league: ",))
    from uno_sim.league import hold_out

    os.close(hold_out(str(out)))  # checked, and not held: the next league may write there


def test_a_study_stops_at_once_and_its_folder_takes_the_next_study(tmp_path):
    out = tmp_path / "study"
    proc = start("study", "balance", "--games", "1e6", "--players", "2", "--out", out)
    wait_until(proc, lambda: (out / ".lock").exists())
    stopped(stop(proc, after=1.0), before=("league: ",))
    # stopped before writing anything, the study takes the folder it made away with it
    assert not out.exists() or not [f for f in os.listdir(out) if f.endswith(".tmp")]
    from uno_sim.analysis.cli import _output_folder

    with _output_folder(str(out), "study"):  # checked, and not held: the next study's
        pass


# --- the C stop flag -----------------------------------------------------------------------

def test_a_handler_that_does_not_raise_lets_the_batch_go_on_to_the_same_games():
    """The flag stops the batch at every signal; Python's handler returns, so the binding
    plays on from the first unfinished game: the same columns as without signals."""
    import threading

    from uno_sim.policies import parse_policy
    from uno_sim.rules import Rules
    from uno_sim.runner import play_columns

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers live in the main thread")
    rules, specs = Rules(players=2), [parse_policy("pimc(samples=2,rollouts=2)"),
                                      parse_policy("greedy")]
    plain = play_columns(rules, specs, 3, 0, 40)
    hits = []
    old = signal.signal(signal.SIGINT, lambda *a: hits.append(1))
    done = threading.Event()

    def pester():
        while not done.wait(0.01):
            os.kill(os.getpid(), signal.SIGINT)

    try:
        threading.Thread(target=pester, daemon=True).start()
        pestered = play_columns(rules, specs, 3, 0, 40)
    finally:
        done.set()
        signal.signal(signal.SIGINT, old)
    assert hits, "no signal arrived during the batch"
    assert plain.keys() == pestered.keys()
    for k in plain:
        assert np.array_equal(plain[k], pestered[k]), k


# --- output paths checked, and locked, before any game -------------------------------------

def test_league_and_study_refuse_a_folder_in_use(tmp_path):
    out = tmp_path / "busy"
    first = start("league", "--policy", "pimc", "--policy", "greedy", "--players", "2",
                  "--variant", "classic", "--deals", "200", "--out", out)
    try:
        wait_until(first, lambda: (out / ".lock").exists())
        for argv in (["league", "--policy", "random", "--policy", "greedy", "--deals", "4"],
                     ["study", "balance", "--games", "10"]):
            second = uno_sim(*argv, "--out", out)
            assert second.returncode == 2, second.stderr
            assert second.stderr.count("\n") == 1 and "in use by another uno-sim league" \
                in second.stderr, second.stderr
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.communicate()


def test_two_studies_on_one_folder(tmp_path):
    out = tmp_path / "busy"
    first = start("study", "balance", "--games", "1e6", "--players", "2", "--out", out)
    try:
        wait_until(first, lambda: (out / ".lock").exists())
        second = uno_sim("study", "balance", "--games", "10", "--out", out)
        assert second.returncode == 2 and "in use by another uno-sim study" in second.stderr
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.communicate()


@pytest.fixture
def unwritable(tmp_path):
    """A path no one can make: its parent is a file (root included)."""
    (tmp_path / "file").write_text("x")
    return tmp_path / "file" / "out"


def test_league_out_that_cannot_be_written_fails_before_any_game(unwritable, capsys,
                                                                 monkeypatch):
    import uno_sim.league as league

    monkeypatch.setattr(league, "_time_player", lambda *a: pytest.fail("a game was played"))
    code = main(["league", "--policy", "pimc", "--policy", "greedy", "--players", "2",
                 "--variant", "classic", "--out", str(unwritable)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "cannot write --out" in err, err


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc (Linux)")
def test_league_out_on_a_read_only_file_system_fails_before_any_game(capsys, monkeypatch):
    import uno_sim.league as league

    monkeypatch.setattr(league, "_time_player", lambda *a: pytest.fail("a game was played"))
    code = main(["league", "--policy", "random", "--policy", "greedy", "--out",
                 "/proc/uno-sim-league"])
    assert code == 2 and "cannot write --out '/proc/uno-sim-league'" in capsys.readouterr().err


def test_play_human_trace_that_cannot_be_written_fails_before_the_game(unwritable, capsys,
                                                                      monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # a game played would end on EOF
    code = main(["play", "--human", "0", "--players", "2", "--trace", str(unwritable)])
    out, err = capsys.readouterr()
    assert code == 2 and "cannot write --trace" in err and "abandoned" not in err, err
    assert out == ""  # not one line of a game


def test_play_trace_never_writes_over_a_file_that_is_not_a_trace(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    assert main(["play", "--trace", str(notes)]) == 2
    assert "not a uno-sim trace" in capsys.readouterr().err
    assert notes.read_text() == "my notes\n"
    trace = tmp_path / "game.jsonl"
    assert main(["play", "--trace", str(trace)]) == 0
    assert main(["play", "--seed", "3", "--trace", str(trace)]) == 0  # a trace: replaced
    assert main(["play", "--trace", str(tmp_path)]) == 2
    assert "it is a directory" in capsys.readouterr().err
