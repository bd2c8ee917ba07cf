"""The C engine against the reference engine: identical traces, event for event.

The sweep plays N_DIFF games in all (default 3,000): every player count 2..10,
both editions, the three scoring modes and team play, drawn_card may/must,
both challenge outcomes and dealer draws, and policy sets with every knob at
0, at intermediate values and at 1, uniform and mixed per seat, the strategic
policy and challenge=auto.  Most games
use low targets (the reference engine is slow); `test_full_games` plays some to the
default 500.  ``N_DIFF=100000 pytest tests/test_differential.py`` runs a bigger sweep.

Every case plays at least one game whatever N_DIFF; the switches a case's games rotate
through (drawn-card rule, challenge outcome, dealer draw, target, hand size: `game_rules`)
start at the case's own offset, so that the cases together meet every combination even
when each plays only a few games.  The default (3,000, with the house-rules and deck
sweeps at one game per case) keeps the test run's cost down: it was 10,000, a third of
the whole suite's CPU time, for a sweep the same cases cover at any size.  The default
test run plays a spread of each sweep's cases (`QUICK`: every policy set, player count,
edition and mode); the others are marked slow, and CI plays them (`-m slow`).

UNO Flip (docs/rules.md F1-F6) has its own, smaller sweep (`test_flip_sweep`,
about N_DIFF / 12 games): player counts 2..10, both editions, every scoring
mode, the pairing fixed by two deck seeds or re-paired every game, and the
same policy sets.

UNO Extreme (docs/rules.md E1-E7) has its own sweep too (`test_extreme_sweep`, about
N_DIFF / 5 games): player counts 2..10, both editions, every scoring mode, the
launcher's two laws with their parameters at the defaults, at extremes (fires
always, never before the silence bound, a bound of 0) and in between, the same
policy sets and one whose seats aim their Extreme Hits by every target rule.
Hello Kitty (H1-H3) and the hand-exchange deck (S1-S3) share a third sweep
(`test_decks_sweep`, about N_DIFF / 6 games): player counts 2..10, both
editions, every scoring mode, the same policy sets plus one with every target
rule, both exchange modes and every customizable rule.

The house rules C-H1..C-H5 have theirs (`test_house_rules_sweep`, about N_DIFF / 10
games): random combinations of the five switches on classic and Flip (and, fewer, on
the Hello Kitty, house-2018 and Extreme decks), player counts 2..10, both editions, every
scoring mode and teams, the policy sets above with the knobs `stack` and `jump_in` at
0, mid and 1 (drawn per seat in the mixed sets) and every target rule.
"""

from __future__ import annotations

import os
import random

import pytest

import uno_sim
from engine_diff import compare_game
from uno_sim.cards import deck_for
from uno_sim.policies import TARGET_RULES
from uno_sim.rules import Rules

