/// \file band_join.cuh
/// \brief Band and equi-joins on one key column, sort-based where that is cheaper than the
/// nested loop, with an optional further predicate on the whole rows (multi-predicate joins).
///
///     auto eq   = twobody::equi_join(twobody::cross_pairs(A, B), /*column*/ 0);     // a[0] == b[0]
///     auto band = twobody::band_join(twobody::cross_pairs(A, B), 0, -2, 2);         // -2 <= b[0] - a[0] <= 2
///     auto both = twobody::band_join(twobody::cross_pairs(A, B), 0, -2, 2, pred);   // ... and pred(a, b)
///     auto n    = twobody::band_join_count(twobody::self_pairs(A), 0, -2, 2);      // how many, nothing stored
///
/// The sorted path (join_method::sorted): both key columns sorted with their row indices (CUB
/// radix sort), each row's range of partners found by binary search, the result size known
/// from a prefix sum over the range lengths; then either every candidate is written straight
/// into an array of that size, or (a further predicate) the candidates are the work units of
/// the pair engine, so the predicate runs only inside the ranges. Candidates are spread evenly
/// over the threads by a merge path over (rows, candidates), so one key holding most rows does
/// not serialise on one thread. join_options::method forces either path; automatic takes the
/// cheaper by model/join_method.cuh. Keys: 32/64-bit integers (exact differences) or
/// float/double (the rounded difference b - a, as the nested loop computes it); NaN keys never
/// match. Both paths and the CPU backend keep the same pairs. Ordered pair sets run the nested
/// loop.
#pragma once

#include <twobody/defaults.cuh>
#include <twobody/dispatch/band_join.cuh>
#include <twobody/emitters.cuh>
#include <twobody/execution.cuh>
#include <twobody/functors.cuh>
#include <twobody/join_result.cuh>
#include <twobody/points.cuh>

#include <cuda/std/tuple>
#include <cuda/std/type_traits>

#include <cstdint>

