#!/usr/bin/env bash
# The device check: everything the project measures on a lent GPU machine, in one call.
#
#   bash benchmarks/gpu_check.sh            # the whole check, under 8 minutes
#   bash benchmarks/gpu_check.sh --quick    # a rerun: smaller sizes, no sanitizer
#   bash benchmarks/gpu_check.sh --only big # one stage (env build tests sanitizer bench
#                                           # rate scaling probe big), e.g. the 1e9 run
#   bash benchmarks/gpu_check.sh --budget 400
#
# Run from the repository root on the lent machine (one H100 or H200, 16 cores, Python
# 3.12, CuPy for CUDA 13, nvcc, compute-sanitizer; no network).  What the machine lacks
# travels as wheels in .whl/ (benchmarks/gpu_wheels.sh downloads them, carried with the
# checkout); they are installed into /tmp/site, and the extension is built in place.
#
# Stages, in order, each with its own time limit inside the whole budget (--budget seconds,
# default 450): env (the machine), build, tests (tests/test_gpu.py), sanitizer
# (compute-sanitizer on a GPU test), rate (benchmarks/gpu_rate.py: each variant's kernel
# alone with CUDA events, end to end, against one CPU core, exact against the CPU), bench
# (`uno-sim bench --backend gpu` for every variant), scaling (benchmarks/bench_scaling.py
# --jobs 1 8 16), probe (benchmarks/scaling_probe.py), big (`uno-sim run --backend gpu
# --games 1e9 --summary-only`, last: when the time left cannot hold it, as many games as
# the rate measured before says fit, and the 1e9 time that rate gives).
#
# Every stage's output goes to $OUT/logs/<stage>.txt ($OUT: the folder the machine brings
# back; ./gpu-check-out when unset); the figures to $OUT/gpu_check.md, whose table is
# printed last.

set -u
cd "$(dirname "$0")/.."

QUICK=0
ONLY=""
BUDGET=450
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1 ;;
        --only) ONLY="$2"; shift ;;
        --budget) BUDGET="$2"; shift ;;
        *) echo "gpu_check.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

export OUT="${OUT:-$PWD/gpu-check-out}"
mkdir -p "$OUT/logs"
export REPORT="$OUT/gpu_check.md"
export START=$(date +%s) BUDGET
export PY=python3
export PYTHONPATH="/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH}"
export UNO_SIM_PROGRESS=0
SUMMARY=()

left() { echo $(( BUDGET - ($(date +%s) - START) )); }

want() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }

# stage NAME LIMIT COMMAND...: runs COMMAND with at most LIMIT seconds (less if the budget
# has less left, keeping 20 s for the rest), its output to logs/NAME.txt and the screen
stage() {
    local name="$1" limit="$2"
    shift 2
    want "$name" || return 0
    local rest=$(( $(left) - 20 ))
    if [ "$rest" -lt 10 ]; then
        SUMMARY+=("| $name | skipped: the budget is spent | |")
        return 0
    fi
    [ "$limit" -gt "$rest" ] && limit=$rest
    echo "=== $name (at most ${limit}s, $(left)s left)"
    local t0=$(date +%s)
    # a shell function runs in a child bash (its functions and variables exported)
    timeout --kill-after=5 "$limit" bash -c '"$@"' _ "$@" > "$OUT/logs/$name.txt" 2>&1
    local rc=$?
    local dt=$(( $(date +%s) - t0 ))
    tail -n 25 "$OUT/logs/$name.txt"
    local what="ok"
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && what="TIMED OUT after ${limit}s"
    [ $rc -ne 0 ] && [ "$what" = "ok" ] && what="FAILED (exit $rc)"
    SUMMARY+=("| $name | $what | ${dt}s |")
    return $rc
}

{
    echo "# Device check ($(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown))"
    echo
} > "$REPORT"

env_info() {
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
    lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket|Socket|L1d|L2|L3"
    $PY --version
    $PY -c "import cupy; print('cupy', cupy.__version__, 'CUDA runtime', cupy.cuda.runtime.runtimeGetVersion())"
    nvcc --version | tail -n 2
    command -v compute-sanitizer
    uptime
}
export -f env_info
stage env 30 env_info
want env && { echo "## Machine"; echo '```'; cat "$OUT/logs/env.txt"; echo '```'; echo; } >> "$REPORT"

