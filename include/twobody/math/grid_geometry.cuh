#pragma once

#include <twobody/util/error.cuh>

#include <cuda/std/cstdint>

#include <algorithm>
#include <cmath>
#include <string>

namespace twobody::detail {

/// Cells of a uniform grid over a bounding box (or a periodic box): cell coordinates, 64-bit
/// linear ids (dimension 0 fastest) and the stencil of adjacent cells. Every pair of points
/// closer than the cutoff lies in the same or in adjacent cells (periodic: adjacent modulo the
/// number of cells). Cell coordinates are computed in double, once per point.
template <int D>
struct grid_geometry {
  double lo[D]{};                           ///< origin (periodic: 0)
  double inv_side[D]{};                     ///< 1 / cell side
  long long cells[D]{};                     ///< cells per dimension (periodic: 1, or >= 3)
  unsigned long long stride[D]{};           ///< linear id = sum of coordinate * stride
  bool periodic = false;

  /// Cell coordinate of x along d. Outside a non-periodic grid (queries of another set) it is
  /// clamped to -2 or cells + 1, which have no neighbours inside; NaN has none either.
  __host__ __device__ long long coordinate(double x, int d) const
  {
    double const f = floor((x - lo[d]) * inv_side[d]);
    if (periodic) {  // coordinates in [0, box): clamp the rounding at the edges
      return f >= 0 ? (f < static_cast<double>(cells[d]) ? static_cast<long long>(f) : cells[d] - 1) : 0;
    }
    if (!(f >= -2.0)) { return -2; }  // also NaN
    return f > static_cast<double>(cells[d] + 1) ? cells[d] + 1 : static_cast<long long>(f);
  }

  /// Neighbour number o in [0, 3^D) of cell c: its id in `id`, false when it does not exist
  /// (outside a non-periodic grid, or an offset along a dimension of one periodic cell).
  __host__ __device__ bool neighbour(long long const (&c)[D], int o, unsigned long long& id) const
  {
    id = 0;
    for (int d = 0; d < D; ++d) {
      int const off = o % 3 - 1;
      o /= 3;
      long long n = c[d] + off;
      if (periodic) {
        if (cells[d] == 1 && off != 0) { return false; }
        n = n < 0 ? n + cells[d] : (n >= cells[d] ? n - cells[d] : n);
      } else if (n < 0 || n >= cells[d]) {
        return false;
      }
      id += static_cast<unsigned long long>(n) * stride[d];
    }
    return true;
  }

  __host__ __device__ unsigned long long id_of(long long const (&c)[D]) const
  {
    unsigned long long id = 0;
    for (int d = 0; d < D; ++d) { id += static_cast<unsigned long long>(c[d]) * stride[d]; }
    return id;
  }

  __host__ __device__ static constexpr int stencil_size()
  {
    int s = 1;
    for (int d = 0; d < D; ++d) { s *= 3; }
    return s;
  }

  /// Total cells (the range of linear ids).
  unsigned long long total() const { return stride[D - 1] * static_cast<unsigned long long>(cells[D - 1]); }
};

/// Relative margin on the cell side, so that rounding in the cell coordinates can never put
/// two points closer than the cutoff two cells apart.
inline constexpr double grid_side_margin = 1e-9;

/// Geometry for points in [lo, hi] (per dimension) and a cutoff: cells of side >= cutoff;
/// the side grows (fewer cells) where the number of cells would pass 2^62.
template <int D>
grid_geometry<D> make_grid_geometry(double const (&lo)[D], double const (&hi)[D], double cutoff)
{
  TWOBODY_EXPECTS(std::isfinite(cutoff) && cutoff > 0, "grid: the cutoff must be finite and > 0");
  grid_geometry<D> g;
  double side = cutoff * (1 + grid_side_margin);
  for (;;) {
    double log2_total = 0;
    for (int d = 0; d < D; ++d) {
      TWOBODY_EXPECTS(std::isfinite(lo[d]) && std::isfinite(hi[d]) && lo[d] <= hi[d],
                      "grid: coordinates must be finite (NaN or infinite coordinates cannot be indexed)");
      double const n = std::floor((hi[d] - lo[d]) / side) + 1;
      log2_total += std::log2(n);
    }
    if (log2_total <= 62) { break; }
    side *= 2;  // too many cells for 64-bit ids: coarser cells stay correct (side >= cutoff)
  }
  unsigned long long stride = 1;
  for (int d = 0; d < D; ++d) {
    g.lo[d]       = lo[d];
    g.inv_side[d] = 1.0 / side;
    g.cells[d]    = static_cast<long long>(std::floor((hi[d] - lo[d]) / side)) + 1;
    // The highest point must land in the last cell even after rounding of inv_side.
    while (static_cast<long long>(std::floor((hi[d] - lo[d]) * g.inv_side[d])) >= g.cells[d]) { ++g.cells[d]; }
    g.stride[d] = stride;
    stride *= static_cast<unsigned long long>(g.cells[d]);
  }
  return g;
}

/// Geometry of a periodic box [0, box_d): floor(box / cutoff) cells per dimension, or one
/// cell where fewer than 3 fit (so that -1 and +1 never name the same cell).
template <int D>
grid_geometry<D> make_periodic_grid_geometry(double const (&box)[D], double cutoff)
{
  TWOBODY_EXPECTS(std::isfinite(cutoff) && cutoff > 0, "grid: the cutoff must be finite and > 0");
  grid_geometry<D> g;
  g.periodic = true;
  unsigned long long stride = 1;
  double log2_total = 0;
  for (int d = 0; d < D; ++d) {
    TWOBODY_EXPECTS(std::isfinite(box[d]) && box[d] > 0, "grid: periodic box sides must be finite and > 0");
    double const fit = std::floor(box[d] / (cutoff * (1 + grid_side_margin)));
    long long const n = fit < 3 ? 1 : static_cast<long long>(std::min(fit, 4e18));
    log2_total += std::log2(static_cast<double>(n));
    TWOBODY_EXPECTS(log2_total <= 62, "grid: more than 2^62 cells of the cutoff in the periodic box; use a larger cutoff");
    g.lo[d]       = 0;
    g.cells[d]    = n;
    g.inv_side[d] = static_cast<double>(n) / box[d];
    g.stride[d]   = stride;
    stride *= static_cast<unsigned long long>(n);
  }
  return g;
}

}  // namespace twobody::detail
