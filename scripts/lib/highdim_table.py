#!/usr/bin/env python3
"""Markdown table of a bench_highdim JSON: twobody's exact tensor-core count against cuBLAS GEMM
plus a count pass, per element type, data and D (medians of the repetitions)."""
from bench_json import exit_with_help_if_asked

exit_with_help_if_asked(__doc__)
import json
import re
import sys


def main(path):
    data = json.load(open(path))
    ctx = data["context"]
    med = {b["run_name"]: b for b in data["benchmarks"] if b.get("aggregate_name") == "median"}
    peak = {b["name"].split("/")[1]: b["TFLOPS"] for b in data["benchmarks"] if b["name"].startswith("peak/")}
    print(f"# bench_highdim: {ctx.get('host_name', '')} {ctx.get('date', '')}\n")
    print("mma.sync peak in the same run: " + ", ".join(f"{k} {v:.0f} TFLOPS" for k, v in sorted(peak.items())) + "\n")
    print("Counts of self pairs within the 1% quantile of Euclidean distance; time of a whole call on device rows "
          "(staging, norms, kernel, result); TFLOPS at 2 D flops per pair; refined: share of pairs recomputed exactly.\n")
    print("| rows | twobody ms | pairs/s | TFLOPS | refined | cuBLAS+pass ms | TFLOPS | speed-up | count twobody (exact) | count cuBLAS |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, b in med.items():
        m = re.match(r"count/twobody/(.*)/iterations", name)
        if not m:
            continue
        tag = m.group(1)
        c = med.get(name.replace("count/twobody/", "count/cublas_gemm_pass/"))
        ms = b["real_time"]
        row = f"| {tag} | {ms:.1f} | {b['pairs_per_s'] / 1e9:.1f} G | {b['TFLOPS']:.1f} | {b['refined'] * 100:.3f}% |"
        if c:
            row += f" {c['real_time']:.1f} | {c['TFLOPS']:.1f} | {c['real_time'] / ms:.2f} | {int(b['count'])} | {int(c['count'])} |"
        else:
            row += " | | | | |"
        print(row)


if __name__ == "__main__":
    main(sys.argv[1])
