/// \file global_atomics.cuh
/// \brief Output policy baseline: every pair updates the global histogram with an atomic.
/// No shared memory and no limit on the number of bins, but slow wherever many pairs hit
/// the same bins. For comparison, and for histograms far larger than shared memory.
#pragma once

#include <twobody/math/bin_slot.cuh>
#include <twobody/points.cuh>
#include <twobody/policy/kinds.cuh>
#include <twobody/value_traits.cuh>

namespace twobody {
namespace output {

struct global_atomics {
  static constexpr char const* name     = "global_atomics";
  static constexpr output_kind kind     = {name};  ///< its family, listed in model/registry.cuh
  static constexpr unsigned statistics  = serves(statistic_kind::histogram);
  static constexpr bool chosen_by_model = true;  ///< where the model predicts it faster than passes and spills
};

}  // namespace output

namespace detail {

template <class Binning, class Count, int BlockThreads>
struct global_histogram_agent {
  struct params {
    Binning bins;
    Count* counts;  ///< bins.size() + 1 slots, the last one for outside values
  };
  struct temp_storage {};

  params p;

  __device__ global_histogram_agent(params const& p_, temp_storage&, void*) : p(p_) {}

  template <class V>
  __device__ void accumulate(V const& v)
  {
    atomicAdd(p.counts + slot_of(p.bins, v), Count(1));
  }
  template <class V, class Wt>
  __device__ void accumulate(V const& v, Wt w)
  {
    atomicAdd(p.counts + slot_of(p.bins, v), static_cast<Count>(w));
  }
  __device__ void end_unit(unsigned long long) {}
  __device__ void finish() {}
};

}  // namespace detail
}  // namespace twobody
