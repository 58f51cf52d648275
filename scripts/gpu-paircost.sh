#!/usr/bin/env bash
# Issue 21 (the model's pair cost): on a GPU machine, builds test_model, test_gpu_histogram and
# bench_bins (sm_90a), runs the tests, then the one-call rows of bench_bins for the functors whose
# relative_cost the model takes and the (r_p, pi) sweep with and without the sampling planner.
# PART=tests|functors|rp_pi (default: all). Results in $OUT.
set -uo pipefail
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
D=$PWD/.deps/usr
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
B=build-paircost; mkdir -p $B
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/gpu.txt"
flags="-std=c++17 --expt-relaxed-constexpr -arch=sm_90a -O3 -DNDEBUG -Iinclude -Ibenchmarks -Itests -I$D/include -Xcompiler=-fopenmp"
libs="-L$D/lib/x86_64-linux-gnu -lgomp -lpthread"
build() {  # name source libs...
  [[ -x $B/$1 ]] && return 0
  nvcc $flags "$2" -o "$B/$1" $libs "${@:3}" > "$OUT/build_$1.log" 2>&1 || { tail -20 "$OUT/build_$1.log"; return 1; }
}
part=${PART:-all}
if [[ $part == all || $part == tests ]]; then
  build test_model tests/test_model.cu -lgtest -lgtest_main &
  build test_gpu_histogram tests/test_gpu_histogram.cu -lgtest -lgtest_main &
  build bench_bins benchmarks/bench_bins.cu -lbenchmark &
  wait
  for t in test_model test_gpu_histogram; do
    $B/$t > "$OUT/$t.log" 2>&1; echo "$t rc=$? passed=$(grep -c '^\[       OK' "$OUT/$t.log") failed=$(grep -c '^\[  FAILED  \] [A-Z]' "$OUT/$t.log")"
  done
fi
build bench_bins benchmarks/bench_bins.cu -lbenchmark || exit 1
if [[ $part == all || $part == functors ]]; then
  TWOBODY_COMMIT=${TWOBODY_COMMIT:-} $B/bench_bins --reps=3 --benchmark_filter='^(sdh|sdh_ieee|rdf|rdf_ieee|rp_pi)/bins:4096/one_call/|^(sdh_ieee|rdf|rdf_ieee)/bins:(65536|262144)/(one_call|no_clusters)/' \
    --benchmark_out="$OUT/bins-functors.json" --benchmark_out_format=json > "$OUT/bins-functors.log" 2>&1
  grep -E "one_call|no_clusters" "$OUT/bins-functors.log" | cut -c1-150
fi
if [[ $part == all || $part == rp_pi ]]; then
  TWOBODY_COMMIT=${TWOBODY_COMMIT:-} $B/bench_bins --reps=3 --benchmark_filter='^rp_pi/bins:(16384|65536|262144|1048576)/(one_call|no_clusters)/' \
    --benchmark_out="$OUT/bins-rp_pi.json" --benchmark_out_format=json > "$OUT/bins-rp_pi.log" 2>&1
  grep -E "one_call|no_clusters" "$OUT/bins-rp_pi.log" | cut -c1-150
fi
