/// \file reduce.cuh
/// \brief Type I statistics: one value reduced over all pairs (pair counts within a radius
/// for the 2-point correlation function, kernel sums, minimum or maximum distance, any
/// associative operator with an identity).
///
///     auto pairs = twobody::self_pairs(twobody::make_points(n, d_x, d_y, d_z));
///     unsigned long long close = twobody::count_pairs(pairs, twobody::within_radius(5.f));
///     double ksum = twobody::reduce_pairs(pairs, gaussian{h}, cuda::std::plus<double>{}, 0.0);
///
/// Like CUB, the explicit form takes caller-provided temporary storage: call it once with
/// `d_temp == nullptr` to learn `temp_bytes`, then again to run. With device point arrays it
/// then neither allocates nor synchronizes, so it can be captured in a CUDA graph and
/// replayed (docs/small-sets.md). Weighted point sets multiply each pair's value by w_i w_j
/// before reducing. The input policy is the cost model's choice per problem
/// (input::automatic) unless one is named as the first template argument.
///
/// `identity` must be the identity of `op` (0 for plus, 1 for multiplies, +inf for min):
/// every GPU block and CPU thread starts from it, so any other value is counted several times.
/// The host-result forms take an execution policy first (execution.cuh): the same call runs
/// on the GPU or the CPU backend and returns the same value.
#pragma once

#include <twobody/defaults.cuh>
#include <twobody/dispatch/reduce.cuh>
#include <twobody/execution.cuh>
#include <twobody/points.cuh>

#include <cuda/std/functional>
#include <cuda_runtime_api.h>

#include <cstddef>

namespace twobody {

/// Explicit form: reduce f(a, b) over all pairs with `op` (associative, `identity` its
/// neutral element) into *d_result. Two-phase temp storage.
template <class Input = input::automatic, class Points, class F, class Op, class T>
void reduce_pairs(void* d_temp, std::size_t& temp_bytes, pair_set<Points> const& pairs, F f, Op op, T identity,
                  T* d_result, cudaStream_t stream = 0)
{
  if (d_temp != nullptr) {
    detail::require_device_pointer(d_temp, "reduce_pairs: d_temp");
    detail::require_device_pointer(d_result, "reduce_pairs: d_result");
  }
  detail::reduce_impl<Input, Points, F, Op, T, T>(d_temp, temp_bytes, pairs, f, op, identity, d_result, stream);
}

/// Explicit form of count_pairs: number of pairs with pred(a, b) true (weighted sets: the
/// sum of w_i w_j over them, in double). Two-phase temp storage.
template <class Input = input::automatic, class Points, class Pred>
void count_pairs(void* d_temp, std::size_t& temp_bytes, pair_set<Points> const& pairs, Pred pred,
                 pair_count_t<Points>* d_result, cudaStream_t stream = 0)
{
  using C = pair_count_t<Points>;
  if (d_temp != nullptr) {
    detail::require_device_pointer(d_temp, "count_pairs: d_temp");
    detail::require_device_pointer(d_result, "count_pairs: d_result");
  }
  detail::reduce_impl<Input, Points, Pred, cuda::std::plus<C>, C, detail::count_inner_t<Points>>(
    d_temp, temp_bytes, pairs, pred, cuda::std::plus<C>{}, C{}, d_result, stream);
}

/// One-call reduction into device memory (asynchronous; allocates its scratch space
/// stream-ordered).
template <class Input = input::automatic, class Points, class F, class Op, class T>
void reduce_pairs(pair_set<Points> const& pairs, F f, Op op, T identity, T* d_result, cudaStream_t stream = 0)
{
  detail::reduce_to_device<Input, Points, F, Op, T, T>("reduce_pairs", pairs, f, op, identity, d_result, stream);
}

/// One-call reduction returned to the host, on the backend `exec` names (the GPU form
/// synchronizes exec.stream). Point arrays may be in host or device memory on the GPU, host
/// memory on the CPU.
template <class Input = input::automatic, class Points, class F, class Op, class T>
T reduce_pairs(execution_policy const& exec, pair_set<Points> const& pairs, F f, Op op, T identity)
{
  return detail::reduce_on<Input, Points, F, Op, T, T>(exec, "reduce_pairs", pairs, f, op, identity);
}

/// One-call reduction returned to the host under exec::automatic on `stream`.
template <class Input = input::automatic, class Points, class F, class Op, class T>
T reduce_pairs(pair_set<Points> const& pairs, F f, Op op, T identity, cudaStream_t stream = 0)
{
  return reduce_pairs<Input>(exec::automatic.on(stream), pairs, f, op, identity);
}

/// One-call count into device memory (asynchronous).
template <class Input = input::automatic, class Points, class Pred>
void count_pairs(pair_set<Points> const& pairs, Pred pred, pair_count_t<Points>* d_result, cudaStream_t stream = 0)
{
  using C = pair_count_t<Points>;
  detail::reduce_to_device<Input, Points, Pred, cuda::std::plus<C>, C, detail::count_inner_t<Points>>(
    "count_pairs", pairs, pred, cuda::std::plus<C>{}, C{}, d_result, stream);
}

/// One-call count returned to the host, on the backend `exec` names: pairs with pred(a, b)
/// true, e.g. `count_pairs(exec::cpu, self_pairs(p), within_radius(r))` for the 2PCF's DD(r).
template <class Input = input::automatic, class Points, class Pred>
pair_count_t<Points> count_pairs(execution_policy const& exec, pair_set<Points> const& pairs, Pred pred)
{
  using C = pair_count_t<Points>;
  return detail::reduce_on<Input, Points, Pred, cuda::std::plus<C>, C, detail::count_inner_t<Points>>(
    exec, "count_pairs", pairs, pred, cuda::std::plus<C>{}, C{});
}

/// One-call count returned to the host under exec::automatic on `stream`.
template <class Input = input::automatic, class Points, class Pred>
pair_count_t<Points> count_pairs(pair_set<Points> const& pairs, Pred pred, cudaStream_t stream = 0)
{
  return count_pairs<Input>(exec::automatic.on(stream), pairs, pred);
}

}  // namespace twobody
