#!/usr/bin/env bash
# Issue 24's cells of the box (detail/cell_list_traversal.cuh) on a GPU machine, from binaries
# carried in .bin/ (scripts/gpu-carried.sh): test_gpu_cell_list and compute-sanitizer on it, then
# bench_frames' floor rows of the BENCHES binaries in two rounds of opposite order (base, new, new,
# base for two), and Nsight Compute on each binary's RDF kernel at 4096 points.
#   TESTS       the test binaries in .bin/ to run (unset: test_gpu_cell_list; empty: none)
#   SANITIZE    BINARY=FILTER entries for memcheck and synccheck (default: the cells' tests, where
#               test_gpu_cell_list is among TESTS); RACECHECK the same for racecheck; SANITIZE_QUICK=1
#               runs them with TWOBODY_TEST_QUICK=1 (smaller sets where a test has them)
#   SKIP_BENCH  1: tests only
#   SIZES, ROWS the bench's --sizes (default 256,1024,4096) and row filter (the floor rows)
#   BENCHES     the bench binaries in .bin/ to alternate (default: bench_frames_base bench_frames):
#               round 1 in that order, round 2 in the reverse order
#   SKIP_NCU    1: no Nsight Compute run after the bench rounds
#   KERNEL_ROWS bench rows (regexes) whose kernels' GPU time Nsight Compute takes per binary instead
#               of the default profile: launches 20-59 of each, no cache flush or clock lock, medians
#               in kernel_times.md (what the host's enqueueing, which varies by microseconds from
#               one run to the next, leaves out of the bench rows' times)
# Results in $OUT (tests/, sanitizer logs, bench/BINARY_ROUND.json, profile/).
source "$(dirname "$0")/gpu-carried.sh" "$@"
mkdir -p "$OUT/tests" "$OUT/bench" "$OUT/profile"
run_test() {
  local t=$1 log="$OUT/tests/$1.log"
  ".bin/$t" > "$log" 2>&1; local rc=$?
  echo "$t rc=$rc passed=$(grep -c '^\[       OK' "$log") failed=$(grep -c '^\[  FAILED  \] [A-Z]' "$log")"
  [[ $rc -ne 0 ]] && grep -B2 -A10 'Failure' "$log" | head -40
}
TESTS=${TESTS-test_gpu_cell_list}
for t in $TESTS; do run_test "$t"; done | tee "$OUT/tests.txt"
if [[ " $TESTS " == *" test_gpu_cell_list "* ]]; then
  SANITIZE=${SANITIZE:-'test_gpu_cell_list=GpuCellList.*'}
  RACECHECK=${RACECHECK:-'test_gpu_cell_list=GpuCellList.AnisotropicBoxesAndTwoDimensions:GpuCellList.StrayPointsVisitEveryPair'}
fi
sanitize() {  # tool, BINARY=FILTER entries
  local tool=$1 entry; shift
  for entry in "$@"; do
    local bin=${entry%%=*} filter=${entry#*=}
    local log="$OUT/${tool}_${bin}.log"
    TWOBODY_TEST_QUICK=${SANITIZE_QUICK:-0} timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 ".bin/$bin" --gtest_filter="$filter" > "$log" 2>&1
    echo "$tool $bin rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)" | tee -a "$OUT/tests.txt"
  done
}
read -ra entries <<< "${SANITIZE:-}"
sanitize memcheck "${entries[@]}"
sanitize synccheck "${entries[@]}"
read -ra entries <<< "${RACECHECK:-}"
sanitize racecheck "${entries[@]}"
[[ ${SKIP_BENCH:-0} == 1 ]] && exit 0
rows=${ROWS:-'^floor/(rdf128|count|per_point)/(sync|async)/|^floor/rdf128_reach/'}
round() {  # binary name, round
  ".bin/$1" --sizes=${SIZES:-256,1024,4096} --benchmark_filter="$rows" --benchmark_out="$OUT/bench/$1_$2.json" \
    --benchmark_out_format=json > "$OUT/bench/$1_$2.log" 2>&1
  echo "$1 round $2 rc=$?"
}
read -ra benches <<< "${BENCHES:-bench_frames_base bench_frames}"
for b in "${benches[@]}"; do round "$b" 1; done
for ((k = ${#benches[@]} - 1; k >= 0; --k)); do round "${benches[k]}" 2; done
python3 scripts/frames_rounds_table.py "$OUT/bench" > "$OUT/table.md" 2>&1; cat "$OUT/table.md"
if [[ -n ${KERNEL_ROWS:-} ]]; then
  for row in $KERNEL_ROWS; do
    for b in "${benches[@]}"; do
      log="$OUT/profile/times_${b}_$(echo "$row" | tr -c 'A-Za-z0-9' _).csv"
      timeout 120 ncu --csv --cache-control none --clock-control none --kernel-name regex:pair_engine \
        --launch-skip 20 --launch-count 40 --metrics gpu__time_duration.sum ".bin/$b" --sizes=${SIZES:-256,1024,4096} \
        --benchmark_filter="$row" --benchmark_repetitions=1 > "$log" 2>&1
      echo "ncu $b $row rc=$?"
    done
  done
  python3 scripts/kernel_times_table.py "$OUT/profile" > "$OUT/kernel_times.md" 2>&1; cat "$OUT/kernel_times.md"
  exit 0
fi
[[ ${SKIP_NCU:-0} == 1 ]] && exit 0
for b in "${benches[@]}"; do
  timeout 120 ncu --kernel-name regex:pair_engine --launch-skip 3 --launch-count 1 --section SpeedOfLight \
    --section LaunchStats --section Occupancy --metrics smsp__inst_executed.sum,sm__cycles_active.avg \
    ".bin/$b" --sizes=4096 --benchmark_filter='^floor/rdf128/async/4096' --benchmark_repetitions=1 \
    > "$OUT/profile/$b.txt" 2>&1
  echo "ncu $b rc=$? $(grep -E 'Duration|inst_executed.sum|cycles_active.avg' "$OUT/profile/$b.txt" | tr -s ' ' | tr '\n' ';')"
done
