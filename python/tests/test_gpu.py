"""The GPU against the CPU backend, for NumPy inputs (staged by the library) and for CuPy,
PyTorch and JAX device arrays (read in place through DLPack; JAX where it has a GPU backend).
Skipped without a GPU."""

import numpy as np
import pytest
from scipy.spatial.distance import pdist

import twobody

from conftest import integer_points

pytestmark = pytest.mark.skipif(not twobody.gpu_available(), reason="no usable CUDA GPU: the CPU tests cover the package")

GPU, CPU = dict(backend="gpu"), dict(backend="cpu")


def device_libraries():
    libs = ["numpy"]
    for name in ("cupy", "torch"):
        try:
            mod = __import__(name)
            if name == "torch" and not mod.cuda.is_available():
                continue
            libs.append(name)
        except ImportError:
            pass
    if jax_gpu():
        libs.append("jax")
    return libs


def jax_gpu():
    """True where JAX is installed with a GPU backend (float64 arrays then need x64 mode)."""
    try:
        import jax

        if not jax.devices("gpu"):
            return False
        jax.config.update("jax_enable_x64", True)
        return True
    except Exception:  # not installed, or no CUDA plugin that works with this driver
        return False


def on(lib, x):
    """x (NumPy) as an array of `lib` on the GPU, row-major like most callers' arrays."""
    if lib == "cupy":
        import cupy

        return cupy.asarray(x)
    if lib == "torch":
        import torch

        return torch.from_numpy(np.ascontiguousarray(x)).cuda()
    if lib == "jax":
        import jax

        return jax.device_put(x, jax.devices("gpu")[0])
    return x


def host(x):
    if hasattr(x, "get"):
        return x.get()
    if hasattr(x, "cpu"):
        return x.cpu().numpy()
    return np.asarray(x)


@pytest.fixture(scope="module")
def big():
    # Several tiles per side on the GPU: 6000 points, 18 M pairs.
    return integer_points(6000, seed=11), integer_points(2500, seed=12)


@pytest.mark.parametrize("lib", device_libraries())
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_counts(big, lib, dtype):
    a, b = big
    ga, gb = on(lib, a.astype(dtype)), on(lib, b.astype(dtype))
    for r in (0.5, 3.5, 9.5):
        assert twobody.count_pairs(ga, r=r, **GPU) == twobody.count_pairs(a, r=r, **CPU)
        assert twobody.count_pairs(ga, gb, r=r, **GPU) == twobody.count_pairs(a, b, r=r, **CPU)
        assert twobody.count_pairs(ga, r=r, box=32.0, **GPU) == twobody.count_pairs(a, r=r, box=32.0, **CPU)
    w = np.resize(np.array([0.5, 1.0, 2.0], dtype), len(a))
    wb = np.resize(np.array([0.25, 4.0], dtype), len(b))
    assert twobody.count_pairs(ga, gb, r=6.5, weights=on(lib, w), weights_b=on(lib, wb), **GPU) == twobody.count_pairs(
        a, b, r=6.5, weights=w, weights_b=wb, **CPU)


@pytest.mark.parametrize("lib", device_libraries())
def test_histograms(big, lib):
    a, b = big
    ga, gb = on(lib, a), on(lib, b)
    cases = [
        dict(bins=16, range=(0, 39.2)),
        dict(bins=16, range=(0, 39.2), exact=True),
        dict(bins=9, range=(3.1, 30.1)),
        dict(bins=12, range=(1.1, 40.1), scale="log"),
        dict(bins=10, range=(0, 15.9), box=32.0),
        dict(metric="rp_pi", bins=(7, 5), range=(20.3, 15.3)),
        dict(metric="sqeuclidean", bins=12, range=(0.5, 1200.5)),
    ]
    for kw in cases:
        g = twobody.histogram(ga, **kw, **GPU)
        c = twobody.histogram(a, **kw, **CPU)
        np.testing.assert_array_equal(host(g.counts), c.counts, err_msg=str(kw))
        assert g.outside == c.outside and g.pairs == c.pairs
        gc = twobody.histogram(ga, gb, **kw, **GPU)
        np.testing.assert_array_equal(host(gc.counts), twobody.histogram(a, b, **kw, **CPU).counts, err_msg=str(kw))
    w = np.resize([0.5, 1.0, 2.0], len(a))
    g = twobody.histogram(ga, bins=16, range=(0, 39.2), weights=on(lib, w), **GPU)
    np.testing.assert_array_equal(host(g.counts), twobody.histogram(a, bins=16, range=(0, 39.2), weights=w, **CPU).counts)
    res = twobody.rdf(ga, box=32.0, r_max=15.9, bins=10, **GPU)
    np.testing.assert_allclose(res.g, twobody.rdf(a, box=32.0, r_max=15.9, bins=10, **CPU).g, rtol=1e-14)


