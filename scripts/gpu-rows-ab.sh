#!/usr/bin/env bash
# A before/after run of the row statistics with binaries built elsewhere for sm_90a and carried
# in .bin/ (bin.tar.xz: test_gpu_rows, test_gpu_row_join, test_gpu_nearest, bench_highdim, and
# bench_highdim_base, the same benchmark built from the commit before): the three row test
# binaries, compute-sanitizer memcheck, racecheck and synccheck on the half-row tests (the
# tensor cores' wgmma path), then ROUNDS rounds of the benchmark rows with the two binaries in
# alternating order (base first in odd rounds), into $OUT/ab-<round>-<base|new>.json.
#   ROWS='regex'   benchmark filter (default below); ROUNDS=2; SKIP_TESTS=1 / SKIP_BENCH=1;
#   NO_TMA_ROWS='regex': also run these rows with TWOBODY_NO_TMA=1 in the new binary, each round;
#   TESTS='test_gpu_rows ...' (default the three), SANITIZERS='memcheck racecheck synccheck',
#   SANITIZE_BINARY (default test_gpu_rows) and SANITIZE_FILTER (default its half-row typed tests),
#   SANITIZE_LIMIT=200 and TEST_LIMIT=300 (seconds per binary)
source "$(dirname "$0")/gpu-carried.sh"
B=.bin
if [[ "${SKIP_TESTS:-0}" != 1 ]]; then
  for t in ${TESTS:-test_gpu_rows test_gpu_row_join test_gpu_nearest}; do
    timeout ${TEST_LIMIT:-300} $B/$t > "$OUT/$t.log" 2>&1
    echo "$t rc=$? passed=$(grep -c '^\[       OK' "$OUT/$t.log") failed=$(grep -c '^\[  FAILED  \] [A-Z]' "$OUT/$t.log")"
  done
  filter=${SANITIZE_FILTER:-'GpuRows/1.*'}
  for tool in ${SANITIZERS:-memcheck racecheck synccheck}; do
    TWOBODY_TEST_QUICK=1 timeout ${SANITIZE_LIMIT:-200} compute-sanitizer --tool $tool --error-exitcode 9 $B/${SANITIZE_BINARY:-test_gpu_rows} \
      --gtest_filter="$filter" > "$OUT/$tool.log" 2>&1
    echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.log" | tail -1)"
  done
fi
if [[ "${SKIP_BENCH:-0}" != 1 ]]; then
  rows=${ROWS:-'^((count|histogram|kernel_sum)/twobody/half/uniform/N:65536/D:(128|256|960|4096)/|count/twobody_no_refine/half/uniform/N:65536/D:(960|4096)/|knn/twobody/half/uniform/N:65536/D:(128|960)/k:(10|32)/|join/twobody/half/uniform/N:65536/D:(128|960)/|peak/)'}
  run() {  # binary, output name, [env]
    env ${3:-} timeout 280 $B/$1 --benchmark_filter="$rows" --benchmark_out="$OUT/$2.json" --benchmark_out_format=json \
      > "$OUT/$2.log" 2>&1
    echo "$2 rc=$?"
  }
  for ((r = 1; r <= ${ROUNDS:-2}; ++r)); do
    if ((r % 2)); then order="base new"; else order="new base"; fi
    for w in $order; do
      if [[ $w == base ]]; then run bench_highdim_base ab-$r-base; else run bench_highdim ab-$r-new; fi
    done
    if [[ -n "${NO_TMA_ROWS:-}" ]]; then
      rows_saved=$rows; rows=$NO_TMA_ROWS; run bench_highdim ab-$r-new-no-tma TWOBODY_NO_TMA=1; rows=$rows_saved
    fi
  done
  for f in "$OUT"/ab-*.log; do
    echo "== $(basename "$f" .log)"; grep -E "_median" "$f" | sed -E 's/ +/ /g' | cut -c1-150
  done
fi
