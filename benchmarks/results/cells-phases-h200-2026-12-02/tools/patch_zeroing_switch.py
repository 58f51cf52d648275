#!/usr/bin/env python3
"""Scratch experiment (never in the library): launch_cell_list in DIR/include reads DIAG_NOCOOP:
1 launches without the cooperative attribute and without zeroing the output (timing only: the
output then accumulates over calls), 2 keeps the attribute but does not zero. 0: as the library.
    patch_zeroing_switch.py DIR"""
import sys
p = f"{sys.argv[1]}/include/twobody/detail/histogram_launch.cuh"
s = open(p).read()
old = "  bool const cooperative = prepare_one_pass_output(p, mirror, cooperative_launches(), stream);\n"
new = old.replace("bool const", "bool") + """  static int const nocoop_ = getenv("DIAG_NOCOOP") ? atoi(getenv("DIAG_NOCOOP")) : 0;
  if (nocoop_ && cooperative) { cooperative = nocoop_ == 2; p.zero_counts = false; }
"""
assert old in s; open(p, "w").write(s.replace(old, new, 1))
