"""twobody: 2-body statistics on NVIDIA GPUs, with a CPU backend.

Every pair of points of one set (i < j), or of two sets (A x B), is evaluated exactly (no
neighbour lists, no approximations) and aggregated: pair counts within a radius, distance
histograms, the radial distribution function g(r), the 2-point correlation function xi(r),
similarity joins and Gaussian kernel sums. Pair functions of your own, written as CUDA C++
source (``Functor``), are compiled at run time into the same kernels.

Points are (n, D) arrays: NumPy arrays (host), or CuPy, PyTorch and JAX arrays on a GPU (read
in place through DLPack). With D = 1, 2 or 3 they may be float32 or float64. More coordinates
(embeddings, descriptors: any D), float16 or bfloat16 points, ``knn`` and cosine distances go
through the high-dimensional statistics (tensor cores on the GPU, exact answers), which take
float32, float16, bfloat16 or float64 (on the GPU float64 runs in float32 on the CUDA cores, its
answers exact too). Results come back in the caller's library, on the caller's device.
Each function takes ``backend="auto"`` (the GPU when there is one, else the CPU backend),
``"gpu"`` or ``"cpu"``, and ``stream=`` (a CUDA stream of CuPy or PyTorch, or an int handle)
for device arrays.

    >>> import numpy as np, twobody
    >>> x = np.random.default_rng(1).uniform(0, 10, (1000, 3))
    >>> n = twobody.count_pairs(x, r=1.0)                 # pairs closer than 1
    >>> h = twobody.histogram(x, bins=20, range=(0, 5))   # distance histogram
    >>> h.counts.sum() + h.outside == 1000 * 999 // 2
    True
"""

from __future__ import annotations

import builtins
import sys
import warnings
from dataclasses import dataclass
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from . import _arrays
from ._core import ArgumentError, Error  # noqa: F401  (the library's checks; CUDA failures)
from . import _core
from ._functor import Functor

__all__ = [
    "Error",
    "ArgumentError",
    "Functor",
    "pair_sum",
    "Histogram",
    "RDF",
    "Xi",
    "count_pairs",
    "histogram",
    "rdf",
    "rdf_frames",
    "RDFFrames",
    "count_frames",
    "xi",
    "pairs_within",
    "kernel_sum",
    "knn",
    "Neighbors",
    "plan",
    "gpu_available",
    "unit_vectors",
]
__version__ = "0.1.0"

_BACKENDS = ("auto", "gpu", "cpu")


def gpu_available() -> bool:
    """True when a usable CUDA GPU is there; ``backend="auto"`` then runs on it."""
    return bool(_core.gpu_available())


_told_cpu_fallback = False


def _backend(backend: str, fallback: bool = True) -> str:
    """The backend a call runs on: "auto" becomes "cpu" without a usable GPU (said once), except
    for the GPU-only calls (fallback=False: Functors), which then say that they need a GPU."""
    global _told_cpu_fallback
    if backend not in _BACKENDS:
        raise ValueError(f"twobody: backend must be one of {_BACKENDS}, not {backend!r}")
    if backend == "auto" and fallback and not _core.gpu_available():
        if not _told_cpu_fallback:
            _told_cpu_fallback = True
            print(f"twobody: no usable CUDA GPU ({_core.gpu_reason()}); running on the CPU backend "
                  '(pass backend="cpu" to choose it without this notice)', file=sys.stderr)
        return "cpu"
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
    for w, name in ((wa, "weights"), (wb, "weights_b")):
        if w is not None and _arrays.any_nan(w):
            warnings.warn(f"twobody: {name} holds NaN: every weighted sum it enters is NaN", RuntimeWarning,
                          stacklevel=3)
    return wa, wb


def _high_dimensional(a, metric: str = "euclidean", force: bool = False) -> bool:
    """Whether a call goes through the high-dimensional (row) statistics: more than 3
    coordinates, float16/bfloat16 points, a metric other than Euclidean, or a caller's choice."""
    return force or a.shape[1] > 3 or _arrays.dtype_name(a) not in ("float32", "float64") or metric != "euclidean"


def _no_row_options(what: str, **given):
    """Options the high-dimensional statistics do not take: a clear error instead of ignoring them."""
    for name, value in given.items():
        if value is not None and value is not False:
            raise ValueError(f"twobody: {name}= is not supported by {what} of high-dimensional or float16/bfloat16 "
                             "points (D > 3, float16/bfloat16, knn, metric='cosine')")


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


