#!/usr/bin/env bash
# Issue 21 checks on a GPU machine (histograms past shared memory), built for sm_90a into
# build-bins/ (kept between calls on a warm machine). PART=
#   tests     test_model and test_gpu_histogram, then memcheck and racecheck on the spill tests;
#   functors  the one-call rows of bench_bins for the functors whose relative_cost the model takes;
#   rp_pi     the (r_p, pi) sweep, one-call form and the plan without the sampling planner;
#   spill     the spilling rows with .bin/bench_bins_old (the code before, built elsewhere and
#             carried) and the new binary, one after the other (ROUNDS=2: twice).
# Results in $OUT. TWOBODY_COMMIT names the commit in the benchmarks' JSON.
set -uo pipefail
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
D=$PWD/.deps/usr
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
B=build-bins; mkdir -p $B
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/gpu.txt"
flags="-std=c++17 --expt-relaxed-constexpr -arch=sm_90a -O3 -DNDEBUG -Iinclude -Ibenchmarks -Itests -I$D/include -Xcompiler=-fopenmp"
libs="-L$D/lib/x86_64-linux-gnu -lgomp -lpthread"
build() {  # name source libs...
  [[ -x $B/$1 ]] && return 0
  nvcc $flags "$2" -o "$B/$1" $libs "${@:3}" > "$OUT/build_$1.log" 2>&1 || { tail -20 "$OUT/build_$1.log"; return 1; }
}
bins() {  # output stem, filter
  $B/bench_bins --reps=3 --benchmark_filter="$2" --benchmark_out="$OUT/$1.json" --benchmark_out_format=json > "$OUT/$1.log" 2>&1
  grep -E "one_call|no_clusters|spill" "$OUT/$1.log" | cut -c1-150
}
case ${PART:-tests} in
  tests)
    build test_model tests/test_model.cu -lgtest -lgtest_main &
    build test_gpu_histogram tests/test_gpu_histogram.cu -lgtest -lgtest_main &
    build bench_bins benchmarks/bench_bins.cu -lbenchmark &
    wait
    for t in test_model test_gpu_histogram; do
      $B/$t > "$OUT/$t.log" 2>&1; echo "$t rc=$? passed=$(grep -c '^\[       OK' "$OUT/$t.log") failed=$(grep -c '^\[  FAILED  \] [A-Z]' "$OUT/$t.log")"
    done
    for tool in memcheck racecheck; do
      TWOBODY_TEST_QUICK=1 compute-sanitizer --tool $tool --error-exitcode 9 $B/test_gpu_histogram --gtest_filter='*Spill*' > "$OUT/$tool.log" 2>&1
      echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.log" | tail -1)"
    done ;;
  functors)
    build bench_bins benchmarks/bench_bins.cu -lbenchmark || exit 1
    bins bins-functors '^(sdh|sdh_ieee|rdf|rdf_ieee|rp_pi)/bins:4096/one_call/|^(sdh_ieee|rdf|rdf_ieee)/bins:(65536|262144)/(one_call|no_clusters)/' ;;
  rp_pi)
    build bench_bins benchmarks/bench_bins.cu -lbenchmark || exit 1
    bins bins-rp_pi '^rp_pi/bins:(16384|65536|262144|1048576)/(one_call|no_clusters)/' ;;
  spill)
    build bench_bins benchmarks/bench_bins.cu -lbenchmark || exit 1
    filter='^sdh/bins:(65536|131072|262144|1048576)/spill/|^rp_pi/bins:(65536|262144)/spill/|^(rdf|sdh_ieee)/bins:(65536|262144)/spill/'
    k=0
    for round in $(seq "${ROUNDS:-1}"); do
      for bin in .bin/bench_bins_old $B/bench_bins; do
        tag=$([[ $bin == .bin/* ]] && echo old || echo new); k=$((k + 1))
        $bin --reps=3 --benchmark_filter="$filter" --benchmark_out="$OUT/spill-$tag-$k.json" --benchmark_out_format=json > "$OUT/spill-$tag-$k.log" 2>&1
        echo "== $tag"; grep -E "spill" "$OUT/spill-$tag-$k.log" | awk '{print $1, $2, $3}'
      done
    done ;;
esac
