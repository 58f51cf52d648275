# Sourced by the scripts that run a benchmark binary on a GPU machine and write results.
# Needs: root, bench (the binary), target (its CMake target, for the message).
# Sets: out_dir (OUT_DIR, default benchmarks/results/, created), gpu (its name), slug (e.g.
# "h100", used in file names), TWOBODY_COMMIT (exported, default the checkout's HEAD).
out_dir=${OUT_DIR:-$root/benchmarks/results}
[[ -x "$bench" ]] || { echo "no benchmark binary at $bench (build the $target target or set BENCH)" >&2; exit 1; }
command -v nvidia-smi >/dev/null || { echo "nvidia-smi not found: run this on a machine with an NVIDIA GPU" >&2; exit 1; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
slug=$(echo "$gpu" | tr 'A-Z' 'a-z' | grep -oE '[a-z]?[0-9]{2,4}[a-z]*' | head -1)
slug=${slug:-gpu}
export TWOBODY_COMMIT=${TWOBODY_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
mkdir -p "$out_dir"
