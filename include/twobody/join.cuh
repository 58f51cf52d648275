/// \file join.cuh
/// \brief Type III statistics: a record for every pair that passes a predicate (similarity
/// joins, theta and band joins), with a result size unknown until the kernel has run.
///
///     auto pts  = twobody::make_points(n, d_x, d_y, d_z);
///     auto near = twobody::pairs_within(twobody::self_pairs(pts), 0.5f);   // index pairs, i < j
///     auto hits = twobody::join(twobody::cross_pairs(A, B), my_predicate);  // any predicate
///     twobody::sort_by_index(near);                                          // order by (i, j)
///
/// What a pair emits is up to an *emitter*: a `__host__ __device__` functor with a
/// `record_type` (trivially copyable) and `bool operator()(a, b, i, j, record_type& out)`
/// that fills `out` and returns true for the pairs to keep. A plain predicate
/// `bool(a, b)` emits `index_pair{i, j}`; `emit_if<Record>(pred, make)` builds other records.
///
/// The one pass (output::direct_output_buffer) writes records into pages of a device pool.
/// When the pool runs out, the unfinished work units are rolled back and redone in another
/// round after the filled pages are drained, so nothing is lost or doubled, and a result
/// larger than GPU memory streams to the host (result_location::host, or join_each with a
/// callback) with a device memory budget the caller can set. The pool starts at a sampled
/// estimate of the result size, so most joins take one round. output::two_pass is the
/// classic count / scan / write baseline.
#pragma once

#include <twobody/cpu/backend.cuh>
#include <twobody/defaults.cuh>
#include <twobody/detail/error.cuh>
#include <twobody/detail/join_driver.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/detail/staging.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/emitters.cuh>
#include <twobody/join_result.cuh>
#include <twobody/output/direct_output_buffer.cuh>
#include <twobody/points.cuh>

#include <cuda/std/type_traits>

#include <cmath>
#include <vector>

