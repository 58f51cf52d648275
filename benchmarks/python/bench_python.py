"""Side-by-side benchmark from Python: the same points through twobody (GPU) and through what a
Python user would otherwise call, each timed as a whole call (wall clock, the GPU synchronized
after each call; inputs already in the memory each method reads).

Statistics and peers (a peer that is not installed is left out and the report says so):
  sdh      distance histogram, 256 bins over [0, sqrt(3)) of points uniform in the unit cube:
           twobody.histogram; torch.cdist + torch.histc over row chunks (GPU)
  count    pairs closer than r = 0.01: twobody.count_pairs; scipy cKDTree.count_neighbors (CPU,
           one thread: SciPy has no parallel pair count); Corrfunc's DD (CPU, all threads);
           torch chunks (cdist < r).sum() (GPU)
  rdf      g(r) in a periodic box at unit density, 128 bins to r_max = 5: twobody.rdf;
           freud.density.RDF (CPU, all cores, cell lists); torch chunks with the minimum image
  knn      the 10 nearest neighbours of 128-D float16 embeddings: twobody.knn; torch chunks of
           cdist + topk (GPU, float16 products, not exact)
  ksum     Gaussian kernel sum over all pairs (h = 0.05, points in the unit cube): twobody.kernel_sum
           (compiled ahead); the same expression as a twobody.Functor compiled at run time (NVRTC;
           its compilation happens in the check call, before the timing); torch chunks of
           exp(-cdist^2 / 2h^2).sum() (GPU)

Each (statistic, method) runs N = 2^16, 2^17, ... up to --max-log2n (2^16..2^22 by default), one
warm-up call, then the median of --repeats calls; a method stops growing N once a call takes
longer than --cap seconds. Pairs are N (N - 1) / 2 (ordered pairs N (N - 1) for knn).

    python3 benchmarks/python/bench_python.py --out results.json
    python3 benchmarks/python/bench_python.py --table results.json [more.json ...] > README.md
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

# NumPy is imported where points are made or results read, so --table (run by
# scripts/bench_report.py --all) needs only the standard library.


def gpu_sync():
    try:
        import torch

        if torch.cuda.is_available():
            torch.cuda.synchronize()
    except ImportError:
        pass


def timed(fn, repeats: int, cap: float):
    """Median wall-clock seconds of fn() (one warm-up call first; one timed call only when the
    warm-up took longer than cap)."""
    t0 = time.perf_counter()
    fn()
    gpu_sync()
    first = time.perf_counter() - t0
    if first > cap:
        return first, 1
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        gpu_sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), repeats


# ---------------------------------------------------------------------------------------------
# The peers, written as a Python user would write them


def torch_chunks(n, entries=1 << 28):
    return max(1, min(n, entries // max(n, 1)))


def torch_sdh(x, bins, hi):
    import torch

    n = x.shape[0]
    hist = torch.zeros(bins, dtype=torch.float64, device=x.device)
    step = torch_chunks(n)
    for s in range(0, n, step):
        d = torch.cdist(x[s:s + step], x)
        hist += torch.histc(d, bins=bins, min=0.0, max=hi).double()
    hist[0] -= n  # the self distances (0) of the full matrix
    return hist / 2


def torch_count(x, r):
    import torch

    n = x.shape[0]
    total = torch.zeros((), dtype=torch.int64, device=x.device)
    step = torch_chunks(n)
    for s in range(0, n, step):
        total += (torch.cdist(x[s:s + step], x) < r).sum()
    return (int(total) - n) // 2


def torch_ksum(x, h):
    import torch

    n = x.shape[0]
    total = torch.zeros((), dtype=torch.float64, device=x.device)
    step = torch_chunks(n)
    for s in range(0, n, step):
        d2 = torch.cdist(x[s:s + step], x) ** 2
        total += torch.exp(-d2 / (2 * h * h)).sum(dtype=torch.float64)
    return (float(total) - n) / 2  # the diagonal adds exp(0) = 1 per point


def torch_rdf(x, box, bins, r_max):
    import torch

    n = x.shape[0]
    hist = torch.zeros(bins, dtype=torch.float64, device=x.device)
    step = torch_chunks(n, 1 << 26)
    for s in range(0, n, step):
        d = x[s:s + step, None, :] - x[None, :, :]
        d -= box * torch.round(d / box)
        hist += torch.histc(torch.linalg.vector_norm(d, dim=2), bins=bins, min=0.0, max=r_max).double()
    hist[0] -= n
    return hist / 2


def torch_knn(x, k):
    """|a|^2 + |b|^2 - 2 a.b with the products in float16 (the usual fast path), then topk."""
    import torch

    n = x.shape[0]
    sq = (x.float() ** 2).sum(dim=1)
    out = []
    step = torch_chunks(n, 1 << 28)
    for s in range(0, n, step):
        e = min(n, s + step)
        d2 = sq[s:e, None] + sq[None, :] - 2.0 * (x[s:e] @ x.T).float()
        d2[torch.arange(e - s), torch.arange(s, e)] = float("inf")  # not itself
        out.append(torch.topk(d2, k, dim=1, largest=False).indices)
    return torch.cat(out)


# ---------------------------------------------------------------------------------------------


def summary(stat, result):
    """What the methods' results are compared by at the smallest N (they agree up to float32
    rounding of values near an edge or the radius, and fp16 products for the knn peer)."""
    import numpy as np

    def host(v):
        if hasattr(v, "detach"):
            return v.detach().cpu().numpy()
        return np.asarray(v)

    if stat == "sdh":
        counts = getattr(result, "counts", result)
        return float(host(counts).sum())
    if stat == "count":
        return int(result)
    if stat == "rdf":
        if hasattr(result, "g"):
            return float(np.asarray(result.g)[64:].mean())  # g(r) of an ideal gas is 1
        if hasattr(result, "rdf"):
            return float(np.asarray(result.rdf)[64:].mean())
        h = host(result)
        return float(h.sum())
    if stat == "knn":
        idx = host(result.indices if hasattr(result, "distances") else result)  # twobody.Neighbors or a tensor
        return idx[:4, :3].tolist()
    if stat == "ksum":
        return float(result)
    return None


def available(name):
    try:
        __import__(name)
        return True
    except ImportError:
        return False


def run(args):
    import numpy as np

    import twobody

    rng = np.random.default_rng(0)
    have_torch = available("torch")
    if have_torch:
        import torch

        have_torch = torch.cuda.is_available()
    records = []
    missing = [p for p in ("torch", "scipy", "freud", "Corrfunc") if not available(p)]
    deadline = time.perf_counter() + args.budget
    checks = {}
    WHERE = "GPU" if args.backend != "cpu" else "CPU (dry run)"

    def add(stat, method, where, n, pairs, fn):
        if time.perf_counter() > deadline:
            return None
        sec, reps = timed(fn, args.repeats, args.cap)
        rec = dict(statistic=stat, method=method, where=where, n=n, pairs=pairs, seconds=sec, repeats=reps,
                   pairs_per_s=pairs / sec)
        records.append(rec)
        print(json.dumps(rec), flush=True)
        return sec

    sizes = [1 << p for p in range(args.min_log2n, args.max_log2n + 1)]
    stats = args.stats.split(",")
    for stat in stats:
        alive = {}
        for n in sizes if stat != "knn" else [1 << p for p in range(14, min(args.max_log2n, 17) + 1)]:
            pairs = n * (n - 1) // 2
            if stat == "sdh":
                x = rng.uniform(0, 1, size=(n, 3)).astype(np.float32)
                hi = math.sqrt(3.0)
                tx = torch.from_numpy(x).cuda() if have_torch else None
                methods = {"twobody": (WHERE, lambda: twobody.histogram(tx if tx is not None else x, bins=256,
                                                                        range=(0.0, hi), backend=args.backend))}
                if have_torch:
                    methods["torch cdist+histc"] = ("GPU", lambda: torch_sdh(tx, 256, hi))
            elif stat == "count":
                x = rng.uniform(0, 1, size=(n, 3)).astype(np.float32)
                tx = torch.from_numpy(x).cuda() if have_torch else None
                methods = {"twobody": (WHERE, lambda: twobody.count_pairs(tx if tx is not None else x, r=0.01,
                                                                          backend=args.backend))}
                if available("scipy"):
                    from scipy.spatial import cKDTree

                    x64 = x.astype(np.float64)
                    methods["scipy cKDTree"] = ("CPU, 1 thread",
                                                lambda: (cKDTree(x64).count_neighbors(cKDTree(x64), 0.01) - n) // 2)
                if available("Corrfunc"):
                    from Corrfunc.theory.DD import DD

                    x64 = x.astype(np.float64)
                    methods["Corrfunc DD"] = ("CPU, %d threads" % os.cpu_count(), lambda: int(DD(
                        1, os.cpu_count(), np.array([1e-12, 0.01]), x64[:, 0], x64[:, 1], x64[:, 2], periodic=False,
                        boxsize=1.0)["npairs"][0]) // 2)
                if have_torch:
                    methods["torch cdist"] = ("GPU", lambda: torch_count(tx, 0.01))
            elif stat == "rdf":
                box = float(n) ** (1.0 / 3.0)  # unit density
                x = rng.uniform(0, box, size=(n, 3)).astype(np.float32)
                x[x >= box] = 0.0  # float32 rounding may reach L: wrap it
                tx = torch.from_numpy(x).cuda() if have_torch else None
                methods = {"twobody": (WHERE, lambda: twobody.rdf(tx if tx is not None else x, box=box, r_max=5.0,
                                                                  bins=128, backend=args.backend))}
                if available("freud"):
                    import freud

                    fbox = freud.box.Box.cube(box)
                    xc = x - box / 2  # freud's boxes are centred on 0
                    methods["freud RDF"] = ("CPU, %d threads" % os.cpu_count(),
                                            lambda: freud.density.RDF(bins=128, r_max=5.0).compute((fbox, xc)))
                if have_torch:
                    methods["torch minimum image"] = ("GPU", lambda: torch_rdf(tx, box, 128, 5.0))
            elif stat == "knn":
                pairs = n * (n - 1)
                centres = rng.normal(size=(64, 128))
                x = (centres[rng.integers(0, 64, n)] + 0.5 * rng.normal(size=(n, 128))).astype(np.float16)
                tx = torch.from_numpy(x).cuda() if have_torch else None
                methods = {"twobody": (WHERE, lambda: twobody.knn(tx if tx is not None else x, k=10, backend=args.backend))}
                if have_torch:
                    methods["torch cdist+topk"] = ("GPU", lambda: torch_knn(tx, 10))
            elif stat == "ksum":
                x = rng.uniform(0, 1, size=(n, 3)).astype(np.float32)
                tx = torch.from_numpy(x).cuda() if have_torch else None
                xs = tx if tx is not None else x
                # The library's Gaussian: 2^(d^2 * k) with k = -log2(e) / (2 h^2), one ex2.approx.
                gauss = twobody.Functor("float", "float r; asm(\"ex2.approx.ftz.f32 %0, %1;\" : \"=f\"(r) : "
                                                 "\"f\"(dist2(a, b) * k)); return r;",
                                        {"k": -math.log2(math.e) / (2 * 0.05 ** 2)}, name="gaussian")
                methods = {"twobody": (WHERE, lambda: twobody.kernel_sum(xs, bandwidth=0.05, backend=args.backend))}
                if args.backend != "cpu":
                    methods["twobody Functor"] = (WHERE, lambda: twobody.pair_sum(xs, functor=gauss))
                if have_torch:
                    methods["torch cdist+exp"] = ("GPU", lambda: torch_ksum(tx, 0.05))
            else:
                raise SystemExit(f"unknown statistic {stat}")
            if args.methods:
                methods = {k: v for k, v in methods.items() if k in args.methods.split(",")}
            if n == sizes[0] or (stat == "knn" and n == 1 << 14):
                checks[stat] = {name: summary(stat, fn()) for name, (_, fn) in methods.items()}
                print(stat, "check", checks[stat], flush=True)
            for name, (where, fn) in methods.items():
                if alive.get(name, True) is False:
                    continue
                sec = add(stat, name, where, n, pairs, fn)
                if sec is None or sec > args.cap:
                    alive[name] = False
            gpu_sync()
    gpu = ""
    if have_torch:
        gpu = torch.cuda.get_device_name(0)
    commit = os.environ.get("TWOBODY_COMMIT") or subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    meta = dict(checks=checks, gpu=gpu, cpu_threads=os.cpu_count(), python=platform.python_version(), commit=commit,
                date=time.strftime("%Y-%m-%d"), twobody=twobody.__version__, missing=missing,
                versions={p: getattr(__import__(p), "__version__", "?") for p in ("numpy", "scipy", "torch", "freud", "Corrfunc")
                          if available(p)})
    return dict(meta=meta, records=records)


def table(paths):
    """The Markdown table of one or more results files (the first gives the heading; a peer run
    on another machine is compared with the twobody rows of the others)."""
    files = [json.load(open(p)) for p in paths]
    meta, recs = files[0]["meta"], [r for f in files for r in f["records"]]
    lines = [f"# Python side by side: {meta['gpu']}, {meta['date']}, twobody {meta['commit']}", "",
             f"Python {meta['python']}, {meta['cpu_threads']} CPU threads; versions {meta['versions']}.",
             "Whole calls, wall clock, median of the repeats given; pairs/s counts N(N-1)/2 pairs (N(N-1) for knn).",
             "Ratio: the method's time over twobody's at the same N (higher: twobody faster).", ""]
    if meta["missing"]:
        lines.append(f"Not installed there, so not run: {', '.join(meta['missing'])}.")
        lines.append("")
    for stat in dict.fromkeys(r["statistic"] for r in recs):
        rows = sorted((r for r in recs if r["statistic"] == stat), key=lambda r: r["n"])
        ours = {r["n"]: r["seconds"] for r in rows if r["method"] == "twobody"}
        lines += [f"## {stat}", "", "| method | where | N | time | pairs/s | vs twobody |", "|---|---|---:|---:|---:|---:|"]
        for r in rows:
            ratio = r["seconds"] / ours[r["n"]] if r["n"] in ours else float("nan")
            lines.append(f"| {r['method']} | {r['where']} | 2^{int(math.log2(r['n']))} | {r['seconds'] * 1e3:.2f} ms "
                         f"| {r['pairs_per_s'] / 1e9:.2f} G | {ratio:.1f}x |")
        lines.append("")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", help="write the JSON results here")
    p.add_argument("--table", nargs="+", help="print the Markdown table of results JSON files and exit")
    p.add_argument("--stats", default="sdh,count,rdf,knn,ksum")
    p.add_argument("--min-log2n", type=int, default=16)
    p.add_argument("--max-log2n", type=int, default=22)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--cap", type=float, default=5.0, help="seconds past which a method stops growing N")
    p.add_argument("--budget", type=float, default=420.0, help="seconds for the whole run")
    p.add_argument("--backend", default="gpu", help="twobody's backend (cpu: a dry run of the script)")
    p.add_argument("--methods", help="run only these methods (comma-separated names, e.g. 'Corrfunc DD' on a CPU machine)")
    args = p.parse_args()
    if args.table:
        print(table(args.table))
        return
    data = run(args)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(data, f, indent=1)
        print(table([args.out]))


if __name__ == "__main__":
    sys.exit(main())