namespace twobody {

// ---------------------------------------------------------------------------------------------
// Band joins

/// Band join on one column: the (i, j) with lower <= b[column] - a[column] <= upper, as index
/// pairs (self mode: each unordered pair once, i < j, tested as band(a_i, a_j)). Sorted or
/// nested loop by opt.method (automatic: the cheaper); Input and Output name the nested loop's
/// policies. Host or device arrays; a device result by default (opt.location).
template <class Input = default_input, class Output = default_join_output, class Points>
join_result<index_pair> band_join(execution_policy const& exec, pair_set<Points> const& pairs, int column,
                                  typename Points::value_type lower, typename Points::value_type upper,
                                  join_options const& opt = {})
{
  return detail::band_join_impl<Input, Output>(exec, pairs, column, lower, upper, detail::any_pair{}, false, opt);
}

/// band_join under exec::automatic on `stream`.
template <class Input = default_input, class Output = default_join_output, class Points>
join_result<index_pair> band_join(pair_set<Points> const& pairs, int column, typename Points::value_type lower,
                                  typename Points::value_type upper, join_options const& opt = {},
                                  cudaStream_t stream = 0)
{
  return band_join<Input, Output>(exec::automatic.on(stream), pairs, column, lower, upper, opt);
}

/// Multi-predicate band join: the pairs in the band that `x` (a predicate on the two rows, or
/// an emitter) also keeps. On the sorted path `x` runs only on the pairs within the band.
template <class Input = default_input, class Output = default_join_output, class Points, class X,
          class = cuda::std::enable_if_t<!detail::is_join_options_v<X>>>
join_result<join_record_t<X>> band_join(execution_policy const& exec, pair_set<Points> const& pairs, int column,
                                        typename Points::value_type lower, typename Points::value_type upper,
                                        X const& x, join_options const& opt = {})
{
  return detail::band_join_impl<Input, Output>(exec, pairs, column, lower, upper, x, true, opt);
}

/// Multi-predicate band_join under exec::automatic on `stream`.
template <class Input = default_input, class Output = default_join_output, class Points, class X,
          class = cuda::std::enable_if_t<!detail::is_join_options_v<X>>>
join_result<join_record_t<X>> band_join(pair_set<Points> const& pairs, int column, typename Points::value_type lower,
                                        typename Points::value_type upper, X const& x, join_options const& opt = {},
                                        cudaStream_t stream = 0)
{
  return band_join<Input, Output>(exec::automatic.on(stream), pairs, column, lower, upper, x, opt);
}

// ---------------------------------------------------------------------------------------------
// Equi-joins: the band [0, 0]

/// Equi-join on one column: the (i, j) with a[column] == b[column] (integer keys exactly;
/// floating keys: -0 equals +0, NaN equals nothing).
template <class Input = default_input, class Output = default_join_output, class Points>
join_result<index_pair> equi_join(execution_policy const& exec, pair_set<Points> const& pairs, int column,
                                  join_options const& opt = {})
{
  using T = typename Points::value_type;
  return band_join<Input, Output>(exec, pairs, column, T(0), T(0), opt);
}

template <class Input = default_input, class Output = default_join_output, class Points>
join_result<index_pair> equi_join(pair_set<Points> const& pairs, int column, join_options const& opt = {},
                                  cudaStream_t stream = 0)
{
  return equi_join<Input, Output>(exec::automatic.on(stream), pairs, column, opt);
}

/// Multi-predicate equi-join: equal keys on `column`, and `x` (predicate or emitter) on the rows.
template <class Input = default_input, class Output = default_join_output, class Points, class X,
          class = cuda::std::enable_if_t<!detail::is_join_options_v<X>>>
join_result<join_record_t<X>> equi_join(execution_policy const& exec, pair_set<Points> const& pairs, int column,
                                        X const& x, join_options const& opt = {})
{
  using T = typename Points::value_type;
  return band_join<Input, Output>(exec, pairs, column, T(0), T(0), x, opt);
}

template <class Input = default_input, class Output = default_join_output, class Points, class X,
          class = cuda::std::enable_if_t<!detail::is_join_options_v<X>>>
join_result<join_record_t<X>> equi_join(pair_set<Points> const& pairs, int column, X const& x,
                                        join_options const& opt = {}, cudaStream_t stream = 0)
{
  return equi_join<Input, Output>(exec::automatic.on(stream), pairs, column, x, opt);
}

// ---------------------------------------------------------------------------------------------
// Counting

/// The number of pairs band_join would return, without storing them: on the GPU's sorted path
/// the prefix sum over the ranges (self mode with an asymmetric band: the candidates counted
/// by the pair engine); else the records of the join.
template <class Points>
std::uint64_t band_join_count(execution_policy const& exec, pair_set<Points> const& pairs, int column,
                              typename Points::value_type lower, typename Points::value_type upper,
                              join_options const& opt = {})
{
  return detail::band_join_count_impl<default_input, default_join_output>(exec, pairs, column, lower, upper, opt);
}

/// band_join_count under exec::automatic on `stream`.
template <class Points>
std::uint64_t band_join_count(pair_set<Points> const& pairs, int column, typename Points::value_type lower,
                              typename Points::value_type upper, join_options const& opt = {}, cudaStream_t stream = 0)
{
  return band_join_count(exec::automatic.on(stream), pairs, column, lower, upper, opt);
}

// ---------------------------------------------------------------------------------------------
// join() with a band declared as the predicate: the same choice as band_join

/// join(exec, pairs, band_fn{column, lower, upper}): band_join (sorted or nested loop by
/// opt.method).
template <class Input = default_input, class Output = default_join_output, class Points, class T>
join_result<index_pair> join(execution_policy const& exec, pair_set<Points> const& pairs, band_fn<T> const& band,
                             join_options const& opt = {})
{
  static_assert(cuda::std::is_same_v<T, typename Points::value_type>, "join: band_fn<T> needs T = the table's type");
  return band_join<Input, Output>(exec, pairs, band.column, band.lower, band.upper, opt);
}

/// join(exec, pairs, all_of(band_fn{...}, more...)): a band first, then further predicates:
/// band_join with all_of(more...) as its further predicate (on the sorted path it runs only
/// inside the band).
template <class Input = default_input, class Output = default_join_output, class Points, class T, class... More>
join_result<index_pair> join(execution_policy const& exec, pair_set<Points> const& pairs,
                             all_of_fn<band_fn<T>, More...> const& preds, join_options const& opt = {})
{
  static_assert(cuda::std::is_same_v<T, typename Points::value_type>, "join: band_fn<T> needs T = the table's type");
  band_fn<T> const& band = cuda::std::get<0>(preds.preds);
  auto const more        = cuda::std::apply(
    [](auto const&, auto const&... rest) { return all_of_fn<More...>{cuda::std::make_tuple(rest...)}; }, preds.preds);
  return band_join<Input, Output>(exec, pairs, band.column, band.lower, band.upper, more, opt);
}

}  // namespace twobody