namespace twobody {

namespace detail {

template <class T>
T checked_eps(T eps)
{
  TWOBODY_EXPECTS(!std::isnan(static_cast<double>(eps)), "join: eps is NaN");
  TWOBODY_EXPECTS(eps >= T(0), "join: eps must be >= 0");
  return eps;
}

/// Option checks that need no GPU.
template <class Output, class Record>
void check_options(join_options const& opt)
{
  if constexpr (Output::one_pass) {
    constexpr int PS = Output::page_records;
    TWOBODY_EXPECTS(opt.pool_records == 0 || opt.pool_records >= static_cast<std::size_t>(PS),
                    ("join: pool_records (" + std::to_string(opt.pool_records) + ") is smaller than one page (" +
                     std::to_string(PS) + " records)")
                      .c_str());
    double const page_bytes = pool_bytes_per_record(sizeof(Record), PS, opt.location == result_location::host) * PS;
    TWOBODY_EXPECTS(opt.device_memory_budget == 0 || static_cast<double>(opt.device_memory_budget) >= page_bytes,
                    ("join: a device memory budget of " + std::to_string(opt.device_memory_budget) +
                     " bytes (join_options::device_memory_budget) cannot hold one page of " + std::to_string(PS) +
                     " records (" + std::to_string(static_cast<std::size_t>(page_bytes)) + " bytes)")
                      .c_str());
  }
}

template <class Input, class Output, class Points, class Emitter, class Sink>
join_stats run_join(pair_set<Points> const& pairs, Emitter const& e, Sink& sink, join_options const& opt,
                    cudaStream_t stream)
{
  check_record<typename Emitter::record_type>();
  check_options<Output, typename Emitter::record_type>(opt);
  validate(pairs);  // also: fewer than 2^32 points per side, as the 32-bit record indices need
  if (pairs.count() == 0) { return {}; }
  staged_pairs<Points> const staged(pairs, stream);
  pair_set<Points> const dev = staged.pairs();
  if constexpr (Output::one_pass) {
    return run_one_pass<Input, Output>(dev, e, sink, opt, stream);
  } else {
    return run_two_pass<Input>(dev, e, sink, opt, stream);
  }
}

/// The result of a join that run(sink) performs: a device array, or host memory filled round
/// by round (opt.location).
template <class Record, class Run>
join_result<Record> collect_join(join_options const& opt, Run&& run)
{
  if (opt.location == result_location::host) {
    std::vector<Record> out;
    auto append = [&out](Record const* r, std::size_t n) { out.insert(out.end(), r, r + n); };
    host_sink<Record, decltype(append)> sink(append);
    join_stats const st = run(sink);
    return {std::move(out), st};
  }
  device_sink<Record> sink;
  join_stats const st = run(sink);
  std::size_t const n = sink.size();
  return {sink.release(), n, st};
}

/// The CPU backend's join as the one-call forms return it (host memory, (i, j) order).
template <class Points, class X>
join_result<join_record_t<X>> cpu_join(pair_set<Points> const& pairs, X const& x)
{
  auto records = cpu::join(pairs, x);
  join_stats st;
  st.results = records.size();
  st.rounds  = 1;
  return {std::move(records), st};
}

}  // namespace detail

/// The default join output: pages of 128 records per warp (a warp's records land side by side
/// and one atomic serves 128 records; bench_join selfjoin/dob_warp128 against dob_thread32).
using default_join_output = output::direct_output_buffer<128, output::page_owner::warp>;

// ---------------------------------------------------------------------------------------------
// Joins

/// Calls consume(records, n) on the host for the records of each round (host memory, valid
/// during the call), while the next round computes. The memory a result needs on the GPU is
/// one pool within join_options::device_memory_budget: results larger than GPU memory work.
/// `x` is an emitter or a predicate (then records are index_pair). If consume throws, the
/// join stops and the exception propagates (records already delivered stay delivered). On the
/// CPU backend consume is called once, with every record in (i, j) order.
template <class Input = default_input, class Output = default_join_output, class Points, class X, class Consume>
join_stats join_each(execution_policy const& exec, pair_set<Points> const& pairs, X const& x, Consume&& consume,
                     join_options const& opt = {})
{
  auto const e = detail::as_emitter(x);
  using Record = typename decltype(e)::record_type;
  detail::check_options<Output, Record>(opt);
  return detail::on_backend(
    exec, "join_each", pairs,
    [&] {
      auto const r = detail::cpu_join(pairs, x);
      if (!r.empty()) { consume(r.data(), r.size()); }
      return r.stats();
    },
    [&](cudaStream_t stream) {
      detail::host_sink<Record, cuda::std::remove_reference_t<Consume>> sink(consume);
      return detail::run_join<Input, Output>(pairs, e, sink, opt, stream);
    });
}

/// join_each under exec::automatic on `stream`.
template <class Input = default_input, class Output = default_join_output, class Points, class X, class Consume>
join_stats join_each(pair_set<Points> const& pairs, X const& x, Consume&& consume, join_options const& opt = {},
                     cudaStream_t stream = 0)
{
  return join_each<Input, Output>(exec::automatic.on(stream), pairs, x, consume, opt);
}

/// One-call join: every pair that `x` (an emitter, or a predicate for index pairs) keeps, in
/// a result owning device memory (default) or host memory (opt.location), on the backend
/// `exec` names (the CPU backend returns host memory in (i, j) order). Point arrays may be in
/// host or device memory on the GPU. Synchronizes exec.stream. The GPU's record order is
/// unspecified; see sort_by_index(). The explicit form names the input and output policies:
/// `join<input::shared_tile<256, 4>, output::two_pass>(exec::gpu, pairs, pred)`.
template <class Input = default_input, class Output = default_join_output, class Points, class X>
join_result<join_record_t<X>> join(execution_policy const& exec, pair_set<Points> const& pairs,
                                                            X const& x, join_options const& opt = {})
{
  auto const e = detail::as_emitter(x);
  using Record = typename decltype(e)::record_type;
  detail::check_options<Output, Record>(opt);
  return detail::on_backend(
    exec, "join", pairs, [&] { return detail::cpu_join(pairs, x); },
    [&](cudaStream_t stream) {
      return detail::collect_join<Record>(
        opt, [&](auto& sink) { return detail::run_join<Input, Output>(pairs, e, sink, opt, stream); });
    });
}

/// join under exec::automatic on `stream`.
template <class Input = default_input, class Output = default_join_output, class Points, class X>
join_result<join_record_t<X>> join(pair_set<Points> const& pairs, X const& x,
                                                            join_options const& opt = {}, cudaStream_t stream = 0)
{
  return join<Input, Output>(exec::automatic.on(stream), pairs, x, opt);
}

/// Similarity join: the pairs within Euclidean distance eps (|a - b| <= eps, tested on squared
/// distances), as index pairs. Self mode gives each unordered pair once with i < j.
template <class Input = default_input, class Output = default_join_output, class Points>
join_result<index_pair> pairs_within(execution_policy const& exec, pair_set<Points> const& pairs,
                                     typename Points::value_type eps, join_options const& opt = {})
{
  using T = typename Points::value_type;
  T const e = detail::checked_eps(eps);
  return join<Input, Output>(exec, pairs, within_eps_fn<T>{e * e}, opt);
}

/// pairs_within under exec::automatic on `stream`.
template <class Input = default_input, class Output = default_join_output, class Points>
join_result<index_pair> pairs_within(pair_set<Points> const& pairs, typename Points::value_type eps,
                                     join_options const& opt = {}, cudaStream_t stream = 0)
{
  return pairs_within<Input, Output>(exec::automatic.on(stream), pairs, eps, opt);
}

/// Similarity join under any metric functor: metric(a, b) <= eps, records {i, j, distance}.
template <class Input = default_input, class Output = default_join_output, class Points, class Metric>
join_result<index_pair_value<typename Points::value_type>> pairs_within(execution_policy const& exec,
                                                                        pair_set<Points> const& pairs,
                                                                        typename Points::value_type eps, Metric metric,
                                                                        join_options const& opt = {})
{
  using T = typename Points::value_type;
  return join<Input, Output>(exec, pairs, emit_pairs_within<Metric, T>{metric, detail::checked_eps(eps)}, opt);
}

/// pairs_within with a metric under exec::automatic on `stream`.
template <class Input = default_input, class Output = default_join_output, class Points, class Metric>
join_result<index_pair_value<typename Points::value_type>> pairs_within(pair_set<Points> const& pairs,
                                                                        typename Points::value_type eps, Metric metric,
                                                                        join_options const& opt = {},
                                                                        cudaStream_t stream = 0)
{
  return pairs_within<Input, Output>(exec::automatic.on(stream), pairs, eps, metric, opt);
}

}  // namespace twobody

// band_join, equi_join, and join() with a declared band (band_fn, or all_of(band_fn, ...)):
// sorted key ranges or the nested loop. Included last: it builds on the joins above.
#include <twobody/band_join.cuh>
