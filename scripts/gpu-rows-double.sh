#!/usr/bin/env bash
# Double rows on the GPU (their CUDA-core core, simt_row_products) with binaries built elsewhere
# for sm_90a and carried in .bin/ (bin.tar.xz: test_gpu_rows, test_gpu_row_join,
# test_gpu_nearest, bench_highdim): the three row test binaries, compute-sanitizer memcheck and
# racecheck on the double-row tests, then bench_highdim's double rows, the large sets
# (N = 2^18, 2^20) and the half / float counts of the same shapes, into $OUT/bench.json.
#   ROWS='regex'   benchmark filter (default below); SKIP_TESTS=1 / SKIP_BENCH=1;
#   TWOBODY_TEST_QUICK=1 drops the tests' large sizes (as for the sanitizers)
source "$(dirname "$0")/gpu-carried.sh"
B=.bin
# The tests and sanitizers are gpu-rows-ab.sh's. The sanitizers take the double edge-histogram
# test, not the ties test: under racecheck that one alone took more than 150 s
# (results/double-rows-dce5046-h200-2026-12-01); this filter took about 90 s.
if [[ "${SKIP_TESTS:-0}" != 1 ]]; then
  SKIP_BENCH=1 SANITIZERS='memcheck racecheck' SANITIZE_LIMIT=300 \
    SANITIZE_FILTER='GpuRowsDouble.*:GpuRows/3.HistogramsWithEveryPairOnAnEdgeEqualTheCpu' \
    OUT="$OUT" bash "$(dirname "$0")/gpu-rows-ab.sh"
fi
if [[ "${SKIP_BENCH:-0}" != 1 ]]; then
  rows=${ROWS:-'^((count|histogram|join|kernel_sum)/(twobody|cublas_gemm_pass)/double/|knn/twobody/double/|count/(twobody|cublas_gemm_pass)/half/uniform/N:(262144|1048576)/|knn/twobody/half/uniform/N:262144/|count/twobody(_simt)?/(half|float)/uniform/N:65536/D:128/|count/twobody(_simt)?/half/uniform/N:65536/D:960/|peak/)'}
  timeout 500 $B/bench_highdim --benchmark_filter="$rows" --benchmark_out="$OUT/bench.json" --benchmark_out_format=json \
    > "$OUT/bench.log" 2>&1
  echo "bench rc=$?"
  grep -E "_median|peak" "$OUT/bench.log" | sed -E 's/ +/ /g' | cut -c1-160
fi
