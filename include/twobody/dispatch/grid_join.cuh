/// \file grid_join.cuh
/// \brief The dispatch of joins over a grid_index: checks eps against the index's cutoff, picks
/// the minimum-image or Euclidean test, and runs the grid traversal in rounds of per-thread
/// output pages (detail/join_driver.cuh). grid_join.cuh's forms call it.
#pragma once

#include <twobody/detail/grid_index.cuh>
#include <twobody/detail/grid_kernels.cuh>
#include <twobody/detail/join_driver.cuh>
#include <twobody/dispatch/as_emitter.cuh>
#include <twobody/dispatch/grid.cuh>
#include <twobody/dispatch/join.cuh>
#include <twobody/emitters.cuh>
#include <twobody/functors.cuh>
#include <twobody/grid_options.cuh>
#include <twobody/join_result.cuh>
#include <twobody/output/direct_output_buffer.cuh>
#include <twobody/points.cuh>
#include <twobody/util/error.cuh>

#include <cuda_runtime_api.h>
#include <algorithm>
#include <cstdint>
#include <string>

namespace twobody {
namespace detail {

template <class Output, class T, int D, class Emitter, class Sink>
join_stats run_grid_join(grid_index<T, D> const& index, points<T, D> const* cross, Emitter const& e, Sink& sink,
                         join_options const& jopt, grid_options const& gopt, cudaStream_t stream)
{
  using Record = typename Emitter::record_type;
  static_assert(Output::one_pass && Output::owner == output::page_owner::thread,
                "grid joins write through per-thread pages: use output::direct_output_buffer<N, page_owner::thread>");
  constexpr int PS = Output::page_records;
  check_record<Record>();
  check_options<Output, Record>(jopt);
  grid_traversal<T, D> const tr(index, cross, gopt, stream);
  join_stats st;
  if (tr.empty()) {
    tr.report(stream);
    return st;
  }
  with_threads_per_query(gopt.threads_per_query, [&](auto k) {
    constexpr int K   = decltype(k)::value;
    constexpr int QPB = grid_block_threads / K;
    using visitor     = join_visitor<thread_page_agent<Record, PS>, Emitter>;
    using counter     = join_visitor<record_counter<Record>, Emitter>;
    unsigned long long const batches = tr.template batches<K>();
    int const grid = grid_blocks<K, visitor, T, D>(0);

    // The estimate: the records of 1024 batches spread over the queries, counted exactly.
    auto estimate_high = [&](std::uint64_t& estimate) {
      return estimate_from_sampled_units(
        batches, estimate, stream,
        [&](dynamic_units::params const& units, unsigned long long* hits, unsigned long long picks) {
          int const blocks = static_cast<int>(std::min<unsigned long long>(grid_blocks<K, counter, T, D>(0), picks));
          tr.template launch<K, counter>({{hits}, e}, units, 0, blocks, stream, false);
        });
    };
    st = run_rounds<Record, PS>(
      sink, jopt, batches, grid, grid_block_threads, "a batch of " + std::to_string(QPB) + " query points",
      estimate_high,
      [&](page_pool<Record> const& pool, dynamic_units::params const& units, int blocks) {
        tr.template launch<K, visitor>({pool, e}, units, 0, blocks, stream);
      },
      stream);
  });
  tr.report(stream);
  return st;
}

/// Checks eps against the index (a larger eps would miss pairs the grid never visits).
template <class T, int D>
T grid_eps(grid_index<T, D> const& index, T eps)
{
  T const e = checked_eps(eps);
  TWOBODY_EXPECTS(e <= index.cutoff(), ("pairs_within: eps (" + std::to_string(static_cast<double>(e)) +
                                        ") is larger than the grid_index cutoff (" +
                                        std::to_string(static_cast<double>(index.cutoff())) +
                                        "); build the index with a cutoff >= eps")
                                         .c_str());
  return e;
}

/// pairs_within over an index: Euclidean, or minimum-image for a periodic index.
template <class Output, class T, int D, class Sink>
join_stats grid_pairs_within(grid_index<T, D> const& index, points<T, D> const* cross, T eps, Sink& sink,
                             join_options const& jopt, grid_options const& gopt, cudaStream_t stream)
{
  T const e = grid_eps(index, eps);
  if (index.periodic()) {
    periodic_squared_euclidean<T, D> metric{};
    for (int d = 0; d < D; ++d) { metric.box[d] = index.box()[d]; }
    auto const em = as_emitter(metric_within_fn<periodic_squared_euclidean<T, D>, T>{metric, e * e});
    return run_grid_join<Output>(index, cross, em, sink, jopt, gopt, stream);
  }
  return run_grid_join<Output>(index, cross, as_emitter(within_eps_fn<T>{e * e}), sink, jopt, gopt, stream);
}

/// join with a cutoff (grid_join.cuh): through the grid (output GridOutput) or the one-call
/// join (Input, Output).
template <class Input, class Output, class GridOutput, class T, int D, class X>
join_result<join_record_t<X>> grid_join_on(execution_policy const& exec, pair_set<points<T, D>> const& pairs, X const& x,
                                           within_cutoff<T> const& rg, join_options const& jopt)
{
  return range_limited(
    exec, pairs, rg, x, "join",
    [&](grid_index<T, D> const& index, points<T, D> const* cross) {
      auto const e = as_emitter(x);
      return collect_join<join_record_t<X>>(
        jopt, [&](auto& sink) { return run_grid_join<GridOutput>(index, cross, e, sink, jopt, rg.grid, exec.stream); });
    },
    [&](cpu::cell_list<T, D> const& cells, points<T, D> const* cross) {
      return cpu_join_result(cpu::join(cells, cross, x, rg.grid.stats));
    },
    [&](execution_policy const& e) { return join_on<Input, Output>(e, pairs, x, jopt); });
}

}  // namespace detail

}  // namespace twobody
