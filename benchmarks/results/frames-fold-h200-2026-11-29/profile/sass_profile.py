#!/usr/bin/env python3
"""Summary of an Nsight Compute source page (ncu --page source --csv --print-source sass):
warp instructions executed, the stall reasons of the samples, the blocks of instructions with
the same execution count (basic blocks, roughly) that execute the most, and how many
instructions every warp executes exactly `once` times (default: the most common count below
the hot loop's).

    sass_profile.py KERNEL_sass.csv [once]"""
import collections, csv, sys

rows = list(csv.reader(open(sys.argv[1])))
hdr, data = rows[1], rows[2:]
ix = {h: i for i, h in enumerate(hdr)}
stall_cols = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
ins = []
for r in data:
    try:
        ex, s = int(r[ix["Instructions Executed"]]), int(r[ix["Warp Stall Sampling (All Samples)"]])
    except (ValueError, KeyError):
        continue
    ins.append((r[ix["Source"]].strip(), ex, s, {h: int(r[ix[h]]) for h in stall_cols}))
tot_ex = sum(e for _, e, _, _ in ins)
tot_s = sum(s for _, _, s, _ in ins)
print(f"warp instructions executed {tot_ex}, stall samples {tot_s}")
agg = collections.Counter()
for *_, st in ins:
    agg.update(st)
print("stall reasons (% of samples):", ", ".join(f"{h[6:]} {100 * v / tot_s:.1f}" for h, v in agg.most_common(10)))
segs, cur = [], None
for k, (src, e, s, _) in enumerate(ins):
    if cur and cur["e"] == e and cur["end"] == k - 1:
        cur.update(end=k, n=cur["n"] + 1, s=cur["s"] + s)
        cur["src"].append(src)
    else:
        cur = {"start": k, "end": k, "e": e, "n": 1, "s": s, "src": [src]}
        segs.append(cur)
print("blocks executing the most instructions:")
for g in sorted(segs, key=lambda g: -g["e"] * g["n"])[:12]:
    ops = collections.Counter(x.split()[1] if x.startswith("@") else x.split()[0] for x in g["src"])
    print(f"  [{g['start']}-{g['end']}] x{g['e']} n={g['n']}: {100 * g['e'] * g['n'] / tot_ex:.1f}% of instructions, "
          f"{100 * g['s'] / tot_s:.1f}% of samples; {dict(ops.most_common(6))}")
by_count = collections.Counter(e for _, e, _, _ in ins)
hot = max(by_count, key=lambda e: e * by_count[e])
once = int(sys.argv[2]) if len(sys.argv) > 2 else max((e for e in by_count if e < hot), key=lambda e: e * by_count[e])
print(f"hot loop: {by_count[hot]} instructions x {hot} ({100 * hot * by_count[hot] / tot_ex:.1f}%); "
      f"executed {once} times (once per warp): {by_count[once]} instructions ({100 * once * by_count[once] / tot_ex:.1f}%)")
