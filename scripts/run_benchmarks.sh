#!/usr/bin/env bash
# Runs benchmark binaries on a GPU machine and replaces their results in
# benchmarks/results/<gpu>/: <bench>.json (Google Benchmark JSON; the GPU, the commit and the
# date are in its context), <bench>.log and the report <bench>.md. Then regenerates the reports,
# the plots and docs/performance.md from every committed result (scripts/bench_report.py --all).
#
#   scripts/run_benchmarks.sh                          # every binary in build/benchmarks, standard arguments
#   scripts/run_benchmarks.sh bench_suite bench_join   # some of them
#   BIN=.bin OUT_DIR=$OUT scripts/run_benchmarks.sh    # binaries elsewhere; results under $OUT/<gpu>/,
#                                                      # the page as $OUT/performance.md
#   ARGS="--benchmark_filter=sdh256" scripts/run_benchmarks.sh bench_suite
#                                                      # other arguments: a partial run, to compare
#                                                      # (scripts/compare_results.py), not to commit
#   CALIBRATE=1 scripts/run_benchmarks.sh bench_cost_model   # also the cost model's calibration
#                                                      # (bench_cost_model --calibrate -> <gpu>/calibration.txt)
#   BENCH_TIMEOUT=300                                  # stop a binary after 300 s (its results are then lost)
#   TWOBODY_COMMIT=<sha>   names the commit where the tree has no .git (default: git rev-parse HEAD)
#
# The standard arguments (standard_args below) are what the committed results were run with;
# each binary takes about 1 to 5 minutes with them on an H100. Commit a whole run of a binary,
# never a filtered one, so the files stay comparable from one change to the next.
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then  # the comment block above
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0
fi
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin_dir=${BIN:-$root/build/benchmarks}
all=(bench_suite bench_bins bench_cost_model bench_join bench_sorted_join bench_grid bench_grid_join
     bench_frames bench_highdim bench_scale)
benches=("$@")
[[ ${#benches[@]} -gt 0 ]] || benches=("${all[@]}")

standard_args() {
  case $1 in
    bench_suite)       echo "--sizes=65536,1048576 --naive_max_n=65536 --cpu_n=32768" ;;
    bench_bins)        echo "--benchmark_filter=^(sdh/bins:4096/one_call|(sdh|rp_pi)/bins:65536/(one_call|global_atomics)|sdh/bins:(262144|1048576)/(one_call|global_atomics))/ --reps=3" ;;
    bench_cost_model)  echo "--benchmark_filter=bins:(1|4|16|64|256|1024|4096)/" ;;
    bench_join)        echo "--sizes=262144,1048576 --cpu_n=65536" ;;
    bench_sorted_join) echo "" ;;
    bench_grid)        echo "" ;;
    bench_grid_join)   echo "--benchmark_filter=3d_ --sizes=2097152" ;;
    bench_frames)      echo "--benchmark_filter=^(floor/(rdf128|count|per_point)/(sync|async)/|frames/(rdf128|count)/(batched_sum|batched_per_frame|loop_of_one_call)/|large/)" ;;
    bench_highdim)     echo "--benchmark_filter=^(count/(twobody|cublas_gemm_pass|twobody_simt)/(half|float|double)/uniform/N:65536/D:(128|960)/|count/(twobody|cublas_gemm_pass)/half/uniform/N:(65536/D:4096|1048576/D:128)/|knn/(twobody|cublas_sort)/half/uniform/N:65536/D:128/k:10/|(join|kernel_sum|histogram)/twobody/half/uniform/N:65536/D:128/|peak/)" ;;
    bench_scale)       echo "--benchmark_filter=^sdh256_host/" ;;
    *) echo "unknown benchmark binary $1 (one of: ${all[*]})" >&2; return 1 ;;
  esac
}

command -v nvidia-smi >/dev/null || { echo "nvidia-smi not found: run this on a machine with an NVIDIA GPU" >&2; exit 1; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
slug=$(echo "$gpu" | tr 'A-Z' 'a-z' | grep -oE '[a-z]?[0-9]{2,4}[a-z]*' | head -1)
out_dir=${OUT_DIR:-$root/benchmarks/results}/${slug:-gpu}
export TWOBODY_COMMIT=${TWOBODY_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
mkdir -p "$out_dir"
unset TWOBODY_POLICY  # results are of the library's own choices

status=0
for b in "${benches[@]}"; do
  exe=$bin_dir/$b
  [[ -x $exe ]] || { echo "no benchmark binary at $exe (build the $b target or set BIN)" >&2; status=1; continue; }
  args=${ARGS-$(standard_args "$b")} || { status=1; continue; }
  echo "running $b on $gpu (commit $TWOBODY_COMMIT) $args -> $out_dir/$b.json" >&2
  start=$(date +%s)
  # shellcheck disable=SC2086  # the arguments are words
  if timeout "${BENCH_TIMEOUT:-0}" "$exe" --benchmark_out="$out_dir/$b.json" --benchmark_out_format=json $args > "$out_dir/$b.log" 2>&1; then
    echo "$b: $(( $(date +%s) - start )) s" >&2
  else
    echo "$b FAILED after $(( $(date +%s) - start )) s:" >&2; tail -20 "$out_dir/$b.log" >&2; status=1
  fi
  if [[ $b == bench_cost_model && ${CALIBRATE:-0} == 1 ]]; then
    { echo "commit $TWOBODY_COMMIT, $(date -u +%Y-%m-%dT%H:%M:%SZ), $gpu"; "$exe" --calibrate; } > "$out_dir/calibration.txt" 2>&1 \
      || { echo "calibration FAILED" >&2; status=1; }
  fi
done
# The committed page only from the committed results; a run elsewhere gets its own page beside it.
page=$root/docs/performance.md
[[ -n ${OUT_DIR:-} && $(realpath -m "$OUT_DIR") != "$root/benchmarks/results" ]] && page=$(dirname "$out_dir")/performance.md
python3 "$root/scripts/bench_report.py" --all "$(dirname "$out_dir")" --page "$page" || status=1
exit $status
