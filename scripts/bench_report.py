#!/usr/bin/env python3
"""Reports of benchmark results: one JSON file's Markdown report, or every committed result's
reports and plots and docs/performance.md.

    python3 scripts/bench_report.py results.json                # the report of one run, to stdout
    python3 scripts/bench_report.py results.json --targets benchmarks/targets-bench_suite-h100.json
    python3 scripts/bench_report.py --all benchmarks/results    # <gpu>/<bench>.md and .png for every
                                                                 # <gpu>/<bench>.json, then docs/performance.md
                                                                 # (scripts/lib/performance.py says what it shows)

The report of one run: a table per problem for names <problem>/<variant>/<N> (bench_suite, bench_join,
bench_grid, ...), then the binary's own side-by-side table where scripts/lib/<name>_table.py exists
(bench_frames -> frames_table.py). Plots need matplotlib (Debian: python3-matplotlib, for /usr/bin/python3).

Benchmark names are <problem>/<variant>/<N>[/repeats:5][/manual_time|/real_time]; the variant
is everything between the problem and N. Per benchmark the "median" aggregate is used (or, if a
file holds only per-repetition "iteration" entries, the median of those). Rates are pairs_per_s
in T pairs/s (1e12). Variants starting with "naive" or "cpu" are baselines.

Targets file: a JSON list of objects, each with "what" (label), "problem", "kind" and "min":
  {"kind": "rate",    "problem": "sdh256", "variant": "*", "n": 1048576, "min": 2.5}
      best rate (T pairs/s) at N = n over the non-baseline variants matching the glob "variant"
      (default "*");
  {"kind": "speedup", "problem": "sdh256", "baseline": "naive", "n": 1048576, "min": 300}
      best non-baseline rate at N = n (or, without "n", each variant at its largest N) over the
      best rate of the variants starting with "baseline", each at its largest measured N;
  {"kind": "ratio",   "problem": "sdh256", "variant": "one_call_host", "over": "one_call",
   "n": 4194304, "min": 0.95}
      rate of "variant" over rate of "over", both at N = n.
A target passes when the measured value is >= min; a target without data is a MISS.
"""
import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "lib"))
import performance  # noqa: E402
from bench_json import run_medians  # noqa: E402

COUNTERS = ("pairs_per_s", "result_pairs_per_s", "output_bytes_per_s", "rounds", "fma_peak_fraction")
BASELINE_PREFIXES = ("naive", "cpu")
# Components Google Benchmark appends to a run name after the arguments.
_SUFFIX = re.compile(r"^(repeats:\d+|real_time|manual_time|process_time|threads:\d+|"
                     r"iterations:\d+|min_time:.*|min_warmup_time:.*)$")


def is_baseline(variant):
    return variant.startswith(BASELINE_PREFIXES)


def split_name(run_name):
    """'sdh256/shared_tile+registers/65536/repeats:5/manual_time' -> ('sdh256', 'shared_tile+registers', 65536)."""
    parts = run_name.split("/")
    while parts and _SUFFIX.match(parts[-1]):
        parts.pop()
    if len(parts) < 3 or not parts[-1].isdigit():
        return None
    return parts[0], "/".join(parts[1:-1]), int(parts[-1])


def load(path):
    """Returns (context, results, errors).

    results: {problem: {variant: {N: {counter: value}}}} in order of first appearance;
    errors: [(run_name, message)] for entries with error_occurred.
    """
    with open(path) as f:
        data = json.load(f)
    errors = {}
    for b in data.get("benchmarks", []):
        if b.get("error_occurred"):
            errors.setdefault(b.get("run_name") or b["name"], b.get("error_message", ""))

    def counters(b):
        c = {k: b[k] for k in COUNTERS if isinstance(b.get(k), (int, float))}
        return c if "pairs_per_s" in c else None

    medians = run_medians(data, counters)

    results = {}
    for run_name, counters in medians.items():
        parsed = split_name(run_name)
        if parsed is None:  # another naming scheme: the binary's own table shows it
            continue
        problem, variant, n = parsed
        results.setdefault(problem, {}).setdefault(variant, {})[n] = counters
    return data.get("context", {}), results, sorted(errors.items())


