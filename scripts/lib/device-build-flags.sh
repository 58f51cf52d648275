# Sourced by scripts/test.sh and scripts/python-test.sh: the CUDA architectures and flags that
# the test builds use. With a GPU (or CUDA_ARCHS set) real code for CUDA_ARCHS (default 90a).
# Without one the device tests skip, so device code only has to compile: PTX only, without
# device optimisation; that cuts a test's compile time to about a third (cicc's optimiser and
# ptxas are most of it), and host code at -O1 instead of Release's -O3 (gcc's -O3 took 89 of a
# test's 128 s; -O1 73 s in all, and the host tests still run at a usable speed).
# TWOBODY_FULL_DEVICE_BUILD=1 builds real code, fully optimised, anyway.
if [[ -n "${CUDA_ARCHS:-}" || "${TWOBODY_FULL_DEVICE_BUILD:-0}" == 1 ]] \
   || nvidia-smi -L >/dev/null 2>&1; then
  TWOBODY_TEST_ARCHS="${CUDA_ARCHS:-90a}"
  TWOBODY_TEST_CUDA_FLAGS="${CUDAFLAGS:-}"
  TWOBODY_TEST_RELEASE_FLAGS="-O3 -DNDEBUG"
else
  TWOBODY_TEST_ARCHS="90a-virtual"
  TWOBODY_TEST_CUDA_FLAGS="${CUDAFLAGS:-} -Xcicc -O0"
  TWOBODY_TEST_RELEASE_FLAGS="-O1 -DNDEBUG"
  echo "[twobody] no GPU here: device code is compiled to PTX only, unoptimised, host code at -O1" \
       "(TWOBODY_FULL_DEVICE_BUILD=1 to build real code)" >&2
fi
