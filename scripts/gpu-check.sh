#!/usr/bin/env bash
# Runs on a machine with an NVIDIA GPU (e.g. through the device tool): builds (unless
# prebuilt binaries are given), runs every test, compute-sanitizer memcheck and racecheck
# on a representative subset, and the benchmark suite; prints a short summary last.
#
#   scripts/gpu-check.sh                 # build into build-gpu/ (needs GoogleTest/Benchmark,
#                                        #  e.g. the .deps prefix from shared/tools/pack-gpu-deps.sh)
#   BIN=.gpu scripts/gpu-check.sh        # use prebuilt test_* and bench_* binaries in .gpu/
#   SKIP_TESTS=1 / SKIP_BENCH=1 / SKIP_SANITIZER=1   # leave those parts out (SKIP_TESTS: the tests
#                                        #  ran already, e.g. by ctest -j); SAN_FILTER=join sanitizes only
#                                        #  the test binaries whose name matches the regex
#   BENCHES="bench_suite bench_frames"   # the benchmark binaries to run (default bench_suite bench_join)
#   BENCH_ARGS="--benchmark_filter=sdh"  # instead of their standard arguments; SKIP_NCU=1 leaves out the
#                                        #  counters, SKIP_SUITE=1 the benchmarks (SASS mix and counters only)
# Results go to $OUT (default ./gpu-out): tests.log, sanitizer.log, <gpu>/<bench>.json/.log/.md
# (benchmarks), sass_mix.txt (hot-loop instruction mix), ncu.txt (hardware counters).
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then  # the comment block above
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0
fi
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
OUT=${OUT:-$root/gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$root/.deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv | tee "$OUT/gpu.txt"

if [[ -z "${BIN:-}" ]]; then
  BIN=build-gpu
  gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
  cmake -S . -B "$BIN" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90a}" \
        -DCMAKE_PREFIX_PATH="$root/.deps/usr" -DTWOBODY_BUILD_EXAMPLES=ON > "$OUT/configure.log" 2>&1 \
    && cmake --build "$BIN" -j"$(nproc)" > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log" "$OUT/configure.log"; exit 1; }
  tests=$(find "$BIN/tests" -maxdepth 1 -name 'test_*' -type f -executable | sort)
  BIN_DIR="$BIN/benchmarks"
else
  tests=$(find "$BIN" -maxdepth 1 -name 'test_*' -type f -executable | sort)
  BIN_DIR="$BIN"
fi

status=0
summary=()
for t in $tests; do
  [[ -n "${SKIP_TESTS:-}" ]] && break
  name=$(basename "$t")
  start=$(date +%s)
  "$t" > "$OUT/$name.log" 2>&1
  rc=$?
  { echo "===== $name (rc=$rc)"; cat "$OUT/$name.log"; } >> "$OUT/tests.log"
  [[ $rc -ne 0 ]] && status=1
  passed=$(grep -c '^\[       OK \]' "$OUT/$name.log")
  failed=$(grep -c '^\[  FAILED  \] [A-Za-z]' "$OUT/$name.log")
  skipped=$(grep -c '^\[  SKIPPED \]' "$OUT/$name.log")
  summary+=("$(printf '%-22s rc=%d passed=%d failed=%d skipped=%d (%ds)' "$name" $rc "$passed" "$failed" "$skipped" $(( $(date +%s) - start )))")
  [[ $rc -ne 0 ]] && grep -B2 -A12 'Failure' "$OUT/$name.log" | head -60
  rm -f "$OUT/$name.log"
done

