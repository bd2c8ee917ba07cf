"""What a user meets at the command line: intervals, help texts, resume, completion."""

import errno
import os
import re
import shutil
import subprocess
import sys

import pytest

from uno_sim.cli import main


def out_of(capsys, *argv):
    status = main(list(argv))
    cap = capsys.readouterr()
    return status, cap.out, cap.err


def test_tournament_intervals_stay_inside_0_1_and_even_is_explained(capsys):
    # greedy beats a greedy that draws voluntarily in almost every deal: a normal interval
    # around 0.996 ran past 1 here
    status, out, _ = out_of(capsys, "tournament", "--policy", "greedy", "--policy",
                            "greedy(voluntary_draw=0.3)", "--players", "2,3", "--deals", "400")
    assert status == 0
    rows = re.findall(r"A wins ([\d.]+) \[([\d.]+), ([\d.]+)\] \(even ([\d.]+)", out)
    assert len(rows) == 2
    for share, lo, hi, _ in rows:
        assert 0 <= float(lo) <= float(share) <= float(hi) <= 1
    assert float(rows[0][0]) < 1  # some deal was lost: the case the normal interval broke
    assert "even: A's share of the seats" in out.splitlines()[0] + out.splitlines()[1]
    assert rows[1][3] == "0.667"


def test_share_ci_stays_inside_0_1_near_the_edge():
    from uno_sim.stats import share_ci

    m, lo, hi = share_ci([1.0] * 397 + [0.5, 0.0, 0.0])
    assert lo < m < hi <= 1


def test_rules_of_one_variant_show_that_variant_as_the_default(capsys):
    _, out, _ = out_of(capsys, "rules", "--variant", "flip")
    lines = out.splitlines()
    assert lines[0].startswith("variant ") and lines[2].strip() == "default: flip"
    _, out, _ = out_of(capsys, "rules")
    assert out.splitlines()[2].strip() == "default: classic"


