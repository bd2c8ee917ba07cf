"""The aggregate record (csrc/aggregate.c, engine.play_aggregate): the run summary computed
from games added up in C as they are played equals, number for number, the summary computed
from the same games' columns (the oracle), over variants, teams, elimination, shared wins,
house rules, policies and search seats; records merge by addition."""

import numpy as np
import pytest

from uno_sim import _engine, engine
from uno_sim.policies import seat_policies
from uno_sim.rules import Rules
from uno_sim.runner import simulate
from uno_sim.runner.aggregate import (RunResult, aggregate, merge_aggregates, play_aggregates,
                                      record_aggregate)
from uno_sim.runner.columns import WIN_UNIT, win_matrix, win_units
from uno_sim.runner.storage import make_manifest

FAST_PIMC = "pimc(samples=2,rollouts=1,value=round)"
FAST_ISMCTS = "ismcts(iterations=6,value=round)"

# (variant, players, policies, switches, games)
GRID = [
    ("classic", 4, "greedy", {}, 600),
    ("classic", 2, "random", {}, 60),
    ("classic", 10, "strategic(color=smart)", {}, 150),
    ("classic", 4, "greedy(bluff=0.3,challenge=0.4,forget_uno=0.2,catch=0.7)", {}, 400),
    ("classic", 4, ["greedy", "strategic", "random", "greedy(bluff=0.5)"], {}, 200),
    ("classic", 3, "greedy(voluntary_draw=0.1)", {"drawn_card": "must"}, 300),
    ("classic", 4, "greedy", {"stacking": "both", "jump_in": True, "seven_o": True}, 300),
    ("classic", 4, "greedy", {"teams": True}, 400),
    ("classic", 6, "greedy", {"teams": True, "target": 200}, 300),
    ("classic", 4, "greedy", {"scoring": "elimination", "target": 150}, 300),
    ("classic", 4, "greedy", {"scoring": "lowest", "target": 50}, 1500),
    ("classic", 6, "strategic", {"scoring": "lowest", "target": 100}, 800),
    ("flip", 4, "greedy", {}, 300),
    ("flip", 3, "strategic", {"flip_pairing": "game"}, 200),
    ("extreme", 4, "greedy", {}, 300),
    ("hello-kitty", 4, "greedy", {}, 300),
    ("house-2018", 4, "strategic", {}, 300),
    ("classic", 3, [FAST_PIMC, "greedy", "greedy"], {"target": 100}, 20),
    ("classic", 2, [FAST_ISMCTS, "strategic"], {"target": 100}, 15),
]
IDS = [f"{v}-{p}-{pol if isinstance(pol, str) else 'mixed'}-{sw}" for v, p, pol, sw, _ in GRID]


def _rules(variant, players, switches):
    return Rules(variant=variant, players=players, **switches)


@pytest.mark.parametrize("variant,players,policies,switches,games", GRID, ids=IDS)
def test_record_equals_columns(variant, players, policies, switches, games):
    """record_aggregate(play_aggregate) is aggregate(play_games(rounds=True)), key for key, and
    the summary (dict, text, frames) made of it is the same, number for number."""
    rules = _rules(variant, players, switches)
    specs = seat_policies(policies, players)
    cols = engine.play_games(rules, specs, seed=9, first_game=1000, n_games=games, rounds=True)
    want = aggregate(cols)
    rec = engine.play_aggregate(rules, specs, seed=9, first_game=1000, n_games=games)
    got = record_aggregate(rec, players, engine.has_search(rules, specs))
    assert got == want
    assert ("search" in got) == ("search_stats" in cols)
    manifest = make_manifest(rules, specs, 9, games, games, True, "c")
    a, b = RunResult(manifest, want), RunResult(manifest, got)
    assert a.summary() == b.summary()
    assert a.summary_text() == b.summary_text()
    assert a.seats().equals(b.seats()) and a.search_stats().equals(b.search_stats())


