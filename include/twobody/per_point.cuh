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

#include <twobody/cpu/backend.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/dispatch/per_point.cuh>
#include <twobody/points.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/pinned_array.cuh>
#include <twobody/util/zeroed_scratch.cuh>

#include <cuda_runtime_api.h>

#include <cstring>
#include <vector>

namespace twobody {

/// Explicit form: sum f(a_i, b_j) over the partners of every point of A into d_out[i]
/// (|A| values, overwritten), with the named input policy. Asynchronous on `stream`.
template <class Input, class Points, class F, class Out>
void sum_per_point(pair_set<Points> const& pairs, F f, Out* d_out, cudaStream_t stream = 0)
{
  detail::launch_per_point<Input>(pairs, f, d_out, stream);
}

/// One-call form into device memory (asynchronous; the cost model picks the input policy,
/// plan_sum_per_point says which).
template <class Points, class F, class Out>
void sum_per_point(pair_set<Points> const& pairs, F f, Out* d_out, cudaStream_t stream = 0)
{
  detail::validate(pairs);
  detail::run_planned_sum_per_point(pairs, f, d_out, plan_sum_per_point<Out>(pairs, f), stream);
}

/// One-call form returned to the host, on the backend `exec` names, sums in the points'
/// value type (the GPU form synchronizes exec.stream). Point arrays may be in host or device
/// memory on the GPU, host memory on the CPU.
template <class Points, class F>
std::vector<typename Points::value_type> sum_per_point(execution_policy const& exec, pair_set<Points> const& pairs, F f)
{
  using T = typename Points::value_type;
  return detail::on_backend(
    exec, "sum_per_point", pairs, [&] { return cpu::sum_per_point(pairs, f); },
    [&](cudaStream_t stream) {
      detail::check_per_point_mode(pairs);
      std::vector<T> out(static_cast<std::size_t>(pairs.a.size));
      if (pairs.count() == 0) { return out; }  // no partner: every sum is 0
      std::size_t const bytes = sizeof(T) * out.size();
      // Small results: the kernel sums into this thread's zeroed scratch and its last block
      // moves them to the mapped host buffer (no allocation, memset or copy back).
      auto const [host, mapped] = detail::mapped_result_buffer(bytes);
      if (detail::zeroed_scratch* const scratch = host != nullptr ? detail::zeroed_scratch::of_thread(bytes) : nullptr) {
        detail::run_planned_sum_per_point(pairs, f, scratch->as<T>(), plan_sum_per_point<T>(pairs, f), stream,
                                          detail::result_mirror<T>{static_cast<T*>(mapped), scratch->ticket()});
        TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
        scratch->settle();
        std::memcpy(out.data(), host, bytes);
        return out;
      }
      detail::device_buffer d(bytes, stream);
      sum_per_point(pairs, f, d.as<T>(), stream);
      detail::copy_to_host_sync(out.data(), d.as<T>(), out.size(), stream);
      return out;
    });
}

/// One-call form returned to the host under exec::automatic on `stream`.
template <class Points, class F>
std::vector<typename Points::value_type> sum_per_point(pair_set<Points> const& pairs, F f, cudaStream_t stream = 0)
{
  return sum_per_point(exec::automatic.on(stream), pairs, f);
}

}  // namespace twobody
