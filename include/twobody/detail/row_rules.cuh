#pragma once

/// What a statistic of rows decides per pair, and when the tensor cores' approximate value
/// decides it for certain (mma_traversal.cuh):
///  - row_predicate<Pred>: a count's or join's test on the metric value (closer_than / within,
///    at_least, within_radius);
///  - row_binning<Bins>: a histogram's bin of the value.
/// `certain(v, m)` is true when every value in [v - m, v + m] gives the same answer, so the
/// approximate value v with error margin m can stand for the exact one. Interval ends are
/// rounded outward; NaN or infinite ends are never certain (the pair is recomputed exactly).

#include <twobody/binning.cuh>
#include <twobody/functors.cuh>
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

}  // namespace twobody::detail
