"""The checking build: card conservation asserted after every turn (UNO_CHECK).

`tests/c/check_main.c` plays a grid of seeded games (classic and UNO Flip
decks, Flip with its pairing fixed and re-paired per game, the Hello Kitty deck,
the hand-exchange deck with both exchange modes and every customizable rule,
every target rule, the UNO Extreme deck with both launcher laws; players 2..10, both
editions, every scoring mode and teams, every knob at 0, 0.5 and 1, strategic
seats; and every combination of the house rules C-H1..C-H5 on both decks) through the C engine compiled with ``-DUNO_CHECK`` and, where the
compiler has them, AddressSanitizer and UBSan.  For Flip every one of the 112
cards must be exactly once in the hands, the draw pile and the discard pile
after the deal and after every turn, flips included.  A second build loses a
card on purpose, to show that the check really fires.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CC = shutil.which("gcc") or shutil.which("cc")
SOURCES = [str(p) for p in sorted((ROOT / "csrc").glob("*.c"))] + [
    str(ROOT / "tests" / "c" / "check_main.c")]
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]

# slow: builds with sanitizers and a grid of games (CI plays them: -m slow)
pytestmark = [pytest.mark.skipif(CC is None, reason="no C compiler"), pytest.mark.slow]


def make_tables(out_dir: Path) -> Path:
    """tables.h of the decks the C drivers play, written from uno_sim.cards (make_tables.py)."""
    subprocess.run([sys.executable, str(ROOT / "tests" / "c" / "make_tables.py"),
                    str(out_dir / "tables.h")], check=True)
    return out_dir


def _build(tmp_path, name, *flags):
    exe = tmp_path / name
    make_tables(tmp_path)
    cmd = [CC, "-std=c99", "-O1", "-g", "-DUNO_CHECK=1", "-I", str(ROOT / "csrc"),
           "-I", str(tmp_path), *flags, *SOURCES, "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return exe if proc.returncode == 0 else None, proc.stderr


def _run(exe):
    return subprocess.run([str(exe), "1", "11"], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def plain_build(tmp_path_factory):
    """The plain checking build (no sanitizer), compiled once for the tests of this file
    that play one deck each: the same program every one of them compiled for itself."""
    exe, err = _build(tmp_path_factory.mktemp("check"), "check")
    assert exe is not None, err
    return exe


def test_checking_build_conserves_cards(tmp_path, plain_build):
    exe, err = _build(tmp_path, "check", *SANITIZE)
    proc = _run(exe) if exe is not None else None
    if proc is None or "Sanitizer failed to allocate" in proc.stderr or (
            "ReserveShadowMemoryRange" in proc.stderr):
        # No sanitizer runtime here, or no room for its shadow memory (a ulimit -v):
        # the plain checking build still asserts card conservation.
        proc = _run(plain_build)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "games ok" in proc.stdout


def test_checking_build_catches_a_lost_card(tmp_path):
    exe, err = _build(tmp_path, "check_inject", "-DUNO_CHECK_INJECT_LOSS=7")
    assert exe is not None, err
    proc = subprocess.run([str(exe), "1"], capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0
    assert "card conservation violated" in proc.stderr


def test_flip_conserves_all_112_cards(plain_build):
    """Flip only, another seed: the plain checking build (no sanitizer needed)."""
    run = subprocess.run([str(plain_build), "1", "2024", "flip"], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "games ok" in run.stdout


def test_extreme_conserves_all_112_cards(plain_build):
    """UNO Extreme only, another seed: every card in the hands, the launcher (the draw
    pile) and the discards after every press, Discard All and reload."""
    run = subprocess.run([str(plain_build), "2", "2025", "extreme"], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "games ok" in run.stdout


@pytest.mark.parametrize("deck", ["hello-kitty", "house-2018"])
def test_extra_decks_conserve_all_their_cards(plain_build, deck):
    """Hello Kitty (H2 draws) and house-2018 (S2 swaps and shuffles, S3 put-downs under the
    top card): the plain checking build, another seed."""
    run = subprocess.run([str(plain_build), "1", "2024", deck], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "games ok" in run.stdout
