#!/usr/bin/env bash
# Runs the cost-model calibration and sweep on a GPU machine (benchmarks/bench_cost_model.cu):
# writes <out>/calibration-<gpu>-<date>.txt, <out>/model-<gpu>-<date>.json, the table
# (.md) and the plot (.png, where matplotlib is present).
#
#   scripts/run_cost_model.sh                          # build/benchmarks/bench_cost_model -> benchmarks/results/
#   BENCH=.gpu/bench_cost_model OUT_DIR=$OUT scripts/run_cost_model.sh
#   SKIP_CALIBRATION=1 / SKIP_SWEEP=1                  # one part only
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH:-$root/build/benchmarks/bench_cost_model}
out_dir=${OUT_DIR:-$root/benchmarks/results}
[[ -x "$bench" ]] || { echo "no binary at $bench (build the bench_cost_model target or set BENCH)" >&2; exit 1; }
command -v nvidia-smi >/dev/null || { echo "nvidia-smi not found: run this on a machine with an NVIDIA GPU" >&2; exit 1; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
slug=$(echo "$gpu" | tr 'A-Z' 'a-z' | grep -oE '[a-z]?[0-9]{2,4}[a-z]*' | head -1)
slug=${slug:-gpu}
export TWOBODY_COMMIT=${TWOBODY_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
unset TWOBODY_POLICY
mkdir -p "$out_dir"
stem="$out_dir/model-$slug-$(date +%Y-%m-%d)"
if [[ -z "${SKIP_CALIBRATION:-}" ]]; then
  { echo "commit $TWOBODY_COMMIT, $(date -u +%Y-%m-%dT%H:%M:%SZ)"; "$bench" --calibrate "$@"; } \
    | tee "$out_dir/calibration-$slug-$(date +%Y-%m-%d).txt"
fi
if [[ -z "${SKIP_SWEEP:-}" ]]; then
  "$bench" --benchmark_out="$stem.json" --benchmark_out_format=json "$@" > "$stem.log" 2>&1 || { tail -30 "$stem.log"; exit 1; }
  /usr/bin/env python3 "$root/scripts/model_table.py" "$stem.json" --png "$stem.png" | tee "$stem.md"
fi
