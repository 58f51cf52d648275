#!/usr/bin/env python3
"""Insert the per-warp timestamps of probe.cuh into a copy of include/ (argument: that copy's
root, e.g. /tmp/inc). Experiment only: the library never carries these. Slots: 0 kernel entry,
1 agent and unit source built, 2 first both-ways columns staged, 3/4 before/after a warp's first
per-point wait (end_columns), 5 traversal done, 6 finish done. Build the driver with
nvcc -std=c++17 -O3 -arch=sm_90a --expt-relaxed-constexpr -I<copy> -o pp_probe pp_probe.cu."""
import pathlib, shutil, sys

root = pathlib.Path(sys.argv[1]) / "twobody"
shutil.copy(pathlib.Path(__file__).with_name("probe.cuh"), root / "detail" / "probe.cuh")


def edit(rel, old, new):
    p = root / rel
    s = p.read_text()
    assert s.count(old) == 1, (rel, old)
    p.write_text(s.replace(old, new))


edit("detail/engine.cuh", "#include <twobody/points.cuh>\n", "#include <twobody/points.cuh>\n#include <twobody/detail/probe.cuh>\n")
edit("detail/engine.cuh", "unsigned char dynamic_smem[];\n", "unsigned char dynamic_smem[];\n  TWOBODY_PROBE(0);\n")
edit("detail/engine.cuh", "  walk.run(units, out);\n  out.finish();\n",
     "  TWOBODY_PROBE(1);\n  walk.run(units, out);\n  TWOBODY_PROBE(5);\n  out.finish();\n  TWOBODY_PROBE(6);\n")
edit("detail/tile_traversal.cuh", "  columns.stage(col_start, col_count);\n  if constexpr (visitor_takes_staged_columns<Visitor>::value) { out.columns_staged(); }\n  for (int first = start",
     "  columns.stage(col_start, col_count);\n  if constexpr (visitor_takes_staged_columns<Visitor>::value) { out.columns_staged(); }\n  TWOBODY_PROBE(2);\n  for (int first = start")
edit("output/per_point.cuh", "    if (zeroing()) { storage.zeroed.wait_in_warp(waited, zeroed_token); }\n    if (valid",
     "    bool const first_wait = !waited;\n    if (first_wait) TWOBODY_PROBE(3);\n"
     "    if (zeroing()) { storage.zeroed.wait_in_warp(waited, zeroed_token); }\n"
     "    if (first_wait) TWOBODY_PROBE(4);\n    if (valid")
