"""The decision recorder: training labels from seeded games, written in C.

`record` plays games `first_game` .. `first_game + games - 1` of the run `seed` with any
policies (search players included) and returns one row per decision of the chosen seats
with more than one legal answer (csrc/record.c; no Python runs per decision):

=============  ===================  =====================================================
column         shape, dtype          content
=============  ===================  =====================================================
obs            (n, obs_size) f4     the seat's observation at the decision (the vector
                                    environment's: docs/env.md, its scaling, `seats` slots)
mask           (n, n_actions) i1    its legal actions
decision       (n,) i1              the decision (uno.h enum uno_decision: 0 play ... 10
                                    discard)
action         (n,) i2              the answer given, as an action id
value          (n, n_actions) f4    a search seat: each legal action's mean rollout value
                                    (its answers of one action id pooled); NaN elsewhere
count          (n, n_actions) i4    the rollouts behind each value (0: not searched)
game           (n,) i8              the game number
round, turn    (n,) i4              the round (1-based) and the game's turns so far
seat           (n,) i1              who decided
won            (n,) i1              1 when the seat (its team) won the game, else 0
round_won      (n,) i1              1 won the decision's round, 0 lost it, -1 nobody won
truth          (n,) i1              what the seat could not see: at a challenge, 1 when
                                    the card was a bluff (its player held the previous
                                    color, C12), 0 when legal; -1 at other decisions
=============  ===================  =====================================================

The games' results come too, one entry per game played: ``game_turns``,
``game_rounds``, ``game_winner`` (-1: a shared or team win) and ``game_scores``
(games x players); a game past the engine's safety limits has turns -1 and keeps no row
(``games_failed`` counts them).

Rows are in game order, and within a game in decision order.  Game g is seeded as the
runner seeds it (`(seed, g)` alone), and the games are cut into chunks of consecutive
games played by `n_jobs` processes: the same seed gives the same rows at any number of
workers.  Recording changes no game: a recorded game is the game `uno_sim.engine.play_game` plays.
"""

from __future__ import annotations

import os

import numpy as np

from ..rules import Rules, RulesError

__all__ = ["record", "COLUMNS", "ARRAYS", "RESULTS"]

COLUMNS = ("game", "round", "turn", "seat", "decision", "action", "won", "round_won",
           "truth")
ARRAYS = ("obs", "mask", "value", "count")
RESULTS = ("game_turns", "game_rounds", "game_winner", "game_scores")
OBS_SEATS = 10  # seat slots of the observation (the vector environment's)


def _chunk(rules, policies, seed, first, n, seats, obs_seats, play=None) -> dict:
    from .. import _engine
    from ..engine import _setup
    from ..rng import key_from_seed

    _, _, eng = _setup(rules, policies)
    behave = _setup(rules, play)[2] if play is not None else None
    mask = sum(1 << s for s in seats)
    return _engine.record_games(eng, key_from_seed(seed), first, n, mask, obs_seats, behave)


def _concat(parts: list) -> dict:
    out = {k: np.concatenate([p[k] for p in parts]) for k in ARRAYS + COLUMNS + RESULTS}
    out["games_failed"] = int(sum(p["games_failed"] for p in parts))
    return out


def playable(spec, name: str = "play"):
    """`spec` (a spec string or PolicySpec) parsed, or RulesError (naming the option `name`)
    where the recorder's `play` cannot play it: a search player's answer is the row's,
    never the one played."""
    from .specs import SEARCH_NAMES, parse_policy

    parsed = parse_policy(spec)
    if parsed.name in SEARCH_NAMES:
        raise RulesError(f"invalid {name} {str(parsed)!r}: a search player labels, it is not "
                         f"played ({name} takes built-in and network players)")
    return parsed


def record(rules: Rules | None = None, policies="greedy", seats=None, games: int = 100,
           seed: int = 0, n_jobs: int = 1, *, first_game: int = 0,
           obs_seats: int = OBS_SEATS, chunk: int = 64, out: str | None = None,
           play=None) -> dict:
    """The decision rows of games `first_game` .. `first_game + games - 1` of run `seed`
    (module docstring).  `policies`: one spec for every seat or one per seat (a spec
    string: built-in, search or network players; no Python user policy); `seats`: the
    seats whose decisions are rows (default: every seat); `obs_seats`: the observation's
    seat slots (at least the players; 10, the vector environment's, by default);
    `n_jobs`: worker processes (-1: every core), each playing chunks of `chunk` games.
    With `out`, the rows are also written to that .npz file (numpy.savez, the columns by
    name).  With `play` (one spec for every seat or one per seat, as `policies`), the
    recorded seats play `play`'s answers while the rows keep their own policy's answer and
    values (DAgger: a search labels the states the played policy reaches); the games are
    those `play` plays at the recorded seats.  Returns a dict of numpy arrays (and
    `games_failed`)."""
    from .specs import seat_policies

    rules = rules or Rules()
    if not isinstance(rules, Rules):
        raise RulesError(f"invalid rules {rules!r}: expected a Rules object")
    specs = seat_policies(policies, rules.players)
    plays = [playable(s) for s in seat_policies(play, rules.players)] if play is not None \
        else []
    for name, group in (("policies", specs), ("play", plays)):
        if any(s.name == "user" for s in group):
            raise RulesError(f"invalid {name}: the recorder plays spec strings, not Python "
                             f"user policies")
    seats = list(range(rules.players)) if seats is None else list(seats)
    if not seats or any(isinstance(s, bool) or not isinstance(s, (int, np.integer))
                        or not 0 <= s < rules.players for s in seats):
        raise RulesError(f"invalid seats {seats!r}: expected seats 0..{rules.players - 1}")
    for name, v, low in (("games", games, 0), ("first_game", first_game, 0),
                         ("chunk", chunk, 1), ("obs_seats", obs_seats, rules.players)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise RulesError(f"invalid {name} {v!r}: expected an integer >= {low}")
    if obs_seats > OBS_SEATS:
        raise RulesError(f"invalid obs_seats {obs_seats}: at most {OBS_SEATS}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or not (n_jobs >= 1 or n_jobs == -1):
        raise RulesError(f"invalid n_jobs {n_jobs!r}: expected a positive integer or -1")
    if out is not None and os.path.isdir(out):
        raise RulesError(f"invalid out {out!r}: a directory")
    pols = [str(s) for s in specs]
    behave = [str(s) for s in plays] if play is not None else None
    from .net import for_spec

    for s in specs + plays:  # the weights found and checked here, before any worker starts
        for_spec(s, rules)
    starts = list(range(first_game, first_game + games, chunk)) or [first_game]
    args = [(rules, pols, seed, a, min(chunk, first_game + games - a), seats, obs_seats,
             behave) for a in starts]
    jobs = (os.cpu_count() or 1) if n_jobs == -1 else n_jobs
    if jobs == 1 or len(args) == 1:
        parts = [_chunk(*a) for a in args]
    else:
        from joblib import Parallel, delayed

        parts = Parallel(n_jobs=jobs)(delayed(_chunk)(*a) for a in args)
    rows = _concat(parts)
    if out is not None:
        from ..files import writing

        with writing(out):
            np.savez(out, **{k: rows[k] for k in ARRAYS + COLUMNS + RESULTS})
    return rows
