/// \file highdim.cuh
/// \brief Statistics of high-dimensional rows (rows.cuh) on the tensor cores, with exact answers:
///
///     auto x = twobody::make_rows(n, 128, embeddings);                 // host or device memory
///     auto pairs = twobody::self_pairs(x);
///     auto near  = twobody::count_pairs(pairs, twobody::closer_than(twobody::euclidean{}, 0.5f));
///     auto alike = twobody::count_pairs(pairs, twobody::at_least(twobody::cosine_similarity{}, 0.9f));
///     auto h     = twobody::histogram(pairs, twobody::euclidean{}, twobody::uniform_bins<float>(0.f, 2.f, 64));
///
/// Every answer equals the exact evaluation of the metric (math/row_exact.cuh): the GPU
/// computes the inner products of each tile pair on the tensor cores (input::mma_tile) and
/// recomputes exactly the pairs whose approximate value lies within its proven error margin
/// of the threshold or of a bin edge (docs/highdim.md). The forms take an execution policy
/// first, as the other one-call forms do (execution.cuh); the CPU backend evaluates every pair
/// exactly. The tensor cores need compute capability 8.0 or newer; double rows (and
/// input::simt_rows) take the CUDA cores (rows/simt_row_products.cuh).
///
/// The rows are copied once per call into a zero-padded device buffer (dims rounded up to 128
/// bytes: 64 halves, 32 floats or 16 doubles), with each point's squared norm: n x padded dims
/// elements of device memory per distinct set. On sm_90 the tensor memory accelerator reads
/// 16-bit rows from that buffer through a tensor map (rows/row_tensor_map.cuh). The N x N
/// matrix of values is never stored.
#pragma once

#include <twobody/binning.cuh>
#include <twobody/dispatch/rows.cuh>
#include <twobody/execution.cuh>
#include <twobody/math/row_metric_kind.cuh>
#include <twobody/results.cuh>
#include <twobody/row_metrics.cuh>
#include <twobody/rows.cuh>
#include <twobody/util/error.cuh>

namespace twobody {

/// Pairs of rows whose metric value passes `pred`: closer_than(metric, t) (value < t),
/// at_least(metric, t) (value >= t) or within_radius(r) (|a - b|^2 < r^2); weighted sets: the
/// sum of w_i w_j over them. A pair with a NaN coordinate never passes. Input picks the GPU's
/// products: input::mma_tile (the tensor cores; also what input::automatic takes) or
/// input::simt_rows (FP32 on the CUDA cores); the answer is the same exact one either way.
template <class Input = input::automatic, class T, bool W, class Pred>
pair_count_t<rows<T, W>> count_pairs(execution_policy const& exec, pair_set<rows<T, W>> const& pairs, Pred pred)
{
  static_assert(detail::is_row_input_v<Input, T>, "rows take input::automatic, input::mma_tile or input::simt_rows");
  return detail::count_rows_on<Input>(exec, pairs, pred);
}

/// count_pairs of rows under exec::automatic on `stream`.
template <class Input = input::automatic, class T, bool W, class Pred>
pair_count_t<rows<T, W>> count_pairs(pair_set<rows<T, W>> const& pairs, Pred pred, cudaStream_t stream = 0)
{
  return count_pairs<Input>(exec::automatic.on(stream), pairs, pred);
}

/// Histogram of a metric's values over the pairs of rows: bins.size() counts and the pairs
/// outside the bins (below, above, NaN). Input as for count_pairs.
template <class Input = input::automatic, class T, bool W, class Metric>
histogram_result<pair_count_t<rows<T, W>>> histogram(execution_policy const& exec, pair_set<rows<T, W>> const& pairs,
                                                     Metric metric, uniform_bins<float> const& bins)
{
  static_assert(detail::is_row_input_v<Input, T>, "rows take input::automatic, input::mma_tile or input::simt_rows");
  static_assert(detail::is_row_metric<Metric>::value,
                "rows support squared_euclidean, euclidean, dot_product, cosine_similarity, cosine_distance");
  return detail::histogram_rows_on<Input>(exec, pairs, metric, bins);
}

/// histogram of rows under exec::automatic on `stream`.
template <class Input = input::automatic, class T, bool W, class Metric>
histogram_result<pair_count_t<rows<T, W>>> histogram(pair_set<rows<T, W>> const& pairs, Metric metric,
                                                     uniform_bins<float> const& bins, cudaStream_t stream = 0)
{
  return histogram<Input>(exec::automatic.on(stream), pairs, metric, bins);
}

}  // namespace twobody
