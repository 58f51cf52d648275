"""Out-of-core runs (memory_budget=, devices=, block_points=, progress=): host sets cut into
blocks, block pairs run one after the other on the GPU. The arguments are checked without a
GPU; the results must equal the in-core calls exactly (integer coordinates)."""

import numpy as np
import pytest

import twobody

from conftest import integer_points

needs_gpu = pytest.mark.skipif(not twobody.gpu_available(), reason="no usable CUDA GPU: out-of-core runs need one")


def test_out_of_core_arguments_are_checked():
    x = integer_points(100, seed=1, dtype=np.float32)
    with pytest.raises(ValueError, match="take no weights"):
        twobody.histogram(x, bins=4, range=(0, 8), weights=np.ones(100), block_points=64)
    with pytest.raises(ValueError, match="take no weights"):
        twobody.count_pairs(x, r=2.0, weights=np.ones(100), memory_budget=1 << 20)
    with pytest.raises(ValueError, match="take no .*log_scale"):
        twobody.histogram(x, bins=4, range=(1, 8), scale="log", memory_budget=1 << 20)
    with pytest.raises(ValueError, match="cpu_backend"):
        twobody.count_pairs(x, r=2.0, memory_budget=1 << 20, backend="cpu")
    with pytest.raises(ValueError, match="'all' or a list"):
        twobody.count_pairs(x, r=2.0, devices="some")
    if not twobody.gpu_available():
        with pytest.raises(twobody.Error, match="need a CUDA GPU"):
            twobody.count_pairs(x, r=2.0, memory_budget=1 << 20)


@needs_gpu
def test_out_of_core_counts_histograms_and_rdf_equal_the_in_core_calls():
    x = integer_points(5000, seed=2, hi=40, dtype=np.float32)
    y = integer_points(3000, seed=3, hi=40, dtype=np.float32)
    ooc = dict(memory_budget=64 << 20, block_points=1024)
    assert twobody.count_pairs(x, r=6.5, **ooc) == twobody.count_pairs(x, r=6.5)
    assert twobody.count_pairs(x, y, r=6.5, **ooc) == twobody.count_pairs(x, y, r=6.5)
    assert twobody.count_pairs(x, r=6.5, box=40.0, **ooc) == twobody.count_pairs(x, r=6.5, box=40.0)
    h = twobody.histogram(x, bins=30, range=(0, 19.5), block_points=700, devices="all")
    ref = twobody.histogram(x, bins=30, range=(0, 19.5), search="brute")
    np.testing.assert_array_equal(h.counts, ref.counts)
    assert (h.outside, h.pairs) == (ref.outside, ref.pairs)
    g = twobody.rdf(x.astype(np.float64), box=40.0, r_max=19.5, bins=30, devices=[0], block_points=999)
    np.testing.assert_array_equal(g.counts, twobody.rdf(x.astype(np.float64), box=40.0, r_max=19.5, bins=30).counts)


@needs_gpu
def test_out_of_core_progress_runs_and_interrupts():
    x = integer_points(4096, seed=4, hi=40, dtype=np.float32)
    seen = []
    n = twobody.count_pairs(x, r=5.5, block_points=512, progress=lambda done, total: seen.append((done, total)))
    assert n == twobody.count_pairs(x, r=5.5)
    total = seen[-1][1]
    assert total >= 8 * 7 // 2 and [d for d, _ in seen] == list(range(1, total + 1))  # 8 blocks of 512

    class Stop(Exception):
        pass

    def stop(done, total):
        if done >= 3:
            raise Stop()

    with pytest.raises(Stop):
        twobody.histogram(x, bins=8, range=(0, 20), block_points=512, progress=stop)
    with pytest.raises(KeyboardInterrupt):
        twobody.count_pairs(x, r=5.5, block_points=512, progress=lambda d, t: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(ValueError, match="does not exist"):
        twobody.count_pairs(x, r=5.5, devices=[64])
    # The GPU is usable after the interrupted runs, and progress=True draws a bar or a line.
    assert twobody.count_pairs(x, r=5.5, block_points=512, progress=True) == n
