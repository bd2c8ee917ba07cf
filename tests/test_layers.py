"""The house has no circle: no Python module imports one that imports it back (directly
or round a circle, deferred imports counted), no C file calls one that calls it back,
and every room stands on the floor docs/contributing.md "The layers" draws for it, using
only its floor and those below.  The readers are tests/layers.py; the tests at the end
feed them small circles to show that they see one."""

import importlib
import textwrap

import pytest

import layers

PY = layers.python_graph()
C = layers.c_graph()
FIGURE = layers.floors()
ALIASES = {"uno_sim.policies": "uno_sim.players.specs", "uno_sim.userpolicy": "uno_sim.players.user",
           "uno_sim.human": "uno_sim.players.human", "uno_sim.tournament": "uno_sim.players.tournament",
           "uno_sim.league": "uno_sim.players.league"}


def test_python_modules_import_in_no_circle():
    found = [layers.describe(c, PY) for c in layers.circles(PY)]
    assert not found, "import circles:\n" + "\n".join(found)


def test_c_files_call_in_no_circle():
    _, rooms, _ = layers.place(C, FIGURE)
    assert not rooms, f"the figure makes one room of several C files: {rooms}"
    found = [layers.describe(c, C) for c in layers.circles(C)]
    assert not found, "call circles between csrc files:\n" + "\n".join(found)


def test_the_rare_rules_stand_below_the_turn_and_on_the_draws():
    """round.c calls extras.c (the rare rules, off the hot path), both draw through
    draw.c, and nothing below calls round.c back: a rare rule that makes a play hands
    it back (PLAY_STACK, a jump-in's seat) instead of calling the dispatcher."""
    assert "round.c" not in C["extras.c"], C["extras.c"]["round.c"]
    assert "extras.c" in C["round.c"] and "draw.c" in C["round.c"]
    assert "draw.c" in C["extras.c"] and "legal.c" in C["extras.c"]
    assert not {"round.c", "extras.c"} & set(C["draw.c"]), C["draw.c"]
    assert not {"round.c", "extras.c"} & set(C["legal.c"]), C["legal.c"]


def test_every_room_stands_on_the_figure():
    where, _, stale = layers.place(list(PY) + list(C), FIGURE)
    missing = sorted(set(PY) - set(where)) + sorted(set(C) - set(where))
    assert not missing, f"not on the figure of docs/contributing.md: {', '.join(missing)}"
    assert not stale, f"the figure names what does not exist: {', '.join(stale)}"


@pytest.mark.parametrize("graph", [PY, C], ids=["python", "c"])
def test_no_room_uses_a_higher_floor(graph):
    where, _, _ = layers.place(graph, FIGURE)
    up = layers.upward(graph, where)
    assert not up, "uses of a higher floor (docs/contributing.md \"The layers\"):\n" + "\n".join(up)


def test_the_engines_stand_below_players_envs_studies_and_the_command_line():
    where, _, _ = layers.place(PY, FIGURE)
    low = ("uno_sim.engine", "uno_sim._engine", "uno_sim.reference.game", "uno_sim.api",
           "uno_sim.runner.execute")
    high = ("uno_sim.players.tournament", "uno_sim.players.league", "uno_sim.env",
            "uno_sim.analysis.common", "uno_sim.cli")
    assert max(where[m] for m in low) < min(where[m] for m in high)


def test_the_gpu_build_takes_only_the_c_engine():
    """csrc/gpu/kernel.cu includes files of the C engine's floor only, and nothing on that
    floor uses search.c or env.c (the GPU build has neither)."""
    kernel = (layers.ROOT / "csrc" / "gpu" / "kernel.cu").read_text()
    included = set(layers.re.findall(r'^#include "(\w+\.c)"', kernel, flags=layers.re.M))
    where, _, _ = layers.place(C, FIGURE)
    engine = {f for f, level in where.items() if level == where["game.c"]}
    assert included and included <= engine
    reach, todo = set(), list(included)
    while todo:
        f = todo.pop()
        for g in C[f]:
            if g not in reach:
                reach.add(g)
                todo.append(g)
    assert not reach & {"search.c", "env.c"}, reach


def test_the_moved_names_still_import_and_nothing_inside_uses_them():
    for old, new in ALIASES.items():
        assert importlib.import_module(old) is importlib.import_module(new), old
    from uno_sim.policies import parse_policy
    from uno_sim.tournament import play_pair  # noqa: F401
    from uno_sim.userpolicy import DRAW_ACTION  # noqa: F401

    assert str(parse_policy("greedy(bluff=0.3)")) == "greedy(bluff=0.3)"
    users = sorted(f"{m} imports {t}" for m, outs in PY.items() for t in outs
                   if t in ALIASES and m not in ALIASES)
    assert not users, users


# --- the readers see a circle when there is one -------------------------------------------

def _package(tmp_path, files: dict):
    for name, text in files.items():
        p = tmp_path / "pkg" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return layers.python_graph(tmp_path, {"pkg": "pkg"})


def test_a_deferred_import_that_runs_back_up_is_a_circle(tmp_path):
    g = _package(tmp_path, {
        "__init__.py": "",
        "low.py": "def f():\n    from .high import g\n    return g\n",
        "high.py": "from . import low\n\ndef g():\n    return low\n",
        "side.py": "from pkg.low import f\n",
    })
    found = [layers.describe(c, g) for c in layers.circles(g)]
    assert found == ["pkg.high -> pkg.low (pkg/high.py:1) -> pkg.high (pkg/low.py:2)"]
    assert layers.circles({a: b for a, b in g.items() if a != "pkg.high"}) == []


def test_a_longer_circle_through_a_package_is_named(tmp_path):
    g = _package(tmp_path, {
        "__init__.py": "from .a import x\n",
        "a.py": "import pkg.sub.b\nx = 1\n",
        "sub/__init__.py": "",
        "sub/b.py": "from pkg import x\n",  # the package's own name: its __init__
    })
    assert layers.circles(g) == [["pkg", "pkg.a", "pkg.sub.b", "pkg"]]


def test_a_c_call_circle_is_found_unless_the_files_are_one_room(tmp_path):
    (tmp_path / "one.c").write_text("/* two() in a comment does not count */\n"
                                    "int one(int x)\n{\n    return x ? two(x - 1) : 0;\n}\n")
    (tmp_path / "two.c").write_text('#include "h.h"\nint two(int x)\n{\n    return helper(x);\n}\n')
    (tmp_path / "h.h").write_text("static inline int helper(int x)\n{\n    return one(x);\n}\n")
    g = layers.c_graph(tmp_path)
    assert g == {"one.c": {"two.c": ["two"]}, "two.c": {"one.c": ["one"]}}
    assert layers.circles(g) == [["one.c", "two.c", "one.c"]]
    assert layers.circles(g, {"one.c": "one+two", "two.c": "one+two"}) == []


def test_a_use_of_a_higher_floor_is_named():
    figure = [("top", ["pkg.high"]), ("bottom", ["pkg.*"])]
    where, _, stale = layers.place(["pkg", "pkg.low", "pkg.high"], figure)
    assert where == {"pkg": 0, "pkg.low": 0, "pkg.high": 1} and stale == []
    graph = {"pkg.low": {"pkg.high": ("pkg/low.py", 3)}, "pkg.high": {}}
    assert layers.upward(graph, where) == ["pkg.low -> pkg.high (pkg/low.py:3)"]
    assert layers.place(["pkg"], [("f", ["pkg.gone"])])[2] == ["pkg.gone"]
