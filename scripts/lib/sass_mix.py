#!/usr/bin/env python3
"""Instruction mix of the hot loops in a CUDA binary (evidence for performance notes).

    cuobjdump -sass build/benchmarks/bench_suite > suite.sass
    python3 scripts/lib/sass_mix.py suite.sass [--filter REGEX] [--top 16] [--blocks 1]

For every kernel whose (mangled) name matches the filter, takes the largest basic block
(the unrolled pair loop; with --blocks K the K largest, e.g. the loops of several tile forms)
and prints its size and opcode histogram (opcode without modifiers). Divide by the pairs that
block evaluates to get instructions per pair.
"""
import argparse
import collections
import re
import sys

FUNC = re.compile(r"^\s*Function : (\S+)")
LABEL = re.compile(r"^\s*\.L_x_\d+:")
INSTR = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(\.[A-Z0-9_.]+)?\b")


def blocks(lines):
    block = []
    for line in lines:
        if LABEL.match(line) or re.search(r"\bBRA\b|\bEXIT\b", line):
            m = INSTR.search(line)
            if m:
                block.append(m.group(1))
            if block:
                yield block
            block = []
            continue
        m = INSTR.search(line)
        if m:
            block.append(m.group(1))
    if block:
        yield block


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sass")
    ap.add_argument("--filter", default="tiled_pair_kernel")
    ap.add_argument("--top", type=int, default=16)
    ap.add_argument("--blocks", type=int, default=1)
    args = ap.parse_args()
    funcs, name = {}, None
    for line in open(args.sass, errors="replace"):
        m = FUNC.match(line)
        if m:
            name = m.group(1)
            funcs[name] = []
        elif name:
            funcs[name].append(line)
    shown = 0
    for name, lines in funcs.items():
        if not re.search(args.filter, name):
            continue
        print(name)
        for k, big in enumerate(sorted(blocks(lines), key=len, reverse=True)[:args.blocks]):
            hist = collections.Counter(big)
            print(f"  {'largest' if k == 0 else 'next'} block: {len(big)} instructions; " +
                  ", ".join(f"{op} {n}" for op, n in hist.most_common(args.top)))
        shown += 1
    if shown == 0:
        sys.exit(f"no function matches {args.filter!r}")


if __name__ == "__main__":
    main()
