/// \file reduce.cuh
/// \brief The dispatch of reductions and counts over a pair set: plans the input policy (the cost
/// model's choice unless one is named), sizes and enqueues the launch (one cooperative kernel that
/// folds its own partials, a last-block ticket into mapped host memory, or the kernel then
/// cub::DeviceReduce), and brings a host-synchronous result back. reduce.cuh's forms call it.
#pragma once

#include <twobody/cpu/backend.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/dispatch/auto_policy.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/execution.cuh>
#include <twobody/input/automatic.cuh>
#include <twobody/output/registers.cuh>
#include <twobody/points.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/gpu_progress.cuh>
#include <twobody/util/pinned_array.cuh>
#include <twobody/util/staging.cuh>
#include <twobody/util/validate.cuh>
#include <twobody/util/zeroed_scratch.cuh>

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <cuda/std/type_traits>
#include <cuda_runtime_api.h>
#include <algorithm>
#include <cstddef>
#include <string>

namespace twobody {
namespace detail {

template <class Points, class F, class Op, class T, class Inner>
struct reduction_kernels {
  template <class Input>
  using kernel = pair_kernel<Input, reduction_agent<T, Op, Inner, Input::block_threads>, Points, F>;
};

template <class Points>
using reduction_inputs = one_call_inputs<policy::for_reduction, Points>;

/// The plan of a reduction of T over `pairs` (input::automatic), cached per problem (cached_plan).
template <class Points, class F, class Op, class T, class Inner>
policy_plan plan_reduction(pair_set<Points> const& pairs)
{
  problem p        = sizes_of<F>(pairs, statistic_kind::reduction);
  p.output_bytes   = static_cast<long long>(sizeof(T));
  using kernels    = reduction_kernels<Points, F, Op, T, Inner>;
  return cached_plan<kernels>(p, [] { return candidates_of<kernels::template kernel>(reduction_inputs<Points>{}); });
}

/// A host-synchronous reduction with input policy Input that folds by ticket: the partials and
/// the ticket live in this thread's zeroed scratch, and the kernel's last block folds them into
/// *mapped_result (mapped host memory) and zeroes them again: one launch, not cooperative, no
/// grid barrier, allocation or copy back; waits for `stream` (wait_for_stream). False, with
/// nothing enqueued, where that does not apply (no pairs, an untiled input, a non-arithmetic T,
/// too many blocks for the scratch).
template <class Input, class Points, class F, class Op, class T, class Inner>
bool reduce_by_ticket_with(pair_set<Points> const& pairs, F const& f, Op op, T identity, T* mapped_result,
                           cudaStream_t stream)
{
  using kernel        = typename reduction_kernels<Points, F, Op, T, Inner>::template kernel<Input>;
  launch_plan const lp = kernel::plan(pairs, 0);
  if (!(cuda::std::is_arithmetic_v<T> && Input::tiled && lp.grid > 0)) { return false; }
  zeroed_scratch* const scratch = zeroed_scratch::of_thread(sizeof(T) * static_cast<std::size_t>(lp.grid));
  if (scratch == nullptr) { return false; }
  {
    staged_pairs<Points> const staged(pairs, stream);
    kernel::launch(lp, staged.pairs(), f,
                   typename kernel::params{scratch->as<T>(), op, identity, mapped_result, scratch->ticket()}, stream);
  }
  wait_for_stream(stream);
  scratch->settle();
  return true;
}

/// fn(Input{}) with the named input policy, or with the cost model's (input::automatic; the
/// plan is a function of the sizes and the device, so every call plans the same).
template <class Input, class Points, class F, class Op, class T, class Inner, class Fn>
void with_reduction_input(pair_set<Points> const& pairs, Fn&& fn)
{
  if constexpr (cuda::std::is_same_v<Input, input::automatic>) {
    policy_plan const plan = plan_reduction<Points, F, Op, T, Inner>(pairs);
    with_chosen_input(reduction_inputs<Points>{}, plan.input, fn);
  } else {
    fn(Input{});
  }
}

/// reduce_by_ticket_with with the named input policy, or the cost model's (input::automatic).
/// The caller has checked the arguments (reduce_on).
template <class Input, class Points, class F, class Op, class T, class Inner>
bool reduce_by_ticket(pair_set<Points> const& pairs, F const& f, Op op, T identity, T* mapped_result,
                      cudaStream_t stream)
{
  bool done = false;
  with_reduction_input<Input, Points, F, Op, T, Inner>(pairs, [&](auto in) {
    done = reduce_by_ticket_with<decltype(in), Points, F, Op, T, Inner>(pairs, f, op, identity, mapped_result, stream);
  });
  return done;
}

/// One reduction's launch with input policy Input. The grid depends only on the device and the
/// sizes, so both phases of the temp-storage protocol build the same one, and the same choice:
/// one cooperative kernel that folds its own partials (one launch, the small-set floor; an
/// integer sum adds into the result and needs no scratch at all), or cub::DeviceReduce after it.
template <class Input, class Points, class F, class Op, class T, class Inner>
struct reduction_launch {
  using kernel = typename reduction_kernels<Points, F, Op, T, Inner>::template kernel<Input>;
  using agent  = reduction_agent<T, Op, Inner, Input::block_threads>;

