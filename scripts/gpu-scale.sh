#!/usr/bin/env bash
# Runs the scale-out checks on a machine with one or more NVIDIA GPUs (e.g. the device tool's
# nvidia-h200-x2), from prebuilt binaries in $BIN (default .gpu): the out-of-core / several-GPU
# tests, the MPI tests as 2 and 3 ranks, the MPI SDH against one GPU, and (unless SKIP_BENCH=1)
# the several-GPU benchmarks. Prints a summary last; logs and results go to $OUT.
#
#   BIN=.gpu OUT=$OUT bash scripts/gpu-scale.sh
#   SKIP_TESTS=1 / SKIP_MPI=1 / SKIP_BENCH=1   leave those parts out (SKIP_MEMCHECK=1: the
#                                              memcheck run; SKIP_MPI_SDH=1: the MPI SDH)
#   MPI_N=16777216                             points of the MPI SDH check
#   DEVICE_SIZES=16777216                      points of the several-GPU benchmarks
#
# MPI: the machine's mpirun when it runs our binaries; otherwise Open MPI unpacked from
# $BIN/../.mpi/openmpi-debian.tgz (Debian's packages, the version the binaries were linked with).
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then  # the comment block above
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0
fi
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
BIN=${BIN:-.gpu}
OUT=${OUT:-$root/gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$root/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
# Open MPI as root and with more ranks than GPUs/cores; no NVLink multicast anywhere.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_NVLS_ENABLE=0 GTEST_COLOR=no
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
slug=$(echo "$gpu" | tr 'A-Z' 'a-z' | grep -oE '[a-z]?[0-9]{2,4}[a-z]*' | head -1)
day=$(date +%Y-%m-%d)
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,memory.total --format=csv | tee "$OUT/gpu.txt"
summary=()
status=0

gtest_line() {  # name rc log
  summary+=("$(printf '%-28s rc=%d passed=%d failed=%d skipped=%d' "$1" "$2" "$(grep -c '^\[       OK \]' "$3")" \
    "$(grep -c '^\[  FAILED  \] [A-Za-z]' "$3")" "$(grep -c '^\[  SKIPPED \]' "$3")")")
  [[ $2 -ne 0 ]] && status=1 && grep -B2 -A12 'Failure' "$3" | head -40
}

if [[ -z "${SKIP_TESTS:-}" ]]; then
  "$BIN/test_gpu_out_of_core" > "$OUT/test_gpu_out_of_core.log" 2>&1
  gtest_line test_gpu_out_of_core $? "$OUT/test_gpu_out_of_core.log"
fi
if [[ -z "${SKIP_TESTS:-}" && -z "${SKIP_MEMCHECK:-}" ]]; then
  TWOBODY_TEST_QUICK=1 timeout 240 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
    "$BIN/test_gpu_out_of_core" --gtest_filter='GpuOutOfCore.SeveralWorkers*' > "$OUT/memcheck_out_of_core.log" 2>&1
  rc=$?
  summary+=("$(printf 'memcheck several workers      rc=%d  %s' $rc "$(grep 'ERROR SUMMARY' "$OUT/memcheck_out_of_core.log" | tail -1)")")
  [[ $rc -ne 0 ]] && status=1
fi

if [[ -z "${SKIP_MPI:-}" ]]; then
  launcher=(mpirun)
  if ! command -v mpirun > /dev/null || ! timeout 60 mpirun -np 2 "$BIN/test_mpi" --gtest_filter='MpiCpu.Counts*' \
       > "$OUT/mpi_probe.log" 2>&1; then
    echo "the machine's mpirun did not run test_mpi (see mpi_probe.log); using the carried Open MPI" | tee -a "$OUT/mpi_probe.log"
    mkdir -p /tmp/ompi && tar xzf "$root/.mpi/openmpi-debian.tgz" -C /tmp/ompi
    export OPAL_PREFIX=/tmp/ompi/usr PATH=/tmp/ompi/usr/bin:$PATH
    export LD_LIBRARY_PATH=/tmp/ompi/usr/lib/x86_64-linux-gnu:/tmp/ompi/usr/lib/x86_64-linux-gnu/openmpi/lib:$LD_LIBRARY_PATH
    launcher=(/tmp/ompi/usr/bin/mpirun.openmpi)
  fi
  "${launcher[@]}" --version 2>&1 | head -1 | tee "$OUT/mpi_version.txt"
  for ranks in 2 3; do
    timeout 300 "${launcher[@]}" -np $ranks "$BIN/test_mpi" > "$OUT/test_mpi_$ranks.log" 2>&1
    rc=$?
    # Rank 0 prints the report; the others print their failures ("[rank R] ...") and fail the run.
    gtest_line "test_mpi (np $ranks)" $rc "$OUT/test_mpi_$ranks.log"
  done
fi
if [[ -z "${SKIP_MPI:-}" && -z "${SKIP_MPI_SDH:-}" ]]; then
  log="$OUT/mpi_sdh-$slug-$day.log"
  { echo "# $gpu x $(nvidia-smi -L | wc -l), commit ${TWOBODY_COMMIT:-unknown}, $(date -u)";
    echo "# ${launcher[*]} -np 2 example_mpi_sdh ${MPI_N:-16777216} --check"; } > "$log"
  timeout 400 "${launcher[@]}" -np 2 "$BIN/example_mpi_sdh" "${MPI_N:-16777216}" --check >> "$log" 2>&1
  rc=$?
  summary+=("$(printf 'mpi sdh 2 ranks vs 1 GPU      rc=%d  %s' $rc "$(grep -E '^check: all|CHECK FAILED' "$log" | head -1)")")
  [[ $rc -ne 0 ]] && status=1 && tail -20 "$log"
fi

if [[ -z "${SKIP_BENCH:-}" ]]; then
  BENCH="$BIN/bench_scale" NAME=scale_devices OUT_DIR="$OUT" bash scripts/run_benchmarks.sh \
    --benchmark_filter=gpus --device_sizes="${DEVICE_SIZES:-16777216}" > "$OUT/bench_scale_devices.txt" 2>&1 || status=1
  tail -12 "$OUT/bench_scale_devices.txt"
fi

echo "===== summary ($gpu)"
printf '%s\n' "${summary[@]}"
exit $status
