#pragma once

/// What a statistic of rows decides per pair, and when the tensor cores' approximate value
/// decides it for certain (mma_traversal.cuh):
///  - row_predicate<Pred>: a count's or join's test on the metric value (closer_than / within,
///    at_least, within_radius);
///  - row_binning<Bins>: a histogram's bin of the value;
///  - row_join_emitter<Pred>: a join's record {i, j, value} for the pairs the predicate keeps;
///  - row_function<F>: a per-point sum's term f(value) (gaussian_kernel, function_of).
/// `certain(v, m)` is true when every value in [v - m, v + m] gives the same answer, so the
/// approximate value v with error margin m can stand for the exact one. Interval ends are
/// rounded outward; NaN or infinite ends are never certain (the pair is recomputed exactly).

#include <twobody/binning.cuh>
#include <twobody/functors.cuh>
#include <twobody/join_result.cuh>
#include <twobody/row_metrics.cuh>

#include <cuda/std/limits>

namespace twobody::detail {

/// [v - m, v + m] rounded outward; false when either end is NaN or infinite.
__host__ __device__ inline bool outward_interval(float v, float m, float& lo, float& hi)
{
#ifdef __CUDA_ARCH__
  lo = __fsub_rd(v, m);
  hi = __fadd_ru(v, m);
#else
  // The host never decides from approximate values; this branch keeps the function total.
  lo = std::nextafter(v - m, -INFINITY);
  hi = std::nextafter(v + m, INFINITY);
#endif
  float const inf = cuda::std::numeric_limits<float>::infinity();
  return hi < inf && lo > -inf;
}

template <class Pred>
struct row_predicate {
  static_assert(sizeof(Pred) == 0,
                "rows take the predicates closer_than(metric, t) (a within<Metric, float>), at_least(metric, t) "
                "and within_radius(r) with float thresholds");
};

/// value < t: the test of closer_than and within_radius.
struct below_threshold {
  float t;
  __host__ __device__ bool operator()(float v) const { return v < t; }
  __host__ __device__ bool certain(float v, float m) const
  {
    float lo, hi;
    return outward_interval(v, m, lo, hi) && (hi < t || lo >= t);
  }
};

template <class M>
struct row_predicate<within<M, float>> : below_threshold {
  static_assert(is_row_metric<M>::value, "rows support squared_euclidean, euclidean, dot_product, cosine_similarity, cosine_distance");
  static constexpr row_metric_kind metric = row_metric<M>::kind;
  explicit row_predicate(within<M, float> const& p) : below_threshold{p.threshold} {}
};

/// value >= t
template <class M>
struct row_predicate<at_least_fn<M, float>> {
  static_assert(is_row_metric<M>::value, "rows support squared_euclidean, euclidean, dot_product, cosine_similarity, cosine_distance");
  static constexpr row_metric_kind metric = row_metric<M>::kind;
  float t;
  explicit row_predicate(at_least_fn<M, float> const& p) : t(p.threshold) {}
  __host__ __device__ bool operator()(float v) const { return v >= t; }
  __host__ __device__ bool certain(float v, float m) const
  {
    float lo, hi;
    return outward_interval(v, m, lo, hi) && (lo >= t || hi < t);
  }
};

/// |a - b|^2 < r^2 (r^2 rounded to float once, as within_radius does)
template <>
struct row_predicate<within_radius_fn<float>> : below_threshold {
  static constexpr row_metric_kind metric = row_metric_kind::squared_euclidean;
  explicit row_predicate(within_radius_fn<float> const& p) : below_threshold{p.r2} {}
};

/// A histogram's bin map on rows: uniform_bins<float> (monotone and the same bin for bin on
/// the GPU and the host). Values below lo count as slot -1 for the certainty test, so that the
/// map is monotone over the whole line: equal ends mean one slot for the whole interval.
template <class Bins>
struct row_binning {
  static_assert(sizeof(Bins) == 0, "histograms of rows take uniform_bins<float>");
};

template <>
struct row_binning<uniform_bins<float>> {
  uniform_bins<float> bins;
  __host__ __device__ int extended(float x) const { return x < bins.lo ? -1 : bins(x); }
  __host__ __device__ bool certain(float v, float m) const
  {
    float lo, hi;
    return outward_interval(v, m, lo, hi) && extended(lo) == extended(hi);
  }
};

/// A row join's emitter over the pairs' values (the traversal hands over v for a and b alike):
/// {i, j, value} for the pairs whose value passes the predicate.
template <class Pred>
struct row_join_emitter {
  using record_type = index_pair_value<float>;
  row_predicate<Pred> test;
  __host__ __device__ bool operator()(float v, float, size_type i, size_type j, record_type& out) const
  {
    out = {static_cast<cuda::std::uint32_t>(i), static_cast<cuda::std::uint32_t>(j), v};
    return test(v);
  }
};

/// The term of a per-point sum of rows as a function of one metric's value.
template <class F>
struct row_function {
  static_assert(sizeof(F) == 0, "sums of rows take gaussian_kernel(h) (float) or function_of(metric, f)");
};

/// exp(-|a - b|^2 / (2 h^2)), as gaussian_kernel_fn computes it from the squared distance.
template <>
struct row_function<gaussian_kernel_fn<float>> {
  static constexpr row_metric_kind metric = row_metric_kind::squared_euclidean;
  float neg_log2e_over_two_h2;
  explicit row_function(gaussian_kernel_fn<float> const& g) : neg_log2e_over_two_h2(g.neg_log2e_over_two_h2) {}
  __host__ __device__ float operator()(float d2) const
  {
    float const e = d2 * neg_log2e_over_two_h2;
#ifdef __CUDA_ARCH__
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(e));
    return r;
#else
    return exp2f(e);
#endif
  }
};

/// f(value of Metric), f a __host__ __device__ functor of a float.
template <class M, class F>
struct row_function<function_of_fn<M, F>> {
  static_assert(is_row_metric<M>::value, "rows support squared_euclidean, euclidean, dot_product, cosine_similarity, cosine_distance");
  static constexpr row_metric_kind metric = row_metric<M>::kind;
  F f;
  explicit row_function(function_of_fn<M, F> const& g) : f(g.f) {}
  __host__ __device__ float operator()(float v) const { return static_cast<float>(f(v)); }
};

}  // namespace twobody::detail
