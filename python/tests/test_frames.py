"""g(r) over trajectory frames (rdf_frames) on the CPU backend against per-frame NumPy
histograms of minimum-image distances and the single-set rdf; the GPU against the CPU backend
in test_gpu.py. Integer coordinates, with bin edges checked to lie away from every distance."""

import numpy as np
import pytest

import twobody

from conftest import assert_edges_clear

CPU = dict(backend="cpu")


def periodic_distances(a, b, box, self_pairs):
    d = np.abs(a[:, None, :] - b[None, :, :])
    d = np.minimum(d, np.asarray(box) - d)
    r = np.sqrt((d * d).sum(axis=2))
    return r[np.triu_indices(len(a), k=1)] if self_pairs else r.ravel()


def trajectory(frames, atoms, seed, hi=32, d=3):
    return np.random.default_rng(seed).integers(0, hi, size=(frames, atoms, d)).astype(np.float64)


def reference(frames_a, boxes, r_max, bins, frames_b=None):
    edges = np.linspace(0.0, r_max, bins + 1)
    counts, gs = [], []
    for f, a in enumerate(frames_a):
        b = a if frames_b is None else frames_b[f]
        dist = periodic_distances(a, b, boxes[f], frames_b is None)
        assert_edges_clear(dist, edges)
        counts.append(np.histogram(dist, bins=edges)[0])
        if (frames_b is None and len(a) >= 2) or (frames_b is not None and len(a) and len(b)):
            gs.append(twobody.rdf(a, None if frames_b is None else b, box=boxes[f], r_max=r_max, bins=bins, **CPU).g)
        else:
            gs.append(np.full(bins, np.nan))
    return np.array(counts), np.array(gs)


def test_frames_of_one_box_match_per_frame_histograms():
    x = trajectory(6, 90, 1)
    counts, gs = reference(x, [[32.0] * 3] * 6, 15.9, 10)
    res = twobody.rdf_frames(x, box=32.0, r_max=15.9, bins=10, per_frame=True, **CPU)
    assert np.array_equal(res.counts_per_frame, counts)
    assert np.array_equal(res.counts, counts.sum(axis=0))
    np.testing.assert_allclose(res.g_per_frame, gs, rtol=1e-12)
    np.testing.assert_allclose(res.g, gs.mean(axis=0), rtol=1e-12)
    # The summed form (one box, one size: no per-frame histograms kept) gives the same g(r).
    summed = twobody.rdf_frames(x, box=32.0, r_max=15.9, bins=10, **CPU)
    np.testing.assert_allclose(summed.g, res.g, rtol=1e-12)
    assert np.array_equal(summed.counts, res.counts) and summed.g_per_frame is None
    np.testing.assert_allclose(summed.r, 0.5 * (summed.edges[1:] + summed.edges[:-1]))


def test_changing_boxes_sizes_and_empty_frames():
    rng = np.random.default_rng(2)
    sizes = [40, 0, 1, 75, 2, 60]
    boxes = np.array([[32.0, 34.0, 36.0], [40.0] * 3, [33.0] * 3, [32.0, 32.0, 40.0], [35.0] * 3, [38.0, 33.0, 32.0]])
    frames = [rng.integers(0, 32, size=(n, 3)).astype(np.float32) for n in sizes]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    counts, gs = reference(frames, boxes, 15.9, 8)
    res = twobody.rdf_frames(np.concatenate(frames), offsets=offsets, box=boxes, r_max=15.9, bins=8, per_frame=True, **CPU)
    assert np.array_equal(res.counts_per_frame, counts)
    np.testing.assert_allclose(res.g_per_frame, gs, rtol=1e-6, equal_nan=True)
    used = ~np.isnan(gs).all(axis=1)
    np.testing.assert_allclose(res.g, gs[used].mean(axis=0), rtol=1e-6)


def test_two_species_per_frame():
    x = trajectory(4, 120, 3)
    types = np.random.default_rng(4).integers(0, 2, size=120)
    a, b = x[:, types == 0], x[:, types == 1]
    counts, gs = reference(a, [[32.0] * 3] * 4, 12.3, 6, frames_b=b)
    res = twobody.rdf_frames(a, frames_b=b, box=32.0, r_max=12.3, bins=6, per_frame=True, **CPU)
    assert np.array_equal(res.counts_per_frame, counts)
    np.testing.assert_allclose(res.g, gs.mean(axis=0), rtol=1e-12)


def test_two_dimensional_frames():
    x = trajectory(3, 100, 5, d=2)
    counts, _ = reference(x, [[32.0, 32.0]] * 3, 15.9, 5)
    res = twobody.rdf_frames(x, box=[32.0, 32.0], r_max=15.9, bins=5, per_frame=True, **CPU)
    assert np.array_equal(res.counts_per_frame, counts)


