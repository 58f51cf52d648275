#!/usr/bin/env python3
"""Median GPU time per kernel launch from the Nsight Compute CSV files that scripts/gpu-cells.sh
writes with KERNEL_ROWS (profile/times_BINARY_ROW.csv): one line per row and binary, in
microseconds, with the launches counted and their spread (min-max)."""
import csv
import glob
import os
import statistics
import sys

MICROSECONDS_PER = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}


def durations(path):
    """gpu__time_duration.sum of every profiled launch in the file, in microseconds."""
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    out = []
    for r in csv.DictReader(lines):
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        v = float(r["Metric Value"].replace(",", ""))
        out.append(v * MICROSECONDS_PER.get(r.get("Metric Unit", ""), 1.0))
    return out


def main(folder):
    rows = {}
    for path in sorted(glob.glob(os.path.join(folder, "times_*.csv"))):
        name = os.path.basename(path)[len("times_"):-len(".csv")]
        rows[name] = durations(path)
    print("| binary and row | launches | median (us) | min-max (us) |")
    print("|---|---:|---:|---:|")
    for name, d in rows.items():
        if not d:
            print(f"| {name} | 0 | | |")
            continue
        print(f"| {name} | {len(d)} | {statistics.median(d):.2f} | {min(d):.2f}-{max(d):.2f} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
