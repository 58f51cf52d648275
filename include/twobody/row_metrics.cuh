/// \file row_metrics.cuh
/// \brief The metrics and predicates of high-dimensional rows (rows.cuh):
///   - `squared_euclidean`, `euclidean`, `dot_product` (functors.cuh) and the cosines below;
///   - `closer_than(metric, t)`: value < t (distances; `within_radius(r)` too, on |a - b|^2);
///   - `at_least(metric, t)`: value >= t (similarities: dot_product, cosine_similarity).
///
/// For rows the value of a metric is defined by one exact evaluation, the same on the GPU and
/// the CPU backend (math/row_exact.cuh): the sums run in double in a fixed order and the
/// result is rounded once to float. The GPU computes most pairs from tensor-core inner
/// products and recomputes exactly every pair whose approximate value lies within the
/// approximation's proven error margin of a threshold or a bin edge (docs/highdim.md).
#pragma once

#include <twobody/functors.cuh>
#include <twobody/util/error.cuh>

#include <cmath>

namespace twobody {

/// cos(a, b) = a.b / (|a| |b|) (a zero vector has no direction: its cosines are NaN).
struct cosine_similarity {
  template <class T, int D>
  __host__ __device__ T operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    T const ab = dot_product{}(a, b), aa = dot_product{}(a, a), bb = dot_product{}(b, b);
    return ab / detail::sqrt_of(aa * bb);
  }
};

/// 1 - cos(a, b), in [0, 2].
struct cosine_distance {
  template <class T, int D>
  __host__ __device__ T operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    return T(1) - cosine_similarity{}(a, b);
  }
};

/// Predicate metric(a, b) >= threshold (similarity joins and counts).
template <class Metric, class T>
struct at_least_fn {
  Metric metric;
  T threshold;
  template <int D>
  __host__ __device__ bool operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    return metric(a, b) >= threshold;
  }
};

/// metric(a, b) < t (a `within`; for distances).
template <class Metric>
within<Metric, float> closer_than(Metric metric, float t)
{
  TWOBODY_EXPECTS(!std::isnan(t), "closer_than: the threshold is NaN");
  return {metric, t};
}

/// metric(a, b) >= t (for similarities).
template <class Metric>
at_least_fn<Metric, float> at_least(Metric metric, float t)
{
  TWOBODY_EXPECTS(!std::isnan(t), "at_least: the threshold is NaN");
  return {metric, t};
}

}  // namespace twobody
