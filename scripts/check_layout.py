#!/usr/bin/env python3
"""Check that include/twobody/ keeps its layers: includes only go down, and nothing is circular.

    scripts/check_layout.py            check; exit 1 on a cycle, an upward include, a kernel in the
                                       foundation, another library's internals, or a listed debt
                                       that no longer occurs
    scripts/check_layout.py --graph    also print the folder include graph (edges with counts)

The layers, bottom up, are LAYERS below; docs/maintainers/layout.md draws them. A header may
include headers of its own layer or of a lower one, never of a higher one, and the file include
graph has no cycle. The top-level headers are of two kinds: VOCABULARY (the types a call takes
and returns: foundation) and everything else (entry points). KNOWN_DEBT lists the upward edges
that are still to be removed, each with what removes it; the check fails when one of them
disappears, so that the list only shrinks.
"""

import argparse
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include", "twobody")

# Bottom up. A folder's headers all sit on its layer; top-level headers are VOCABULARY
# (foundation) or entry points.
LAYERS = [
    ("foundation", ["util", "math", "<vocabulary>"]),  # plumbing, pair arithmetic, public types
    ("engine", ["engine"]),                             # the pair kernel, unit sources, visitors
    ("policies", ["policy", "input", "output"]),        # what a policy tells the planner; tiling and output policies
    ("traversals", ["detail", "rows"]),                 # traversals and drivers; rows/: the tensor-core row machinery
    ("model", ["model"]),                               # registry, cost model
    ("dispatch", ["dispatch", "cpu"]),                  # per statistic: validate, plan, launch; CPU backend
    ("entry points", ["<entry>"]),                      # the public calls
    ("host", ["host"]),                                 # out-of-core, several GPUs, MPI
]

VOCABULARY = {
    "binning.cuh", "emitters.cuh", "error.cuh", "estimators.cuh", "execution.cuh", "frame_set.cuh",
    "functors.cuh", "grid_options.cuh", "join_records.cuh", "join_result.cuh", "points.cuh", "progress.cuh", "results.cuh",
    "row_metrics.cuh", "rows.cuh", "runtime_functor.cuh", "value_traits.cuh",
}

# Upward includes still to remove: (from, to) -> what removes them.
KNOWN_DEBT = {}

# Code that names another library's internals, with the one place allowed to (and why).
FOREIGN_INTERNALS = re.compile(r"\b(cooperative_groups|cub|thrust|cuda|cuda::std)::(details?|__\w+)::")
KNOWN_FOREIGN = {
    "util/split_grid_barrier.cuh": "the grid barrier word of a cooperative launch (cooperative_groups has no public name for it)",
}

# Public headers are documented declarations and thin forwarding: their `namespace detail`
# blocks stay short, and no header is long. Still to move down (header -> what is left to do):
MAX_DETAIL_LINES = 20
MAX_HEADER_LINES = 600
KNOWN_LONG = {
}
KNOWN_DETAIL_IN_PUBLIC = {}
DETAIL_OPEN = re.compile(r"^\s*namespace (twobody::)?detail\s*\{", re.M)
DETAIL_CLOSE = re.compile(r"^\s*\}\s*//\s*namespace (twobody::)?detail")


def longest_detail_block(text):
    longest, start = 0, None
    for i, line in enumerate(text.split("\n")):
        if start is None and DETAIL_OPEN.match(line):
            start = i
        elif start is not None and DETAIL_CLOSE.match(line):
            longest, start = max(longest, i - start), None
    return longest


INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]twobody/([^>"]+)[>"]', re.M)
KERNEL = re.compile(r"\b__global__\b|<<<")


def headers():
    out = {}
    for d, _, files in os.walk(ROOT):
        for f in files:
            if f.endswith((".cuh", ".inl", ".h")):
                path = os.path.relpath(os.path.join(d, f), ROOT).replace(os.sep, "/")
                with open(os.path.join(d, f), encoding="utf-8") as fh:
                    out[path] = fh.read()
    return out


def group_of(path):
    if "/" not in path:
        return "<vocabulary>" if path in VOCABULARY else "<entry>"
    return path.split("/")[0]


def layer_of(path):
    g = group_of(path)
    for rank, (_, groups) in enumerate(LAYERS):
        if g in groups:
            return rank
    return None


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def find_cycles(graph):
    """Strongly connected components of more than one file (Tarjan), and self-includes."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--graph", action="store_true", help="print the folder include graph")
    args = ap.parse_args()

    files = headers()
    graph = {p: [m.group(1) for m in INCLUDE.finditer(t)] for p, t in files.items()}
    problems = []

    for p in sorted(files):
        if layer_of(p) is None:
            problems.append(f"{p}: its folder '{group_of(p)}' is in no layer (add it to LAYERS in {sys.argv[0]})")
    for p, targets in sorted(graph.items()):
        for t in targets:
            if t not in files:
                problems.append(f"{p} includes twobody/{t}, which does not exist")

    upward = set()
    for p, targets in graph.items():
        lp = layer_of(p)
        for t in targets:
            lt = layer_of(t)
            if lp is not None and lt is not None and t in files and lt > lp:
                upward.add((p, t))
    for p, t in sorted(upward - KNOWN_DEBT.keys()):
        problems.append(f"upward include: {p} ({LAYERS[layer_of(p)][0]}) includes {t} ({LAYERS[layer_of(t)][0]})")
    for p, t in sorted(KNOWN_DEBT.keys() - upward):
        problems.append(f"{p} -> {t} is listed in KNOWN_DEBT but no longer occurs: remove it from the list")

    for comp in find_cycles(graph):
        problems.append("include cycle: " + " <-> ".join(comp))

    for p, t in sorted(files.items()):
        code = strip_comments(t)
        if layer_of(p) == 0 and KERNEL.search(code):
            problems.append(f"{p}: a kernel or launch in the foundation layer (move it to engine/, detail/ or dispatch/)")
        if FOREIGN_INTERNALS.search(code) and p not in KNOWN_FOREIGN:
            problems.append(f"{p}: names another library's internals ({FOREIGN_INTERNALS.search(code).group(0)})")
        if p in KNOWN_FOREIGN and not FOREIGN_INTERNALS.search(code):
            problems.append(f"{p} is listed in KNOWN_FOREIGN but names no other library's internals: remove it")

    for p, t in sorted(files.items()):
        n = t.count("\n")
        if (n > MAX_HEADER_LINES) != (p in KNOWN_LONG):
            problems.append(f"{p}: {n} lines" + (f" (over {MAX_HEADER_LINES}: split it by role)" if n > MAX_HEADER_LINES
                                                  else ", listed in KNOWN_LONG: remove it from the list"))
        if "/" in p:
            continue
        d = longest_detail_block(t)
        if (d > MAX_DETAIL_LINES or KERNEL.search(strip_comments(t)) is not None) != (p in KNOWN_DETAIL_IN_PUBLIC):
            problems.append(f"{p}: a public header with a {d}-line namespace detail block or a kernel" +
                            (" (move the machinery one folder down)" if p not in KNOWN_DETAIL_IN_PUBLIC
                             else " is within the rule: remove it from KNOWN_DETAIL_IN_PUBLIC"))

    if args.graph:
        edges = defaultdict(int)
        for p, targets in graph.items():
            for t in targets:
                if group_of(p) != group_of(t):
                    edges[(group_of(p), group_of(t))] += 1
        for (a, b), n in sorted(edges.items()):
            print(f"{a:14s} -> {b:14s} {n}")

    debt = len(upward & KNOWN_DEBT.keys())
    if problems:
        print("\n".join(problems))
        print(f"check_layout: {len(problems)} problem(s) in {len(files)} headers", file=sys.stderr)
        return 1
    print(f"check_layout: {len(files)} headers in {len(LAYERS)} layers, no cycle, no new upward include; left to do: "
          f"{debt} upward includes, {len(KNOWN_LONG)} long headers, {len(KNOWN_DETAIL_IN_PUBLIC)} public headers "
          f"with machinery")
    return 0


if __name__ == "__main__":
    sys.exit(main())