  launch_plan lp;
  bool add_into_result     = false;
  std::size_t partial_bytes = 0;
  std::size_t cub_bytes     = 0;

  reduction_launch(pair_set<Points> const& pairs, Op op, T identity, T* d_result, cudaStream_t stream)
    : lp(kernel::plan(pairs, 0))
  {
    lp.cooperative  = lp.grid > 0 && Input::tiled && cooperative_launches();
    add_into_result = lp.cooperative && agent::add_in_any_order;
    if (!add_into_result) { partial_bytes = (sizeof(T) * static_cast<std::size_t>(lp.grid) + 255) / 256 * 256; }
    if (!lp.cooperative) {
      TWOBODY_CUDA_TRY(cub::DeviceReduce::Reduce(nullptr, cub_bytes, static_cast<T*>(nullptr), d_result, lp.grid, op,
                                                 identity, stream));
    }
  }

  /// Scratch the launch uses (0 for an integer sum folded in one kernel).
  std::size_t scratch_bytes() const { return partial_bytes + cub_bytes; }
  /// The size query's answer: at least 1 byte, so that the second call's d_temp is never null
  /// (as with CUB, where a null d_temp is the query).
  std::size_t temp_bytes() const { return std::max<std::size_t>(scratch_bytes(), 1); }

  /// Enqueues the work; d_temp holds scratch_bytes() (it may be null where that is 0).
  void enqueue(void* d_temp, pair_set<Points> const& pairs, F const& f, Op op, T identity, T* d_result,
               cudaStream_t stream) const
  {
    T* partials = static_cast<T*>(d_temp);
    if (lp.grid > 0) {
      staged_pairs<Points> const staged(pairs, stream);
      typename kernel::params p{partials, op, identity, lp.cooperative ? d_result : nullptr};
      p.add_into_result = add_into_result;
      kernel::launch(lp, staged.pairs(), f, p, stream);
    }
    if (lp.cooperative) { return; }
    // With no pairs (grid 0) CUB writes the identity.
    std::size_t bytes = cub_bytes;
    TWOBODY_CUDA_TRY(cub::DeviceReduce::Reduce(static_cast<unsigned char*>(d_temp) + partial_bytes, bytes, partials,
                                               d_result, lp.grid, op, identity, stream));
  }
};

/// The reduction with input policy Input (both phases of the temp-storage protocol).
template <class Input, class Points, class F, class Op, class T, class Inner>
void reduce_with(void* d_temp, std::size_t& temp_bytes, pair_set<Points> const& pairs, F const& f, Op op, T identity,
                 T* d_result, cudaStream_t stream)
{
  reduction_launch<Input, Points, F, Op, T, Inner> const run(pairs, op, identity, d_result, stream);
  if (d_temp == nullptr) {
    temp_bytes = run.temp_bytes();
    return;
  }
  // Against the query's answer, not the scratch this GPU uses: an integer sum folded in one
  // kernel uses none, yet temp storage smaller than the query said is a caller's bug everywhere.
  TWOBODY_EXPECTS(temp_bytes >= run.temp_bytes(), "reduce_pairs: temp_bytes is smaller than the size query returned");
  TWOBODY_EXPECTS(d_result != nullptr, "reduce_pairs: the result pointer is null");
  run.enqueue(d_temp, pairs, f, op, identity, d_result, stream);
}

/// The reduction with the named input policy, or the cost model's (input::automatic).
template <class Input, class Points, class F, class Op, class T, class Inner>
void reduce_impl(void* d_temp, std::size_t& temp_bytes, pair_set<Points> const& pairs, F const& f, Op op, T identity,
                 T* d_result, cudaStream_t stream)
{
  validate(pairs);
  // Both phases plan the same (with_reduction_input).
  with_reduction_input<Input, Points, F, Op, T, Inner>(pairs, [&](auto in) {
    reduce_with<decltype(in), Points, F, Op, T, Inner>(d_temp, temp_bytes, pairs, f, op, identity, d_result, stream);
  });
}

template <class T>
T copy_to_host(T const* d, cudaStream_t stream)
{
  T h{};
  copy_to_host_sync(&h, d, 1, stream);
  return h;
}

/// A host-synchronous reduction's result. Where the GPU maps host memory the kernel writes this
/// thread's mapped host slot (no device result, no copy back): `by_ticket(slot)` folds by ticket
/// in zeroed scratch and synchronizes, or returns false, and then `run(slot)` enqueues the work.
/// Elsewhere `run(d_result)` writes a device result that is copied back.
template <class T, class ByTicket, class Run>
T reduce_to_host(cudaStream_t stream, ByTicket&& by_ticket, Run&& run)
{
  auto const [host, device] = mapped_result_slot<T>();
  if (host != nullptr) {
    if (!by_ticket(device)) {
      run(device);
      wait_for_stream(stream);
    }
    return *host;
  }
  device_buffer result(sizeof(T), stream);
  run(result.as<T>());
  return copy_to_host(result.as<T>(), stream);
}

/// The one-call forms into device memory: planned once, with scratch space allocated
/// stream-ordered here where the launch needs some (an integer sum in one cooperative kernel,
/// the one-call count's usual case, needs none), so only d_result is the caller's. The caller
/// has checked the arguments (reduce_to_device, reduce_on).
template <class Input, class Points, class F, class Op, class T, class Inner>
void reduce_allocating(pair_set<Points> const& pairs, F const& f, Op op, T identity, T* d_result, cudaStream_t stream)
{
  with_reduction_input<Input, Points, F, Op, T, Inner>(pairs, [&](auto in) {
    reduction_launch<decltype(in), Points, F, Op, T, Inner> const run(pairs, op, identity, d_result, stream);
    device_buffer const temp(run.scratch_bytes(), stream);  // 0 bytes: no allocation, a null data()
    run.enqueue(temp.data(), pairs, f, op, identity, d_result, stream);
  });
}

/// Plain counts add 32-bit integers in the hot loop (folded into 64 bits every tile pair).
template <class Points>
using count_inner_t = cuda::std::conditional_t<Points::weighted, pair_count_t<Points>, unsigned int>;

/// The one-call reduction into device memory (reduce.cuh: reduce_pairs, count_pairs): checks
/// the arguments once, then reduce_allocating. Asynchronous on `stream`.
template <class Input, class Points, class F, class Op, class T, class Inner>
void reduce_to_device(char const* what, pair_set<Points> const& pairs, F const& f, Op op, T identity, T* d_result,
                      cudaStream_t stream)
{
  TWOBODY_EXPECTS(d_result != nullptr, (std::string(what) + ": the result pointer is null").c_str());
  require_device_pointer(d_result, (std::string(what) + ": d_result").c_str());
  validate(pairs);
  reduce_allocating<Input, Points, F, Op, T, Inner>(pairs, f, op, identity, d_result, stream);
}

/// The one-call reduction returned to the host (reduce.cuh): on_backend checks the pairs and
/// runs the CPU backend or, on the GPU, the reduction by ticket into mapped memory where it can.
template <class Input, class Points, class F, class Op, class T, class Inner>
T reduce_on(execution_policy const& exec, char const* what, pair_set<Points> const& pairs, F const& f, Op op, T identity)
{
  auto const on_cpu = [&] { return cpu::reduce_pairs(pairs, f, op, identity); };
  return on_backend(exec, what, pairs, on_cpu, [&](cudaStream_t stream) {
    return reduce_to_host<T>(
      stream, [&](T* mapped) { return reduce_by_ticket<Input, Points, F, Op, T, Inner>(pairs, f, op, identity, mapped, stream); },
      [&](T* d_result) { reduce_allocating<Input, Points, F, Op, T, Inner>(pairs, f, op, identity, d_result, stream); });
  });
}

}  // namespace detail

}  // namespace twobody
