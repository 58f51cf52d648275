#!/usr/bin/env bash
# Check the header layers (scripts/check_layout.py), then configure, build and run the full
# twobody test suite (tests, examples, benchmarks) in build-test/, then ctest.
#
#   scripts/test.sh            build and run everything (what CI runs), then the Python
#                              package's tests (scripts/python-test.sh)
#
# Without a GPU (no nvidia-smi -L) the device tests skip, so their device code only has to
# compile: it is built as PTX only (90a-virtual) without device optimisation (-Xcicc -O0),
# and host code at -O1 where it runs here, unoptimised where it does not
# (scripts/lib/device-build-flags.sh says why). With a GPU, or with
# CUDA_ARCHS set, it is built for real. Either way the kernel_resources tests run ptxas for
# every supported architecture over the kernels that press hardest on shared memory, and the
# Python package is built as a user's pip install . builds it (with the same device flags).
#
# Env: BUILD_DIR (default build-test), CUDA_ARCHS (default 90a with a GPU), TWOBODY_SKIP_PYTHON=1
#      to leave out the Python package.
set -euo pipefail

case "${1:-}" in
  "") ;;
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  *) echo "unknown argument: $1 (scripts/test.sh takes none; see --help)" >&2; exit 2 ;;
esac

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${REPO_ROOT}"

BUILD_DIR="${BUILD_DIR:-build-test}"
JOBS="$(nproc 2>/dev/null || echo 2)"

# Device code that cannot run here only has to compile (see the header).
source scripts/lib/device-build-flags.sh

CMAKE_ARGS=(-S . -B "${BUILD_DIR}"
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_CUDA_ARCHITECTURES="${TWOBODY_TEST_ARCHS}"
  -DCMAKE_CUDA_FLAGS="${TWOBODY_TEST_CUDA_FLAGS}"
  -DCMAKE_CUDA_FLAGS_RELEASE="${TWOBODY_TEST_RELEASE_FLAGS}"
  -DCMAKE_CXX_FLAGS_RELEASE="${TWOBODY_TEST_RELEASE_FLAGS}"
  -DTWOBODY_TEST_RUN_FLAGS="${TWOBODY_TEST_RUN_FLAGS}"
  -DTWOBODY_MERGE_PARTS="${TWOBODY_TEST_MERGE_PARTS}"
  -DTWOBODY_BUILD_TESTS=ON
  -DTWOBODY_BUILD_EXAMPLES=ON
  -DTWOBODY_BUILD_BENCHMARKS=ON)
if ! command -v nvcc >/dev/null 2>&1 && [[ -z "${CUDACXX:-}" && -x /usr/local/cuda/bin/nvcc ]]; then
  CMAKE_ARGS+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
fi
if [[ ! -f "${BUILD_DIR}/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
  CMAKE_ARGS+=(-G Ninja)
fi

# The header layers (docs/maintainers/layout.md): seconds, so before the long build.
python3 scripts/check_layout.py

cmake "${CMAKE_ARGS[@]}"
cmake --build "${BUILD_DIR}" -j "${JOBS}"
ctest --test-dir "${BUILD_DIR}" --output-on-failure -j2

# The Python package, built as pip install . builds it (pip wheel . with its defaults), then pytest.
# Its device code gets the test build's device flags (CMake takes CUDAFLAGS as CMAKE_CUDA_FLAGS):
# without a GPU it cannot run here, so it is compiled unoptimised, as the tests' is (621 s for
# the wheel on 2 cores at -O3), and its host code at the -O1 of the host tests (gcc -O3 took 58
# of the 71 s of its longest file, -O1 35); everything else of the install is as a user's.
if [[ "${TWOBODY_SKIP_PYTHON:-0}" != 1 ]]; then
  CUDAFLAGS="${TWOBODY_TEST_CUDA_FLAGS}" \
    TWOBODY_PIP_RELEASE_FLAGS="${TWOBODY_TEST_RUN_FLAGS:+${TWOBODY_TEST_RUN_FLAGS} -DNDEBUG}" \
    bash scripts/python-test.sh
fi
