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
/// each unordered pair once, so it has no per-point meaning here and is rejected. The
/// sums are float or double (the type of `d_out`); partial sums of different blocks are
/// added with atomics, so the last bits can vary from run to run. Unweighted point sets.
#pragma once

#include <twobody/cpu/backend.cuh>
#include <twobody/defaults.cuh>
#include <twobody/detail/auto_policy.cuh>
#include <twobody/detail/device_buffer.cuh>
#include <twobody/detail/error.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/detail/staging.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/output/per_point.cuh>
#include <twobody/points.cuh>

#include <cuda_runtime_api.h>

#include <vector>

namespace twobody {

/// Explicit form: sum f(a_i, b_j) over the partners of every point of A into d_out[i]
/// (|A| values, overwritten), with the named input policy. Asynchronous on `stream`.
template <class Input, class Points, class F, class Out>
void sum_per_point(pair_set<Points> const& pairs, F f, Out* d_out, cudaStream_t stream = 0)
{
  static_assert(cuda::std::is_same_v<Out, float> || cuda::std::is_same_v<Out, double>,
                "twobody::sum_per_point: the output must be float or double");
  static_assert(!Points::weighted, "twobody::sum_per_point: weighted point sets are not supported; fold weights into f");
  detail::validate(pairs);
  TWOBODY_EXPECTS(pairs.mode != pair_mode::self,
                  "sum_per_point: self pairs visit each pair once; use ordered_pairs (all j != i) or cross_pairs");
  if (pairs.a.size == 0) { return; }
  TWOBODY_EXPECTS(d_out != nullptr, "sum_per_point: the output pointer is null");
  TWOBODY_CUDA_TRY(cudaMemsetAsync(d_out, 0, sizeof(Out) * static_cast<std::size_t>(pairs.a.size), stream));
  if (pairs.count() == 0) { return; }
  detail::staged_pairs<Points> const staged(pairs, stream);
  pair_set<Points> const dev = staged.pairs();
  constexpr int R = Input::tiled ? Input::points_per_thread : 1;
  using kernel    = detail::pair_kernel<Input, detail::per_point_sum_agent<Out, Input::block_threads, R>, Points, F>;
  kernel::launch(kernel::plan(dev, 0), dev, f, typename kernel::params{d_out}, stream);
}

namespace detail {
template <class Points, class F, class Out>
struct per_point_kernels {
  template <class Input>
  using kernel = pair_kernel<Input, per_point_sum_agent<Out, Input::block_threads, Input::points_per_thread>, Points, F>;
};
}  // namespace detail

/// The plan the one-call sum_per_point runs (input policy from the cost model: 8 points per
/// thread pays only when there are enough tile pairs to fill the GPU).
template <class Out = void, class Points, class F>
policy_plan plan_sum_per_point(pair_set<Points> const& pairs, F const&)
{
  using O       = cuda::std::conditional_t<cuda::std::is_void_v<Out>, typename Points::value_type, Out>;
  using kernels = detail::per_point_kernels<Points, F, O>;
  return choose_policy(detail::sizes_of(pairs, statistic_kind::per_point), device_info::get(),
                       detail::candidates_of<kernels::template kernel>(detail::per_point_inputs<Points>{}));
}

/// One-call form into device memory (asynchronous; the cost model picks the input policy).
template <class Points, class F, class Out>
void sum_per_point(pair_set<Points> const& pairs, F f, Out* d_out, cudaStream_t stream = 0)
{
  detail::validate(pairs);
  policy_plan const plan = plan_sum_per_point<Out>(pairs, f);
  detail::with_chosen_input(detail::per_point_inputs<Points>{}, plan.input,
                            [&](auto in) { sum_per_point<decltype(in)>(pairs, f, d_out, stream); });
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
      std::vector<T> out(static_cast<std::size_t>(pairs.a.size));
      if (out.empty()) { return out; }
      detail::device_buffer d(sizeof(T) * out.size(), stream);
      sum_per_point(pairs, f, d.as<T>(), stream);
      TWOBODY_CUDA_TRY(cudaMemcpyAsync(out.data(), d.as<T>(), sizeof(T) * out.size(), cudaMemcpyDeviceToHost, stream));
      TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
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
