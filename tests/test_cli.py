"""The command line: every command documented, bad input is one line and exit 2."""

import json
import subprocess
import sys

import pytest

from uno_sim.cli import build_parser, main, parse_count


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "uno_sim.cli", *args],
                          capture_output=True, text=True)


def commands():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices


def test_every_command_has_help_and_docs():
    with open("README.md", encoding="utf-8") as f:
        readme = f.read()
    for name, p in commands().items():
        assert p.description, name
        assert f"uno-sim {name}" in readme, f"README does not show `uno-sim {name}`"


@pytest.mark.parametrize("text,value", [("1e6", 1_000_000), ("1_000_000", 1_000_000),
                                        ("250k", 250_000), ("2M", 2_000_000), ("17", 17)])
def test_parse_count_accepts_the_documented_forms(text, value):
    assert parse_count(text) == value


@pytest.mark.parametrize("args,needle", [
    (["run", "--games", "0"], "'0'"),
    (["run", "--games", "-5"], "'-5'"),
    (["run", "--games", "1.5"], "'1.5'"),
    (["run", "--players", "11", "--games", "3"], "players 11"),
    (["run", "--policy", "nosuch", "--games", "3"], "'nosuch'"),
    (["run", "--policy", "greedy(bluff=2)", "--games", "3"], "'2'"),
    (["run", "--policy", "greedy(color=pink)", "--games", "3"], "'pink'"),
    (["run", "--rule", "edition=new", "--games", "3"], "'new'"),
    (["run", "--rule", "nosuch=1", "--games", "3"], "'nosuch'"),
    (["run", "--rule", "target=0", "--games", "3"], "target 0"),
    (["run", "--rule", "teams=1", "--players", "5", "--games", "3"], "players 5"),
    (["run", "--seat", "9=random", "--games", "3"], "seat 9"),
    (["run", "--variant", "nosuch", "--games", "3"], "'nosuch'"),
    (["run", "--variant", "house-2018", "--rule", "custom_wilds=seven,bogus", "--games", "3"],
     "'bogus'"),
    (["run", "--variant", "house-2018", "--rule", "custom_wilds=a,b,c,d", "--games", "3"],
     "1 to 3"),
    (["run", "--variant", "house-2018", "--rule", "exchange=trade", "--games", "3"], "'trade'"),
    (["replay", "/nonexistent/trace.jsonl"], "/nonexistent/trace.jsonl"),
])
def test_bad_input_is_one_line_naming_the_value(args, needle):
    r = run_cli(*args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert needle in lines[0]


@pytest.mark.parametrize("variant", ["hello-kitty", "house-2018"])
def test_run_plays_the_extra_decks(variant):
    r = run_cli("run", "--variant", variant, "--games", "200", "--seed", "1")
    assert r.returncode == 0, r.stderr
    assert "games/s" in r.stdout and "win share" in r.stdout


def test_replay_shows_the_extra_deck_events():
    r = run_cli("replay", "--seed", "2", "--players", "4", "--variant", "house-2018",
                "--engine", "reference", "--rule", "target=300",
                "--rule", "custom_wilds=extra_turn,wilds_down,seven")
    assert r.returncode == 0, r.stderr
    assert "plays WX" in r.stdout


def test_play_writes_a_trace_that_replay_reads(tmp_path):
    path = tmp_path / "g.jsonl"
    assert main(["play", "--seed", "5", "--players", "3", "--trace", str(path),
                 "--engine", "reference", "--rule", "target=100"]) == 0
    events = [json.loads(line) for line in path.read_text().splitlines()]
    assert events[0]["e"] == "game_start" and events[-1]["e"] == "game_end"
    r = run_cli("replay", str(path))
    assert r.returncode == 0
    assert "won after" in r.stdout.splitlines()[-1]
    direct = run_cli("replay", "--seed", "5", "--players", "3", "--engine", "reference",
                     "--rule", "target=100")
    assert direct.stdout == r.stdout


def test_replay_rejects_a_file_that_is_not_a_trace(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{\"x\": 1}\n")
    r = run_cli("replay", str(bad))
    assert r.returncode == 2 and "line 1" in r.stderr


def test_policies_lists_every_knob_with_default():
    r = run_cli("policies")
    assert r.returncode == 0
    for knob in ("bluff", "challenge", "forget_uno", "catch", "play_drawn", "voluntary_draw", "color"):
        assert knob in r.stdout
    assert "random:" in r.stdout and "greedy:" in r.stdout


def test_run_prints_win_shares_per_seat():
    r = run_cli("run", "--games", "30", "--players", "3", "--seed", "2", "--engine", "reference",
                "--rule", "target=100")
    assert r.returncode == 0, r.stderr
    rows = [l for l in r.stdout.splitlines() if l.strip()[:1].isdigit() and "[" in l]
    assert len(rows) == 3
    shares = [float(l.split()[1]) for l in rows]
    assert abs(sum(shares) - 1.0) <= 3 * 0.00005 + 1e-12  # printed to 4 decimals
    assert all(abs(x * 30 - round(x * 30)) < 0.01 for x in shares)  # wins out of 30 games


def test_ci_runs_the_readme_set_up_commands_verbatim():
    import re

    with open("README.md", encoding="utf-8") as f:
        blocks = re.findall(r"```\n(.*?)\n```", f.read(), re.S)
    with open(".ci/run", encoding="utf-8") as f:
        ci = f.read()
    install_and_run, tests = blocks[0], blocks[1]
    assert "uno-sim run" in install_and_run and "pytest" in tests
    assert install_and_run in ci.splitlines() and tests in ci


def test_run_variant_flip(capsys):
    assert main(["run", "--variant", "flip", "--games", "50", "--players", "3",
                 "--rule", "flip_pairing=game", "--rule", "deck_seed=4"]) == 0
    out = capsys.readouterr().out
    assert "variant flip, 3 players" in out and "50 games" in out


def test_bench_takes_the_flip_variant(capsys):
    assert main(["bench", "--variant", "flip", "--players", "2", "--games", "20",
                 "--repeats", "1"]) == 0
    assert any(line.startswith("flip ") for line in capsys.readouterr().out.splitlines())


def test_bench_all_variants_and_python_rates(capsys):
    from uno_sim.rules import VARIANTS

    assert main(["bench", "--players", "2", "--games", "20", "--repeats", "1",
                 "--reference-games", "2", "--user-games", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for v in VARIANTS:
        assert any(line.split()[:2] == [v, "2"] for line in lines), v
        assert any(line.startswith(f"reference engine, {v}, 2 players:") for line in lines), v
        assert any(line.startswith(f"C engine, {v}, 2 players, seat 0 a Python policy:")
                   for line in lines), v


def test_game_limit_is_one_line_naming_the_game(capsys):
    """Policies that never let a round end stop at the engine's limit: one line, exit 2."""
    code = main(["run", "--games", "3", "--players", "2", "--policy", "greedy(voluntary_draw=1)"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("uno-sim: error: game 0 did not end within 100000 turns")
    assert err.count("\n") == 1


def test_summary_names_the_switches_off_their_defaults(capsys):
    assert main(["run", "--games", "20", "--rule", "edition=vintage", "--rule", "challenge=modern",
                 "--rule", "hand_size=5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("edition vintage")
    assert lines[1] == "rules: challenge=modern, hand_size=5"  # drawn_card=must etc. are vintage's
    assert main(["run", "--games", "20"]) == 0
    assert not any(line.startswith("rules:") for line in capsys.readouterr().out.splitlines())


def test_python_dash_m_uno_sim_is_the_command_line():
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "uno_sim", "run", "--games", "20", "--seed", "3"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "20 games" in r.stdout
