"""Counterfactual values of a decision: each decision point played on both ways.

A *decision point* of a seat is a moment where it could bluff (kind
``"bluff"``: its turn, holding a restricted card, C7, while it also holds
the active color, so playing that card would be a bluff) or could challenge
(kind ``"challenge"``: a restricted card was just played on it, C12).  For
every decision point of one seat, the game is played again from its seed
twice: once with the point answered 1 (bluff / challenge) and once 0 (play
the policy's honest card, or draw / accept).  Everything before the point
is the same game (same seed, same decisions); everything after draws the
same random numbers, because every decision has its own stream
(docs/engine.md, "Decision streams") and the deal of each round depends on
the seed and the round only: the two alternatives are a paired comparison
with common random numbers.  Every other decision point, before and after,
is answered by the policy as usual.

The value of the decision at a point is the difference, alternative 1
minus alternative 0, of three outcomes for the seat: winning the round of
the decision, the points it scored in that round, and its share of the
game's win.  `decision_values` returns one row per point with both
outcomes; `uno_sim.analysis` (``uno_sim.analysis.counterfactual``) turns them into
values by state with paired intervals.

Bluffing with a restricted card is different from spending it early:
the honest alternative keeps the card for later, so the value measured
here is that of bluffing now against playing honestly now, in this state.
"""

from __future__ import annotations

import os

import numpy as np
import polars as pl

from .engine import GameLimitError, _setup
from .players.specs import seat_policies
from .results import FORCE_POINTS
from .rng import MASK64, key_from_seed
from .rules import Rules, RulesError

KINDS = {"bluff": 0, "challenge": 1}
POINTS_PER_GAME = FORCE_POINTS  # uno.h UNO_CF_MAX: decision points described per game

COLUMNS = {
    "game": pl.Int64, "point": pl.Int32, "round": pl.Int32, "turn": pl.Int32,
    "players": pl.Int32, "variant": pl.Utf8, "own_size": pl.Int32, "other_size": pl.Int32,
    "could_bluff_p": pl.Float64, "truth": pl.Int8, "natural": pl.Int8,
    "round_win_0": pl.Int8, "round_win_1": pl.Int8, "points_0": pl.Int32,
    "points_1": pl.Int32, "game_win_0": pl.Float64, "game_win_1": pl.Float64,
}


def win_share(winners, seat: int, teams: bool) -> float:
    """A seat's share of a game's win from its winners (GameResult.winners): 1, 0, or
    1/k of a win shared by k; in team play every seat of the winning team has 1."""
    if seat not in winners:
        return 0.0
    return 1.0 if teams else 1.0 / len(winners)


def _later(rows: dict, after: int) -> list:
    """The game after round `after` from its round rows, flattened: every seat's score at
    the end of that round, then per later round its dealer and what each seat scored."""
    pts = np.asarray(rows["points"], dtype=np.int64).reshape(len(rows["round"]), -1)
    done = np.asarray(rows["round"]) <= after
    out = [int(x) for x in pts[done].sum(axis=0)]
    for r, d, p in zip(rows["round"], rows["dealer"], pts):
        if r > after:
            out.append(int(d))
            out.extend(int(x) for x in p)
    return out


def _chunk(rules: Rules, policies, seat: int, kind: int, seed: int, games,
           every: int = 1, rounds: bool = False, replay_natural: bool = False) -> dict:
    """The rows of games `games` (one worker's share).

    The alternative that agrees with the policy's own answer at a point plays the game as
    it was played (the engine forces the answer the policy gave, drawing the same numbers:
    tests/test_strong.py), so its outcome is read from the game itself and only the other
    alternative is replayed (`replay_natural`: replay both, for the tests)."""
    rules, specs, eng = _setup(rules, policies)
    key = key_from_seed(seed)
    rows = {c: [] for c in COLUMNS}
    if rounds:
        rows["later_0"], rows["later_1"] = [], []
    for game in games:
        g = int(game) & MASK64
        try:
            res_n, seen, rr_n = eng.play_forced_rounds(key, g, seat, kind)
        except GameLimitError:  # an endless game (docs/engine.md): no decision to value
            continue
        win_n = win_share(res_n["winners"], seat, rules.teams)
        for i, pt in enumerate(seen["points"]):
            if (i + int(game)) % every:  # one point in `every`, a different one per game
                continue
            out, later = [], []
            try:
                for value in (0, 1):
                    if value == pt["natural"] and not replay_natural:
                        at = list(rr_n["round"]).index(pt["round"])
                        out.append((int(rr_n["winner"][at] == seat),
                                    int(rr_n["points"][at][seat]), win_n))
                        later.append(_later(rr_n, pt["round"]) if rounds else None)
                        continue
                    res, f, rr = eng.play_forced_rounds(key, g, seat, kind, i, value)
                    if f["hit_round"] != pt["round"]:
                        raise AssertionError(f"game {game}: point {i} met in round "
                                             f"{f['hit_round']}, not {pt['round']}")
                    out.append((f["round_won"], f["round_points"],
                                win_share(res["winners"], seat, rules.teams)))
                    later.append(_later(rr, pt["round"]) if rounds else None)
            except GameLimitError:  # one alternative never ends: the point has no value
                continue
            if rounds:
                rows["later_0"].append(later[0])
                rows["later_1"].append(later[1])
            rows["game"].append(int(game))
            rows["point"].append(i)
            rows["round"].append(pt["round"])
            rows["turn"].append(pt["turn"])
            rows["players"].append(rules.players)
            rows["variant"].append(rules.variant)
            rows["own_size"].append(pt["own"])
            rows["other_size"].append(pt["other"])
            rows["could_bluff_p"].append(pt["q"] if kind == 1 else None)
            rows["truth"].append(pt["truth"] if kind == 1 else None)
            rows["natural"].append(pt["natural"])
            for a in (0, 1):
                rows[f"round_win_{a}"].append(out[a][0])
                rows[f"points_{a}"].append(out[a][1])
                rows[f"game_win_{a}"].append(out[a][2])
    return rows


