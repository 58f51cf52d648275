#!/usr/bin/env bash
# Issue 24 check of the host-synchronous floor, with binaries carried in .bin/ (built on a
# machine without a GPU): the GPU tests named in TESTS (each from .bin/), memcheck, racecheck
# and synccheck on SAN_TESTS with SAN_FILTER, then bench_frames_before and bench_frames (after)
# in turn, ROUNDS times, on the floor rows (FILTER) at SIZES. Results in $OUT.
source "$(dirname "$0")/gpu-carried.sh" "$@"
for t in ${TESTS:-}; do
  log="$OUT/$t.log"
  TWOBODY_TEST_QUICK=${QUICK:-} .bin/$t > "$log" 2>&1; rc=$?
  echo "$t rc=$rc passed=$(grep -c '^\[       OK' "$log") failed=$(grep -c '^\[  FAILED  \] [A-Z]' "$log")"
  [[ $rc -ne 0 ]] && grep -B2 -A10 'Failure' "$log" | head -40
done
for t in ${SAN_TESTS:-}; do
  for tool in memcheck racecheck synccheck; do
    TWOBODY_TEST_QUICK=1 compute-sanitizer --tool $tool --error-exitcode 9 .bin/$t --gtest_filter="${SAN_FILTER:-*}" \
      > "$OUT/${tool}_$t.log" 2>&1
    echo "$tool $t rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/${tool}_$t.log" | tail -1)"
  done
done
filter=${FILTER:-^floor/(count|rdf128|per_point)/(sync|async)/}
for round in $(seq 1 "${ROUNDS:-2}"); do
  for b in bench_frames_before bench_frames; do
    [[ -x .bin/$b ]] || continue
    .bin/$b --sizes="${SIZES:-256,1024,4096}" --benchmark_filter="$filter" \
      --benchmark_out="$OUT/${b}_$round.json" --benchmark_out_format=json > "$OUT/${b}_$round.txt" 2>&1
  done
done
python3 - "$OUT" <<'PY'
import glob, json, os, sys
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "bench_frames*_*.json"))):
    which = "before" if "before" in os.path.basename(f) else "after"
    for b in json.load(open(f))["benchmarks"]:
        if b.get("aggregate_name") != "median": continue
        name = b["run_name"].split("/min_time")[0].split("/repeats")[0]
        rows.setdefault(name, {}).setdefault(which, []).append(b["real_time"])
for name, v in rows.items():
    fmt = lambda xs: " / ".join(f"{x:7.2f}" for x in xs)
    print(f"{name:40s} before {fmt(v.get('before', []))}  after {fmt(v.get('after', []))} us")
PY
