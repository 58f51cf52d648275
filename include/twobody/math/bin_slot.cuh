/// \file bin_slot.cuh
/// \brief What every histogram path does with a bin map (value_traits.cuh): the compile-time
/// check that a functor's values are what the map takes, and the slot of a value, clamped onto
/// the outside slot unless the map promises its bounds.
#pragma once

#include <twobody/value_traits.cuh>

namespace twobody {

namespace detail {

/// Compile-time check of every histogram entry point: the functor's values are what the map takes.
template <class F, class Binning>
constexpr void check_bins_accept()
{
  static_assert(!expects_squared_distance<Binning>::value || returns_squared_distance<F>::value,
                "twobody::histogram: this bin map (distance_bins) takes SQUARED distances, but the functor does "
                "not declare that it returns them. Use twobody::squared_euclidean or periodic_squared_euclidean "
                "with distance_bins, or twobody::euclidean with uniform_bins; a functor of your own that returns "
                "|a - b|^2 declares: static constexpr bool returns_squared_distance = true;");
}

/// The slot of value v, clamped onto the outside slot size() unless the map promises bounds.
template <class Binning, class V>
__host__ __device__ __forceinline__ int slot_of(Binning const& bins, V const& v)
{
  if constexpr (has_bounded_slots<Binning>::value) {
    return bins(v);
  } else {
    unsigned const s = static_cast<unsigned>(bins(v));  // negative slots wrap past size()
    unsigned const n = static_cast<unsigned>(bins.size());
    return static_cast<int>(s < n ? s : n);
  }
}

}  // namespace detail

}  // namespace twobody
