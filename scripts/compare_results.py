#!/usr/bin/env python3
"""Side-by-side table of two Google Benchmark JSON files: the median pairs/s (or time) of every
benchmark both contain, at the sizes asked for, with the ratio new / old.

usage: compare_results.py OLD.json NEW.json [--size N ...] [--threshold 0.97]
Rows whose ratio is below the threshold are marked; a rate is better higher, a time lower.
"""
import argparse
import json

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("old")
ap.add_argument("new")
ap.add_argument("--size", action="append", default=[], help="keep names containing /N/ (repeatable)")
ap.add_argument("--threshold", type=float, default=0.97)
args = ap.parse_args()


def medians(path):
    d = json.load(open(path))
    out = {}
    for b in d["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        name = b["run_name"]
        if args.size and not any(f"/{s}/" in name + "/" for s in args.size):
            continue
        rate = b.get("pairs_per_s")
        out[name] = (rate, True) if rate else (b["real_time"], False)
    return out, d["context"]


old, oc = medians(args.old)
new, nc = medians(args.new)
print(f"| benchmark | {oc.get('twobody_commit', 'old')} ({oc.get('date', '')[:10]}) | "
      f"{nc.get('twobody_commit', 'new')} ({nc.get('date', '')[:10]}) | new / old |")
print("|---|---:|---:|---:|")
for name in sorted(set(old) & set(new)):
    (a, is_rate), (b, _) = old[name], new[name]
    ratio = b / a if is_rate else a / b
    unit = "T pairs/s" if is_rate else "time"
    va, vb = (a / 1e12, b / 1e12) if is_rate else (a, b)
    mark = " below" if ratio < args.threshold else ""
    short = name.split("/min_time")[0].split("/iterations")[0]
    print(f"| {short} ({unit}) | {va:.4g} | {vb:.4g} | {ratio:.3f}{mark} |")