build() {
    set -e
    if ls .whl/*.whl > /dev/null 2>&1 && [ ! -d /tmp/site/polars ]; then
        $PY -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl
    fi
    $PY -c "import Cython, setuptools, numpy; print('Cython', Cython.__version__, 'setuptools', setuptools.__version__, 'numpy', numpy.__version__)"
    $PY setup.py -q build_ext --inplace -j 16
    $PY -c "import uno_sim._engine, polars; print('built; polars', polars.__version__)"
}
export -f build
# the build runs whatever --only says (it is quick when nothing changed)
ONLY_SAVED="$ONLY"; ONLY=""
stage build 240 build || { echo "the build failed: nothing else can run" >&2; exit 1; }
ONLY="$ONLY_SAVED"

# --- GPU tests ------------------------------------------------------------------------------
# tests: every configuration of tests/test_gpu.py, on the GPU (the CPU-built kernel tests
# run too).
stage tests 150 $PY -m pytest -p no:xdist -q --no-header --slow tests/test_gpu.py
# sanitizer: compute-sanitizer (memcheck) on one GPU comparison (UNO_SIM_GPU_LINEINFO=1 builds
# the kernel with source lines for its reports).
[ $QUICK -eq 1 ] || stage sanitizer 120 compute-sanitizer --tool memcheck --error-exitcode 9 \
    $PY -m pytest -p no:xdist -q -x --no-header tests/test_gpu.py -k "gpu_games_equal_cpu_games and classic-4-greedy-{}"
# --------------------------------------------------------------------------------------------

RATE_GAMES=4e6
BENCH_GAMES=2000000
SCALE_GAMES=300000
[ $QUICK -eq 1 ] && RATE_GAMES=1e6 && BENCH_GAMES=500000 && SCALE_GAMES=100000
stage rate 150 $PY benchmarks/gpu_rate.py --games "$RATE_GAMES"
want rate && { echo "## Each configuration (benchmarks/gpu_rate.py, $RATE_GAMES games a launch)"; echo; grep "^|" "$OUT/logs/rate.txt"; echo; } >> "$REPORT"

stage bench 120 $PY -m uno_sim.cli bench --backend gpu --variant all --players 4 \
    --games "$BENCH_GAMES" --repeats 3
want bench && { echo "## uno-sim bench --backend gpu (4 players, $BENCH_GAMES games, median of 3)"; echo '```'; cat "$OUT/logs/bench.txt"; echo '```'; echo; } >> "$REPORT"

stage scaling 150 $PY benchmarks/bench_scaling.py --jobs 1 8 16 --games-per-job "$SCALE_GAMES"
want scaling && { echo "## CPU scaling (benchmarks/bench_scaling.py, $SCALE_GAMES games per job)"; echo '```'; cat "$OUT/logs/scaling.txt"; echo '```'; echo; } >> "$REPORT"

stage probe 90 $PY benchmarks/scaling_probe.py --seconds 2
want probe && { echo "## Why the engine scales as it does (benchmarks/scaling_probe.py)"; echo '```'; cat "$OUT/logs/probe.txt"; echo '```'; echo; } >> "$REPORT"

# the 1e9 run, last: as many games as the time left holds at the rate measured above
big() {
    local rate secs games
    rate=$(grep -m1 "^| classic 4p greedy" "$OUT/logs/rate.txt" 2>/dev/null | awk -F'|' '{gsub(/[, ]/, "", $5); print $5}')
    [ -z "$rate" ] && rate=2000000  # no measure: a guess, the timeout guards it
    secs=$(( $(left) - 40 ))
    games=$($PY -c "print(min(10**9, max(10**6, int($rate * $secs * 0.8) // 10**6 * 10**6)))")
    echo "end-to-end rate before: $rate games/s; $secs s left: $games games"
    $PY -m uno_sim.cli run --backend gpu --games "$games" --summary-only --seed 1
}
export -f big left
stage big 600 big
want big && {
    echo "## uno-sim run --backend gpu --summary-only (classic 4 players)"
    echo '```'; cat "$OUT/logs/big.txt"; echo '```'
    $PY - "$OUT/logs/big.txt" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"seed 1: ([\d,]+) games.*?wall time ([\d.]+) s, ([\d,]+) games/s", text, re.S)
if m:
    games, wall, rate = int(m.group(1).replace(",", "")), float(m.group(2)), int(m.group(3).replace(",", ""))
    print(f"\n{games:,} games in {wall:.1f} s (the run's own clock): {rate:,} games/s; "
          f"1e9 games: {1e9 / rate:.0f} s at that rate")
EOF
    echo
} >> "$REPORT"

{
    echo "## Stages"
    echo
    echo "| stage | result | time |"
    echo "|---|---|---:|"
    printf '%s\n' "${SUMMARY[@]}"
    echo
    echo "whole check: $(( $(date +%s) - START ))s"
} >> "$REPORT"

echo
echo "================ summary ($REPORT)"
grep "^|" "$OUT/logs/rate.txt" 2>/dev/null
grep -A2 "1e9 games" "$REPORT" | head -n 2
printf '%s\n' "${SUMMARY[@]}"
echo "whole check: $(( $(date +%s) - START ))s"
