#!/usr/bin/env bash
# Issue 24 probe: ncu duration, instructions, issue activity and registers of the small one-call
# kernels (RDF at 256/1024/4096, per-point sums at 4096), for .bin/bench_frames_before and
# .bin/bench_frames (carried). All output in $OUT/ncu.txt; a summary is printed.
source scripts/gpu-carried.sh
M=gpu__time_duration.sum,sm__inst_executed.sum,launch__grid_size,launch__registers_per_thread,launch__block_size,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.per_cycle_active,sm__cycles_active.avg
for b in bench_frames_before bench_frames; do
  for f in 'floor/rdf128/async/1024/' 'floor/rdf128/async/256/' 'floor/per_point/async/4096/' 'floor/rdf128/async/4096/'; do
    echo "== $b $f"
    ncu --clock-control none --metrics $M --launch-skip 40 --launch-count 3 .bin/$b --sizes=256,1024,4096 --benchmark_filter="$f" \
      --benchmark_repetitions=1 --benchmark_min_time=0.0001 2>&1 | grep -E "pair_engine|gpu__|sm__|smsp__|launch__" | sed -E 's/pair_engine_kernel<.*shared_tile<([0-9, ]+)>.*/shared_tile<\1>/' | cut -c1-120
  done
done > $OUT/ncu.txt 2>&1
rm -f $OUT/gpu.txt
awk '/^==/{print} /shared_tile|gpu__time|inst_executed|issue_active|registers|grid_size/{print}' $OUT/ncu.txt | head -150