def decision_values(kind: str, *, variant: str = "classic", players: int = 2, policies="greedy",
                    seat: int = 0, games: int = 1000, seed: int = 0, rules=None,
                    first_game: int = 0, n_jobs: int = 1, every: int = 1,
                    rounds: bool = False) -> pl.DataFrame:
    """One row per decision point of `seat` in games first_game .. first_game + games - 1.

    `kind`: ``"bluff"`` or ``"challenge"``.  `rules` (a Rules) overrides
    `variant` and `players`.  Columns (COLUMNS): where the point is (game,
    point: its index among the seat's points of that game, round, turn),
    the state (own_size: cards the seat holds; other_size: the next player's
    cards for a bluff, the offender's after playing for a challenge;
    could_bluff_p: for a challenge, the seat's estimate that the offender held
    the previous color, as ``challenge=auto`` computes it; truth: 1 when that
    card was a bluff), natural (the policy's own answer) and, for each
    alternative a (0 honest / accept, 1 bluff / challenge), round_win_a,
    points_a (in the round of the decision) and game_win_a (share of the game's
    win).  The first 64 points of a game are described (POINTS_PER_GAME).  A game, or
    an alternative, that never ends (the engine's safety limit, docs/engine.md) has no
    value: its points are left out.

    `every`: replay only one decision point in `every` (point i of game g when
    (i + g) % every == 0: a systematic sample, offset per game), for policies whose
    decisions are expensive (the search players); the others are still answered by the
    policy, they are only not replayed both ways.

    The seat must play a built-in policy or a search player (pimc, ismcts: the search
    answers first, then the point is forced; search.c forced_search).  Results do not
    depend on `n_jobs`.

    `rounds`: also the columns later_0 and later_1, per alternative the game after the
    point's round, flattened (every seat's score at the end of that round, then per later
    round its dealer and each seat's points): what the control variates of
    `uno_sim.analysis.luck` read.
    """
    if kind not in KINDS:
        raise RulesError(f"invalid kind {kind!r}: expected bluff or challenge")
    if rules is None:
        rules = Rules(variant=variant, players=players)
    if not isinstance(rules, Rules):
        raise RulesError(f"invalid rules {rules!r}: expected a Rules object")
    specs = seat_policies(policies, rules.players)
    if not isinstance(seat, int) or not 0 <= seat < rules.players:
        raise RulesError(f"invalid seat {seat!r}: expected 0..{rules.players - 1}")
    if specs[seat].name == "user":
        raise RulesError(f"invalid seat {seat}: counterfactuals need a built-in policy there")
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 0:
        raise RulesError(f"invalid games {games!r}: expected an integer >= 0")
    policies = [str(s) for s in specs]
    if isinstance(every, bool) or not isinstance(every, (int, np.integer)) or every < 1:
        raise RulesError(f"invalid every {every!r}: expected an integer >= 1")
    ids = np.arange(first_game, first_game + games, dtype=np.int64)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or not (n_jobs >= 1 or n_jobs == -1):
        raise RulesError(f"invalid n_jobs {n_jobs!r}: expected a positive integer or -1")
    jobs = os.cpu_count() or 1 if n_jobs == -1 else n_jobs
    schema = {**COLUMNS, **({"later_0": pl.List(pl.Int32), "later_1": pl.List(pl.Int32)}
                            if rounds else {})}
    if jobs == 1 or games < 2:
        parts = [_chunk(rules, policies, seat, KINDS[kind], seed, ids, int(every), rounds)]
    else:  # the runner's pool: an interrupt ends its workers with it
        from contextlib import closing

        from .runner.execute import local_map

        chunks = [c for c in np.array_split(ids, max(1, min(games, 4 * jobs))) if len(c)]
        parts = [None] * len(chunks)
        tasks = [(rules, policies, seat, KINDS[kind], seed, c, int(every), rounds)
                 for c in chunks]
        with closing(local_map(_chunk, tasks, jobs)) as done:
            for i, part in done:
                parts[i] = part
    frames = [pl.DataFrame(p, schema=schema) for p in parts]
    return pl.concat(frames) if frames else pl.DataFrame(schema=schema)
