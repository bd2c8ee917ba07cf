"""Every example of docs/examples/ installs what it imports.

The docstring of each example names its install line (``pip install ... -e '.[EXTRAS]'``)
and docs/env.md gives the same line where it shows the example.  Every module the example
imports, at any depth (a function's deferred import too, and those of the example files it
imports), must then be the standard library's, uno_sim's or brought by that line: the
package's dependencies, the extras it names (read from pyproject.toml) and the packages it
names, with what those bring.  What uno_sim itself imports for the parts the example
reaches counts too (`uno_sim.sb3` needs stable-baselines3, `uno_sim.vector_env` gymnasium):
the module-level imports of those modules, a deferred one taken by the attribute of
`uno_sim` the example calls, and an optional import (a ``try`` whose ``except ImportError``
does not raise) left out.  Read from the source only: nothing is installed or imported."""

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("*.py"))
# Where each example is shown, with its install line.
DOCS = ROOT / "docs" / "env.md"
# Distributions whose import name is not the distribution's name.
DIST_OF = {"sb3_contrib": "sb3-contrib", "stable_baselines3": "stable-baselines3",
           "yaml": "pyyaml", "sklearn": "scikit-learn", "PIL": "pillow"}
# What a distribution brings that an example imports (its own dependencies, as its
# metadata lists them): checked against the installed metadata where it is installed.
BRINGS = {"sb3-contrib": {"stable-baselines3"},
          "stable-baselines3": {"torch", "gymnasium", "numpy"}}