def test_angular_histogram_edges_clear():
    rng = np.random.default_rng(5)
    v = twobody.unit_vectors(rng.uniform(0, 360, 3000), np.degrees(np.arcsin(rng.uniform(-1, 1, 3000))))
    g = twobody.histogram(v, metric="angular", bins=18, range=(0, np.pi), **GPU)
    c = twobody.histogram(v, metric="angular", bins=18, range=(0, np.pi), **CPU)
    # GPU and CPU compute atan2 with different roundings: a pair within an ulp of an edge may
    # move by one bin, so the counts agree to a few pairs out of 4.5 M.
    assert np.abs(g.counts.astype(np.int64) - c.counts.astype(np.int64)).sum() <= 8
    assert g.pairs == c.pairs


@pytest.mark.parametrize("lib", device_libraries())
def test_joins_stay_on_the_device(big, lib):
    a, b = big
    ga, gb = on(lib, a), on(lib, b)
    ij = twobody.pairs_within(ga, eps=2.5, **GPU)
    assert twobody._arrays.library_of(ij) == lib
    np.testing.assert_array_equal(host(ij).astype(np.int64), twobody.pairs_within(a, eps=2.5, **CPU).astype(np.int64))
    ijc = twobody.pairs_within(ga, gb, eps=2.5, **GPU)
    np.testing.assert_array_equal(host(ijc).astype(np.int64), twobody.pairs_within(a, b, eps=2.5, **CPU).astype(np.int64))


@pytest.mark.parametrize("lib", device_libraries())
def test_kernel_sums(big, lib):
    a, b = big
    ga, gb = on(lib, a), on(lib, b)
    # float64: sums of 18 M terms in another order agree to about 1e-12 relative.
    assert twobody.kernel_sum(ga, gb, bandwidth=3.0, **GPU) == pytest.approx(
        twobody.kernel_sum(a, b, bandwidth=3.0, **CPU), rel=1e-10)
    per = twobody.kernel_sum(ga, bandwidth=3.0, per_point=True, **GPU)
    np.testing.assert_allclose(host(per), twobody.kernel_sum(a, bandwidth=3.0, per_point=True, **CPU), rtol=1e-10)


def test_device_layouts_and_streams(big):
    cupy = pytest.importorskip("cupy")
    a, _ = big
    want = twobody.count_pairs(a, r=4.5, **CPU)
    assert twobody.count_pairs(cupy.asfortranarray(cupy.asarray(a)), r=4.5, **GPU) == want  # columns in place
    assert twobody.count_pairs(cupy.asarray(np.repeat(a, 2, axis=0))[::2], r=4.5, **GPU) == want  # strided
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        x = cupy.asarray(a)
        assert twobody.count_pairs(x, r=4.5, stream=s, **GPU) == want


def test_device_arrays_need_the_gpu_backend(big):
    cupy = pytest.importorskip("cupy")
    with pytest.raises(ValueError, match="backend"):
        twobody.count_pairs(cupy.asarray(big[0]), r=1.0, backend="cpu")


# ---------------------------------------------------------------------------------------------
# High-dimensional points (the tensor-core statistics): the GPU equals the CPU backend.


def row_libraries():
    """(library, dtype name) pairs: NumPy float32/float16/float64, CuPy float16, PyTorch float16/bfloat16."""
    cases = [("numpy", "float32"), ("numpy", "float16"), ("numpy", "float64")]
    libs = device_libraries()
    if "cupy" in libs:
        cases += [("cupy", "float32"), ("cupy", "float16")]
    if "torch" in libs:
        cases += [("torch", "float16"), ("torch", "bfloat16")]
    return cases


def rows_on(lib, x, dtype):
    """Integer rows (exact in every dtype here) as `dtype` arrays of `lib`; bfloat16 only in torch."""
    if lib == "torch":
        import torch

        return torch.from_numpy(np.ascontiguousarray(x, np.float32)).to(getattr(torch, dtype)).cuda()
    return on(lib, x.astype(dtype))


@pytest.fixture(scope="module")
def big_rows():
    # Several 128-row tiles per side, D not a multiple of 16.
    return integer_points(700, d=130, hi=8, seed=21), integer_points(300, d=130, hi=8, seed=22)