def test_rule_help_lists_only_rule_switches(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    listed = text.split("rule switch (repeatable):")[1].split("--deck")[0]
    assert "edition" in listed and "stacking" in listed
    for flag in ("variant", "players", "deck"):
        assert not re.search(rf"\b{flag}\b", listed), flag


def test_policies_lines_fit_in_100_columns(capsys):
    _, out, _ = out_of(capsys, "policies")
    assert "bluff" in out and max(map(len, out.splitlines())) <= 100


def test_resume_of_a_finished_run_says_there_is_nothing_to_do(tmp_path, capsys):
    out = str(tmp_path / "r")
    assert main(["run", "--games", "30", "--players", "3", "--rule", "target=100",
                 "--out", out]) == 0
    capsys.readouterr()
    status, text, _ = out_of(capsys, "run", "--resume", out)
    assert status == 0
    assert text.splitlines()[0] == "nothing to do: all 30 games are done"
    assert "win share" in text  # and the summary


def test_report_refuses_jobs_0_before_making_its_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    status, _, err = out_of(capsys, "report", "--jobs", "0")
    assert status == 2 and "--jobs '0'" in err
    assert not (tmp_path / "reports").exists()


def complete(line):
    """What `uno-sim` offers for the last word of `line`: argcomplete's finder on the CLI's
    parser, in process (the bash test below goes through the installed script)."""
    import argcomplete

    from uno_sim.cli import _add_completers, build_parser

    parser = build_parser()
    _add_completers(parser)
    finder = argcomplete.CompletionFinder(parser)
    prequote, prefix, _, words, wordbreak = argcomplete.split_line(line, len(line))
    return [w.rstrip() for w in finder._get_completions(words, prefix, prequote, wordbreak)]


def test_completion_of_commands_options_and_values():
    assert complete("uno-sim ru") == ["run", "rules"]
    assert complete("uno-sim run --var") == ["--variant"]
    assert complete("uno-sim report --var") == ["--variant", "--variants"]
    assert complete("uno-sim run --variant fl") == ["flip"]
    assert "all" in complete("uno-sim bench --variant ")
    assert complete("uno-sim run --policy gr") == ["greedy"]
    assert complete("uno-sim run --rule sta") == ["stacking="]
    assert complete("uno-sim run --rule stacking=") == [
        "stacking=none", "stacking=draw2", "stacking=draw4", "stacking=both"]
    assert complete("uno-sim run --rule jump_in=") == ["jump_in=true", "jump_in=false"]
    assert not [w for w in complete("uno-sim run --rule ") if w.split("=")[0] in
                ("variant", "players", "deck")]
    assert {"bluff", "challenge", "balance"} <= set(complete("uno-sim study "))
    assert {"bash", "zsh", "fish"} <= set(complete("uno-sim completion "))


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completes_a_rule_name_without_a_trailing_space(capsys):
    assert main(["completion", "bash"]) == 0
    script = capsys.readouterr().out
    bindir = os.path.dirname(sys.executable)  # where the uno-sim script is installed

    def reply(*words):
        line = " ".join(words)
        code = (script + f"\nCOMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}; "
                f"COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
                '_python_argcomplete uno-sim; printf "[%s]\\n" "${COMPREPLY[@]}"')
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
        return subprocess.run(["bash", "-c", code], capture_output=True, text=True, env=env,
                              timeout=60).stdout.split("\n")[:-1]

    if not shutil.which("uno-sim", path=bindir):
        pytest.skip("the uno-sim script is not installed next to this Python")
    assert reply("uno-sim", "run", "--rule", "sta") == ["[stacking=]"]
    assert reply("uno-sim", "run", "--variant", "fl") == ["[flip ]"]


@pytest.mark.parametrize("shell,needle", [("bash", "complete "), ("zsh", "#compdef uno-sim"),
                                          ("fish", "complete --command uno-sim")])
def test_completion_scripts_for_each_shell(shell, needle, capsys):
    assert main(["completion", shell]) == 0
    assert needle in capsys.readouterr().out


@pytest.mark.parametrize("flags,parallel", [([], True), (["-n", "0"], False),
                                            (["-p", "no:xdist"], False)])
def test_pytest_runs_on_workers_unless_told_otherwise(flags, parallel):
    # the README's `python -m pytest -q` spreads the suite over the cores (pytest-xdist)
    pytest.importorskip("xdist")
    here = os.path.dirname(os.path.abspath(__file__))
    one = os.path.join(here, "test_api_docs.py") + "::test_help_says_where_to_start"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}  # not this run's settings
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *flags, one],
                       capture_output=True, text=True, timeout=120, env=env,
                       cwd=os.path.dirname(here))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "1 passed" in p.stdout
    assert bool(re.search(r"\b\d+ workers? \[1 item\]", p.stdout)) == parallel, p.stdout


def test_tournament_share_stays_a_share_in_team_play():
    """C20: a team win credits both of the team's seats; A's share of the wins is still a
    share (it ran up to 2 before)."""
    from uno_sim.rules import Rules
    from uno_sim.tournament import play_pair

    r = play_pair("greedy", "greedy", players=4, deals=40, seed=3,
                  rules=Rules(players=4, teams=True))
    assert 0.0 <= r.low <= r.share <= r.high <= 1.0
    assert r.share == pytest.approx(r.even, abs=0.15)  # the same player on both teams


def test_no_command_is_an_error_on_stderr(capsys):
    status, out, err = out_of(capsys)
    assert status == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("uno-sim: error: a command is required")
    assert "run" in lines[0] and "--help" in lines[0]


