"""The public API documents itself: every public module, class, function and method of
uno_sim has a docstring, `help(uno_sim)` says where to start, and every cheap code block
of the README and docs/ runs as a script."""

import glob
import importlib
import importlib.util
import inspect
import os
import pkgutil
import re
import subprocess
import sys

import pytest

import uno_sim

# Modules that are inner workings, not an API: the reference engine is reached through
# play_game(..., engine="reference"), the CLI through `uno-sim`, the runner's rooms through
# uno_sim.runner (whose __all__ is walked).
INTERNAL = ("uno_sim.cli", "uno_sim.reference", "uno_sim.runner.")
# Modules of an optional framework that the test extra leaves out (it would bring torch):
# checked where the framework is installed, passed over where it is not.
OPTIONAL = {"uno_sim.sb3": "stable_baselines3", "uno_sim.players.torchnet": "torch"}


def public_modules():
    names = (["uno_sim"] + [m.name for m in pkgutil.walk_packages(uno_sim.__path__, "uno_sim.")]
             + ["uno_sim.analysis", "uno_sim.analysis.doc"])  # installed from analysis/
    for name in names:
        if any(p.startswith("_") for p in name.split(".")[1:]) or name.startswith(INTERNAL):
            continue
        if name in OPTIONAL and importlib.util.find_spec(OPTIONAL[name]) is None:
            continue
        try:
            yield name, importlib.import_module(name)
        except ImportError as exc:  # an extra that is not installed
            pytest.skip(f"{name}: {exc}")


def public_objects():
    for name, mod in public_modules():
        yield name, mod
        if hasattr(mod, "__all__"):
            names = mod.__all__
        else:  # what the module defines and does not mark private
            names = [n for n, v in vars(mod).items() if not n.startswith("_")
                     and getattr(v, "__module__", None) == name]
        for n in names:
            obj = getattr(mod, n)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            yield f"{name}.{n}", obj
            if inspect.isclass(obj):
                for m, f in vars(obj).items():
                    f = f.fget if isinstance(f, property) else f
                    if not m.startswith("_") and inspect.isfunction(f):
                        yield f"{name}.{n}.{m}", f


def test_every_public_object_has_a_docstring():
    missing = sorted({where for where, obj in public_objects()
                      if not ((vars(obj).get("__doc__") if inspect.isclass(obj)
                               else obj.__doc__) or "").strip()})
    assert not missing, "no docstring: " + ", ".join(missing)


def test_help_says_where_to_start():
    doc = uno_sim.__doc__
    for start in ("simulate", "play_game", "uno_sim.env", "run_study", "win_shares"):
        assert start in doc, start


def test_runner_exports_only_its_public_names():
    from uno_sim import runner

    assert {"simulate", "resume", "merge", "load", "RunResult"} <= set(runner.__all__)
    for internal in ("lock_out", "prepare_out", "part_path", "make_manifest", "finalize",
                     "BATCH", "shard_done"):
        assert internal not in runner.__all__, internal
    assert all(hasattr(runner, n) for n in runner.__all__)


def test_py_typed_is_installed_with_the_package():
    from importlib.resources import files

    import tomllib

    assert files("uno_sim").joinpath("py.typed").is_file()
    with open("pyproject.toml", "rb") as f:
        setuptools = tomllib.load(f)["tool"]["setuptools"]
    assert "py.typed" in setuptools["package-data"]["uno_sim"]  # so that a wheel has it


