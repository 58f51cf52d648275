#!/usr/bin/env python3
"""Fits the cost model's constants of passes over spread windows on ordered points
(model::choose_ordered_passes, model/registry.cuh) to bench_bins' ordered_passes rows, which carry
the model's predicted time (predicted_s) and what the passes visit (whole, partial).

From each row it recovers t_pass, the model's one pass of the row's layout, from the prediction
made with the constants the binary had (--old whole,partial,skip[,staged]: the factors, the
seconds per tile pair and pass, and per staging of a tile pair per 1024 tile points), then fits
measured = t_pass (fw whole + fp partial) + s x passes x tile pairs per resident block on the SDH
rows (relative least squares), and fw alone on the RDF rows with the SDH's fp and s. With
--staged-only it keeps fw, fp and s (--old) and fits only the staging seconds c in
+ c x staged x tile pairs per resident block x tile / 1024 (rows with staged > 0, SDH and
(r_p, pi)). Prints the constants and each row's ratio of new prediction to time.

    python3 scripts/lib/ordered_passes_fit.py bins.json [--old 1.0,1.32,0.5e-6[,0]] [--staged-only]
"""
from bench_json import exit_with_help_if_asked

exit_with_help_if_asked(__doc__)
import json
import sys

import numpy as np

if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
    print(__doc__)
    sys.exit(0)
old = [1.0, 1.32, 0.5e-6, 0.0]
if "--old" in sys.argv:
    given = [float(x) for x in sys.argv[sys.argv.index("--old") + 1].split(",")]
    old[: len(given)] = given
rows = []
staged_rows = []
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    n = b["name"]
    if "ordered_passes" not in n or "predicted_s" not in b or "/st2" in n:  # (fitted on 1024- and 2048-point tiles)
        continue
    tile = 2048 if ("/st8" in n or "/w4" in n) else 1024
    tile_pairs = 131328 if tile == 2048 else 524800  # 2^20 points in self mode: 512 or 1024 tiles
    resident = (2 if ":B2" in n else 1) * 132
    passes, whole, partial, staged = b["passes"], b["whole"], b["partial"], b.get("staged", 0.0)
    scan = passes * tile_pairs / resident
    stg = staged * tile_pairs / resident * tile / 1024
    t_pass = (b["predicted_s"] - old[2] * scan - old[3] * stg) / (old[0] * whole + old[1] * partial)
    rows.append((n.split("/iterations")[0], t_pass, whole, partial, scan, b["real_time"] / 1e3, b["predicted_s"]))
    if stg > 0:
        staged_rows.append((rows[-1][0], t_pass, whole, partial, scan, b["real_time"] / 1e3, b["predicted_s"], stg))


def lsq(a, y):
    w = 1.0 / np.array([r[5] for r in sel])
    return np.linalg.lstsq(np.array(a) * w[:, None], np.array(y) * w, rcond=None)[0]


if "--staged-only" in sys.argv:
    sel = staged_rows
    fw, fp, s = old[:3]
    base = [r[1] * (fw * r[2] + fp * r[3]) + s * r[4] for r in sel]
    c = lsq([[r[7]] for r in sel], [r[5] - m for r, m in zip(sel, base)])[0]
    print(f"staged_tile_pair_seconds {c:.3g} (per staging and 1024 tile points)")
    for r, m in zip(sel, base):
        print(f"{r[0]:<45} measured {r[5]:.3f} s  old {r[6]:.3f}  new {m + c * r[7]:.3f}  ratio {(m + c * r[7]) / r[5]:.2f}")
    sys.exit(0)
sel = [r for r in rows if r[0].startswith("sdh")]
fw, fp, s = lsq([[r[1] * r[2], r[1] * r[3], r[4]] for r in sel], [r[5] for r in sel])
print(f"SDH: whole_window_factor {fw:.3f}, window_pass_factor {fp:.3f}, skipped_tile_pair_seconds {s:.3g}")
sel = [r for r in rows if r[0].startswith("rdf")]
fw_images = lsq([[r[1] * r[2]] for r in sel], [r[5] - r[1] * fp * r[3] - s * r[4] for r in sel])[0] if sel else fw
print(f"RDF: whole factor {fw_images:.3f} (whole_window_cost {fw_images / fw:.2f})")
for r in rows:
    f = fw_images if r[0].startswith("rdf") else fw
    m = r[1] * (f * r[2] + fp * r[3]) + s * r[4]
    print(f"{r[0]:<45} measured {r[5]:.3f} s  old {r[6]:.3f}  new {m:.3f}  ratio {m / r[5]:.2f}")
