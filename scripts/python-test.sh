#!/usr/bin/env bash
# Build the Python package as a user would, install it, and run its pytest suite.
# Without a GPU the tests run on the CPU backend (against NumPy and SciPy) and the GPU tests
# skip with a reason; on a GPU machine they also compare the GPU with the CPU backend.
#
#   scripts/python-test.sh     builds a wheel with the README's defaults (pip wheel . builds what
#                              pip install . builds: this machine's GPUs, else PTX for compute_75),
#                              installs it into build-python/venv and runs the tests there, then
#                              into a fresh virtual environment with nothing else, and imports it
#                              there (the wheel must need only a driver and NumPy)
#
# Env: PYTHON (default python3), VENV (default build-python/venv), CUDA_ARCHS (passed on as
#      CMAKE_CUDA_ARCHITECTURES; default: pip's own), TWOBODY_PIP_RELEASE_FLAGS (instead of the Release
#      build's -O3 -DNDEBUG, host and device compiler alike), TWOBODY_PIP_REUSE=1 to build into
#      build-python/build without build isolation (a rerun then recompiles only what changed),
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
CMAKE_DEFINES=()
if [[ -n "${CUDA_ARCHS:-}" ]]; then CMAKE_DEFINES+=(-Ccmake.define.CMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS}"); fi
if [[ -n "${TWOBODY_PIP_RELEASE_FLAGS:-}" ]]; then
  CMAKE_DEFINES+=(-Ccmake.define.CMAKE_CUDA_FLAGS_RELEASE="${TWOBODY_PIP_RELEASE_FLAGS}"
                  -Ccmake.define.CMAKE_CXX_FLAGS_RELEASE="${TWOBODY_PIP_RELEASE_FLAGS}")
fi

make_venv() {  # path
  if [[ ! -x "$1/bin/python" ]] && ! "${PYTHON}" -m venv "$1"; then
    # Debian's python3 keeps venv in a package of its own.
    echo "[python-test] installing python3-venv" >&2
    apt-get update -qq && apt-get install -y -qq python3-venv
    "${PYTHON}" -m venv "$1"
  fi
}

if [[ "${TWOBODY_PIP_OFFLINE:-0}" == 1 ]]; then
  # Into build-python/site, so that the machine's own Python stays as it is.
  PY="${PYTHON}"
  rm -rf build-python/site
  "${PY}" -m pip install -q --no-index --no-build-isolation --no-deps --target build-python/site . \
    "${CMAKE_DEFINES[@]}" -Cbuild-dir=build-python/build
  export PYTHONPATH="${REPO_ROOT}/build-python/site${PYTHONPATH:+:${PYTHONPATH}}"
else
  VENV="${VENV:-${REPO_ROOT}/build-python/venv}"
  make_venv "${VENV}"
  PY="${VENV}/bin/python"
  "${PY}" -m pip install -q --upgrade pip
  "${PY}" -m pip install -q numpy scipy pytest  # what the tests compare with
  rm -rf build-python/dist
  start=$(date +%s)
  if [[ "${TWOBODY_PIP_REUSE:-0}" == 1 ]]; then
    "${PY}" -m pip install -q "scikit-build-core==1.1.2" "nanobind==3.1.0"
    "${PY}" -m pip wheel -q --no-deps --no-build-isolation -w build-python/dist . "${CMAKE_DEFINES[@]}" \
      -Cbuild-dir=build-python/build
  else
    "${PY}" -m pip wheel -q --no-deps -w build-python/dist . "${CMAKE_DEFINES[@]}"  # as pip install . builds
  fi
  echo "[python-test] wheel built in $(( $(date +%s) - start )) s: $(ls build-python/dist)" >&2
  "${PY}" -m pip install -q --force-reinstall --no-deps build-python/dist/twobody-*.whl

  # The wheel in an environment of its own: nothing of the build, only NumPy from the index.
  rm -rf build-python/fresh
  make_venv build-python/fresh
  start=$(date +%s)
  build-python/fresh/bin/python -m pip install -q build-python/dist/twobody-*.whl
  echo "[python-test] the wheel installed into a fresh environment in $(( $(date +%s) - start )) s" >&2
  (cd /tmp && "${REPO_ROOT}/build-python/fresh/bin/python" - <<'EOF'
import numpy as np
import twobody
x = np.arange(30.0).reshape(10, 3)
n = twobody.count_pairs(x, r=6.0, backend="cpu")
assert n == sum(1 for i in range(10) for j in range(i + 1, 10) if np.sum((x[i] - x[j]) ** 2) < 36.0), n
print("[python-test] fresh environment: twobody", twobody.__version__, "imports and counts", n, "pairs;",
      "GPU" if twobody.gpu_available() else "no GPU")
EOF
  )
fi
# Run from outside the repository so that the installed package is the one imported.
cd python/tests
"${PY}" -m pytest -q -rs -p no:cacheprovider .
