/// \file per_point.cuh
/// \brief Per-point statistics: out[i] = sum over the partners j of a_i of f(a_i, b_j), for
/// kernel sums (Gaussian kernel density at each point), neighbour counts per point, and
/// any other per-point sum.
///
///     auto pairs = twobody::cross_pairs(queries, sources);          // or ordered_pairs(p): all j != i
///     twobody::sum_per_point(pairs, twobody::gaussian_kernel(h), d_density, stream);
///     std::vector<float> density = twobody::sum_per_point(pairs, twobody::gaussian_kernel(h));
///
/// Partners are all of B in cross mode and all j != i in ordered mode. Self mode visits
/// each unordered pair once, so it has no per-point meaning here and is rejected. Ordered
/// pairs of a symmetric functor (twobody::is_symmetric: f(a, b) == f(b, a), declared by the
/// library's metrics, kernels and radius predicates) are evaluated once per unordered pair on
/// the GPU's tiled inputs, the value added to both points: half the evaluations. The
/// sums are float or double (the type of `d_out`); partial sums of different blocks are
/// added with atomics, so the last bits can vary from run to run. Unweighted point sets.
#pragma once

#include <twobody/dispatch/per_point.cuh>
#include <twobody/execution.cuh>
#include <twobody/points.cuh>

#include <cuda_runtime_api.h>

#include <vector>

namespace twobody {

/// Explicit form: sum f(a_i, b_j) over the partners of every point of A into d_out[i]
/// (|A| values, overwritten), with the named input policy. Asynchronous on `stream`.
template <class Input, class Points, class F, class Out>
void sum_per_point(pair_set<Points> const& pairs, F f, Out* d_out, cudaStream_t stream = 0)
{
  detail::sum_per_point_with<Input>(pairs, f, d_out, stream);
}

/// One-call form into device memory (asynchronous; the cost model picks the input policy,
/// plan_sum_per_point says which).
template <class Points, class F, class Out>
void sum_per_point(pair_set<Points> const& pairs, F f, Out* d_out, cudaStream_t stream = 0)
{
  detail::sum_per_point_to_device(pairs, f, d_out, stream);
}

/// One-call form returned to the host, on the backend `exec` names, sums in the points'
/// value type (the GPU form synchronizes exec.stream). Point arrays may be in host or device
/// memory on the GPU, host memory on the CPU.
template <class Points, class F>
std::vector<typename Points::value_type> sum_per_point(execution_policy const& exec, pair_set<Points> const& pairs, F f)
{
  return detail::sum_per_point_on(exec, pairs, f);
}

/// One-call form returned to the host under exec::automatic on `stream`.
template <class Points, class F>
std::vector<typename Points::value_type> sum_per_point(pair_set<Points> const& pairs, F f, cudaStream_t stream = 0)
{
  return sum_per_point(exec::automatic.on(stream), pairs, f);
}

}  // namespace twobody
