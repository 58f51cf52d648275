#!/usr/bin/env python3
"""Markdown tables of a bench_sorted_join JSON file, and the issue's targets checked on it.

    build/benchmarks/bench_sorted_join --benchmark_out=sorted_join.json --benchmark_out_format=json
    python3 scripts/lib/sorted_join_table.py sorted_join.json [--out report.md]

Per case (equi_uniform, equi_zipf1.0, ...) and N: the median time (ms) of each method, input
rows/s (both tables) and result pairs/s. The nested loop's time at larger N is extrapolated
from its largest measured N as N^2 (marked "extrapolated"), for the speedup target only.
"""
import argparse
import json
import re
import sys


def load(path):
    with open(path) as f:
        data = json.load(f)
    runs = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        parts = b["run_name"].split("/")
        case, method, n = parts[0], parts[1], int(parts[2])
        ms = b["real_time"] if b.get("time_unit") == "ms" else b["real_time"] / 1e6
        runs.setdefault(case, {}).setdefault(method, {})[n] = {
            "ms": ms, "rows_per_s": b.get("rows_per_s", 0.0),
            "result_pairs_per_s": b.get("result_pairs_per_s", 0.0), "results": b.get("results", 0.0)}
    return data.get("context", {}), runs


def pow2(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def tables(runs):
    out = []
    for case, methods in runs.items():
        sizes = sorted({n for m in methods.values() for n in m})
        out.append(f"## {case}\n")
        out.append("| method | " + " | ".join(f"N = {pow2(n)}" for n in sizes) + " |")
        out.append("|---|" + "---:|" * len(sizes))
        for method, by_n in methods.items():
            cells = []
            for n in sizes:
                r = by_n.get(n)
                cells.append("" if r is None else
                             f"{r['ms']:.3g} ms, {r['rows_per_s'] / 1e9:.3g} G rows/s, {r['result_pairs_per_s'] / 1e9:.3g} G results/s")
            out.append(f"| {method} | " + " | ".join(cells) + " |")
        out.append("")
    return out


def targets(runs):
    rows, ok = [], True

    def get(case, method, n):
        return runs.get(case, {}).get(method, {}).get(n)

    def check(what, value, limit, higher_is_better, note=""):
        nonlocal ok
        if value is None:
            rows.append(f"| {what} | | MISS (no data) | {note} |")
            ok = False
            return
        passed = value >= limit if higher_is_better else value <= limit
        ok &= passed
        rel = ">=" if higher_is_better else "<="
        rows.append(f"| {what} | {value:.3g} ({rel} {limit:g}) | {'PASS' if passed else 'FAIL'} | {note} |")

    n24 = 1 << 24
    s = get("equi_uniform", "sorted", n24)
    check("2^24 x 2^24 equi-join, uniform, ms", s and s["ms"], 25, False)
    t = get("equi_uniform", "thrust", n24)
    check("sorted over the Thrust baseline (time ratio) at 2^24", s and t and s["ms"] / t["ms"], 1.5, False)
    nested = runs.get("equi_uniform", {}).get("nested_loop", {})
    if s and nested:
        n0 = max(nested)
        extrapolated = nested[n0]["ms"] * (n24 / n0) ** 2
        check("speedup over the nested loop at 2^24", extrapolated / s["ms"], 2000, True,
              f"nested loop measured at N = {pow2(n0)} ({nested[n0]['ms']:.4g} ms), extrapolated as N^2")
    else:
        check("speedup over the nested loop at 2^24", None, 2000, True)
    for n in sorted(runs.get("equi_zipf1.5", {}).get("sorted", {})):
        z, u = get("equi_zipf1.5", "sorted", n), get("equi_uniform", "sorted", n)
        check(f"Zipf 1.5 over uniform (time ratio, same output size) at {pow2(n)}", z and u and z["ms"] / u["ms"], 3, False)
    return ["## Targets\n", "| what | measured | result | note |", "|---|---:|---|---|"] + rows, ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--out")
    args = ap.parse_args()
    context, runs = load(args.results)
    head = [f"# bench_sorted_join: {context.get('gpu', '?')}, {context.get('date', '?')[:10]}, "
            f"commit {context.get('twobody_commit', '?')}\n",
            "Median of 5; each call a whole join on device data (device result). "
            "rows/s counts both input tables.\n"]
    body = tables(runs)
    tgt, ok = targets(runs)
    text = "\n".join(head + body + tgt) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
