/// \file per_point.cuh (dispatch)
/// \brief The per-point sum's plan and launch: the cost model picks the input policy once per
/// problem (8 points per thread pays only when there are enough tile pairs to fill the GPU)
/// and the launch acts on that plan.
#pragma once

#include <twobody/cpu/backend.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/dispatch/auto_policy.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/execution.cuh>
#include <twobody/model/policy.cuh>
#include <twobody/output/per_point.cuh>
#include <twobody/points.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/device_info.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/gpu_progress.cuh>
#include <twobody/util/pinned_array.cuh>
#include <twobody/util/staging.cuh>
#include <twobody/util/validate.cuh>
#include <twobody/util/zeroed_scratch.cuh>
#include <twobody/value_traits.cuh>

#include <cuda/std/type_traits>
#include <cuda_runtime_api.h>

#include <cstring>
#include <vector>

namespace twobody {
namespace detail {

/// Per-point sums of at most this many points of A zero their output in the kernel, with the
/// small-set shapes (per_point_sum_agent::zeroes_in_kernel; measured up to there: at 16384 points
/// within 1% of a memset node and the kernel).
inline constexpr size_type cooperative_per_point_points = 16384;

/// Whether per-point sums of F with input policy Input visit each unordered pair of one set once
/// and add its value to both points (a symmetric functor and a tiled input).
template <class Input, class F>
inline constexpr bool per_point_both_ways = Input::tiled && is_symmetric_v<F>;

template <class Input, class Out, class F>
using per_point_agent_of =
  per_point_sum_agent<Out, row_threads_v<Input>, Input::tiled ? Input::points_per_thread : 1, per_point_both_ways<Input, F>>;

template <class Points, class F, class Out>
struct per_point_kernels {
  template <class Input>
  using kernel = pair_kernel<Input, per_point_agent_of<Input, Out, F>, Points, F>;
};

/// The pairs a per-point launch visits: ordered pairs of a symmetric functor as self pairs (each
/// unordered pair once, its value added to both points), others as they are.
template <bool BothWays, class Points>
pair_set<Points> per_point_launch_pairs(pair_set<Points> pairs)
{
  if (BothWays && pairs.mode == pair_mode::ordered) { pairs.mode = pair_mode::self; }
  return pairs;
}

template <class Points>
void check_per_point_mode(pair_set<Points> const& pairs)
{
  TWOBODY_EXPECTS(pairs.mode != pair_mode::self,
                  "sum_per_point: self pairs visit each pair once; use ordered_pairs (all j != i) or cross_pairs");
}

/// The checks of a per-point sum into device memory, once per call.
template <class Points, class Out>
void check_per_point_args(pair_set<Points> const& pairs, Out const* d_out)
{
  validate(pairs);
  check_per_point_mode(pairs);
  TWOBODY_EXPECTS(pairs.a.size == 0 || d_out != nullptr, "sum_per_point: the output pointer is null");
}

/// sum f(a_i, b_j) over the partners of every point of A into d_out[i] with input policy
/// Input. Asynchronous on `stream`. With `fin.to` set, d_out must be zero at the launch
/// (zeroed_scratch) and is left zero: the sums land in fin.to instead (needs fin.ticket;
/// nothing is written there without pairs). The caller has checked the arguments.
template <class Input, class Points, class F, class Out>
void launch_per_point(pair_set<Points> const& pairs, F const& f, Out* d_out, cudaStream_t stream,
                      result_mirror<Out> fin = {})
{
  static_assert(cuda::std::is_same_v<Out, float> || cuda::std::is_same_v<Out, double>,
                "twobody::sum_per_point: the output must be float or double");
  static_assert(!Points::weighted, "twobody::sum_per_point: weighted point sets are not supported; fold weights into f");
  if (pairs.a.size == 0) { return; }
  std::size_t const out_bytes = sizeof(Out) * static_cast<std::size_t>(pairs.a.size);
  if (pairs.count() == 0) {
    if (fin.to == nullptr) { TWOBODY_CUDA_TRY(cudaMemsetAsync(d_out, 0, out_bytes, stream)); }
    return;
  }
  staged_pairs<Points> const staged(pairs, stream);
  pair_set<Points> const dev = per_point_launch_pairs<per_point_both_ways<Input, F>>(staged.pairs());
  using kernel               = pair_kernel<Input, per_point_agent_of<Input, Out, F>, Points, F>;
  launch_plan lp  = kernel::plan(dev, 0);
  if (fin.to != nullptr) {  // d_out is zero already; the last block moves the sums
    kernel::launch(lp, dev, f, typename kernel::params{d_out, 0, fin.to, fin.ticket, pairs.a.size}, stream);
    return;
  }
  // Small sets zero the output inside one cooperative kernel: one launch less, where launches
  // are the call's cost. Each warp waits for the zeroing only before its first add
  // (warp_split_grid_barrier): a whole-grid barrier in the constructor made 4096 points slower
  // than a memset node and the kernel, and the warp waits save about 1.3 us at 2048 and 4096
  // points (bench_frames floor/per_point/async/*).
  lp.cooperative = per_point_agent_of<Input, Out, F>::zeroes_in_kernel && Input::tiled &&
                   pairs.a.size <= cooperative_per_point_points && cooperative_launches();
  if (!lp.cooperative) { TWOBODY_CUDA_TRY(cudaMemsetAsync(d_out, 0, out_bytes, stream)); }
  kernel::launch(lp, dev, f, typename kernel::params{d_out, lp.cooperative ? pairs.a.size : size_type(0)}, stream);
}

}  // namespace detail

/// The plan the one-call sum_per_point runs: the input policy of least predicted time among
/// the shapes the registry compiles for per-point sums. Needs a GPU (it reads the kernels'
/// register counts); TWOBODY_POLICY forces parts of it.
template <class Out = void, class Points, class F>
policy_plan plan_sum_per_point(pair_set<Points> const& pairs, F const&)
{
  using O       = cuda::std::conditional_t<cuda::std::is_void_v<Out>, typename Points::value_type, Out>;
  using kernels = detail::per_point_kernels<Points, F, O>;
  // (Planned for the pairs the tiled shapes visit: for symmetric functors each unordered pair once.)
  auto const visited = detail::per_point_launch_pairs<is_symmetric_v<F>>(pairs);
  return detail::cached_plan<kernels>(detail::sizes_of<F>(visited, statistic_kind::per_point), [] {
    return detail::candidates_of<kernels::template kernel>(detail::per_point_inputs<Points>{});
  });
}

namespace detail {

/// The one-call per-point sum into device memory with `plan` (from plan_sum_per_point) acted on.
template <class Points, class F, class Out>
void run_planned_sum_per_point(pair_set<Points> const& pairs, F const& f, Out* d_out, policy_plan const& plan,
                               cudaStream_t stream, result_mirror<Out> fin = {})
{
  TWOBODY_EXPECTS(plan.output == output::per_point_sum::kind, "sum_per_point: the plan is not a per-point sum's");
  with_chosen_input(per_point_inputs<Points>{}, plan.input,
                    [&](auto in) { launch_per_point<decltype(in)>(pairs, f, d_out, stream, fin); });
}

/// The explicit form (per_point.cuh: sum_per_point<Input>): checks once, launches Input.
template <class Input, class Points, class F, class Out>
void sum_per_point_with(pair_set<Points> const& pairs, F const& f, Out* d_out, cudaStream_t stream)
{
  check_per_point_args(pairs, d_out);
  launch_per_point<Input>(pairs, f, d_out, stream);
}

/// The one-call form into device memory: checks once, plans, runs the plan.
template <class Points, class F, class Out>
void sum_per_point_to_device(pair_set<Points> const& pairs, F const& f, Out* d_out, cudaStream_t stream)
{
  check_per_point_args(pairs, d_out);
  run_planned_sum_per_point(pairs, f, d_out, plan_sum_per_point<Out>(pairs, f), stream);
}

/// The one-call form returned to the host: on_backend checks the pairs and runs the CPU backend
/// or, on the GPU, the planned sums into mapped memory where they fit, else a device buffer.
template <class Points, class F>
std::vector<typename Points::value_type> sum_per_point_on(execution_policy const& exec, pair_set<Points> const& pairs,
                                                          F const& f)
{
  using T = typename Points::value_type;
  return on_backend(
    exec, "sum_per_point", pairs, [&] { return cpu::sum_per_point(pairs, f); },
    [&](cudaStream_t stream) {
      check_per_point_mode(pairs);
      std::vector<T> out(static_cast<std::size_t>(pairs.a.size));
      if (pairs.count() == 0) { return out; }  // no partner: every sum is 0
      std::size_t const bytes = sizeof(T) * out.size();
      policy_plan const plan  = plan_sum_per_point<T>(pairs, f);
      // Small results: the kernel sums into this thread's zeroed scratch and its last block
      // moves them to the mapped host buffer (no allocation, memset or copy back).
      auto const [host, mapped] = mapped_result_buffer(bytes);
      if (zeroed_scratch* const scratch = host != nullptr ? zeroed_scratch::of_thread(bytes) : nullptr) {
        run_planned_sum_per_point(pairs, f, scratch->as<T>(), plan, stream,
                                  result_mirror<T>{static_cast<T*>(mapped), scratch->ticket()});
        wait_for_stream(stream);
        scratch->settle();
        std::memcpy(out.data(), host, bytes);
        return out;
      }
      device_buffer d(bytes, stream);
      run_planned_sum_per_point(pairs, f, d.as<T>(), plan, stream);
      copy_to_host_sync(out.data(), d.as<T>(), out.size(), stream);
      return out;
    });
}

}  // namespace detail
}  // namespace twobody
