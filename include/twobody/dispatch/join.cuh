/// \file dispatch/join.cuh
/// \brief The GPU and CPU runs of a join that every join entry point (join.cuh, band_join.cuh,
/// grid_join.cuh, highdim_join.cuh) goes through: option checks, staging, the one-pass or
/// two-pass driver, and how the records are collected (device array or host rounds).
#pragma once

#include <twobody/cpu/backend.cuh>
#include <twobody/detail/join_driver.cuh>
#include <twobody/dispatch/as_emitter.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/emitters.cuh>
#include <twobody/execution.cuh>
#include <twobody/join_result.cuh>
#include <twobody/points.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/staging.cuh>
#include <twobody/util/validate.cuh>

#include <cmath>
#include <string>
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

/// The nested-loop join of `pairs` into `sink`, by the policies Input and Output. The caller has
/// checked the pairs (validate: also fewer than 2^32 points per side, as the 32-bit record
/// indices need) and the options (check_options).
template <class Input, class Output, class Points, class Emitter, class Sink>
join_stats run_join(pair_set<Points> const& pairs, Emitter const& e, Sink& sink, join_options const& opt,
                    cudaStream_t stream)
{
  check_record<typename Emitter::record_type>();
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

/// Records the CPU backend found, as the one-call forms return them (host memory, one round).
template <class Record>
join_result<Record> cpu_join_result(std::vector<Record> records)
{
  join_stats st;
  st.results = records.size();
  st.rounds  = 1;
  return {std::move(records), st};
}

/// The CPU backend's join as the one-call forms return it (host memory, (i, j) order).
template <class Points, class X>
join_result<join_record_t<X>> cpu_join(pair_set<Points> const& pairs, X const& x)
{
  return cpu_join_result(cpu::join(pairs, x));
}

/// join_each (join.cuh): checks the options; on_backend checks the pairs and runs the CPU
/// backend (consume called once) or run_join into a host sink.
template <class Input, class Output, class Points, class X, class Consume>
join_stats join_each_on(execution_policy const& exec, pair_set<Points> const& pairs, X const& x, Consume& consume,
                        join_options const& opt)
{
  auto const e = as_emitter(x);
  using Record = typename decltype(e)::record_type;
  check_options<Output, Record>(opt);
  return on_backend(
    exec, "join_each", pairs,
    [&] {
      auto const r = cpu_join(pairs, x);
      if (!r.empty()) { consume(r.data(), r.size()); }
      return r.stats();
    },
    [&](cudaStream_t stream) {
      host_sink<Record, cuda::std::remove_reference_t<Consume>> sink(consume);
      return run_join<Input, Output>(pairs, e, sink, opt, stream);
    });
}

/// join (join.cuh): checks the options; on_backend checks the pairs and runs the CPU backend or
/// run_join into the result's sink.
template <class Input, class Output, class Points, class X>
join_result<join_record_t<X>> join_on(execution_policy const& exec, pair_set<Points> const& pairs, X const& x,
                                      join_options const& opt)
{
  auto const e = as_emitter(x);
  using Record = typename decltype(e)::record_type;
  check_options<Output, Record>(opt);
  return on_backend(
    exec, "join", pairs, [&] { return cpu_join(pairs, x); },
    [&](cudaStream_t stream) {
      return collect_join<Record>(opt, [&](auto& sink) { return run_join<Input, Output>(pairs, e, sink, opt, stream); });
    });
}

}  // namespace detail

}  // namespace twobody
