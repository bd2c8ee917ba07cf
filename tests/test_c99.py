"""csrc/ must stay portable C99 that does not depend on Python.h.

The extension itself is compiled with the compiler's default (GNU) dialect,
because Cython's generated C relies on extensions; this test is what keeps
the engine sources honest.  Syntax-only, so it costs well under a second.
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CSRC = Path(__file__).resolve().parent.parent / "csrc"
CC = shutil.which("gcc") or shutil.which("cc")
FLAGS = ["-std=c99", "-pedantic-errors", "-Wall", "-fsyntax-only", "-I", str(CSRC)]


def _sources():
    return sorted(CSRC.glob("*.c")) + sorted(CSRC.glob("*.h"))


def test_csrc_does_not_include_python_h():
    include = re.compile(r'^\s*#\s*include\s*[<"]Python\.h[>"]', re.MULTILINE)
    for path in _sources():
        assert not include.search(path.read_text()), path


@pytest.mark.skipif(CC is None, reason="no C compiler")
@pytest.mark.parametrize("path", _sources(), ids=lambda p: p.name)
def test_csrc_compiles_as_c99(path, tmp_path):
    if path.suffix == ".h":
        # A header must compile on its own, with nothing included before it.
        unit = tmp_path / f"{path.stem}_only.c"
        unit.write_text(f'#include "{path.name}"\n')
    else:
        unit = path
    for check in ([], ["-DUNO_CHECK=1"]):
        proc = subprocess.run(
            [CC, *FLAGS, *check, str(unit)], capture_output=True, text=True
        )
        assert proc.returncode == 0, proc.stderr


@pytest.mark.skipif(CC is None, reason="no C compiler")
def test_bench_driver_builds_and_runs(tmp_path):
    """benchmarks/c/bench_main.c (the engine timed without Python) links and plays games."""
    root = CSRC.parent
    exe = tmp_path / "bench"
    subprocess.run([sys.executable, str(root / "tests" / "c" / "make_tables.py"),
                    str(tmp_path / "tables.h")], check=True)
    proc = subprocess.run([CC, "-std=c99", "-O1", "-I", str(CSRC), "-I", str(tmp_path),
                           *map(str, sorted(CSRC.glob("*.c"))),
                           str(root / "benchmarks" / "c" / "bench_main.c"), "-o", str(exe)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(exe), "3", "200", "1"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert re.match(r"classic 3 players: \d+ games/s", run.stdout), run.stdout
    bad = subprocess.run([str(exe), "11"], capture_output=True, text=True)
    assert bad.returncode == 2 and "usage" in bad.stderr
