"""Running many games: shards, workers, Parquet output, resume, array jobs.

Determinism.  Game g of a run with seed S is always seeded from (key(S), g)
(see `uno_sim.rng`), so a game's outcome depends on nothing but (rules,
policies, S, g).  The run is cut into fixed-size shards of consecutive games;
any number of workers, a Dask cluster or an array of separate jobs computes
the same shards, and merging them in shard order gives bit-identical tables.

Failure.  A worker writes each finished shard atomically (temporary name, then
rename), the shard's summary JSON last: a shard counts as done exactly when its
summary exists.  A run killed at any moment keeps every finished shard, and
`resume()` computes only the missing ones.

Integrity.  Every shard record carries the SHA-256 of its own content and the
sizes and SHA-256 of its row files; `check_run` (behind `verify`, `merge`,
`resume` and `finalize`) checks them all, every name in the folder and
summary.json.  `resume()` computes damaged shards again; nothing reads,
removes or overwrites a file the run did not write.

Layout of an output directory::

    DIR/manifest.json                 what the run is (rules, policies, seed, plan)
    DIR/shards/shard-000007.json      aggregates of shard 7 (its completion marker)
    DIR/shards/shard-000007.games.parquet / .rounds.parquet   (until merged)
    DIR/games.parquet/part-000007.parquet, DIR/rounds.parquet/part-000007.parquet,
    DIR/summary.json                  (when complete)

`games.parquet` and `rounds.parquet` are Parquet datasets: directories of one
part per shard, in game order by part name.  Polars (`pl.read_parquet`,
`pl.scan_parquet`), pandas and pyarrow read such a directory as one table.
Merging is a rename per shard, so it costs nothing however large the run.

Rooms: ``columns`` plays a batch of games into column arrays and tables;
``aggregate`` folds them into exact summaries (`RunResult`); ``storage`` is
the output directory (manifest, shard markers, atomic writes, lock, final
tables); ``execute`` runs the shards (pools, Dask, Ray) behind `simulate`,
`resume` and `merge`.
"""

from .aggregate import RunResult, aggregate, merge_aggregates
from .columns import (BATCH, PROGRESS_BATCH, ROUND_COLUMNS, SCHEMA_VERSION, games_frame,
                      play_columns, reference_games, rounds_frame, win_matrix)
from .errors import RunError
from .execute import dask_client, merge, resume, run_shard, simulate, verify
from .storage import (DEFAULT_SHARD, MANIFEST_FORMAT, MAX_SHARDS, Check, DiskError, Plan,
                      check_run, finalize, is_complete, load, lock_out, make_manifest,
                      manifest_id, part_path, prepare_out, shard_done)

# The public API (the other names above are the rooms' own, importable for tests and tools)
__all__ = ["simulate", "resume", "merge", "verify", "load", "is_complete", "RunResult",
           "RunError", "play_columns", "games_frame", "rounds_frame", "win_matrix", "SCHEMA_VERSION",
           "DEFAULT_SHARD"]
