#!/usr/bin/env python3
"""Instruction mix and stall samples of an Nsight Compute source page (ncu --page source --csv
--print-source sass, as scripts/gpu-rows-profile.sh writes it): executed instructions and samples
by opcode, the top stall reasons, and the hottest 2 KB windows of code.  ncu_mix.py PAGE.csv"""
import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
hi = next(i for i, r in enumerate(rows) if 'Address' in r and 'Source' in r)
h = rows[hi]; d = rows[hi+1:]
A, S = h.index('Address'), h.index('Source')
E = h.index('Instructions Executed'); W = h.index('Warp Stall Sampling (All Samples)')
st = [(i, x) for i, x in enumerate(h) if x.startswith('stall_')]
def n(x):
    try: return float(x.replace(',', ''))
    except: return 0.0
ins = [r for r in d if len(r) > S and r[A].startswith('0')]
tot = sum(n(r[E]) for r in ins); ts = sum(n(r[W]) for r in ins)
print('instructions', tot, 'samples', ts)
ops = collections.Counter(); samp_ops = collections.Counter()
for r in ins:
    op = r[S].split()[0] if not r[S].startswith('@') else r[S].split()[1]
    op = op.split('.')[0]
    ops[op] += n(r[E]); samp_ops[op] += n(r[W])
print('by opcode (executed %, samples %):')
for op, v in ops.most_common(25): print(f'  {op:10s} {100*v/tot:5.1f}% {100*samp_ops[op]/ts:5.1f}%')
sc = collections.Counter()
for r in ins:
    for i, x in st: sc[x] += n(r[i])
print('stalls:', ', '.join(f'{k[6:]} {100*v/ts:.0f}%' for k, v in sc.most_common(8)))
# 2 KB windows of code (128 instructions of 16 bytes) by address: where the samples are
win = collections.Counter(); wex = collections.Counter()
for r in ins:
    a = int(r[A], 16) // 0x800
    win[a] += n(r[W]); wex[a] += n(r[E])
print('hottest 2 KB windows (samples %, executed %):')
for a, v in win.most_common(10): print(f'  {a*0x800:#x} {100*v/ts:5.1f}% {100*wex[a]/tot:5.1f}%')
