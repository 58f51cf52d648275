#!/usr/bin/env bash
# Build the Python package (pip install . into a virtual environment) and run its pytest suite.
# Without a GPU the tests run on the CPU backend (against NumPy and SciPy) and the GPU tests
# skip with a reason; on a GPU machine they also compare the GPU with the CPU backend.
#
#   scripts/python-test.sh          venv in build-python/venv, extension for CUDA_ARCHS (default 90a;
#                                   without a GPU PTX only and unoptimised, as scripts/test.sh does)
#
# Env: CUDA_ARCHS (default 90a), PYTHON (default python3), VENV (default build-python/venv),
#      TWOBODY_PIP_OFFLINE=1 to install with --no-build-isolation and no index (GPU machines
#      whose Python already has nanobind, scikit-build-core, numpy, scipy and pytest).
set -euo pipefail

case "${1:-}" in
  "") ;;
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  *) echo "unknown argument: $1 (scripts/python-test.sh takes none; see --help)" >&2; exit 2 ;;
esac

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${REPO_ROOT}"
PYTHON="${PYTHON:-python3}"
source scripts/device-build-flags.sh
ARCHS="${TWOBODY_TEST_ARCHS}"

if [[ "${TWOBODY_PIP_OFFLINE:-0}" == 1 ]]; then
  # Into build-python/site, so that the machine's own Python stays as it is.
  PY="${PYTHON}"
  rm -rf build-python/site
  "${PY}" -m pip install -q --no-index --no-build-isolation --no-deps --target build-python/site . \
    -Ccmake.define.CMAKE_CUDA_ARCHITECTURES="${ARCHS}" \
    -Ccmake.define.CMAKE_CUDA_FLAGS="${TWOBODY_TEST_CUDA_FLAGS}" \
    -Ccmake.define.CMAKE_CUDA_FLAGS_RELEASE="${TWOBODY_TEST_RELEASE_FLAGS}" -Cbuild-dir=build-python/build
  export PYTHONPATH="${REPO_ROOT}/build-python/site${PYTHONPATH:+:${PYTHONPATH}}"
else
  VENV="${VENV:-${REPO_ROOT}/build-python/venv}"
  if [[ ! -x "${VENV}/bin/python" ]] && ! "${PYTHON}" -m venv "${VENV}"; then
    # Debian's python3 keeps venv in a package of its own.
    echo "[python-test] installing python3-venv" >&2
    apt-get update -qq && apt-get install -y -qq python3-venv
    "${PYTHON}" -m venv "${VENV}"
  fi
  PY="${VENV}/bin/python"
  # The build tools as pyproject.toml pins them, and what the tests compare with.
  "${PY}" -m pip install -q --upgrade pip
  "${PY}" -m pip install -q "scikit-build-core==1.1.2" "nanobind==3.1.0" numpy scipy pytest
  "${PY}" -m pip install -q --no-build-isolation . \
    -Ccmake.define.CMAKE_CUDA_ARCHITECTURES="${ARCHS}" \
    -Ccmake.define.CMAKE_CUDA_FLAGS="${TWOBODY_TEST_CUDA_FLAGS}" \
    -Ccmake.define.CMAKE_CUDA_FLAGS_RELEASE="${TWOBODY_TEST_RELEASE_FLAGS}" -Cbuild-dir=build-python/build
fi
# Run from outside the repository so that the installed package is the one imported.
cd python/tests
"${PY}" -m pytest -q -rs -p no:cacheprovider .
