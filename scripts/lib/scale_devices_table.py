#!/usr/bin/env python3
"""Speedup table of the several-GPU rows of a bench_scale JSON file: per workload and N, the
median wall time and pairs/s on g GPUs and the speedup over one GPU of the same run.

    python3 scripts/lib/scale_devices_table.py bench_scale.json   (a run of its gpus_* rows on several GPUs)

Names are <workload>/gpus_<g>/<N> (sdh256, 2pcf), and <workload>/gpus_1_blocks_of_<g>/<N> (one
GPU with the blocks of g: the cost of the blocks alone, without the split); kernel s is the sum
of the block pairs' kernel times (CUDA events) over all GPUs.
"""
from bench_json import exit_with_help_if_asked

exit_with_help_if_asked(__doc__)
import re
import sys

from bench_json import median_runs

NAME = re.compile(r"^(?P<work>[a-z0-9]+)/gpus_(?P<g>\d+)(_blocks_of_(?P<of>\d+))?/(?P<n>\d+)")


def medians(path):
    out = {}
    for m, b, seconds in median_runs(path, NAME)[1]:
        out[(m["work"], int(m["n"]), int(m["g"]), int(m["of"] or 0))] = {
            "s": seconds, "pairs_per_s": b.get("pairs_per_s"), "block_pairs": b.get("block_pairs"),
            "kernel_s": b.get("kernel_sum_s")}
    return out


def main():
    rows = medians(sys.argv[1])
    print("\n## Several GPUs: speedup over one GPU (median wall time, points in host memory)\n")
    print("| workload | N | GPUs | block pairs | seconds | kernel s | T pairs/s | speedup over 1 GPU | "
          "over 1 GPU with the same blocks |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (work, n, g, of) in sorted(rows, key=lambda k: (k[0] != "sdh256", k[1], k[3] != 0, k[2])):
        r = rows[(work, n, g, of)]
        one = rows.get((work, n, 1, 0))
        same = rows.get((work, n, 1, g)) if of == 0 and g > 1 else None
        speedup = f"{one['s'] / r['s']:.3f}x" if one else "-"
        same_blocks = f"{same['s'] / r['s']:.3f}x" if same else "-"
        rate = f"{r['pairs_per_s'] / 1e12:.3g}" if r["pairs_per_s"] else "-"
        kernel = f"{r['kernel_s']:.3f}" if r.get("kernel_s") else "-"
        size = f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)
        gpus = f"1 (blocks of {of})" if of else str(g)
        print(f"| {work} | {size} | {gpus} | {r['block_pairs']:.0f} | {r['s']:.3f} | {kernel} | {rate} | {speedup} | "
              f"{same_blocks} |")

if __name__ == "__main__":
    main()
