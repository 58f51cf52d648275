#!/usr/bin/env bash
# Issue 24 check on a GPU machine: builds the GPU tests and the frame/suite benchmarks, runs
# test_gpu_frames, bench_frames, every other GPU test, memcheck on the frame tests, and the
# suite's one-call rows at 2^20 (regression check of the shared tile loops). Results in $OUT.
set -uo pipefail
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps/usr -DCMAKE_CUDA_ARCHITECTURES=90a \
      -DCMAKE_BUILD_TYPE=Release > "$OUT/configure.log" 2>&1
targets=$(grep -o 'twobody_add_test(test_gpu_[a-z_]*' tests/CMakeLists.txt | sed 's/twobody_add_test(//')
cmake --build build --target $targets bench_frames bench_suite -j"$(nproc)" > "$OUT/build.log" 2>&1 \
  || { tail -40 "$OUT/build.log"; exit 1; }
run_test() {
  local t=$1 log="$OUT/$(basename "$1").log"
  "$t" > "$log" 2>&1; local rc=$?
  echo "$(basename "$t") rc=$rc passed=$(grep -c '^\[       OK' "$log") failed=$(grep -c '^\[  FAILED  \] [A-Z]' "$log")"
  [[ $rc -ne 0 ]] && grep -B2 -A10 'Failure' "$log" | head -40
}
run_test build/tests/test_gpu_frames
build/benchmarks/bench_frames ${FRAMES_ARGS:-} --benchmark_out="$OUT/bench_frames.json" --benchmark_out_format=json \
  > "$OUT/bench_frames.txt" 2>&1
grep -E "median|error" "$OUT/bench_frames.txt" | sed 's/min_time:0.050\/repeats:5\/manual_time_median//' | cut -c1-140
for t in build/tests/test_gpu_*; do [[ $t == *frames ]] || run_test "$t"; done
TWOBODY_TEST_QUICK=1 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_gpu_frames > "$OUT/memcheck.log" 2>&1
echo "memcheck test_gpu_frames rc=$? $(grep 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)"
build/benchmarks/bench_suite --sizes=1048576 --benchmark_filter='(sdh256|rdf256|2pcf)/one_call$' \
  --benchmark_out="$OUT/bench_suite.json" --benchmark_out_format=json > "$OUT/bench_suite.txt" 2>&1
grep -E "one_call" "$OUT/bench_suite.txt" | cut -c1-140
