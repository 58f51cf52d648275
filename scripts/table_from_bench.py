#!/usr/bin/env python3
"""Markdown table of median pair throughput from a Google Benchmark JSON file.

    bench_policies --benchmark_out=bench.json --benchmark_out_format=json
    python3 scripts/table_from_bench.py bench.json

Rows: benchmark name without the size (e.g. sdh256/shared_tile/warp_privatized32);
columns: N; cells: median pairs_per_s in T pairs/s (3 significant digits), taken from
the aggregate entries with "aggregate_name": "median" (run with --benchmark_repetitions
or the binary's built-in Repetitions(5)).
"""
import json
import re
import sys

# Suffixes Google Benchmark appends to a run name after the arguments.
_SUFFIX = re.compile(r"^(repeats:\d+|real_time|manual_time|process_time|threads:\d+|"
                     r"iterations:\d+|min_time:.*|min_warmup_time:.*)$")


def split_name(run_name):
    """'sdh256/naive/global_atomics/65536/repeats:5/manual_time' -> ('sdh256/naive/global_atomics', 65536)."""
    parts = run_name.split("/")
    while parts and _SUFFIX.match(parts[-1]):
        parts.pop()
    if len(parts) >= 2 and parts[-1].isdigit():
        return "/".join(parts[:-1]), int(parts[-1])
    return "/".join(parts), None


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: table_from_bench.py BENCH.json\n")
        return 2
    with open(argv[1]) as f:
        data = json.load(f)

    rows = {}  # name -> {N: T pairs/s}
    order = []
    sizes = set()
    for b in data.get("benchmarks", []):
        if b.get("run_type") != "aggregate" or b.get("aggregate_name") != "median":
            continue
        if b.get("error_occurred") or "pairs_per_s" not in b:
            continue
        run_name = b.get("run_name") or b["name"].rsplit("_", 1)[0]
        name, n = split_name(run_name)
        if name not in rows:
            rows[name] = {}
            order.append(name)
        rows[name][n] = b["pairs_per_s"] / 1e12
        sizes.add(n)

    if not rows:
        sys.stderr.write("no median aggregates with a pairs_per_s counter in %s\n" % argv[1])
        return 1

    cols = sorted(sizes, key=lambda n: (n is None, n or 0))
    header = ["benchmark (T pairs/s, median)"] + ["N = %s" % ("?" if n is None else n) for n in cols]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---"] + ["---:"] * len(cols)) + "|")
    for name in order:
        cells = [("%.3g" % rows[name][n]) if n in rows[name] else "" for n in cols]
        print("| " + " | ".join([name] + cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