def describe(context):
    commit = str(context.get("twobody_commit", "?"))[:7]
    return "%s, %s, commit %s" % (context.get("gpu", "unknown GPU"), str(context.get("date", "?"))[:10], commit)


def rate(variants, variant, n=None):
    """pairs/s of variant at N = n (None: at its largest N); None when not measured."""
    sizes = variants.get(variant, {})
    if n is None and sizes:
        n = max(sizes)
    return sizes[n]["pairs_per_s"] if n in sizes else None


def best(variants, n=None, pattern="*", prefix=None):
    """(rate, variant) of the fastest matching variant at N = n (None: each at its largest N).

    prefix=None selects non-baseline variants matching the glob pattern; prefix="naive" selects
    the variants starting with "naive". Returns (None, None) when none was measured.
    """
    found = []
    for v in variants:
        chosen = v.startswith(prefix) if prefix else (not is_baseline(v) and fnmatch.fnmatchcase(v, pattern))
        r = rate(variants, v, n) if chosen else None
        if r is not None:
            found.append((r, v))
    return max(found) if found else (None, None)


def pow2(n):
    return "2^%d" % (n.bit_length() - 1) if n > 0 and n & (n - 1) == 0 else str(n)


def problem_table(problem, variants):
    sizes = sorted({n for by_n in variants.values() for n in by_n})
    fma = any("fma_peak_fraction" in c for by_n in variants.values() for c in by_n.values())
    out = any("result_pairs_per_s" in c for by_n in variants.values() for c in by_n.values())
    head = ["%s (T pairs/s, median)" % problem] + ["N = %s" % pow2(n) for n in sizes]
    head += ["FMA peak fraction (largest N)"] if fma else []
    head += ["M results/s, GB/s out, rounds (largest N)"] if out else []
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    for v, by_n in variants.items():
        cells = ["%.3g" % (by_n[n]["pairs_per_s"] / 1e12) if n in by_n else "" for n in sizes]
        if fma:
            top = max(by_n)
            f = by_n[top].get("fma_peak_fraction")
            cells.append("" if f is None else "%.3g (N = %s)" % (f, pow2(top)))
        if out:
            c = by_n[max(by_n)]
            cells.append("%.4g, %.3g, %d" % (c.get("result_pairs_per_s", 0) / 1e6, c.get("output_bytes_per_s", 0) / 1e9,
                                             c.get("rounds", 0)) if "result_pairs_per_s" in c else "")
        lines.append("| " + " | ".join([v] + cells) + " |")
    return lines


def evaluate(target, results):
    """(required, measured, passed, detail) strings/bool for one target."""
    variants = results.get(target["problem"], {})
    kind, need, n = target["kind"], float(target["min"]), target.get("n")
    if kind == "rate":
        value, v = best(variants, n, target.get("variant", "*"))
        value = None if value is None else value / 1e12
        fmt, unit, detail = "%.3g", " T/s", v
    elif kind == "speedup":
        top, v = best(variants, n, target.get("variant", "*"))
        base, bv = best(variants, None, prefix=target["baseline"])
        value = top / base if top is not None and base is not None else None
        fmt, unit = "%.0f", "x"
        detail = "%s / %s @ %s" % (v, bv, pow2(max(variants[bv]))) if value is not None else None
    elif kind == "ratio":
        a, b = rate(variants, target["variant"], n), rate(variants, target["over"], n)
        value = a / b if a is not None and b else None
        fmt, unit, detail = "%.3f", "", "%s / %s" % (target["variant"], target["over"])
    else:
        raise ValueError("unknown target kind %r" % kind)
    required = ">= " + (fmt % need if kind != "rate" else "%g" % need) + unit
    if value is None:
        return required, "no data", False, detail or ""
    return required, fmt % value + unit, value >= need, detail


