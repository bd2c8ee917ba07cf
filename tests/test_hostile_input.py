"""A careless or hostile user's input, where they meet it (mostly the CLI): each case is
one line naming the bad value and exit status 2 (or, for the API, one clear exception),
never a traceback, a hang or memory running out; and the sizes that work, work.
"""

from __future__ import annotations

import json
import os

import pytest

from uno_sim.cli import main


def _run(argv, capsys):
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, [x for x in err.splitlines() if x.strip()]


def _refused(argv, capsys, *needles):
    rc, _, lines = _run(argv, capsys)
    assert rc == 2 and len(lines) == 1 and lines[0].startswith("uno-sim: error: "), lines
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


# --- absurd sizes: refused up front, naming the largest that works ---

@pytest.mark.parametrize("argv,needles", [
    (["tournament", "--deals", "1e15"], ["--deals '1e15'", "at most 1e7"]),
    (["bench", "--games", "1e15"], ["--games '1e15'", "at most 1e9"]),
    (["bench", "--repeats", "1e9"], ["--repeats '1e9'", "at most 1,000"]),
    (["bench", "--reference-games", "1e9"], ["--reference-games '1e9'"]),
    (["study", "balance", "--games", "1e15"], ["--games '1e15'", "at most 1e7"]),
    (["study", "bluff", "--boot", "1e9"], ["--boot '1e9'", "at most 1e5"]),
    (["report", "--games", "1e15"], ["--games '1e15'", "at most 1e7"]),
])
def test_absurd_sizes_are_refused_naming_the_bound(argv, needles, capsys):
    line = _refused(argv, capsys, *needles)
    assert "shard" not in line  # `study` has no --shard-size to advise


def test_tournament_deals_in_batches_play_the_same_games(monkeypatch):
    import uno_sim.tournament as t

    whole = t.play_pair("greedy", "random", 3, 7, seed=4)
    monkeypatch.setattr(t, "DEAL_BATCH", 3)
    assert t.play_pair("greedy", "random", 3, 7, seed=4) == whole


# --- files that never end: devices, FIFOs, huge files ---

def test_replay_of_a_device_or_a_fifo_is_refused(tmp_path, capsys):
    _refused(["replay", "/dev/zero"], capsys, "/dev/zero", "not a regular file")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it would block until a writer came
    _refused(["replay", str(fifo)], capsys, "not a regular file")


def test_replay_of_stdin_is_bounded(monkeypatch, capsys):
    import io
    import sys

    import uno_sim.trace as trace

    monkeypatch.setattr(trace, "MAX_TRACE_BYTES", 1000)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"0" * 5000)))
    _refused(["replay", "-"], capsys, "larger than 1,000 bytes")


@pytest.mark.parametrize("command", [["run", "--resume"], ["merge"]])
def test_a_manifest_linked_to_dev_zero_is_refused(command, tmp_path, capsys):
    (tmp_path / "manifest.json").symlink_to("/dev/zero")
    _refused(command + [str(tmp_path)], capsys, "manifest.json", "not a regular file")


# --- replay checks the trace against docs/trace.md ---

@pytest.fixture(scope="module")
def good_trace(tmp_path_factory):
    import uno_sim

    events = uno_sim.play_game(players=4, seed=3, trace=True).events
    return [dict(e) for e in events]


def _write(path, events):
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return str(path)


def _edit(events, kind, **changes):
    out = [dict(e) for e in events]
    i = next(k for k, e in enumerate(out) if e["e"] == kind)
    out[i].update(changes)
    return out, i + 1


@pytest.mark.parametrize("kind,changes,needle", [
    ("play", {"p": 99, "card": "BS"}, "p 99 is not a seat of 4 players"),
    ("play", {"p": -1}, "p -1 is not a seat"),
    ("play", {"card": "ZZ"}, "card 'ZZ' is not a card of variant classic"),
    ("play", {"p": True}, "p true is not a seat"),
    ("draw", {"reason": "bored"}, "reason 'bored' is not a draw reason"),
    ("round_start", {"hands": [["R1"]]}, "hands"),
    ("game_start", {"variant": "flip"}, "variant 'flip' differs from its rules' variant"),
    ("game_start", {"players": 5}, "players 5 differs"),
])
def test_replay_names_the_event_and_what_is_wrong(kind, changes, needle, good_trace, tmp_path,
                                                  capsys):
    events, n = _edit(good_trace, kind, **changes)
    line = _refused(["replay", _write(tmp_path / "t.jsonl", events)], capsys, needle)
    assert f"line {n}, event {n} ('{kind}')" in line


