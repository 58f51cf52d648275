/// \file results.cuh
/// \brief What the one-call statistics return on the host, on every backend: the count type of
/// a pair set (plain counts, or sums of w_i w_j for weighted sets) and histogram_result.
#pragma once

#include <twobody/points.cuh>

#include <cuda/std/type_traits>

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

}  // namespace twobody
