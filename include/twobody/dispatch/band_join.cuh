/// \file band_join.cuh
/// \brief The dispatch of band and equi-joins: checks the band and the options, picks the sorted
/// or the nested-loop path (model/join_method.cuh) per backend, and runs it: the sorted path
/// through detail/sorted_join.cuh, the nested loop through dispatch/join.cuh. band_join.cuh's
/// forms call it.
#pragma once

#include <twobody/cpu/band_join.cuh>
#include <twobody/detail/sorted_join.cuh>
#include <twobody/dispatch/as_emitter.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/dispatch/join.cuh>
#include <twobody/emitters.cuh>
#include <twobody/join_result.cuh>
#include <twobody/math/band_keys.cuh>
#include <twobody/model/join_method.cuh>
#include <twobody/points.cuh>
#include <twobody/util/staging.cuh>

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

/// The band join's GPU side (band_join_impl checked the arguments): sorted, or the nested loop.
template <class Input, class Output, class Points, class E>
join_result<typename E::record_type> band_join_gpu(pair_set<Points> const& pairs, band_fn<typename Points::value_type> const& band,
                                                   E const& e, bool filtered, join_options const& opt, cudaStream_t stream)
{
  using Record = typename E::record_type;
  if (band_join_method(pairs, opt, true) == join_method::sorted) {
    return collect_join<Record>(opt, [&](auto& sink) {
      join_stats st = run_sorted_band_join(pairs, band, e, filtered, sink, opt, stream);
      st.method     = join_method::sorted;
      return st;
    });
  }
  return collect_join<Record>(opt, [&](auto& sink) {
    return run_join<Input, Output>(pairs, band_then<typename Points::value_type, E>{band, e}, sink, opt, stream);
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
    [&](cudaStream_t stream) { return band_join_gpu<Input, Output>(pairs, band, e, filtered, opt, stream); });
}

/// band_join_count: on the GPU's sorted path the prefix sum over the ranges (self mode with an
/// asymmetric band: the candidates counted by the pair engine); else the records of the join
/// (with the policies Input and Output on the GPU's nested loop).
template <class Input, class Output, class Points>
std::uint64_t band_join_count_impl(execution_policy const& exec, pair_set<Points> const& pairs, int column,
                                   typename Points::value_type lower, typename Points::value_type upper,
                                   join_options const& opt)
{
  using T = typename Points::value_type;
  check_band(pairs, column, lower, upper, opt);
  check_options<Output, index_pair>(opt);
  return on_backend(
    exec, "band_join_count", pairs,
    [&]() -> std::uint64_t {
      if (band_join_method(pairs, opt, false) == join_method::sorted) {
        return cpu::band_join(pairs, column, lower, upper, any_pair{}).size();
      }
      return cpu::join(pairs, band_fn<T>{column, lower, upper}).size();
    },
    [&](cudaStream_t stream) -> std::uint64_t {
      if (pairs.count() == 0) { return 0; }
      if (band_join_method(pairs, opt, true) == join_method::nested_loop) {
        return band_join_gpu<Input, Output>(pairs, band_fn<T>{column, lower, upper}, as_emitter(any_pair{}), false, opt, stream)
          .size();
      }
      band_fn<T> const band{column, lower, upper};
      return with_band_ranges(
        pairs, band, stream, [&](pair_set<Points> const& dev, range_view const& v, bool exact) -> std::uint64_t {
          return exact ? v.total : count_key_ranges(v, dev, as_emitter(band), stream);
        });
    });
}

template <class X>
inline constexpr bool is_join_options_v = cuda::std::is_same_v<cuda::std::decay_t<X>, join_options>;

}  // namespace detail

}  // namespace twobody
