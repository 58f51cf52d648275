#pragma once

/// What a statistic of rows decides per pair, and when the tensor cores' approximate value
/// decides it for certain (rows/mma_traversal.cuh):
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
#include <twobody/math/row_metric_kind.cuh>
#include <twobody/row_metrics.cuh>

#include <cuda/std/limits>

#ifndef __CUDACC_RTC__
#include <cmath>
#endif

namespace twobody::detail {

/// [v - m, v + m] rounded outward; false when either end is NaN or infinite. Callers combine it
/// with their own test by `&`, not `&&`: both sides are cheap comparisons, and the short circuit
/// cost a branch region per pair (BSSY/BSYNC and the thresholds reloaded: about 10 instructions
/// of the count's 48 per pair at D = 128 on the H100).
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
  return (hi < inf) & (lo > -inf);
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
    bool const finite = outward_interval(v, m, lo, hi);
    return finite & ((hi < t) | (lo >= t));
  }
};

template <class M>
struct row_predicate<within<M, float>> : below_threshold {
  static_assert(is_row_metric<M>::value, "rows support squared_euclidean, euclidean, dot_product, cosine_similarity, cosine_distance");
  static constexpr row_metric_kind metric = row_metric<M>::kind;
  explicit row_predicate(within<M, float> const& p) : below_threshold{p.threshold} {}
};

/// closer_than(euclidean, t) decided on squared distances, which the tensor cores' products give
/// without a square root or a division per pair (the Euclidean margin takes two square roots and
/// a division; at D = 128 the count spent more time there than on the products). The answer is
/// still the Euclidean one, float(sqrt(S)) < t for the exact sum S:
///  - [lo, hi] holds float(S), so S lies in [pred(lo), succ(hi)] (half an ulp either side);
///  - certainly below t when succ(hi) < pred(t)^2: then sqrt(S) < pred(t), which rounds below t;
///    that is hi < pass, pass = pred(round_down(pred(t)^2));
///  - certainly not below t when pred(lo) >= t^2: then sqrt(S) >= t; that is lo >= fail,
///    fail = succ(round_up(t^2)).
/// The pairs in between are recomputed with the exact Euclidean value (exact_metric), which
/// surrogate() maps back to a squared value on the right side of `pass`. Built by of(t) for
/// t > 0 (t = +inf included: every finite value passes); no distance is below t <= 0.
struct squared_below_threshold {
  static constexpr row_metric_kind metric       = row_metric_kind::squared_euclidean;  ///< of the approximation
  static constexpr row_metric_kind exact_metric = row_metric_kind::euclidean;          ///< of the answer
  float t;     ///< the Euclidean threshold
  float pass;  ///< squared values below it are certainly below t
  float fail;  ///< squared values at or above it are certainly not below t

#ifndef __CUDACC_RTC__
  static squared_below_threshold of(float t)
  {
    float const below = std::nextafter(t, 0.0f);
    double const p2   = static_cast<double>(below) * below;  // exact in double
    double const t2   = static_cast<double>(t) * t;
    float pass        = static_cast<float>(p2);
    if (static_cast<double>(pass) > p2) { pass = std::nextafter(pass, 0.0f); }
    float fail = static_cast<float>(t2);
    if (static_cast<double>(fail) < t2) { fail = std::nextafter(fail, INFINITY); }
    return {t, std::nextafter(pass, -INFINITY), std::nextafter(fail, INFINITY)};
  }
#endif

  /// The answer for a certain pair, from its squared value.
  __host__ __device__ bool operator()(float s) const { return s < pass; }
  /// Without outward_interval's finiteness test (two comparisons per pair fewer): the squared
  /// margin is at least 2^-22 |s| (row_margin), so an infinite s comes with m = inf and a NaN end on
  /// its own side, an infinite or NaN m makes both ends infinite or NaN, and NaN fails both
  /// comparisons; with s and m finite, an end that rounds to +-inf still bounds float(S) (pass
  /// is finite, and lo is never +inf). So the two tests alone decide exactly when the guarded
  /// ones do, or correctly where only an end overflowed.
  __host__ __device__ bool certain(float s, float m) const
  {
    float lo, hi;
    (void)outward_interval(s, m, lo, hi);
    return (hi < pass) | (lo >= fail);
  }
  /// A recomputed pair's exact Euclidean value as a squared value that operator() answers alike.
  __host__ __device__ float surrogate(float v) const { return v < t ? -1.0f : cuda::std::numeric_limits<float>::infinity(); }
};

/// Rules whose answer comes from another metric's exact value than their approximation's
/// (squared_below_threshold): exact_metric and surrogate().
template <class Rule, class = void>
struct has_exact_metric : cuda::std::false_type {};
template <class Rule>
struct has_exact_metric<Rule, cuda::std::void_t<decltype(Rule::exact_metric)>> : cuda::std::true_type {};

/// The metric whose exact value answers a rule whose approximation uses M.
template <class Rule, row_metric_kind M>
inline constexpr row_metric_kind exact_metric_v = [] {
  if constexpr (has_exact_metric<Rule>::value) {
    return Rule::exact_metric;
  } else {
    return M;
  }
}();

/// A recomputed pair's exact value as the rule's test takes it.
template <class Rule>
__host__ __device__ __forceinline__ float exact_answer_value(Rule const& rule, float v)
{
  if constexpr (has_exact_metric<Rule>::value) {
    return rule.surrogate(v);
  } else {
    return v;
  }
}

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
    bool const finite = outward_interval(v, m, lo, hi);
    return finite & ((lo >= t) | (hi < t));
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
    bool const finite = outward_interval(v, m, lo, hi);
    return finite & (extended(lo) == extended(hi));
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
