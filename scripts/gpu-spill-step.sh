#!/usr/bin/env bash
# Issue 21 (the spill's global updates once per step): on a GPU machine. PART=tests builds
# test_gpu_histogram and bench_bins (sm_90a) and runs the histogram tests, memcheck and racecheck
# on the spill test; PART=bench runs the spilling rows of bench_bins with .bin/bench_bins_old
# (the code before, built elsewhere and carried) and the new binary, one after the other. $OUT.
set -uo pipefail
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
D=$PWD/.deps/usr
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
B=build-spill; mkdir -p $B
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/gpu.txt"
flags="-std=c++17 --expt-relaxed-constexpr -arch=sm_90a -O3 -DNDEBUG -Iinclude -Ibenchmarks -Itests -I$D/include -Xcompiler=-fopenmp"
libs="-L$D/lib/x86_64-linux-gnu -lgomp -lpthread"
build() {  # name source libs...
  [[ -x $B/$1 ]] && return 0
  nvcc $flags "$2" -o "$B/$1" $libs "${@:3}" > "$OUT/build_$1.log" 2>&1 || { tail -20 "$OUT/build_$1.log"; return 1; }
}
if [[ ${PART:-tests} == tests ]]; then
  build test_gpu_histogram tests/test_gpu_histogram.cu -lgtest -lgtest_main &
  build bench_bins benchmarks/bench_bins.cu -lbenchmark &
  wait
  t=test_gpu_histogram
  $B/$t > "$OUT/$t.log" 2>&1; echo "$t rc=$? passed=$(grep -c '^\[       OK' "$OUT/$t.log") failed=$(grep -c '^\[  FAILED  \] [A-Z]' "$OUT/$t.log")"
  for tool in memcheck racecheck; do
    TWOBODY_TEST_QUICK=1 compute-sanitizer --tool $tool --error-exitcode 9 $B/$t --gtest_filter='*Spill*' > "$OUT/$tool.log" 2>&1
    echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.log" | tail -1)"
  done
else
  k=0
  filter='^sdh/bins:(65536|131072|262144|1048576)/spill/|^rp_pi/bins:(65536|262144)/spill/|^(rdf|sdh_ieee)/bins:(65536|262144)/spill/'
  for bin in .bin/bench_bins_old $B/bench_bins .bin/bench_bins_old $B/bench_bins; do
    tag=$( [[ $bin == .bin/* ]] && echo old || echo new )
    $bin --reps=3 --benchmark_filter="$filter" --benchmark_out="$OUT/spill-$tag-$((++k)).json" --benchmark_out_format=json > "$OUT/spill-$tag-$k.log" 2>&1
    echo "== $tag"; grep -E "spill" "$OUT/spill-$tag-$k.log" | awk '{print $1, $2, $3}'
    [[ ${ROUNDS:-1} == 1 && $k == 2 ]] && break
  done
fi
