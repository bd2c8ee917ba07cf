"""Bad input, table by table: every case is one line naming the problem and exit status 2
(CLI), or one RulesError / PolicyError (API) -- never a traceback, a hang, or a folder
written into before the input was checked.

`test_counts` prints how many cases the tables hold (the issue's closing note quotes it).
"""

from __future__ import annotations

import errno
import json
import os

import pytest

import uno_sim
from uno_sim import PolicySpec, RulesError
from uno_sim.cli import main
from uno_sim.userpolicy import PolicyError

BINARY = bytes(range(256)) * 4


def _files(tmp):
    """The files the CLI cases name: {name} placeholders in their argv."""
    (tmp / "binary").write_bytes(BINARY)
    (tmp / "afile").write_text("not a folder")
    run = tmp / "run"
    main(["run", "--games", "40", "--shard-size", "20", "--players", "2", "--out", str(run)])
    paths = {"tmp": str(tmp), "binary": str(tmp / "binary"), "afile": str(tmp / "afile"),
             "run": str(run), "ro": "/sys/uno-sim-out"}
    for name, text in {
        "cfg_types": 'games = [1, 2]\n', "cfg_players": 'players = "four"\n',
        "cfg_seat": "seat = 5\n", "cfg_rule": 'rule = "target=100"\n',
        "cfg_summary": 'summary_only = "no"\n', "cfg_deck0": "deck = 0\n",
        "cfg_seed": "seed = -3\n", "cfg_unknown": "colour = 1\n",
        "cfg_broken": "games = \n",
    }.items():
        (tmp / f"{name}.toml").write_text(text)
        paths[name] = str(tmp / f"{name}.toml")
    for name, manifest in {"m_list": [1, 2], "m_str": "run", "m_keys": {"rules": {}},
                           "m_types": {"rules": {}, "policies": "greedy", "seed": 0}}.items():
        d = tmp / name
        d.mkdir()
        (d / "manifest.json").write_text(json.dumps(manifest))
        paths[name] = str(d)
    d = tmp / "m_bin"
    d.mkdir()
    (d / "manifest.json").write_bytes(BINARY)
    paths["m_bin"] = str(d)
    for name, lines in {
        "t_missing": [{"e": "play", "p": 0}],
        "t_types": [{"e": "dealer_draw", "draws": 5, "dealer": 0}],
        "t_hands": [{"e": "round_start", "round": 1, "dealer": 0, "hands": 3, "starter": "R1"}],
        "t_noe": [{"p": 1}],
        "t_list": [[1, 2, 3]],
    }.items():
        (tmp / name).write_text("\n".join(json.dumps(x) for x in lines) + "\n")
        paths[name] = str(tmp / name)
    (tmp / "t_deep").write_text("[" * 100_000 + "]" * 100_000 + "\n")
    paths["t_deep"] = str(tmp / "t_deep")
    (tmp / "t_binary").write_bytes(BINARY)
    paths["t_binary"] = str(tmp / "t_binary")
    return paths


