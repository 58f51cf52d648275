#!/usr/bin/env bash
# Issue 24 check of the host-synchronous floor, with binaries carried in .bin/ (built on a
# machine without a GPU): the GPU tests named in TESTS (each from .bin/), memcheck, racecheck
# and synccheck on SAN_TESTS with SAN_FILTER, then bench_frames_before and bench_frames (after)
# (or the BENCHES list of name=commit) in turn, ROUNDS times, on the floor rows (FILTER) at SIZES
# (commits BEFORE_COMMIT, AFTER_COMMIT), the bench_suite binaries of SUITES, and .bin/host_probe
# where carried. Results in $OUT; at most 8 files come back,
# so the test and sanitizer logs go into one file each.
source "$(dirname "$0")/gpu-carried.sh" "$@"
rm -f "$OUT/gpu.txt"  # (the JSON files' context names the GPU)
for t in ${TESTS:-}; do
  log="$OUT/test.tmp"
  TWOBODY_TEST_QUICK=${QUICK:-} .bin/$t > "$log" 2>&1; rc=$?
  echo "$t rc=$rc passed=$(grep -c '^\[       OK' "$log") failed=$(grep -c '^\[  FAILED  \] [A-Z]' "$log")"
  [[ $rc -ne 0 ]] && grep -B2 -A10 'Failure' "$log" | head -40
  cat "$log" >> "$OUT/tests.log"; rm -f "$log"
done
for t in ${SAN_TESTS:-}; do
  for tool in memcheck racecheck synccheck; do
    log="$OUT/san.tmp"
    TWOBODY_TEST_QUICK=1 compute-sanitizer --tool $tool --error-exitcode 9 .bin/$t --gtest_filter="${SAN_FILTER:-*}" > "$log" 2>&1
    echo "$tool $t rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
    cat "$log" >> "$OUT/sanitizer.log"; rm -f "$log"
  done
done
filter=${FILTER:-^floor/(count|rdf128|per_point)/(sync|async)/}
# BENCHES: binaries of .bin/ as name=commit, run in turn each round (default: the before and after pair).
benches=${BENCHES:-bench_frames_before=${BEFORE_COMMIT:-} bench_frames=${AFTER_COMMIT:-}}
for round in $(seq 1 "${ROUNDS:-2}"); do
  for nc in $benches; do
    b=${nc%%=*}
    [[ -x .bin/$b ]] || continue
    TWOBODY_COMMIT=${nc#*=} .bin/$b --sizes="${SIZES:-256,1024,4096}" --benchmark_filter="$filter" \
      --benchmark_out="$OUT/${b}_$round.json" --benchmark_out_format=json > /dev/null 2>&1
  done
done
# SUITES: bench_suite binaries of .bin/ as name=commit, once each on SUITE_FILTER at SUITE_SIZES
# (default the one-call SDH, 256 bins, N = 2^20), median of 5 repetitions.
for nc in ${SUITES:-}; do
  b=${nc%%=*}
  [[ -x .bin/$b ]] || continue
  TWOBODY_COMMIT=${nc#*=} .bin/$b --sizes="${SUITE_SIZES:-1048576}" --benchmark_filter="${SUITE_FILTER:-^sdh256/one_call/}" \
    --benchmark_repetitions=5 --benchmark_out="$OUT/$b.json" --benchmark_out_format=json > /dev/null 2>&1
  python3 - "$OUT/$b.json" "$b" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["benchmarks"]:
    if r.get("aggregate_name") == "median":
        print(sys.argv[2], r["run_name"], "median", {k: round(v, 4) for k, v in r.items() if k in ("real_time", "Tpairs_per_s", "pairs_per_s")})
PY
done
[[ -x .bin/host_probe ]] && .bin/host_probe > "$OUT/host_probe.txt" 2>&1
python3 "$(dirname "$0")/frames_rounds_table.py" "$OUT"
