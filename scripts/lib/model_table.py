#!/usr/bin/env python3
"""Table and plot of the cost-model sweep (benchmarks/bench_cost_model.cu JSON).

    python3 scripts/lib/model_table.py benchmarks/results/h100/bench_cost_model.json [--png out.png]

For each number of bins: the median time with every number of copies H, the best H, the
model's choice (one-call histogram) and its time over the best. Criteria of the cost-model
issue: model within 5% of the best for at least 90% of the sweep, never worse than 15%.
The PNG needs matplotlib (Debian: python3-matplotlib)."""
import argparse
import json
import re
import sys

from bench_json import median_runs

NAME = re.compile(r"^sweep/bins:(\d+)/(copies:(\d+)|model)")


def load(path):
    ctx, runs = median_runs(path, NAME)
    rows = {}
    for m, b, seconds in runs:
        bins = int(m.group(1))
        key = "model" if m.group(2) == "model" else int(m.group(3))
        rows.setdefault(bins, {})[key] = {"s": seconds, "copies": int(b.get("copies", 0)),
                                          "ppt": int(b.get("points_per_thread", 0)),
                                          "shuffle": int(b.get("shuffle", 0)), "predicted": b.get("predicted_s")}
    return ctx, rows


def analyse(rows):
    out = []
    for bins in sorted(rows):
        r = rows[bins]
        explicit = {h: v["s"] for h, v in r.items() if h != "model"}
        if not explicit or "model" not in r:
            continue
        best_h = min(explicit, key=explicit.get)
        best = explicit[best_h]
        # The best is over every composition timed, the model's own run included.
        best_all = min(best, r["model"]["s"])
        out.append({"bins": bins, "times": explicit, "best_h": best_h, "best": best_all,
                    "model_h": r["model"]["copies"], "model_ppt": r["model"]["ppt"], "model_shuffle": r["model"]["shuffle"],
                    "model": r["model"]["s"], "ratio": r["model"]["s"] / best_all, "predicted": r["model"]["predicted"]})
    return out


def table(ctx, res):
    hs = [1, 2, 4, 8, 16, 32]
    lines = [f"Cost-model sweep: SDH of N = {ctx.get('n', '?')} points, {ctx.get('gpu', '?')}, "
             f"{ctx.get('date', '?')[:10]}, commit {ctx.get('twobody_commit', '?')}. Median of 3; times in ms; "
             "explicit runs use shared_tile<256, 8> + warp_privatized{H}; the model column is the one-call histogram.",
             "",
             "| bins | " + " | ".join(f"H={h}" for h in hs) + " | best H | model (input, H) | model / best |",
             "|---:|" + "---:|" * len(hs) + "---:|---|---:|"]
    for r in res:
        cells = [f"{r['times'][h] * 1e3:.1f}" if h in r["times"] else "-" for h in hs]
        inp = "shuffle_tile<256, 4>" if r["model_shuffle"] else f"shared_tile<256, {r['model_ppt']}>"
        lines.append(f"| {r['bins']} | " + " | ".join(cells) +
                     f" | {r['best_h']} | {inp}, {r['model_h']} | {r['ratio']:.3f} |")
    within5 = sum(r["ratio"] <= 1.05 for r in res)
    worst = max(res, key=lambda r: r["ratio"])
    ok = within5 >= 0.9 * len(res) and worst["ratio"] <= 1.15
    lines += ["",
              f"Model within 5% of the best: {within5} of {len(res)} ({100.0 * within5 / len(res):.0f}%, need >= 90%); "
              f"worst {worst['ratio']:.3f} at {worst['bins']} bins (need <= 1.15): {'PASS' if ok else 'MISS'}."]
    return "\n".join(lines), ok


def plot(ctx, res, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(10, 8), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    bins = [r["bins"] for r in res]
    for h in [1, 2, 4, 8, 16, 32]:
        pts = [(r["bins"], r["times"][h] * 1e3) for r in res if h in r["times"]]
        if pts:
            ax.plot(*zip(*pts), marker="o", ms=3, label=f"H = {h} copies")
    ax.plot(bins, [r["model"] * 1e3 for r in res], "k*", ms=9, label="model's choice (one-call)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_ylabel("time (ms, median)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(f"SDH, N = {ctx.get('n', '?')}: private copies vs bins\n{ctx.get('gpu', '?')}, "
                 f"{ctx.get('date', '?')[:10]}, commit {ctx.get('twobody_commit', '?')}")
    ax2.plot(bins, [r["ratio"] for r in res], "k*-", ms=6)
    ax2.axhline(1.05, color="tab:orange", ls="--", lw=1, label="5%")
    ax2.axhline(1.15, color="tab:red", ls="--", lw=1, label="15%")
    ax2.set_ylabel("model / best")
    ax2.set_xlabel("bins")
    ax2.grid(True, which="both", alpha=0.3)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(path, file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json")
    ap.add_argument("--png", help="write the plot here (default: next to the JSON)")
    a = ap.parse_args()
    ctx, rows = load(a.json)
    res = analyse(rows)
    if not res:
        sys.exit("no sweep results in " + a.json)
    text, _ = table(ctx, res)
    print(text)
    try:
        plot(ctx, res, a.png or a.json.rsplit(".", 1)[0] + ".png")
    except ImportError:
        print("matplotlib not found: no plot (Debian: apt install python3-matplotlib)", file=sys.stderr)


if __name__ == "__main__":
    main()
