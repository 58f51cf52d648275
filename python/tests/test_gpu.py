"""The GPU against the CPU backend, for NumPy inputs (staged by the library) and for CuPy and
PyTorch device arrays (read in place through DLPack). Skipped without a GPU."""

import numpy as np
import pytest

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
    return libs


def on(lib, x):
    """x (NumPy) as an array of `lib` on the GPU, row-major like most callers' arrays."""
    if lib == "cupy":
        import cupy

        return cupy.asarray(x)
    if lib == "torch":
        import torch

        return torch.from_numpy(np.ascontiguousarray(x)).cuda()
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
    assert type(ij).__module__.split(".")[0] == ("numpy" if lib == "numpy" else lib)
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
