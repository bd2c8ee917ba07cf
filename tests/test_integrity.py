"""Nothing lost, nothing mixed: endless games stop in both engines, foreign files are never
run data, damaged runs are found, progress output and a full disk cannot ruin a run
(docs/engine.md "Safety limits", docs/cluster.md "Checking a run")."""

import errno
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
