"""Long calls show progress and stop on Ctrl-C (in core, on the CPU backend and on a GPU):
progress= takes True or a callable, reports pairs done up to the total, and SIGINT stops a call
within about a second with KeyboardInterrupt, leaving the package usable."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import twobody

from conftest import integer_points

CPU = dict(backend="cpu")


def reports():
    seen = []
    return seen, lambda done, total: seen.append((done, total))


@pytest.mark.parametrize("call", ["count_pairs", "histogram", "pairs_within", "kernel_sum", "knn", "knn_rows"])
def test_progress_reaches_the_total(call):
    x = integer_points(600, seed=7, dtype=np.float32)
    seen, note = reports()
    n = 600 * 599 // 2
    if call == "count_pairs":
        assert twobody.count_pairs(x, r=9.0, progress=note, **CPU) == twobody.count_pairs(x, r=9.0, **CPU)
    elif call == "histogram":
        h = twobody.histogram(x, bins=8, range=(0, 120), progress=note, **CPU)
        assert h.counts.sum() + h.outside == n
    elif call == "pairs_within":
        assert len(twobody.pairs_within(x, eps=4.0, progress=note, **CPU)) == len(twobody.pairs_within(x, eps=4.0, **CPU))
    elif call == "kernel_sum":
        assert twobody.kernel_sum(x, bandwidth=5.0, progress=note, **CPU) == pytest.approx(
            twobody.kernel_sum(x, bandwidth=5.0, **CPU), rel=1e-12)
    elif call == "knn":
        twobody.knn(x, k=3, progress=note, **CPU)
        n = 600 * 599  # ordered pairs
    else:
        rows = np.random.default_rng(1).normal(size=(300, 40)).astype(np.float32)
        twobody.knn(rows, k=3, progress=note, **CPU)
        n = 300 * 299
    assert seen, "no report"
    assert all(d1 <= d2 for (d1, _), (d2, _) in zip(seen, seen[1:]))
    assert seen[-1] == (n, n)


def test_progress_true_draws_a_bar_or_a_line(capsys):
    x = integer_points(300, seed=8, dtype=np.float32)
    twobody.count_pairs(x, r=9.0, progress=True, **CPU)
    err = capsys.readouterr().err
    assert "twobody" in err


def test_frames_report_frames_on_the_cpu():
    t = np.random.default_rng(2).uniform(0, 20, size=(12, 64, 3))
    seen, note = reports()
    twobody.count_frames(t, box=20.0, r=3.0, progress=note, **CPU)
    assert seen[-1] == (12, 12)


def test_an_exception_from_progress_stops_the_call():
    x = integer_points(3000, seed=9, dtype=np.float32)

    def stop(done, total):
        raise RuntimeError(f"stopped at {done} of {total}")

    with pytest.raises(RuntimeError, match="stopped at"):
        twobody.count_pairs(x, r=9.0, progress=stop, **CPU)
    assert twobody.count_pairs(x[:10], r=1000.0, **CPU) == 45  # still usable, no progress left set


SCRIPT = """
import sys, time
import numpy as np
import twobody
x = np.random.default_rng(0).uniform(0, 100, size=(300000, 3))
print("start", flush=True)
t = time.perf_counter()
try:
    twobody.count_pairs(x, r=1.0, backend="cpu", search="brute")  # every pair: a long call
    print("finished %.2f" % (time.perf_counter() - t), flush=True)
except KeyboardInterrupt:
    print("interrupted %.3f" % (time.perf_counter() - t), flush=True)
    print("after", twobody.count_pairs(x[:100], r=1000.0, backend="cpu"), flush=True)
"""


def interrupt(script, after):
    """Runs `script` in a child, sends it SIGINT `after` seconds past its "start" line; returns its
    output and the seconds from the signal to its exit."""
    # SIGINT as a terminal's Ctrl-C delivers it (a child of a background job would ignore it).
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert p.stdout.readline().strip() == "start"
        time.sleep(after)
        sent = time.perf_counter()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
        return out + err, time.perf_counter() - sent
    finally:
        p.kill()


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
def test_ctrl_c_stops_a_cpu_call_within_a_second():
    out, waited = interrupt(SCRIPT, after=1.0)
    assert "interrupted" in out and "after 4950" in out, out
    assert waited < 3.0, f"the call took {waited:.2f} s to stop after SIGINT"


GPU_SCRIPT = """
import sys, time
import numpy as np
import twobody
x = np.random.default_rng(0).uniform(0, 1000, size=(6000000, 3)).astype(np.float32)
print("start", flush=True)
t = time.perf_counter()
try:
    twobody.count_pairs(x, r=1.0, backend="gpu", search="brute")  # 1.8e13 pairs: several seconds
    print("finished %.2f" % (time.perf_counter() - t), flush=True)
except KeyboardInterrupt:
    print("interrupted %.3f" % (time.perf_counter() - t), flush=True)
    print("after", twobody.count_pairs(x[:100], r=10000.0, backend="gpu"), flush=True)
"""


@pytest.mark.skipif(os.name != "posix" or not twobody.gpu_available(), reason="sends SIGINT to a GPU call")
def test_ctrl_c_stops_a_gpu_call_within_a_second():
    out, waited = interrupt(GPU_SCRIPT, after=1.5)
    assert "interrupted" in out and "after 4950" in out, out
    assert waited < 3.0, f"the GPU call took {waited:.2f} s to stop after SIGINT"


@pytest.mark.skipif(not twobody.gpu_available(), reason="no usable CUDA GPU")
def test_gpu_progress_reaches_the_total():
    x = integer_points(200000, seed=11, dtype=np.float32)
    seen, note = reports()
    n = 200000 * 199999 // 2
    assert twobody.count_pairs(x, r=9.0, backend="gpu", progress=note) == twobody.count_pairs(x, r=9.0, backend="gpu")
    assert seen and seen[-1] == (n, n)
    assert all(d1 <= d2 for (d1, _), (d2, _) in zip(seen, seen[1:]))
