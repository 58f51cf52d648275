#!/usr/bin/env bash
# Issue 24 probe: per-call time and the host's share (enqueue_us) of the floor and shape rows.
set -uo pipefail
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
B=${B:-build/benchmarks/bench_frames}
$B --sizes=256,1024,4096 --benchmark_filter="${FILTER:-^(floor/(count|rdf128|per_point)/|shape/(count|per_point)/tile:(32x1|128x1)|shape/rdf128/tile:(32x1|128x1)(/groups:2)?/n:[0-9]+/copies:1/|phase/)}" \
  --benchmark_out="$OUT/probe.json" --benchmark_out_format=json > "$OUT/probe.txt" 2>&1
python3 - "$OUT/probe.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    if b.get("aggregate_name") != "median": continue
    name = b["run_name"].replace("/min_time:0.001/repeats:5/manual_time", "").replace("/repeats:5/manual_time", "")
    e = b.get("enqueue_us")
    print(f"{name:58s} {b['real_time']:8.2f} us" + (f"  enqueue {e:6.2f} us" if e is not None else ""))
PY
