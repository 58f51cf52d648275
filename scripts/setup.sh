#!/usr/bin/env bash
# Idempotent setup for twobody on Debian/Ubuntu.
#
#   scripts/setup.sh [--run-example]   install missing deps, build + run the quick start in build/ (default)
#   scripts/setup.sh --no-run          only install missing deps
#
# Env: CUDA_ARCHS - CUDA architectures for the example build (default: this machine's GPUs, else
#      PTX for compute_75; docs/building.md).
# apt-get is only invoked when something is missing (no network otherwise).
set -euo pipefail

MODE="--run-example"
if [[ $# -gt 1 ]]; then
  echo "usage: $0 [--run-example|--no-run]" >&2; exit 2
elif [[ $# -eq 1 ]]; then
  MODE="$1"
fi
case "${MODE}" in
  --run-example|--no-run) ;;
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  *) echo "unknown argument: ${MODE} (use --run-example or --no-run)" >&2; exit 2 ;;
esac

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

log()  { echo "[setup] $*"; }
warn() { echo "[setup] WARNING: $*" >&2; }
die()  { echo "[setup] ERROR: $*" >&2; exit 1; }

pkg_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

# ---------------------------------------------------------------------------
# System packages
# ---------------------------------------------------------------------------
REQUIRED_PKGS=(cmake g++ libgtest-dev libgmock-dev libbenchmark-dev libomp-dev python3-matplotlib libopenmpi-dev openmpi-bin)
OPTIONAL_PKGS=(ninja-build)

missing=()
missing_opt=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${REQUIRED_PKGS[@]}"; do
    case "$p" in
      # Accept tools installed outside apt (e.g. Kitware cmake, custom g++).
      cmake) command -v cmake >/dev/null 2>&1 && continue ;;
      g++)   command -v g++   >/dev/null 2>&1 && continue ;;
    esac
    pkg_installed "$p" || missing+=("$p")
  done
  for p in "${OPTIONAL_PKGS[@]}"; do
    if [[ "$p" == ninja-build ]] && command -v ninja >/dev/null 2>&1; then continue; fi
    pkg_installed "$p" || missing_opt+=("$p")
  done
else
  warn "dpkg-query not found (not Debian/Ubuntu?); cannot check packages."
  warn "make sure these are installed: ${REQUIRED_PKGS[*]} (optional: ${OPTIONAL_PKGS[*]})"
fi

if [[ ${#missing[@]} -gt 0 || ${#missing_opt[@]} -gt 0 ]]; then
  SUDO=()
  if [[ ${EUID} -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
      SUDO=(sudo)
    else
      die "missing packages (${missing[*]} ${missing_opt[*]}) and not root / no sudo; install them manually"
    fi
  fi
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install manually: ${missing[*]} ${missing_opt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  log "apt-get update"
  "${SUDO[@]}" apt-get update
  if [[ ${#missing[@]} -gt 0 ]]; then
    log "installing: ${missing[*]}"
    "${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
  fi
  if [[ ${#missing_opt[@]} -gt 0 ]]; then
    log "installing optional: ${missing_opt[*]}"
    "${SUDO[@]}" apt-get install -y --no-install-recommends "${missing_opt[@]}" \
      || warn "could not install optional packages: ${missing_opt[*]} (continuing)"
  fi
else
  log "all system packages present"
fi

# ---------------------------------------------------------------------------
# CUDA toolkit (nvcc)
# ---------------------------------------------------------------------------
NVCC=""
if command -v nvcc >/dev/null 2>&1; then
  NVCC="$(command -v nvcc)"
elif [[ -x /usr/local/cuda/bin/nvcc ]]; then
  NVCC=/usr/local/cuda/bin/nvcc
  export PATH="/usr/local/cuda/bin:${PATH}"
  log "nvcc found at ${NVCC} (not on PATH; consider: export PATH=/usr/local/cuda/bin:\$PATH)"
fi
if [[ -z "${NVCC}" ]]; then
  die "nvcc not found (looked in PATH and /usr/local/cuda/bin).
  twobody needs the NVIDIA CUDA Toolkit 12.x or 13.x, which is not installed by this script.
  Install it from https://developer.nvidia.com/cuda-downloads (e.g. the 'cuda-toolkit' package
  from NVIDIA's apt repository), then add /usr/local/cuda/bin to PATH and re-run this script."
fi
NVCC_VER="$("${NVCC}" --version | sed -n 's/.*release \([0-9][0-9.]*\).*/\1/p' | head -n1)"
log "nvcc: ${NVCC} (CUDA ${NVCC_VER:-unknown})"
if [[ -n "${NVCC_VER}" && "${NVCC_VER%%.*}" -lt 12 ]]; then
  warn "CUDA ${NVCC_VER} is older than 12.x; twobody expects CUDA 12.x or 13.x"
fi

if [[ "${MODE}" == "--no-run" ]]; then
  log "done (--no-run)"
  exit 0
fi

# ---------------------------------------------------------------------------
# Build and run the example
# ---------------------------------------------------------------------------
BUILD_DIR="${REPO_ROOT}/build"
CMAKE_ARGS=(-S "${REPO_ROOT}" -B "${BUILD_DIR}"
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_CUDA_COMPILER="${NVCC}"
  -DTWOBODY_BUILD_EXAMPLES=ON)
# Without CUDA_ARCHS the project's default: this machine's GPUs, else PTX for compute_75.
if [[ -n "${CUDA_ARCHS:-}" ]]; then CMAKE_ARGS+=(-DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS}"); fi
# Pick Ninja only for a fresh build dir (an existing cache fixes the generator).
if [[ ! -f "${BUILD_DIR}/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
  CMAKE_ARGS+=(-G Ninja)
fi
log "configuring ${BUILD_DIR}"
cmake "${CMAKE_ARGS[@]}"
log "building example_quick_start (README's quick start)"
cmake --build "${BUILD_DIR}" --target example_quick_start -j "$(nproc 2>/dev/null || echo 2)"
log "running build/examples/example_quick_start"
cd "${REPO_ROOT}"
./build/examples/example_quick_start
