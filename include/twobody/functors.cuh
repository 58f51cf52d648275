/// \file functors.cuh
/// \brief Ready-made pair functors. Any `__host__ __device__` callable
/// `R f(point<T, D> const& a, point<T, D> const& b)` works the same way. Functors must be free
/// of side effects: in cross and ordered mode the GPU kernels also call them on the padding of a
/// partial tile (real points of the set) and drop those results.
///
/// Arithmetic is plain IEEE arithmetic in T (no fast-math approximations), so the
/// GPU and the CPU backend agree exactly wherever the inputs make the result exact
/// (integer or dyadic coordinates). On other data, results can differ by rounding
/// (the GPU contracts a*b+c into one fma), which only matters for a pair whose value
/// falls within a few ulps of a bin edge or threshold.
#pragma once

#include <twobody/math/scalar.cuh>
#include <twobody/points.cuh>
#include <twobody/util/error.cuh>
#include <twobody/value_traits.cuh>

#ifndef __CUDACC_RTC__
#include <cmath>
#endif

namespace twobody {

/// |a - b|^2, no square root.
struct squared_euclidean {
  static constexpr bool returns_squared_distance = true;  ///< distance_bins takes it (value_traits.cuh)
  static constexpr bool symmetric                = true;
  template <class T, int D>
  __host__ __device__ T operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    T const d0 = a.x[0] - b.x[0];
    T s        = d0 * d0;
TWOBODY_UNROLL
    for (int d = 1; d < D; ++d) {
      T const dd = a.x[d] - b.x[d];
      s          = dd * dd + s;
    }
    return s;
  }
};

/// |a - b| (correctly rounded square root of the squared distance).
struct euclidean {
  static constexpr bool symmetric = true;
  /// The IEEE square root nearly doubles a histogram's pair (H100, docs/maintainers/cost-model.md).
  static constexpr double relative_cost = 1.9;
  template <class T, int D>
  __host__ __device__ T operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    return detail::sqrt_of(squared_euclidean{}(a, b));
  }
};

/// Squared minimum-image distance in an orthorhombic periodic box with side lengths
/// `box[d]`. Coordinates must lie in one image of the box, e.g. [0, L) (|a - b| < L per
/// axis); the shorter of |dx| and L - |dx| is taken per axis.
template <class T, int D>
struct periodic_squared_euclidean {
  static constexpr bool returns_squared_distance = true;
  static constexpr bool symmetric                = true;
  static constexpr double relative_cost          = 1.3;  ///< the minimum image (H100, docs/maintainers/cost-model.md)
  T box[D];

  __host__ __device__ T operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    T s = T(0);
TWOBODY_UNROLL
    for (int d = 0; d < D; ++d) {
      T const ad = detail::abs_of(a.x[d] - b.x[d]);
      T const dd = detail::min_of(ad, box[d] - ad);
      s          = dd * dd + s;
    }
    return s;
  }
};

/// Minimum-image distance in an orthorhombic periodic box (see periodic_squared_euclidean).
template <class T, int D>
struct periodic_euclidean {
  static constexpr bool symmetric       = true;
  static constexpr double relative_cost = 2.4;  ///< minimum image and IEEE square root (H100)
  T box[D];

  __host__ __device__ T operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    periodic_squared_euclidean<T, D> sq;
TWOBODY_UNROLL
    for (int d = 0; d < D; ++d) { sq.box[d] = box[d]; }
    return detail::sqrt_of(sq(a, b));
  }
};

/// Builds a periodic_euclidean (or squared) functor from the box side lengths, checking them.
template <class T, class... More>
periodic_euclidean<T, 1 + int(sizeof...(More))> make_periodic_euclidean(T side, More... more)
{
  periodic_euclidean<T, 1 + int(sizeof...(More))> f{{side, static_cast<T>(more)...}};
  for (T L : f.box) { TWOBODY_EXPECTS(L > T(0) && std::isfinite(L), "periodic box sides must be finite and > 0"); }
  return f;
}
template <class T, class... More>
periodic_squared_euclidean<T, 1 + int(sizeof...(More))> make_periodic_squared_euclidean(T side, More... more)
{
  periodic_squared_euclidean<T, 1 + int(sizeof...(More))> f{{side, static_cast<T>(more)...}};
  for (T L : f.box) { TWOBODY_EXPECTS(L > T(0) && std::isfinite(L), "periodic box sides must be finite and > 0"); }
  return f;
}

/// a . b
struct dot_product {
  static constexpr bool symmetric = true;
  template <class T, int D>
  __host__ __device__ T operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    T s = a.x[0] * b.x[0];
TWOBODY_UNROLL
    for (int d = 1; d < D; ++d) { s = a.x[d] * b.x[d] + s; }
    return s;
  }
};

/// Angle (radians, in [0, pi]) between two directions given as 3-D vectors (unit
/// vectors on the sphere, e.g. from right ascension and declination). Computed as
/// atan2(|a x b|, a . b), which stays accurate for tiny and for near-antipodal angles.
struct angular_separation {
  static constexpr bool symmetric = true;
  template <class T>
  __host__ __device__ T operator()(point<T, 3> const& a, point<T, 3> const& b) const
  {
    T const cx  = a.x[1] * b.x[2] - a.x[2] * b.x[1];
    T const cy  = a.x[2] * b.x[0] - a.x[0] * b.x[2];
    T const cz  = a.x[0] * b.x[1] - a.x[1] * b.x[0];
    T const crs = detail::sqrt_of(cx * cx + cy * cy + cz * cz);
    T const dot = dot_product{}(a, b);
    if constexpr (cuda::std::is_same_v<T, float>) {
      return atan2f(crs, dot);
    } else {
      return ::atan2(crs, dot);
    }
  }
};

