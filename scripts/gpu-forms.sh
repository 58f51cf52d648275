#!/usr/bin/env bash
# Issue 21 item 3 on a GPU machine: distance and minimum-image histograms on tile-ordered
# points with tile forms. Runs binaries built elsewhere and carried in .bin/ (the tests in
# $TESTS, default test_gpu_tile_forms; bench_suite): the tests, memcheck on the CPU-backend
# tests of the forms and racecheck on $RACE_FILTER, then bench_suite's RDF and SDH rows at
# N = 2^18 and 2^20 (the one-call form, which orders the points, next to the explicit
# unordered form). With BEFORE=<binary> (an earlier bench_suite), both binaries run the
# one-call rows in turn, twice, in the same call (suite-before-K / suite-after-K). With
# NCU=1, ncu counts the instructions and issue activity of the one-call SDH and RDF pair
# kernels at N = 2^20 (ncu-*.csv); with SASS=1, scripts/sass_mix.py prints the hot loops of
# the large tiles' formed kernels. JSON results in $OUT, logs in /tmp.
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
sanitize() {  # tool, gtest filter
  compute-sanitizer --tool "$1" --error-exitcode 9 .bin/test_gpu_tile_forms --gtest_filter="$2" > "/tmp/$1.log" 2>&1
  echo "$1 ($2) rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "/tmp/$1.log" | tail -1)"
}
sanitize memcheck '*CpuBackend*'
sanitize racecheck "${RACE_FILTER:-*MatchTheCpuBackend*}"
[[ -x .bin/bench_suite ]] || exit 0
suite() {  # stem, binary, filter, environment...
  env "${@:4}" "$2" --sizes=262144,1048576 --no_e2e_large --benchmark_filter="$3" \
    --benchmark_out="$OUT/$1.json" --benchmark_out_format=json > "/tmp/$1.log" 2>&1
  echo "== $1 ${*:4}"; grep -E "_median" "/tmp/$1.log" | awk '{print $1, $2, $NF}'
}
rows='^(rdf256|sdh256|sdh4096)/(one_call|shared_tile8\+warp_privatized32)/'
if [[ -n "${BEFORE:-}" ]]; then
  for k in 1 2; do
    suite "suite-before-$k" "$BEFORE" '^(rdf256|sdh256|sdh4096)/one_call/'
    suite "suite-after-$k" .bin/bench_suite "$rows"
  done
else
  suite suite .bin/bench_suite "$rows"
fi
if [[ "${NCU:-0}" == 1 ]]; then
  stalls=$(printf 'smsp__average_warps_issue_stalled_%s_per_issue_active.ratio,' mio_throttle short_scoreboard math_pipe_throttle \
    barrier long_scoreboard wait not_selected dispatch_stall lg_throttle); stalls=${stalls%,}
  for bin in ${BEFORE:-} .bin/bench_suite; do
    for row in sdh256 rdf256; do
      stem="ncu-$row-$(basename "$bin")"
      ncu --clock-control none --kernel-name regex:pair_engine --launch-count 3 --csv \
        --metrics "sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,$stalls" \
        "$bin" --sizes=1048576 --no_e2e_large --benchmark_filter="^$row/one_call/" --benchmark_repetitions=1 \
        > "$OUT/$stem.csv" 2> "/tmp/$stem.err"
      echo "== $stem"; grep -E 'inst_executed|issue_active|duration|registers|grid_size|stalled' "$OUT/$stem.csv" | awk -F'","' '{print $1, $(NF-2), $NF}'
    done
  done
fi
if [[ "${SASS:-0}" == 1 ]]; then  # the hot loops of the SDH's formed kernels (mangled names)
  cuobjdump -sass .bin/bench_suite > /tmp/suite.sass 2> /dev/null
  python3 scripts/sass_mix.py /tmp/suite.sass --filter 'shared_tileILi256ELi[48]ELi1ELi1E.*window_modeE0EEENS0_11tile_formed' --top 14 --blocks 3 > "$OUT/sass-formed.txt"
  echo "== sass (formed kernels of the large tiles)"; sed -E 's/^_Z.*(shared_tileILi[0-9]+ELi[0-9]+).*tile_formedINS_([0-9a-z_]+)E.*/\1 \2/' "$OUT/sass-formed.txt"
fi
