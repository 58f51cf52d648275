#!/usr/bin/env python3
"""Markdown tables of a bench_frames JSON file: the one-call floor (median microseconds per
call) and the batched frames (T pairs/s and the fraction of the large-N RDF rate).

    frames_table.py bench_frames.json [COMMIT]

COMMIT names the binary's commit where the run did not record it (TWOBODY_COMMIT unset)."""
from bench_json import exit_with_help_if_asked

exit_with_help_if_asked(__doc__)
import json
import re
import sys
from collections import defaultdict


def main(path, commit=None):
    data = json.load(open(path))
    ctx = data["context"]
    med = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        named = re.match(r"(.+?)/n:(\d+)/copies:(\d+)/", b["run_name"] + "/")
        if named:  # shape rows: N and copies as named arguments
            med[(f"{named.group(1)} copies:{named.group(3)}", int(named.group(2)))] = b
            continue
        m = re.match(r"(.+?)/(\d+)/", b["run_name"] + "/")
        med[(m.group(1), int(m.group(2)))] = b
    print(f"# bench_frames: {ctx.get('gpu', '?')}, {ctx['date'][:10]}, commit {ctx.get('twobody_commit') or (commit + ' (given)' if commit else '?')}\n")
    print("Median of 5 repetitions. Wall clock per call (floor: host-synchronous, asynchronous with a")
    print("synchronization every 64 calls, CUDA-graph replay; frames: one whole call over 1000 frames).\n")
    rows, sizes = defaultdict(dict), set()
    for (name, n), b in med.items():
        if name.startswith(("floor/", "phase/", "shape/")):
            rows[name][n] = b["real_time"]
            sizes.add(n)
    print("## Floor, tile shapes and phases (microseconds per call)\n")
    ns = sorted(sizes)
    print("| | " + " | ".join(f"N = {n}" for n in ns) + " |")
    print("|---|" + "---:|" * len(ns))
    for name in sorted(rows):
        print(f"| {name} | " + " | ".join(f"{rows[name][n]:.3g}" if n in rows[name] else "" for n in ns) + " |")
    large = med.get(("large/rdf128/one_call", 1 << 20))
    large_rate = large["pairs_per_s"] if large else None
    print("\n## Frames (T pairs/s; fraction of the one-call RDF rate at N = 2^20)\n")
    if large:
        sdh = med.get(("large/sdh256/one_call", 1 << 20))
        sdh_text = f"; SDH 256 bins: {sdh['pairs_per_s'] / 1e12:.3g} T pairs/s" if sdh else ""
        print(f"Large-N RDF (one call, N = 2^20): {large_rate / 1e12:.3g} T pairs/s{sdh_text}.\n")
    fr, fsizes = defaultdict(dict), set()
    for (name, n), b in med.items():
        if name.startswith("frames/"):
            fr[name][n] = b
            fsizes.add(n)
    fns = sorted(fsizes)
    print("| atoms per frame | " + " | ".join(f"N = {n}" for n in fns) + " |")
    print("|---|" + "---:|" * len(fns))
    for name in sorted(fr):
        cells = []
        for n in fns:
            b = fr[name].get(n)
            if b is None:
                cells.append("")
                continue
            rate = b["pairs_per_s"]
            frac = f", {rate / large_rate:.0%}" if large_rate and "rdf128" in name else ""
            gpu = f", GPU {b['gpu_us'] / 1e3:.3g} ms" if "gpu_us" in b else ""
            cells.append(f"{rate / 1e12:.3g} ({b['real_time'] / 1e3:.3g} ms{gpu}{frac})")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
