# Sourced by scripts/test.sh and scripts/python-test.sh: the CUDA architectures and flags that
# the test builds use. With a GPU (or CUDA_ARCHS set) real code for CUDA_ARCHS (default 90a).
# Without one the device tests skip, so device code only has to compile: PTX only, without
# device optimisation; that cuts a test's compile time to about a third (cicc's optimiser and
# ptxas are most of it), and host code at -O1 instead of Release's -O3 (gcc's -O3 took 89 of a
# test's 128 s; -O1 73 s in all, and the host tests still run at a usable speed) where it runs
# here (TWOBODY_TEST_RUN_FLAGS: host tests, examples, benchmark smoke runs), unoptimised where it
# does not (the GPU tests and the other benchmarks: gcc -O1 took 24 of test_gpu_grid's 48 s, -O0 13).
# A binary's several files compile as one translation unit (TWOBODY_MERGE_PARTS): on 2 cores the
# 10 s that each file spends in the CUDA and GoogleTest headers outweigh compiling side by side.
# TWOBODY_FULL_DEVICE_BUILD=1 builds real code, fully optimised, anyway.
if [[ -n "${CUDA_ARCHS:-}" || "${TWOBODY_FULL_DEVICE_BUILD:-0}" == 1 ]] \
   || nvidia-smi -L >/dev/null 2>&1; then
  TWOBODY_TEST_ARCHS="${CUDA_ARCHS:-90a}"
  TWOBODY_TEST_CUDA_FLAGS="${CUDAFLAGS:-}"
  TWOBODY_TEST_RELEASE_FLAGS="-O3 -DNDEBUG"
  TWOBODY_TEST_RUN_FLAGS=""
  TWOBODY_TEST_MERGE_PARTS=OFF
else
  TWOBODY_TEST_ARCHS="90a-virtual"
  TWOBODY_TEST_CUDA_FLAGS="${CUDAFLAGS:-} -Xcicc -O0"
  TWOBODY_TEST_RELEASE_FLAGS="-DNDEBUG"
  TWOBODY_TEST_RUN_FLAGS="-O1"
  TWOBODY_TEST_MERGE_PARTS=ON
  echo "[twobody] no GPU here: device code is compiled to PTX only, unoptimised; host code at -O1 where it runs" \
       "(TWOBODY_FULL_DEVICE_BUILD=1 to build real code)" >&2
fi