N_DIFF = int(os.environ.get("N_DIFF", "3000"))
N_FULL = max(1, N_DIFF // 40)  # complete games to 500, within N_DIFF

# The default run plays every QUICK-th case of each sweep (and the full, bounds and scenario
# tests); the other cases are marked slow (CI runs them, `--slow` too): together the same
# games as before, about 570 of the 4,000 in the default run.  Each step is prime to the
# number of policy sets, so that the default cases meet every policy set, player count,
# edition and mode.
QUICK = {"classic": 10, "flip": 4, "extreme": 7, "decks": 7, "house": 4}


def params(cases, ids, every):
    """The cases as pytest params, all but every `every`-th one marked slow."""
    return [pytest.param(*c, id=i, marks=() if n % every == 0 else pytest.mark.slow)
            for n, (c, i) in enumerate(zip(cases, ids))]


KNOBS = ("bluff", "challenge", "forget_uno", "catch", "play_drawn", "voluntary_draw")


def spec(name: str, color: str | None = None, **knobs) -> str:
    items = [f"{k}={v}" for k, v in knobs.items()] + ([f"color={color}"] if color else [])
    return f"{name}({','.join(items)})" if items else name


ZERO = {k: 0 for k in KNOBS}
MID = {"bluff": 0.5, "challenge": 0.5, "forget_uno": 0.3, "catch": 0.5, "play_drawn": 0.5,
       "voluntary_draw": 0.3}
# Knobs at 1.  Every seat greedy(voluntary_draw=1), or forget_uno=1 with catch=1 at every
# opponent, never ends a round; seats alternate so that someone can always go out.
ONE_A = {"bluff": 1, "challenge": 1, "forget_uno": 1, "catch": 0, "play_drawn": 1,
         "voluntary_draw": 1}
ONE_B = {"bluff": 1, "challenge": 1, "forget_uno": 0, "catch": 1, "play_drawn": 1,
         "voluntary_draw": 0}


def policy_set(name: str, players: int, rng: random.Random):
    if name == "greedy":
        return "greedy"
    if name == "random":
        return "random"
    if name == "strategic":
        return "strategic"
    if name == "auto":  # strategic against the others, challenge=auto at several thresholds
        pool = ["strategic", "greedy(challenge=auto,color=smart)",
                "strategic(bluff=0.5,challenge_threshold=0.2,forget_uno=0.3)",
                "random(challenge=auto,challenge_threshold=0.7,target=most)"]
        return [pool[(s + players) % 4] for s in range(players)]
    if name == "zero":
        return [spec("greedy" if s % 2 else "random", "most" if s % 3 else "random", **ZERO)
                for s in range(players)]
    if name == "mid":
        return [spec("random" if s % 2 else "greedy", "random" if s % 3 else "most", **MID)
                for s in range(players)]
    if name == "one":
        return [spec("greedy" if s % 4 < 2 else "random", "most" if s % 2 else "random",
                     **(ONE_A if s % 2 == 0 else ONE_B)) for s in range(players)]
    if name == "conditioned":  # the state conditions (joined by and / or) and the posterior
        pool = [
            "greedy(bluff=1,bluff_next=1,challenge=1,challenge_offender=2)",
            "random(bluff=1,bluff_own=0,challenge=posterior,challenge_prior=1,"
            "challenge_threshold=0)",
            "strategic(bluff=0.5,bluff_next=255,bluff_own=3,challenge=posterior,"
            "challenge_prior=0,challenge_own=0)",
            "greedy(bluff=1,bluff_next=1,bluff_own=3,bluff_join=or,challenge=1,"
            "challenge_offender=1,challenge_own=2,challenge_join=or)",
            f"greedy(bluff=1,challenge=1,suspect={players - 1},challenge_own=255)",
            "greedy(bluff=0.9,bluff_next=0,challenge=posterior,challenge_prior=0.5,"
            "challenge_threshold=0.5,challenge_offender=0)",
            "greedy(bluff=1,bluff_cells=0xff00000000000a01,challenge=1,"
            "challenge_cells=0x8000000000ff0f03)",  # cells of (other, own) sizes
        ]
        return [pool[(s + players) % len(pool)] for s in range(players)]
    # mixed: each seat its own policy, knobs drawn from {0, 0.2, 0.5, 0.9, 1}
    out = []
    for s in range(players):
        knobs = {k: rng.choice([0, 0.2, 0.5, 0.9, 1]) for k in KNOBS if rng.random() < 0.6}
        if knobs.get("voluntary_draw") == 1:
            knobs["voluntary_draw"] = 0.9
        if knobs.get("forget_uno") == 1 and knobs.get("catch") == 1:
            knobs["catch"] = 0.5
        if rng.random() < 0.3:
            knobs["challenge"] = rng.choice(["auto", "posterior"])
            knobs["challenge_threshold"] = rng.choice([0, 0.3, 0.5, 0.9, 1])
            knobs["challenge_prior"] = rng.choice([0, 0.1, 0.5, 1])
        for k in ("bluff_next", "bluff_own", "challenge_offender", "challenge_own"):
            if rng.random() < 0.2:
                knobs[k] = rng.choice([0, 1, 2, 5, "any"])
        if rng.random() < 0.2:
            knobs["suspect"] = rng.randrange(players)
        out.append(spec(rng.choice(["random", "greedy", "strategic"]),
                        rng.choice([None, "most", "random", "smart"]), **knobs))
    return out


POLICY_SETS = ("greedy", "random", "strategic", "auto", "zero", "mid", "one", "conditioned",
               "mixed")
MODES = ("standard", "elimination", "lowest", "teams")


def cases():
    for players in range(2, 11):
        for edition in ("modern", "vintage"):
            for mode in MODES:
                if mode == "teams" and (players < 4 or players % 2):
                    continue
                for pol in POLICY_SETS:
                    yield players, edition, mode, pol


CASES = list(cases())
GAMES_PER_CASE = max(1, (N_DIFF - N_FULL) // len(CASES))


def game_rules(players: int, edition: str, mode: str, j: int, variant: str = "classic") -> Rules:
    """Game j of a case: rotates the switches the edition leaves open, targets and hand sizes."""
    kw = {"players": players, "edition": edition, "variant": variant}
    if variant == "flip":
        kw["flip_pairing"] = "game" if j % 3 == 1 else "deck"
        kw["deck_seed"] = j % 2
        kw["flip_starter"] = "flip" if j % 2 else "return"  # F2 switch
    if variant == "extreme":
        kw.update(LAUNCHERS[j % len(LAUNCHERS)])
    if mode == "teams":
        kw["teams"] = True
    else:
        kw["scoring"] = mode
    other = {"modern": "vintage", "vintage": "modern"}[edition]
    flip = Rules(edition=other)
    v = j % 4
    if v in (1, 3):
        kw["drawn_card"] = flip.drawn_card
    if v in (2, 3):
        kw["challenge"] = flip.challenge
    if v == 3:
        kw["dealer_draw"] = flip.dealer_draw
    targets = {"standard": (40, 100, 200), "teams": (40, 100, 200), "lowest": (30, 80, 150),
               "elimination": (20, 50, 90)}[mode]
    kw["target"] = targets[j % 3]
    if j % 5 == 4:
        kw["hand_size"] = 3
    elif j % 13 == 12:
        kw["hand_size"] = min(12, 107 // players)
    return Rules(**kw)


@pytest.mark.parametrize("players,edition,mode,pol",
                         params(CASES, [f"p{p}-{e}-{m}-{q}" for p, e, m, q in CASES],
                                QUICK["classic"]))
def test_sweep(players, edition, mode, pol):
    case = CASES.index((players, edition, mode, pol))
    rng = random.Random(case)
    for j in range(GAMES_PER_CASE):
        rules = game_rules(players, edition, mode, j + case)
        compare_game(rules, policy_set(pol, players, rng), seed=case, game=1000 * j + case)


def flip_cases():
    for players in (2, 3, 4, 5, 7, 10):
        for mode in MODES:
            if mode == "teams" and (players < 4 or players % 2):
                continue
            for pol in POLICY_SETS:
                yield players, ("modern", "vintage")[(players + len(pol)) % 2], mode, pol


FLIP_CASES = list(flip_cases())
FLIP_GAMES_PER_CASE = max(1, N_DIFF // 12 // len(FLIP_CASES))


@pytest.mark.parametrize("players,edition,mode,pol",
                         params(FLIP_CASES, [f"p{p}-{e}-{m}-{q}" for p, e, m, q in FLIP_CASES],
                                QUICK["flip"]))
def test_flip_sweep(players, edition, mode, pol):
    case = FLIP_CASES.index((players, edition, mode, pol))
    rng = random.Random(10_000 + case)
    for j in range(FLIP_GAMES_PER_CASE):
        rules = game_rules(players, edition, mode, j + case, variant="flip")
        compare_game(rules, policy_set(pol, players, rng), seed=500 + case,
                     game=1000 * j + case)


# E2: the launcher's laws, defaults first, then parameters at their extremes and between
LAUNCHERS = (
    {},
    {"launcher": "dist"},
    {"launcher_fire": 0, "launcher_max_silent": 2, "launcher_burst": "0,0,1,1"},
    {"launcher_fire": 1000, "launcher_burst": "1"},
    {"launcher_fire": 500, "launcher_max_silent": 0, "launcher_burst": "3,0,0,0,0,0,0,0,0,0,0,1"},
    {"launcher": "dist", "launcher_weights": "0,1"},
    {"launcher": "dist", "launcher_weights": "9,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1"},
    {"launcher_fire": 50, "launcher_max_silent": 12, "hit_target_presses": 1},
    {"launcher": "dist", "hit_target_presses": 2},
)
TARGETS = ("most", "fewest", "next", "random")


def extreme_cases():
    for players in range(2, 11):
        for mode in MODES:
            if mode == "teams" and (players < 4 or players % 2):
                continue
            for pol in POLICY_SETS + ("targets",):
                yield players, ("modern", "vintage")[(players + len(pol)) % 2], mode, pol


EXTREME_CASES = list(extreme_cases())
EXTREME_GAMES_PER_CASE = max(1, N_DIFF // 5 // len(EXTREME_CASES))


@pytest.mark.parametrize("players,edition,mode,pol",
                         params(EXTREME_CASES,
                                [f"p{p}-{e}-{m}-{q}" for p, e, m, q in EXTREME_CASES],
                                QUICK["extreme"]))
def test_extreme_sweep(players, edition, mode, pol):
    case = EXTREME_CASES.index((players, edition, mode, pol))
    rng = random.Random(20_000 + case)
    for j in range(EXTREME_GAMES_PER_CASE):
        rules = game_rules(players, edition, mode, j + case, variant="extreme")
        if pol == "targets":  # every target rule, knobs between 0 and 1
            pols = [spec(("greedy", "strategic", "random")[s % 3], **MID,
                         target=TARGETS[(s + j) % 4]) for s in range(players)]
        else:
            pols = policy_set(pol, players, rng)
        compare_game(rules, pols, seed=900 + case, game=1000 * j + case)


CUSTOM_SETS = ("draw_color,wilds_down,draw_three", "extra_turn,seven,three",
               "three,draw_color,extra_turn", "wilds_down,seven,draw_three", "seven",
               "draw_color,draw_color,wilds_down")


def decks_cases():
    for variant in ("hello-kitty", "house-2018"):
        for players in (2, 3, 4, 5, 6, 7, 10):
            for mode in MODES:
                if mode == "teams" and (players < 4 or players % 2):
                    continue
                for pol in POLICY_SETS + ("targets",):
                    edition = ("modern", "vintage")[(players + len(pol) + len(variant)) % 2]
                    yield variant, players, edition, mode, pol


DECKS_CASES = list(decks_cases())
DECKS_GAMES_PER_CASE = max(1, N_DIFF // 6 // len(DECKS_CASES))


def decks_policies(pol: str, players: int, rng: random.Random):
    if pol == "targets":  # S2 swap: every target rule, mixed policies and knobs
        return [spec(("greedy", "random", "strategic")[s % 3], target=TARGETS[s % 4],
                     **(MID if s % 2 else ZERO)) for s in range(players)]
    return policy_set(pol, players, rng)


@pytest.mark.parametrize("variant,players,edition,mode,pol",
                         params(DECKS_CASES,
                                [f"{v}-p{p}-{e}-{m}-{q}" for v, p, e, m, q in DECKS_CASES],
                                QUICK["decks"]))
def test_decks_sweep(variant, players, edition, mode, pol):
    case = DECKS_CASES.index((variant, players, edition, mode, pol))
    rng = random.Random(20_000 + case)
    for j in range(DECKS_GAMES_PER_CASE):
        rules = game_rules(players, edition, mode, j + case, variant=variant)
        if variant == "house-2018":
            rules = rules.replace(exchange=("swap", "shuffle")[(j + case) % 2],
                                  custom_wilds=CUSTOM_SETS[(j + case) % len(CUSTOM_SETS)])
        compare_game(rules, decks_policies(pol, players, rng), seed=900 + case,
                     game=1000 * j + case)


def house_cases():
    for players in range(2, 11):
        for variant in ("classic", "flip"):
            for pol in POLICY_SETS:
                yield players, variant, pol
    for players in (2, 5, 8):  # the same switches on the other decks that have the cards
        for variant in ("hello-kitty", "house-2018", "extreme"):
            for pol in ("greedy", "mid", "mixed"):
                yield players, variant, pol


HOUSE_CASES = list(house_cases())
HOUSE_GAMES_PER_CASE = max(1, N_DIFF // 10 // len(HOUSE_CASES))
HOUSE_KNOBS = {"zero": (0, 0), "mid": (0.5, 0.5), "one": (1, 1)}


def house_policies(pol: str, players: int, rng: random.Random) -> list:
    """A policy set with the house-rule knobs (stack, jump_in) and the target rule added:
    at 0, mid or 1 for the zero/mid/one sets, drawn per seat for the others."""
    base = policy_set(pol, players, rng)
    base = [base] * players if isinstance(base, str) else base
    out = []
    for s, sp in enumerate(base):
        stack, jump = HOUSE_KNOBS.get(pol) or (rng.choice([0, 0.3, 1]), rng.choice([0, 0.6, 1]))
        extra = [f"stack={stack}", f"jump_in={jump}"]
        if "target=" not in sp:
            extra.append(f"target={TARGET_RULES[(s + players) % 4]}")
        out.append(f"{sp[:-1]},{','.join(extra)})" if sp.endswith(")") else
                   f"{sp}({','.join(extra)})")
    return out


def house_switches(rng: random.Random) -> dict:
    """A random combination of the house rules C-H1..C-H5 (at least one on)."""
    while True:
        sw = {"stacking": rng.choice(["none", "draw2", "draw4", "both"]),
              "draw_until_playable": rng.random() < 0.5, "forced_play": rng.random() < 0.5,
              "jump_in": rng.random() < 0.5, "seven_o": rng.random() < 0.5}
        if sw["stacking"] != "none" or any(v is True for v in sw.values()):
            return sw


@pytest.mark.parametrize("players,variant,pol",
                         params(HOUSE_CASES, [f"p{p}-{v}-{q}" for p, v, q in HOUSE_CASES],
                                QUICK["house"]))
def test_house_rules_sweep(players, variant, pol):
    """C-H1..C-H5: random combinations of the switches on classic and Flip, every player
    count, both editions, every scoring mode, policies with the new knobs at 0/mid/1."""
    case = HOUSE_CASES.index((players, variant, pol))
    rng = random.Random(30_000 + case)
    for j in range(HOUSE_GAMES_PER_CASE):
        modes = [m for m in MODES if m != "teams" or (players >= 4 and players % 2 == 0)]
        mode = modes[(case + j) % len(modes)]
        edition = ("modern", "vintage")[(case + j) % 2]
        switches = house_switches(rng)
        if variant == "extreme":  # no stackable card, no draw pile (C-H1, C-H2 refused)
            switches.update(stacking="none", draw_until_playable=False)
        rules = game_rules(players, edition, mode, j + case, variant=variant).replace(**switches)
        compare_game(rules, house_policies(pol, players, rng), seed=1900 + case,
                     game=1000 * j + case)


FULL = [
    (Rules(players=4), "greedy"),
    (Rules(players=2), "greedy"),
    (Rules(players=4), "random"),
    (Rules(players=3, edition="vintage"), "greedy"),
    (Rules(players=6, teams=True), ["greedy", "random"] * 3),
    (Rules(players=5, scoring="lowest"), spec("random", **MID)),
    (Rules(players=4, scoring="elimination", target=300), "greedy"),
    (Rules(players=10), spec("greedy", "random", **MID)),
    (Rules(players=4), ["strategic", "greedy", "strategic", "random"]),
    (Rules(players=2, edition="vintage"), ["strategic", "greedy(challenge=auto)"]),
    (Rules(variant="flip", players=4), "greedy"),
    (Rules(variant="flip", players=3, flip_pairing="game"), spec("random", **MID)),
    (Rules(variant="flip", players=4, flip_pairing="game"),
     ["strategic", "greedy(color=smart)", "strategic(challenge=auto)", "random"]),
    (Rules(variant="flip", players=2, edition="vintage"),
     ["strategic", "strategic(challenge=auto,challenge_threshold=0.3)"]),
    (Rules(variant="extreme", players=4), "greedy"),
    (Rules(variant="extreme", players=3, launcher="dist"), spec("random", **MID)),
    (Rules(variant="extreme", players=2, edition="vintage"), ["strategic", "greedy"]),
    (Rules(variant="hello-kitty", players=4), "greedy"),
    (Rules(variant="hello-kitty", players=3, edition="vintage"),
     ["strategic", "greedy", "random(forget_uno=0.3)"]),
    (Rules(variant="house-2018", players=4), ["strategic", "greedy(target=most)"] * 2),
    (Rules(variant="house-2018", players=5, exchange="shuffle",
           custom_wilds="draw_color,wilds_down,three"), "strategic"),
    (Rules(players=4, stacking="both", jump_in=True, seven_o=True), "greedy"),
    (Rules(variant="flip", players=3, stacking="both", draw_until_playable=True,
           forced_play=True, jump_in=True, seven_o=True), ["strategic", "greedy", "random"]),
]


@pytest.mark.parametrize("i", range(len(FULL)),
                         ids=[f"{r.variant}-{r.players}p-{r.edition}-{r.scoring}"
                              f"{'-teams' if r.teams else ''}"
                              for r, _ in FULL])
def test_full_games(i):
    rules, policies = FULL[i]
    for g in range(max(1, N_FULL // len(FULL))):
        compare_game(rules, policies, seed=77 + i, game=g)


def test_default_arguments():
    from uno_sim import engine, reference
    for g in range(5):
        assert engine.play_game(game=g, trace=True) == reference.play_game(game=g, trace=True)
        assert engine.play_game(seed=g) == reference.play_game(seed=g)


@pytest.mark.parametrize("variant", ["classic", "flip", "house-2018"])
@pytest.mark.parametrize("mode", ["standard", "teams", "elimination", "lowest"])
def test_bounds_sweep(variant, mode):
    """docs/rules.md "Bounds": every card at VALUE_MAX, wd4_value at VALUE_MAX and the target
    at TARGET_MAX; the scores come near 2**31 and both engines still agree."""
    from uno_sim.rules import TARGET_MAX, VALUE_MAX

    codes = {k.code for k in deck_for(Rules(variant=variant)).kinds}
    # every colored card by its face (*X), every wild by its code; Flip's dark faces too
    keys = {("*" + c[1:]) if c[0] in "RYGBPTOV" and len(c) > 1 else c for c in codes}
    rules = Rules(variant=variant, players=4, teams=mode == "teams", target=TARGET_MAX,
                  wd4_value=VALUE_MAX, scoring="standard" if mode == "teams" else mode,
                  hand_size=15, deck={"value": {k: VALUE_MAX for k in sorted(keys)}})
    # one game per case: it ends at the target, so its scores reach the bound (three games
    # cost three times as much and reached the same bound)
    assert compare_game(rules, "greedy", seed=17, game=0)  # to the end, not a limit
    res = uno_sim.play_game(rules, seed=17, game=0)
    assert max(*res.scores, *res.team_scores) >= TARGET_MAX


def test_scenario_scores_at_the_bound_agree():
    from uno_sim.rules import TARGET_MAX

    rules = Rules(players=3, target=TARGET_MAX)
    start = [TARGET_MAX - 1, TARGET_MAX, 0]
    a, b = (uno_sim.play_round(rules, scores=start, seed=3, engine=e) for e in ("c", "reference"))
    assert a.events == b.events and a.scores == b.scores
    for bad in ([TARGET_MAX + 1, 0, 0], [-1, 0, 0], [1.5, 0, 0], [0, 0]):
        for e in ("c", "reference"):
            with pytest.raises(uno_sim.RulesError, match="invalid score"):
                uno_sim.play_round(rules, scores=bad, engine=e)
