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

#include <twobody/cpu/band_join.cuh>
#include <twobody/detail/band_keys.cuh>
#include <twobody/detail/sorted_join.cuh>
#include <twobody/detail/staging.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/emitters.cuh>
#include <twobody/join.cuh>
#include <twobody/join_result.cuh>
#include <twobody/model/join_method.cuh>
#include <twobody/points.cuh>

#include <cuda/std/type_traits>

#include <cmath>
#include <cstdint>

namespace twobody {

namespace detail {

/// Every pair (the band join without a further predicate).
struct any_pair {
  template <class P>
  __host__ __device__ bool operator()(P const&, P const&) const
  {
    return true;
  }
};

/// The band on one column, then the emitter: the nested loop's test, and the sorted path's
/// where its ranges are a superset (an asymmetric band in self mode searches its hull).
template <class T, class E>
struct band_then {
  using record_type = typename E::record_type;
  band_fn<T> band;
  E e;
  template <class P>
  __host__ __device__ bool operator()(P const& a, P const& b, size_type i, size_type j, record_type& r) const
  {
    return band(a, b) && e(a, b, i, j, r);
  }
};

template <class Points>
void check_band(pair_set<Points> const& pairs, int column, typename Points::value_type lower,
                typename Points::value_type upper, join_options const& opt)
{
  (void)pairs;
  TWOBODY_EXPECTS(column >= 0 && column < Points::dims, "band_join: column out of range");
  TWOBODY_EXPECTS(!std::isnan(static_cast<double>(lower)) && !std::isnan(static_cast<double>(upper)) && lower <= upper,
                  "band_join: need lower <= upper (and neither NaN)");
  TWOBODY_EXPECTS(!(pairs.mode == pair_mode::ordered && opt.method == join_method::sorted),
                  "band_join: the sorted path takes self and cross pairs; ordered pairs run the nested loop "
                  "(join_method::nested_loop or automatic)");
}

/// The method a band join over `pairs` runs with, on the GPU or the CPU backend.
template <class Points>
join_method band_join_method(pair_set<Points> const& pairs, join_options const& opt, bool gpu)
{
  if (pairs.mode == pair_mode::ordered) { return join_method::nested_loop; }
  double const rows = static_cast<double>(pairs.a.size) + (pairs.mode == pair_mode::cross ? static_cast<double>(pairs.b.size) : 0.0);
  return model::choose_join_method(opt.method, static_cast<double>(pairs.count()), rows,
                                   gpu ? model::h100_join_costs : model::cpu_join_costs);
}

/// Stages `pairs` (self or cross, not empty) on the device, builds the sorted key ranges of
/// `band` and returns run(dev, ranges, exact): exact when every candidate lies in the band (cross
/// mode, or a symmetric band); else (an asymmetric band in self mode) the ranges are those of
/// its symmetric hull and the band must be tested on each candidate.
template <class Points, class Run>
auto with_band_ranges(pair_set<Points> const& pairs, band_fn<typename Points::value_type> const& band,
                      cudaStream_t stream, Run&& run)
{
  using T = typename Points::value_type;
  staged_pairs<Points> const staged(pairs, stream);
  pair_set<Points> const dev = staged.pairs();
  band_test<T> const test    = make_band_test(band.lower, band.upper);
  bool const exact           = dev.mode == pair_mode::cross || test.symmetric();
  key_ranges<T> const r      = build_key_ranges(dev, band.column, exact ? test : test.hull(), stream);
  return run(dev, r.view, exact);
}

/// The GPU's sorted band join of device- or host-resident pairs into `sink`. `filtered`: `e`
/// is a further test (else every candidate is a result and `e` is unused).
template <class Points, class E, class Sink>
join_stats run_sorted_band_join(pair_set<Points> const& pairs, band_fn<typename Points::value_type> const& band,
                                E const& e, bool filtered, Sink& sink, join_options const& opt, cudaStream_t stream)
{
  using T = typename Points::value_type;
  if (pairs.count() == 0) {
    join_stats st;
    st.rounds = 1;
    return st;
  }
  return with_band_ranges(pairs, band, stream, [&](pair_set<Points> const& dev, range_view const& v, bool exact) {
    if (!exact) { return filter_key_ranges(v, dev, band_then<T, E>{band, e}, sink, opt, stream); }
    if constexpr (cuda::std::is_same_v<typename E::record_type, index_pair>) {
      if (!filtered) { return write_key_ranges(v, sink, opt, stream); }
    }
    return filter_key_ranges(v, dev, e, sink, opt, stream);
  });
}

template <class Input, class Output, class Points, class X>
join_result<join_record_t<X>> band_join_impl(execution_policy const& exec, pair_set<Points> const& pairs, int column,
                                             typename Points::value_type lower, typename Points::value_type upper,
                                             X const& x, bool filtered, join_options const& opt)
{
  using T      = typename Points::value_type;
  auto const e = as_emitter(x);
  using E      = decltype(e);
  using Record = typename E::record_type;
  check_band(pairs, column, lower, upper, opt);
  check_options<Output, Record>(opt);
  band_fn<T> const band{column, lower, upper};
  return on_backend(
    exec, "band_join", pairs,
    [&] {
      if (band_join_method(pairs, opt, false) == join_method::sorted) {
        auto records = cpu::band_join(pairs, column, lower, upper, x);
        join_stats st;
        st.results = records.size();
        st.rounds  = 1;
        st.method  = join_method::sorted;
        return join_result<Record>(std::move(records), st);
      }
      return cpu_join(pairs, band_then<T, E>{band, e});
    },
    [&](cudaStream_t stream) {
      if (band_join_method(pairs, opt, true) == join_method::sorted) {
        return collect_join<Record>(opt, [&](auto& sink) {
          join_stats st = run_sorted_band_join(pairs, band, e, filtered, sink, opt, stream);
          st.method     = join_method::sorted;
          return st;
        });
      }
      return collect_join<Record>(opt, [&](auto& sink) {
        return run_join<Input, Output>(pairs, band_then<T, E>{band, e}, sink, opt, stream);
      });
    });
}

template <class X>
inline constexpr bool is_join_options_v = cuda::std::is_same_v<cuda::std::decay_t<X>, join_options>;

}  // namespace detail

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
  using T = typename Points::value_type;
  detail::check_band(pairs, column, lower, upper, opt);
  return detail::on_backend(
    exec, "band_join_count", pairs,
    [&]() -> std::uint64_t {
      if (detail::band_join_method(pairs, opt, false) == join_method::sorted) {
        return cpu::band_join(pairs, column, lower, upper, detail::any_pair{}).size();
      }
      return cpu::join(pairs, band_fn<T>{column, lower, upper}).size();
    },
    [&](cudaStream_t stream) -> std::uint64_t {
      if (pairs.count() == 0) { return 0; }
      if (detail::band_join_method(pairs, opt, true) == join_method::nested_loop) {
        return band_join(exec, pairs, column, lower, upper, opt).size();
      }
      band_fn<T> const band{column, lower, upper};
      return detail::with_band_ranges(
        pairs, band, stream, [&](pair_set<Points> const& dev, detail::range_view const& v, bool exact) -> std::uint64_t {
          return exact ? v.total : detail::count_key_ranges(v, dev, detail::as_emitter(band), stream);
        });
    });
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
