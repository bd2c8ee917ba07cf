"""`uno-sim play --human SEAT`: scripted human games through the CLI (subprocess + stdin)."""

import re
import subprocess
import sys

import pytest

from uno_sim import engine
from uno_sim.rules import Rules


def _play(args, stdin):
    return subprocess.run([sys.executable, "-m", "uno_sim.cli", "play", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def _first(obs):
    return obs.actions[0]


@pytest.mark.parametrize("variant", ["classic", "flip", "house-2018"])
def test_scripted_human_game(variant):
    """Always choosing 1 is the first legal action: the same game as a user policy's."""
    args = ["--human", "1", "--players", "3", "--variant", variant, "--rule", "target=60",
            "--seed", "3"]
    p = _play(args, "1\n" * 3000)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    for shown in ("your hand: ", "top card ", "active color ", "cards held: P0: ", "  1) ",
                  "choice [1-"):
        assert shown in out
    assert out.rstrip().endswith(("You won!", "You lost."))
    rules = Rules(variant=variant, players=3, target=60)
    res = engine.play_game(rules, ["greedy", _first, "greedy"], seed=3)
    assert f"scores {res.scores}" in out.splitlines()[-2]
    # what the seat may not see (P1): others' drawn cards and unchallenged bluffs
    for line in out.splitlines():
        m = re.match(r"P([02]) draws (.*)", line)
        if m:
            assert re.fullmatch(r"\d+ cards?", m.group(2)), line
        if re.match(r"P[02] plays", line):
            assert "(bluff)" not in line, line
    if variant == "flip":
        assert "P0's hand shows you: " in out  # F6: the other faces of their hands


def test_bad_choices_are_asked_again_and_eof_is_one_line():
    p = _play(["--human", "0", "--seed", "1"], "x\n0\n99\n")
    assert p.returncode == 2
    assert "invalid choice 'x': enter a number from 1 to" in p.stdout
    assert "invalid choice '99'" in p.stdout
    assert p.stderr.strip() == "uno-sim: error: game abandoned: the input ended before the game did"


def test_bad_seat():
    p = _play(["--human", "4"], "")
    assert p.returncode == 2
    assert p.stderr.strip() == "uno-sim: error: invalid --human 4: expected a seat 0..3"


@pytest.mark.parametrize("players, shown", [(2, "net"), (4, "net"), (3, "greedy")])
def test_human_faces_the_network_where_weights_ship(players, shown):
    """Without --policy the human plays the learned player (net) where its weights ship for
    the variant and player count (2 and 4 players), greedy elsewhere."""
    p = _play(["--human", "0", "--players", str(players), "--seed", "1"], "q\n")
    assert p.returncode == 0, p.stderr
    assert f"you are P0; the others play {shown}" in p.stdout.splitlines()[0]
