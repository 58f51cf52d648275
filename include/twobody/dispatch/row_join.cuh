/// \file row_join.cuh
/// \brief The dispatch of joins of high-dimensional rows: the row traversal's records in rounds
/// of per-warp output pages, each pair's value recomputed exactly where the tensor cores'
/// margin cannot decide it, and the CPU backend's exact loop. highdim_join.cuh's forms call it.
#pragma once

#include <twobody/cpu/rows.cuh>
#include <twobody/detail/join_driver.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/dispatch/join.cuh>
#include <twobody/dispatch/rows.cuh>
#include <twobody/engine/engine.cuh>
#include <twobody/execution.cuh>
#include <twobody/join_result.cuh>
#include <twobody/math/row_metric_kind.cuh>
#include <twobody/math/row_rules.cuh>
#include <twobody/output/direct_output_buffer.cuh>
#include <twobody/row_metrics.cuh>
#include <twobody/rows.cuh>
#include <twobody/rows/mma_traversal.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/error.cuh>

#include <cuda/std/type_traits>
#include <cmath>
#include <string>
#include <vector>

namespace twobody {
namespace detail {

/// One-pass join of rows into `sink` in rounds (join_driver.cuh's run_rounds). The public forms
/// have checked the options and the pairs (check_options, on_backend's validate).
template <class Output, class T, bool W, class Pred, class Sink>
join_stats run_row_join(pair_set<rows<T, W>> const& pairs, Pred const& pred, Sink& sink, join_options const& opt,
                        cudaStream_t stream)
{
  static_assert(Output::one_pass, "row joins take output::direct_output_buffer<PageRecords, Owner>");
  using Emitter = row_join_emitter<Pred>;
  using Rule    = row_predicate<Pred>;
  using Record  = typename Emitter::record_type;
  constexpr int PS            = Output::page_records;
  constexpr row_metric_kind M = Rule::metric;
  using traversal             = mma_traversal<T, M, Rule, W>;
  constexpr int B             = traversal::block_threads;
  using agent                 = typename dob_agent_of<Output, Record>::type;
  constexpr auto kernel  = pair_engine_kernel<traversal, join_visitor<agent, Emitter>, dynamic_units>;
  constexpr auto counter = pair_engine_kernel<traversal, join_visitor<record_counter<Record>, Emitter>, dynamic_units>;

  if (pairs.count() == 0) { return {}; }
  tile_schedule const sched =
    tile_schedule::make(pairs.mode, pairs.a.size, pairs.b.size, input::mma_tile::tile).with_bands(input::mma_tile::band_rows);
  auto const units          = static_cast<unsigned long long>(sched.total);
  require_row_core<typename traversal::core>(kernel);
  // The products' stages live in dynamic shared memory past 48 KiB (the visitor has none).
  std::size_t const smem = launch_smem<traversal, kernel>(0);
  (void)launch_smem<traversal, counter>(0);  // the same bytes: checks and raises the counter's limit
  int const grid = persistent_grid(kernel, B, smem, units);
  staged_row_pairs<T, W> const staged(pairs, stream);
  Rule const rule(pred);
  typename traversal::params const walk{pairs.mode, staged.a(), staged.b(), staged.dims_padded(), sched, traversal::core::relative_error(staged.dims_padded()),
                                        staged.abs_term(), rule, nullptr};
  Emitter const e{rule};
  return run_rounds<Record, PS>(
    sink, opt, units, grid, Output::owner == output::page_owner::warp ? B / 32 : B, "a tile pair of 128 x 128 rows",
    [&](std::uint64_t& estimate) {
      return estimate_from_sampled_units(units, estimate, stream,
                                         [&](dynamic_units::params const& from_list, unsigned long long* hits, unsigned long long n) {
                                           int const blocks = static_cast<int>(std::min<unsigned long long>(grid, n));
                                           counter<<<blocks, B, smem, stream>>>(walk, {{hits}, e}, from_list);
                                           TWOBODY_CHECK_LAUNCH();
                                         });
    },
    [&](page_pool<Record> const& pool, dynamic_units::params const& handing, int blocks) {
      kernel<<<blocks, B, smem, stream>>>(walk, {pool, e}, handing);
      TWOBODY_CHECK_LAUNCH();
    },
    stream);
}

/// The CPU backend's row join as the one-call forms return it (host memory, (i, j) order).
template <class T, bool W, class Pred>
join_result<index_pair_value<float>> cpu_row_join(pair_set<rows<T, W>> const& pairs, Pred const& pred)
{
  auto records = cpu::join(pairs, pred);
  join_stats st;
  st.results = records.size();
  st.rounds  = 1;
  return {std::move(records), st};
}

/// pairs_within's predicate: value <= eps is value < the next float above eps.
template <class Metric>
within<Metric, float> at_most(Metric metric, float eps)
{
  TWOBODY_EXPECTS(std::isfinite(eps), "pairs_within: eps must be finite");
  TWOBODY_EXPECTS(eps >= 0.0f, "pairs_within: eps must be >= 0");
  return closer_than(metric, std::nextafter(eps, INFINITY));
}

/// join_each of rows (highdim_join.cuh): checks the options; on_backend checks the pairs and
/// runs the CPU backend (consume called once) or run_row_join into a host sink.
template <class Output, class T, bool W, class Pred, class Consume>
join_stats row_join_each_on(execution_policy const& exec, pair_set<rows<T, W>> const& pairs, Pred const& pred,
                            Consume& consume, join_options const& opt)
{
  check_options<Output, index_pair_value<float>>(opt);
  return on_backend(
    exec, "join_each", pairs,
    [&] {
      auto const r = cpu_row_join(pairs, pred);
      if (!r.empty()) { consume(r.data(), r.size()); }
      return r.stats();
    },
    [&](cudaStream_t stream) {
      host_sink<index_pair_value<float>, cuda::std::remove_reference_t<Consume>> sink(consume);
      return run_row_join<Output>(pairs, pred, sink, opt, stream);
    });
}

/// join of rows (highdim_join.cuh): checks the options; on_backend checks the pairs and runs the
/// CPU backend or run_row_join into the result's sink.
template <class Output, class T, bool W, class Pred>
join_result<index_pair_value<float>> row_join_on(execution_policy const& exec, pair_set<rows<T, W>> const& pairs,
                                                 Pred const& pred, join_options const& opt)
{
  check_options<Output, index_pair_value<float>>(opt);
  return on_backend(
    exec, "join", pairs, [&] { return cpu_row_join(pairs, pred); },
    [&](cudaStream_t stream) {
      return collect_join<index_pair_value<float>>(
        opt, [&](auto& sink) { return run_row_join<Output>(pairs, pred, sink, opt, stream); });
    });
}

}  // namespace detail

}  // namespace twobody
