set -uo pipefail
D=$PWD/.deps/usr; export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu
B=build-rows; mkdir -p $B
flags="-std=c++17 --expt-relaxed-constexpr -arch=sm_90a -O2 -DNDEBUG -Iinclude -Itests -I$D/include -Xcompiler=-fopenmp"
for t in test_gpu_rows test_gpu_row_join test_gpu_nearest; do
  nvcc $flags tests/$t.cu -o $B/$t -L$D/lib/x86_64-linux-gnu -lgtest -lgtest_main -lgomp -lpthread > $OUT/build_$t.log 2>&1 &
  nvcc $flags -DTWOBODY_WGMMA_MIN_DIMS=1 tests/$t.cu -o $B/${t}_wg1 -L$D/lib/x86_64-linux-gnu -lgtest -lgtest_main -lgomp -lpthread > $OUT/build_${t}_wg1.log 2>&1 &
done
wait
for t in test_gpu_rows test_gpu_row_join test_gpu_nearest test_gpu_rows_wg1 test_gpu_row_join_wg1 test_gpu_nearest_wg1; do
  [[ -x $B/$t ]] || { echo "$t: build failed"; tail -5 $OUT/build_$t.log; continue; }
  timeout 200 $B/$t > $OUT/$t.log 2>&1; echo "$t rc=$? passed=$(grep -c '^\[       OK' $OUT/$t.log) failed=$(grep -c '^\[  FAILED  \] [A-Z]' $OUT/$t.log)"
done
TWOBODY_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu_nearest_wg1 > $OUT/memcheck_nearest.log 2>&1
echo "memcheck nearest_wg1 rc=$? $(grep 'ERROR SUMMARY' $OUT/memcheck_nearest.log | tail -1)"