def report(path, targets=None):
    """The Markdown report of one Google Benchmark JSON file."""
    context, results, errors = load(path)
    out = ["# Benchmark report: %s" % describe(context), ""]
    if context.get("host_name") or context.get("gpu_sm_count"):
        out += ["Host %s, %s SMs. Median of the repetitions; pairs/s in T (1e12)." %
                (context.get("host_name", "?"), context.get("gpu_sm_count", "?")), ""]
    for problem, variants in results.items():
        out += ["## %s" % problem, ""] + problem_table(problem, variants) + [""]

    if targets:
        with open(targets) as f:
            targets = json.load(f)
        out += ["## Targets", "", "| what | N | required | measured | result | compared |",
                "|---|---:|---:|---:|---|---|"]
        for t in targets:
            required, measured, ok, detail = evaluate(t, results)
            n = pow2(t["n"]) if "n" in t else "largest"
            out.append("| %s | %s | %s | %s | %s | %s |" % (t.get("what", t["problem"]), n, required, measured,
                                                          "PASS" if ok else "MISS", detail))
        out.append("")

    binary = os.path.basename(str(context.get("executable", ""))) or os.path.basename(path)[:-5]
    table = os.path.join(HERE, "lib", "%s_table.py" % binary.replace("bench_", "", 1))
    if os.path.exists(table):
        r = subprocess.run([sys.executable, table, path], capture_output=True, text=True)
        out += [r.stdout.rstrip(), ""] if r.returncode == 0 else ["(%s failed: %s)" % (os.path.basename(table),
                                                                                     r.stderr.strip()[-300:]), ""]
    if errors:
        out += ["## Errored benchmarks (skipped)", ""]
        out += ["- `%s`: %s" % (name, msg or "(no message)") for name, msg in errors] + [""]
    return "\n".join(out).rstrip() + "\n"


def report_all(results_dir, page):
    """<gpu>/<bench>.md (and plots) for every <gpu>/<bench>.json under results_dir, then `page`."""
    plotter = "/usr/bin/python3"
    can_plot = subprocess.run([plotter, "-c", "import matplotlib"], capture_output=True).returncode == 0
    for gpu in sorted(os.listdir(results_dir)):
        d = os.path.join(results_dir, gpu)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if not f.endswith(".json"):
                continue
            path = os.path.join(d, f)
            if f.startswith("python"):  # benchmarks/python/bench_python.py's results: its own table
                r = subprocess.run([plotter if can_plot else sys.executable,
                                    os.path.join(ROOT, "benchmarks", "python", "bench_python.py"),
                                    "--table", path], capture_output=True, text=True)
                if r.returncode == 0:
                    with open(path[:-5] + ".md", "w") as out:
                        out.write(r.stdout)
                else:
                    sys.stderr.write("%s: bench_python.py --table failed: %s\n" % (path, r.stderr.strip()[-300:]))
                continue
            targets = os.path.join(ROOT, "benchmarks", "targets-%s-%s.json" % (f[:-5], gpu))
            try:
                text = report(path, targets if os.path.exists(targets) else None)
            except ValueError as e:  # a run that was stopped leaves JSON without its end
                sys.stderr.write("%s: not complete JSON (%s), left out\n" % (path, e))
                continue
            with open(path[:-5] + ".md", "w") as out:
                out.write(text)
            if f == "bench_suite.json" and can_plot:
                subprocess.run([plotter, os.path.join(HERE, "lib", "plot_bench.py"), path], check=False,
                               stdout=subprocess.DEVNULL)
        if not can_plot:
            sys.stderr.write("matplotlib not found for %s: no plots (Debian: apt install python3-matplotlib)\n" % plotter)
    text = performance.page(results_dir, os.path.relpath(results_dir, os.path.dirname(page)))
    with open(page, "w") as out:
        out.write(text)
    print("wrote %s and the reports under %s" % (page, results_dir))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="?", help="Google Benchmark JSON (--benchmark_out_format=json)")
    ap.add_argument("--targets", help="JSON list of targets (see the module docstring)")
    ap.add_argument("--all", metavar="RESULTS_DIR", help="every <gpu>/<bench>.json under RESULTS_DIR")
    ap.add_argument("--page", default=os.path.join(ROOT, "docs", "performance.md"), help="with --all: the page to write")
    args = ap.parse_args()
    if args.all:
        report_all(args.all, args.page)
        return 0
    if not args.results:
        ap.error("give a results JSON file or --all RESULTS_DIR")
    print(report(args.results, args.targets).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
