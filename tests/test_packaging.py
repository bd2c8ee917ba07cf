"""The studies install as `uno_sim.analysis` (the folder analysis/ of the repository, mapped
in pyproject.toml): a folder named `analysis` in the working directory never shadows them,
and they never import the command line that hooks them in."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _python(code: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True)


@pytest.mark.parametrize("where", ["stray", "repository"])
def test_studies_import_as_uno_sim_analysis_whatever_the_working_directory(tmp_path, where):
    if where == "stray":  # a user's own analysis/ folder, first on sys.path
        cwd = tmp_path
        (tmp_path / "analysis").mkdir()
        for name in ("__init__.py", "cli.py", "common.py"):
            (tmp_path / "analysis" / name).write_text("raise ImportError('the stray analysis/')\n")
    else:  # the source checkout itself: ./uno_sim is imported from there
        cwd = ROOT
    code = ("import os, uno_sim, uno_sim.analysis as a, uno_sim.analysis.cli, "
            "uno_sim.analysis.common; "
            "print(os.path.realpath(os.path.dirname(a.__file__))); print(a.STUDIES)")
    r = _python(code, cwd)
    assert r.returncode == 0, r.stderr
    folder, studies = r.stdout.splitlines()
    assert folder == os.path.realpath(os.path.join(ROOT, "analysis"))
    assert studies == "('bluff', 'challenge', 'exploit', 'balance')"


def test_python_m_uno_sim_finds_the_study_commands_beside_a_stray_analysis_folder(tmp_path):
    (tmp_path / "analysis").mkdir()
    (tmp_path / "analysis" / "__init__.py").write_text("raise ImportError('stray')\n")
    r = subprocess.run([sys.executable, "-m", "uno_sim", "study", "--help"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "bluff" in r.stdout


def test_studies_do_not_import_the_command_line():
    code = ("import sys, uno_sim.analysis, uno_sim.analysis.cli, uno_sim.analysis.report; "
            "print('uno_sim.cli' in sys.modules)")
    r = _python(code, ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False"]


def test_the_test_extra_pulls_no_deep_learning_framework():
    """sb3-contrib brings torch (gigabytes of CUDA libraries by default): it has an extra
    of its own, and tests/test_sb3.py skips without it."""
    import tomllib
    from pathlib import Path

    with open(Path(__file__).resolve().parent.parent / "pyproject.toml", "rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]
    names = {d.split(">")[0].split("=")[0].split("[")[0].strip().lower() for d in extras["test"]}
    assert not names & {"torch", "stable-baselines3", "sb3-contrib", "jax", "tensorflow"}
    assert any(d.startswith("sb3-contrib") for d in extras["sb3"])


def test_every_folder_of_the_package_is_declared_and_the_weights_ship():
    """setuptools warns ("Package 'uno_sim.players.weights' is absent from the `packages`
    configuration") for a folder of package data that `packages` does not name: every
    folder under uno_sim/ is named, and the weights are its package data."""
    import fnmatch
    import tomllib
    from pathlib import Path

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        setuptools = tomllib.load(f)["tool"]["setuptools"]
    top = Path(ROOT, "uno_sim")
    folders = {".".join(("uno_sim",) + p.relative_to(top).parts) for p in top.rglob("*")
               if p.is_dir() and "__pycache__" not in p.parts}
    assert folders <= set(setuptools["packages"]), folders - set(setuptools["packages"])
    weights = sorted(p.name for p in (top / "players" / "weights").glob("*.unonet"))
    patterns = setuptools["package-data"]["uno_sim.players.weights"]
    assert weights and all(any(fnmatch.fnmatch(w, p) for p in patterns) for w in weights)
