#!/usr/bin/env python3
"""Shares of the tile forms (detail/tile_forms.cuh) of the periodic RDF, in a model of the one-call
layout: N uniform points in a periodic box of side L, ordered as detail/tile_order.cuh orders them
(sort-tile-recursive), tiles of TS points, distance bins to r_max. Prints the share of pairs that
take the open-box form, fixed images, the general minimum image, and that are counted outside at
once, and the instructions per pair those shares predict (each form's loop from the SASS of the
1024-point tile's kernel: 11.5, 14.6 and 17.7). With SUB > 1 each tile is also cut into SUB
sub-tiles (halved along the axes in turn) and the forms are chosen per sub-tile pair, as the
kernels do per warp and column sub-tile; tile pairs are then sampled (20000). Exact arithmetic
stands in for float (evidence for the issue-21 notes).

    python3 scripts/tile_forms_model.py [N] [TS] [r_max/L] [SUB]   # defaults 1048576 1024 0.5 1
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
SUB = int(sys.argv[4]) if len(sys.argv) > 4 else 1
COST = {"open box": 11.5, "fixed images": 14.6, "general": 17.7, "outside": 0.0}
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


def halves(part, axis, count):
    """part cut into `count` sub-tiles: halved along axis, axis + 1, ... in turn."""
    if count == 1:
        return [part]
    part = sorted(part, key=lambda p: p[axis % 3])
    h = len(part) // 2
    return halves(part[:h], axis + 1, count // 2) + halves(part[h:], axis + 1, count // 2)


def box(points):
    return [(min(p[d] for p in points), max(p[d] for p in points)) for d in range(3)]


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
tiles = N // TS
ordered = str_order(points, tiles)
boxes, subs = [], []
for t in range(tiles):
    tile = ordered[t * TS:(t + 1) * TS]
    boxes.append(box(tile))
    subs.append([box(s) for s in halves(tile, 0, SUB)] if SUB > 1 else [])
count = {k: 0 for k in COST}
if SUB == 1:
    pairs = ((i, j) for i in range(tiles) for j in range(i + 1, tiles))
else:
    rs = random.Random(7)
    pairs = [(i, j) for i, j in ((rs.randrange(tiles), rs.randrange(tiles)) for _ in range(20000)) if i != j]
for i, j in pairs:
    f = form(boxes[i], boxes[j])
    if f == "outside" or SUB == 1:
        count[f] += SUB * SUB
        continue
    for r in subs[i]:
        for c in subs[j]:
            count[form(r, c)] += 1
total = sum(count.values())
print(f"N = {N}, {tiles} tiles of {TS}, {SUB} sub-tiles each, r_max = {rmax / L} L: " +
      ", ".join(f"{k} {v / total:.3f}" for k, v in count.items()) +
      f"; {sum(COST[k] * v for k, v in count.items()) / total:.2f} instructions per pair")
