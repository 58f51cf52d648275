#!/usr/bin/env bash
# Issue 21 item 2 on a GPU machine: histograms past shared memory in passes over spread windows
# on tile-ordered points (each pass visits only the tile pairs whose slots it counts). Runs the
# binaries carried in .bin/ (bin.tar.xz is unpacked first): the tests in $TESTS (default
# test_gpu_tile_forms test_gpu_histogram), $SAN_TOOLS (default memcheck racecheck) on $SAN_FILTER, then
# bench_bins' rows matching $ROWS (default: the SDH and RDF from 65536 to 1 M bins, one-call,
# spill and ordered passes). TWOBODY_COMMIT names the commit in the JSON; results in $OUT.
source "$(dirname "$0")/gpu-carried.sh" "$@"  # --help, $OUT, the carried binaries, gpu.txt
for t in ${TESTS-test_gpu_tile_forms test_gpu_histogram}; do
  [[ -x .bin/$t ]] || continue
  .bin/$t > "/tmp/$t.log" 2>&1
  echo "$t rc=$? passed=$(grep -c '^\[       OK' "/tmp/$t.log") failed=$(grep -c '^\[  FAILED  \] [A-Z]' "/tmp/$t.log")"
  grep -B2 -A8 "Failure" "/tmp/$t.log" | head -40
done
if [[ -n "${SAN_FILTER-*PassesVisitOnly*}" && -x .bin/test_gpu_tile_forms ]]; then
  for tool in ${SAN_TOOLS-memcheck racecheck}; do
    TWOBODY_TEST_QUICK=1 compute-sanitizer --tool $tool --error-exitcode 9 .bin/test_gpu_tile_forms \
      --gtest_filter="${SAN_FILTER-*PassesVisitOnly*}" > "/tmp/$tool.log" 2>&1
    echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "/tmp/$tool.log" | tail -1)"
  done
fi
[[ -x .bin/bench_bins ]] || exit 0
rows=${ROWS-'^(sdh|rdf)/bins:(65536|131072|262144|524288|1048576)/(one_call|spill|ordered_passes)'}
.bin/bench_bins --reps=${REPS:-3} --benchmark_filter="$rows" --benchmark_out="$OUT/bins-culled.json" \
  --benchmark_out_format=json > /tmp/bins.log 2>&1
echo "bench_bins rc=$?"; grep -E "^(sdh|rdf)" /tmp/bins.log | awk '{printf "%-48s %10s %s  %s\n", $1, $2, $3, substr($0, index($0, "pairs_per_s"))}' | cut -c1-200
