"""Reading the Google Benchmark JSON files of scripts/run_benchmarks.sh (shared by the table
scripts and the reports): the context, and one timing per benchmark."""
import json
import statistics
import sys

SECONDS_PER = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def median_runs(path, name_re):
    """(context, [(match, benchmark, seconds)]): for each benchmark whose name matches `name_re`
    (re.match), its median aggregate where it was repeated, else its single run; failed runs and
    the other aggregates (mean, stddev, cv) are left out."""
    with open(path) as f:
        doc = json.load(f)
    chosen = {}
    for b in doc["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        m = name_re.match(b["name"])
        if not m or b.get("error_occurred"):
            continue
        name = b.get("run_name", b["name"])
        if name not in chosen or b.get("run_type") == "aggregate":
            chosen[name] = (m, b, b["real_time"] * SECONDS_PER[b.get("time_unit", "ns")])
    return doc.get("context", {}), list(chosen.values())


def run_medians(doc, values, name_of=lambda run_name: run_name):
    """{name_of(run name): counters} of a loaded Google Benchmark JSON document, where
    `values(benchmark)` gives an entry's counters (None leaves the entry out): those of the run's
    "median" aggregate where it was repeated, else the per-counter median over its iterations (a
    file without aggregates). Failed runs are left out."""
    aggregate, iterations = {}, {}
    for b in doc.get("benchmarks", []):
        if b.get("error_occurred"):
            continue
        counters = values(b)
        if counters is None:
            continue
        name = name_of(b.get("run_name") or b["name"])
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                aggregate[name] = counters
        else:
            iterations.setdefault(name, []).append(counters)
    for name, reps in iterations.items():
        if name not in aggregate:
            keys = set.intersection(*(set(r) for r in reps))
            aggregate[name] = {k: statistics.median(r[k] for r in reps) for k in keys}
    return aggregate


def exit_with_help_if_asked(doc):
    """Prints a script's docstring and exits when its first argument is -h or --help."""
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(doc)
        sys.exit(0)
