"""Build script for the compiled engine (metadata lives in pyproject.toml).

One extension, ``uno_sim._engine``: the Cython bindings in
``uno_sim/_engine.pyx`` (with the C API declared in ``uno_sim/_uno.pxd`` and
the ``uno_sim/*.pxi`` files it includes) plus every C file in ``csrc/``.

On an x86-64 machine whose CPU has POPCNT the C files are compiled with ``-mpopcnt``
(`cpu_flags`); set ``UNO_SIM_PORTABLE=1`` for a build to be copied to other machines.

Set ``UNO_SIM_DEBUG=1`` in the environment for the *checking build*: Cython
bounds/wraparound checks back on, ``-O0 -g``, and ``UNO_CHECK=1`` so that the
C engine compiles its internal assertions.  Use it when chasing a crash or a
C/Python divergence, e.g.

    UNO_SIM_DEBUG=1 pip install -e .

and reinstall without the variable afterwards: the checking build is much
slower.
"""

import glob
import os
import platform

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("UNO_SIM_DEBUG", "") not in ("", "0")


def cpu_flags() -> list[str]:
    """-mpopcnt where this machine's x86-64 CPU has the POPCNT instruction: hands are bitsets,
    so hand sizes and color counts are popcounts (strategic 1.10-1.16x, greedy 1.03x in
    benchmarks/results.md).  UNO_SIM_PORTABLE=1 leaves it out, for a build that is copied
    to other machines."""
    if os.environ.get("UNO_SIM_PORTABLE", "") not in ("", "0"):
        return []
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return []
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((ln for ln in f if ln.startswith("flags")), "")
    except OSError:
        return []
    return ["-mpopcnt"] if " popcnt" in flags else []


# No -std flag: Cython's generated C uses GNU extensions and compiler-specific
# code paths; forcing -std=c99 produces warnings (or errors on some
# toolchains).  csrc/ itself is plain C99 and is compiled with the same flags.
# -ffp-contract=off: no fused multiply-add, so that floating-point policy
# arithmetic rounds exactly as the Python reference engine's does.
if DEBUG:
    # Python's own CFLAGS carry -DNDEBUG, which would silently compile out
    # every assert() that UNO_CHECK enables; -UNDEBUG (placed after it) wins.
    extra_compile_args = ["-O0", "-g", "-UNDEBUG", "-ffp-contract=off"]
    define_macros = [("UNO_CHECK", "1")]
else:
    extra_compile_args = ["-O3", "-ffp-contract=off"]
    define_macros = []
extra_compile_args += cpu_flags()
if os.name == "nt":  # MSVC does not understand GCC-style flags.
    extra_compile_args = ["/Od", "/Zi"] if DEBUG else ["/O2"]

define_macros.append(("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"))

extensions = [
    Extension(
        "uno_sim._engine",
        sources=["uno_sim/_engine.pyx"] + sorted(glob.glob("csrc/*.c")),
        # the C headers, the typed header of the C API and the included binding files
        depends=sorted(glob.glob("csrc/*.h")) + ["uno_sim/_uno.pxd"]
        + sorted(glob.glob("uno_sim/*.pxi")),
        include_dirs=["csrc", numpy.get_include()],
        define_macros=define_macros,
        extra_compile_args=extra_compile_args,
    )
]

setup(
    ext_modules=cythonize(
        extensions,
        # Cython regenerates a .c file only when the .pyx is newer, so the
        # two modes keep their generated C apart; otherwise toggling
        # UNO_SIM_DEBUG would silently reuse the other mode's directives.
        build_dir="build/cython-debug" if DEBUG else None,
        compiler_directives={
            "language_level": 3,
            "boundscheck": DEBUG,
            "wraparound": DEBUG,
            "cdivision": True,
            "initializedcheck": DEBUG,
        },
    ),
)