def _out_of_core(memory_budget, devices, block_points, progress, what: str, **refused):
    """The out-of-core arguments as the core takes them, or None for an in-core call."""
    if memory_budget is None and devices is None and block_points is None:
        return None
    given = sorted(k for k, v in refused.items() if v)
    if given:
        raise ValueError(f"twobody: out-of-core runs of {what} take no {', '.join(given)}")
    if isinstance(devices, str):
        if devices != "all":
            raise ValueError("twobody: devices must be 'all' or a list of device numbers")
        devices = []
    elif devices is not None:
        devices = [int(d) for d in devices]
        if not devices:
            raise ValueError("twobody: devices must name at least one device (or be 'all')")
    return (int(memory_budget or 0), devices, int(block_points or 0), progress)


def _reporting(progress, call, unit: str = "pair"):
    """Runs call() with progress=True (a bar) or a callable progress(done, total) receiving the
    reports of an in-core call, about every 0.1 s on either backend. Ctrl-C stops the call at its
    next report."""
    callback, bar = _progress_bar(progress, unit=unit)
    _core.set_progress(callback)
    try:
        return call()
    finally:
        _core.set_progress(None)
        if bar is not None:
            bar.close()


def _run_out_of_core(ooc, call):
    """Runs call(memory_budget, devices, block_points, callback) with the progress bar of ooc."""
    budget, devices, block_points, progress = ooc
    callback, bar = _progress_bar(progress, unit="block pair")
    try:
        return call(budget, devices, block_points, callback)
    finally:
        if bar is not None:
            bar.close()


def count_pairs(points, points_b=None, *, r: Optional[float] = None, box=None, weights=None, weights_b=None,
                search: str = "auto", functor: Optional[Functor] = None, memory_budget: Optional[int] = None,
                devices=None, block_points: Optional[int] = None, progress=None, backend: str = "auto", stream=None):
    """Number of pairs closer than ``r`` (the 2-point correlation function's DD(r)), or for which
    ``functor`` (a ``Functor`` returning bool) is true.

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
    search : {"auto", "brute", "grid"}
        How the pairs closer than r are found: "grid" builds a grid of cell side r (periodic
        with ``box``; on the GPU a grid index, on the CPU a cell list) and visits only
        neighbouring cells, "brute" evaluates every pair, "auto" takes the grid where the cells'
        neighbourhoods cover little of the data (and at least 2^24 pairs on the GPU, 2^16 on
        the CPU). The count is the same either way. Weighted counts evaluate every pair.
    functor : Functor, optional
        A predicate of your own instead of ``r`` (GPU only; no ``box``, every pair evaluated),
        e.g. ``Functor("bool", "return fabsf(a.x[2] - b.x[2]) < dz && dist2(a, b) < r * r;",
        {"dz": 1.0, "r": 5.0})``.
    memory_budget, devices, block_points, progress
        Out-of-core runs, for NumPy sets larger than the GPU (or spread over several GPUs), when
        any of the first three is given: the sets are cut into blocks of ``block_points`` points
        (default: from the budget), and block pairs run one after the other while the next
        blocks are copied. ``memory_budget`` is the
        device memory in bytes the resident blocks may use (0: a quarter of the free memory),
        ``devices`` the GPUs to spread the block pairs over ("all" or a list of device numbers).
        Out of core, ``progress`` is called after each block pair. Every pair is evaluated (no
        grid), unweighted, GPU only.
    progress : bool or callable, optional
        True shows a bar (tqdm if installed, else a line on stderr); a callable is called as
        ``progress(done, total)``. In core, the call reports the pairs done about every 0.1 s
        on either backend, and Ctrl-C stops it there (KeyboardInterrupt).

    Returns
    -------
    int, or float with weights.

    Pairs with a NaN coordinate never count. High-dimensional points (D > 3, or float16/bfloat16)
    are counted exactly on the tensor cores (no box or weights there). Example:
    ``twobody.count_pairs(x, r=2.5, box=10.0)``.
    """
    a, b = _sets(points, points_b, _backend(backend))
    if functor is not None:
        if r is not None or box is not None or search == "grid":
            raise ValueError("twobody: count_pairs takes either functor= or r= (with box= and search=), not both")
        _functor_points(a, "count_pairs")
        wa, wb = _weights(weights, weights_b, a, b)
        return _core.functor_count(_program(functor), functor._values(), a, b, wa, wb, _backend(backend, fallback=False),
                                   _arrays.stream_handle(stream))
    if r is None:
        raise TypeError("twobody: count_pairs needs r= (the radius) or functor=")
    ooc = _out_of_core(memory_budget, devices, block_points, progress, "count_pairs", cpu_backend=backend == "cpu",
                       weights=weights is not None,
                       weights_b=weights_b is not None, search_grid=search == "grid",
                       high_dimensional_points=_high_dimensional(a))
    if ooc is not None:
        sides = _box(box, a, b, reach=float(r))
        return _run_out_of_core(ooc, lambda *o: _core.count_pairs_out_of_core(a, b, float(r), sides, *o))
    if _high_dimensional(a):
        _no_row_options("count_pairs", box=box, weights=weights, weights_b=weights_b, search=search == "grid")
        return _reporting(progress, lambda: _core.rows_count_pairs(a, b, float(r), _backend(backend),
                                                                   _arrays.stream_handle(stream)))
    wa, wb = _weights(weights, weights_b, a, b)
    sides = _box(box, a, b, reach=float(r))
    return _reporting(progress, lambda: _core.count_pairs(a, b, float(r), sides, wa, wb, search, _backend(backend),
                                                          _arrays.stream_handle(stream)))


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