def test_frames_bad_input():
    x = trajectory(3, 20, 6)
    with pytest.raises(ValueError, match="past half the shortest box side"):
        twobody.rdf_frames(x, box=32.0, r_max=16.5, **CPU)
    with pytest.raises(ValueError, match="past half the shortest box side"):
        twobody.rdf_frames(x, box=[[32.0] * 3, [32.0] * 3, [20.0] * 3], r_max=12.0, **CPU)
    with pytest.raises(ValueError, match=r"\(3, 3\) array"):
        twobody.rdf_frames(x, box=np.full((2, 3), 32.0), r_max=10.0, **CPU)
    with pytest.raises(ValueError, match="finite and > 0"):
        twobody.rdf_frames(x, box=[32.0, -1.0, 32.0], r_max=10.0, **CPU)
    with pytest.raises(ValueError, match="offsets="):
        twobody.rdf_frames(x[0], box=32.0, r_max=10.0, **CPU)
    with pytest.raises(ValueError, match="end at the number of points"):
        twobody.rdf_frames(x.reshape(60, 3), offsets=[0, 20, 50], box=32.0, r_max=10.0, **CPU)
    with pytest.raises(ValueError, match="no frame has a pair"):
        twobody.rdf_frames(x[:, :1], box=32.0, r_max=10.0, **CPU)
    with pytest.raises(ValueError, match="frames_b"):
        twobody.rdf_frames(x, frames_b=x[:2], box=32.0, r_max=10.0, **CPU)
    with pytest.raises(ValueError, match="bins"):
        twobody.rdf_frames(x, box=32.0, r_max=10.0, bins=0, **CPU)


# ---------------------------------------------------------------------------------------------
# count_frames: pairs within r per frame, against NumPy minimum-image distances. Integer
# coordinates and a radius of a half-integer, so no squared distance lies at r^2.


def reference_counts(frames_a, boxes, r, frames_b=None):
    out = []
    for f, a in enumerate(frames_a):
        b = a if frames_b is None else frames_b[f]
        dist = periodic_distances(a, b, boxes[f], frames_b is None) if len(a) and len(b) else np.zeros(0)
        out.append(int((dist < r).sum()))
    return np.array(out, dtype=np.int64)


def test_count_frames_per_frame_and_summed():
    x = trajectory(6, 90, 11)
    want = reference_counts(x, [[32.0] * 3] * 6, 7.5)
    got = twobody.count_frames(x, box=32.0, r=7.5, **CPU)
    assert got.dtype == np.int64 and got.shape == (6,)
    np.testing.assert_array_equal(got, want)
    assert twobody.count_frames(x, box=32.0, r=7.5, per_frame=False, **CPU) == int(want.sum())
    assert want.min() > 0  # the data has pairs within r in every frame (not a test of zeros)


def test_count_frames_changing_boxes_empty_frames_and_species():
    rng = np.random.default_rng(12)
    sizes = [40, 0, 1, 75, 2, 60]
    boxes = np.array([[32.0, 34.0, 36.0], [40.0] * 3, [33.0] * 3, [32.0, 32.0, 40.0], [35.0] * 3, [38.0, 33.0, 32.0]])
    frames = [rng.integers(0, 32, size=(n, 3)).astype(np.float32) for n in sizes]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    got = twobody.count_frames(np.concatenate(frames), offsets=offsets, box=boxes, r=9.5, **CPU)
    np.testing.assert_array_equal(got, reference_counts(frames, boxes, 9.5))
    x = trajectory(4, 120, 13)
    types = np.random.default_rng(14).integers(0, 2, size=120)
    a, b = x[:, types == 0], x[:, types == 1]
    got = twobody.count_frames(a, frames_b=b, box=32.0, r=6.5, **CPU)
    np.testing.assert_array_equal(got, reference_counts(a, [[32.0] * 3] * 4, 6.5, frames_b=b))


def test_count_frames_bad_input():
    x = trajectory(3, 20, 15)
    with pytest.raises(ValueError, match="past half the shortest box side"):
        twobody.count_frames(x, box=32.0, r=16.5, **CPU)
    with pytest.raises(ValueError, match="finite and > 0"):
        twobody.count_frames(x, box=32.0, r=-1.0, **CPU)
    with pytest.raises(ValueError, match="finite and > 0"):
        twobody.count_frames(x, box=32.0, r=float("nan"), **CPU)
    with pytest.raises(ValueError, match="frames_b"):
        twobody.count_frames(x, frames_b=x[:2], box=32.0, r=5.0, **CPU)
