"""The C engine's shortcuts for untraced games, which a trace turns off.

- The copy of the turn for greedy rounds (csrc/round.c lean_round).
- The turn's own plays of numbers, Skips, Reverses and colored draw cards (csrc/round.c
  play and play_action, uno_table.card_fast, uno_game.fast_max), in every kind of game.

The differential test compares traced games, so it never sees them; here untraced C
games of the configurations they serve are compared, result for result (scores, rounds,
turns, every per-seat counter), with the reference engine, together with a configuration
just outside each.
"""

import pytest

from uno_sim import engine, reference
from uno_sim.rules import Rules

N_GAMES = 6  # to 500 points each: the lean copy and the fast plays serve every turn of them

# (rules, policies): every seat greedy without the bluff and voluntary_draw knobs, no
# house rule, a deck of at most 128 cards and a draw pile: the lean copy
LEAN = [
    (Rules(players=2), "greedy"),
    (Rules(players=3, edition="vintage"), "greedy"),
    (Rules(players=4), "greedy(color=smart,forget_uno=0.5,catch=0.9)"),
    (Rules(players=5, drawn_card="must"), "greedy(play_drawn=0.5)"),
    (Rules(players=6, teams=True, target=200), "greedy(challenge=0.5)"),
    (Rules(players=7, scoring="elimination", target=120), "greedy(color=random)"),
    (Rules(players=10, scoring="lowest", target=150), "greedy"),
    (Rules(variant="hello-kitty", players=4), "greedy"),
    (Rules(variant="house-2018", players=4), "greedy(challenge=auto)"),
    (Rules(variant="flip", players=3), "greedy(color=smart)"),
    (Rules(variant="flip", players=5, flip_pairing="game", flip_starter="flip"), "greedy"),
]
# the same kind of games where the general copy plays: a knob, a house rule, a mixed table
GENERAL = [
    (Rules(players=4), "greedy(voluntary_draw=0.1)"),
    (Rules(players=4), "greedy(bluff=0.2)"),
    (Rules(players=4, seven_o=True), "greedy"),
    (Rules(players=4), ["greedy", "greedy", "greedy", "strategic"]),
    (Rules(variant="extreme", players=4), "greedy"),
]
# the turn's own plays (fast_max) under other policies, house rules and the launcher: draw
# cards go through the dispatcher with stacking (C-H1) and with the launcher (E2),
# nothing does with Seven-O (C-H5)
FAST = [
    (Rules(players=2), "random"),
    (Rules(players=2), "strategic"),
    (Rules(players=4), "random"),
    (Rules(players=5), "strategic(bluff=0.3,challenge=auto)"),
    (Rules(players=3, stacking="both"), "greedy"),
    (Rules(players=4, stacking="draw2"), "random"),
    (Rules(players=4, jump_in=True), "greedy"),
    (Rules(players=4, draw_until_playable=True, forced_play=True), "strategic"),
    (Rules(players=2, seven_o=True), "random"),
    (Rules(players=6, scoring="elimination", target=100), "random"),
    (Rules(variant="flip", players=2), "random"),
    (Rules(variant="flip", players=4, stacking="draw2"), "strategic"),
    (Rules(variant="house-2018", players=3), "random"),
    (Rules(variant="extreme", players=2), "random"),
    (Rules(variant="extreme", players=3), "strategic(bluff=0.2)"),
    (Rules(variant="extreme", players=5, hit_target_presses=2), "greedy"),
]


def _ids(cases):
    return [f"{r.variant}-{r.players}p-{p if isinstance(p, str) else 'mixed'}" for r, p in cases]


@pytest.mark.parametrize("rules,policies", LEAN + GENERAL + FAST, ids=_ids(LEAN + GENERAL + FAST))
def test_untraced_games_equal_the_reference_engine(rules, policies):
    for g in range(N_GAMES):
        c = engine.play_game(rules, policies, seed=41, game=g)
        r = reference.play_game(rules, policies, seed=41, game=g)
        assert c == r, f"game {g}"


@pytest.mark.parametrize("rules,policies", LEAN[:3], ids=_ids(LEAN[:3]))
def test_batch_columns_equal_single_games(rules, policies):
    cols = engine.play_games(rules, policies, seed=42, n_games=30)
    for g in range(30):
        r = reference.play_game(rules, policies, seed=42, game=g)
        assert (cols["rounds"][g], cols["turns"][g]) == (r.rounds, r.turns)
        assert cols["scores"][g].tolist() == r.scores