@pytest.mark.parametrize("argv", [
    ["--deals", "1"],  # refused by the tournament itself, after the CLI's own checks
    ["--policy", "net", "--policy", "greedy", "--players", "3", "--deals", "2"],  # no weights
])
def test_tournament_error_is_its_line_alone(argv, capsys):
    status, out, err = out_of(capsys, "tournament", *argv)
    assert status == 2 and out == ""  # no legend before the error
    assert len(err.splitlines()) == 1 and err.startswith("uno-sim: error: ")


class _FullFile:
    """A file opened for writing on a full disk: each write fails as the system's does,
    with an OSError that names no file."""

    def __init__(self, f):
        self._f = f

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


@pytest.fixture
def full_disk(tmp_path, monkeypatch):
    """Every file opened for writing under tmp_path is on a full disk."""
    import builtins
    import io

    real = builtins.open

    def fake(file, mode="r", *args, **kwargs):
        f = real(file, mode, *args, **kwargs)
        on_disk = isinstance(file, (str, os.PathLike)) and \
            os.path.abspath(file).startswith(str(tmp_path))
        return _FullFile(f) if on_disk and set(mode) & set("wax+") else f

    monkeypatch.setattr(builtins, "open", fake)
    monkeypatch.setattr(io, "open", fake)
    return tmp_path


@pytest.mark.parametrize("argv,name", [
    (["run", "--games", "20", "--players", "2", "--out", "{tmp}/run"], "manifest.json"),
    (["play", "--trace", "{tmp}/game.jsonl"], "game.jsonl"),
    (["study", "bluff", "--games", "20", "--players", "2", "--out", "{tmp}/st"], None),
    (["league", "--policy", "greedy", "--policy", "random", "--players", "2", "--variant",
      "classic", "--deals", "4", "--bootstrap", "0", "--out", "{tmp}/lg"], "league.json"),
    (["train", "--widths", "16", "--iterations", "1", "--envs", "16", "--steps", "8",
      "--segment", "1", "--eval-every", "0", "--quiet", "--out", "{tmp}/tr"], "checkpoint.npz"),
])
def test_full_disk_names_the_file_not_written(argv, name, full_disk, capsys):
    status, _, err = out_of(capsys, *[a.format(tmp=full_disk) for a in argv])
    lines = [x for x in err.splitlines() if x.startswith("uno-sim")]  # (league: its estimate)
    assert status == 2 and len(lines) == 1 and "Traceback" not in err, err
    said = re.fullmatch(r"uno-sim: error: cannot write (?:--trace )?'([^']+)': (.*)", lines[0])
    assert said, lines[0]
    assert said.group(2).startswith("No space left on device")
    path = said.group(1)
    assert path.startswith(str(full_disk)) and not os.path.isdir(path)  # a file, not a folder
    assert name is None or os.path.basename(path) == name


def test_an_os_error_naming_no_file_names_the_folder_written():
    from argparse import Namespace

    from uno_sim.cli import _os_error_line

    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert _os_error_line(full, Namespace(out="runs/x")) == \
        "cannot write in 'runs/x': No space left on device"
    assert _os_error_line(full, Namespace()) == "cannot write: No space left on device"


@pytest.mark.parametrize("command", [["play"], ["run", "--games", "10"]])
@pytest.mark.parametrize("spec", ["pimc(infer=0,weights={f})", "pimc(samples=2,weights={f})",
                                  "ismcts(iterations=5,weights={f})"])
def test_a_weight_file_named_is_checked_even_where_no_knob_reads_it(spec, command, tmp_path,
                                                                    capsys):
    (tmp_path / "bad.unonet").write_bytes(b"not a network" * 10)
    for f in (tmp_path / "missing.unonet", tmp_path / "bad.unonet"):
        status, out, err = out_of(capsys, *command, "--players", "2", "--policy",
                                  spec.format(f=f))
        lines = err.splitlines()
        assert status == 2 and out == "" and len(lines) == 1, err
        assert lines[0].startswith(f"uno-sim: error: {f}: ")