def norm(name: str) -> str:
    """A distribution name as pip compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(req: str) -> str:
    """The distribution a requirement string names: "scipy>=1.11" -> "scipy"."""
    return norm(re.split(r"[\s<>=!~;\[]", req.strip(), maxsplit=1)[0])


def pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def install_line(path: Path) -> str:
    """The example's install line: the docstring's line that runs ``pip install``."""
    doc = ast.get_docstring(ast.parse(path.read_text()))
    lines = [ln.split("#")[0].strip() for ln in doc.splitlines() if "pip install" in ln]
    assert len(lines) == 1, f"{path.name}: one `pip install` line in its docstring, not {lines}"
    return lines[0]


def brought(line: str) -> set:
    """The distributions the install line brings: the package's dependencies, its extras
    named by the line, the packages named, and what they bring (BRINGS)."""
    project = pyproject()
    extras = project["optional-dependencies"]
    have = {requirement_name(r) for r in project["dependencies"]}
    for command in line.split("&&"):
        words = command.split()
        assert words[:2] == ["pip", "install"], f"not a pip install: {command!r}"
        for w in (w.strip("'\"") for w in words[2:] if not w.startswith("-")):
            if w.startswith(".["):
                for extra in w[2:-1].split(","):
                    assert extra in extras, f"{line!r}: no extra {extra!r} in pyproject.toml"
                    have |= {requirement_name(r) for r in extras[extra]}
            elif w != ".":
                have.add(requirement_name(w))
    todo = list(have)
    while todo:
        for d in BRINGS.get(todo.pop(), ()):
            if d not in have:
                have.add(d)
                todo.append(d)
    return have


def imports(tree, module_level: bool):
    """(level, module, names) of the import statements of `tree`: every one, or with
    `module_level` those that run when the module is imported (a ``try`` whose ``except
    ImportError`` does not raise is optional: left out)."""
    if not module_level:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                yield from ((0, a.name, ()) for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                yield node.level, node.module or "", tuple(a.name for a in node.names)
        return
    for node in tree.body:
        if isinstance(node, ast.Try):
            raises = any(isinstance(n, ast.Raise) for h in node.handlers for n in ast.walk(h))
            if raises:
                yield from imports(ast.Module(body=node.body, type_ignores=[]), True)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            yield from imports(node, False)


def uno_sim_file(name: str) -> Path | None:
    """The source file of module `name` of uno_sim (None: compiled, or not a module)."""
    parts = name.split(".")
    base = ROOT / "analysis" if parts[:2] == ["uno_sim", "analysis"] else ROOT / "uno_sim"
    rest = parts[2:] if parts[:2] == ["uno_sim", "analysis"] else parts[1:]
    for p in (base.joinpath(*rest).with_suffix(".py"), base.joinpath(*rest, "__init__.py")):
        if rest and p.is_file() or not rest and p.name == "__init__.py" and p.is_file():
            return p
    return None


def absolute(name: str, level: int, module: str, is_package: bool) -> str:
    """The absolute name of a relative import made in uno_sim module `name`."""
    package = name.split(".") if is_package else name.split(".")[:-1]
    base = package[:len(package) - level + 1]
    return ".".join(base + ([module] if module else []))


def third_party(name: str, seen: set, attrs=()) -> set:
    """The top-level modules outside uno_sim that importing uno_sim module `name` (its
    parent packages first) imports, and `attrs`: names of it whose functions' deferred
    imports count too."""
    out = set()
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        mod = ".".join(parts[:i])
        path = uno_sim_file(mod)
        if path is None:
            continue
        tree = ast.parse(path.read_text())
        found = [] if mod in seen else list(imports(tree, True))
        seen.add(mod)
        if mod == name:  # the functions the example calls: their deferred imports
            found += [f for node in tree.body if isinstance(node, ast.FunctionDef)
                      and node.name in attrs for f in imports(node, False)]
        for level, module, names in found:
            if level == 0 and module.split(".")[0] != "uno_sim":
                if module.split(".")[0] not in sys.stdlib_module_names:
                    out.add(module.split(".")[0])
                continue
            target = module if level == 0 else absolute(mod, level, module,
                                                         path.name == "__init__.py")
            for sub in [f"{target}.{n}" for n in names if uno_sim_file(f"{target}.{n}")] or [target]:
                out |= third_party(sub, seen)
    return out


def example_needs(path: Path, seen=None) -> set:
    """The top-level modules outside the standard library and uno_sim that running the
    example can import."""
    seen = set() if seen is None else seen
    tree = ast.parse(path.read_text())
    siblings = {p.stem: p for p in EXAMPLES}
    used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name) and n.value.id == "uno_sim"}
    out = set()
    for level, module, names in imports(tree, False):
        top = module.split(".")[0]
        if top in siblings and siblings[top] != path:
            out |= example_needs(siblings[top], seen)
        elif top == "uno_sim":  # a submodule, or names of a module (functions it calls)
            subs = [f"{module}.{n}" for n in names if uno_sim_file(f"{module}.{n}")]
            for sub in subs:
                out |= third_party(sub, seen)
            if len(subs) < len(names) or not names:
                out |= third_party(module, seen, set(names) | (used if module == "uno_sim"
                                                               else set()))
        elif top != "__future__" and top not in sys.stdlib_module_names:
            out.add(top)
    return out


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_the_install_line_brings_every_import(path):
    line = install_line(path)
    have = brought(line)
    missing = sorted(m for m in example_needs(path) if norm(DIST_OF.get(m, m)) not in have)
    assert not missing, f"{path.name} imports {', '.join(missing)}: `{line}` does not bring it"


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_the_docs_give_the_same_install_line(path):
    text = " ".join(DOCS.read_text().split())  # a line of the docs may wrap
    assert f"examples/{path.name}" in text, f"{DOCS.name} does not show {path.name}"
    assert install_line(path) in text, f"{DOCS.name} does not give {path.name}'s install line"


def test_the_reader_sees_what_the_examples_need():
    """The reader itself: SciPy through the numpy example, stable-baselines3 through
    uno_sim.sb3, gymnasium through uno_sim.vector_env (a deferred import in __init__)."""
    by_name = {p.name: p for p in EXAMPLES}
    assert {"scipy", "matplotlib", "gymnasium"} <= example_needs(by_name["train_masked_pg.py"])
    sb3 = example_needs(by_name["train_maskable_ppo.py"])
    assert {"scipy", "torch", "stable_baselines3", "gymnasium"} <= sb3
    assert "sb3_contrib" in sb3 and "greenlet" not in sb3  # uno_sim.env is not reached
    assert not {"torch", "scipy"} & brought("pip install -e '.[rl]'")
    assert {"stable-baselines3", "torch"} <= brought("pip install -e '.[sb3]'")
    with pytest.raises(AssertionError, match="no extra 'nope'"):
        brought("pip install -e '.[nope]'")


def test_brings_agrees_with_the_installed_metadata():
    """BRINGS lists what each distribution requires, where it is installed."""
    from importlib import metadata

    for dist, wants in BRINGS.items():
        try:
            reqs = metadata.requires(dist) or []
        except metadata.PackageNotFoundError:
            continue
        have = {requirement_name(r) for r in reqs if "extra ==" not in r}
        assert wants <= have, (dist, wants - have)


# --- the benchmark against RLCard (benchmarks/bench_env.py) -----------------------------------

BENCH = ROOT / "benchmarks" / "bench_env.py"


def test_the_benchmarks_install_line_brings_its_imports():
    """`pip install -e '.[bench]'` brings RLCard and what the environments it times need."""
    line = install_line(BENCH)
    assert "'.[bench]'" in line
    needs = example_needs(BENCH)
    assert {"rlcard", "pettingzoo", "greenlet", "gymnasium"} <= needs
    missing = sorted(m for m in needs if norm(DIST_OF.get(m, m)) not in brought(line))
    assert not missing, f"bench_env.py imports {', '.join(missing)}: `{line}` does not bring it"


def test_the_benchmark_names_its_machine_and_times_rlcard_in_the_same_run():
    """A tiny run: the machine line first, then the rows; RLCard's row and the ratios to
    it where RLCard is installed, its row skipped in one line where it is not."""
    import importlib.util
    import subprocess

    pytest.importorskip("gymnasium")
    r = subprocess.run([sys.executable, str(BENCH), "--seconds", "0.05", "--repeats", "1",
                        "--only", "rlcard,256 envs"], capture_output=True, text=True,
                       cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("machine: ") and " cores" in lines[0]
    assert "| uno_sim vector classic, 256 envs, 1 agent + 1 greedy |" in r.stdout
    if importlib.util.find_spec("rlcard") is None:
        assert "| rlcard uno (1 hand, 2 agents) | skipped: " in r.stdout
    else:
        assert "256 envs, 1 agent + 1 greedy: " in r.stdout and "x RLCard's steps/s" in r.stdout
