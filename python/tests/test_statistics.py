"""Each statistic on the CPU backend against NumPy and SciPy (and against the GPU where there
is one: test_gpu.py)."""

import numpy as np
import pytest
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist, pdist

import twobody

from conftest import assert_edges_clear, integer_points

CPU = dict(backend="cpu")


def periodic_distances(a, b, box):
    d = np.abs(a[:, None, :] - b[None, :, :])
    d = np.minimum(d, np.asarray(box) - d)
    return np.sqrt((d * d).sum(axis=2))


def upper(m):
    return m[np.triu_indices(m.shape[0], k=1)]


# ---------------------------------------------------------------------------------------------
# count_pairs


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_count_self_and_cross_match_scipy(points, points_b, dtype):
    a, b = points.astype(dtype), points_b.astype(dtype)
    r = 5.5  # squared distances are integers, r^2 = 30.25 is none of them
    assert twobody.count_pairs(a, r=r, **CPU) == int((pdist(points) < r).sum())
    assert twobody.count_pairs(a, b, r=r, **CPU) == int((cdist(points, points_b) < r).sum())
    # cKDTree counts pairs with distance <= r; no distance equals r here.
    tree = cKDTree(points)
    assert twobody.count_pairs(a, r=r, **CPU) == (tree.count_neighbors(tree, r) - len(points)) // 2


def test_count_periodic_and_weighted(points, points_b):
    box = [32.0, 32.0, 32.0]
    r = 7.5
    want = int((upper(periodic_distances(points, points, box)) < r).sum())
    assert twobody.count_pairs(points, r=r, box=box, **CPU) == want
    assert twobody.count_pairs(points, r=r, box=32.0, **CPU) == want
    w = np.resize([0.5, 1.0, 2.0, 0.25], len(points))  # dyadic: sums are exact
    wb = np.resize([2.0, 0.5], len(points_b))
    d = cdist(points, points_b)
    assert twobody.count_pairs(points, points_b, r=r, weights=w, weights_b=wb, **CPU) == float(
        (np.outer(w, wb) * (d < r)).sum())
    self_w = upper(np.outer(w, w) * (cdist(points, points) < r))
    assert twobody.count_pairs(points, r=r, weights=w, **CPU) == float(self_w.sum())


def test_count_1d_and_2d_points():
    x = integer_points(150, d=1, seed=3)
    assert twobody.count_pairs(x[:, 0], r=2.5, **CPU) == int((pdist(x) < 2.5).sum())  # a 1-D array is (n, 1)
    y = integer_points(150, d=2, seed=4)
    assert twobody.count_pairs(y, r=4.5, **CPU) == int((pdist(y) < 4.5).sum())
    assert twobody.count_pairs(y, r=4.5, box=[32.0, 32.0], **CPU) == int(
        (upper(periodic_distances(y, y, [32.0, 32.0])) < 4.5).sum())


def test_layouts_need_no_particular_order(points):
    want = twobody.count_pairs(points, r=6.5, **CPU)
    assert twobody.count_pairs(np.asfortranarray(points), r=6.5, **CPU) == want  # columns in place
    assert twobody.count_pairs(np.ascontiguousarray(points.T).T, r=6.5, **CPU) == want
    doubled = np.repeat(points, 2, axis=0)[::2]  # a strided view
    assert twobody.count_pairs(doubled, r=6.5, **CPU) == want
    assert twobody.count_pairs(points.tolist(), r=6.5, **CPU) == want  # array-likes become NumPy


def test_nan_pairs_never_count(points):
    x = points.copy()
    x[5, 1] = np.nan
    d = pdist(x)
    assert twobody.count_pairs(x, r=6.5, **CPU) == int((d < 6.5).sum())  # NaN < r is False


def test_empty_and_single_point_sets_have_no_pairs():
    empty = np.zeros((0, 3))
    one = np.ones((1, 3))
    assert twobody.count_pairs(one, r=1.0, **CPU) == 0
    assert twobody.count_pairs(empty, one, r=1.0, **CPU) == 0
    h = twobody.histogram(one, bins=4, range=(0, 4), **CPU)
    assert h.pairs == 0 and h.counts.sum() == 0 and h.outside == 0


# ---------------------------------------------------------------------------------------------
# histograms


