"""The compiled engine behind the same calls as the reference engine.

``play_game`` and ``play_round`` return `uno_sim.results.GameResult` objects equal,
field by field and event by event, to those of `uno_sim.reference` for the
same arguments; ``play_games`` plays a whole range of games in one call into
C (GIL released) and returns column arrays.

The rules, deck table and policies are turned into their C form once per
distinct configuration and cached.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from . import _engine
from .cards import deck_for
from .players.specs import KNOBS, NET_KNOBS, SEARCH_KNOBS, check_knobs, seat_policies
from .results import SEAT_COUNTERS, GameLimitError, GameResult
from .scenario import scenario_deck
from .rng import MASK64, key_from_seed
from .players.user import UserSeat
from .variants import DRAW_SOURCES
from .rules import SWITCHES, Rules, RulesError

__all__ = ["play_game", "play_round", "play_games", "play_aggregate", "GameLimitError",
           "MAX_TURNS", "SEAT_COUNTERS"]


MAX_TURNS = _engine.MAX_TURNS  # default safety limit on the turns of one round
MAX_ROUNDS = _engine.MAX_ROUNDS  # ... on the rounds of one game
MAX_GAME_TURNS = _engine.MAX_GAME_TURNS  # ... on the turns of one game (checked between rounds)
# The aggregate record (csrc/uno.h uno_agg): its int64 words, its fields as
# {name: (first word, shape)}, and a game's win in the units of its `wins`.
AGG_WORDS = _engine.AGG_WORDS
AGG_LAYOUT = _engine.AGG_LAYOUT
AGG_WIN = _engine.AGG_WIN


# uno_config's fields, filled by name (Engine._fill_config): every field once.
CONFIG_FIELDS = ("draw_source", "players", "edition", "dealer_draw", "drawn_card", "challenge",
                 "wd4_value", "scoring", "target", "teams", "hand_size", "repair", "exchange",
                 "launcher", "launcher_fire", "launcher_max_silent", "launcher_burst",
                 "launcher_weights", "hit_target_presses", "stacking", "draw_until_playable",
                 "forced_play", "jump_in", "seven_o", "flip_starter")


def _config(rules: Rules) -> tuple:
    """uno_config as (field, value) pairs: each switch with a uno_config field in its
    encoding (rules.SWITCHES: a choice as its index, a bool as 0/1, the launcher's weight
    tables (E2) as tuples of ints), and the variant's draw source (a trait, never its name)."""
    d = {s.c_field: s.encode(getattr(rules, s.name)) for s in SWITCHES if s.c_field}
    d["draw_source"] = DRAW_SOURCES.index(rules.variant_spec.draw_source)
    return tuple((f, d[f]) for f in CONFIG_FIELDS)


# uno_policy's fields, filled by name (Engine._fill_policy); USER_POLICY gives a user seat's.
POLICY_FIELDS = ("id", "color", "bluff", "challenge", "forget_uno", "catch",
                 "play_drawn", "voluntary_draw", "challenge_auto", "challenge_threshold",
                 "target", "stack", "jump_in", "bluff_next", "bluff_own",
                 "challenge_offender", "challenge_own", "suspect", "challenge_posterior",
                 "challenge_prior", "bluff_join", "challenge_join", "bluff_cells",
                 "challenge_cells", "samples", "rollouts", "iterations", "c", "depth", "rollout",
                 "others", "leaf", "mix", "infer", "voids", "colors", "bluffs", "resample",
                 "value", "cheat", "anchor", "z", "rollout_challenge",
                 "explore")
# every field but id filled by one knob (policies.KNOBS, SEARCH_KNOBS, NET_KNOBS)
check_knobs(KNOBS + SEARCH_KNOBS + NET_KNOBS, POLICY_FIELDS)


def _policy(spec) -> tuple:
    """uno_policy as (field, value) pairs, every field of POLICY_FIELDS once: the
    knobs' own (policies.Knob.c_fields) and the policy id."""
    if spec.name == "user":
        d = dict.fromkeys(POLICY_FIELDS, 0)
        d.update(id=spec.policy_id, challenge_threshold=0.5, suspect=-1)
        return tuple(d.items())
    d = {"id": spec.policy_id, **spec.c_fields()}
    return tuple((f, d[f]) for f in POLICY_FIELDS)


