#!/usr/bin/env bash
# Nsight Compute profiles of one kernel launch per benchmark row, with bench_highdim carried in
# .bin/ (bin.tar.xz): for each row of ROWS (a space-separated list of exact benchmark names
# without the /iterations suffix), the first launch of the kernel whose mangled name matches
# KERNEL (default: the half-row count's traversal) after the row's warm-up, into
# $OUT/<n>.txt (the details page: throughput, warp states, occupancy) and $OUT/<n>.csv (the
# source page, per SASS instruction: samples by stall reason and instructions executed).
#   SKIP=launches of that kernel to skip (default 1: the warm-up call's);
#   NCU_SECTIONS (default --set full), e.g. '--section WarpStateStats --section SourceCounters'
source "$(dirname "$0")/gpu-carried.sh"
B=.bin
kernel=${KERNEL:-'regex:13mma_traversalI6__half.*reduction_agent'}
n=0
for row in ${ROWS:?ROWS must name the rows}; do
  n=$((n + 1))
  filter="^${row}/"
  timeout 250 ncu --kernel-name-base mangled --kernel-name "$kernel" --launch-skip "${SKIP:-1}" --launch-count 1 \
    ${NCU_SECTIONS:---set full} --import-source no -f -o "/tmp/prof$n" $B/bench_highdim --benchmark_filter="$filter" > "/tmp/prof$n.log" 2>&1
  echo "$row: ncu rc=$? $(grep -c '==PROF==' /tmp/prof$n.log) lines of ==PROF=="
  ncu -i "/tmp/prof$n.ncu-rep" --page details > "$OUT/$n.txt" 2>&1
  ncu -i "/tmp/prof$n.ncu-rep" --page source --csv --print-source sass > "$OUT/$n.csv" 2>&1
  echo "$row" >> "$OUT/$n.txt"
  grep -E "Duration|Issue Slots Busy|Executed Ipc Active|Warp Cycles Per Issued|Registers Per|Achieved Occupancy" "$OUT/$n.txt" | head -8
done