@pytest.mark.parametrize("exact", [False, True])
def test_distance_histogram_matches_numpy(points, points_b, exact):
    bins, rng = 16, (0.0, 39.2)  # edges 2.45 k: no integer squared distance lies on one
    edges = np.linspace(*rng, bins + 1)
    d = pdist(points)
    assert_edges_clear(d, edges)
    h = twobody.histogram(points, bins=bins, range=rng, exact=exact, **CPU)
    want, _ = np.histogram(d, bins=edges)
    np.testing.assert_array_equal(h.counts, want)
    assert h.outside == (d >= rng[1]).sum() and h.pairs == len(d)
    np.testing.assert_allclose(h.edges, edges)
    dc = cdist(points, points_b).ravel()
    assert_edges_clear(dc, edges)
    hc = twobody.histogram(points, points_b, bins=bins, range=rng, exact=exact, **CPU)
    np.testing.assert_array_equal(hc.counts, np.histogram(dc, bins=edges)[0])


def test_squared_distance_histogram_matches_numpy(points, points_b):
    bins, rng = 12, (0.5, 1200.5)  # edges 0.5 + 100 k: never an integer squared distance
    edges = np.linspace(*rng, bins + 1)
    for h, d2 in ((twobody.histogram(points, bins=bins, range=rng, metric="sqeuclidean", **CPU),
                   pdist(points, "sqeuclidean")),
                  (twobody.histogram(points, points_b, bins=bins, range=rng, metric="sqeuclidean", **CPU),
                   cdist(points, points_b, "sqeuclidean").ravel())):
        want, _ = np.histogram(d2, bins=edges)
        np.testing.assert_array_equal(h.counts, want)
        assert h.outside == len(d2) - want.sum() and h.pairs == len(d2)
    with pytest.raises(ValueError, match="linear bins in an open box"):
        twobody.histogram(points, bins=bins, range=rng, metric="sqeuclidean", scale="log", **CPU)


def test_shifted_log_and_periodic_histograms(points):
    d = pdist(points)
    lin = np.linspace(3.1, 30.1, 10)
    assert_edges_clear(d, lin)
    h = twobody.histogram(points, bins=9, range=(3.1, 30.1), **CPU)
    np.testing.assert_array_equal(h.counts, np.histogram(d, bins=lin)[0])
    assert h.outside == ((d < 3.1) | (d >= 30.1)).sum()

    log = np.geomspace(1.1, 40.1, 13)
    assert_edges_clear(d, log)
    hl = twobody.histogram(points, bins=12, range=(1.1, 40.1), scale="log", **CPU)
    np.testing.assert_array_equal(hl.counts, np.histogram(d, bins=log)[0])

    box = [32.0, 32.0, 32.0]
    dp = upper(periodic_distances(points, points, box))
    edges = np.linspace(0, 15.9, 11)
    assert_edges_clear(dp, edges)
    hp = twobody.histogram(points, bins=10, range=(0, 15.9), box=box, **CPU)
    np.testing.assert_array_equal(hp.counts, np.histogram(dp, bins=edges)[0])


def test_weighted_histogram(points):
    w = np.resize([0.5, 1.0, 2.0], len(points))
    edges = np.linspace(0, 39.2, 17)
    d = cdist(points, points)
    iu = np.triu_indices(len(points), k=1)
    want, _ = np.histogram(d[iu], bins=edges, weights=np.outer(w, w)[iu])
    h = twobody.histogram(points, bins=16, range=(0, 39.2), weights=w, **CPU)
    np.testing.assert_array_equal(h.counts, want)
    assert h.counts.dtype == np.float64


def test_rp_pi_histogram(points):
    dx = points[:, None, :] - points[None, :, :]
    rp = upper(np.sqrt((dx[..., :2] ** 2).sum(axis=2)))
    pi = upper(np.abs(dx[..., 2]))
    rp_edges, pi_edges = np.linspace(0, 20.3, 8), np.linspace(0, 15.3, 6)
    assert_edges_clear(rp, rp_edges)
    assert_edges_clear(pi, pi_edges)
    h = twobody.histogram(points, metric="rp_pi", bins=(7, 5), range=(20.3, 15.3), **CPU)
    want, _, _ = np.histogram2d(rp, pi, bins=[rp_edges, pi_edges])
    assert h.counts.shape == (7, 5)
    np.testing.assert_array_equal(h.counts, want)