def _one_axis_bins(bins, range, form: str = "range=(lo, hi)"):
    """(bins, lo, hi) of a histogram of one value: an int number of bins and the range, checked
    for being there (the core checks their values)."""
    if range is None:
        raise ValueError(f"twobody: give the bin range, {form}")
    if not isinstance(bins, (int, np.integer)):
        raise TypeError("twobody: bins must be an int (the number of bins)")
    lo, hi = (float(v) for v in range)
    return int(bins), lo, hi


def _edges(lo: float, hi: float, bins: int, scale: str = "linear") -> np.ndarray:
    """The bin edges of ``bins`` bins over [lo, hi), equal in the value or in its logarithm."""
    return np.geomspace(lo, hi, bins + 1) if scale == "log" else np.linspace(lo, hi, bins + 1)


def histogram(points, points_b=None, *, bins=100, range=None, metric="euclidean", scale: str = "linear",
              box=None, weights=None, weights_b=None, exact: bool = False, search: str = "auto",
              memory_budget: Optional[int] = None, devices=None, block_points: Optional[int] = None, progress=None,
              backend: str = "auto", stream=None) -> Histogram:
    """Histogram of a pair value over every pair.

    Parameters
    ----------
    metric : {"euclidean", "sqeuclidean", "rp_pi", "angular"} or Functor
        "euclidean": the distance |a - b| (with ``box``: the minimum-image distance).
        "sqeuclidean": the squared distance |a - b|^2, in linear bins (open box).
        A ``Functor`` returning float or double: its value (GPU only; linear or log bins, no
        ``box``), e.g. ``Functor("float", "return fabsf(a.x[2] - b.x[2]);")``.
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
    search : {"auto", "brute", "grid"}
        For distance bins from 0 (linear, not exact, unweighted): "grid" visits only the pairs
        in neighbouring cells of a grid of cell side ``range[1]`` (periodic with ``box``),
        "brute" every pair, "auto" the grid where it pays (on either backend, as for
        ``count_pairs``). The histogram, ``outside`` and ``pairs`` are the same either way.
    memory_budget, devices, block_points, progress
        Out-of-core runs of distance histograms with linear bins from 0 (open or periodic box,
        unweighted, not exact), for NumPy sets larger than the GPU: see ``count_pairs``.

    High-dimensional points (D > 3, or float16/bfloat16) take Euclidean distances in linear
    bins, binned exactly (every pair in the bin of its correctly rounded float32 distance).

    Returns
    -------
    Histogram

    Example: ``h = twobody.histogram(x, bins=50, range=(0, 5), box=10.0)``.
    """
    a, b = _sets(points, points_b, _backend(backend))
    if isinstance(metric, Functor):
        _functor_points(a, "histogram")
        if box is not None or exact or search == "grid":
            raise ValueError("twobody: a Functor metric takes no box=, exact= or search='grid'")
        n, lo, hi = _one_axis_bins(bins, range)
        wa, wb = _weights(weights, weights_b, a, b)
        counts, outside, pairs = _core.functor_histogram(_program(metric), metric._values(), a, b, wa, wb, lo, hi, n,
                                                         scale, _backend(backend, fallback=False), _arrays.stream_handle(stream))
        return Histogram(_arrays.like(counts, a), _edges(lo, hi, n, scale), outside, int(pairs))
    ooc = _out_of_core(memory_budget, devices, block_points, progress, "histogram", cpu_backend=backend == "cpu",
                       weights=weights is not None, weights_b=weights_b is not None, exact=bool(exact),
                       search_grid=search == "grid", high_dimensional_points=_high_dimensional(a),
                       other_metrics=metric != "euclidean", log_scale=scale != "linear",
                       range_from_other_than_0=range is not None and float(range[0]) != 0.0)
    if ooc is not None:
        n, _, hi = _one_axis_bins(bins, range, "range=(0, r_max)")
        sides = _box(box, a, b, reach=hi)
        counts, outside, pairs = _run_out_of_core(ooc, lambda *o: _core.histogram_out_of_core(a, b, hi, n, sides, *o))
        return Histogram(counts, _edges(0.0, hi, n), outside, int(pairs))
    if _high_dimensional(a):
        if metric != "euclidean" or scale != "linear":
            raise ValueError("twobody: high-dimensional or float16/bfloat16 points take metric='euclidean' and "
                             "scale='linear' histograms")
        _no_row_options("histogram", box=box, weights=weights, weights_b=weights_b, search=search == "grid")
        n, lo, hi = _one_axis_bins(bins, range)
        counts, outside, pairs = _reporting(progress, lambda: _core.rows_histogram(a, b, lo, hi, n, _backend(backend),
                                                                                   _arrays.stream_handle(stream)))
        return Histogram(_arrays.like(counts, a), _edges(lo, hi, n), outside, int(pairs))
    wa, wb = _weights(weights, weights_b, a, b)
    if metric not in ("euclidean", "sqeuclidean", "rp_pi", "angular"):
        raise ValueError(f"twobody: metric must be 'euclidean', 'sqeuclidean', 'rp_pi' or 'angular', not {metric!r}")
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
    kind = {"euclidean": "distance", "sqeuclidean": "sqdistance", "rp_pi": "rp_pi", "angular": "angular"}[metric]
    use_grid = metric == "euclidean" and scale == "linear" and lo == 0.0 and not exact and wa is None
    if search != "auto" and search not in ("brute", "grid"):
        raise ValueError(f"twobody: search must be 'auto', 'brute' or 'grid', not {search!r}")
    counts, outside, pairs = _reporting(progress, lambda: _core.histogram(
        a, b, kind, scale, bool(exact), lo, hi, bins_x, hi_y, bins_y, sides, wa, wb,
        search if use_grid or search == "grid" else "brute", _backend(backend), _arrays.stream_handle(stream)))
    if metric == "rp_pi":
        counts = np.ascontiguousarray(counts.reshape(bins_y, bins_x).T)
        edges = (np.linspace(0.0, hi, bins_x + 1), np.linspace(0.0, hi_y, bins_y + 1))
    else:
        edges = _edges(lo, hi, bins_x, scale)
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
        search: str = "auto", memory_budget: Optional[int] = None, devices=None, block_points: Optional[int] = None,
        progress=None, backend: str = "auto", stream=None) -> RDF:
    """Radial distribution function g(r) in a periodic box, normalised by the ideal-gas shell
    counts: g = counts / (pairs * shell volume / box volume), with pairs = n (n - 1) / 2 for one
    species and n_a n_b for two (A-B). ``r_max`` must not exceed half the shortest box side.

    ``search`` is as for ``histogram``: "auto" takes a periodic grid of cell side r_max where
    it pays (r_max well below half the box), which visits only the pairs that can be closer.
    ``memory_budget``, ``devices``, ``block_points`` and ``progress`` run it out of core, as
    ``count_pairs`` says.

    Example: ``g = twobody.rdf(x, box=[20.0, 20.0, 20.0], r_max=10.0, bins=200).g``.
    """
    if box is None:
        raise ValueError("twobody: rdf needs the periodic box (box=L or box=[Lx, Ly, Lz])")
    a, b = _sets(points, points_b)
    if a.shape[1] > 3:
        raise ValueError(f"twobody: rdf takes points of 1 to 3 coordinates in a periodic box, not {a.shape[1]}")
    if (b is None and a.shape[0] < 2) or (b is not None and (a.shape[0] < 1 or b.shape[0] < 1)):
        raise ValueError("twobody: rdf needs at least one pair (two points, or one of each species): g(r) divides "
                         "the counts by the number of pairs")
    stray = _arrays.nan_rows(a) + (0 if b is None else _arrays.nan_rows(b))
    if stray:
        warnings.warn(f"twobody: {stray} points have NaN coordinates: their pairs are not counted, but g(r) is "
                      "normalised by all points (drop them first to normalise by the rest)", RuntimeWarning,
                      stacklevel=2)
    h = histogram(points, points_b, bins=bins, range=(0.0, r_max), box=box, exact=exact, search=search,
                  memory_budget=memory_budget, devices=devices, block_points=block_points, progress=progress,
                  backend=backend, stream=stream)
    sides = _box_sides(box, a.shape[1])  # the points were checked against the box by histogram()
    counts = np.asarray(_arrays.to_numpy(h.counts), dtype=np.float64)
    n_a = int(a.shape[0])
    n_b = -1 if b is None else int(b.shape[0])
    g = _core.radial_distribution(counts, float(r_max), int(bins), sides, n_a, n_b)
    r = 0.5 * (h.edges[1:] + h.edges[:-1])
    return RDF(r, np.asarray(g), h.counts, h.edges)