@pytest.mark.parametrize("lib,dtype", row_libraries())
def test_rows_gpu_equals_cpu(big_rows, lib, dtype):
    a64, b64 = big_rows
    a, b = a64.astype(np.float32), b64.astype(np.float32)  # the CPU reference reads the same values
    ga, gb = rows_on(lib, a64, dtype), rows_on(lib, b64, dtype)
    pdist_sq = pdist(a64, "sqeuclidean")
    r = float(np.sqrt(np.median(pdist_sq) + 0.5))
    assert twobody.count_pairs(ga, r=r, **GPU) == twobody.count_pairs(a, r=r, **CPU)
    assert twobody.count_pairs(ga, gb, r=r, **GPU) == twobody.count_pairs(a, b, r=r, **CPU)
    # Bins where most pair values lie: both backends bin each pair's correctly rounded float32
    # distance, so they agree even where a value sits on an edge.
    edges = (float(np.sqrt(100)), float(np.sqrt(140)))
    g = twobody.histogram(ga, gb, bins=40, range=edges, **GPU)
    c = twobody.histogram(a, b, bins=40, range=edges, **CPU)
    np.testing.assert_array_equal(host(g.counts), c.counts)
    assert g.outside == c.outside and g.pairs == c.pairs

    eps = float(np.sqrt(np.quantile(pdist_sq, 0.01)))  # on a pair: <= counts it
    ij, d = twobody.pairs_within(ga, eps=eps, return_distances=True, **GPU)
    cij, cd = twobody.pairs_within(a, eps=eps, return_distances=True, **CPU)
    assert type(ij).__module__.split(".")[0] == lib
    np.testing.assert_array_equal(host(ij).astype(np.int64), cij.astype(np.int64))
    # Values: the exact one for recomputed pairs, else the tensor cores' (within the margin).
    np.testing.assert_allclose(host(d), cd, rtol=2e-3)
    np.testing.assert_array_equal(host(twobody.pairs_within(ga, gb, eps=0.1, metric="cosine", **GPU)).astype(np.int64),
                                  twobody.pairs_within(a, b, eps=0.1, metric="cosine", **CPU).astype(np.int64))

    for metric in ("euclidean", "cosine"):
        for k, partners in ((10, None), (7, gb)):
            g = twobody.knn(ga, partners, k=k, metric=metric, **GPU)
            c = twobody.knn(a, None if partners is None else b, k=k, metric=metric, **CPU)
            assert type(g.indices).__module__.split(".")[0] == lib
            np.testing.assert_array_equal(host(g.indices).astype(np.int64), c.indices.astype(np.int64))
            np.testing.assert_array_equal(host(g.distances), c.distances)

    # Kernel sums: each term within the proven margin of the exact one (a few 1e-4 relative here).
    per = twobody.kernel_sum(ga, bandwidth=6.0, per_point=True, **GPU)
    np.testing.assert_allclose(host(per), twobody.kernel_sum(a, bandwidth=6.0, per_point=True, **CPU), rtol=1e-3)


def test_rows_layouts_on_the_device(big_rows):
    cupy = pytest.importorskip("cupy")
    a64, _ = big_rows
    a = a64.astype(np.float32)
    r = 12.5
    want = twobody.count_pairs(a, r=r, **CPU)
    wide = cupy.asarray(np.concatenate([a, a], axis=1))
    assert twobody.count_pairs(wide[:, :130], r=r, **GPU) == want           # row stride > D: in place
    assert twobody.count_pairs(cupy.asfortranarray(cupy.asarray(a)), r=r, **GPU) == want  # copied into rows
    nn = twobody.knn(cupy.asarray(a), k=3, **GPU)
    np.testing.assert_array_equal(host(nn.indices), twobody.knn(a, k=3, **CPU).indices)


# ---------------------------------------------------------------------------------------------
# Trajectory frames


def random_frames(rng, dtype):
    """40 frames of 0 to 700 integer points (frame 3 empty, frame 7 one point) in boxes of 32 to
    35: (points, offsets, boxes)."""
    sizes = rng.integers(0, 700, size=40)
    sizes[3], sizes[7] = 0, 1
    x = rng.integers(0, 32, size=(int(sizes.sum()), 3)).astype(dtype)
    return x, np.concatenate([[0], np.cumsum(sizes)]), 32.0 + rng.integers(0, 4, size=(40, 3)).astype(np.float64)