def _nets(rules: Rules, specs) -> tuple:
    """Per seat, the network weights it reads (players.net.for_spec: loaded once per
    process), or None."""
    from .players import net

    return tuple(net.for_spec(s, rules) for s in specs)


def _make_engine(rules: Rules, policies: tuple, deck, users=None, nets=None) -> "_engine.Engine":
    codes = [[deck.code(c, side) for c in range(deck.size)] for side in range(deck.sides)]
    blocks = [n.block if n is not None else None for n in nets] if nets else None
    return _engine.Engine(_config(rules), deck.arrays(), list(policies), codes, users, blocks)


@lru_cache(maxsize=64)
def _engine_for(rules: Rules, policies: tuple, nets: tuple) -> "_engine.Engine":
    return _make_engine(rules, policies, deck_for(rules), None, nets)


def _setup(rules, policies, deck=None):
    """(rules, specs, engine); `deck`: a DeckTable other than the rules' (scenario pairings)."""
    rules = rules or Rules()
    specs = seat_policies(policies, rules.players)
    pols = tuple(_policy(s) for s in specs)
    nets = _nets(rules, specs)
    if not any(s.name == "user" for s in specs):
        if deck is not None and deck != deck_for(rules):
            return rules, specs, _make_engine(rules, pols, deck, None, nets)
        return rules, specs, _engine_for(rules, pols, nets)
    # user seats: a fresh engine whose callback reaches these very objects
    deck = deck if deck is not None else deck_for(rules)
    users = [UserSeat(s, i, deck) if s.name == "user" else None for i, s in enumerate(specs)]
    return rules, specs, _make_engine(rules, pols, deck, users, nets)


def _game_start(rules, specs, seed, game) -> dict:
    return {"e": "game_start", "seed": seed, "game": game, "variant": rules.variant,
            "rules": rules.to_dict(), "players": rules.players,
            "policies": [str(s) for s in specs]}


def _result(r: dict, events) -> GameResult:
    return GameResult(
        winner=r["winner"], winners=r["winners"], team=r["team"], scores=r["scores"],
        team_scores=r["team_scores"], rounds=r["rounds"], turns=r["turns"],
        reshuffles=r["reshuffles"], stalemates=r["stalemates"],
        seats=dict(zip(SEAT_COUNTERS, r["counters"])), events=events,
    )


def _limited(call, start: dict):
    try:
        return call()
    except GameLimitError as e:
        if e.events is not None:
            e.events.insert(0, start)
        raise


def play_game(rules: Rules | None = None, policies="greedy", seed: int = 0, game: int = 0,
              trace: bool = False, *, max_turns: int = 0, max_rounds: int = 0) -> GameResult:
    """Play one complete game (same result as `reference.play_game`).

    ``max_turns`` (0: `MAX_TURNS`) is a safety limit on the turns of one
    round: some policies never let a round end (the reference engine then
    loops forever); past the limit `GameLimitError` is raised, with the trace
    so far in its ``events`` when `trace` is on.  ``max_rounds`` (0:
    `MAX_ROUNDS`) likewise limits the rounds of the game: some policies
    stalemate every round (e.g. two seats that nearly always draw instead of
    playing hoard every card), and a stalemate scores nothing.
    """
    rules, specs, eng = _setup(rules, policies)
    key = key_from_seed(seed)
    r, events = _limited(
        lambda: eng.play_game(key, int(game) & MASK64, bool(trace), max_turns, max_rounds),
        _game_start(rules, specs, seed, game))
    res = _result(r, None)
    if trace:
        res.events = [_game_start(rules, specs, seed, game)] + events
        res.events.append({"e": "game_end", "winner": res.winner, "winners": res.winners,
                           "team": res.team, "scores": res.scores,
                           "team_scores": res.team_scores, "rounds": res.rounds})
    return res


