#!/usr/bin/env python3
"""Stall samples and warp instructions of an Nsight Compute source page (ncu --page source --csv
--print-source sass) summed by phase of the knn kernel, with source lines from the binary's line
table (nvdisasm -g of the cubin, built with -lineinfo):

    sass_by_line.py KERNEL_MANGLED_NAME DISASSEMBLY.sass PAGE.csv [phase:first-last ...]

A phase is a range of lines of mma_traversal.cuh (they move between versions: pass them); lines
of nearest_candidates.cuh are `visitor`, other files by name, the rest of mma_traversal.cuh by
hundreds of lines (the products with wgmma are near line 600-700)."""
import re, csv, collections, sys

K, sassfile, csvfile = sys.argv[1:4]
ranges = []
for a in sys.argv[4:]:
    name, span = a.rsplit(":", 1)
    lo, hi = span.split("-")
    ranges.append((name, int(lo), int(hi)))
lines = open(sassfile).read().split("\n")
start = next(i for i, l in enumerate(lines) if l.startswith("\t.section") and (".text." + K) in l)
off2src, cur = {}, None
for l in lines[start + 1:]:
    if l.startswith("\t.section") and ".text." in l:
        break
    m = re.search(r'//## File "([^"]+)", line (\d+)', l)
    if m:
        cur = (m.group(1).split("/")[-1], int(m.group(2)))
        continue
    m = re.search(r"/\*([0-9a-f]{4,})\*/", l)
    if m and cur:
        off2src[int(m.group(1), 16)] = cur
rows = list(csv.reader(open(csvfile)))
hdr = rows[1]
ix = {h: i for i, h in enumerate(hdr)}
base = int(rows[2][0], 16)
stall_cols = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]


def phase(f, l):
    if f == "nearest_candidates.cuh":
        return "visitor"
    if f == "mma_traversal.cuh":
        for name, lo, hi in ranges:
            if lo <= l <= hi:
                return name
        return "mma_traversal %d-%d" % (l // 100 * 100, l // 100 * 100 + 99)
    return f


agg = collections.defaultdict(lambda: [0, 0, collections.Counter()])
te = ts = 0
for r in rows[2:]:
    try:
        a, e, s = int(r[0], 16), int(r[ix["Instructions Executed"]]), int(r[ix["Warp Stall Sampling (All Samples)"]])
    except (ValueError, KeyError):
        continue
    p = phase(*off2src.get(a - base, ("?", 0)))
    agg[p][0] += e
    agg[p][1] += s
    te += e
    ts += s
    for h in stall_cols:
        try:
            agg[p][2][h[6:]] += int(r[ix[h]])
        except ValueError:
            pass
print(f"warp instructions {te / 1e9:.2f}G, stall samples {ts}")
for p, (e, s, c) in sorted(agg.items(), key=lambda kv: -kv[1][1])[:14]:
    top = ", ".join(f"{k} {100 * v / max(s, 1):.0f}" for k, v in c.most_common(3))
    print(f"{p:26s} samples {100 * s / ts:5.1f}%  instructions {e / 1e9:6.3f}G   [{top}]")