def test_angular_histogram():
    rng = np.random.default_rng(7)
    ra, dec = rng.uniform(0, 360, 200), np.degrees(np.arcsin(rng.uniform(-1, 1, 200)))
    v = twobody.unit_vectors(ra, dec)
    cos = np.clip(upper(v @ v.T), -1, 1)
    theta = np.arccos(cos)
    edges = np.linspace(0, np.pi, 19)
    assert_edges_clear(theta, edges, gap=1e-6)
    h = twobody.histogram(v, metric="angular", bins=18, range=(0, np.pi), **CPU)
    np.testing.assert_array_equal(h.counts, np.histogram(theta, bins=edges)[0])


# ---------------------------------------------------------------------------------------------
# estimators


def test_rdf_is_the_normalised_histogram(points, points_b):
    box = [32.0, 32.0, 32.0]
    res = twobody.rdf(points, box=box, r_max=15.9, bins=10, **CPU)
    dp = upper(periodic_distances(points, points, box))
    counts, edges = np.histogram(dp, bins=np.linspace(0, 15.9, 11))
    shells = 4.0 / 3.0 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    n = len(points)
    ideal = n * (n - 1) / 2 * shells / 32.0**3
    np.testing.assert_allclose(res.g, counts / ideal, rtol=1e-12)
    np.testing.assert_allclose(res.r, 0.5 * (edges[1:] + edges[:-1]))
    cross = twobody.rdf(points, points_b, box=box, r_max=15.9, bins=10, **CPU)
    cc, _ = np.histogram(periodic_distances(points, points_b, box).ravel(), bins=edges)
    np.testing.assert_allclose(cross.g, cc / (n * len(points_b) * shells / 32.0**3), rtol=1e-12)