def play_round(rules: Rules | None = None, policies="greedy", deck=None, dealer: int = 0,
               seed: int = 0, game: int = 0, scores=None, *, max_turns: int = 0) -> GameResult:
    """Scenario API: one round from a chosen deck order (codes, top card first).

    Same arguments, validation and result as `reference.play_round`; the trace
    is always kept.  `scores` sets the scores before the round.
    """
    rules = rules or Rules()
    table, order = scenario_deck(rules, deck)
    rules, specs, eng = _setup(rules, policies, table)
    if order is not None:
        if len(order) != table.size:
            raise RulesError(
                f"invalid deck: {len(order)} cards given, the {table.name} deck has {table.size}"
            )
    if not 0 <= dealer < rules.players:
        raise RulesError(f"invalid dealer {dealer}: expected 0..{rules.players - 1}")
    if scores is not None:
        scores = [int(s) for s in scores]
    key = key_from_seed(seed)
    start = _game_start(rules, specs, seed, game)
    r, events = _limited(
        lambda: eng.play_round(key, int(game) & MASK64, order, dealer, scores, max_turns), start)
    return _result(r, [start] + events)


def play_games(rules: Rules | None = None, policies="greedy", seed: int = 0, first_game: int = 0,
               n_games: int = 1, rounds: bool = False) -> dict:
    """Play games first_game .. first_game + n_games - 1 of the run `seed` in one C call.

    Returns columns: ``game`` (int64), ``winner`` and ``team`` (int8, -1 when
    none), ``rounds``, ``turns``, ``reshuffles``, ``stalemates`` (int32),
    ``scores`` (n_games x players), ``team_scores`` (n_games x 2) and one
    (n_games x players) int32 array per name of `SEAT_COUNTERS`.  Row i equals
    the result of ``play_game(rules, policies, seed, first_game + i)``.

    With ``rounds=True`` the columns also hold one row per round, in play
    order, under ``round_*`` names: ``round_game``, ``round_`` (the round
    number, from 1), ``round_dealer``, ``round_starter`` (the starter's kind
    index in the deck table), ``round_winner`` (-1 for a stalemate),
    ``round_turns``, ``round_reshuffles``, and per seat (n_rounds x players)
    ``round_points`` (what each seat scored: C17-C19) and ``round_cards_left``.
    """
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 0:
        raise ValueError(f"invalid n_games {n_games!r}: expected an integer >= 0")
    if first_game < 0 or first_game + n_games > MASK64 + 1:
        raise ValueError(f"invalid first_game {first_game!r}: games must lie in 0..2**64-1")
    rules, specs, eng = _setup(rules, policies)
    cols, counters = eng.play_games(key_from_seed(seed), int(first_game), int(n_games),
                                    rounds=bool(rounds))
    cols.update(zip(SEAT_COUNTERS, counters))
    return cols


def play_aggregate(rules: Rules | None = None, policies="greedy", seed: int = 0,
                   first_game: int = 0, n_games: int = 1, record=None) -> np.ndarray:
    """Games first_game .. first_game + n_games - 1 of the run `seed`, added up in one C call
    into an aggregate record (csrc/uno.h uno_agg: AGG_WORDS int64 words laid out as
    AGG_LAYOUT) with no per-game columns: `record` (added to), or a new one.  Records
    merge by addition; `runner.aggregate.record_aggregate` turns one into the run
    summary's aggregates, equal to those `runner.aggregate.aggregate` computes from
    `play_games(..., rounds=True)`."""
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 0:
        raise ValueError(f"invalid n_games {n_games!r}: expected an integer >= 0")
    if first_game < 0 or first_game + n_games > MASK64 + 1:
        raise ValueError(f"invalid first_game {first_game!r}: games must lie in 0..2**64-1")
    rules, specs, eng = _setup(rules, policies)
    if record is None:
        record = np.zeros(AGG_WORDS, dtype=np.int64)
    eng.play_aggregate(key_from_seed(seed), int(first_game), int(n_games), record)
    return record


def has_search(rules: Rules | None = None, policies="greedy") -> bool:
    """Whether a seat is a search player (its counters are then in the records and columns)."""
    return _setup(rules, policies)[2].has_search()

