#!/usr/bin/env bash
# Issue 24 check on a GPU machine, in two parts (each fits one 10-minute device call):
#   PART=tests  builds the GPU tests (TESTS, default all), runs them, and memcheck and racecheck
#               on the column-group shapes (the typed reduce/histogram configs 3 and 4);
#   PART=bench  builds bench_frames and bench_suite, runs bench_frames (FRAMES_ARGS) and the
#               suite's one-call rows at 2^20 (regression check of the shared tile loops).
# Results in $OUT.
set -uo pipefail
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps/usr -DCMAKE_CUDA_ARCHITECTURES=90a \
      -DCMAKE_BUILD_TYPE=Release > "$OUT/configure.log" 2>&1
run_test() {
  mkdir -p "$OUT/tests"; local t=$1 log="$OUT/tests/$(basename "$1").log"
  "$t" > "$log" 2>&1; local rc=$?
  echo "$(basename "$t") rc=$rc passed=$(grep -c '^\[       OK' "$log") failed=$(grep -c '^\[  FAILED  \] [A-Z]' "$log")"
  [[ $rc -ne 0 ]] && grep -B2 -A10 'Failure' "$log" | head -40
}
if [[ ${PART:-tests} == tests ]]; then
  # TESTS: a space-separated list (default: every GPU test); each log goes to $OUT/tests/.
  targets=${TESTS:-$(grep -o 'twobody_add_test(test_gpu_[a-z_]*' tests/CMakeLists.txt | sed 's/twobody_add_test(//')}
  cmake --build build --target $targets -j"$(nproc)" > "$OUT/build.log" 2>&1 || { grep -B2 -A6 error "$OUT/build.log" | head -40; exit 1; }
  for t in $targets; do run_test "build/tests/$t"; done | tee "$OUT/tests.txt"
  groups='GpuReduce/3.*:GpuReduce/4.*:GpuHistogram/3.*:GpuHistogram/4.*'
  for tool in memcheck racecheck; do
    for t in test_gpu_reduce test_gpu_histogram; do
      TWOBODY_TEST_QUICK=1 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/$t --gtest_filter="$groups" > "$OUT/${tool}_$t.log" 2>&1
      echo "$tool $t (column groups) rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/${tool}_$t.log" | tail -1)"
    done
  done
else
  cmake --build build --target bench_frames bench_suite -j"$(nproc)" > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
  build/benchmarks/bench_frames ${FRAMES_ARGS:-} --benchmark_out="$OUT/bench_frames.json" --benchmark_out_format=json \
    > "$OUT/bench_frames.log" 2>&1
  grep -E "median|error" "$OUT/bench_frames.log" | sed 's/min_time:0.00[0-9]*\/repeats:5\/manual_time_median//' | cut -c1-120
  build/benchmarks/bench_suite --sizes=1048576 --benchmark_filter='(sdh256|rdf256|2pcf)/one_call$' \
    --benchmark_out="$OUT/bench_suite.json" --benchmark_out_format=json > "$OUT/bench_suite.log" 2>&1
  grep -E "one_call" "$OUT/bench_suite.log" | cut -c1-140
fi
