#!/usr/bin/env bash
# Runs on a machine with an NVIDIA GPU (e.g. through the device tool): builds (unless
# prebuilt binaries are given), runs every test, compute-sanitizer memcheck and racecheck
# on a representative subset, and the policy benchmarks; prints a short summary last.
#
#   scripts/gpu-check.sh                 # build into build-gpu/ (needs GoogleTest/Benchmark,
#                                        #  e.g. the .deps prefix from shared/tools/pack-gpu-deps.sh)
#   BIN=.gpu scripts/gpu-check.sh        # use prebuilt test_* and bench_* binaries in .gpu/
#   SKIP_BENCH=1 / SKIP_SANITIZER=1      # leave those parts out
#   BENCH_FILTER=regex                   # passed to --benchmark_filter
# Results go to $OUT (default ./gpu-out): tests.log, sanitizer.log, bench_*.json/log.
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
  cmake -S . -B "$BIN" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" \
        -DCMAKE_PREFIX_PATH="$root/.deps/usr" -DTWOBODY_BUILD_EXAMPLES=ON > "$OUT/configure.log" 2>&1 \
    && cmake --build "$BIN" -j"$(nproc)" > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log" "$OUT/configure.log"; exit 1; }
  tests=$(find "$BIN/tests" -maxdepth 1 -name 'test_*' -type f -executable | sort)
  benches=$(find "$BIN/benchmarks" -maxdepth 1 -name 'bench_*' -type f -executable 2>/dev/null | sort)
else
  tests=$(find "$BIN" -maxdepth 1 -name 'test_*' -type f -executable | sort)
  benches=$(find "$BIN" -maxdepth 1 -name 'bench_*' -type f -executable | sort)
fi

status=0
summary=()
for t in $tests; do
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
  san memcheck  "$dir/test_gpu_histogram" 'GpuHistogramExtras.*:GpuHistogram/0.*'
  san racecheck "$dir/test_gpu_histogram" 'GpuHistogramExtras.*'
  san racecheck "$dir/test_gpu_api"       'GpuApi.HostArrays*:GpuApi.Misaligned*:GpuApi.EmptySets*'
  san synccheck "$dir/test_gpu_api"       'GpuApi.HostArrays*:GpuApi.Misaligned*'
  unset TWOBODY_TEST_QUICK
fi

if [[ -z "${SKIP_BENCH:-}" ]]; then
  for b in $benches; do
    name=$(basename "$b")
    "$b" --benchmark_out="$OUT/$name.json" --benchmark_out_format=json ${BENCH_FILTER:+--benchmark_filter="$BENCH_FILTER"} \
      > "$OUT/$name.log" 2>&1 || status=1
    summary+=("$name rc=$? -> $OUT/$name.json")
    if [[ -f scripts/table_from_bench.py && -f "$OUT/$name.json" ]]; then python3 scripts/table_from_bench.py "$OUT/$name.json"; fi
  done
fi

echo "==== summary ===="
printf '%s\n' "${summary[@]}"
exit $status
