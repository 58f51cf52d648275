#!/usr/bin/env bash
# Runs the cost-model calibration and sweep on a GPU machine (benchmarks/bench_cost_model.cu):
# writes <out>/calibration-<gpu>-<date>.txt, <out>/model-<gpu>-<date>.json, the table
# (.md) and the plot (.png, where matplotlib is present).
#
#   scripts/run_cost_model.sh                          # build/benchmarks/bench_cost_model -> benchmarks/results/
#   BENCH=.gpu/bench_cost_model OUT_DIR=$OUT scripts/run_cost_model.sh
#   SKIP_CALIBRATION=1 / SKIP_SWEEP=1                  # one part only
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then  # the comment block above
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0
fi
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH:-$root/build/benchmarks/bench_cost_model}
target=bench_cost_model
source "$root/scripts/results_env.sh"
unset TWOBODY_POLICY
stem="$out_dir/model-$slug-$(date +%Y-%m-%d)"
if [[ -z "${SKIP_CALIBRATION:-}" ]]; then
  { echo "commit $TWOBODY_COMMIT, $(date -u +%Y-%m-%dT%H:%M:%SZ)"; "$bench" --calibrate "$@"; } \
    | tee "$out_dir/calibration-$slug-$(date +%Y-%m-%d).txt"
fi
if [[ -z "${SKIP_SWEEP:-}" ]]; then
  "$bench" --benchmark_out="$stem.json" --benchmark_out_format=json "$@" > "$stem.log" 2>&1 || { tail -30 "$stem.log"; exit 1; }
  /usr/bin/env python3 "$root/scripts/model_table.py" "$stem.json" --png "$stem.png" | tee "$stem.md"
fi
