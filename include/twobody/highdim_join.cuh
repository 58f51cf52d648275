/// \file highdim_join.cuh
/// \brief Similarity joins of high-dimensional rows (rows.cuh) on the tensor cores, with the
/// exact set of pairs:
///
///     auto x     = twobody::make_rows(n, 128, embeddings);                  // host or device memory
///     auto close = twobody::pairs_within(twobody::self_pairs(x), 0.5f);     // Euclidean <= 0.5, i < j
///     auto alike = twobody::join(twobody::self_pairs(x), twobody::at_least(twobody::cosine_similarity{}, 0.9f));
///     twobody::sort_by_index(alike);                                         // order by (i, j)
///
/// join(pairs, pred) keeps the pairs whose metric value passes closer_than(metric, t) (value <
/// t), at_least(metric, t) (value >= t) or within_radius(r); pairs_within(pairs, eps[, metric])
/// keeps value <= eps (Euclidean by default; eps >= 0). Records are {i, j, value}
/// (index_pair_value<float>): the predicate names its metric, so each record carries the pair's
/// value.
///
/// Exactness (docs/highdim.md): the set of pairs equals the CPU backend's, whose values are the
/// exact evaluation of detail/row_exact.cuh; a pair the tensor cores cannot decide within their
/// proven margin is recomputed exactly. A record's value is the exact value for those pairs and
/// the tensor-core approximation (within the margin, and on the kept side of the threshold)
/// for the others. A pair with a NaN coordinate never joins.
///
/// The join runs as the points' joins do (join.cuh): one pass into the pages of a direct
/// output buffer (pages owned by warps), rolled back and resumed in rounds when the pool runs
/// out, with results in device memory, in host memory (join_options::location) or streamed to
/// a callback (join_each); the pool starts at an estimate counted on up to 1024 sampled tile
/// pairs (join_options::sample_pairs is not used). GPU record order is unspecified. The
/// explicit form names the output: join<output::direct_output_buffer<32, output::page_owner::thread>>(...).
#pragma once

#include <twobody/cpu/rows.cuh>
#include <twobody/detail/device_buffer.cuh>
#include <twobody/detail/engine.cuh>
#include <twobody/detail/error.cuh>
#include <twobody/detail/join_driver.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/detail/mma_traversal.cuh>
#include <twobody/detail/row_rules.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/execution.cuh>
#include <twobody/highdim.cuh>
#include <twobody/join.cuh>
#include <twobody/join_result.cuh>
#include <twobody/output/direct_output_buffer.cuh>
#include <twobody/rows.cuh>

#include <cuda/std/type_traits>

#include <cmath>
#include <string>
#include <vector>

namespace twobody {

/// The output of row joins: pages of 128 records per warp (the warp's records land side by
/// side; its recomputed pairs are pushed by the whole warp). On the H100 at N = 65,536, D = 128
/// (23 M records) this took 38 ms where pages of 32 records per thread took 108 ms: their
/// per-lane page logic diverges and stalls on instruction fetch and barriers
/// (bench_highdim join/twobody/* against join/twobody_thread32/*).
using default_row_join_output = output::direct_output_buffer<128, output::page_owner::warp>;

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

}  // namespace detail

/// Calls consume(records, n) on the host for the records of each round (host memory, valid
/// during the call), while the next round computes: joins larger than GPU memory. On the CPU
/// backend consume is called once, with every record in (i, j) order.
template <class Output = default_row_join_output, class T, bool W, class Pred, class Consume>
join_stats join_each(execution_policy const& exec, pair_set<rows<T, W>> const& pairs, Pred const& pred, Consume&& consume,
                     join_options const& opt = {})
{
  detail::check_options<Output, index_pair_value<float>>(opt);
  return detail::on_backend(
    exec, "join_each", pairs,
    [&] {
      auto const r = detail::cpu_row_join(pairs, pred);
      if (!r.empty()) { consume(r.data(), r.size()); }
      return r.stats();
    },
    [&](cudaStream_t stream) {
      detail::host_sink<index_pair_value<float>, cuda::std::remove_reference_t<Consume>> sink(consume);
      return detail::run_row_join<Output>(pairs, pred, sink, opt, stream);
    });
}

/// join_each of rows under exec::automatic on `stream`.
template <class Output = default_row_join_output, class T, bool W, class Pred, class Consume>
join_stats join_each(pair_set<rows<T, W>> const& pairs, Pred const& pred, Consume&& consume, join_options const& opt = {},
                     cudaStream_t stream = 0)
{
  return join_each<Output>(exec::automatic.on(stream), pairs, pred, consume, opt);
}

/// One-call join of rows: every pair whose value passes `pred`, as {i, j, value}, in device
/// memory (default) or host memory (opt.location); the CPU backend returns host memory in
/// (i, j) order. Synchronizes exec.stream.
template <class Output = default_row_join_output, class T, bool W, class Pred>
join_result<index_pair_value<float>> join(execution_policy const& exec, pair_set<rows<T, W>> const& pairs, Pred const& pred,
                                          join_options const& opt = {})
{
  detail::check_options<Output, index_pair_value<float>>(opt);
  return detail::on_backend(
    exec, "join", pairs, [&] { return detail::cpu_row_join(pairs, pred); },
    [&](cudaStream_t stream) {
      return detail::collect_join<index_pair_value<float>>(
        opt, [&](auto& sink) { return detail::run_row_join<Output>(pairs, pred, sink, opt, stream); });
    });
}

/// join of rows under exec::automatic on `stream`.
template <class Output = default_row_join_output, class T, bool W, class Pred>
join_result<index_pair_value<float>> join(pair_set<rows<T, W>> const& pairs, Pred const& pred, join_options const& opt = {},
                                          cudaStream_t stream = 0)
{
  return join<Output>(exec::automatic.on(stream), pairs, pred, opt);
}

/// Similarity join of rows: the pairs with metric value <= eps (eps finite and >= 0), as
/// {i, j, value}.
template <class Output = default_row_join_output, class T, bool W, class Metric = euclidean>
join_result<index_pair_value<float>> pairs_within(execution_policy const& exec, pair_set<rows<T, W>> const& pairs, float eps,
                                                  Metric metric = {}, join_options const& opt = {})
{
  return join<Output>(exec, pairs, detail::at_most(metric, eps), opt);
}

/// pairs_within of rows under exec::automatic on `stream`.
template <class Output = default_row_join_output, class T, bool W, class Metric = euclidean>
join_result<index_pair_value<float>> pairs_within(pair_set<rows<T, W>> const& pairs, float eps, Metric metric = {},
                                                  join_options const& opt = {}, cudaStream_t stream = 0)
{
  return pairs_within<Output>(exec::automatic.on(stream), pairs, eps, metric, opt);
}

}  // namespace twobody