@dataclass
class RDFFrames:
    """g(r) over the frames of a trajectory: ``r`` bin centres, ``g`` the mean of the frames' g(r)
    (each with its own box and size; frames without pairs left out), ``counts`` the histogram
    summed over the frames, ``edges``; with ``per_frame=True`` also ``g_per_frame`` and
    ``counts_per_frame`` ((F, bins) NumPy arrays; NaN rows for frames without pairs)."""

    r: np.ndarray
    g: np.ndarray
    counts: np.ndarray
    edges: np.ndarray
    g_per_frame: Optional[np.ndarray] = None
    counts_per_frame: Optional[np.ndarray] = None


def _frames(x, offsets, name: str):
    """A trajectory as (points (total, D), offsets (F + 1) ints): an (F, N, D) array, or a
    (total, D) array cut by ``offsets``."""
    if x is None:
        raise TypeError(f"twobody: {name} is None; pass an (F, N, D) array or a (total, D) array with offsets")
    if offsets is None:
        if _arrays.library_of(x) == "other":
            x = np.asarray(x)
        if x.ndim != 3:
            raise ValueError(f"twobody: {name} must be an (F, N, D) array of frames, or a (total, D) array with "
                             f"offsets=, not {x.ndim}-dimensional")
        f, n, d = (int(v) for v in x.shape)
        return _arrays.as_points(x.reshape(f * n, d), name), [n * k for k in builtins.range(f + 1)]
    o = np.asarray(_arrays.to_numpy(offsets)).astype(np.int64, copy=False).ravel()
    return _arrays.as_points(x, name), [int(v) for v in o]


