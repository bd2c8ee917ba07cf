"""The public API documents itself: every public module, class, function and method of
uno_sim has a docstring, and `help(uno_sim)` says where to start."""

import importlib
import importlib.util
import inspect
import pkgutil

import pytest

import uno_sim

# Modules that are inner workings, not an API: the reference engine is reached through
# play_game(..., engine="reference"), the CLI through `uno-sim`, the runner's rooms through
# uno_sim.runner (whose __all__ is walked).
INTERNAL = ("uno_sim.cli", "uno_sim.reference", "uno_sim.runner.")
# Modules of an optional framework that the test extra leaves out (it would bring torch):
# checked where the framework is installed, passed over where it is not.
OPTIONAL = {"uno_sim.sb3": "stable_baselines3"}


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
