"""twobody.Functor: pair functions compiled at run time (NVRTC). Construction, compile errors
and the refusals need no GPU; the statistics run on the GPU against NumPy/SciPy on integer
coordinates, where every value below is exact."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist, pdist

import twobody

from conftest import assert_edges_clear, integer_points

needs_gpu = pytest.mark.skipif(not twobody.gpu_available(), reason="no usable CUDA GPU: Functors run on the GPU only")

SCALED = ("float", "return s * dist2(a, b) + t;", {"s": 0.5, "t": 0.25})


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("twobody-cache"))


def test_bad_functors_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="returns one of"):
        twobody.Functor("int64", "return 0;")
    with pytest.raises(ValueError, match="non-empty str"):
        twobody.Functor("float", "   ")
    with pytest.raises(ValueError, match="not an identifier"):
        twobody.Functor("float", "return 0;", {"2h": 1.0})
    with pytest.raises(twobody.Error, match="is taken"):
        twobody.Functor("float", "return a.x[0];", {"a": 1.0})
    f = twobody.Functor(*SCALED)
    with pytest.raises(ValueError, match="no parameter"):
        f.with_params(h=2.0)


def test_a_body_that_does_not_compile_shows_the_numbered_source_and_the_error_line(cache):
    f = twobody.Functor("float", "T d = dist2(a, b);\nreturn d * undefined_name;", name="broken", cache_dir=cache)
    with pytest.raises(twobody.Error) as e:
        f.check()
    text = str(e.value)
    assert "'broken' does not compile" in text
    assert "2 | return d * undefined_name;" in text
    assert "broken(2): error" in text


def test_a_good_body_compiles_without_a_gpu_and_its_source_can_be_read(cache):
    f = twobody.Functor(*SCALED, cache_dir=cache)
    f.check("float32")
    f.check("float64", arch=80)
    assert f.compilations == 2
    src = f.source("float64")
    assert "return s * dist2(a, b) + t;" in src and "using T = double;" in src


def test_statistics_refuse_the_wrong_kind_of_functor_and_the_cpu_backend():
    x = integer_points(50, seed=3, dtype=np.float32)
    value, predicate = twobody.Functor(*SCALED), twobody.Functor("bool", "return dist2(a, b) < 4;")
    with pytest.raises(TypeError, match="returns bool, not float"):
        twobody.count_pairs(x, functor=value)
    with pytest.raises(TypeError, match="float or double, not bool"):
        twobody.pair_sum(x, functor=predicate)
    with pytest.raises(TypeError, match="float or double, not bool"):
        twobody.histogram(x, metric=predicate, bins=4, range=(0, 4))
    with pytest.raises(ValueError, match="either functor= or r="):
        twobody.count_pairs(x, r=1.0, functor=predicate)
    with pytest.raises(TypeError, match="returns bool, not float"):
        twobody.pairs_within(x, functor=value)
    with pytest.raises(ValueError, match="GPU only"):
        twobody.pair_sum(x, functor=value, backend="cpu")
    with pytest.raises(ValueError, match="1 to 3 coordinates"):
        twobody.pair_sum(integer_points(50, d=8, seed=3, dtype=np.float32), functor=value)
    if not twobody.gpu_available():
        with pytest.raises(twobody.Error, match="GPU only"):
            twobody.pair_sum(x, functor=value)


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_equal_numpy(dtype, cache):
    x = integer_points(2000, seed=5, hi=16, dtype=dtype)
    y = integer_points(700, seed=6, hi=16, dtype=dtype)
    f = twobody.Functor(*SCALED, cache_dir=cache)
    d2 = pdist(x.astype(np.float64), "sqeuclidean")
    assert twobody.pair_sum(x, functor=f) == np.sum(0.5 * d2 + 0.25)
    c2 = cdist(x.astype(np.float64), y.astype(np.float64), "sqeuclidean")
    assert twobody.pair_sum(x, y, functor=f) == np.sum(0.5 * c2 + 0.25)
    per = twobody.pair_sum(x, y, functor=f, per_point=True)
    np.testing.assert_array_equal(per, np.sum(0.5 * c2 + 0.25, axis=1).astype(dtype))
    g = f.with_params(s=2.0, t=0.0)  # new values, no new compilation
    before = f.compilations
    assert twobody.pair_sum(x, functor=g) == np.sum(2.0 * d2)
    assert g.compilations == before


@needs_gpu
def test_weighted_sums_and_counts_equal_numpy(cache):
    x = integer_points(1500, seed=7, hi=16, dtype=np.float64)
    w = np.random.default_rng(7).integers(1, 9, size=len(x)) / 4.0  # dyadic: exact products and sums
    ww = np.outer(w, w)[np.triu_indices(len(x), 1)]
    d2 = pdist(x, "sqeuclidean")
    f = twobody.Functor(*SCALED, cache_dir=cache)
    assert twobody.pair_sum(x, functor=f, weights=w) == np.sum((0.5 * d2 + 0.25) * ww)
    near = twobody.Functor("bool", "return dist2(a, b) < r * r;", {"r": 5.5}, cache_dir=cache)
    assert twobody.count_pairs(x, functor=near) == np.count_nonzero(d2 < 5.5**2)
    assert twobody.count_pairs(x, functor=near) == twobody.count_pairs(x, r=5.5)
    assert twobody.count_pairs(x, functor=near, weights=w) == np.sum(ww[d2 < 5.5**2])


@needs_gpu
@pytest.mark.parametrize("scale", ["linear", "log"])
def test_a_histogram_of_the_functors_value_equals_numpy(scale, cache):
    x = integer_points(2500, seed=9, hi=16, dtype=np.float32)
    dz = twobody.Functor("float", "return fabsf(a.x[2] - b.x[2]) + q;", {"q": 0.3}, cache_dir=cache)
    values = pdist(x[:, 2:3].astype(np.float64), "cityblock") + 0.3
    lo, hi, bins = 0.1, 12.1, 7
    h = twobody.histogram(x, metric=dz, bins=bins, range=(lo, hi), scale=scale)
    assert_edges_clear(values, h.edges, gap=1e-3)
    ref, _ = np.histogram(values, bins=h.edges)
    np.testing.assert_array_equal(h.counts, ref)
    assert h.outside == len(values) - ref.sum() and h.pairs == len(values)


@needs_gpu
def test_device_arrays_and_a_compile_error_at_the_first_call(cache):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA")
    x = integer_points(1000, seed=11, hi=16, dtype=np.float32)
    f = twobody.Functor(*SCALED, cache_dir=cache)
    assert twobody.pair_sum(torch.from_numpy(x).cuda(), functor=f) == twobody.pair_sum(x, functor=f)
    per = twobody.pair_sum(torch.from_numpy(x).cuda(), functor=f, per_point=True)
    np.testing.assert_array_equal(np.asarray(per.cpu() if hasattr(per, "cpu") else per),
                                  np.sum(0.5 * cdist(x, x, "sqeuclidean") + 0.25, axis=1).astype(np.float32) - 0.25)
    bad = twobody.Functor("float", "return dist2(a, b) +;", name="typo", cache_dir=cache)
    with pytest.raises(twobody.Error, match=r"typo\(1\): error"):
        twobody.pair_sum(x, functor=bad)


@needs_gpu
def test_a_join_of_a_predicate_equals_numpy(cache):
    x = integer_points(1200, seed=13, hi=32, dtype=np.float32)
    y = integer_points(900, seed=14, hi=32, dtype=np.float32)
    theta = twobody.Functor("bool", "return fabsf(a.x[0] - b.x[0]) <= w && a.x[1] < b.x[1];", {"w": 1.0},
                            cache_dir=cache)
    want = (np.abs(x[:, None, 0] - y[None, :, 0]) <= 1.0) & (x[:, None, 1] < y[None, :, 1])
    ij = twobody.pairs_within(x, y, functor=theta)
    np.testing.assert_array_equal(ij, np.argwhere(want))  # sorted by (i, j), like argwhere
    self_want = np.triu((np.abs(x[:, None, 0] - x[None, :, 0]) <= 1.0) & (x[:, None, 1] < x[None, :, 1]), 1)
    np.testing.assert_array_equal(twobody.pairs_within(x, functor=theta), np.argwhere(self_want))
    with pytest.raises(ValueError, match="either functor= or eps="):
        twobody.pairs_within(x, eps=1.0, functor=theta)