def _frame_boxes(box, frames: int, d: int):
    """F x D box sides (one number, D sides, or an (F, D) array), each finite and > 0."""
    b = np.asarray(_arrays.to_numpy(box), dtype=np.float64)
    if b.ndim <= 1:
        b = np.broadcast_to(np.asarray(_box_sides(b, d)), (frames, d))
    if b.shape != (frames, d):
        raise ValueError(f"twobody: the boxes must be one number, {d} sides, or an ({frames}, {d}) array, "
                         f"not of shape {b.shape}")
    if not np.all(np.isfinite(b) & (b > 0)):
        raise ValueError("twobody: box sides must be finite and > 0")
    return np.ascontiguousarray(b)


def _frame_arguments(frames, offsets, frames_b, offsets_b, box, backend: str):
    """The frames of rdf_frames / count_frames, checked: (a, offsets_a, b or None, offsets_b or
    None, F x D boxes)."""
    a, oa = _frames(frames, offsets, "frames")
    b, ob = (None, None) if frames_b is None else _frames(frames_b, offsets_b, "frames_b")
    if b is not None and len(ob) != len(oa):
        raise ValueError(f"twobody: frames has {len(oa) - 1} frames and frames_b {len(ob) - 1}")
    _sets(a, b, _backend(backend))
    return a, oa, b, ob, _frame_boxes(box, len(oa) - 1, int(a.shape[1]))


def _frame_reach(value, boxes, name: str) -> float:
    """A distance the frames' statistic reaches (r_max, r): finite, > 0, and at most half the
    shortest side of any frame's box (past it the minimum image is ambiguous)."""
    value = float(value)
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"twobody: {name} must be finite and > 0")
    if value > 0.5 * boxes.min() * (1 + 1e-12):
        raise ValueError(f"twobody: {name} = {value} is past half the shortest box side of a frame "
                         f"({0.5 * boxes.min()}), where the minimum-image distance is ambiguous")
    return value


def _progress_bar(progress, unit: str = "frame"):
    """The callback the core calls as a long run goes on (between runs of frames, after each block
    pair): the caller's own, tqdm's, or a line."""
    if progress is None or progress is False:
        return None, None
    if callable(progress):
        return progress, None
    try:
        from tqdm.auto import tqdm

        bar = tqdm(total=None, unit=unit, desc="twobody")

        def update(done, total):
            bar.total = total
            bar.n = done
            bar.refresh()

        return update, bar
    except ImportError:
        import sys

        def line(done, total):
            end = "\n" if done == total else ""
            print(f"\rtwobody: {done}/{total} {unit}s", end=end, file=sys.stderr, flush=True)

        return line, None


