#!/usr/bin/env bash
# Runs the benchmark suite on a GPU machine and writes <out>/<gpu>-<date>.json (Google
# Benchmark JSON with the GPU, date and commit in its context), then prints the Markdown
# report (and draws the plots where matplotlib is present).
#
#   scripts/run_benchmarks.sh                       # build/benchmarks/bench_suite -> benchmarks/results/
#   BENCH=.gpu/bench_suite OUT_DIR=$OUT scripts/run_benchmarks.sh --benchmark_filter=sdh
#   BENCH=.gpu/bench_join NAME=join OUT_DIR=$OUT scripts/run_benchmarks.sh   # join-<gpu>-<date>.*, targets-join-<gpu>.json
#   BENCH=.gpu/bench_sorted_join NAME=sorted_join OUT_DIR=$OUT scripts/run_benchmarks.sh  # + scripts/sorted_join_table.py
#   TWOBODY_COMMIT=<sha>   names the commit where the tree has no .git (defaults to git rev-parse HEAD)
# Extra arguments go to bench_suite (see its header for --sizes, --naive_max_n, --cpu_n).
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then  # the comment block above
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0
fi
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH:-$root/build/benchmarks/bench_suite}
target=bench_suite
source "$root/scripts/results_env.sh"
stem="${NAME:+$NAME-}$slug"
json="$out_dir/$stem-$(date +%Y-%m-%d).json"
echo "running $bench on $gpu (commit $TWOBODY_COMMIT) -> $json" >&2
"$bench" --benchmark_out="$json" --benchmark_out_format=json "$@" > "$out_dir/$stem-$(date +%Y-%m-%d).log" 2>&1 \
  || { tail -30 "$out_dir/$stem-$(date +%Y-%m-%d).log"; exit 1; }
report_args=("$json")
[[ -f $root/benchmarks/targets-$stem.json ]] && report_args+=(--targets "$root/benchmarks/targets-$stem.json")
python3 "$root/scripts/bench_report.py" "${report_args[@]}" | tee "$out_dir/$stem-$(date +%Y-%m-%d).md"
# A benchmark with its own side-by-side table (scripts/<name>_table.py) appends it to the report.
if [[ -n ${NAME:-} && -f $root/scripts/${NAME}_table.py ]]; then
  python3 "$root/scripts/${NAME}_table.py" "$json" | tee -a "$out_dir/$stem-$(date +%Y-%m-%d).md"
fi
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then /usr/bin/python3 "$root/scripts/plot_bench.py" "$json"; fi
