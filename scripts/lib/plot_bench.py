#!/usr/bin/python3
"""PNG plots of a bench_suite Google Benchmark JSON file (matplotlib, Agg backend).

    /usr/bin/python3 scripts/lib/plot_bench.py results.json [--out-dir DIR]

(matplotlib is Debian's python3-matplotlib, installed for /usr/bin/python3 only.)
Writes into DIR (default: the directory of the JSON file):
  <stem>-<problem>.png  median pairs/s (T pairs/s) vs N per variant, log-log; baselines
                        (variants starting with "naive" or "cpu") dashed;
  <stem>-speedup.png    per problem with a naive and/or cpu variant: best non-baseline rate
                        over the best naive and the best cpu rate, each variant taken at its
                        largest measured N.
Name parsing and median selection are those of scripts/bench_report.py.
"""
from bench_json import exit_with_help_if_asked

exit_with_help_if_asked(__doc__)
import argparse
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench_report import best, describe, is_baseline, load  # noqa: E402


def plot_problem(problem, variants, context, path):
    fig, ax = plt.subplots(figsize=(10, 5.5))
    sizes = sorted({n for by_n in variants.values() for n in by_n})
    colors = plt.get_cmap("tab20").colors  # more than 10 variants: tab10 would repeat colours
    markers = "os^Dv<>ph*"
    for i, (v, by_n) in enumerate(variants.items()):
        ns = sorted(by_n)
        ax.plot(ns, [by_n[n]["pairs_per_s"] / 1e12 for n in ns], marker=markers[i % len(markers)], ms=4,
                color=colors[(2 * i) % 20 if i < 10 else (2 * i + 1) % 20],
                linestyle="--" if is_baseline(v) else "-", label=v)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    exps = range(min(sizes).bit_length() - 1, max(sizes).bit_length())
    ax.xaxis.set_major_locator(FixedLocator([2.0 ** k for k in exps]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: "$2^{%d}$" % round(math.log2(x))))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    if len(sizes) == 1:
        ax.set_xlim(sizes[0] / 2, sizes[0] * 2)
    ax.set_xlabel("N (points)")
    ax.set_ylabel("T pairs/s (median)")
    ax.set_title("%s: pair throughput\n%s" % (problem, describe(context)), fontsize=11)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_speedup(results, context, path):
    rows = []  # (problem, speedup over naive or None, over cpu or None)
    for problem, variants in results.items():
        top, _ = best(variants)
        ratios = []
        for prefix in ("naive", "cpu"):
            base, _ = best(variants, prefix=prefix)
            ratios.append(top / base if top is not None and base else None)
        if any(r is not None for r in ratios):
            rows.append((problem, *ratios))
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(rows) + 2), 5))
    width = 0.38
    for i, (label, color) in enumerate((("over best naive GPU", "tab:orange"), ("over best CPU", "tab:blue"))):
        xs = [j + (i - 0.5) * width for j, row in enumerate(rows) if row[1 + i] is not None]
        vals = [row[1 + i] for row in rows if row[1 + i] is not None]
        bars = ax.bar(xs, vals, width, label=label, color=color)
        for bar, v in zip(bars, vals):
            ax.annotate("%.0fx" % v if v >= 10 else "%.2gx" % v, (bar.get_x() + width / 2, v),
                        ha="center", va="bottom", fontsize=9, xytext=(0, 2), textcoords="offset points")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([row[0] for row in rows])
    ax.set_yscale("log")
    ax.margins(y=0.15)
    ax.set_ylabel("speedup (x)")
    ax.set_title("Speedup of the best twobody variant\nratio of pair rates, each at its largest measured N; %s"
                 % describe(context), fontsize=10)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", help="Google Benchmark JSON (--benchmark_out_format=json)")
    ap.add_argument("--out-dir", help="output directory (default: that of the JSON file)")
    args = ap.parse_args()
    context, results, _ = load(args.results)
    out_dir = args.out_dir or os.path.dirname(os.path.abspath(args.results))
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.results))[0]
    for problem, variants in results.items():
        path = os.path.join(out_dir, "%s-%s.png" % (stem, problem))
        plot_problem(problem, variants, context, path)
        print(path)
    path = os.path.join(out_dir, "%s-speedup.png" % stem)
    if plot_speedup(results, context, path):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
