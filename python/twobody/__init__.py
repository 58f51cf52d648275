"""twobody: 2-body statistics on NVIDIA GPUs, with a CPU backend.

Every pair of points of one set (i < j), or of two sets (A x B), is evaluated exactly (no
neighbour lists, no approximations) and aggregated: pair counts within a radius, distance
histograms, the radial distribution function g(r), the 2-point correlation function xi(r),
similarity joins and Gaussian kernel sums.

Points are (n, D) arrays with D = 1, 2 or 3, float32 or float64: NumPy arrays (host), or
CuPy, PyTorch and JAX arrays on a GPU (read in place through DLPack). Results come back in the
caller's library, on the caller's device. Each function takes ``backend="auto"`` (the GPU
when there is one, else the CPU backend), ``"gpu"`` or ``"cpu"``, and ``stream=`` (a CUDA
stream of CuPy or PyTorch, or an int handle) for device arrays.

    >>> import numpy as np, twobody
    >>> x = np.random.default_rng(1).uniform(0, 10, (1000, 3))
    >>> n = twobody.count_pairs(x, r=1.0)                 # pairs closer than 1
    >>> h = twobody.histogram(x, bins=20, range=(0, 5))   # distance histogram
    >>> h.counts.sum() + h.outside == 1000 * 999 // 2
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from . import _arrays
from ._core import Error  # noqa: F401  (raised for CUDA failures and the library's checks)
from . import _core

__all__ = [
    "Error",
    "Histogram",
    "RDF",
    "Xi",
    "count_pairs",
    "histogram",
    "rdf",
    "xi",
    "pairs_within",
    "kernel_sum",
    "plan",
    "gpu_available",
    "unit_vectors",
]
__version__ = "0.1.0"

_BACKENDS = ("auto", "gpu", "cpu")


def gpu_available() -> bool:
    """True when a usable CUDA GPU is there; ``backend="auto"`` then runs on it."""
    return bool(_core.gpu_available())


def _backend(backend: str) -> str:
    if backend not in _BACKENDS:
        raise ValueError(f"twobody: backend must be one of {_BACKENDS}, not {backend!r}")
    return backend


def _sets(points, points_b, backend: str = "auto"):
    a = _arrays.as_points(points, "points")
    b = None if points_b is None else _arrays.as_points(points_b, "points_b")
    if backend == "cpu" and _arrays.on_device(a):
        raise ValueError("twobody: backend='cpu' reads host memory; these points are on a GPU "
                         "(use backend='auto' or 'gpu', or copy them to the host)")
    if b is not None:
        if _arrays.library_of(a) != _arrays.library_of(b):
            raise TypeError("twobody: both point sets must come from one array library")
        if a.shape[1] != b.shape[1]:
            raise ValueError(f"twobody: the point sets have {a.shape[1]} and {b.shape[1]} coordinates per point")
        if a.dtype != b.dtype:
            raise TypeError(f"twobody: the point sets have dtypes {a.dtype} and {b.dtype}; convert one")
    return a, b


def _weights(weights, weights_b, a, b):
    wa = _arrays.as_weights(weights, a, "weights")
    wb = None if b is None else _arrays.as_weights(weights_b, b, "weights_b")
    if b is not None and (wa is None) != (wb is None):
        raise ValueError("twobody: give weights for both point sets (weights= and weights_b=) or for neither")
    return wa, wb


def _box_sides(box, d: int):
    """The box sides as d floats (one number: a cube), each finite and > 0."""
    sides = [float(v) for v in np.atleast_1d(np.asarray(box, dtype=np.float64))]
    if len(sides) == 1 and d > 1:
        sides = sides * d
    if len(sides) != d:
        raise ValueError(f"twobody: the box needs one side per coordinate ({d}), not {len(sides)}")
    if not all(np.isfinite(s) and s > 0 for s in sides):
        raise ValueError("twobody: box sides must be finite and > 0")
    return sides


def _box(box, a, b, reach: Optional[float] = None):
    """The box sides, checked: points inside [0, L), and (for histograms) bins that end by half
    the shortest side, where the minimum image is unique."""
    if box is None:
        return None
    sides = _box_sides(box, a.shape[1])
    for x, name in ((a, "points"), (b, "points_b")):
        if x is None:
            continue
        lo, hi = _arrays.column_range(x)
        if np.any(lo < 0) or np.any(hi >= np.asarray(sides)):
            raise ValueError(f"twobody: {name} must lie in the box, 0 <= x < L on every axis "
                             "(wrap them first, e.g. x % L)")
    if reach is not None and reach > 0.5 * min(sides) * (1 + 1e-12):
        raise ValueError(f"twobody: the bins reach {reach}, past half the shortest box side ({0.5 * min(sides)}), "
                         "where the minimum-image distance is ambiguous; use a larger box or a smaller range")
    return sides


# ---------------------------------------------------------------------------------------------
# Counts


def count_pairs(points, points_b=None, *, r: float, box=None, weights=None, weights_b=None,
                backend: str = "auto", stream=None):
    """Number of pairs closer than ``r`` (the 2-point correlation function's DD(r)).

    Parameters
    ----------
    points, points_b : (n, D) arrays
        One set (pairs i < j) or two sets (every pair of A x B), in the same length unit.
    r : float
        Radius, in the points' length unit; a pair counts when |a - b| < r.
    box : float or sequence of D floats, optional
        Side lengths of an orthorhombic periodic box (minimum-image distances); points must lie
        in [0, L) on every axis.
    weights, weights_b : 1-D arrays, optional
        Per-point weights: the result is then the sum of w_i w_j over the counted pairs.

    Returns
    -------
    int, or float with weights.

    Pairs with a NaN coordinate never count. Example: ``twobody.count_pairs(x, r=2.5, box=10.0)``.
    """
    a, b = _sets(points, points_b, _backend(backend))
    wa, wb = _weights(weights, weights_b, a, b)
    sides = _box(box, a, b, reach=float(r))
    return _core.count_pairs(a, b, float(r), sides, wa, wb, _backend(backend), _arrays.stream_handle(stream))


# ---------------------------------------------------------------------------------------------
# Histograms


@dataclass
class Histogram:
    """A pair histogram.

    counts: per bin (int64/uint64 counts, float64 with weights), in the caller's array library;
        (r_p, pi) histograms are (bins_rp, bins_pi).
    edges: bin edges as a NumPy array ((rp_edges, pi_edges) for (r_p, pi) histograms).
    outside: pairs whose value fell outside the bins (or was NaN).
    pairs: pairs visited (counts.sum() + outside == pairs for unweighted sets).
    """

    counts: Any
    edges: Any
    outside: Any
    pairs: int


def histogram(points, points_b=None, *, bins=100, range=None, metric: str = "euclidean", scale: str = "linear",
              box=None, weights=None, weights_b=None, exact: bool = False, backend: str = "auto",
              stream=None) -> Histogram:
    """Histogram of a pair value over every pair.

    Parameters
    ----------
    metric : {"euclidean", "rp_pi", "angular"}
        "euclidean": the distance |a - b| (with ``box``: the minimum-image distance).
        "rp_pi": separations across and along the line of sight, the last axis (D = 3); ``bins``
        and ``range`` are then pairs: ``bins=(n_rp, n_pi)``, ``range=(rp_max, pi_max)``.
        "angular": the angle in radians between directions given as 3-D vectors (see
        ``unit_vectors``).
    bins : int
        Number of bins.
    range : (lo, hi)
        Bin range in the metric's unit (required). ``scale="log"`` needs lo > 0.
    scale : {"linear", "log"}
        Bins of equal width in the value, or in its logarithm (distances only).
    exact : bool
        Distance bins from 0 use the GPU's fast square root by default, so a distance within a
        few ulps of an edge may land in the neighbouring bin; ``exact=True`` bins IEEE
        distances (about twice as slow). Other bins are always IEEE.

    Returns
    -------
    Histogram

    Example: ``h = twobody.histogram(x, bins=50, range=(0, 5), box=10.0)``.
    """
    a, b = _sets(points, points_b, _backend(backend))
    wa, wb = _weights(weights, weights_b, a, b)
    if metric not in ("euclidean", "rp_pi", "angular"):
        raise ValueError(f"twobody: metric must be 'euclidean', 'rp_pi' or 'angular', not {metric!r}")
    if scale not in ("linear", "log"):
        raise ValueError(f"twobody: scale must be 'linear' or 'log', not {scale!r}")
    if range is None:
        raise ValueError("twobody: give the bin range, range=(lo, hi) (range=(rp_max, pi_max) for rp_pi)")
    hi_y, bins_y = 0.0, 0
    if metric == "rp_pi":
        try:
            n_x, n_y = (int(v) for v in bins)
            hi, hi_y = (float(v) for v in range)
        except (TypeError, ValueError):
            raise ValueError("twobody: rp_pi takes bins=(n_rp, n_pi) and range=(rp_max, pi_max)") from None
        lo, bins_x, bins_y = 0.0, n_x, n_y
    else:
        if not isinstance(bins, (int, np.integer)):
            raise TypeError("twobody: bins must be an int (the number of bins)")
        lo, hi = (float(v) for v in range)
        bins_x = int(bins)
    sides = _box(box, a, b, reach=hi)  # bins and range are checked by the core
    kind = {"euclidean": "distance", "rp_pi": "rp_pi", "angular": "angular"}[metric]
    counts, outside, pairs = _core.histogram(a, b, kind, scale, bool(exact), lo, hi, bins_x, hi_y, bins_y, sides,
                                             wa, wb, _backend(backend), _arrays.stream_handle(stream))
    if metric == "rp_pi":
        counts = np.ascontiguousarray(counts.reshape(bins_y, bins_x).T)
        edges = (np.linspace(0.0, hi, bins_x + 1), np.linspace(0.0, hi_y, bins_y + 1))
    elif scale == "log":
        edges = np.geomspace(lo, hi, bins_x + 1)
    else:
        edges = np.linspace(lo, hi, bins_x + 1)
    return Histogram(_arrays.like(counts, a), edges, outside, int(pairs))


# ---------------------------------------------------------------------------------------------
# Estimators


@dataclass
class RDF:
    """g(r): ``r`` bin centres, ``g`` per bin (NumPy), ``counts`` the pair histogram, ``edges``."""

    r: np.ndarray
    g: np.ndarray
    counts: Any
    edges: np.ndarray


def rdf(points, points_b=None, *, box, r_max: float, bins: int = 100, exact: bool = False,
        backend: str = "auto", stream=None) -> RDF:
    """Radial distribution function g(r) in a periodic box, normalised by the ideal-gas shell
    counts: g = counts / (pairs * shell volume / box volume), with pairs = n (n - 1) / 2 for one
    species and n_a n_b for two (A-B). ``r_max`` must not exceed half the shortest box side.

    Example: ``g = twobody.rdf(x, box=[20.0, 20.0, 20.0], r_max=10.0, bins=200).g``.
    """
    if box is None:
        raise ValueError("twobody: rdf needs the periodic box (box=L or box=[Lx, Ly, Lz])")
    h = histogram(points, points_b, bins=bins, range=(0.0, r_max), box=box, exact=exact, backend=backend,
                  stream=stream)
    a, b = _sets(points, points_b)
    sides = _box_sides(box, a.shape[1])  # the points were checked against the box by histogram()
    counts = np.asarray(_arrays.to_numpy(h.counts), dtype=np.float64)
    n_a = int(a.shape[0])
    n_b = -1 if b is None else int(b.shape[0])
    g = _core.radial_distribution(counts, float(r_max), int(bins), sides, n_a, n_b)
    r = 0.5 * (h.edges[1:] + h.edges[:-1])
    return RDF(r, np.asarray(g), h.counts, h.edges)


@dataclass
class Xi:
    """xi(r) from pair counts: ``xi`` per bin, ``r`` bin centres (geometric for log bins),
    ``edges``, and the raw pair counts ``dd``, ``dr``, ``rr`` (weighted sums with weights)."""

    xi: np.ndarray
    r: np.ndarray
    edges: np.ndarray
    dd: np.ndarray
    dr: np.ndarray
    rr: np.ndarray


def xi(data, randoms, *, bins: int, range, scale: str = "log", weights=None, random_weights=None,
       estimator: str = "landy-szalay", backend: str = "auto", stream=None) -> Xi:
    """Two-point correlation function xi(r) of ``data`` against ``randoms`` (a random catalogue
    of the same window), from the pair counts DD, DR and RR normalised by their pair totals:
    Landy-Szalay (DD - 2 DR + RR) / RR, or the natural estimator DD / RR - 1.

    Example: ``xi = twobody.xi(galaxies, randoms, bins=15, range=(0.5, 50.0)).xi``.
    """
    if estimator not in ("landy-szalay", "natural"):
        raise ValueError(f"twobody: estimator must be 'landy-szalay' or 'natural', not {estimator!r}")
    d, rnd = _sets(data, randoms)
    if (weights is None) != (random_weights is None):
        raise ValueError("twobody: give weights for both the data and the randoms, or for neither")
    kw = dict(bins=bins, range=range, scale=scale, backend=backend, stream=stream)
    dd = _arrays.to_numpy(histogram(d, weights=weights, **kw).counts).astype(np.float64)
    rr = _arrays.to_numpy(histogram(rnd, weights=random_weights, **kw).counts).astype(np.float64)
    dr = _arrays.to_numpy(histogram(d, rnd, weights=weights, weights_b=random_weights, **kw).counts).astype(np.float64)
    wd = None if weights is None else np.asarray(_arrays.to_numpy(_arrays.as_weights(weights, d, "weights")), np.float64)
    wr = None if random_weights is None else np.asarray(
        _arrays.to_numpy(_arrays.as_weights(random_weights, rnd, "random_weights")), np.float64)
    n_d, n_r = int(d.shape[0]), int(rnd.shape[0])
    dd_total = _core.self_pair_total(n_d) if wd is None else _core.self_pair_total_weighted(wd)
    rr_total = _core.self_pair_total(n_r) if wr is None else _core.self_pair_total_weighted(wr)
    dr_total = float(n_d) * n_r if wd is None else float(wd.sum()) * float(wr.sum())
    if dd_total <= 0 or rr_total <= 0 or dr_total <= 0:
        raise ValueError("twobody: xi needs at least two data points and two randoms (with positive weights)")
    dd_n, dr_n, rr_n = dd / dd_total, dr / dr_total, rr / rr_total
    if estimator == "natural":
        x = _core.xi_natural(dd_n, rr_n)
    else:
        x = _core.xi_landy_szalay(dd_n, dr_n, rr_n)
    lo, hi = (float(v) for v in range)
    edges = np.geomspace(lo, hi, bins + 1) if scale == "log" else np.linspace(lo, hi, bins + 1)
    r = np.sqrt(edges[1:] * edges[:-1]) if scale == "log" else 0.5 * (edges[1:] + edges[:-1])
    return Xi(np.asarray(x), r, edges, dd, dr, rr)


# ---------------------------------------------------------------------------------------------
# Joins and kernel sums


def pairs_within(points, points_b=None, *, eps: float, sort: bool = True, backend: str = "auto", stream=None):
    """The similarity join: every pair with |a_i - b_j| <= eps, as an (m, 2) array of indices
    (i, j) (one set: each pair once with i < j).

    Indices are uint32 (int64 for PyTorch); device inputs give a device result, which is never
    copied to the host. ``sort=True`` orders the pairs by (i, j) (the GPU's order is otherwise
    unspecified). A pair with a NaN coordinate never joins.

    Example: ``ij = twobody.pairs_within(x, eps=0.1)``.
    """
    a, b = _sets(points, points_b, _backend(backend))
    out = _core.pairs_within(a, b, float(eps), bool(sort), _backend(backend), _arrays.stream_handle(stream))
    if isinstance(out, np.ndarray):
        return out if _arrays.library_of(a) == "numpy" else _arrays.like(out, a)
    return _arrays.from_device(out, a)


def kernel_sum(points, points_b=None, *, bandwidth: float, per_point: bool = False, backend: str = "auto",
               stream=None):
    """Gaussian kernel sums, k(a, b) = exp(-|a - b|^2 / (2 h^2)) with h = ``bandwidth``.

    ``per_point=False``: the sum over all pairs (one set: i < j; two sets: A x B), a float.
    ``per_point=True``: for every point a_i the sum over its partners (every b_j, or every a_j
    with j != i), an array (the unnormalised kernel density at each point).

    Example: ``density = twobody.kernel_sum(x, bandwidth=0.5, per_point=True)``.
    """
    a, b = _sets(points, points_b, _backend(backend))
    out = _core.kernel_sum(a, b, float(bandwidth), bool(per_point), _backend(backend), _arrays.stream_handle(stream))
    return _arrays.like(out, a) if per_point else float(out)


# ---------------------------------------------------------------------------------------------
# Plans and helpers


def plan(points, points_b=None, *, bins: int = 100, range=None, box=None) -> str:
    """The cost model's choice for a distance histogram of these points (input policy, private
    copies, occupancy, predicted time), as the GPU would run it; on a machine without a GPU it
    says that the CPU backend would run.

    Example: ``print(twobody.plan(x, bins=256, range=(0, 10)))``.
    """
    a, b = _sets(points, points_b)
    if range is None:
        raise ValueError("twobody: give the bin range, range=(0, r_max)")
    lo, hi = (float(v) for v in range)
    sides = _box(box, a, b, reach=hi)
    return _core.plan_histogram(a, b, hi, int(bins), sides)


def unit_vectors(ra, dec, degrees: bool = True) -> np.ndarray:
    """(n, 3) unit vectors from right ascension and declination (degrees by default), for
    ``histogram(..., metric="angular")``."""
    ra = np.asarray(ra, dtype=np.float64)
    dec = np.asarray(dec, dtype=np.float64)
    if degrees:
        ra, dec = np.radians(ra), np.radians(dec)
    c = np.cos(dec)
    return np.stack([c * np.cos(ra), c * np.sin(ra), np.sin(dec)], axis=1)