def test_shared_wins_are_exact_units():
    """A win shared by k of the lowest scores (C20) counts WIN_UNIT // k to each, exactly;
    win_matrix is those units over WIN_UNIT."""
    rules = Rules(players=6, scoring="lowest", target=100)
    cols = engine.play_games(rules, "strategic", seed=9, n_games=800, rounds=True)
    units = win_units(cols)
    shared = (cols["winner"] < 0) & (cols["team"] < 0)
    assert shared.sum() > 10  # the grid's shared wins are there to be tested
    assert (units.sum(axis=1) == WIN_UNIT).all()
    k = (units[shared] > 0).sum(axis=1)
    assert (units[shared].max(axis=1) == WIN_UNIT // k).all() and (k >= 2).all()
    np.testing.assert_array_equal(win_matrix(cols), units / WIN_UNIT)
    assert WIN_UNIT == engine.AGG_WIN


def test_records_merge_by_addition():
    """A record of games [a, c) is the word-by-word sum of those of [a, b) and [b, c), in
    either order; and merge_aggregates of their dicts is the dict of the whole."""
    rules, specs = Rules(players=5, scoring="lowest", target=80), "greedy(bluff=0.2)"
    whole = engine.play_aggregate(rules, specs, seed=4, first_game=50, n_games=700)
    a = engine.play_aggregate(rules, specs, seed=4, first_game=50, n_games=333)
    b = engine.play_aggregate(rules, specs, seed=4, first_game=383, n_games=367)
    np.testing.assert_array_equal(whole, a + b)
    added = engine.play_aggregate(rules, specs, seed=4, first_game=383, n_games=367, record=a.copy())
    np.testing.assert_array_equal(whole, added)
    parts = [record_aggregate(x, 5, False) for x in (b, a)]
    merged = merge_aggregates([parts[1], parts[0]])
    assert merged == record_aggregate(whole, 5, False)


def test_layout_covers_the_record():
    """AGG_LAYOUT names every word of the record once, the histograms cover the engine's
    limits, and turns_hist comes last (a copy may stop after its last nonzero bin)."""
    words = np.zeros(engine.AGG_WORDS, np.int64)
    for at, shape in engine.AGG_LAYOUT.values():
        words[at:at + int(np.prod(shape, dtype=np.int64))] += 1
    assert (words == 1).all()
    assert engine.AGG_LAYOUT["rounds_hist"][1] == (engine.MAX_ROUNDS + 1,)
    at, shape = engine.AGG_LAYOUT["turns_hist"]
    assert shape == (engine.MAX_TURNS + 1,) and at + shape[0] == engine.AGG_WORDS


def test_play_aggregates_batches_and_progress():
    """Batched calls with a progress callback give the record of one call."""
    rules, specs = Rules(players=3), seat_policies("greedy", 3)
    seen = []
    got = play_aggregates(rules, specs, 2, 10, 2_345, on_batch=seen.append)
    assert sum(seen) == 2_345 and len(seen) == 3
    cols = engine.play_games(rules, specs, seed=2, first_game=10, n_games=2_345, rounds=True)
    assert got == aggregate(cols)


def test_failed_game_raises_as_play_games():
    """A game past a safety limit raises the engine's own error naming it (the record is
    partial then, never returned)."""
    rules = Rules(players=2, drawn_card="must")
    specs = "greedy(voluntary_draw=1)"
    with pytest.raises(engine.GameLimitError) as want:
        engine.play_games(rules, specs, seed=1, n_games=50)
    with pytest.raises(engine.GameLimitError) as got:
        engine.play_aggregate(rules, specs, seed=1, n_games=50)
    assert str(got.value) == str(want.value)


def test_bad_record_is_refused():
    eng = engine._setup(Rules(), "greedy")[2]
    with pytest.raises(ValueError, match="contiguous int64"):
        eng.play_aggregate((1, 2, 3, 4), 0, 1, np.zeros(10, np.int64))
    assert _engine.AGG_WORDS == engine.AGG_WORDS


@pytest.mark.parametrize("jobs", [1, 2])
def test_summary_only_run_equals_the_columns_run(tmp_path, jobs):
    """A summary-only run (aggregates in C) and a run that keeps its games (aggregates of
    the columns) have the same summary and shard records."""
    kw = dict(games=2_100, seed=6, shard_size=500, players=4, progress=False,
              rules=Rules(players=4, scoring="lowest", target=60))
    cols = simulate(**kw)
    lean = simulate(summary_only=True, n_jobs=jobs, out=str(tmp_path / "lean"), **kw)
    full = simulate(out=str(tmp_path / "full"), **kw)
    strip = {"wall_seconds", "games_per_second"}
    want = {k: v for k, v in cols.summary().items() if k not in strip}
    for res in (lean, full):
        assert {k: v for k, v in res.summary().items() if k not in strip} == want
    import json
    for i in range(5):
        a = json.loads((tmp_path / "lean" / "shards" / f"shard-{i:06d}.json").read_text())
        b = json.loads((tmp_path / "full" / "shards" / f"shard-{i:06d}.json").read_text())
        assert a["aggregates"] == b["aggregates"]
