/// \file binning.cuh
/// \brief Bin maps for histograms: value -> slot in [0, size()], where slot size()
/// collects every value outside the range (below, above, NaN), so that the in-range
/// counts plus the outside count always add up to the number of pairs.
///
/// The CPU backend evaluates the same expressions, so GPU and CPU agree bin for bin
/// wherever a value is not within rounding of an edge.
#pragma once

#include <twobody/math/bin_index.cuh>
#include <twobody/points.cuh>
#include <twobody/util/error.cuh>
#include <twobody/value_traits.cuh>

#ifndef __CUDACC_RTC__
#include <cmath>
#endif

namespace twobody {

/// `n` bins of equal width over [lo, hi): bin k holds lo + k w <= x < lo + (k + 1) w,
/// computed as floor((x - lo) * (n / (hi - lo))) with x - lo rounded to T and the product
/// exact (GPU and host agree bin for bin; see detail::floor_bin). At most 2^22 bins.
template <class T>
struct uniform_bins {
  static constexpr bool bounded_slots = true;
  T lo{};
  T hi{};
  int n         = 0;
  T inv_width{};  // n / (hi - lo)

  uniform_bins() = default;
  TWOBODY_HOST uniform_bins(T lo_, T hi_, int n_) : lo(lo_), hi(hi_), n(n_)
  {
    TWOBODY_EXPECTS(n_ >= 1, "uniform_bins: need at least one bin");
    TWOBODY_EXPECTS(n_ <= detail::max_fast_bins, "uniform_bins: at most 2^22 bins");
    TWOBODY_EXPECTS(std::isfinite(lo_) && std::isfinite(hi_), "uniform_bins: range ends must be finite (not NaN/inf)");
    TWOBODY_EXPECTS(lo_ < hi_, "uniform_bins: need lo < hi");
    inv_width = static_cast<T>(n_) / (hi_ - lo_);
    TWOBODY_EXPECTS(std::isfinite(inv_width) && inv_width > T(0), "uniform_bins: bin width under- or overflows T");
  }

  __host__ __device__ int size() const { return n; }

  __host__ __device__ int operator()(T x) const { return detail::floor_bin(x - lo, inv_width, n); }

  /// Lower edge of bin k (host-side helper for plots and normalisation).
  __host__ __device__ T edge(int k) const { return lo + (hi - lo) * static_cast<T>(k) / static_cast<T>(n); }
};

/// `n` bins of equal width over distances [0, r_max), fed with *squared* distances (use
/// `squared_euclidean` or `periodic_squared_euclidean`): bin k holds k w <= sqrt(s) < (k+1) w.
/// The square root is folded into the bin computation, which makes this the fast way to
/// build a distance histogram (SDH, RDF): on the GPU, sqrt is the MUFU approximation (a few
/// ulps, measured on the device tests) and the floor is exact, 3 instructions from s to
/// bin in float; the host uses the IEEE square root. A pair whose distance lies within a
/// few ulps of a bin edge may therefore land in the neighbouring bin on the GPU; for
/// edge-exact IEEE binning use `euclidean` with `uniform_bins` (about twice as slow).
template <class T>
struct distance_bins {
  static constexpr bool bounded_slots            = true;
  static constexpr bool expects_squared_distance = true;  ///< see value_traits.cuh
  T r_max{};
  int n         = 0;
  T inv_width{};  // n / r_max

  distance_bins() = default;
  TWOBODY_HOST distance_bins(T r_max_, int n_) : r_max(r_max_), n(n_)
  {
    TWOBODY_EXPECTS(n_ >= 1, "distance_bins: need at least one bin");
    TWOBODY_EXPECTS(n_ <= detail::max_fast_bins, "distance_bins: at most 2^22 bins");
    TWOBODY_EXPECTS(std::isfinite(r_max_) && r_max_ > T(0), "distance_bins: r_max must be finite and > 0");
    inv_width = static_cast<T>(n_) / r_max_;
    TWOBODY_EXPECTS(std::isfinite(inv_width) && inv_width > T(0), "distance_bins: bin width under- or overflows T");
  }

