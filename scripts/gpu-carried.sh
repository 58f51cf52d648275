# Sourced (with the caller's arguments) by the GPU scripts that run binaries carried in .bin/:
# --help prints the caller's comment block; then strict mode, $OUT (default gpu-out), the carried
# test libraries on the library path, .bin/bin.tar.xz unpacked, and the GPU in $OUT/gpu.txt.
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0
fi
set -uo pipefail
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
[[ -f .bin/bin.tar.xz ]] && tar -xJf .bin/bin.tar.xz -C .bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/gpu.txt"
