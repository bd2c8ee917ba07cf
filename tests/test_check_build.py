"""The checking build (UNO_CHECK) on UNO Flip: card conservation across flips.

Compiles csrc/ with tests/c/check_main.c and -DUNO_CHECK, then plays one game
per configuration of the harness's grid with the Flip deck (pairing fixed and
re-paired per game).  The engine aborts on any violation: every one of the 112
cards must be exactly once in the hands, the draw pile and the discard pile
after the deal and after every turn, flips included.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CC = shutil.which("gcc") or shutil.which("cc")


@pytest.mark.skipif(CC is None, reason="no C compiler")
def test_flip_conserves_all_112_cards(tmp_path):
    exe = tmp_path / "check"
    sources = sorted(str(p) for p in (ROOT / "csrc").glob("*.c"))
    build = subprocess.run([CC, "-std=c99", "-O1", "-DUNO_CHECK=1", "-I", str(ROOT / "csrc"),
                            *sources, str(ROOT / "tests/c/check_main.c"), "-o", str(exe)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe), "1", "2024", "flip"], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "games ok" in run.stdout
