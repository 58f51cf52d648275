#!/usr/bin/python3
"""Table and plot of bench_bins results (rate against bins, one line per variant).

    /usr/bin/python3 scripts/lib/bins_table.py A.json [B.json ...] [--out PREFIX] [--label A=name ...]

Reads Google Benchmark JSON files of benchmarks/bench_bins.cu (names
<problem>/bins:<b>/<variant>/iterations:1/manual_time). Each file's rows are tagged with the
file's stem (or --label stem=name), so runs of different code can stand side by side. Prints a
Markdown table (T pairs/s, time, the plan's predicted time over the measured one) and, with
--out, writes PREFIX.md and PREFIX-<problem>.png (matplotlib, log-log). Passes variants are
reduced to the fastest number of passes per bin count and input.
"""
import argparse
import json
import os
import re
from collections import defaultdict


def rows_of(path, tag):
    with open(path) as f:
        data = json.load(f)
    for b in data.get("benchmarks", []):
        if b.get("error_occurred"):
            continue
        m = re.match(r"([a-z_]+)/bins:(\d+)/(.+?)/iterations", b["name"])
        if not m:
            continue
        problem, bins, variant = m.group(1), int(m.group(2)), m.group(3)
        variant = re.sub(r"passes:\d+/", "best passes/", variant)
        yield {
            "problem": problem,
            "bins": bins,
            "variant": f"{variant} [{tag}]",
            "seconds": b["real_time"] / 1e3,  # reported in ms
            "rate": b["pairs_per_s"] / 1e12,
            "predicted": b.get("predicted_s", 0.0),
            "label": b.get("label", ""),
        }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out")
    ap.add_argument("--label", action="append", default=[], help="stem=name")
    args = ap.parse_args()
    names = dict(x.split("=", 1) for x in args.label)
    best = {}
    for path in args.files:
        stem = os.path.splitext(os.path.basename(path))[0]
        for r in rows_of(path, names.get(stem, stem)):
            key = (r["problem"], r["bins"], r["variant"])
            if key not in best or r["rate"] > best[key]["rate"]:
                best[key] = r
    by_problem = defaultdict(list)
    for r in best.values():
        by_problem[r["problem"]].append(r)
    lines = []
    for problem, rows in sorted(by_problem.items()):
        lines += [f"### {problem}", "", "| bins | variant | T pairs/s | time (s) | predicted / measured | plan |",
                  "|---:|---|---:|---:|---:|---|"]
        for r in sorted(rows, key=lambda r: (r["bins"], -r["rate"])):
            ratio = f"{r['predicted'] / r['seconds']:.2f}" if r["predicted"] > 0 else ""
            plan = r["label"].split(";")[0]
            lines.append(f"| {r['bins']} | {r['variant']} | {r['rate']:.3f} | {r['seconds']:.3f} | {ratio} | {plan} |")
        lines.append("")
    text = "\n".join(lines)
    print(text)
    if not args.out:
        return
    with open(args.out + ".md", "w") as f:
        f.write(text + "\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for problem, rows in by_problem.items():
        fig, ax = plt.subplots(figsize=(8, 5))
        series = defaultdict(list)
        for r in rows:
            series[r["variant"]].append((r["bins"], r["rate"]))
        for variant, pts in sorted(series.items()):
            pts.sort()
            style = "--" if "cluster" in variant or "global" in variant else "-"
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", label=variant)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("bins")
        ax.set_ylabel("T pairs/s")
        ax.set_title(f"{problem}: 2^20 points, H100")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(f"{args.out}-{problem}.png", dpi=110)
        plt.close(fig)


if __name__ == "__main__":
    main()
