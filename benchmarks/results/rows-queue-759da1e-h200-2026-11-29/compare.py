import json,sys,collections,statistics
d=sys.argv[1]
def load(f):
    r={}
    for b in json.load(open(f))['benchmarks']:
        if b.get('aggregate_name')=='median': r[b['run_name']]=b['real_time']
    return r
res=collections.defaultdict(lambda: collections.defaultdict(list))
for v in ['new','base']:
    for r in [1,2]:
        for k,t in load(f"{d}/b_{v}_r{r}.json").items(): res[k][v].append(t)
for k in res:
    n=res[k]['new']; b=res[k]['base']
    if n and b:
        print("%-80s new %s base %s  speedup %.3f"%(k.replace('/iterations:1/repeats:5/manual_time',''), ' '.join('%.2f'%x for x in n), ' '.join('%.2f'%x for x in b), statistics.mean(b)/statistics.mean(n)))
