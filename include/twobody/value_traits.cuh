/// \file value_traits.cuh
/// \brief What a functor's value means and what a bin map accepts, checked at compile time so
/// that a histogram cannot silently bin distances with a map made for squared distances.
///
/// A functor that returns a *squared* distance says so, and a bin map that takes squared
/// distances (distance_bins) accepts only such functors:
///
///     struct my_sq_dist {
///       static constexpr bool returns_squared_distance = true;   // or specialize the trait
///       template <class T, int D>
///       __host__ __device__ T operator()(twobody::point<T, D> const& a, twobody::point<T, D> const& b) const;
///     };
///
/// A user bin map may promise that it always returns a slot in [0, size()] with
/// `static constexpr bool bounded_slots = true;`; maps without that promise have their slot
/// clamped onto the outside slot (one min per pair), so a wrong slot is never written out of
/// bounds.
///
/// A functor may tell the cost model what one pair costs it, relative to `squared_euclidean`
/// binned by `distance_bins` (1, the calibration's own functor) with
/// `static constexpr double relative_cost = 2.0;`. The model then prices its shared-memory
/// passes accordingly when it chooses between them, a spilling pass and global atomics for a
/// histogram past shared memory (model/policy.cuh). Functors that say nothing cost 1.
///
/// A functor with f(a, b) == f(b, a) may say so with `static constexpr bool symmetric = true;`
/// (the library's metrics, kernels and radius predicates do). Per-point sums over ordered pairs
/// then evaluate each unordered pair once and add its value to both points (half the pairs).
#pragma once

#include <cuda/std/type_traits>

namespace twobody {

/// True when F's value is a squared distance (F::returns_squared_distance, or a specialization).
template <class F, class = void>
struct returns_squared_distance : cuda::std::false_type {};
template <class F>
struct returns_squared_distance<F, cuda::std::void_t<decltype(F::returns_squared_distance)>>
  : cuda::std::bool_constant<F::returns_squared_distance> {};

/// True when the bin map takes squared distances (Binning::expects_squared_distance).
template <class Binning, class = void>
struct expects_squared_distance : cuda::std::false_type {};
template <class Binning>
struct expects_squared_distance<Binning, cuda::std::void_t<decltype(Binning::expects_squared_distance)>>
  : cuda::std::bool_constant<Binning::expects_squared_distance> {};

/// True when the bin map promises slots in [0, size()] (Binning::bounded_slots).
template <class Binning, class = void>
struct has_bounded_slots : cuda::std::false_type {};
template <class Binning>
struct has_bounded_slots<Binning, cuda::std::void_t<decltype(Binning::bounded_slots)>>
  : cuda::std::bool_constant<Binning::bounded_slots> {};

/// The cost model's price of one pair of F relative to squared_euclidean with distance_bins
/// (F::relative_cost, else 1).
template <class F, class = void>
struct relative_pair_cost {
  static constexpr double value = 1.0;
};
template <class F>
struct relative_pair_cost<F, cuda::std::void_t<decltype(F::relative_cost)>> {
  static constexpr double value = static_cast<double>(F::relative_cost);
  static_assert(value > 0.0, "relative_cost must be positive");
};

/// True when f(a, b) == f(b, a) for every pair (F::symmetric, or a specialization).
template <class F, class = void>
struct is_symmetric : cuda::std::false_type {};
template <class F>
struct is_symmetric<F, cuda::std::void_t<decltype(F::symmetric)>> : cuda::std::bool_constant<F::symmetric> {};
template <class F>
inline constexpr bool is_symmetric_v = is_symmetric<F>::value;

}  // namespace twobody
