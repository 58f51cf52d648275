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
/// exact evaluation of math/row_exact.cuh; a pair the tensor cores cannot decide within their
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

#include <twobody/dispatch/row_join.cuh>
#include <twobody/execution.cuh>
#include <twobody/highdim.cuh>
#include <twobody/join_result.cuh>
#include <twobody/output/direct_output_buffer.cuh>
#include <twobody/row_metrics.cuh>
#include <twobody/rows.cuh>

#include <cuda/std/type_traits>

namespace twobody {

/// The output of row joins: pages of 128 records per warp (the warp's records land side by
/// side; its recomputed pairs are pushed by the whole warp). On the H100 at N = 65,536, D = 128
/// (23 M records) this took 38 ms where pages of 32 records per thread took 108 ms: their
/// per-lane page logic diverges and stalls on instruction fetch and barriers
/// (bench_highdim join/twobody/* against join/twobody_thread32/*).
using default_row_join_output = output::direct_output_buffer<128, output::page_owner::warp>;

/// Calls consume(records, n) on the host for the records of each round (host memory, valid
/// during the call), while the next round computes: joins larger than GPU memory. On the CPU
/// backend consume is called once, with every record in (i, j) order.
template <class Output = default_row_join_output, class T, bool W, class Pred, class Consume>
join_stats join_each(execution_policy const& exec, pair_set<rows<T, W>> const& pairs, Pred const& pred, Consume&& consume,
                     join_options const& opt = {})
{
  return detail::row_join_each_on<Output>(exec, pairs, pred, consume, opt);
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
  return detail::row_join_on<Output>(exec, pairs, pred, opt);
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
