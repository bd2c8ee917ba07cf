#!/usr/bin/env bash
# The wheels a lent GPU machine lacks, downloaded here into .whl/ (carried there with the
# checkout; benchmarks/gpu_check.sh installs them into /tmp/site, no network needed there).
#
#   bash benchmarks/gpu_wheels.sh           # from the repository root, with network
#
# The machine has Python 3.12, CuPy for CUDA 13 (hence numpy), pip, nvcc; not the project's
# other runtime dependencies (polars and its runtime, joblib, tqdm, argcomplete), nor what
# building the extension in place needs (Cython, a setuptools that reads pyproject.toml's
# license field: 77 or later), nor pytest and its dependencies.  Versions are those of
# this environment where it has them (what the tests here ran with), else the pins below.
# Python 3.12, manylinux x86_64; the whole folder stays under the 64 MiB a carry allows.

set -eu
cd "$(dirname "$0")/.."
DEST=.whl
PY=${PYTHON:-python3}

# name and the version to use when this environment has none
PINS="polars=2.1.0 polars-runtime-32=2.1.0 joblib=1.6.0 tqdm=4.70.1 argcomplete=3.7.2
cython=3.3.1 setuptools=84.2.1 pytest=9.2.0 pluggy=1.7.0 iniconfig=2.3.1 packaging=26.4
pygments=2.21.0"

rm -rf "$DEST"
mkdir -p "$DEST"
for pin in $PINS; do
    name=${pin%%=*}
    version=$($PY -c "import importlib.metadata as m, sys
try: print(m.version(sys.argv[1]))
except m.PackageNotFoundError: print('')" "$name")
    if [ "$name" = setuptools ] || [ "$name" = cython ] || [ -z "$version" ]; then
        version=${pin#*=}  # the build's own pins (the venv's setuptools may be older)
    fi
    $PY -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 -d "$DEST" "$name==$version"
done
ls -l "$DEST"
du -sh "$DEST"
size=$(du -sm "$DEST" | cut -f1)
if [ "$size" -ge 62 ]; then
    echo "gpu_wheels.sh: $DEST is ${size} MiB, too close to the 64 MiB a carry allows" >&2
    exit 1
fi
