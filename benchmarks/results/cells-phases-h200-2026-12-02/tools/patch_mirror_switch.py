#!/usr/bin/env python3
"""Scratch experiment (never in the library): with DIAG_MIRROR=1, launch_cell_list in
DIR/include counts into a zeroed scratch buffer of its own (one per process: a single stream
only) and its last block moves the result to the device output (move_out_in_last_block, as the
host-result form does with mapped memory): no in-kernel zeroing, no grid barrier.
    patch_mirror_switch.py DIR"""
import sys
p = f"{sys.argv[1]}/include/twobody/detail/histogram_launch.cuh"
s = open(p).read()
old = "  bool const cooperative = prepare_one_pass_output(p, mirror, cooperative_launches(), stream);\n"
new = """  static int const mirror_ = getenv("DIAG_MIRROR") ? atoi(getenv("DIAG_MIRROR")) : 0;
  if (mirror_ && mirror.to == nullptr) {
    static void* scratch = [] { void* q = nullptr; cudaMalloc(&q, 65536 + 4); cudaMemset(q, 0, 65536 + 4); cudaDeviceSynchronize(); return q; }();
    mirror   = {d_counts, reinterpret_cast<unsigned*>(static_cast<char*>(scratch) + 65536)};
    p.counts = static_cast<Count*>(scratch);
  }
""" + old
assert old in s; open(p, "w").write(s.replace(old, new, 1))