def rdf_frames(frames, *, box, r_max: float, bins: int = 100, offsets=None, frames_b=None, offsets_b=None,
               per_frame: bool = False, exact: bool = False, progress=None, chunk_points: Optional[int] = None,
               backend: str = "auto", stream=None) -> RDFFrames:
    """g(r) over the frames of a trajectory in a periodic box, in one launch for all frames.

    Parameters
    ----------
    frames : (F, N, D) array, or (total, D) with ``offsets``
        The frames' coordinates (D = 1, 2 or 3, float32 or float64), each frame in its box:
        0 <= x < L. With ``offsets`` (F + 1 non-decreasing ints from 0 to total), frame f is
        rows offsets[f] to offsets[f + 1] - 1, so frames may differ in size (or be empty).
    box : float, D sides, or (F, D) array
        The periodic box, the same for every frame or one per frame (NPT runs).
    r_max, bins : float, int
        Bins of equal width from 0 to r_max, which must not exceed half the shortest side of
        any frame's box.
    frames_b, offsets_b : optional
        A second species in the same form (as many frames): g_AB(r) of the pairs A x B in each
        frame, e.g. ``frames=x[:, types == 0], frames_b=x[:, types == 1]``.
    per_frame : bool
        Also return each frame's g(r) and histogram.
    exact : bool
        IEEE distances and edges instead of the fast square root (see ``histogram``).
    progress : bool or callable, optional
        ``True`` shows a progress bar (tqdm if installed, else a line on stderr); a callable is
        called as progress(frames_done, frames). Host trajectories go to the GPU in runs of
        ``chunk_points`` points (default 2^24), copied while the run before computes; progress
        and Ctrl-C are taken between runs (the CPU backend: every 0.1 s, in frames).

    Returns
    -------
    RDFFrames

    Example: ``res = twobody.rdf_frames(traj, box=boxes, r_max=10.0, bins=200)`` with ``traj``
    of shape (frames, atoms, 3) and ``boxes`` of shape (frames, 3).
    """
    a, oa, b, ob, boxes = _frame_arguments(frames, offsets, frames_b, offsets_b, box, backend)
    d, f = int(a.shape[1]), len(oa) - 1
    if not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError("twobody: bins must be an int >= 1")
    r_max = _frame_reach(r_max, boxes, "r_max")
    n_a = np.diff(np.asarray(oa, dtype=np.int64))
    n_b = None if b is None else np.diff(np.asarray(ob, dtype=np.int64))
    has_pairs = n_a >= 2 if b is None else (n_a >= 1) & (n_b >= 1)
    if not has_pairs.any():
        raise ValueError("twobody: no frame has a pair (each frame needs two points, or one of each species)")
    # One box and one size for every frame: the mean of the frames' g(r) is the g(r) of the summed
    # histogram over F, so the core sums (bins values) instead of keeping F histograms.
    alike = (boxes == boxes[0]).all() and (n_a == n_a[0]).all() and (n_b is None or (n_b == n_b[0]).all())
    keep = per_frame or not alike
    callback, bar = _progress_bar(progress)
    _core.set_progress(callback)  # the CPU backend's reports (frames); GPU runs report through callback
    try:
        counts, _ = _core.rdf_frames(a, oa, b, ob, boxes.ravel().tolist(), r_max, int(bins), keep, bool(exact),
                                     int(chunk_points or 0), callback, _backend(backend), _arrays.stream_handle(stream))
    finally:
        _core.set_progress(None)
        if bar is not None:
            bar.close()

    def g_of(c, rows, first=0):
        nb_ = [] if n_b is None else n_b[first:first + rows].tolist()
        return _core.radial_distribution_frames(c.ravel().tolist(), r_max, int(bins),
                                                boxes[first:first + rows].ravel().tolist(), d,
                                                n_a[first:first + rows].tolist(), nb_).reshape(rows, int(bins))

    edges = np.linspace(0.0, r_max, int(bins) + 1)
    r = 0.5 * (edges[1:] + edges[:-1])
    if not keep:
        return RDFFrames(r, g_of(counts, 1)[0] / f, counts, edges)
    counts = counts.reshape(f, int(bins))
    g = g_of(counts, f)
    out = RDFFrames(r, g[has_pairs].mean(axis=0), counts.sum(axis=0), edges)
    if per_frame:
        out.g_per_frame, out.counts_per_frame = g, counts
    return out


def count_frames(frames, *, box, r: float, offsets=None, frames_b=None, offsets_b=None, per_frame: bool = True,
                 progress=None, chunk_points: Optional[int] = None, backend: str = "auto", stream=None):
    """Pairs closer than ``r`` (minimum image in each frame's periodic box) in every frame of a
    trajectory, in one launch for all frames: neighbour counts, coordination numbers, contacts.

    Parameters
    ----------
    frames, offsets, box, frames_b, offsets_b, progress, chunk_points
        As in ``rdf_frames``: (F, N, D) frames or (total, D) with offsets; one box or one per
        frame; a second species counts the pairs A x B of each frame.
    r : float
        A pair counts when its minimum-image distance is < r; r must not exceed half the
        shortest side of any frame's box.
    per_frame : bool
        True: an (F,) int64 array of each frame's count. False: their sum, as an int.

    Example: ``n = twobody.count_frames(traj, box=boxes, r=3.5)`` gives the pairs within 3.5 in
    each frame; ``2 * n / atoms`` is the mean coordination number of each frame.
    """
    a, oa, b, ob, boxes = _frame_arguments(frames, offsets, frames_b, offsets_b, box, backend)
    r = _frame_reach(r, boxes, "r")
    callback, bar = _progress_bar(progress)
    _core.set_progress(callback)  # the CPU backend's reports (frames); GPU runs report through callback
    try:
        return _core.count_frames(a, oa, b, ob, boxes.ravel().tolist(), r, bool(per_frame), int(chunk_points or 0),
                                  callback, _backend(backend), _arrays.stream_handle(stream))
    finally:
        _core.set_progress(None)
        if bar is not None:
            bar.close()


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