if [[ -z "${SKIP_SANITIZER:-}" ]]; then
  export TWOBODY_TEST_QUICK=1
  san() {  # tool binary filter
    local tool=$1 bin=$2 filter=$3 log="$OUT/sanitizer-current.log"
    [[ -n "${SAN_FILTER:-}" && ! "$(basename "$bin")" =~ ${SAN_FILTER} ]] && return 0
    timeout "${SANITIZER_TIMEOUT:-300}" compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin" --gtest_filter="$filter" > "$log" 2>&1
    local rc=$?
    summary+=("$(printf 'sanitizer %-9s %-20s rc=%d  %s' "$tool" "$(basename "$bin")" $rc "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)")")
    [[ $rc -ne 0 ]] && status=1 && tail -30 "$log"
    { echo "===== $tool $(basename "$bin") $filter (rc=$rc)"; cat "$log"; } >> "$OUT/sanitizer.log"
    rm -f "$log"
  }
  dir=$(dirname "$(echo "$tests" | head -1)")
  san memcheck  "$dir/test_gpu_api"       '-GpuApi.SharedCountersAreFlushedBeforeTheyWrap'
  san memcheck  "$dir/test_gpu_reduce"    'GpuReduce/0.*:GpuReduce/3.*:GpuReduce/5.*:GpuReduce/7.*'
  san memcheck  "$dir/test_gpu_histogram" 'GpuHistogramExtras.*:SharedTile/GpuHistogram/0.*'
  san racecheck "$dir/test_gpu_histogram" 'GpuHistogramExtras.*'
  san racecheck "$dir/test_gpu_api"       'GpuApi.HostArrays*:GpuApi.Misaligned*:GpuApi.EmptySets*'
  san synccheck "$dir/test_gpu_api"       'GpuApi.HostArrays*:GpuApi.Misaligned*'
  san memcheck  "$dir/test_gpu_cluster_histogram" 'GpuClusterHistogram.ForcedFlushes*:GpuClusterHistogram.Weighted*:GpuClusterHistogram.EveryClusterSize*'
  san racecheck "$dir/test_gpu_cluster_histogram" 'GpuClusterHistogram.ForcedFlushes*:GpuClusterHistogram.Weighted*'
  san synccheck "$dir/test_gpu_cluster_histogram" 'GpuClusterHistogram.ForcedFlushes*'
  san memcheck  "$dir/test_gpu_fast_paths" 'GpuFastPaths.PerPoint*:GpuFastPaths.WithinRadius*:GpuFastPaths.DistanceBins*'
  san racecheck "$dir/test_gpu_fast_paths" 'GpuFastPaths.DistanceBins*'
  san memcheck  "$dir/test_gpu_model"      'GpuModel.*'
  san memcheck  "$dir/test_gpu_join"       'GpuJoin.TinyPool*:GpuJoin.HostStreaming*:GpuJoin.ZeroResults*:GpuJoin.Throwing*'
  san racecheck "$dir/test_gpu_join"       'GpuJoin.TinyPool*:GpuJoin.HostStreaming*'
  san memcheck  "$dir/test_gpu_grid"       'GpuGrid.PeriodicBox*:GpuGrid.IndexHolds*:GpuGrid.Empty*:GpuGrid.Cutoffs*'
  san racecheck "$dir/test_gpu_grid"       'GpuGrid.PeriodicBox*'
  san memcheck  "$dir/test_gpu_grid_join"  'GpuGridJoin.TinyPools*:GpuGridJoin.Empty*:GpuGridJoin.PeriodicBox*:GpuGridJoin.Cutoffs*'
  san racecheck "$dir/test_gpu_grid_join"  'GpuGridJoin.TinyPools*'
  unset TWOBODY_TEST_QUICK
fi

if [[ -z "${SKIP_BENCH:-}" ]]; then
  # Hot-loop instruction mix (SASS) of the suite's kernels: evidence for what bounds them.
  if command -v cuobjdump >/dev/null; then
    cuobjdump -sass "$BIN_DIR/bench_suite" > "$OUT/suite.sass" 2>/dev/null \
      && python3 scripts/lib/sass_mix.py "$OUT/suite.sass" --filter 'tiled_pair_kernel.*(within_radius_fnIfE|distance_bins.*Lb0E)' > "$OUT/sass_mix.txt" 2>&1
    rm -f "$OUT/suite.sass"
  fi
  # A few hardware counters at one size (clock control off: the clocks the benchmarks see).
  if [[ -z "${SKIP_NCU:-}" ]] && command -v ncu >/dev/null; then
    metrics=sm__cycles_elapsed.avg,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
    for f in '2pcf/shared_tile8\+registers/262144' 'sdh256/shared_tile8\+warp_privatized32/262144' 'rdf256/shared_tile8\+warp_privatized32/262144' 'sdh4096/shared_tile8\+warp_privatized4/262144'; do
      echo "== $f" >> "$OUT/ncu.txt"
      timeout 120 ncu --clock-control none -k regex:tiled_pair_kernel -s 1 -c 1 --metrics "$metrics" \
        "$BIN_DIR/bench_suite" --benchmark_filter="^$f" --benchmark_repetitions=1 --sizes=262144 2>&1 \
        | grep -E 'tiled_pair_kernel|sm__|smsp__|l1tex__' | sed 's/(twobody::.*//' >> "$OUT/ncu.txt"
    done
    # Why warps do not issue (stall reasons, occupancy) for the SDH kernel.
    echo "== stalls: sdh256/shared_tile8+warp_privatized32/262144" >> "$OUT/ncu.txt"
    timeout 120 ncu --clock-control none -k regex:tiled_pair_kernel -s 1 -c 1 --section WarpStateStats --section Occupancy \
      "$BIN_DIR/bench_suite" --benchmark_filter='^sdh256/shared_tile8\+warp_privatized32/262144' --benchmark_repetitions=1 \
      --sizes=262144 2>&1 | grep -vE '^==PROF==|^-{5}|^\s*$|tiled_pair_kernel<' | grep -vE '^(sdh|Bench|Run|CPU|Load|\*\*\*)' >> "$OUT/ncu.txt"
  fi
  # The benchmarks the quick check runs (BENCHES; default the suite and the joins), with their
  # standard arguments, into $OUT/<gpu>/ (scripts/run_benchmarks.sh; commit nothing from here).
  if [[ -z "${SKIP_SUITE:-}" ]]; then
    # shellcheck disable=SC2086
    env BIN="$BIN_DIR" OUT_DIR="$OUT" ${BENCH_ARGS:+"ARGS=$BENCH_ARGS"} bash scripts/run_benchmarks.sh ${BENCHES:-bench_suite bench_join} \
      && summary+=("benchmarks ${BENCHES:-bench_suite bench_join} -> $OUT") || { status=1; summary+=("benchmarks FAILED"); }
  fi
fi

echo "==== summary ===="
printf '%s\n' "${summary[@]}"
exit $status
