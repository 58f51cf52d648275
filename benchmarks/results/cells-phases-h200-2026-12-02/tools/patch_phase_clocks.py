#!/usr/bin/env python3
"""Scratch instrumentation (never in the library): copies of the headers in DIR/include get
clock64 stamps, by thread 0 of each block after the cell kernel's block barriers, into
twobody::detail::diag_stamps (16 per block; 14, 15: globaltimer at entry and exit).
    patch_phase_clocks.py DIR"""
import sys
d = sys.argv[1]
def sub(p, old, new):
    """old (and new) may be tuples: the first alternative found (the headers at 4bef8b0 and after)."""
    p = f"{d}/include/twobody/{p}"; s = open(p).read()
    olds, news = (old, new) if isinstance(old, tuple) else ((old,), (new,))
    k = next((k for k, o in enumerate(olds) if o in s), None); assert k is not None, (p, olds)
    open(p, "w").write(s.replace(olds[k], news[k], 1))
open(f"{d}/include/twobody/diag.cuh", "w").write('''#pragma once
namespace twobody::detail {
__device__ long long diag_stamps[256 * 16];
__device__ __forceinline__ long long diag_clock() { long long c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)); return c; }
__device__ __forceinline__ long long diag_gtime() { long long c; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(c)); return c; }
__device__ __forceinline__ void diag(int k) { if (threadIdx.x == 0) { diag_stamps[blockIdx.x * 16 + k] = diag_clock(); } }
}
''')
T = "detail/cell_list_traversal.cuh"
sub(T, "#include <twobody/detail/config.cuh>", "#include <twobody/diag.cuh>\n#include <twobody/detail/config.cuh>")
stamp0 = "\n  {\n    if (threadIdx.x == 0) { diag_stamps[blockIdx.x * 16 + 14] = diag_gtime(); }\n    diag(0);\n"
ctor = ("      start(position + cell_list_max_points)", "      start(reinterpret_cast<int*>(dynamic + 2 * cell_list_max_points * sizeof(float4)))")
sub(T, tuple(c + "\n  {\n" for c in ctor), tuple(c + stamp0 for c in ctor))
sub(T, "      if (i < n) { q[k] = p.a.load_readonly(i); }\n    }\n  }", "      if (i < n) { q[k] = p.a.load_readonly(i); }\n    }\n    diag(1);\n  }")
sub(T, "    __syncthreads();  // (the constructor's zeroing before the counts)", "    __syncthreads();  // (the constructor's zeroing before the counts)\n    diag(3);")
sub(T, "    if (__syncthreads_or(stray ? 1 : 0) != 0) { return true; }", "    if (__syncthreads_or(stray ? 1 : 0) != 0) { return true; }\n    diag(4);")
sub(T, "    if (threadIdx.x == 0) { start[cell_list_max_cells] = in_cells; }\n    __syncthreads();", "    if (threadIdx.x == 0) { start[cell_list_max_cells] = in_cells; }\n    __syncthreads();\n    diag(5);")
scatter = ("        position[i]   = at;\n      }\n    }\n    __syncthreads();",
           "        binned[start[cell[k]] + rank[k]] = make_float4(b.x, b.y, b.z, __int_as_float(i));\n      }\n    }\n    __syncthreads();")
sub(T, scatter, tuple(x + "\n    diag(6);" for x in scatter))
sub(T, "    if (!stray) { count_unvisited(out); }", "    diag(7);\n    if (!stray) { count_unvisited(out); }\n    diag(8);")
P = "output/privatized_histogram.cuh"
sub(P, "#include <twobody/detail/last_block.cuh>", "#include <twobody/diag.cuh>\n#include <twobody/detail/last_block.cuh>")
sub(P, "      storage.zeroed.arrive();\n    }\n    __syncthreads();", "      storage.zeroed.arrive();\n    }\n    __syncthreads();\n    diag(2);")
sub(P, "    if (p.zero_counts) { storage.zeroed.wait_once(); }  // (the constructor's and each flush's barriers order it)\n    __syncthreads();",
       "    if (p.zero_counts) { storage.zeroed.wait_once(); }  // (the constructor's and each flush's barriers order it)\n    diag(9);\n    __syncthreads();\n    diag(10);")
sub(P, "    if (p.mirror != nullptr) { move_out_in_last_block(p.mirror, p.counts + p.window_begin, p.window_size, p.ticket); }",
       "    if (p.mirror != nullptr) { move_out_in_last_block(p.mirror, p.counts + p.window_begin, p.window_size, p.ticket); }\n    diag(11);\n    if (threadIdx.x == 0) { diag_stamps[blockIdx.x * 16 + 15] = diag_gtime(); }")
