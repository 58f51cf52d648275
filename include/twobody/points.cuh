/// \file points.cuh
/// \brief Point sets (structure-of-arrays views) and the pair sets built from them.
///
/// A `points<T, D>` view names D coordinate arrays of one set (and optionally a
/// weight array); it owns nothing. The arrays may live in device memory or, for
/// the one-call functions, in host memory (they are staged to the device). A
/// `pair_set` says which pairs a statistic visits:
///   - `self_pairs(p)`:    every unordered pair {i, j}, i < j, once (symmetric functors);
///   - `cross_pairs(a, b)`: every (i, j) in A x B;
///   - `ordered_pairs(p)`: every ordered (i, j), i != j (non-symmetric functors).
#pragma once

#include <twobody/error.cuh>
#include <twobody/util/config.cuh>

#include <cuda/std/array>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace twobody {

/// Signed index type for points and tiles (counts past 2^31 are fine).
using size_type = cuda::std::int64_t;

/// One point: what a functor receives. Plain aggregate, lives in registers.
template <class T, int D>
struct point {
  T x[D];
  __host__ __device__ constexpr T& operator[](int d) { return x[d]; }
  __host__ __device__ constexpr T const& operator[](int d) const { return x[d]; }
};

/// Structure-of-arrays view of `size` points in D dimensions, optionally weighted.
/// Coordinates of point i are coords[0][i], ..., coords[D-1][i]; its weight weights[i].
template <class T, int D, bool Weighted = false>
struct points {
  // Floating-point coordinates for geometry; 32- and 64-bit integers for table columns
  // (join keys). Stored and staged as raw 4- or 8-byte values.
  static_assert((cuda::std::is_floating_point_v<T> || cuda::std::is_integral_v<T>) && (sizeof(T) == 4 || sizeof(T) == 8),
                "twobody::points<T, D>: T must be float, double or a 32- or 64-bit integer");
  static_assert(D >= 1 && D <= 16, "twobody::points<T, D>: D must be between 1 and 16");

  using value_type               = T;
  using point_type               = point<T, D>;
  static constexpr int dims      = D;
  static constexpr bool weighted = Weighted;

  cuda::std::array<T const*, D> coords{};
  T const* weights = nullptr;  ///< used only when Weighted
  size_type size   = 0;

  /// Point i by plain loads (host or device, whichever memory the view names).
  __host__ __device__ point_type operator[](size_type i) const
  {
    point_type p;
TWOBODY_UNROLL
    for (int d = 0; d < D; ++d) { p.x[d] = coords[d][i]; }
    return p;
  }

  /// Point i through the read-only data cache.
  __device__ point_type load_readonly(size_type i) const
  {
    point_type p;
TWOBODY_UNROLL
    for (int d = 0; d < D; ++d) { p.x[d] = __ldg(coords[d] + i); }
    return p;
  }

  /// Weight of point i (1 for unweighted sets).
  __host__ __device__ T weight(size_type i) const
  {
    if constexpr (Weighted) {
      return weights[i];
    } else {
      (void)i;
      return T(1);
    }
  }
  __device__ T weight_readonly(size_type i) const
  {
    if constexpr (Weighted) {
      return __ldg(weights + i);
    } else {
      (void)i;
      return T(1);
    }
  }
};

/// A table of `Cols` columns of one type, as a structure of arrays (rows are points): the
/// input of theta and band joins. Mixed int/float columns can travel as double (exact for
/// integers below 2^53).
template <class T, int Cols>
using table = points<T, Cols>;

/// `make_points(n, x, y, z)`: an unweighted view over D = number of coordinate arrays
/// (also `make_points(rows, key1, key2)` for a table).
template <class T, class... More>
points<T, 1 + int(sizeof...(More))> make_points(size_type n, T const* first, More const*... more)
{
  static_assert((cuda::std::is_same_v<T, More> && ...), "twobody::make_points: all coordinate arrays need one type");
  points<T, 1 + int(sizeof...(More))> p;
  p.coords = {first, more...};
  p.size   = n;
  return p;
}

/// `make_weighted_points(n, w, x, y, z)`: a weighted view; the weight of pair (i, j) is w[i] * w[j].
template <class T, class... More>
points<T, 1 + int(sizeof...(More)), true> make_weighted_points(size_type n, T const* w, T const* first,
                                                               More const*... more)
{
  static_assert((cuda::std::is_same_v<T, More> && ...),
                "twobody::make_weighted_points: all coordinate arrays need one type");
  points<T, 1 + int(sizeof...(More)), true> p;
  p.coords  = {first, more...};
  p.weights = w;
  p.size    = n;
  return p;
}

/// Which pairs a statistic visits.
enum class pair_mode {
  self,     ///< unordered pairs {i, j}, i < j, of one set: n (n - 1) / 2 pairs
  cross,    ///< A x B: |A| |B| pairs
  ordered,  ///< ordered pairs (i, j), i != j, of one set: n (n - 1) pairs
};

inline char const* to_string(pair_mode m)
{
  switch (m) {
    case pair_mode::self: return "self";
    case pair_mode::cross: return "cross";
    case pair_mode::ordered: return "ordered";
  }
  return "?";
}

/// The pairs of one statistic: a mode and the two sides (b == a in self and ordered mode).
template <class Points>
struct pair_set {
  using points_type = Points;
  pair_mode mode = pair_mode::self;
  Points a{};
  Points b{};

  /// Number of pairs the set holds (exact; fits 64 bits for any size below 2^32).
  __host__ __device__ unsigned long long count() const
  {
    auto const na = static_cast<unsigned long long>(a.size < 0 ? 0 : a.size);
    auto const nb = static_cast<unsigned long long>(b.size < 0 ? 0 : b.size);
    switch (mode) {
      case pair_mode::self: return na < 2 ? 0ull : na * (na - 1) / 2;
      case pair_mode::ordered: return na < 2 ? 0ull : na * (na - 1);
      default: return na * nb;
    }
  }
};

template <class Points>
pair_set<Points> self_pairs(Points const& p)
{
  return {pair_mode::self, p, p};
}
template <class Points>
pair_set<Points> cross_pairs(Points const& a, Points const& b)
{
  return {pair_mode::cross, a, b};
}
template <class Points>
pair_set<Points> ordered_pairs(Points const& p)
{
  return {pair_mode::ordered, p, p};
}

}  // namespace twobody
