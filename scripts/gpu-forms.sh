#!/usr/bin/env bash
# Issue 21 item 3 on a GPU machine: minimum-image histograms on tile-ordered points with
# tile forms. Runs binaries built elsewhere and carried in .bin/ (test_gpu_tile_forms,
# bench_suite): the tests, memcheck and racecheck on the forms tests, then
# bench_suite's RDF and SDH rows at N = 2^18 and 2^20 (the one-call form, which orders the points, next
# to the explicit unordered form), and the one-call RDF with its tile size forced
# (TWOBODY_POLICY=points_per_thread=4 and 8). JSON results in $OUT, logs in /tmp.
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then  # the comment block above
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0
fi
set -uo pipefail
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/gpu.txt"
for t in ${TESTS:-test_gpu_tile_forms}; do
  .bin/$t > "/tmp/$t.log" 2>&1
  echo "$t rc=$? passed=$(grep -c '^\[       OK' "/tmp/$t.log") failed=$(grep -c '^\[  FAILED  \] [A-Z]' "/tmp/$t.log")"
  grep -B2 -A8 "Failure" "/tmp/$t.log" | head -40
done
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 .bin/test_gpu_tile_forms --gtest_filter='*MatchTheCpuBackend*' > "/tmp/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "/tmp/$tool.log" | tail -1)"
done
[[ -x .bin/bench_suite ]] || exit 0
suite() {  # stem, filter, environment...
  env "${@:3}" .bin/bench_suite --sizes=262144,1048576 --no_e2e_large --benchmark_filter="$2" \
    --benchmark_out="$OUT/$1.json" --benchmark_out_format=json > "/tmp/$1.log" 2>&1
  echo "== $1 ${*:3}"; grep -E "_median" "/tmp/$1.log" | awk '{print $1, $2, $NF}'
}
suite suite '^(rdf256|sdh256)/(one_call|shared_tile8\+warp_privatized32)/'
suite rdf-ppt4 '^rdf256/one_call/' TWOBODY_POLICY=points_per_thread=4
suite rdf-ppt8 '^rdf256/one_call/' TWOBODY_POLICY=points_per_thread=8