# --- every cheap block of the docs runs ----------------------------------------------------
# Every Python block of the README and docs/ (and every `python -c "..."` of a shell block)
# is run below as a script of its own, in an empty folder, or named in NOT_RUN with the
# reason.  SHRINK runs a block on fewer games: the same code, each replaced text required
# to be in the block (so a changed block fails here until this table follows it).  A block
# is named by its file and first line.
ROOT = os.path.join(os.path.dirname(__file__), "..")
DOC_FILES = ["README.md", "reports/README.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
NOT_RUN = {
    ("docs/cluster.md", "from dask_jobqueue import SLURMCluster"): "needs a SLURM cluster",
    ("docs/studies.md", "from uno_sim.analysis import bluff, bluffgame, challenge, balance, "
                        "exploit, strongplay"):
        "minutes of studies; tests/test_analysis.py and tests/test_strong.py run each small",
    ("docs/env.md", "from sb3_contrib import MaskablePPO"):
        "needs sb3-contrib and torch; tests/test_sb3.py trains it small",
    ("docs/env.md", "from uno_sim.sb3 import export_net, maskable_ppo, vec_env"):
        "needs sb3-contrib and torch; tests/test_sb3.py loads, trains and exports it small",
    ("docs/variants.md", '"""UNO All Wild (docs/rules.md W1): every card is a wild."""'):
        "a variant module's source, not a script; tests/test_variants.py declares it",
}
# Blocks that need an optional framework the test extra leaves out: run where it is installed.
NEEDS = {("docs/net.md", "import torch"): "torch"}
SHRINK = {
    ("README.md", "import uno_sim"): {"games=100_000": "games=2_000",
                                      "games=50_000": "games=1_000"},
    ("README.md", "from uno_sim.counterfactual import decision_values"): {
        "games=2000": "games=60"},
    ("docs/cluster.md", "from dask.distributed import Client"): {
        "games=200_000": "games=2_000", "n_workers=4": "n_workers=2", "n_jobs=4": "n_jobs=2"},
    ("docs/cluster.md", "import uno_sim.runner as runner"): {"games=1_000_000": "games=2_000"},
}


def doc_blocks():
    """(file, first line, code) of every Python block and `python -c` script of the docs."""
    for name in DOC_FILES:
        with open(os.path.join(ROOT, name), encoding="utf-8") as f:
            text = f.read()
        for lang, body in re.findall(r"```(\w*)\n(.*?)\n```", text, re.S):
            if lang == "python":
                yield name, body.splitlines()[0], body
            elif lang in ("", "bash", "sh"):
                for code in re.findall(r'^python -c "\n(.*?)\n"$', body, re.S | re.M):
                    yield name, code.splitlines()[0], code


BLOCKS = list(doc_blocks())


def test_every_doc_block_is_run_or_says_why_not():
    keys = {(name, first) for name, first, _ in BLOCKS}
    assert len(keys) == len(BLOCKS), "two blocks of one file open alike: name them apart"
    named = set(NOT_RUN) | set(SHRINK) | set(NEEDS)
    assert named <= keys, named - keys
    assert len(BLOCKS) >= 12  # the README's and docs/*.md's blocks are all found


@pytest.mark.parametrize("name,first,code", [b for b in BLOCKS if b[:2] not in NOT_RUN],
                         ids=lambda v: v if v.endswith(".md") else None)
def test_doc_block_runs_as_a_script(name, first, code, tmp_path):
    if (name, first) in NEEDS and importlib.util.find_spec(NEEDS[name, first]) is None:
        pytest.skip(f"needs {NEEDS[name, first]}")
    for old, new in SHRINK.get((name, first), {}).items():
        assert old in code, f"{name}: {old!r} is no longer in the block {first!r}"
        code = code.replace(old, new)
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "UNO_SIM_PROGRESS": "0", "MPLBACKEND": "Agg"}
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600, env=env)
    assert r.returncode == 0, f"{name}, block {first!r}:\n{r.stderr[-3000:]}"


def test_the_readme_links_lead_to_headings_that_exist():
    """The README's answers link into the example report and the docs by heading anchor
    (GitHub's: lower case, punctuation dropped, spaces as dashes): every one must exist."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        links = re.findall(r"\]\(([\w./-]+\.md)#([^)]+)\)", f.read())
    assert any(path.startswith("reports/") for path, _ in links)
    for path, anchor in links:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            heads = re.findall(r"^#+ (.+)$", f.read(), re.M)
        slugs = {"".join(c for c in h.lower() if c.isalnum() or c in " -_").replace(" ", "-")
                 for h in heads}
        assert anchor in slugs, f"README links {path}#{anchor}: no such heading"