CLI = {
    # counts
    "games 1e99": "run --games 1e99",
    "games 1e400": "run --games 1e400",
    "games 1e12": "run --games 1e12 --summary-only",
    "games 0": "run --games 0",
    "games -5": "run --games -5",
    "games 1.5": "run --games 1.5",
    "games abc": "run --games abc",
    "shard-size 0": "run --shard-size 0",
    "jobs 0": "run --jobs 0",
    "jobs x": "run --jobs x",
    "jobs 1e6": "run --jobs 1000000",
    # argparse's own errors (one line, not the usage block)
    "players x": "run --players x",
    "seed x": "run --seed x",
    "engine bogus": "run --engine bogus",
    "backend bogus": "run --backend bogus",
    "unknown flag": "run --bogus 1",
    "unknown command": "frobnicate",
    "play game x": "play --game x",
    # seeds and rules
    "seed -1": "run --games 10 --seed -1",
    "seed -1 play": "play --seed -1",
    "seed -1 replay": "replay --seed -1",
    "seed -1 out": "run --games 10 --seed -1 --out {tmp}/neg",
    "players 11": "run --players 11",
    "players 1": "play --players 1",
    "target 0": "run --rule target=0",
    "target huge": "run --rule target=99999999999",
    "wd4 huge": "run --rule wd4_value=2000000",
    "rule no =": "run --rule target",
    "rule unknown": "run --rule colour=red",
    "rule twice": "run --rule target=100 --rule target=200",
    "players vs rule": "run --players 3 --rule players=4",
    "variant vs rule": "run --variant flip --rule variant=classic",
    "variant bogus": "run --variant bogus",
    "custom_wilds classic": "run --rule custom_wilds=seven",
    "exchange classic": "play --rule exchange=shuffle",
    "teams odd": "run --players 5 --rule teams=true",
    # policies
    "policy unknown": "run --policy bogus",
    "policy knob twice": "run --policy greedy(bluff=0.1,bluff=0.2)",
    "policy knob range": "run --policy greedy(bluff=2)",
    "policy knob unknown": "run --policy greedy(zzz=1)",
    "seat twice": "run --seat 1=random --seat 1=greedy",
    "seat 9": "run --seat 9=random",
    "seat syntax": "run --seat one=random",
    # files
    "deck binary": "run --deck {binary}",
    "deck missing": "run --deck {tmp}/nope.toml",
    "config binary": "run --config {binary}",
    "config missing": "run --config {tmp}/nope.toml",
    "config broken": "run --config {cfg_broken}",
    "config list games": "run --config {cfg_types}",
    "config str players": "run --config {cfg_players}",
    "config int seat": "run --config {cfg_seat}",
    "config str rule": "run --config {cfg_rule}",
    "config summary no": "run --config {cfg_summary}",
    "config deck 0": "run --config {cfg_deck0}",
    "config seed -3": "run --config {cfg_seed}",
    "config unknown key": "run --config {cfg_unknown}",
    # output folders and resume
    "out on a file": "run --games 10 --out {afile}",
    "out read-only": "run --games 10 --out {ro}",
    "out foreign folder": "run --games 10 --out {tmp}",
    "out same run": "run --games 40 --shard-size 20 --players 2 --out {run}",
    "out other run": "run --games 41 --out {run}",
    "resume empty": "run --resume ''",
    "resume with flags": "run --resume {run} --games 5",
    "resume with seed": "run --resume {run} --seed 3",
    "resume missing": "run --resume {tmp}/nothing",
    "resume manifest list": "run --resume {m_list}",
    "resume manifest str": "run --resume {m_str}",
    "resume manifest keys": "run --resume {m_keys}",
    "resume manifest types": "run --resume {m_types}",
    "resume manifest binary": "run --resume {m_bin}",
    "merge manifest list": "merge {m_list}",
    "merge nothing": "merge {tmp}/nothing",
    "shard syntax": "run --shard 3 --out {tmp}/sh",
    "shard range": "run --shard 3/3 --out {tmp}/sh",
    "shard no out": "run --shard 0/3",
    "scheduler no dask": "run --scheduler tcp://localhost:1",
    "scheduler not an address": "run --backend dask --scheduler not-an-address --games 10",
    # traces
    "replay missing field": "replay {t_missing}",
    "replay wrong type": "replay {t_types}",
    "replay hands int": "replay {t_hands}",
    "replay no e": "replay {t_noe}",
    "replay list": "replay {t_list}",
    "replay deep nesting": "replay {t_deep}",
    "replay binary": "replay {t_binary}",
    "replay missing file": "replay {tmp}/nope.jsonl",
    "play trace on a folder": "play --trace {tmp}",
    # tournament, bench
    "tournament one policy": "tournament --policy greedy",
    "tournament players 11": "tournament --players 11",
    "tournament deals 0": "tournament --deals 0",
    "bench players x": "bench --players x",
    "bench variant bogus": "bench --variant bogus",
    # studies and reports
    "study out on a file": "study balance --games 10 --out {afile}",
    "study out read-only": "study balance --games 10 --out {ro}",
    "report out on a file": "report --games 10 --out {afile}",
    "report out read-only": "report --games 10 --out {ro}",
    "study players empty": "study bluff --games 10 --players '' --out {tmp}/st",
    "study players 2-1": "study balance --games 10 --players 2-1 --out {tmp}/st",
    "study players 11": "study balance --games 10 --players 11 --out {tmp}/st",
    "study variant bogus": "study bluff --variant bogus --out {tmp}/st",
    "report variants empty": "report --variants '' --games 10 --out {tmp}/rep",
    "report variants bogus": "report --variants bogus --games 10 --out {tmp}/rep",
    "study exploit rounds 1e9": "study exploit --rounds 1e9 --out {tmp}/st",
    "study exploit jobs 1e6": "study exploit --jobs 1000000 --out {tmp}/st",
    "report exploit-rounds 1e9": "report --exploit-rounds 1e9 --out {tmp}/rep",
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return _files(tmp_path_factory.mktemp("bad"))


def _argv(template, files):
    import shlex

    return [a.format(**files) for a in shlex.split(template)]


def _one_line_exit_2(argv, capsys):
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse
        rc = exc.code
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x.strip()]
    return rc, lines


@pytest.mark.parametrize("name", list(CLI))
def test_cli_bad_input_is_one_line_and_exit_2(name, files, capsys):
    rc, lines = _one_line_exit_2(_argv(CLI[name], files), capsys)
    assert rc == 2 and len(lines) == 1 and lines[0].startswith("uno-sim: error: "), lines


def test_bad_seed_leaves_no_folder(files, capsys):
    _one_line_exit_2(_argv(CLI["seed -1 out"], files), capsys)
    assert not os.path.exists(os.path.join(files["tmp"], "neg"))


def test_full_disk_is_one_line(tmp_path, monkeypatch, capsys):
    import uno_sim.runner.execute as execute  # run_shard writes the shard files from there

    def full(frame, path, metadata=None):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)

    monkeypatch.setattr(execute, "_atomic_write_parquet", full)
    rc, lines = _one_line_exit_2(["run", "--games", "20", "--out", str(tmp_path / "f")], capsys)
    assert rc == 2 and len(lines) == 1 and "No space left on device" in lines[0]