def test_replay_refuses_events_of_another_variant(good_trace, tmp_path, capsys):
    events = list(good_trace)
    events.insert(4, {"e": "flip", "p": 1, "side": "dark", "top": "T5"})
    _refused(["replay", _write(tmp_path / "t.jsonl", events)], capsys,
             "event 5 ('flip'): an event of UNO Flip, not of variant classic")
    events[4] = {"e": "dance", "p": 1}
    _refused(["replay", _write(tmp_path / "t.jsonl", events)], capsys,
             "event 5 ('dance'): unknown event type")
    events[4] = {"e": ["play"], "p": 1}  # not even a string
    _refused(["replay", _write(tmp_path / "t.jsonl", events)], capsys,
             "event 5 (\"['play']\"): unknown event type")


def test_replay_refuses_empty_and_truncated_traces(good_trace, tmp_path, capsys):
    _refused(["replay", _write(tmp_path / "e.jsonl", [])], capsys, "the trace is empty")
    cut = good_trace[:len(good_trace) // 2]
    _refused(["replay", _write(tmp_path / "c.jsonl", cut)], capsys,
             f"stops at line {len(cut)}, event {len(cut)}", "without game_end")
    _refused(["replay", _write(tmp_path / "h.jsonl", good_trace[1:])], capsys,
             "event 1 ('dealer_draw'): a trace starts with game_start")
    _refused(["replay", _write(tmp_path / "x.jsonl", good_trace + good_trace[-1:])], capsys,
             "an event after game_end")


def test_replay_still_reads_the_traces_both_engines_write(tmp_path, capsys):
    """Every variant's trace, with house rules and the launcher, passes the checks."""
    import uno_sim
    from uno_sim.rules import VARIANTS
    from uno_sim.trace import validate

    for v in VARIANTS:
        for engine in ("c", "reference"):
            validate(uno_sim.play_game(variant=v, players=3, seed=5, trace=True,
                                       engine=engine).events)
    validate(uno_sim.play_game(players=4, seed=2, trace=True, stacking="both", jump_in=True,
                               seven_o=True, draw_until_playable=True,
                               policies="greedy(bluff=0.5,challenge=0.5)").events)
    validate(uno_sim.play_game(players=4, seed=2, trace=True, teams=True).events)
    path = tmp_path / "g.jsonl"
    assert main(["play", "--variant", "flip", "--seed", "1", "--trace", str(path)]) == 0
    rc, out, err = _run(["replay", str(path)], capsys)
    assert rc == 0 and not err and "won after" in out


# --- studies and the report at small sizes ---

@pytest.mark.parametrize("argv", [
    ["study", "bluff", "--games", "1", "--players", "2", "--boot", "20"],
])
def test_a_study_of_one_game_runs(argv, tmp_path, capsys):
    rc, out, err = _run(argv + ["--out", str(tmp_path / "s")], capsys)
    assert rc == 0, err
    assert "No breakdown by the next player's hand size" in out
    assert os.path.exists(tmp_path / "s" / "bluff-values-classic-2p.png")


def test_a_percentile_interval_beside_its_estimate_is_drawn(tmp_path, capsys):
    """An equilibrium weight of 1 whose bootstrap interval ends at 0.96 (matplotlib's
    error bars refused it: "'yerr' must not contain negative values")."""
    rc, _, err = _run(["study", "challenge", "--variant", "house-2018", "--players", "2",
                       "--games", "100", "--boot", "50", "--out", str(tmp_path / "s")], capsys)
    assert rc == 0, err
    assert os.path.exists(tmp_path / "s" / "challenge-equilibrium-house-2018-2p.png")


@pytest.mark.slow
@pytest.mark.parametrize("argv", [
    ["study", "balance", "--games", "1", "--players", "2"],
    ["report", "--variants", "classic", "--games", "4", "--players", "2", "--trace-games",
     "4", "--card-games", "4", "--boot", "20", "--no-strong"],
])
def test_small_studies_and_reports_run(argv, tmp_path, capsys):
    rc, _, err = _run(argv + ["--out", str(tmp_path / "s")], capsys)
    assert rc == 0, err


def test_interval_bars_draw_intervals_as_given_and_skip_undefined_ones():
    """A percentile interval beside its estimate and a rounding-off one are drawn as they
    are (matplotlib's error bars refuse them); NaN ones are not drawn and counted."""
    import numpy as np
    from matplotlib.figure import Figure

    from uno_sim.analysis.common import interval_bars

    ax = Figure().subplots()
    est = np.array([1.0, 0.0, 0.5, 0.2])
    low = np.array([0.0, 3.9e-16, np.nan, 0.1])
    high = np.array([0.963, 0.8, np.nan, 0.3])
    assert interval_bars(ax, np.arange(4), est, low, high, marker="o") == 1
    segments = ax.collections[0].get_segments()
    spans = sorted((s[0][1], s[1][1]) for s in segments)
    assert np.ravel(spans) == pytest.approx(np.ravel([(0.0, 0.963), (3.9e-16, 0.8), (0.1, 0.3)]))


# --- play --human: whatever comes on stdin ---

def _human(monkeypatch, capsys, stdin):
    import sys

    monkeypatch.setattr(sys, "stdin", stdin)
    return _run(["play", "--human", "0", "--players", "2", "--seed", "1"], capsys)


@pytest.mark.parametrize("answer", ["\u00b2", "\u0663", "1" * 200, "1" * 20_000_000])
def test_human_odd_answers_are_invalid_choices(answer, monkeypatch, capsys):
    """A superscript 2 and an Arabic-Indic 3 pass str.isdigit; a 20 MB line of digits
    is past int()'s digit limit: each is an invalid choice, then q quits cleanly (status 0)."""
    import io

    rc, out, err = _human(monkeypatch, capsys, io.StringIO(answer + "\nq\n"))
    assert rc == 0 and err == [], err
    assert "You quit" in out
    assert "invalid choice" in out
    assert len(out) < 100_000  # the overlong line is not echoed whole


@pytest.mark.parametrize("stdin", ["closed", "none"])
def test_human_without_input_ends_in_one_line(stdin, monkeypatch, capsys):
    import io

    stream = io.StringIO("1\n")
    stream.close()
    rc, _, err = _human(monkeypatch, capsys, stream if stdin == "closed" else None)
    assert rc == 2 and len(err) == 1 and "game abandoned: the input ended" in err[0], err


def test_human_reads_an_overlong_line_a_piece_at_a_time():
    from uno_sim.human import MAX_LINE, HumanSeat

    class Stream:
        def __init__(self):
            self.sizes, self.left = [], 10**6

        def readline(self, size=-1):
            assert 0 < size <= 2**16  # never the whole line at once
            self.sizes.append(size)
            k = min(size, self.left)
            self.left -= k
            return "7" * k + ("\n" if not self.left else "")

    s = Stream()
    line = HumanSeat(0, "classic", s).read_line()
    assert len(line) == MAX_LINE + 1 and s.left == 0


# --- --config and --rule ---

@pytest.mark.parametrize("text,needle", [
    ("seat = [1, 2]\n", 'invalid seat = [1, 2] in --config'),
    ('rule = ["target=100", 5]\n', 'expected a list of "KEY=VALUE" strings'),
])
def test_config_lists_of_non_strings_are_refused(text, needle, tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    _refused(["run", "--games", "5", "--config", str(cfg)], capsys, needle)


def test_tournament_refuses_a_players_rule(capsys):
    _refused(["tournament", "--rule", "players=3", "--deals", "4"], capsys,
             "--rule 'players=3'", "--players 3")


@pytest.mark.parametrize("rules,needle", [
    (["target=100", "target=200"], "--rule 'target=200': target is given twice"),
    (["=5"], "--rule '=5': expected KEY=VALUE"),
    (["stacking"], "--rule 'stacking': expected KEY=VALUE"),
    (["nosuch=1"], "unknown rule 'nosuch'"),
])
def test_tournament_rules_are_read_as_every_command_reads_them(rules, needle, capsys):
    """The tournament's --rule switches go through rules.parse_rule_switches, as run's and
    train's do: a malformed, unknown or repeated switch is one line and exit 2."""
    argv = ["tournament", "--deals", "4"]
    for r in rules:
        argv += ["--rule", r]
    _refused(argv, capsys, needle)


def test_toml_files_with_a_byte_order_mark_are_read(tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_bytes(b"\xef\xbb\xbfgames = 7\nplayers = 3\n")
    deck = tmp_path / "d.toml"
    deck.write_bytes(b'\xef\xbb\xbf[count]\n"W+4" = 0\n')
    rc, out, err = _run(["run", "--config", str(cfg), "--deck", str(deck), "--format", "json"],
                        capsys)
    assert rc == 0 and not err
    doc = json.loads(out)
    assert doc["summary"]["games"] == 7 and doc["rules"]["players"] == 3
    assert doc["rules"]["deck"] == [["W+4", 0, None]]


@pytest.mark.parametrize("flag", ["--config", "--deck"])
def test_toml_files_that_never_end_are_refused(flag, capsys):
    _refused(["run", "--games", "5", flag, "/dev/zero"], capsys, "not a regular file")


# --- unclear lines made clear ---

@pytest.mark.parametrize("argv,needles", [
    (["run", "--games", "5", "--out", ""], ["invalid --out ''", "name of a directory"]),
    (["run", "--games", "5", "--out", " "], ["invalid --out ' '"]),
    (["study", "balance", "--games", "1", "--out", ""], ["invalid --out ''"]),
    (["report", "--games", "1", "--out", ""], ["invalid --out ''"]),
    (["play", "--trace", ""], ["invalid --trace ''", "name of a file"]),
    # a value starting with a dash reaches its check, not argparse's "expected one argument"
    (["run", "--seat", "-1=greedy"], ["invalid --seat '-1=greedy'", "seat -1 is not a seat"]),
    (["run", "--shard", "-1/2", "--out", "x"], ["invalid --shard '-1/2'", "0 <= K < M"]),
    (["play", "--seat", "-3=random"], ["seat -3 is not a seat of 4 players (0..3)"]),
    # digits that are not ASCII: str.isdigit says yes, int() says no
    (["run", "--players", "\u00b2"], ["invalid --players '\u00b2'"]),
    (["run", "--seat", "\u00b2=random"], ["invalid --seat '\u00b2=random'"]),
    (["run", "--shard", "\u00b2/3", "--out", "x"], ["invalid --shard '\u00b2/3'"]),
])
def test_unclear_lines_name_the_bad_value(argv, needles, capsys):
    line = _refused(argv, capsys, *needles)
    assert "permission denied" not in line and "expected one argument" not in line


def test_a_missing_value_is_still_argparses_error(capsys):
    _refused(["run", "--seat", "--policy", "greedy"], capsys, "--seat: expected one argument")


@pytest.mark.parametrize("value,on", [("yes", True), ("No", False), ("true", True),
                                      ("off", False), ("1", True), ("0", False), ("", None)])
def test_progress_setting_words(value, on, monkeypatch):
    from uno_sim.progress import env_setting

    monkeypatch.setenv("UNO_SIM_PROGRESS", value)
    assert env_setting() is on


def test_progress_setting_typo_is_one_line(monkeypatch, capsys):
    monkeypatch.setenv("UNO_SIM_PROGRESS", "maybe")
    _refused(["run", "--games", "5"], capsys, "invalid UNO_SIM_PROGRESS='maybe'")


def _randint_policy(n):
    def policy(obs):
        return obs.actions[obs.randint(n) % len(obs.actions)]
    return policy


@pytest.mark.parametrize("engine", ["c", "reference"])
@pytest.mark.parametrize("call,kind,needle", [
    (lambda e: __import__("uno_sim").play_round(dealer=None, engine=e), ValueError,
     "invalid dealer None"),
    (lambda e: __import__("uno_sim").play_round(dealer=1.0, engine=e), ValueError,
     "invalid dealer 1.0"),
    (lambda e: __import__("uno_sim").play_game(
        policies=[_randint_policy(2.5)] + ["greedy"] * 3, engine=e), TypeError,
     "invalid randint(2.5)"),
    (lambda e: __import__("uno_sim").play_game(
        policies=[_randint_policy(0)] + ["greedy"] * 3, engine=e), ValueError,
     "invalid randint(0)"),
])
def test_api_mistakes_are_named_alike_on_both_engines(call, kind, needle, engine):
    with pytest.raises(kind) as info:
        call(engine)
    assert needle in str(info.value)


@pytest.mark.parametrize("call,needle", [
    (lambda: __import__("uno_sim").arrange(dealer=float("inf")), "invalid dealer inf"),
    (lambda: __import__("uno_sim").arrange(dealer=None), "invalid dealer None"),
    (lambda: __import__("uno_sim").arrange(hands={"1": ["R5"]}), "invalid seat '1'"),
    (lambda: __import__("uno_sim").Rules(bogus_key=1), "unknown rule switch 'bogus_key'"),
    (lambda: __import__("uno_sim").Rules("flip"), "the switches are keywords"),
    (lambda: __import__("uno_sim.runner").runner.simulate(games=5, shard="0/1", out="x"),
     "invalid shard '0/1': expected a pair of integers"),
    (lambda: __import__("uno_sim.tournament").tournament.play_pair("greedy", "random",
                                                                   deals=10**8),
     "invalid deals 100000000: expected an integer 2..1e7"),
    (lambda: __import__("uno_sim.bench").bench.run_bench(repeats=10**9),
     "invalid repeats 1000000000"),
])
def test_api_mistakes_are_named(call, needle, tmp_path, monkeypatch):
    from uno_sim import RulesError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(RulesError) as info:
        call()
    assert needle in str(info.value)
    assert not os.path.exists(tmp_path / "x")


def test_an_unknown_switch_is_also_a_type_error():
    from uno_sim import Rules

    with pytest.raises(TypeError, match="bogus"):
        Rules(bogus=1)
