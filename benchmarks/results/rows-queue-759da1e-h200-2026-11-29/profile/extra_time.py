import csv,sys
def load(f):
    rows=list(csv.reader(open(f)))
    hdr=rows[1]; data=rows[2:]
    ia=hdr.index("Address"); isrc=hdr.index("Source"); iss=hdr.index("Warp Stall Sampling (All Samples)"); iex=hdr.index("Instructions Executed")
    out=[]; base=None
    for r in data:
        if len(r)<=iex: continue
        a=int(r[ia],16); base=base if base is not None else a
        out.append((a-base, r[isrc].strip(), int(r[iss] or 0), int(r[iex] or 0)))
    return out
A=load("src_twobody.csv"); B={x[0]:x for x in load("src_twobody_no_refine.csv")}
totA=sum(x[2] for x in A)
# scale: durations 52.08 vs 39.36 -> samples per time; samples are the same count, so convert to time share
sa=52.08/totA; sb=39.36/sum(x[2] for x in B.values())
diff=[(x[2]*sa - B[x[0]][2]*sb, x) for x in A]
diff.sort(reverse=True)
print("top extra time (ms) by instruction")
for d,x in diff[:45]: print("%7.3f ms  %06x  %-60s samples %d / %d  exec %d / %d"%(d,x[0],x[1][:60],x[2],B[x[0]][2],x[3],B[x[0]][3]))
import collections
b=collections.Counter(); ea=collections.Counter(); eb=collections.Counter()
for d,x in diff:
    b[x[0]//0x1000]+=d; ea[x[0]//0x1000]+=x[3]; eb[x[0]//0x1000]+=B[x[0]][3]
print("by 4KB region: extra ms, inst A, inst B")
for k in sorted(b):
    if abs(b[k])>0.05 or ea[k]!=eb[k]: print("%06x %7.3f %12d %12d"%(k*0x1000,b[k],ea[k],eb[k]))
print("total extra", sum(b.values()))
