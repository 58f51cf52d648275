"""High-dimensional points (D > 3, float16, knn, cosine) on the CPU backend against NumPy and
SciPy. Integer coordinates make every squared distance an exact integer, so counts, bins,
joins and neighbour orders are unambiguous (radii and edges are checked to lie away from the
values); the GPU is compared with the CPU backend in test_gpu.py."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist, pdist

import twobody

from conftest import assert_edges_clear, integer_points

CPU = dict(backend="cpu")


def rows(n, d, seed, dtype=np.float32, hi=8):
    return integer_points(n, d=d, hi=hi, seed=seed, dtype=dtype)


def cosine_distances(a, b):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    na = np.linalg.norm(a, axis=1)[:, None]
    nb = np.linalg.norm(b, axis=1)[None, :]
    return 1.0 - (a @ b.T) / (na * nb)


def reference_neighbors(dist, k, exclude_self):
    """Each row's k smallest float32 distances, ties by the smaller index (the library's order)."""
    d = dist.astype(np.float32).astype(np.float64)
    if exclude_self:
        np.fill_diagonal(d, np.inf)
    order = np.lexsort((np.broadcast_to(np.arange(d.shape[1]), d.shape), d), axis=1)[:, :k]
    return order, np.take_along_axis(d, order, axis=1).astype(np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("d", [4, 37, 128])
def test_count_pairs_of_rows(d, dtype):
    a, b = rows(220, d, 1, dtype), rows(150, d, 2, dtype)
    da, db = rows(220, d, 1, np.float64), rows(150, d, 2, np.float64)
    r = float(np.sqrt(np.median(pdist(da) ** 2) + 0.5))  # r^2 = an integer + 0.5: no pair on it
    assert twobody.count_pairs(a, r=r, **CPU) == int((pdist(da) < r).sum())
    assert twobody.count_pairs(a, b, r=r, **CPU) == int((cdist(da, db) < r).sum())


def test_float64_rows_are_evaluated_in_double():
    # Near copies 1e-10 apart, which float32 coordinates cannot hold: counts and neighbours of
    # float64 rows follow the double distances (a radius between two consecutive ones).
    rng = np.random.default_rng(4)
    a = rng.normal(size=(200, 16))
    a[1::2] = a[0::2] + 1e-10 * rng.normal(size=(100, 16))
    d = np.sort(pdist(a))
    assert d[40] < 1e-8 and (d[41] - d[40]) / d[40] > 1e-4
    r = float(np.sqrt(d[40] * d[41]))
    assert twobody.count_pairs(a, r=r, **CPU) == 41
    nn = twobody.knn(a, k=1, **CPU)
    full = cdist(a, a)
    np.fill_diagonal(full, np.inf)
    assert np.array_equal(nn.indices[:, 0], np.argmin(full, axis=1))
    assert np.allclose(nn.distances[:, 0], full.min(axis=1), rtol=1e-6, atol=0)


def test_float16_points_take_the_row_path_at_any_dimension():
    a = rows(300, 3, 5, np.float16)
    r = 5.5
    assert twobody.count_pairs(a, r=r, **CPU) == int((pdist(a.astype(np.float64)) < r).sum())


@pytest.mark.parametrize("d", [5, 64])
def test_histogram_of_rows(d):
    a, b = rows(200, d, 3), rows(120, d, 4)
    da, db = a.astype(np.float64), b.astype(np.float64)
    edges = np.linspace(0.13, 24.13, 13)  # at least 5e-3 from every sqrt(integer) below 4000
    for values, h in ((pdist(da), twobody.histogram(a, bins=12, range=(0.13, 24.13), **CPU)),
                      (cdist(da, db).ravel(), twobody.histogram(a, b, bins=12, range=(0.13, 24.13), **CPU))):
        assert_edges_clear(values, edges)
        expected, _ = np.histogram(values, bins=edges)
        assert np.array_equal(h.counts, expected)
        assert h.outside == values.size - expected.sum()
        assert h.pairs == values.size
        assert np.allclose(h.edges, edges)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_pairs_within_rows_euclidean_and_cosine(dtype):
    a, b = rows(180, 24, 6, dtype), rows(90, 24, 7, dtype)
    da, db = a.astype(np.float64), b.astype(np.float64)
    eps = float(np.sqrt(np.quantile(pdist(da) ** 2, 0.02) + 0.5))
    ij, dist = twobody.pairs_within(a, eps=eps, return_distances=True, **CPU)
    i, j = np.triu_indices(len(a), k=1)
    full = cdist(da, da)
    keep = full[i, j] <= eps
    assert np.array_equal(ij, np.stack([i[keep], j[keep]], axis=1))
    assert dist.dtype == np.float32
    assert np.array_equal(dist, full[i, j][keep].astype(np.float32))
    # Cross sets; the default result is the pairs alone.
    cross = twobody.pairs_within(a, b, eps=eps, **CPU)
    expect = np.argwhere(cdist(da, db) <= eps)
    assert np.array_equal(cross, expect)
    # Cosine distance (1 - cos); eps between the values of the pairs.
    cos = cosine_distances(da, da)[i, j]
    eps_c = float(np.quantile(cos, 0.05))
    eps_c = 0.5 * (eps_c + cos[cos > eps_c].min())
    ij_c, d_c = twobody.pairs_within(a, eps=eps_c, metric="cosine", return_distances=True, **CPU)
    assert np.array_equal(ij_c, np.stack([i[cos <= eps_c], j[cos <= eps_c]], axis=1))
    assert np.allclose(d_c, cos[cos <= eps_c], rtol=0, atol=1e-6)


def test_return_distances_of_low_dimensional_float32_points():
    a = rows(200, 3, 8, hi=20)
    ij, dist = twobody.pairs_within(a, eps=4.2, return_distances=True, **CPU)
    full = cdist(a.astype(np.float64), a.astype(np.float64))
    assert np.array_equal(ij, np.argwhere(np.triu(full <= 4.2, k=1)))
    assert np.array_equal(dist, full[ij[:, 0], ij[:, 1]].astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("d", [2, 16, 100])
def test_knn_matches_a_full_sort(d, dtype):
    a, b = rows(160, d, 9, dtype), rows(70, d, 10, dtype)
    da, db = a.astype(np.float64), b.astype(np.float64)
    for k in (1, 5, 69):
        nn = twobody.knn(a, k=k, **CPU)
        idx, dist = reference_neighbors(cdist(da, da), k, exclude_self=True)
        assert nn.indices.shape == (160, k) and nn.indices.dtype == np.int32
        assert np.array_equal(nn.indices, idx)
        assert np.array_equal(nn.distances, dist)
        nn = twobody.knn(a, b, k=k, **CPU)
        idx, dist = reference_neighbors(cdist(da, db), k, exclude_self=False)
        assert np.array_equal(nn.indices, idx)
        assert np.array_equal(nn.distances, dist)


def test_knn_cosine_and_nan_rows():
    a = rows(120, 32, 11) + 1.0  # no zero row: every cosine is defined
    a[7, 3] = np.nan
    nn = twobody.knn(a, k=4, metric="cosine", **CPU)
    cos = cosine_distances(a, a)
    cos[np.isnan(cos)] = np.inf  # a NaN partner is never a neighbour
    _, dist = reference_neighbors(cos, 4, exclude_self=True)
    ok = np.arange(len(a)) != 7
    # Cosines computed here differ from the library's exact ones in the last bits, so near-ties
    # may order differently: compare the distances, and check that each neighbour is at its
    # distance, distinct and not the point itself.
    assert np.allclose(nn.distances[ok], dist[ok], rtol=0, atol=1e-6)
    rows_ok = np.flatnonzero(ok)
    at = cos[rows_ok[:, None], nn.indices[ok]]
    assert np.allclose(at, nn.distances[ok], rtol=0, atol=1e-6)
    assert all(len(set(r)) == 4 and i not in r for i, r in zip(rows_ok, nn.indices[ok].tolist()))
    assert not np.any(nn.indices == 7)
    # The NaN row has no neighbours at all.
    assert np.all(nn.indices[7] == -1) and np.all(np.isinf(nn.distances[7]))


def test_kernel_sums_of_rows():
    a, b = rows(150, 20, 12, hi=4), rows(80, 20, 13, hi=4)
    da, db = a.astype(np.float64), b.astype(np.float64)
    h = 2.5
    ka = np.exp(-cdist(da, da, "sqeuclidean") / (2 * h * h))
    np.fill_diagonal(ka, 0.0)
    kb = np.exp(-cdist(da, db, "sqeuclidean") / (2 * h * h))
    per = twobody.kernel_sum(a, bandwidth=h, per_point=True, **CPU)
    assert per.dtype == np.float64
    assert np.allclose(per, ka.sum(axis=1), rtol=1e-6)
    assert np.isclose(twobody.kernel_sum(a, bandwidth=h, **CPU), ka.sum() / 2, rtol=1e-6)
    assert np.allclose(twobody.kernel_sum(a, b, bandwidth=h, per_point=True, **CPU), kb.sum(axis=1), rtol=1e-6)
    assert np.isclose(twobody.kernel_sum(a, b, bandwidth=h, **CPU), kb.sum(), rtol=1e-6)


def test_rows_bad_input():
    a = rows(50, 8, 14)
    # float64 rows are taken (integer rows: the same answers as float32).
    assert twobody.count_pairs(a.astype(np.float64), r=3.5, **CPU) == twobody.count_pairs(a, r=3.5, **CPU)
    p3 = rows(50, 3, 14)
    assert np.array_equal(twobody.knn(p3.astype(np.float64), k=3, **CPU).indices, twobody.knn(p3, k=3, **CPU).indices)
    with pytest.raises(ValueError, match="k must be between 1 and"):
        twobody.knn(a, k=0, **CPU)
    with pytest.raises(ValueError, match="k must be between 1 and"):
        twobody.knn(a, k=50, **CPU)  # 49 partners
    with pytest.raises(ValueError, match="k must be between 1 and"):
        twobody.knn(a, rows(0, 8, 15), k=1, **CPU)
    with pytest.raises(TypeError, match="k must be an int"):
        twobody.knn(a, k=2.0, **CPU)
    with pytest.raises(ValueError, match="metric must be"):
        twobody.knn(a, k=2, metric="manhattan", **CPU)
    with pytest.raises(ValueError, match="box= is not supported"):
        twobody.count_pairs(a, r=1.0, box=10.0, **CPU)
    with pytest.raises(ValueError, match="weights= is not supported"):
        twobody.count_pairs(a, r=1.0, weights=np.ones(50, np.float32), **CPU)
    with pytest.raises(ValueError, match="metric='euclidean'"):
        twobody.histogram(a, bins=4, range=(1.0, 2.0), scale="log", **CPU)
    with pytest.raises(ValueError, match="eps must be finite"):
        twobody.pairs_within(a, eps=-1.0, **CPU)
    with pytest.raises(ValueError, match="8 and 9 coordinates"):
        twobody.count_pairs(a, rows(10, 9, 16), r=1.0, **CPU)
    with pytest.raises(ValueError, match="at least one bin"):
        twobody.histogram(a, bins=0, range=(0.0, 1.0), **CPU)


def test_rows_empty_and_one_point_sets():
    none, one = rows(0, 8, 17), rows(1, 8, 18)
    assert twobody.count_pairs(none, r=3.0, **CPU) == 0
    assert twobody.count_pairs(one, r=3.0, **CPU) == 0
    assert twobody.pairs_within(one, eps=3.0, **CPU).shape == (0, 2)
    h = twobody.histogram(none, bins=3, range=(0.0, 3.0), **CPU)
    assert h.pairs == 0 and h.counts.sum() == 0
    assert twobody.kernel_sum(one, bandwidth=1.0, per_point=True, **CPU).tolist() == [0.0]


def test_non_contiguous_rows_are_read_correctly():
    base = rows(120, 40, 19)
    strided = np.asfortranarray(base)          # columns contiguous: copied into rows
    sliced = rows(120, 80, 19)[:, ::2]          # every other coordinate
    padded = rows(120, 48, 19)[:, :40]          # a row stride past D: read in place
    ref = pdist(base.astype(np.float64))
    r = float(np.sqrt(np.median(ref ** 2) + 0.5))
    for x, full in ((strided, base), (sliced, rows(120, 80, 19)[:, ::2]), (padded, rows(120, 48, 19)[:, :40])):
        assert twobody.count_pairs(x, r=r, **CPU) == int((pdist(full.astype(np.float64)) < r).sum())