def test_a_good_weight_file_no_knob_reads_changes_no_game(capsys):
    from uno_sim.players.net import WEIGHTS_DIR

    fast = "samples=2,rollouts=1"
    _, plain, _ = out_of(capsys, "play", "--players", "2", "--policy", f"pimc({fast})")
    status, named, _ = out_of(capsys, "play", "--players", "2", "--policy",
                              f"pimc({fast},weights={WEIGHTS_DIR / 'classic-2p.unonet'})")
    assert status == 0 and named.splitlines()[1:] == plain.splitlines()[1:]  # (1: the specs)
    status, _, err = out_of(capsys, "play", "--players", "2", "--policy",  # another game's
                            f"pimc({fast},weights={WEIGHTS_DIR / 'flip-4p.unonet'})")
    assert status == 2 and "does not fit this game" in err


@pytest.mark.parametrize("argv,flag", [
    (["study", "exploit", "--rounds", "1e9"], "--rounds '1e9'"),
    (["study", "exploit", "--rounds", "194"], "--rounds '194'"),
    (["report", "--exploit-rounds", "1e9"], "--exploit-rounds '1e9'"),
    (["study", "exploit", "--jobs", "1000000"], "--jobs '1000000'"),
])
def test_exploit_sizes_are_bounded_before_any_work(argv, flag, tmp_path, capsys):
    pytest.importorskip("scipy")  # the analysis extra
    from uno_sim.analysis.exploit import MAX_ROUNDS

    status, out, err = out_of(capsys, *argv, "--out", str(tmp_path / "o"))
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"uno-sim: error: invalid {flag}: at most ")
    assert "--jobs" in flag or f"at most {MAX_ROUNDS} " in err
    assert not (tmp_path / "o").exists()


def test_the_round_bound_is_the_candidates_a_round_can_add():
    pytest.importorskip("scipy")
    from uno_sim.analysis.exploit import (MAX_ROUNDS, bluff_candidates,
                                          challenge_candidates)

    assert MAX_ROUNDS == 1 + len(set(bluff_candidates())) + len(set(challenge_candidates()))


def test_a_study_starts_no_more_workers_than_arms():
    pytest.importorskip("scipy")
    from uno_sim.analysis.bluffgame import _workers

    assert _workers(4096, 3) == 3 and _workers(-1, 1) == 1 and _workers(2, 10) == 2


def test_run_jobs_default_to_the_cores_for_many_games(monkeypatch):
    from uno_sim.runner.execute import AUTO_GAMES, auto_jobs

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    assert auto_jobs(AUTO_GAMES - 1, 5) == 1  # a small run: no pool to start
    assert auto_jobs(AUTO_GAMES, 5) == 4 and auto_jobs(10**6, 2) == 2 and auto_jobs(10**6, 1) == 1


@pytest.mark.parametrize("jobs,pool", [([], 2), (["--jobs", "1"], None), (["--jobs", "-1"], 2)])
def test_run_without_jobs_uses_the_cores_and_plays_the_same_games(jobs, pool, monkeypatch,
                                                                  capsys):
    import uno_sim.runner.execute as execute

    monkeypatch.setattr(execute, "AUTO_GAMES", 40)  # many games, for this test
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    workers, real = [], execute._pool_pass

    def spy(kind, manifest, shards, out, n_jobs, *rest):
        workers.append(n_jobs if n_jobs != -1 else os.cpu_count())
        return real(kind, manifest, shards, out, n_jobs, *rest)

    monkeypatch.setattr(execute, "_pool_pass", spy)
    argv = ["run", "--games", "40", "--shard-size", "20", "--players", "3", "--seed", "5"]
    status, out, _ = out_of(capsys, *argv, *jobs)
    assert status == 0 and workers == ([pool] if pool else [])
    monkeypatch.setattr(execute, "AUTO_GAMES", 10**9)
    _, one, _ = out_of(capsys, *argv)  # in this process
    assert out.split("wall time")[0] == one.split("wall time")[0]
