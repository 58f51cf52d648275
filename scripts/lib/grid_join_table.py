#!/usr/bin/env python3
"""Side-by-side table of a bench_grid_join JSON file: per data set, dimension and eps, the grid
join's time against the brute-force join's, the neighbours found, the distance calls, and the
effect of the half-stencil and of the work ordering.

    python3 scripts/lib/grid_join_table.py benchmarks/results/h100/bench_grid_join.json

Names are <set><D>d_k<k>/<variant>/<N>. Brute force runs at k = 32 only (its time does not
depend on eps: it evaluates all pairs); the other rows divide by that time (marked *).
"""
from bench_json import exit_with_help_if_asked

exit_with_help_if_asked(__doc__)
import re
import sys

from bench_json import median_runs

NAME = re.compile(r"^(?P<set>[a-z]+)(?P<d>\d)d_k(?P<k>\d+)/(?P<variant>[a-z_]+)/(?P<n>\d+)")


def medians(path):
    out = {}
    for m, b, seconds in median_runs(path, NAME)[1]:
        row = dict(b)
        row["ms"] = seconds * 1e3
        out[(m["set"], int(m["d"]), int(m["k"]), m["variant"], int(m["n"]))] = row
    return out


def fmt(x, digits=3):
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:.0f}"
    return f"{x:.{digits}g}"


def main():
    rows = medians(sys.argv[1])
    keys = sorted({(s, d, k, n) for (s, d, k, v, n) in rows}, key=lambda t: (t[0] != "uniform", t[0], t[1], t[2], t[3]))
    print("\n## Grid join vs brute force (side by side)\n")
    print("Median times (index build + join, records on the device). speedup = brute-force time / grid time "
          "(* brute force measured at k = 32: it evaluates all pairs whatever eps). calls = distance calls / "
          "N(N-1)/2. half-stencil = full-stencil calls / half-stencil calls (time ratio). ordered = time with "
          "queries ordered by work / time in cell order.\n")
    print("| set | D | N | eps | neighbours | results | grid ms | brute ms | speedup | calls | half-stencil | ordered |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for (s, d, k, n) in keys:
        g = rows.get((s, d, k, "grid", n))
        if g is None:
            continue
        brute = rows.get((s, d, k, "brute_force", n))
        star = ""
        if brute is None:
            brute = rows.get((s, d, 32, "brute_force", n))
            star = "*"
        full = rows.get((s, d, k, "full_stencil", n)) or rows.get((s, d, k, "grid_full_stencil", n))
        ordered = rows.get((s, d, k, "grid_ordered", n))
        results = f"{g['results']:.0f}"
        if brute is not None and not star:
            results += " (=)" if brute["results"] == g["results"] else f" (brute {brute['results']:.0f}: DIFFER)"
        half = "-"
        if full is not None and g["distance_calls"] > 0:
            half = f"{full['distance_calls'] / g['distance_calls']:.2f}x ({full['ms'] / g['ms']:.2f}x)"
        print(f"| {s} | {d} | 2^{n.bit_length() - 1} | {g['eps']:.4g} | {fmt(g['neighbours'])} | {results} | "
              f"{fmt(g['ms'])} | {fmt(brute['ms']) if brute else '-'} | "
              f"{fmt(brute['ms'] / g['ms']) + star + 'x' if brute else '-'} | {g['calls_fraction']:.2e} | {half} | "
              f"{fmt(ordered['ms'] / g['ms']) + 'x' if ordered else '-'} |")


if __name__ == "__main__":
    main()
