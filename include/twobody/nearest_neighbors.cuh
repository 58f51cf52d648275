/// \file nearest_neighbors.cuh
/// \brief The k nearest neighbours of every point, exact, for high-dimensional rows (on the
/// tensor cores) and low-dimensional float points (on the CUDA cores):
///
///     auto x  = twobody::make_rows(n, 128, embeddings);
///     auto nn = twobody::nearest_neighbors(twobody::ordered_pairs(x), twobody::euclidean{}, 10);
///     // nn.index(i, 0): the nearest other row to row i, nn.value(i, 0) its distance
///     auto sim = twobody::nearest_neighbors(twobody::cross_pairs(queries, x), twobody::cosine_similarity{}, 100);
///
/// Ordered pairs give every point's k nearest among the others (itself excluded); cross pairs
/// every query's k nearest points of B. Nearest means the smallest value, except for the
/// similarities dot_product and cosine_similarity, where it is the largest. Equal values are
/// ordered by the smaller index. A partner whose value is NaN is never a neighbour; where fewer
/// than k partners remain, the last entries hold index -1 and value +inf (-inf for similarities).
///
/// The answers equal the CPU backend's on every point: for rows, the exact evaluation
/// (math/row_exact.cuh) of every partner that the tensor cores' approximation and its proven
/// margin cannot rule out is computed and ranked; for points, the metric functor's own value.
/// The GPU keeps one list of k 64-bit keys per point and segment of B (output::nearest_lists)
/// in device memory: about 8 k bytes per point, times the segments (more segments only where
/// A has too few tiles to fill the GPU).
#pragma once

#include <twobody/dispatch/nearest.cuh>
#include <twobody/execution.cuh>
#include <twobody/results.cuh>
#include <twobody/rows.cuh>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace twobody {

/// The k nearest partners of every point of A into device memory: d_indices and d_values, each
/// A's size times k entries, row-major. Rows, or float points with any metric functor
/// metric(a, b) -> float. Asynchronous on `stream`; the sets may be in host or device memory
/// (they are staged either way).
template <class Points, class Metric>
void nearest_neighbors(pair_set<Points> const& pairs, Metric metric, int k, std::int32_t* d_indices, float* d_values,
                       cudaStream_t stream = 0)
{
  detail::nearest_to_device(pairs, metric, k, d_indices, d_values, stream);
}

/// The k nearest partners of every point of A, on the backend `exec` names, returned to the host.
template <class Points, class Metric>
neighbors_result nearest_neighbors(execution_policy const& exec, pair_set<Points> const& pairs, Metric metric, int k)
{
  return detail::nearest_on(exec, pairs, metric, k);
}

/// nearest_neighbors under exec::automatic on `stream`.
template <class Points, class Metric>
neighbors_result nearest_neighbors(pair_set<Points> const& pairs, Metric metric, int k, cudaStream_t stream = 0)
{
  return nearest_neighbors(exec::automatic.on(stream), pairs, metric, k);
}

}  // namespace twobody
