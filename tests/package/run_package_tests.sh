#!/usr/bin/env bash
# Package consumer tests for twobody: add_subdirectory, FetchContent (local
# SOURCE_DIR) and find_package after `cmake --install`. Offline, compile-only
# (the consumer's main() returns 0 without touching CUDA, so it is also run).
#
# Usage: run_package_tests.sh <twobody repo root> <scratch dir>
# Honours CUDACXX (nvcc path) and, from the test build, TWOBODY_PACKAGE_ARCHS (default 90),
# TWOBODY_PACKAGE_CUDA_FLAGS and TWOBODY_PACKAGE_RELEASE_FLAGS (default -O3 -DNDEBUG).
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 <repo root> <scratch dir>" >&2
  exit 2
fi

ROOT="$(cd "$1" && pwd)"
mkdir -p "$2"
SCRATCH="$(cd "$2" && pwd)"
HERE="${ROOT}/tests/package"
ARCHS="${TWOBODY_PACKAGE_ARCHS:-90}"

if [[ -z "${CUDACXX:-}" ]] && ! command -v nvcc >/dev/null 2>&1 \
   && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi

GEN=()
if command -v ninja >/dev/null 2>&1; then
  GEN=(-G Ninja)
fi
JOBS="$(nproc 2>/dev/null || echo 2)"

COMMON=(
  "${GEN[@]}"
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_CUDA_ARCHITECTURES="${ARCHS}"
  -DCMAKE_CUDA_FLAGS="${TWOBODY_PACKAGE_CUDA_FLAGS:-}"
  -DCMAKE_CUDA_FLAGS_RELEASE="${TWOBODY_PACKAGE_RELEASE_FLAGS:--O3 -DNDEBUG}"
)

build_consumer() {   # name, extra cmake args...
  local name="$1"; shift
  local bdir="${SCRATCH}/${name}"
  echo "=== [package] ${name} ==="
  rm -rf "${bdir}"
  cmake -S "${HERE}/${name}" -B "${bdir}" "${COMMON[@]}" "$@"
  cmake --build "${bdir}" -j "${JOBS}"
  "${bdir}/consumer"
  echo "=== [package] ${name}: OK ==="
}

# 1. add_subdirectory
build_consumer add_subdirectory -DTWOBODY_SOURCE_DIR="${ROOT}"

# 2. FetchContent with a local SOURCE_DIR
build_consumer fetchcontent -DTWOBODY_SOURCE_DIR="${ROOT}"

# 3. install, then find_package
PREFIX="${SCRATCH}/prefix"
LIBBUILD="${SCRATCH}/lib-build"
echo "=== [package] install to ${PREFIX} ==="
rm -rf "${PREFIX}" "${LIBBUILD}"
cmake -S "${ROOT}" -B "${LIBBUILD}" "${COMMON[@]}" \
  -DTWOBODY_BUILD_TESTS=OFF -DTWOBODY_BUILD_EXAMPLES=OFF -DTWOBODY_BUILD_BENCHMARKS=OFF
cmake --build "${LIBBUILD}"
cmake --install "${LIBBUILD}" --prefix "${PREFIX}"
test -f "${PREFIX}/include/twobody/twobody.cuh"
ls "${PREFIX}"/lib*/cmake/twobody/twobodyConfig.cmake >/dev/null
build_consumer find_package -DCMAKE_PREFIX_PATH="${PREFIX}"

echo "=== [package] all package tests passed ==="
