"""docs/performance.md from the committed results (benchmarks/results/<gpu>/<bench>.json).

Each row of ROWS names a benchmark of one binary (twobody's call) and the peers or ceilings the same
run measured beside it; the page shows the medians, and twobody's speed over each peer, for every
GPU that has results. Nothing on the page is typed by hand: a row whose benchmark a run did not
measure says so. Called by scripts/bench_report.py --all.
"""
import itertools
import json
import os
import re

from bench_json import SECONDS_PER, run_medians

# Components Google Benchmark appends to a run name after the arguments.
SUFFIX = re.compile(r"/(repeats:\d+|real_time|manual_time|process_time|threads:\d+|iterations:\d+|"
                    r"min_time:[^/]*|min_warmup_time:[^/]*)(?=/|$)")


def numbers(b):
    """An entry's numeric fields, and "s": its real time in seconds."""
    values = {k: v for k, v in b.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    values["s"] = b["real_time"] * SECONDS_PER[b.get("time_unit", "ns")]
    return values


def medians(path):
    """(context, {name without Google Benchmark's suffixes: {"s": median seconds, counters...}}) of
    one JSON file (bench_json.run_medians). Raises ValueError for a file that is not complete JSON
    (a run that was stopped)."""
    with open(path) as f:
        doc = json.load(f)
    return doc.get("context", {}), run_medians(doc, numbers, lambda name: SUFFIX.sub("", name))


# (section, what, binary, twobody's benchmark, [(peer label, peer benchmark)], measure)
# measure "rate": pairs_per_s, higher is better (a peer at another N still compares as a rate);
# "time": seconds per call, lower is better. A benchmark ending in "*" takes the fastest match.
ROWS = [
    ("Histograms and pair counts", "SDH, 256 bins (float 3-D, N = 2^20)", "bench_suite", "sdh256/one_call/1048576",
     [("plain tiled kernel, one shared copy per block", "sdh256/shared_tile8+block_privatized/1048576"),
      ("one global atomic per pair (N = 2^16)", "sdh256/naive+global_atomics/65536"),
      ("CPU backend (N = 2^15)", "sdh256/cpu_openmp/32768")], "rate"),
    ("Histograms and pair counts", "SDH, 16 bins", "bench_suite", "sdh16/one_call/1048576",
     [("shuffle tile, 32 warp copies", "sdh16/shuffle_tile+warp_privatized32/1048576")], "rate"),
    ("Histograms and pair counts", "SDH, 4096 bins", "bench_suite", "sdh4096/one_call/1048576",
     [("shared tile, one copy per warp", "sdh4096/shared_tile8+warp_privatized1/1048576")], "rate"),
    ("Histograms and pair counts", "RDF, 256 bins, periodic box", "bench_suite", "rdf256/one_call/1048576",
     [("plain shared tile, 32 warp copies", "rdf256/shared_tile+warp_privatized32/1048576"),
      ("CPU backend (N = 2^15)", "rdf256/cpu_openmp/32768")], "rate"),
    ("Histograms and pair counts", "2PCF: pairs within r (float)", "bench_suite", "2pcf/one_call/1048576",
     [("plain shared tile, registers", "2pcf/shared_tile+registers/1048576"),
      ("one thread per point (N = 2^16)", "2pcf/naive+registers/65536"),
      ("CPU backend (N = 2^15)", "2pcf/cpu_openmp/32768")], "rate"),
    ("Histograms and pair counts", "2PCF (double)", "bench_suite", "2pcf_double/one_call/1048576",
     [("plain shared tile, registers", "2pcf_double/shared_tile+registers/1048576")], "rate"),
    ("Histograms and pair counts", "Gaussian kernel sum per point (best composition)", "bench_suite",
     "kernel_sum/*+per_point_sum/1048576",
     [("one thread per point (N = 2^16)", "kernel_sum/naive+per_point_sum/65536"),
      ("CPU backend (N = 2^15)", "kernel_sum/cpu_openmp/32768")], "rate"),
    ("Many bins (2^20 points)", "SDH, 65,536 bins", "bench_bins", "sdh/bins:65536/one_call",
     [("one global atomic per pair", "sdh/bins:65536/global_atomics")], "rate"),
    ("Many bins (2^20 points)", "SDH, 1,048,576 bins", "bench_bins", "sdh/bins:1048576/one_call",
     [("one global atomic per pair", "sdh/bins:1048576/global_atomics")], "rate"),
    ("Many bins (2^20 points)", "(r_p, pi), 256 x 256 bins", "bench_bins", "rp_pi/bins:65536/one_call",
     [("one global atomic per pair", "rp_pi/bins:65536/global_atomics")], "rate"),
    ("Many frames (RDF, 128 bins, 1000 frames)", "256 atoms a frame", "bench_frames", "frames/rdf128/batched_sum/256",
     [("a loop of one-call RDFs", "frames/rdf128/loop_of_one_call/256")], "time"),
    ("Many frames (RDF, 128 bins, 1000 frames)", "1024 atoms a frame", "bench_frames", "frames/rdf128/batched_sum/1024",
     [("a loop of one-call RDFs", "frames/rdf128/loop_of_one_call/1024")], "time"),
    ("Many frames (RDF, 128 bins, 1000 frames)", "4096 atoms a frame", "bench_frames", "frames/rdf128/batched_sum/4096",
     [("a loop of one-call RDFs", "frames/rdf128/loop_of_one_call/4096")], "time"),
    ("Many frames (RDF, 128 bins, 1000 frames)", "one small call: RDF of 1024 points, result on the host", "bench_frames",
     "floor/rdf128/sync/1024", [], "time"),
    ("Many frames (RDF, 128 bins, 1000 frames)", "one small call: RDF of 1024 points, device output", "bench_frames",
     "floor/rdf128/async/1024", [], "time"),
    ("Many frames (RDF, 128 bins, 1000 frames)", "one small call: RDF of 16384 points, result on the host", "bench_frames",
     "floor/rdf128/sync/16384", [], "time"),
    ("Joins", "similarity self-join, about 4N results (N = 2^20)", "bench_join", "selfjoin/one_call/1048576",
     [("count, scan, write (two passes)", "selfjoin/two_pass/1048576"),
      ("CPU backend (N = 2^16)", "selfjoin/cpu_openmp/65536")], "rate"),
    ("Joins", "theta join of two tables (N = 2^20)", "bench_join", "theta/one_call/1048576",
     [("count, scan, write (two passes)", "theta/two_pass/1048576")], "rate"),
    ("Joins", "band join, width 10, sorted (N = 2^22)", "bench_sorted_join", "band10/sorted/4194304",
     [("Thrust sort-merge", "band10/thrust/4194304")], "time"),
    ("Joins", "equi-join, uniform keys (N = 2^22)", "bench_sorted_join", "equi_uniform/sorted/4194304",
     [("Thrust sort-merge", "equi_uniform/thrust/4194304")], "time"),
    ("Joins", "equi-join, Zipf 1.5 keys (N = 2^22)", "bench_sorted_join", "equi_zipf1.5/sorted/4194304",
     [("Thrust sort-merge", "equi_zipf1.5/thrust/4194304")], "time"),
    ("Grid index (range-limited)", "pairs within r = 5, 100^3 box (N = 2^20)", "bench_grid", "r5/grid/1048576",
     [("brute force over all pairs", "r5/brute_force/1048576")], "rate"),
    ("Grid index (range-limited)", "20 bins to r = 20 (N = 2^20)", "bench_grid", "hist20_r20/grid/1048576",
     [("one-call histogram over all pairs (far tile pairs counted at once)", "hist20_r20/brute_force/1048576")], "rate"),
    ("Grid index (range-limited)", "similarity join, 3-D uniform, 32 neighbours (N = 2^21)", "bench_grid_join",
     "uniform3d_k32/grid/2097152", [("brute-force join", "uniform3d_k32/brute_force/2097152")], "rate"),
    ("High-dimensional rows (N = 2^16, 1% of pairs within the threshold)", "count, half, D = 128", "bench_highdim",
     "count/twobody/half/uniform/N:65536/D:128",
     [("cuBLAS GEMM + count pass (approximate)", "count/cublas_gemm_pass/half/uniform/N:65536/D:128"),
      ("twobody on the CUDA cores", "count/twobody_simt/half/uniform/N:65536/D:128")], "time"),
    ("High-dimensional rows (N = 2^16, 1% of pairs within the threshold)", "count, half, D = 960", "bench_highdim",
     "count/twobody/half/uniform/N:65536/D:960",
     [("cuBLAS GEMM + count pass (approximate)", "count/cublas_gemm_pass/half/uniform/N:65536/D:960")], "time"),
    ("High-dimensional rows (N = 2^16, 1% of pairs within the threshold)", "count, float, D = 128", "bench_highdim",
     "count/twobody/float/uniform/N:65536/D:128",
     [("cuBLAS GEMM + count pass (approximate)", "count/cublas_gemm_pass/float/uniform/N:65536/D:128")], "time"),
    ("High-dimensional rows (N = 2^16, 1% of pairs within the threshold)", "count, double, D = 128", "bench_highdim",
     "count/twobody/double/uniform/N:65536/D:128",
     [("cuBLAS DGEMM + count pass", "count/cublas_gemm_pass/double/uniform/N:65536/D:128")], "time"),
    ("High-dimensional rows (N = 2^16, 1% of pairs within the threshold)", "10 nearest neighbours, half, D = 128",
     "bench_highdim", "knn/twobody/half/uniform/N:65536/D:128/k:10",
     [("cuBLAS GEMM + CUB segmented sort", "knn/cublas_sort/half/uniform/N:65536/D:128/k:10")], "time"),
    ("High-dimensional rows (N = 2^16, 1% of pairs within the threshold)", "count, half, D = 128, N = 2^20",
     "bench_highdim", "count/twobody/half/uniform/N:1048576/D:128",
     [("cuBLAS GEMM + count pass (approximate)", "count/cublas_gemm_pass/half/uniform/N:1048576/D:128")], "time"),
    ("Out of core", "SDH 256 bins over host memory in 16 blocks (N = 2^22)", "bench_scale",
     "sdh256_host/out_of_core/4194304", [("the same points staged whole (in core)", "sdh256_host/in_core/4194304")],
     "time"),
    ("Cost model (SDH, 2^20 points)", "16 bins: the model's choice", "bench_cost_model", "sweep/bins:16/model",
     [("the best fixed number of private copies", "sweep/bins:16/copies:*")], "time"),
    ("Cost model (SDH, 2^20 points)", "256 bins: the model's choice", "bench_cost_model", "sweep/bins:256/model",
     [("the best fixed number of private copies", "sweep/bins:256/copies:*")], "time"),
    ("Cost model (SDH, 2^20 points)", "4096 bins: the model's choice", "bench_cost_model", "sweep/bins:4096/model",
     [("the best fixed number of private copies", "sweep/bins:4096/copies:*")], "time"),
]


def fastest(results, pattern, measure):
    """(name, values) of the benchmark named `pattern` ("*" in it matches any text; the fastest match)."""
    if "*" not in pattern:
        return (pattern, results[pattern]) if pattern in results else (None, None)
    rx = re.compile("^" + ".*".join(re.escape(p) for p in pattern.split("*")) + "$")
    found = [(n, v) for n, v in results.items() if rx.match(n) and "/naive" not in n and "/cpu" not in n]
    if not found:
        return None, None
    key = (lambda nv: nv[1].get("pairs_per_s", 0)) if measure == "rate" else (lambda nv: -nv[1]["s"])
    return max(found, key=key)


def show(values, measure):
    if measure == "rate":
        r = values.get("pairs_per_s")
        return "%.3g T pairs/s" % (r / 1e12) if r else "?"
    s = values["s"]
    if s >= 1.0:
        return "%.3g s" % s
    return "%.3g ms" % (s * 1e3) if s >= 1e-3 else "%.3g us" % (s * 1e6)


def speedup(ours, peer, measure):
    if measure == "rate":
        a, b = ours.get("pairs_per_s"), peer.get("pairs_per_s")
        return a / b if a and b else None
    return peer["s"] / ours["s"] if ours["s"] > 0 else None


def row_lines(res, gpu, what, ours_name, peers, measure):
    name, ours = fastest(res, ours_name, measure)
    label = what if "*" not in ours_name or not name else "%s: `%s`" % (what, name.split("/")[1])
    if ours is None:
        return ["| %s | %s | not measured | | | |" % (label, gpu.upper())]
    if not peers:
        return ["| %s | %s | %s | | | |" % (label, gpu.upper(), show(ours, measure))]
    out = []
    for k, (peer_label, peer_name) in enumerate(peers):
        found, peer = fastest(res, peer_name, measure)
        if "*" in peer_name and found:
            peer_label = "%s (`%s`)" % (peer_label, found.rsplit("/", 1)[1])
        up = speedup(ours, peer, measure) if peer else None
        cells = [label if k == 0 else "", gpu.upper() if k == 0 else "", show(ours, measure) if k == 0 else "",
                 peer_label, show(peer, measure) if peer else "not measured", "x %.3g" % up if up else ""]
        out.append("| " + " | ".join(cells) + " |")
    return out


def python_lines(results_dir, gpus):
    """A table of the Python side-by-side runs (<gpu>/python*.json of benchmarks/python/bench_python.py):
    per statistic, twobody at the largest N it ran against each peer at the largest N the peer ran
    (pairs/s compare across N; the peers that stop early are slow ones)."""
    lines = []
    for gpu in gpus:
        d = os.path.join(results_dir, gpu)
        for f in sorted(x for x in os.listdir(d) if x.startswith("python") and x.endswith(".json")):
            with open(os.path.join(d, f)) as fh:
                doc = json.load(fh)
            meta, best = doc.get("meta", {}), {}
            for r in doc.get("records", []):
                key = (r["statistic"], r["method"])
                if r.get("pairs_per_s") and (key not in best or r["n"] > best[key]["n"]):
                    best[key] = r
            if not lines:
                lines += ["## From Python", "",
                          "`benchmarks/python/bench_python.py`: whole calls from Python (wall clock, GPU synchronized),",
                          "each method at the largest N it reached within the time cap; the peers are what a Python user",
                          "calls today. Pairs/s compare across N; a count or RDF through the grid index visits few of",
                          "the pairs, and its rate still counts all N (N - 1) / 2.", "",
                          "| statistic | GPU (run) | twobody | peer | peer | twobody's speed-up |",
                          "|---|---|---:|---|---:|---:|"]
            run = "%s, %s, commit %s" % (gpu.upper(), meta.get("date", "?"), meta.get("commit") or "?")
            for stat in sorted({k[0] for k in best}):
                ours = best.get((stat, "twobody"))
                if ours is None:
                    continue
                peers = [(m, r) for (st, m), r in sorted(best.items()) if st == stat and m != "twobody"]
                for k, (method, r) in enumerate(peers or [(None, None)]):
                    cells = [stat if k == 0 else "", run if k == 0 else "",
                             "%.3g T pairs/s (N = %d)" % (ours["pairs_per_s"] / 1e12, ours["n"]) if k == 0 else ""]
                    if r is None:
                        cells += ["", "", ""]
                    else:
                        cells += ["%s (%s)" % (method, r.get("where", "?")),
                                  "%.3g T pairs/s (N = %d)" % (r["pairs_per_s"] / 1e12, r["n"]),
                                  "x %.3g" % (ours["pairs_per_s"] / r["pairs_per_s"])]
                    lines.append("| " + " | ".join(cells) + " |")
    return lines + [""] if lines else []


def load_results(results_dir):
    """{gpu: {binary: (context, medians)}} for every results/<gpu>/<binary>.json; problems to stderr."""
    out, problems = {}, []
    for gpu in sorted(os.listdir(results_dir)):
        d = os.path.join(results_dir, gpu)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith(".json") and not f.startswith("python"):
                try:
                    out.setdefault(gpu, {})[f[:-5]] = medians(os.path.join(d, f))
                except (ValueError, KeyError) as e:
                    problems.append("%s/%s: %s" % (gpu, f, e))
    return out, problems


def page(results_dir, link_prefix):
    """The Markdown of docs/performance.md; link_prefix leads from docs/ to results_dir."""
    data, problems = load_results(results_dir)
    gpus = sorted(g for g in os.listdir(results_dir) if os.path.isdir(os.path.join(results_dir, g)))
    lines = [
        "# Performance",
        "",
        "<!-- Generated by scripts/bench_report.py --all from benchmarks/results/; do not edit. -->",
        "",
        "Medians of repeated runs of the bundled Google Benchmark binaries, timed by CUDA events around the",
        "device work, with inputs well past L2; the frames, small calls and out-of-core rows time whole calls",
        "by the wall clock. Beside each figure: the peer or ceiling the same run measured, and twobody's speed over it",
        "(\"x 12\": twobody is 12 times faster). The inputs are uniform random points unless the row says",
        "otherwise; each binary's header says exactly what it runs, and the per-binary reports under",
        "[benchmarks/results/](%s) hold every row." % link_prefix,
        "",
        "Runs on:",
        "",
    ]
    for gpu in gpus:
        for binary, (ctx, _) in sorted(data.get(gpu, {}).items()):
            lines.append("- %s: `%s`, %s, commit %s, %s host cores" % (
                ctx.get("gpu", gpu), binary, str(ctx.get("date", "?"))[:10], str(ctx.get("twobody_commit", "?"))[:7],
                ctx.get("num_cpus", "?")))
    lines.append("")
    for sec, rows in itertools.groupby(ROWS, key=lambda row: row[0]):
        lines += ["## " + sec, "", "| | GPU | twobody | peer or ceiling | peer | twobody's speed-up |",
                  "|---|---|---:|---|---:|---:|"]
        for _, what, binary, ours_name, peers, measure in rows:
            for gpu in gpus:
                if binary in data.get(gpu, {}):
                    lines += row_lines(data[gpu][binary][1], gpu, what, ours_name, peers, measure)
        lines.append("")
    lines += python_lines(results_dir, gpus)
    plots = [(gpu, f) for gpu in gpus for f in sorted(os.listdir(os.path.join(results_dir, gpu))) if f.endswith(".png")]
    if plots:
        lines += ["## Plots", ""]
        for gpu, f in plots:
            lines.append("![%s %s](%s/%s/%s)" % (gpu.upper(), f[:-4], link_prefix, gpu, f))
        lines.append("")
    lines += [
        "## Reproduce",
        "",
        "On a GPU machine, `scripts/run_benchmarks.sh` runs every binary with the arguments these results",
        "were run with and regenerates this page; [maintainers/benchmarks.md](maintainers/benchmarks.md)",
        "says how results are replaced and compared.",
    ]
    if problems:
        lines += ["", "Left out (unreadable result files): " + "; ".join(problems)]
    return "\n".join(lines) + "\n"