  __host__ __device__ int size() const { return n; }

  /// `squared_distance` >= 0 (negative or NaN values go to the outside slot).
  __host__ __device__ int operator()(T squared_distance) const
  {
    return detail::floor_bin(detail::approx_sqrt(squared_distance), inv_width, n);
  }

  /// Lower edge (a distance) of bin k.
  __host__ __device__ T edge(int k) const { return r_max * static_cast<T>(k) / static_cast<T>(n); }
};

/// `n` bins uniform in log(x) over [lo, hi), lo > 0: bin k holds
/// lo (hi/lo)^(k/n) <= x < lo (hi/lo)^((k+1)/n), computed as
/// floor((log2(x) - log2(lo)) * (n / log2(hi / lo))). x <= 0 is outside.
template <class T>
struct log_bins {
  static constexpr bool bounded_slots = true;
  T lo{};
  T hi{};
  int n = 0;
  T log2_lo{};
  T scale{};  // n / log2(hi / lo)

  log_bins() = default;
  TWOBODY_HOST log_bins(T lo_, T hi_, int n_) : lo(lo_), hi(hi_), n(n_)
  {
    TWOBODY_EXPECTS(n_ >= 1, "log_bins: need at least one bin");
    TWOBODY_EXPECTS(std::isfinite(lo_) && std::isfinite(hi_), "log_bins: range ends must be finite (not NaN/inf)");
    TWOBODY_EXPECTS(lo_ > T(0) && lo_ < hi_, "log_bins: need 0 < lo < hi");
    log2_lo = std::log2(lo_);
    scale   = static_cast<T>(n_) / (std::log2(hi_) - log2_lo);
    TWOBODY_EXPECTS(std::isfinite(scale) && scale > T(0), "log_bins: range too narrow for T");
  }

  __host__ __device__ int size() const { return n; }

  __host__ __device__ int operator()(T x) const
  {
    if (!(x > T(0))) { return n; }
    T l;
    if constexpr (cuda::std::is_same_v<T, float>) {
      l = log2f(x);
    } else {
      l = ::log2(x);
    }
    T const t = (l - log2_lo) * scale;
    return (t >= T(0) && t < static_cast<T>(n)) ? static_cast<int>(t) : n;
  }

  TWOBODY_HOST T edge(int k) const
  {
    return lo * static_cast<T>(std::pow(static_cast<double>(hi) / lo, static_cast<double>(k) / n));
  }
};

/// Two-dimensional bins for a value v with v[0] binned by X and v[1] by Y (for example
/// {r_p, pi} from rp_pi_separation). Bin (i, j) is slot j * X.size() + i; a value
/// outside either range goes to the outside slot X.size() * Y.size().
template <class BinsX, class BinsY>
struct bins_2d {
  static constexpr bool bounded_slots = has_bounded_slots<BinsX>::value && has_bounded_slots<BinsY>::value;
  static constexpr bool expects_squared_distance =
    twobody::expects_squared_distance<BinsX>::value || twobody::expects_squared_distance<BinsY>::value;
  BinsX x;
  BinsY y;

  __host__ __device__ int size() const { return x.size() * y.size(); }

  template <class V>
  __host__ __device__ int operator()(V const& v) const
  {
    int const i = x(v[0]);
    int const j = y(v[1]);
    return (i < x.size() && j < y.size()) ? j * x.size() + i : size();
  }
};

template <class BinsX, class BinsY>
bins_2d<BinsX, BinsY> make_bins_2d(BinsX const& x, BinsY const& y)
{
  TWOBODY_EXPECTS(static_cast<long long>(x.size()) * y.size() < (1ll << 30), "bins_2d: too many bins");
  return {x, y};
}

}  // namespace twobody
