#!/usr/bin/env python3
"""Shares of the tile forms (detail/tile_forms.cuh) of the periodic RDF, in a model of the one-call
layout: N uniform points in a periodic box of side L, ordered as detail/tile_order.cuh orders them
(sort-tile-recursive), tiles of TS points, distance bins to r_max. Prints the share of tile pairs
that take the open-box form, fixed images, the general minimum image, and that are counted
outside at once (evidence for the issue-21 notes; exact arithmetic stands in for float).

    python3 scripts/tile_forms_model.py [N] [TS] [r_max/L]     # defaults 1048576 1024 0.5
"""
import random
import sys

if any(a in ("-h", "--help") for a in sys.argv[1:]):
    print(__doc__)
    sys.exit(0)
N = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
TS = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
L = 100.0
rmax = L * (float(sys.argv[3]) if len(sys.argv) > 3 else 0.5)
random.seed(1)


def str_order(pts, tiles):
    """Sort-tile-recursive: slabs of side^2 tiles by x, columns of side tiles by y, then z."""
    side = round(tiles ** (1 / 3))
    pts = sorted(pts, key=lambda p: p[0])
    out = []
    for s in range(0, len(pts), side * side * TS):
        slab = sorted(pts[s:s + side * side * TS], key=lambda p: p[1])
        for c in range(0, len(slab), side * TS):
            out += sorted(slab[c:c + side * TS], key=lambda p: p[2])
    return out


def form(a, b):
    """The form tile_form_of takes for boxes a and b ([(lo, hi)] per axis)."""
    low2, direct, fixed = 0.0, True, True
    for (alo, ahi), (blo, bhi) in zip(a, b):
        lo, hi = alo - bhi, ahi - blo
        tmax = max(abs(lo), abs(hi))
        tmin = 0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))
        d, w = tmax <= L - tmax, tmin >= L - tmin
        direct, fixed = direct and d, fixed and (d or w)
        low2 += max(0.0, min(tmin, L - tmax)) ** 2
    if low2 >= rmax * rmax * (1 + 1 / 512):
        return "outside"
    return "open box" if direct else ("fixed images" if fixed else "general")


points = [(random.random() * L, random.random() * L, random.random() * L) for _ in range(N)]
tiles = (N + TS - 1) // TS
ordered = str_order(points, tiles)
boxes = []
for t in range(tiles):
    tile = ordered[t * TS:(t + 1) * TS]
    boxes.append([(min(p[d] for p in tile), max(p[d] for p in tile)) for d in range(3)])
count = {"open box": 0, "fixed images": 0, "general": 0, "outside": 0}
for i in range(tiles):
    for j in range(i + 1, tiles):
        count[form(boxes[i], boxes[j])] += 1
total = sum(count.values())
print(f"N = {N}, {tiles} tiles of {TS}, r_max = {rmax / L} L: " +
      ", ".join(f"{k} {v / total:.3f}" for k, v in count.items()))
