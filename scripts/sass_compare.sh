#!/usr/bin/env bash
# SASS of a probe before and after a change, without a GPU: per kernel, registers and
# instructions at BASE (a commit) and in the working tree, side by side (kernels whose
# figures differ are marked). Evidence for a kernel change's note; not a benchmark.
#
#   bash scripts/sass_compare.sh BASE [PROBE.cu] [FILTER]
#
# PROBE defaults to scripts/probes/kernels.cu; FILTER (a regex on mangled names) to all.
# Names are demangled by c++filt, namespaces dropped; registers show +Ns where a kernel spills N bytes of stack.
# Needs cuobjdump and nvdisasm on PATH; without a CUDA toolkit that has them:
#   python3 -m venv /tmp/venv-tools && /tmp/venv-tools/bin/pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
#   export PATH=$(echo /tmp/venv-tools/lib/python3*/site-packages/nvidia/cu13/bin):$PATH
# Each build is a full -O2 sm_90a compile of the probe (minutes); both run at once.
set -euo pipefail
base=${1:?usage: sass_compare.sh BASE [PROBE.cu] [FILTER]}
root=$(git rev-parse --show-toplevel)
probe=$(realpath "${2:-$root/scripts/probes/kernels.cu}")
filter=${3:-.}
command -v cuobjdump >/dev/null || { echo "sass_compare: cuobjdump not on PATH (see the comment at the top)" >&2; exit 2; }
work=$(mktemp -d /tmp/sass-compare.XXXXXX)
git -C "$root" worktree add -q --detach "$work/base" "$base"
trap 'git -C "$root" worktree remove --force "$work/base"; rm -rf "$work"' EXIT
flags=(-std=c++17 --expt-relaxed-constexpr -arch=sm_90a -O2 -DNDEBUG -Xcompiler=-fopenmp
       -Xcudafe=--diag_suppress=esa_on_defaulted_function_ignored -cubin)
build() { nvcc "${flags[@]}" -I"$1/include" -o "$work/$2.cubin" "$probe" && cuobjdump -sass "$work/$2.cubin" > "$work/$2.sass" \
          && cuobjdump -res-usage "$work/$2.cubin" > "$work/$2.res"; }
build "$work/base" base & b=$!
build "$root" new & n=$!
wait $b && wait $n
python3 - "$work" "$filter" "$root/scripts" <<'PY'
import re, subprocess, sys
work, filt = sys.argv[1], re.compile(sys.argv[2])
sys.path.insert(0, sys.argv[3])
from sass_mix import FUNC, INSTR  # the SASS listing's kernel and instruction lines
def stats(tag):
    regs, count, name = {}, {}, None
    for line in open(f"{work}/{tag}.res"):
        m = re.search(r"Function (\S+):", line)
        if m: name = m.group(1)
        m = re.search(r"REG:(\d+) STACK:(\d+)", line)
        if m and name: regs[name] = f"{m.group(1)}" + (f"+{m.group(2)}s" if m.group(2) != "0" else "")
    for line in open(f"{work}/{tag}.sass"):
        m = FUNC.match(line)
        if m: name = m.group(1); count[name] = 0; continue
        m = INSTR.search(line)
        if name and m and m.group(1) != "NOP": count[name] += 1
    return regs, count
def short(names):  # demangled, namespaces dropped: the input shape, agent and functor stay readable
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    drop = re.compile(r"\b(twobody|detail|input|output|cub|cuda|std|__4|CUB_\w+|THRUST_\w+)::")
    return [drop.sub("", o) for o in out] if len(out) == len(names) else names
br, bc = stats("base"); nr, nc = stats("new")
names = sorted(k for k in set(bc) | set(nc) if filt.search(k))
print(f"{'registers(+stack)':>17} {'instructions':>13}  kernel")
for k, d in zip(names, short(names)):
    r0, r1, c0, c1 = br.get(k, '-'), nr.get(k, '-'), bc.get(k, '-'), nc.get(k, '-')
    mark = ' ' if (r0, c0) == (r1, c1) else ('R' if r0 != r1 else '*')
    print(f"{r0!s:>8}/{r1!s:<8} {c0!s:>6}/{c1!s:<6} {mark} {d[:300]}")
print(f"{len(names)} kernels; * marks other instruction counts, R other registers or stack")
PY
