#!/usr/bin/env bash
# Issue 24 probe: GPU durations of empty, wide and grid-barrier kernels, and source-level stall
# samples of the small count kernels (needs build/benchmarks/bench_frames from probe-groups.sh).
set -uo pipefail
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
B=${B:-build/benchmarks/bench_frames}
[[ -x $B ]] || cmake --build build --target bench_frames -j16 > "$OUT/build.log" 2>&1
M=gpu__time_duration.sum,sm__cycles_active.max,sm__inst_executed.sum,launch__grid_size
for f in 'phase/empty_kernel_async/0/' 'phase/wide_kernel_async/132/' 'phase/grid_barrier_async/132/' 'phase/grid_barrier_async/528/' 'floor/count/async/256/' 'floor/count/async/1024/'; do
  echo "== $f"
  ncu --clock-control none --metrics $M --launch-skip 40 --launch-count 3 $B --sizes=256,1024 --benchmark_filter="$f" \
     --benchmark_repetitions=1 --benchmark_min_time=0.0001 2>&1 | grep -E "gpu__|sm__|launch__" | cut -c1-150
done
for f in 'floor/count/async/256/' 'shape/count/tile:128x1/groups:2/4096/'; do
  name=$(echo "$f" | tr '/:' '__')
  ncu --clock-control none --section SourceCounters --section WarpStateStats --launch-skip 40 --launch-count 1 -o "$OUT/$name" \
     $B --sizes=256,4096 --benchmark_filter="$f" --benchmark_repetitions=1 --benchmark_min_time=0.0001 > /dev/null 2>&1
  ncu -i "$OUT/$name.ncu-rep" --page source --csv --print-source sass > "$OUT/$name.sass.csv" 2>&1
  rm -f "$OUT/$name.ncu-rep"
  wc -l "$OUT/$name.sass.csv"
done