/// Predicate `metric(a, b) < threshold`. For counts within a radius r use
/// `within_radius(r)`, which compares squared distances (no square root).
template <class Metric, class T>
struct within {
  static constexpr bool symmetric = is_symmetric_v<Metric>;
  Metric metric;
  T threshold;
  template <int D>
  __host__ __device__ bool operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    return metric(a, b) < threshold;
  }
};

/// Pairs closer than r (the 2PCF / neighbour-count predicate), with no square root.
///
/// On the GPU the test is the sign of |a - b|^2 - r^2 evaluated as one chain of fused
/// multiply-adds, fma(dz, dz, fma(dy, dy, fma(dx, dx, -r^2))) (exact IEEE operations, one
/// rounding per axis, no approximations), and the pair is counted from the sign bit: 7
/// instructions per 3-D pair. On the host it is |a - b|^2 < r^2. Both are exact for integer
/// or dyadic coordinates; otherwise they can differ for a pair within a few ulps of r. NaN
/// coordinates are never within any radius (the GPU's NaN results are positive).
template <class T>
struct within_radius_fn {
  static constexpr bool symmetric = true;
  T r2;  ///< r^2, rounded to T once on the host

  template <int D>
  __host__ __device__ bool operator()(point<T, D> const& a, point<T, D> const& b) const
  {
#ifdef __CUDA_ARCH__
    T s = -r2;
TWOBODY_UNROLL
    for (int d = 0; d < D; ++d) {
      T const dd = a.x[d] - b.x[d];
      s          = fma(dd, dd, s);
    }
    if constexpr (cuda::std::is_same_v<T, float>) {
      return (__float_as_uint(s) >> 31) != 0u;
    } else {
      return (static_cast<unsigned>(__double2hiint(s)) >> 31) != 0u;
    }
#else
    return squared_euclidean{}(a, b) < r2;
#endif
  }
};

/// Pairs closer than r: see within_radius_fn (r^2 rounded to T once, on the host).
template <class T>
within_radius_fn<T> within_radius(T r)
{
  TWOBODY_EXPECTS(r >= T(0) && std::isfinite(r), "within_radius: r must be finite and >= 0");
  return {r * r};
}

/// Gaussian kernel exp(-|a - b|^2 / (2 h^2)) (kernel sums, kernel density estimates),
/// evaluated as exp2(|a - b|^2 * (-log2(e) / (2 h^2))). In float on the GPU that is one
/// MUFU.EX2 (`ex2.approx.ftz`: about 2 ulp; values below 2^-126 become 0); double and
/// host code use exp2.
template <class T>
struct gaussian_kernel_fn {
  static constexpr bool symmetric = true;
  T neg_log2e_over_two_h2;  ///< -log2(e) / (2 h^2)

  template <int D>
  __host__ __device__ T operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    T const e = squared_euclidean{}(a, b) * neg_log2e_over_two_h2;
#ifdef __CUDA_ARCH__
    if constexpr (cuda::std::is_same_v<T, float>) {
      float r;
      asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(e));
      return r;
    }
#endif
    if constexpr (cuda::std::is_same_v<T, float>) {
      return exp2f(e);
    } else {
      return exp2(e);
    }
  }
};

/// Gaussian kernel of bandwidth h > 0.
template <class T>
gaussian_kernel_fn<T> gaussian_kernel(T h)
{
  TWOBODY_EXPECTS(h > T(0) && std::isfinite(h), "gaussian_kernel: h must be finite and > 0");
  T const k = static_cast<T>(-1.4426950408889634074 / (2.0 * double(h) * double(h)));
  TWOBODY_EXPECTS(std::isfinite(k) && k != T(0), "gaussian_kernel: h out of range for this precision");
  return {k};
}

/// f applied to a metric's value: f(metric(a, b)). For kernel sums of any shape, e.g. a
/// Laplacian kernel `function_of(euclidean{}, laplace{h})` with a `__host__ __device__` laplace;
/// on rows (rows.cuh) f gets the metric's value as a float.
template <class Metric, class F>
struct function_of_fn {
  static constexpr bool symmetric = is_symmetric_v<Metric>;  ///< f of a symmetric value
  Metric metric;
  F f;
  template <class P>
  __host__ __device__ auto operator()(P const& a, P const& b) const
  {
    return f(metric(a, b));
  }
};

/// f of the metric's value (see function_of_fn).
template <class Metric, class F>
function_of_fn<Metric, F> function_of(Metric metric, F f)
{
  return {metric, f};
}

/// Separations along and across a line of sight that is the last axis (plane-parallel
/// approximation used for the projected correlation function): returns {r_p, pi} with
/// r_p = |a - b| over the first D - 1 axes and pi = |a_z - b_z|. Bin with bins_2d.
struct rp_pi_separation {
  static constexpr double relative_cost = 2.4;  ///< with bins_2d: an IEEE square root, two bin maps (H100)
  template <class T, int D>
  __host__ __device__ point<T, 2> operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    static_assert(D >= 2, "rp_pi_separation needs at least 2 dimensions");
    T s = T(0);
TWOBODY_UNROLL
    for (int d = 0; d < D - 1; ++d) {
      T const dd = a.x[d] - b.x[d];
      s          = dd * dd + s;
    }
    return point<T, 2>{{detail::sqrt_of(s), detail::abs_of(a.x[D - 1] - b.x[D - 1])}};
  }
};

}  // namespace twobody
