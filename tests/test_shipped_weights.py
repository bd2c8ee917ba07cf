"""The shipped weights (uno_sim/players/weights/, docs/training.md "The shipped weights").

What is checked, for each of the four shipped files: it is read and checked by the format's
own reader (magic, sizes, finite weights, its FNV-1a checksum), it fits its variant and
player count and its metadata says so with the command and seed that made it; `net` with
no arguments plays a complete seeded game of that configuration; and the C player and the
numpy twin (netfile.forward + decide, the normative loop) take the same answers on a few
hundred seeded decisions, so that the games are the same."""

from __future__ import annotations

import dataclasses
import shlex

import pytest

from uno_sim.cli import build_parser
from uno_sim.engine import play_game
from uno_sim.players import net as netmod
from uno_sim.players import netfile
from uno_sim.players.model import input_columns
from uno_sim.players.train import RECIPES, Recipe
from uno_sim.players.traincli import recipe_from
from uno_sim.rules import Rules

SHIPPED = [("classic", 2), ("classic", 4), ("flip", 2), ("flip", 4)]


@pytest.mark.parametrize("variant,players", SHIPPED)
def test_the_shipped_file_is_checked_and_fits(variant, players):
    rules = Rules(variant=variant, players=players)
    path = netmod.shipped_path(rules)
    assert path.name == f"{variant}-{players}p.unonet" and path.is_file()
    net = netfile.read(path)  # checksum, sizes, finite weights: NetFileError otherwise
    assert net.checksum == netfile.fnv1a64(path.read_bytes()[:-8])
    kinds, _, flip, extreme = netmod.game_layout(rules)
    assert (net.n_kinds, net.seats, bool(net.flip), bool(net.extreme)) == \
        (kinds, players, flip, extreme)
    meta = net.metadata
    assert (meta["variant"], meta["players"]) == (variant, players)
    # its command, read by the CLI, asks for the recipe the file was trained with, and that
    # recipe is the named one (`uno-sim train --recipe NAME --seed S` makes the same file)
    recipe = Recipe.from_dict(meta["recipe"])
    assert recipe.to_dict() == meta["recipe"]  # its JSON as written: run ids stay the same
    words = shlex.split(meta["command"])
    assert words[:2] == ["uno-sim", "train"] and f"--seed {meta['seed']}" in meta["command"]
    assert recipe_from(build_parser().parse_args(words[1:])) == recipe
    assert dataclasses.replace(RECIPES[f"{variant}-{players}p"], seed=recipe.seed) == recipe
    netmod.for_rules("", rules)  # the lookup `net` does: no error


@pytest.mark.parametrize("variant,players", SHIPPED)
def test_net_without_arguments_plays_a_seeded_game(variant, players):
    rules = Rules(variant=variant, players=players)
    specs = ["net"] + ["greedy"] * (players - 1)
    a = play_game(rules, specs, seed=11)
    b = play_game(rules, specs, seed=11)
    assert a.winners and a.rounds >= 1 and max(a.scores) >= rules.target
    assert (a.winners, a.scores, a.turns) == (b.winners, b.scores, b.turns)


@pytest.mark.parametrize("variant,players", SHIPPED)
def test_the_c_player_and_the_numpy_twin_agree(variant, players):
    """Seat 0 played by `net` in the engine and by the normative numpy loop driving the
    environment's learning seat: the same answer at every decision, so the same game."""
    from uno_sim.vecenv import SEATS, UnoSingleEnv

    rules = Rules(variant=variant, players=players)
    net = netfile.read(netmod.shipped_path(rules))
    others = ["greedy"] * (players - 1)
    decisions, seed = 0, 0
    while decisions < 300:
        res = play_game(rules, ["net"] + others, seed=seed)
        env = UnoSingleEnv(rules=rules, opponents=others, seat=0)
        cols = input_columns(env.observation_layout, SEATS, players)
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            logits, _ = netfile.forward(net, obs["observation"][cols])
            a = netfile.decide(logits, obs["action_mask"][:net.n_actions])
            obs, _, term, trunc, _ = env.step(a)
            done = term or trunc
            decisions += 1
        winners, scores, rounds = env._c.core.last_result(0)
        env.close()
        assert (winners, scores, rounds) == (res.winners, res.scores, res.rounds), seed
        seed += 1


@pytest.mark.parametrize("variant,players", SHIPPED)
def test_no_decision_kind_collapses_to_one_answer(variant, players):
    """The decisions whose best answer depends on the state (which card, which color,
    whether to challenge a Wild Draw Four (C12) or to play the card just drawn) each get
    more than one answer from the shipped network over 40 seeded games against a table
    that bluffs half the time it can: a kind fitted to one answer shows one."""
    import numpy as np

    from uno_sim.players.record import record

    rules = Rules(variant=variant, players=players)
    rows = record(rules, ["net"] + ["greedy(bluff=0.5)"] * (players - 1), seats=[0],
                  games=40, seed=77, obs_seats=players)
    for kind in (0, 2, 3, 6):  # play, color, challenge, play the drawn card (uno.h)
        answers = rows["action"][rows["decision"] == kind]
        assert len(answers) >= 10, kind
        assert len(np.unique(answers)) >= 2, kind