def test_xi_landy_szalay_and_natural(points):
    rnd = integer_points(400, seed=9)
    edges = np.geomspace(1.1, 30.1, 7)
    dd = np.histogram(pdist(points), bins=edges)[0] / (300 * 299 / 2)
    rr = np.histogram(pdist(rnd), bins=edges)[0] / (400 * 399 / 2)
    dr = np.histogram(cdist(points, rnd).ravel(), bins=edges)[0] / (300 * 400)
    for v in (pdist(points), pdist(rnd), cdist(points, rnd).ravel()):
        assert_edges_clear(v, edges)
    res = twobody.xi(points, rnd, bins=6, range=(1.1, 30.1), **CPU)
    np.testing.assert_allclose(res.xi, (dd - 2 * dr + rr) / rr, rtol=1e-12)
    nat = twobody.xi(points, rnd, bins=6, range=(1.1, 30.1), estimator="natural", **CPU)
    np.testing.assert_allclose(nat.xi, dd / rr - 1, rtol=1e-12)
    np.testing.assert_array_equal(res.dd, np.histogram(pdist(points), bins=edges)[0])

    w, wr = np.resize([0.5, 2.0], 300), np.resize([1.0, 0.25], 400)
    wres = twobody.xi(points, rnd, bins=6, range=(1.1, 30.1), weights=w, random_weights=wr, **CPU)
    iu, ir = np.triu_indices(300, 1), np.triu_indices(400, 1)
    wdd = np.histogram(cdist(points, points)[iu], bins=edges, weights=np.outer(w, w)[iu])[0]
    wrr = np.histogram(cdist(rnd, rnd)[ir], bins=edges, weights=np.outer(wr, wr)[ir])[0]
    wdr = np.histogram(cdist(points, rnd).ravel(), bins=edges, weights=np.outer(w, wr).ravel())[0]
    tdd, trr = 0.5 * (w.sum() ** 2 - (w * w).sum()), 0.5 * (wr.sum() ** 2 - (wr * wr).sum())
    tdr = w.sum() * wr.sum()
    want = (wdd / tdd - 2 * wdr / tdr + wrr / trr) / (wrr / trr)
    np.testing.assert_allclose(wres.xi, want, rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# joins and kernel sums


def test_pairs_within_matches_cKDTree(points, points_b):
    eps = 4.5  # no distance equals eps (eps^2 = 20.25)
    ij = twobody.pairs_within(points, eps=eps, **CPU)
    assert ij.shape[1] == 2 and ij.dtype == np.uint32
    want = cKDTree(points).query_pairs(eps, output_type="ndarray")
    want = want[np.lexsort((want[:, 1], want[:, 0]))]
    np.testing.assert_array_equal(ij, want)  # sorted by (i, j), i < j
    ijc = twobody.pairs_within(points, points_b, eps=eps, **CPU)
    got = {(int(i), int(j)) for i, j in ijc}
    d = cdist(points, points_b)
    assert got == {(int(i), int(j)) for i, j in zip(*np.nonzero(d <= eps))}
    none = twobody.pairs_within(points, eps=0.5, **CPU)
    assert none.shape == (int((pdist(points) <= 0.5).sum()), 2)


def test_kernel_sums(points, points_b):
    h = 3.0
    k = np.exp(-cdist(points, points_b) ** 2 / (2 * h * h))
    assert twobody.kernel_sum(points, points_b, bandwidth=h, **CPU) == pytest.approx(k.sum(), rel=1e-12)
    ks = np.exp(-pdist(points) ** 2 / (2 * h * h))
    assert twobody.kernel_sum(points, bandwidth=h, **CPU) == pytest.approx(ks.sum(), rel=1e-12)
    per = twobody.kernel_sum(points, bandwidth=h, per_point=True, **CPU)
    full = np.exp(-cdist(points, points) ** 2 / (2 * h * h))
    np.testing.assert_allclose(per, full.sum(axis=1) - 1.0, rtol=1e-12)  # j != i
    per_b = twobody.kernel_sum(points, points_b, bandwidth=h, per_point=True, **CPU)
    np.testing.assert_allclose(per_b, k.sum(axis=1), rtol=1e-12)


def test_plan_says_what_runs(points):
    text = twobody.plan(points, bins=64, range=(0, 20))
    if twobody.gpu_available():
        assert "input" in text and "predicted" in text
    else:
        assert "CPU backend" in text


def test_search_options_give_the_same_answers(points, points_b):
    # On the CPU backend "grid" is its cell list, "brute" every pair; the GPU's grid is compared
    # with the CPU in test_gpu.py.
    brute = twobody.histogram(points, bins=8, range=(0.0, 8.1), search="brute", **CPU)
    for search in ("auto", "brute", "grid"):
        assert twobody.count_pairs(points, r=5.5, search=search, **CPU) == int((pdist(points) < 5.5).sum())
        assert twobody.count_pairs(points, points_b, r=5.5, box=32.0, search=search, **CPU) == int(
            (periodic_distances(points, points_b, [32.0] * 3) < 5.5).sum())
        h = twobody.histogram(points, bins=8, range=(0.0, 8.1), search=search, **CPU)
        assert h.pairs == 300 * 299 // 2 and h.counts.sum() + h.outside == h.pairs
        np.testing.assert_array_equal(h.counts, brute.counts)
    # Enough pairs (over 2^16) and cells (a 160^3 box, r = 5) that "auto" takes the cells.
    big = integer_points(3000, seed=21, hi=160, dtype=np.float32)
    tree = cKDTree(big.astype(np.float64))
    want = (tree.count_neighbors(tree, 5.5) - len(big)) // 2  # no integer distance is 5.5
    assert twobody.count_pairs(big, r=5.5, **CPU) == want
    g = twobody.rdf(big, box=160.0, r_max=5.5, bins=10, **CPU)  # edges at 0.55 k: no integer distance
    b = twobody.rdf(big, box=160.0, r_max=5.5, bins=10, search="brute", **CPU)
    np.testing.assert_array_equal(g.counts, b.counts)
    with pytest.raises(ValueError, match="search must be"):
        twobody.count_pairs(points, r=5.5, search="kdtree", **CPU)
    with pytest.raises(ValueError, match="search must be"):
        twobody.histogram(points, bins=8, range=(0.0, 8.1), search="kdtree", **CPU)
    with pytest.raises(ValueError, match="search='grid'"):
        twobody.count_pairs(points, r=5.5, weights=np.ones(len(points)), search="grid", **CPU)
    with pytest.raises(ValueError, match="search='grid'"):
        twobody.histogram(points, bins=8, range=(1.0, 8.1), search="grid", **CPU)
    with pytest.raises(ValueError, match="search= is not supported"):
        twobody.count_pairs(np.ones((10, 5), np.float32), r=5.5, search="grid", **CPU)  # high-dimensional
