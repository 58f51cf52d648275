# Prints, per kernel of a cubin holding HGMMA, the loops (back edges) that contain HGMMA: length and instruction mix.
import re, subprocess, sys
from collections import Counter
sass = subprocess.run(['cuobjdump', '-sass', sys.argv[1]], capture_output=True, text=True).stdout
funcs = re.split(r'\n\s*Function : ', sass)
for f in funcs[1:]:
    name = f.split('\n', 1)[0]
    ins = []
    for line in f.split('\n'):
        m = re.match(r'\s*/\*([0-9a-f]+)\*/\s*([^;]*);', line)
        if m: ins.append((int(m.group(1), 16), m.group(2).strip()))
    if not any('HGMMA' in x for _, x in ins): continue
    short = name[:60] + ('...' + name[-40:] if len(name) > 100 else '')
    print('==', short, 'instr', len(ins))
    for a, x in ins:
        m = re.search(r'BRA\s+(?:[!P0-9, ]*)?0x([0-9a-f]+)', x)
        if m:
            t = int(m.group(1), 16)
            if t < a:
                body = [y for b, y in ins if t <= b <= a]
                if any('HGMMA' in y for y in body):
                    c = Counter(re.sub(r'^@!?U?P\w+\s+', '', y).split()[0] for y in body)
                    print('  loop %x-%x: %d instr, HGMMA %d, FADD %d, R2UR %d' % (t, a, len(body), c['HGMMA.64x64x16.F32'], c['FADD'], c['R2UR']))
