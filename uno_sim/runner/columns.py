"""The columns of one batch of games, and the tables made of them.

`play_columns` plays games with either engine and returns column arrays;
`games_frame` and `rounds_frame` make them the rows of games.parquet and
rounds.parquet (docs/results.md), whose layout SCHEMA_VERSION numbers.
"""

from __future__ import annotations

import numpy as np

from ..api import engine_module
from ..cards import deck_for
from ..results import SEAT_COUNTERS
from ..rules import Rules

BATCH = 20_000  # most games per call into C
PROGRESS_BATCH = 1_000  # games per call while a progress bar is drawn in this process
# Version of the layout of games.parquet, rounds.parquet and summary.json (docs/results.md):
# 2 made the seat columns Int8 in both tables and put nulls where a value does not apply.
SCHEMA_VERSION = 2


ROUND_COLUMNS = ("round", "dealer", "starter", "winner", "turns", "reshuffles", "points",
                 "cards_left")


def reference_games(rules, policies, seed: int, first_game: int, n_games: int) -> dict:
    """The columns of `engine.play_games(rounds=True)`, computed with the reference engine."""
    from ..reference import Game
    from ..rng import Rng, key_from_seed

    p = rules.players
    key = key_from_seed(seed)
    cols = {k: [] for k in ("game", "winner", "team", "rounds", "turns", "reshuffles",
                            "stalemates", "scores", "team_scores", *SEAT_COUNTERS)}
    rows = {k: [] for k in ("game", *ROUND_COLUMNS)}
    for g in range(first_game, first_game + n_games):
        game = Game(rules, policies, Rng(key, g))
        game.limit_name = f"game {g}"  # as the C engine's batch names it
        r = game.play_game(seed=seed, game=g)
        for row in game.round_rows:
            rows["game"].append(g)
            for k in ROUND_COLUMNS:
                rows[k].append(row[k])
        for k in ("winner", "team", "rounds", "turns", "reshuffles", "stalemates", "scores",
                  "team_scores"):
            cols[k].append(getattr(r, k))
        cols["game"].append(g)
        for k in SEAT_COUNTERS:
            cols[k].append(r.seats[k])
    out = {k: np.asarray(v, dtype=np.int64 if k == "game" else np.int32) for k, v in cols.items()}
    for k in ("scores", *SEAT_COUNTERS):
        out[k] = out[k].reshape(n_games, p)
    out["team_scores"] = out["team_scores"].reshape(n_games, 2)
    out["round_game"] = np.asarray(rows.pop("game"), dtype=np.int64)
    for k, v in rows.items():
        a = np.asarray(v, dtype=np.int32)
        if k in ("points", "cards_left"):
            a = a.reshape(-1, p)
        out["round_" if k == "round" else f"round_{k}"] = a
    return out


def play_columns(rules, specs, seed, first_game, n_games, engine="c", on_batch=None) -> dict:
    """Columns of games first_game.. of the run `seed`; `on_batch(k)` after each k games.

    With `on_batch` (a progress bar) the games are played in batches of
    PROGRESS_BATCH; each game has its own seed, so batching changes nothing else.
    """
    step = BATCH if on_batch is None else PROGRESS_BATCH
    if engine == "reference":
        parts = []
        for start in range(first_game, first_game + n_games, step):
            k = min(step, first_game + n_games - start)
            parts.append(reference_games(rules, specs, seed, start, k))
            if on_batch is not None:
                on_batch(k)
        if len(parts) == 1:
            return parts[0]
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    mod = engine_module(engine)
    parts = []
    for start in range(first_game, first_game + n_games, step):
        k = min(step, first_game + n_games - start)
        parts.append(mod.play_games(rules, specs, seed=seed, first_game=start, n_games=k,
                                    rounds=True))
        if on_batch is not None:
            on_batch(k)
    if len(parts) == 1:
        return parts[0]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


# A game's win in the units of win_units (csrc/uno.h UNO_AGG_WIN): lcm(1..10), so that a
# win shared by k seats is WIN_UNIT // k each, exact.
WIN_UNIT = 2520


def win_units(cols: dict) -> np.ndarray:
    """Per game and seat, the share of the win in 1 / WIN_UNIT of a game (int64): WIN_UNIT to
    the single winner and to every seat of the winning team, WIN_UNIT // k to each of the
    k lowest scores of a shared win (C20), 0 to the others."""
    n, p = cols["scores"].shape
    wins = np.zeros((n, p), dtype=np.int64)
    seats = np.arange(p)
    team = cols["team"].astype(np.int64)
    winner = cols["winner"].astype(np.int64)
    single = (winner >= 0) & (team < 0)
    wins[np.flatnonzero(single), winner[single]] = WIN_UNIT
    t = team >= 0
    wins[t] = WIN_UNIT * (seats[None, :] % 2 == team[t][:, None])
    shared = (winner < 0) & (team < 0)
    if shared.any():
        sc = cols["scores"][shared]
        low = sc == sc.min(axis=1, keepdims=True)
        wins[shared] = low * (WIN_UNIT // low.sum(axis=1, keepdims=True))
    return wins


def win_matrix(cols: dict) -> np.ndarray:
    """Per game and seat, the share of the win (1, 0, or 1/k for a k-way shared win)."""
    return win_units(cols) / WIN_UNIT


def _seat_or_null(name: str, v: np.ndarray):
    """A seat or team column as Int8, null where the engines write -1 (docs/results.md)."""
    import polars as pl

    return pl.Series(name, v.astype(np.int8)).set(pl.Series(v < 0), None)


def games_frame(cols: dict):
    """One row per game as a Polars DataFrame; per-seat columns are suffixed _0.._{p-1}.

    `winner` is null when no single seat won (a team win, or a win shared by the
    lowest scores); `team` and `team_scores_*` are null outside team play.
    """
    import polars as pl

    data = {k: v for k, v in cols.items() if v.ndim == 1 and not k.startswith("round_")}
    for k, v in cols.items():
        if v.ndim == 2 and not k.startswith("round_"):
            for s in range(v.shape[1]):
                data[f"{k}_{s}"] = v[:, s]
    no_team = cols["team"] < 0
    for k in list(data):
        if k in ("winner", "team"):
            data[k] = _seat_or_null(k, data[k])
        elif k.startswith("team_scores_"):
            data[k] = pl.Series(k, data[k]).set(pl.Series(no_team), None)
    return pl.DataFrame(data)


def rounds_frame(cols: dict, rules: Rules | None = None):
    """One row per round (engines that report rounds put them in `round_*` columns).

    Columns: game, round (from 1), dealer, starter (the starter card's code
    when `rules` is given, else its kind index), winner (null: stalemate),
    turns, reshuffles, and per seat points_i (scored this round, C17-C19)
    and cards_left_i (docs/results.md).
    """
    import polars as pl

    codes = None
    if rules is not None:
        codes = np.array([k.code for k in deck_for(rules).kinds])
    data = {}
    for k, v in cols.items():
        if not k.startswith("round_"):
            continue
        name = k[len("round_"):] or "round"
        if name == "starter" and codes is not None:
            data[name] = pl.Series(name, codes[v], dtype=pl.String)
        elif name in ("winner", "dealer"):  # seats: Int8 as in the games table
            data[name] = _seat_or_null(name, v)
        elif v.ndim == 1:
            data[name] = v
        else:
            for s in range(v.shape[1]):
                data[f"{name}_{s}"] = v[:, s]
    return pl.DataFrame(data) if data else None
