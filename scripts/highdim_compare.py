#!/usr/bin/env python3
"""Markdown table of two bench_highdim JSONs of the same run (before, after): the median time of
every benchmark both hold, and after's speed-up (before / after)."""
import json
import re
import sys


def medians(path):
    data = json.load(open(path))
    return data["context"], {b["run_name"]: b for b in data["benchmarks"] if b.get("aggregate_name") == "median"}


def main(before_path, after_path):
    ctx_b, before = medians(before_path)
    ctx_a, after = medians(after_path)
    print(f"before: {ctx_b.get('twobody_commit', before_path)}, after: {ctx_a.get('twobody_commit', after_path)}\n")
    print("| benchmark | before ms | after ms | speed-up |")
    print("|---|---:|---:|---:|")
    for name, a in after.items():
        b = before.get(name)
        if b is None:
            continue
        tag = re.sub(r"/iterations:.*", "", name)
        print(f"| {tag} | {b['real_time']:.1f} | {a['real_time']:.1f} | {b['real_time'] / a['real_time']:.2f} |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: highdim_compare.py BEFORE.json AFTER.json")
    main(sys.argv[1], sys.argv[2])