@pytest.mark.parametrize("lib", device_libraries())
def test_rdf_frames_gpu_equals_cpu(lib):
    rng = np.random.default_rng(31)
    x, offsets, boxes = random_frames(rng, np.float64)
    kw = dict(offsets=offsets, box=boxes, r_max=15.9, bins=10, per_frame=True)
    c = twobody.rdf_frames(x, **kw, **CPU)
    g = twobody.rdf_frames(on(lib, x), **kw, **GPU)
    np.testing.assert_array_equal(g.counts_per_frame, c.counts_per_frame)
    np.testing.assert_allclose(g.g, c.g, rtol=1e-14)
    # Two species, one box and equal sizes (the summed form).
    t = rng.integers(0, 32, size=(50, 300, 3)).astype(np.float32)
    c2 = twobody.rdf_frames(t[:, :100], frames_b=t[:, 100:], box=32.0, r_max=15.9, bins=10, **CPU)
    g2 = twobody.rdf_frames(on(lib, t[:, :100]), frames_b=on(lib, t[:, 100:]), box=32.0, r_max=15.9, bins=10, **GPU)
    np.testing.assert_array_equal(g2.counts, c2.counts)


@pytest.mark.parametrize("lib", device_libraries())
def test_count_frames_gpu_equals_cpu(lib):
    rng = np.random.default_rng(33)
    x, offsets, boxes = random_frames(rng, np.float32)
    c = twobody.count_frames(x, offsets=offsets, box=boxes, r=7.5, **CPU)
    g = twobody.count_frames(on(lib, x), offsets=offsets, box=boxes, r=7.5, **GPU)
    assert c.sum() > 0
    np.testing.assert_array_equal(g, c)
    t = rng.integers(0, 32, size=(50, 300, 3)).astype(np.float32)
    assert twobody.count_frames(on(lib, t[:, :100]), frames_b=on(lib, t[:, 100:]), box=32.0, r=6.5, per_frame=False,
                                **GPU) == twobody.count_frames(t[:, :100], frames_b=t[:, 100:], box=32.0, r=6.5,
                                                               per_frame=False, **CPU)


def test_rdf_frames_progress_runs_and_interrupts():
    rng = np.random.default_rng(32)
    t = rng.integers(0, 32, size=(30, 256, 3)).astype(np.float32)
    seen = []
    res = twobody.rdf_frames(t, box=32.0, r_max=15.9, bins=10, chunk_points=1024,
                             progress=lambda done, total: seen.append((done, total)), **GPU)
    assert seen[-1] == (30, 30) and len(seen) >= 7 and all(a <= b for (a, _), (b, _) in zip(seen, seen[1:]))
    np.testing.assert_array_equal(res.counts, twobody.rdf_frames(t, box=32.0, r_max=15.9, bins=10, **CPU).counts)

    class Stop(Exception):
        pass

    def stop(done, total):
        if done >= 8:
            raise Stop()

    with pytest.raises(Stop):
        twobody.rdf_frames(t, box=32.0, r_max=15.9, bins=10, chunk_points=1024, progress=stop, **GPU)
    with pytest.raises(KeyboardInterrupt):
        twobody.rdf_frames(t, box=32.0, r_max=15.9, bins=10, chunk_points=1024,
                           progress=lambda d, n: (_ for _ in ()).throw(KeyboardInterrupt()), **GPU)
    # The GPU is usable after the interrupted calls (nothing leaked or left pending).
    again = twobody.rdf_frames(t, box=32.0, r_max=15.9, bins=10, **GPU)
    np.testing.assert_array_equal(again.counts, res.counts)


# ---------------------------------------------------------------------------------------------
# Statistics with a cutoff through the GPU's grid


@pytest.mark.parametrize("lib", device_libraries())
def test_grid_search_equals_every_pair(lib):
    rng = np.random.default_rng(41)
    L = 96
    x = rng.integers(0, L, size=(12000, 3)).astype(np.float32)
    y = rng.integers(0, L, size=(9000, 3)).astype(np.float32)
    gx, gy = on(lib, x), on(lib, y)
    for box in (None, float(L)):
        for b, gb in ((None, None), (y, gy)):
            want = twobody.count_pairs(x, b, r=4.5, box=box, **CPU)
            for search in ("grid", "auto", "brute"):
                assert twobody.count_pairs(gx, gb, r=4.5, box=box, search=search, **GPU) == want, (box, search)
            h = twobody.histogram(gx, gb, bins=9, range=(0.0, 4.5), box=box, search="grid", **GPU)
            c = twobody.histogram(x, b, bins=9, range=(0.0, 4.5), box=box, **CPU)
            np.testing.assert_array_equal(host(h.counts), c.counts)
            assert h.outside == c.outside and h.pairs == c.pairs
    g = twobody.rdf(gx, box=float(L), r_max=6.0, bins=12, search="grid", **GPU)
    np.testing.assert_allclose(g.g, twobody.rdf(x, box=float(L), r_max=6.0, bins=12, **CPU).g, rtol=1e-14)
