#!/usr/bin/env python3
"""Markdown table of bench_frames JSON files in DIR named BINARY_ROUND.json: microseconds per
call (medians of 5), one column per binary, its rounds separated by "/".

    frames_rounds_table.py DIR"""
import glob, json, os, re, sys
rows, names = {}, []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    which = re.sub(r"_\d+\.json$", "", os.path.basename(f))
    if which not in names: names.append(which)
    for b in json.load(open(f))["benchmarks"]:
        if b.get("aggregate_name") != "median": continue
        name = b["run_name"].split("/min_time")[0].split("/repeats")[0]
        rows.setdefault(name, {}).setdefault(which, []).append(b["real_time"])
print("| row | " + " | ".join(names) + " |")
print("|---|" + "---:|" * len(names))
for name, v in rows.items():
    print(f"| {name} | " + " | ".join(" / ".join(f"{x:.2f}" for x in v.get(n, [])) for n in names) + " |")
