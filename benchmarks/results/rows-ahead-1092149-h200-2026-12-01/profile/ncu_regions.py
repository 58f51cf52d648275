# ncu_regions.py PAGE.csv: stall samples and executed instructions of an ncu source page (--print-source sass),
# in the HGMMA loops (found from the back edges) and outside, with the top stall columns and the 25 hottest instructions.
import csv, re, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
hdr_i = next(i for i, r in enumerate(rows) if 'Address' in r and 'Source' in r)
hdr = rows[hdr_i]; data = rows[hdr_i + 1:]
ai, si = hdr.index('Address'), hdr.index('Source')
def col(name):
    for i, h in enumerate(hdr):
        if h.startswith(name): return i
    return None
samp = col('Warp Stall Sampling (All Samples)'); execd = col('Instructions Executed')
stall_cols = [(i, h) for i, h in enumerate(hdr) if h.startswith('stall_') or h.startswith('Stall ')]
ins = []
for r in data:
    if len(r) <= max(ai, si): continue
    try: a = int(r[ai], 16)
    except ValueError: continue
    ins.append((a, r))
loops = []
for a, r in ins:
    m = re.search(r'BRA\s+(?:[!P0-9, ]*)?`?\(?\.?L?_?x?_?(0x[0-9a-f]+)', r[si])
    if m:
        t = int(m.group(1), 16)
        if t < a and any('HGMMA' in q[si] for b, q in ins if t <= b <= a): loops.append((t, a))
def region(a):
    for t, e in loops:
        if t <= a <= e: return 'loop %x-%x' % (t, e)
    return 'outside'
def num(x):
    try: return float(x.replace(',', ''))
    except: return 0.0
tot = collections.defaultdict(lambda: collections.Counter())
for a, r in ins:
    g = region(a)
    tot[g]['samples'] += num(r[samp]) if samp is not None else 0
    tot[g]['executed'] += num(r[execd]) if execd is not None else 0
    for i, h in stall_cols: tot[g][h] += num(r[i])
allsamp = sum(t['samples'] for t in tot.values())
for g, t in sorted(tot.items(), key=lambda x: -x[1]['samples']):
    print('%-24s samples %5.1f%%  warp instr %.3g' % (g, 100 * t['samples'] / max(allsamp, 1), t['executed']))
    top = sorted(((v, h) for h, v in t.items() if h not in ('samples', 'executed')), reverse=True)[:6]
    print('    ' + ', '.join('%s %.1f%%' % (h.replace('stall_', ''), 100 * v / max(allsamp, 1)) for v, h in top if v > 0))
print('hottest:')
for a, r in sorted(ins, key=lambda x: -num(x[1][samp]))[:25]:
    print('  %6x %5.2f%% %s' % (a, 100 * num(r[samp]) / max(allsamp, 1), r[si][:90]))
