#!/usr/bin/env python3
"""Issue 22's benchmark targets (item 7) from bench_highdim JSON files: one Markdown row per
target and case, with the measured figure and whether it holds. Medians of the repetitions;
where several files hold the same row, the first file's median is used.

  scripts/lib/highdim_targets.py bench.json [more.json ...]

Targets: twobody's count >= 2x cuBLAS GEMM + count pass at D = 128-256; at D >= 960 >= 60% of the
FP16 peak (the run's own `peak/wgmma_f16` loop) and faster than GEMM + pass; >= 8x twobody's
CUDA-core path (`twobody_simt`) at D >= 128; kernel sums and knn within 2x of the count's time
(same element type, data, N and D)."""
from bench_json import exit_with_help_if_asked

exit_with_help_if_asked(__doc__)
import re
import sys

from bench_json import median_runs

ROW = re.compile(r"(?P<stat>[a-z_]+)/(?P<impl>[a-z0-9_]+)/(?P<type>[a-z0-9]+)/(?P<data>[a-z]+)/N:(?P<n>\d+)/D:(?P<d>\d+)(?:/k:(?P<k>\d+))?/")
PEAK = re.compile(r"peak/(?P<kind>[a-z0-9_]+)/")


def load(paths):
    """{(stat, impl, type, data, N, D, k): benchmark} with real_time in ms, and {peak kind: TFLOPS}."""
    rows, peaks = {}, {}
    for path in paths:
        for m, b, seconds in median_runs(path, ROW)[1]:
            key = (m["stat"], m["impl"], m["type"], m["data"], int(m["n"]), int(m["d"]), int(m["k"] or 0))
            rows.setdefault(key, dict(b, real_time=seconds * 1e3))
        for m, b, _ in median_runs(path, PEAK)[1]:
            peaks.setdefault(m["kind"], b["TFLOPS"])
    return rows, peaks


def main(paths):
    rows, peaks = load(paths)
    wgmma = peaks.get("wgmma_f16")
    out = []

    def add(target, case, figure, holds):
        out.append(f"| {target} | {case} | {figure} | {'met' if holds else '**missed**'} |")

    for (stat, impl, typ, data, n, d, k), b in sorted(rows.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][3], kv[0][4], kv[0][5], kv[0][6])):
        if impl != "twobody":
            continue
        case = f"{typ}, {data}, N = {n}, D = {d}" + (f", k = {k}" if k else "")
        ms = b["real_time"]
        count = rows.get(("count", "twobody", typ, data, n, d, 0))
        if stat == "count":
            cublas = rows.get(("count", "cublas_gemm_pass", typ, data, n, d, 0))
            simt = rows.get(("count", "twobody_simt", typ, data, n, d, 0))
            if cublas and 128 <= d <= 256:
                r = cublas["real_time"] / ms
                add(">= 2x cuBLAS GEMM + pass (D = 128-256)", case, f"{r:.2f}x ({ms:.2f} against {cublas['real_time']:.2f} ms)", r >= 2)
            if d >= 960 and typ in ("half", "bf16") and wgmma:
                f = b["TFLOPS"] / wgmma
                add(">= 60% of the FP16 peak (D >= 960)", case, f"{b['TFLOPS']:.0f} TFLOPS, {100 * f:.0f}% of the run's wgmma loop ({wgmma:.0f})", f >= 0.6)
            if cublas and d >= 960:
                r = cublas["real_time"] / ms
                add("faster than GEMM + pass (D >= 960)", case, f"{r:.2f}x", r > 1)
            if simt and d >= 128:
                r = simt["real_time"] / ms
                add(">= 8x the CUDA-core path (D >= 128)", case, f"{r:.1f}x ({simt['real_time']:.1f} ms on the CUDA cores)", r >= 8)
        elif stat in ("kernel_sum", "knn") and count:
            r = ms / count["real_time"]
            what = "kernel sums" if stat == "kernel_sum" else "knn"
            extra = ""
            if stat == "knn":
                base = rows.get(("knn", "cublas_sort", typ, data, n, d, k))
                if base:
                    extra = f"; cuBLAS + sort {base['real_time']:.0f} ms ({base['real_time'] / ms:.1f}x)"
            add(f"{what} within 2x of the count", case, f"{r:.2f}x ({ms:.2f} against {count['real_time']:.2f} ms{extra})", r <= 2)
    print("peaks in the run: " + ", ".join(f"{k} {v:.0f} TFLOPS" for k, v in sorted(peaks.items())) + "\n")
    print("| target | case | measured | |")
    print("|---|---|---|---|")
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
