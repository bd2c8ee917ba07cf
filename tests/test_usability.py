"""What users hit first: config precedence, resume rate, notebooks, progress, help, completion."""

import json
import os
import subprocess
import sys

import pytest

from uno_sim.cli import build_parser, main
from uno_sim.runner import resume, simulate


def run_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "uno_sim.cli", *args], capture_output=True,
                          text=True, env=env)


SMALL = dict(players=3, rule=["target=100"])


def test_config_loses_to_a_flag_given_with_its_default_value(tmp_path, capsys):
    cfg = tmp_path / "x.toml"
    cfg.write_text('players = 3\ngames = 20\nseed = 5\npolicy = "random"\n[rule]\ntarget = 100\n')
    # --players 4 and --seed 0 equal the flags' defaults, yet were given: they win
    assert main(["run", "--config", str(cfg), "--players", "4", "--seed", "0"]) == 0
    text = capsys.readouterr().out
    assert "variant classic, 4 players, standard scoring to 100" in text
    assert "seed 0: 20 games" in text and "policies: random, random, random, random" in text
    # what the command line leaves out comes from the file
    assert main(["run", "--config", str(cfg), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rules"]["players"] == 3 and doc["seed"] == 5


def test_explicit_dests_names_the_options_given_and_no_default():
    from uno_sim.cli import explicit_dests

    parser = build_parser()
    # given with its default value, appended twice, a switch, a positional: all given
    assert explicit_dests(parser, ["run", "--seed", "0", "--rule", "a=b", "--rule", "c=d",
                                   "--summary-only"]) == {"seed", "rule", "summary_only"}
    assert explicit_dests(parser, ["study", "bluff", "--games", "5"]) == {"name", "games"}
    assert explicit_dests(parser, ["run"]) == set()  # no default leaks in, func neither


def test_config_example_in_the_docs_runs(tmp_path, capsys):
    with open(os.path.join(os.path.dirname(__file__), "..", "docs", "cli.md"),
              encoding="utf-8") as f:
        text = f.read()
    example = text.split("```toml\n", 1)[1].split("```", 1)[0]
    cfg = tmp_path / "experiment.toml"
    cfg.write_text(example)
    out = tmp_path / "run"
    assert main(["run", "--config", str(cfg), "--games", "30", "--out", str(out),
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["games"] == 30 and doc["out"] == str(out)


def test_resume_rate_counts_only_the_games_played_now(tmp_path, capsys):
    out = str(tmp_path / "r")
    kw = dict(players=3, target=100, seed=3, shard_size=100)
    assert simulate(games=400, out=out, shard=(0, 2), **kw) is None  # 200 of 400 games
    res = resume(out)
    s = res.summary()
    assert s["games"] == 400 and s["games_played"] == 200 and s["games_already_done"] == 200
    assert s["games_per_second"] == pytest.approx(200 / s["wall_seconds"])
    assert json.load(open(os.path.join(out, "summary.json")))["games_played"] == 200
    assert "(200 games played now, 200 already done)" in res.summary_text()
    # a run played in one go reports its own games over its own time
    whole = simulate(games=300, **kw).summary()
    assert whole["games_per_second"] == pytest.approx(300 / whole["wall_seconds"])
    assert "games_played" not in whole


def test_a_study_leaves_the_matplotlib_backend_alone(tmp_path):
    pytest.importorskip("matplotlib")
    code = """
import matplotlib
matplotlib.use("svg")
import matplotlib.pyplot as plt
fig = plt.figure()
from uno_sim.analysis import run_study
res = run_study("bluff", "classic", 3, 20, seed=1, out=None)
png = res.figures[0] if res.figures else None
print(matplotlib.get_backend(), plt.gcf() is fig, len(plt.get_fignums()))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=os.path.join(os.path.dirname(__file__), ".."))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["svg", "True", "1"]


def test_api_study_temp_folder_is_removed_with_its_result():
    pytest.importorskip("matplotlib")
    import gc

    from uno_sim.analysis import run_study

    res = run_study("bluff", "classic", 3, 20, seed=1)
    folder = res.tmp.name
    assert any(f.endswith(".png") for f in os.listdir(folder))
    del res
    gc.collect()
    assert not os.path.exists(folder)


def test_progress_is_silent_in_pipes_and_per_batch_when_forced():
    quiet = run_cli("run", "--games", "300", "--players", "3", "--rule", "target=100")
    assert quiet.returncode == 0 and quiet.stderr == ""
    # forced on; tqdm redraws at every update (its own TQDM_* settings)
    env = dict(os.environ, UNO_SIM_PROGRESS="1", TQDM_MININTERVAL="0", TQDM_MINITERS="1")
    r = run_cli("run", "--games", "3000", "--players", "3", "--rule", "target=100", env=env)
    assert r.returncode == 0
    assert "games/s" not in r.stdout.split("wall time")[0]  # the bar is not on stdout
    # per batch of 1,000 games within one 10,000-game shard, with rate and time left
    for done in ("1.00k/3.00k", "2.00k/3.00k", "3.00k/3.00k"):
        assert done in r.stderr, r.stderr
    assert "games/s" in r.stderr and "<" in r.stderr  # rate, elapsed<left


def test_progress_moves_per_batch_with_several_workers_too():
    env = dict(os.environ, UNO_SIM_PROGRESS="1", TQDM_MININTERVAL="0", TQDM_MINITERS="1",
               UNO_SIM_POOL="fork")
    r = run_cli("run", "--games", "1500", "--players", "2", "--rule", "target=100", "--jobs", "2",
                "--engine", "reference", env=env)
    assert r.returncode == 0, r.stderr
    assert "1.00k/1.50k" in r.stderr and "1.50k/1.50k" in r.stderr, r.stderr


def test_progress_batches_give_the_same_games():
    a = simulate(games=2500, seed=2, progress=False, players=3, target=100)
    b = simulate(games=2500, seed=2, progress=True, players=3, target=100)
    assert a.games.equals(b.games)


def test_every_command_help_shows_examples():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name, p in sub.choices.items():
        text = p.format_help()
        assert "examples:\n  uno-sim " + name in text or f"uno-sim {name}" in text.split(
            "examples:")[1], name


def test_rules_lists_every_switch_with_values_and_defaults():
    from uno_sim.rules import RULE_KEYS

    r = run_cli("rules", "--format", "json")
    rows = json.loads(r.stdout)
    assert [x["switch"] for x in rows] == list(RULE_KEYS)
    by = {x["switch"]: x for x in rows}
    assert by["stacking"]["values"] == "none | draw2 | draw4 | both"
    assert by["stacking"]["rule"] == "C-H1"
    assert by["players"]["values"] == "2..10" and by["players"]["default"]["flip"] == 4
    assert by["flip_starter"]["default"] == {v: "return" for v in by["variant"]["default"]}
    text = run_cli("rules", "--variant", "flip").stdout
    assert "flip_starter  [F2]" in text and "values: return | flip" in text
    bad = run_cli("rules", "--variant", "nosuch")
    assert bad.returncode == 2 and "'nosuch'" in bad.stderr


def test_switch_values_agree_with_the_rules_validation():
    from uno_sim.rules import SWITCH_CHOICES, SWITCH_RANGES, Rules, RulesError

    base = dict(variant="flip")  # flip_starter=flip needs UNO Flip
    for name, allowed in SWITCH_CHOICES.items():
        for value in allowed:
            kw = {**base, name: value} if name != "variant" else {name: value}
            if name == "stacking" and value != "none":
                kw["variant"] = "classic"
            if name in ("exchange", "custom_wilds"):  # the house-2018 deck's cards (S2, S3)
                kw["variant"] = "house-2018"
            Rules(**kw)
        with pytest.raises(RulesError):
            Rules(**{name: "bogus"})
    for name, (lo, hi) in SWITCH_RANGES.items():
        if name == "players":
            Rules(players=lo), Rules(players=hi)
        else:
            Rules(**{name: lo})
            if hi is not None and name != "deck_seed":
                Rules(**{name: hi})
            if hi is not None:
                with pytest.raises(RulesError):
                    Rules(**{name: hi + 1})
        with pytest.raises(RulesError):
            Rules(**{name: lo - 1})


@pytest.mark.parametrize("args,needle", [
    (["run", "--players", "2,4", "--games", "3"], "one player count"),
    (["run", "--players", "x", "--games", "3"], "'x'"),
    (["tournament", "--players", "2-11"], "players 11"),
    (["bench", "--players", "1"], "players 1"),
])
def test_players_forms_and_errors(args, needle):
    r = run_cli(*args)
    assert r.returncode == 2 and needle in r.stderr and len(r.stderr.splitlines()) == 1


def test_variant_is_accepted_by_every_command_that_plays():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        if name in ("merge", "verify", "policies", "completion"):
            continue
        assert any("--variant" in a.option_strings for a in p._actions), name
    r = run_cli("tournament", "--variant", "flip", "--deals", "10", "--players", "2",
                "--policy", "greedy", "--policy", "random")
    assert r.returncode == 0 and "A wins" in r.stdout
    bad = run_cli("tournament", "--variant", "nosuch", "--deals", "10")
    assert bad.returncode == 2 and "'nosuch'" in bad.stderr


def test_players_range_and_variant_alias(capsys):
    assert main(["run", "--players", "3-3", "--games", "5", "--rule", "target=100",
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["rules"]["players"] == 3
    parser = build_parser()
    a = parser.parse_args(["report", "--variants", "flip"])
    b = parser.parse_args(["report", "--variant", "flip"])
    assert a.variants == b.variants == "flip"


def test_run_format_json_is_the_summary_on_stdout(tmp_path):
    out = tmp_path / "j"
    r = run_cli("run", "--games", "50", "--players", "3", "--rule", "target=100",
                "--out", str(out), "--format", "json")
    assert r.returncode == 0 and r.stderr == ""
    doc = json.loads(r.stdout)
    with open(out / "summary.json", encoding="utf-8") as f:
        saved = json.load(f)
    assert doc["summary"]["win_share"] == saved["win_share"]
    assert doc["summary"]["games"] == 50 and doc["out"] == str(out)


def _doc_columns():
    import re

    with open(os.path.join(os.path.dirname(__file__), "..", "docs", "results.md"),
              encoding="utf-8") as f:
        text = f.read()
    tables, cur = {}, None
    for line in text.splitlines():
        if line.startswith("## `"):
            cur = line.split("`")[1].split(".")[0]
            tables[cur] = {}
        m = re.match(r"^\| (`[^|]+`) \| (\w+) \|", line)
        if m and cur in ("games", "rounds"):
            for name in re.findall(r"`([^`]+)`", m.group(1)):
                tables[cur][name] = m.group(2)
    return tables


def _documented_dtype(doc: dict, column: str) -> str:
    import re

    if column in doc:
        return doc[column]
    return doc.get(re.sub(r"_\d+$", "_i", column))


@pytest.mark.parametrize("kw", [dict(players=4, teams=True), dict(players=3, scoring="lowest"),
                                dict(variant="flip", players=5)])
def test_every_column_is_documented_with_its_dtype_and_shared_columns_agree(kw, tmp_path):
    import polars as pl

    doc = _doc_columns()
    res = simulate(games=120, target=100, seed=4, out=str(tmp_path / "r"), **kw)
    frames = {"games": res.games, "rounds": res.rounds}
    for table, frame in frames.items():
        for col, dtype in frame.schema.items():
            assert _documented_dtype(doc[table], col) == str(dtype), (table, col, dtype)
    g, r = frames["games"], frames["rounds"]
    for col in set(g.columns) & set(r.columns):
        assert g[col].dtype == r[col].dtype, col
    # the in-memory tables are the same as the ones written
    mem = simulate(games=120, target=100, seed=4, **kw)
    assert mem.games.equals(g) and mem.rounds.equals(r)
    assert mem.games.schema == g.schema


def test_nulls_not_sentinels_where_a_value_does_not_apply():
    solo = simulate(games=300, players=3, target=100, seed=2, scoring="lowest").games
    assert solo["team"].null_count() == solo.height
    assert solo["team_scores_0"].null_count() == solo.height
    shared = solo.filter(solo["winner"].is_null())
    assert shared.height > 0  # equal lowest totals share the win (C19)
    assert (solo["winner"].drop_nulls() >= 0).all()
    teams = simulate(games=100, players=4, target=100, seed=2, teams=True).games
    assert teams["winner"].null_count() == teams.height
    assert teams["team"].null_count() == 0 and teams["team_scores_1"].null_count() == 0
    assert not (teams["team"] < 0).any()


def test_schema_version_rules_policies_and_seed_in_parquet_and_summary(tmp_path):
    import polars as pl

    from uno_sim.rules import Rules
    from uno_sim.runner import SCHEMA_VERSION

    out = tmp_path / "m"
    simulate(games=60, players=3, target=100, seed=11, policies="random", out=str(out),
             shard_size=30)
    for table in ("games", "rounds"):
        for part in sorted(os.listdir(out / f"{table}.parquet")):
            meta = pl.read_parquet_metadata(out / f"{table}.parquet" / part)
            assert meta["uno_sim.schema"] == str(SCHEMA_VERSION)
            assert meta["uno_sim.table"] == table and meta["uno_sim.seed"] == "11"
            assert json.loads(meta["uno_sim.policies"]) == ["random"] * 3
            rules = Rules.from_dict(json.loads(meta["uno_sim.rules"]))
            assert rules == Rules(players=3, target=100)
    with open(out / "summary.json", encoding="utf-8") as f:
        summary = json.load(f)
    assert summary["schema_version"] == SCHEMA_VERSION and summary["seed"] == 11
    assert summary["policies"] == ["random"] * 3 and summary["rules"]["target"] == 100


def test_dask_reuses_the_running_client_and_starts_no_cluster(monkeypatch):
    distributed = pytest.importorskip("distributed")
    ref = simulate(games=400, seed=2, shard_size=100, players=3, target=100)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as user:
        made = []
        real = distributed.Client

        class Spy(real):
            def __init__(self, *a, **kw):
                made.append((a, kw))
                super().__init__(*a, **kw)

        monkeypatch.setattr(distributed, "Client", Spy)
        with distributed.get_task_stream(client=user) as stream:
            res = simulate(games=400, seed=2, shard_size=100, backend="dask", n_jobs=2,
                           players=3, target=100)
        assert made == []  # no second cluster behind the user's client
        assert user.status == "running"  # and the user's client is left open
        assert any("run_shard" in t["key"] for t in stream.data)  # the shards ran on it
        again = simulate(games=400, seed=2, shard_size=100, backend="dask", n_jobs=2,
                         scheduler=cluster.scheduler_address, players=3, target=100)
        assert made == [] and user.status == "running"
    assert ref.games.equals(res.games) and ref.games.equals(again.games)


@pytest.mark.parametrize("address,needle", [("tcp://127.0.0.1:1", "refused"),
                                            ("nonsense://", "unknown address scheme"),
                                            ("tcp://127.0.0.1", "port")])
def test_bad_scheduler_address_fails_fast_in_one_line(address, needle):
    pytest.importorskip("distributed")
    import time

    t0 = time.perf_counter()
    r = run_cli("run", "--backend", "dask", "--scheduler", address, "--games", "10",
                "--jobs", "2", env=dict(os.environ, UNO_SIM_DASK_TIMEOUT="30"))
    assert r.returncode == 2 and needle in r.stderr and address in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert time.perf_counter() - t0 < 20  # not the 30 s connect timeout


def test_ray_backend_gives_identical_games():
    ray = pytest.importorskip("ray")
    ref = simulate(games=300, seed=6, shard_size=100, players=3, target=100)
    try:
        res = simulate(games=300, seed=6, shard_size=100, backend="ray", n_jobs=2, players=3,
                       target=100)
    finally:
        ray.shutdown()
    assert ref.games.equals(res.games)


def test_ray_backend_without_ray_is_one_line():
    code = ("import sys; sys.modules['ray'] = None  # as if Ray were not installed\n"
            "from uno_sim.cli import main\n"
            "sys.exit(main(['run', '--backend', 'ray', '--games', '10', '--jobs', '2']))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 2 and "pip install -e '.[ray]'" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_sdist_carries_what_the_tests_need(tmp_path):
    pytest.importorskip("build")
    import tarfile

    root = os.path.join(os.path.dirname(__file__), "..")
    r = subprocess.run([sys.executable, "-m", "build", "--sdist", "--outdir", str(tmp_path), root],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    (sdist,) = tmp_path.glob("uno_sim-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
        pkg_info = tar.extractfile(next(m for m in tar.getmembers()
                                        if m.name.count("/") == 1 and
                                        m.name.endswith("/PKG-INFO"))).read().decode()
    tests = {f"tests/{f}" for f in os.listdir(os.path.join(root, "tests")) if f.endswith(".py")}
    binding = {f"uno_sim/{f}" for f in os.listdir(os.path.join(root, "uno_sim"))
               if f.endswith(".pxi")}
    assert binding
    for need in ({"tests/conftest.py", "tests/c/check_main.c", "tests/engine_diff.py",
                 "tests/specs.py", "benchmarks/c/bench_main.c", "analysis/example.ipynb",
                 "README.md", "LICENSE", "docs/cli.md", "docs/results.md", "docs/rules.md",
                 "csrc/uno.h", "uno_sim/_engine.pyx", "uno_sim/_uno.pxd",
                 "docs/examples/train_masked_pg.py", "tests/c/venv_main.c"}
                 | binding | tests):
        assert need in names, need
    assert "uno_sim/_engine.c" not in names
    assert "License-Expression: MIT" in pkg_info
    assert "Provides-Extra: ray" in pkg_info and "Provides-Extra: dask" in pkg_info