def pairs_within(points, points_b=None, *, eps: Optional[float] = None, metric: str = "euclidean",
                 return_distances: bool = False, sort: bool = True, functor: Optional[Functor] = None,
                 progress=None, backend: str = "auto", stream=None):
    """The similarity join: every pair with |a_i - b_j| <= eps, as an (m, 2) array of indices
    (i, j) (one set: each pair once with i < j).

    Indices are uint32 (int64 for PyTorch); device inputs give a device result, which is never
    copied to the host. ``sort=True`` orders the pairs by (i, j) (the GPU's order is otherwise
    unspecified). A pair with a NaN coordinate never joins.

    ``metric="cosine"`` joins on the cosine distance 1 - cos(a, b) instead. High-dimensional
    points (D > 3, float16/bfloat16), ``metric="cosine"`` and ``return_distances=True`` run the
    exact tensor-core join, which takes float32, float16, bfloat16 or float64 points and can return each
    pair's value: ``ij, d = pairs_within(x, eps=0.5, return_distances=True)`` (d float32).

    ``functor=`` (a ``Functor`` returning bool, instead of ``eps``) joins the pairs for which it is
    true: a theta join of your own (GPU only, points of 1 to 3 coordinates), e.g.
    ``Functor("bool", "return fabsf(a.x[0] - b.x[0]) <= w && a.x[1] < b.x[1];", {"w": 2.0})``.

    ``progress``: True for a bar (tqdm if installed, else a line), or a callable
    ``progress(done, total)`` (pairs); see ``count_pairs``.

    Example: ``ij = twobody.pairs_within(x, eps=0.1)``.
    """
    a, b = _sets(points, points_b, _backend(backend))
    if functor is not None:
        if eps is not None or return_distances or metric != "euclidean":
            raise ValueError("twobody: pairs_within takes either functor= or eps= (with metric= and return_distances=)")
        _functor_points(a, "pairs_within")
        out = _core.functor_join(_program(functor), functor._values(), a, b, bool(sort), _backend(backend, fallback=False),
                                 _arrays.stream_handle(stream))
        return _device_or_like(out, a)
    if eps is None:
        raise TypeError("twobody: pairs_within needs eps= (the distance) or functor=")
    if metric not in ("euclidean", "cosine"):
        raise ValueError(f"twobody: metric must be 'euclidean' or 'cosine', not {metric!r}")
    if _high_dimensional(a, metric, force=return_distances):
        ij, d = _reporting(progress, lambda: _core.rows_pairs_within(a, b, float(eps), metric, bool(sort),
                                                                     _backend(backend), _arrays.stream_handle(stream)))
        ij, d = _device_or_like(ij, a), _device_or_like(d, a, indices=False)
        return (ij, d) if return_distances else ij
    out = _reporting(progress, lambda: _core.pairs_within(a, b, float(eps), bool(sort), _backend(backend),
                                                          _arrays.stream_handle(stream)))
    return _device_or_like(out, a)


def _device_or_like(out, a, indices: bool = True):
    """A result of the core in a's library: NumPy results as they are (or converted), device
    results by DLPack."""
    if isinstance(out, np.ndarray):
        return out if _arrays.library_of(a) == "numpy" else _arrays.like(out, a)
    return _arrays.from_device(out, a, indices)


