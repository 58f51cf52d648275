/// \file highdim_per_point.cuh
/// \brief Per-point sums over high-dimensional rows (rows.cuh) on the tensor cores: kernel
/// sums, kernel density estimates and the three sums of an MMD.
///
///     auto x = twobody::make_rows(n, 128, embeddings);              // host or device memory
///     std::vector<double> density = twobody::sum_per_point(twobody::ordered_pairs(x), twobody::gaussian_kernel(0.5f));
///     auto k_xy = twobody::sum_per_point(twobody::cross_pairs(x, y), twobody::gaussian_kernel(0.5f));
///     auto lap  = twobody::sum_per_point(twobody::ordered_pairs(x), twobody::function_of(twobody::euclidean{}, laplace{h}));
///
/// out[i] = the sum over the partners j of row i (cross: all of B; ordered: every j != i) of
/// f(value of the pair), f being gaussian_kernel(h) (exp(-|a - b|^2 / (2 h^2)), float) or
/// function_of(metric, f) with any row metric and a `__host__ __device__` f of a float.
///
/// Precision (docs/highdim.md): on the GPU each term is f of the tensor-core approximation of
/// the value, which lies within the margin proven for counts (a relative error of about
/// (D + 16) 2^-22 of |a|^2 + |b|^2 for distances, less than 10^-4 of it at D = 128 in half and
/// bfloat16; TF32 adds 2^-10 for float rows); a pair whose approximation is not finite is
/// evaluated exactly, so NaN coordinates make the sums of their points NaN, as on the CPU. Terms
/// are summed in float within a tile pair and added to the output with atomics (the order, and
/// so the last bits, vary from run to run). The CPU backend sums f of the exact values in
/// double. Ordered pairs cost the tensor-core work of the self pairs: each pair serves both of
/// its points. Unweighted rows; self pairs are refused (each pair is visited once).
#pragma once

#include <twobody/dispatch/row_per_point.cuh>
#include <twobody/execution.cuh>
#include <twobody/highdim.cuh>
#include <twobody/rows.cuh>

#include <cuda_runtime_api.h>

#include <vector>

namespace twobody {

/// Device form: out[i] = the sum of f(value) over the partners of row i, into d_out (|A|
/// float or double values, overwritten). Asynchronous on `stream` (the rows are staged in
/// stream-ordered memory; host rows are copied first).
template <class T, bool W, class F, class Out>
void sum_per_point(pair_set<rows<T, W>> const& pairs, F f, Out* d_out, cudaStream_t stream = 0)
{
  detail::sum_rows_to_device(pairs, f, d_out, stream);
}

/// One-call form: the sums in host memory (double), on the backend `exec` names.
template <class T, bool W, class F>
std::vector<double> sum_per_point(execution_policy const& exec, pair_set<rows<T, W>> const& pairs, F f)
{
  return detail::sum_rows_on(exec, pairs, f);
}

/// sum_per_point of rows under exec::automatic on `stream`.
template <class T, bool W, class F>
std::vector<double> sum_per_point(pair_set<rows<T, W>> const& pairs, F f, cudaStream_t stream = 0)
{
  return sum_per_point(exec::automatic.on(stream), pairs, f);
}

}  // namespace twobody
