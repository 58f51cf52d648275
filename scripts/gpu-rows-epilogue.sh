#!/usr/bin/env bash
# Issue 22: the per-pair epilogue of rows on a GPU machine. Runs the carried bench_highdim binaries
# .bin/bench_highdim_before and .bin/bench_highdim in turn ($ROUNDS times, rows matching $ROWS),
# $SIMT_ROWS once with the after binary, and, with NCU=1, Nsight Compute's per-SASS-instruction
# counts of the kernels in $NCU_ROWS (one launch each: warp-instructions executed per source line).
# First the carried tests in $TESTS (logs of failures in $OUT) and compute-sanitizer memcheck on
# $SAN_TESTS ($SAN_FILTER).
# Results in $OUT: bench_{before,after}_{round}.json, simt.json, ncu_*.sass.csv (gzip).
source "$(dirname "$0")/gpu-carried.sh" "$@"  # --help, $OUT, the carried binaries, gpu.txt
for t in ${TESTS-test_gpu_rows test_gpu_row_join test_gpu_nearest}; do
  [[ -x .bin/$t ]] || continue
  timeout 300 .bin/$t > "/tmp/$t.log" 2>&1; rc=$?
  echo "$t rc=$rc passed=$(grep -c '^\[       OK' "/tmp/$t.log") failed=$(grep -c '^\[  FAILED  \] [A-Z]' "/tmp/$t.log")"
  [[ $rc == 0 ]] || { cp "/tmp/$t.log" "$OUT/"; grep -B2 -A8 Failure "/tmp/$t.log" | head -30; }
done
for t in ${SAN_TESTS-}; do
  TWOBODY_TEST_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 .bin/$t \
    --gtest_filter="${SAN_FILTER:-*}" > "/tmp/memcheck_$t.log" 2>&1
  echo "memcheck $t rc=$? $(grep 'ERROR SUMMARY' "/tmp/memcheck_$t.log" | tail -1)"
done
rows=${ROWS:-'^(count/twobody|kernel_sum/twobody|join/twobody)/(half|float)/uniform/N:65536/D:(32|128|256|960)/'}
for r in $(seq 1 "${ROUNDS:-2}"); do
  for b in before after; do
    bin=.bin/bench_highdim; [[ $b == before ]] && bin=.bin/bench_highdim_before
    [[ -x $bin ]] || continue
    $bin --benchmark_filter="$rows" --benchmark_out="$OUT/bench_${b}_$r.json" --benchmark_out_format=json > /tmp/b.log 2>&1
    echo "== $b round $r rc=$?"
    grep -E "_median" /tmp/b.log | awk '{printf "%-70s %8s %s\n", $1, $2, $3}' | sed 's/iterations:1\/repeats:5\/manual_time_median//'
  done
done
if [[ -n "${SIMT_ROWS:-}" ]]; then
  .bin/bench_highdim --benchmark_filter="$SIMT_ROWS" --benchmark_out="$OUT/simt.json" --benchmark_out_format=json > /tmp/s.log 2>&1
  echo "== simt rc=$?"; grep -E "_median" /tmp/s.log | awk '{printf "%-70s %8s %s\n", $1, $2, $3}'
fi
if [[ "${NCU:-0}" == 1 ]]; then
  for f in ${NCU_ROWS:-'count/twobody/half/uniform/N:65536/D:128/'}; do
    name=ncu_$(echo "$f" | tr '/:' '__' | sed 's/_*$//')
    ncu --clock-control none --section SourceCounters --section WarpStateStats --section LaunchStats -k regex:pair_engine \
      --launch-skip 1 --launch-count 1 -o "/tmp/$name" .bin/bench_highdim --benchmark_filter="$f" > /tmp/ncu.log 2>&1
    echo "== $name rc=$?"; tail -2 /tmp/ncu.log
    ncu -i "/tmp/$name.ncu-rep" --page source --csv --print-source sass > "/tmp/$name.sass.csv" 2>&1
    ncu -i "/tmp/$name.ncu-rep" --page details > "$OUT/$name.details.txt" 2>&1
    gzip -c "/tmp/$name.sass.csv" > "$OUT/$name.sass.csv.gz"; wc -l "/tmp/$name.sass.csv"
  done
fi