def kernel_sum(points, points_b=None, *, bandwidth: float, per_point: bool = False, progress=None,
               backend: str = "auto", stream=None):
    """Gaussian kernel sums, k(a, b) = exp(-|a - b|^2 / (2 h^2)) with h = ``bandwidth``.

    ``per_point=False``: the sum over all pairs (one set: i < j; two sets: A x B), a float.
    ``per_point=True``: for every point a_i the sum over its partners (every b_j, or every a_j
    with j != i), an array (the unnormalised kernel density at each point).

    High-dimensional points (D > 3, float16/bfloat16) take the tensor-core products; each term
    is then within a proven margin of the exact one (docs/highdim.md), and the sums are float64.

    ``progress``: True for a bar, or a callable ``progress(done, total)`` (pairs); see ``count_pairs``.

    Example: ``density = twobody.kernel_sum(x, bandwidth=0.5, per_point=True)``.
    """
    a, b = _sets(points, points_b, _backend(backend))
    if _high_dimensional(a):
        out = _reporting(progress, lambda: _core.rows_kernel_sum(a, b, float(bandwidth), bool(per_point),
                                                                 _backend(backend), _arrays.stream_handle(stream)))
        return _arrays.like(out, a) if per_point else float(out)
    out = _reporting(progress, lambda: _core.kernel_sum(a, b, float(bandwidth), bool(per_point), _backend(backend),
                                                        _arrays.stream_handle(stream)))
    return _arrays.like(out, a) if per_point else float(out)


def _program(functor):
    if not isinstance(functor, Functor):
        raise TypeError(f"twobody: expected a twobody.Functor, not {type(functor).__name__}")
    return functor._program


def _functor_points(a, what: str):
    if _high_dimensional(a):
        raise ValueError(f"twobody: {what} with a Functor takes float32 or float64 points of 1 to 3 coordinates")


def pair_sum(points, points_b=None, *, functor: Functor, per_point: bool = False, weights=None, weights_b=None,
             backend: str = "auto", stream=None):
    """The sum of ``functor(a, b)`` (a ``Functor`` returning float or double) over pairs.

    ``per_point=False``: over all pairs (one set: i < j; two sets: A x B; with weights each
    term is multiplied by w_i w_j), a float (accumulated in float64).
    ``per_point=True``: for every point a_i the sum over its partners (every b_j, or every a_j
    with j != i, so ``f`` need not be symmetric), an array of the points' dtype.

    GPU only. Example::

        lj = twobody.Functor("float", "T s6 = powf(s * s / dist2(a, b), 3); return 4 * e * (s6 * s6 - s6);",
                             {"s": 1.0, "e": 1.0})
        energy = twobody.pair_sum(x, functor=lj)
    """
    a, b = _sets(points, points_b, _backend(backend, fallback=False))
    _functor_points(a, "pair_sum")
    wa, wb = _weights(weights, weights_b, a, b)
    out = _core.functor_sum(_program(functor), functor._values(), a, b, wa, wb, bool(per_point), _backend(backend, fallback=False),
                            _arrays.stream_handle(stream))
    return _arrays.like(out, a) if per_point else float(out)


# ---------------------------------------------------------------------------------------------
# Nearest neighbours


@dataclass
class Neighbors:
    """The k nearest neighbours of each point: ``indices`` (n, k) int32 (int64 for PyTorch), the
    partners nearest first, and ``distances`` (n, k) float32, in the caller's array library."""

    indices: Any
    distances: Any


def knn(points, points_b=None, *, k: int, metric: str = "euclidean", progress=None, backend: str = "auto",
        stream=None) -> Neighbors:
    """The exact k nearest neighbours of every point of ``points``: among the other points of
    ``points`` (itself excluded), or among the points of ``points_b``.

    Parameters
    ----------
    points, points_b : (n, D) arrays of float32, float16, bfloat16 or float64, any D
        Queries and, optionally, the points searched (one set: each point's k nearest others).
    k : int
        Neighbours per point, 1 <= k <= the number of partners (n - 1, or len(points_b)).
    metric : {"euclidean", "cosine"}
        Euclidean distance, or cosine distance 1 - cos(a, b).
    progress : bool or callable, optional
        True for a bar, or a callable ``progress(done, total)`` (pairs); see ``count_pairs``.

    Returns
    -------
    Neighbors
        ``indices[i, r]`` is the r-th nearest partner of point i and ``distances[i, r]`` its
        distance, rounded to float32 from an exact evaluation. Equal distances are ordered by the
        smaller index. A partner at a NaN distance is never a neighbour; where fewer than k
        partners remain, the index is -1 and the distance inf. Device points give device results.

    The GPU computes the products on the tensor cores (float64 points: in float32 on the CUDA
    cores) and evaluates exactly every partner that their proven error margin cannot rule out,
    so the answer equals the CPU backend's.

    Example: ``nn = twobody.knn(embeddings, k=10, metric="cosine")``.
    """
    a, b = _sets(points, points_b, _backend(backend))
    if metric not in ("euclidean", "cosine"):
        raise ValueError(f"twobody: metric must be 'euclidean' or 'cosine', not {metric!r}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError("twobody: k must be an int (the number of neighbours)")
    idx, dist = _reporting(progress, lambda: _core.knn(a, b, int(k), metric, _backend(backend),
                                                       _arrays.stream_handle(stream)))
    return Neighbors(_device_or_like(idx, a), _device_or_like(dist, a, indices=False))


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
