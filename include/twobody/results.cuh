/// \file results.cuh
/// \brief What the one-call statistics return on the host, on every backend: the count type of
/// a pair set (plain counts, or sums of w_i w_j for weighted sets), histogram_result and
/// neighbors_result.
#pragma once

#include <twobody/points.cuh>

#include <cuda/std/type_traits>

#include <cstdint>
#include <utility>
#include <vector>

namespace twobody {

/// The type of a pair count: `unsigned long long` for plain point sets, `double` for weighted
/// ones (which add w_i w_j per pair).
template <class Points>
using pair_count_t = cuda::std::conditional_t<Points::weighted, double, unsigned long long>;

/// A histogram brought back to the host.
template <class Count>
struct histogram_result {
  std::vector<Count> counts;   ///< one per bin
  Count outside{};             ///< pairs whose value was outside the bins (or NaN)
  unsigned long long pairs{};  ///< pairs visited

  /// From the bins + 1 counter slots the explicit forms fill (the last one: outside), over
  /// `pairs` visited pairs.
  static histogram_result from_slots(std::vector<Count> slots, unsigned long long pairs)
  {
    histogram_result r;
    r.outside = slots.back();
    slots.pop_back();
    r.counts = std::move(slots);
    r.pairs  = pairs;
    return r;
  }
};

/// The k nearest neighbours of every point of A, brought back to the host: row-major
/// size x k arrays, entry i * k + r for the r-th nearest partner of point i (nearest first,
/// equal values by smaller index). Where fewer than k partners have a value (the others'
/// values are NaN), the remaining entries hold index -1 and value +inf (-inf for the
/// similarities, whose larger values are nearer).
struct neighbors_result {
  size_type size = 0;                 ///< points of A
  int k          = 0;                 ///< neighbours per point
  std::vector<std::int32_t> indices;  ///< partner indices (into B, or into A for ordered pairs)
  std::vector<float> values;          ///< the metric's values

  std::int32_t index(size_type i, int r) const { return indices[static_cast<std::size_t>(i) * k + r]; }
  float value(size_type i, int r) const { return values[static_cast<std::size_t>(i) * k + r]; }
};

}  // namespace twobody