def _user(obs):
    return obs.actions[0]


API = {
    "seed -1": lambda e: uno_sim.play_game(seed=-1, engine=e),
    "seed 1.5": lambda e: uno_sim.play_game(seed=1.5, engine=e),
    "seed str": lambda e: uno_sim.play_game(seed="1", engine=e),
    "game -1": lambda e: uno_sim.play_game(game=-1, engine=e),
    "game 2**64": lambda e: uno_sim.play_game(game=2**64, engine=e),
    "game 1.5": lambda e: uno_sim.play_game(game=1.5, engine=e),
    "dealer 9": lambda e: uno_sim.play_round(dealer=9, engine=e),
    "dealer 0.5": lambda e: uno_sim.play_round(dealer=0.5, engine=e),
    "scores short": lambda e: uno_sim.play_round(scores=[0, 0], engine=e),
    "scores float": lambda e: uno_sim.play_round(scores=[0, 0, 0, 0.5], engine=e),
    "scores huge": lambda e: uno_sim.play_round(scores=[0, 0, 0, 2**31], engine=e),
    "scores str": lambda e: uno_sim.play_round(scores="0000", engine=e),
    "target 2**31": lambda e: uno_sim.play_game(target=2**31, engine=e),
    "target past bound": lambda e: uno_sim.play_game(target=10**9 + 1, engine=e),
    "wd4 past bound": lambda e: uno_sim.play_game(wd4_value=10**6 + 1, engine=e),
    "card value past bound": lambda e: uno_sim.play_game(deck={"value": {"W": 10**6 + 1}},
                                                         engine=e),
    "rules list": lambda e: uno_sim.play_game(rules=[1], engine=e),
    "unknown switch": lambda e: uno_sim.play_game(colour=1, engine=e),
    "policy int": lambda e: uno_sim.play_game(policies=5, engine=e),
    "policies short": lambda e: uno_sim.play_game(policies=["greedy"], engine=e),
    "hand-built spec name": lambda e: uno_sim.play_game(policies=PolicySpec("nope"), engine=e),
    "hand-built spec knob": lambda e: uno_sim.play_game(
        policies=PolicySpec("greedy", {"bluff": 7}), engine=e),
    "hand-built spec params": lambda e: uno_sim.play_game(
        policies=PolicySpec("greedy", [1]), engine=e),
    "engine bogus": lambda e: uno_sim.play_game(engine="bogus"),
    "deck not codes": lambda e: uno_sim.play_round(deck=[1, 2, 3], engine=e),
    "simulate seed -1": lambda e: uno_sim.runner.simulate(games=5, seed=-1, engine=e),
    "simulate user policy": lambda e: uno_sim.runner.simulate(games=5, policies=_user, engine=e),
    "simulate summary_only no": lambda e: uno_sim.runner.simulate(games=5, summary_only="no",
                                                                  engine=e),
    "simulate games 1e12": lambda e: uno_sim.runner.simulate(games=10**12, engine=e),
    "simulate games float": lambda e: uno_sim.runner.simulate(games=5.0, engine=e),
}


@pytest.mark.parametrize("engine", ["c", "reference"])
@pytest.mark.parametrize("name", list(API))
def test_api_bad_input_raises_rules_error_on_both_engines(name, engine):
    import uno_sim.runner  # noqa: F401

    with pytest.raises(RulesError) as info:
        API[name](engine)
    assert "\n" not in str(info.value)


def test_policy_error_is_a_rules_error():
    assert issubclass(PolicyError, RulesError)


def test_counts(capsys):
    """The size of the tables (quoted by the issue's closing note)."""
    with capsys.disabled():
        print(f"\nbad inputs: {len(CLI) + 1} CLI cases, {2 * len(API)} API cases")
    assert len(CLI) >= 90 and len(API) >= 25


# benchmarks/ab.py, the A/B timer: a bad --base or compiler flag is one line and status 2
# (it reads the base's csrc/ from git, so only in a git checkout)
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_AB = os.path.join(_ROOT, "benchmarks", "ab.py")


@pytest.mark.skipif(not (os.path.isdir(os.path.join(_ROOT, ".git")) and os.path.exists(_AB)),
                    reason="benchmarks/ab.py needs a git checkout")
@pytest.mark.parametrize("argv,needle", [
    (["--base", "no-such-rev"], "--base 'no-such-rev': no such commit"),
    (["--base", "HEAD", "--flags-b=-no-such-flag"], "extra flags: -no-such-flag"),
])
def test_ab_bad_input_is_one_line(argv, needle):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, _AB, *argv, "--rounds", "1", "--games", "1"],
                       capture_output=True, text=True, cwd=_ROOT)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    ours = [ln for ln in r.stderr.splitlines() if ln.startswith("ab: ")]
    assert len(ours) == 1 and needle in ours[0], r.stderr
