/// \file frames.cuh
/// \brief The dispatch of batched frame statistics: picks the input policy per batch, lays out
/// the private histograms (one per frame or one for all), launches the frame traversal, and runs
/// the host-result forms' loop over runs of frames (copied while the run before computes).
/// frames.cuh's forms call it.
#pragma once

#include <twobody/binning.cuh>
#include <twobody/cpu/frames.cuh>
#include <twobody/detail/frame_traversal.cuh>
#include <twobody/detail/frames_host.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/dispatch/histogram_launch.cuh>
#include <twobody/engine/engine.cuh>
#include <twobody/execution.cuh>
#include <twobody/frame_set.cuh>
#include <twobody/input/shared_tile.cuh>
#include <twobody/math/bin_slot.cuh>
#include <twobody/results.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/device_info.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/pinned_array.cuh>
#include <twobody/util/staging.cuh>
#include <twobody/value_traits.cuh>

#include <cuda_runtime_api.h>
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace twobody {
namespace detail {

/// The input policies of the frame kernels, by the mean size of A's frames. Small frames take
/// 128-point tiles of one point per thread (a 256-point frame is 3 tile pairs, not one 2048-point
/// tile of padding); frames of 2048 points and more take 256-point tiles of 4 points per thread.
/// bench_frames frames/rdf128/tile:* times each tile on 1000 frames: 128 x 1 is fastest at 256
/// atoms, 64 x 4 at 4096, and they tie at 1024.
using small_frame_input = input::shared_tile<128, 1>;
using large_frame_input = input::shared_tile<64, 4>;
inline constexpr double large_frame_points = 2048.0;

/// fn(input policy) with the frame kernels' input policy for `layout`.
template <class Points, class Fn>
void with_frame_input(frame_layout<Points> const& layout, Fn&& fn)
{
  double const points = static_cast<double>(layout.a_offsets.back() - layout.a_offsets.front());
  if (layout.frames > 0 && points >= large_frame_points * static_cast<double>(layout.frames)) {
    fn(large_frame_input{});
  } else {
    fn(small_frame_input{});
  }
}

/// Launches the frame kernel with `Agent` over `batch` (units > 0).
template <class Agent, class Input, class Points, class F>
void launch_frames(frame_batch<Points> const& batch, F const& f, typename Agent::params const& agent, std::size_t smem,
                   cudaStream_t stream)
{
  using traversal = frame_traversal<Input, Points>;
  using visitor   = frame_statistic_visitor<Agent, F>;
  constexpr auto kernel = pair_engine_kernel<traversal, visitor, static_units>;
  if (batch.units() == 0) { return; }
  std::size_t const launch = launch_smem<traversal, kernel>(smem);
  int const grid = persistent_grid(kernel, Input::block_threads, launch, batch.units());
  kernel<<<grid, Input::block_threads, launch, stream>>>(typename traversal::params{batch.inputs()},
                                                              typename visitor::params{agent, f},
                                                              static_units::params{batch.units()});
  TWOBODY_CHECK_LAUNCH();
}

/// Private copies of a frame histogram: as many as fit in 48 KiB (several blocks per SM) up to
/// 32, and with one histogram per frame no more than keep a frame's flush (slots x copies
/// reads per block) under an eighth of its pairs per block.
inline privatized_plan frame_histogram_layout(int slots, bool per_frame, double pairs_per_frame, std::size_t smem_limit)
{
  int copies = 32;
  while (copies > 1 && static_cast<std::size_t>(slots) * copies * 4u > 48u * 1024u) { copies /= 2; }
  if (per_frame) {
    while (copies > 1 && static_cast<double>(slots) * copies * 8.0 > pairs_per_frame) { copies /= 2; }
  }
  privatized_plan const layout = plan_privatized(slots, copies, 4, smem_limit);
  TWOBODY_EXPECTS(layout.passes == 1, ("histogram over frames: " + std::to_string(slots - 1) +
                                       " bins do not fit in one block's shared memory; loop over the frames with "
                                       "the one-call histogram instead")
                                        .c_str());
  return layout;
}

/// `layout`: frame_layout(pairs, stream), read once by the caller.
template <class Input, class F, class Points, class Binning, class Count>
void histogram_frames_with(frame_pairs<Points> const& pairs, frame_layout<Points> const& layout, F const& f, Binning const& bins,
                             Count* d_counts, bool per_frame, cudaStream_t stream)
{
  check_bins_accept<F, Binning>();
  static_assert(cuda::std::is_same_v<Count, unsigned long long> || cuda::std::is_same_v<Count, double>,
                "twobody::histogram_frames: counts must be unsigned long long (or double for weighted point sets)");
  static_assert(!Points::weighted || cuda::std::is_floating_point_v<Count>,
                "twobody::histogram_frames: a weighted point set needs double counts");
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram_frames: need at least one bin");
  TWOBODY_EXPECTS(d_counts != nullptr, "histogram_frames: the counts pointer is null");
  require_device_pointer(d_counts, "histogram_frames: d_counts");
  frame_batch<Points> const batch(pairs, layout, tile_points_v<Input>, stream);
  check_frame_boxes<F>(batch.layout(), f, bin_reach<F>(bins));
  int const slots = bins.size() + 1;
  std::size_t const outputs = static_cast<std::size_t>(slots) * (per_frame ? static_cast<std::size_t>(batch.frames()) : 1u);
  TWOBODY_CUDA_TRY(cudaMemsetAsync(d_counts, 0, sizeof(Count) * outputs, stream));
  if (batch.units() == 0) { return; }
  using Counter = shared_counter_t<Count>;
  using agent   = frame_histogram_agent<Binning, Count, Counter, Input::block_threads>;
  double const pairs_per_frame = batch.frames() > 0 ? static_cast<double>(batch.total_pairs()) / batch.frames() : 0.0;
  std::size_t const optin = device_info::get().smem_per_block_optin;
  using traversal          = frame_traversal<Input, Points>;
  std::size_t const tile  = sizeof(typename traversal::temp_storage) + traversal_dynamic_bytes_v<traversal>;
  privatized_plan const copies = frame_histogram_layout(slots, per_frame, pairs_per_frame, optin > tile + 1024 ? optin - tile - 1024 : 0);
  typename agent::params p{{bins, d_counts, copies.copies, 0, slots, flush_limit_for<Counter>(max_increments_per_tile<Input>())},
                           per_frame, slots};
  launch_frames<agent, Input>(batch, f, p, copies.smem, stream);
}

template <class Input, class Pred, class Points>
void count_frames_with(frame_pairs<Points> const& pairs, frame_layout<Points> const& layout, Pred const& pred,
                         pair_count_t<Points>* d_counts, bool per_frame, cudaStream_t stream)
{
  using C = pair_count_t<Points>;
  TWOBODY_EXPECTS(d_counts != nullptr, "count_frames: the result pointer is null");
  require_device_pointer(d_counts, "count_frames: d_counts");
  frame_batch<Points> const batch(pairs, layout, tile_points_v<Input>, stream);
  check_frame_boxes<Pred>(batch.layout(), pred, predicate_reach(pred));
  std::size_t const outputs = per_frame ? static_cast<std::size_t>(batch.frames()) : 1u;
  TWOBODY_CUDA_TRY(cudaMemsetAsync(d_counts, 0, sizeof(C) * outputs, stream));
  if (batch.units() == 0) { return; }
  using inner = cuda::std::conditional_t<Points::weighted, C, unsigned int>;
  using agent = frame_count_agent<C, inner, Input::block_threads>;
  launch_frames<agent, Input>(batch, pred, typename agent::params{d_counts, per_frame}, 0, stream);
}

/// The batch's histogram (summed or per frame) with the frame input policy for its sizes.
template <class F, class Points, class Binning, class Count>
void histogram_frames_device(frame_pairs<Points> const& pairs, frame_layout<Points> const& layout, F const& f, Binning const& bins,
                             Count* d_counts, bool per_frame, cudaStream_t stream)
{
  with_frame_input(layout, [&](auto in) {
    histogram_frames_with<decltype(in)>(pairs, layout, f, bins, d_counts, per_frame, stream);
  });
}

template <class Pred, class Points>
void count_frames_device(frame_pairs<Points> const& pairs, frame_layout<Points> const& layout, Pred const& pred,
                         pair_count_t<Points>* d_counts, bool per_frame, cudaStream_t stream)
{
  with_frame_input(layout, [&](auto in) { count_frames_with<decltype(in)>(pairs, layout, pred, d_counts, per_frame, stream); });
}


/// The host-result forms' run loop: for each run of frames frames_options asks for (see
/// for_each_frame_chunk; offsets and boxes read once for all of them), launch(run, its layout,
/// d_out) writes values_of(its layout) values of V to d_out on `stream`; once the next run's
/// copy is under way they come back and take(values, its layout) gets them, run after run.
template <class V, class Points, class Size, class Launch, class Take>
void frame_runs_to_host(frame_pairs<Points> const& pairs, frames_options const& opt, cudaStream_t stream, Size&& values_of,
                        Launch&& launch, Take&& take)
{
  frame_layout<Points> const layout(pairs, stream);
  for_each_frame_chunk(pairs, layout, opt.chunk_points, opt.progress, stream,
                       [&](frame_pairs<Points> const& run, frame_layout<Points> const& part) {
                         std::size_t const n = values_of(part);
                         device_buffer d(sizeof(V) * n, stream);
                         launch(run, part, d.as<V>());
                         // `part` outlives the collect call (for_each_frame_chunk collects each run in its turn).
                         return [&, n, d = std::move(d)] {
                           std::vector<V> values(n);
                           copy_to_host_sync(values.data(), d.as<V>(), n, stream);
                           take(std::move(values), part);
                         };
                       });
}
/// The device-output forms (frames.cuh): the frames' layout (their offsets and boxes, read on
/// the host), then one launch.
template <class F, class Points, class Binning, class Count>
void histogram_frames_to_device(frame_pairs<Points> const& pairs, F const& f, Binning const& bins, Count* d_counts,
                                bool per_frame, cudaStream_t stream)
{
  histogram_frames_device(pairs, frame_layout<Points>(pairs, stream), f, bins, d_counts, per_frame, stream);
}
template <class Pred, class Points>
void count_frames_to_device(frame_pairs<Points> const& pairs, Pred const& pred, pair_count_t<Points>* d_counts, bool per_frame,
                            cudaStream_t stream)
{
  count_frames_device(pairs, frame_layout<Points>(pairs, stream), pred, d_counts, per_frame, stream);
}

/// histogram_per_frame returned to the host (frames.cuh): the CPU backend, or the GPU in runs
/// of frames that fit its memory.
template <class Points, class F, class Binning>
std::vector<histogram_result<pair_count_t<Points>>> histogram_per_frame_on(execution_policy const& exec,
                                                                        frame_pairs<Points> const& pairs, F const& f,
                                                                        Binning const& bins, frames_options const& opt)
{
  using Count = pair_count_t<Points>;
  using layout_t = frame_layout<Points>;
  check_bins_accept<F, Binning>();
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram_per_frame: need at least one bin");
  if (!runs_on_gpu(exec, "histogram_per_frame")) {
    return on_cpu_backend(exec, [&] { return cpu::histogram_per_frame(pairs, f, bins); });
  }
  cudaStream_t const stream = exec.stream;
  std::size_t const slots   = static_cast<std::size_t>(bins.size()) + 1;
  std::vector<histogram_result<Count>> out;
  frame_runs_to_host<Count>(
    pairs, opt, stream, [&](layout_t const& run) { return slots * run.pairs.size(); },
    [&](frame_pairs<Points> const& run, layout_t const& layout, Count* d) {
      histogram_frames_device(run, layout, f, bins, d, true, stream);
    },
    [&](std::vector<Count> all, layout_t const& layout) {
      for (std::size_t k = 0; k < layout.pairs.size(); ++k) {
        out.push_back(histogram_result<Count>::from_slots(
          std::vector<Count>(all.begin() + static_cast<std::ptrdiff_t>(k * slots), all.begin() + static_cast<std::ptrdiff_t>((k + 1) * slots)),
          layout.pairs[k]));
      }
    });
  return out;
}

/// histogram_frames returned to the host (frames.cuh).
template <class Points, class F, class Binning>
histogram_result<pair_count_t<Points>> histogram_frames_on(execution_policy const& exec, frame_pairs<Points> const& pairs, F const& f,
                                                        Binning const& bins, frames_options const& opt)
{
  using Count = pair_count_t<Points>;
  using layout_t = frame_layout<Points>;
  check_bins_accept<F, Binning>();
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram_frames: need at least one bin");
  if (!runs_on_gpu(exec, "histogram_frames")) {
    return on_cpu_backend(exec, [&] { return cpu::histogram_frames(pairs, f, bins); });
  }
  cudaStream_t const stream = exec.stream;
  std::size_t const slots   = static_cast<std::size_t>(bins.size()) + 1;
  std::vector<Count> sum(slots, Count{});
  unsigned long long total = 0;
  frame_runs_to_host<Count>(
    pairs, opt, stream, [&](layout_t const&) { return slots; },
    [&](frame_pairs<Points> const& run, layout_t const& layout, Count* d) {
      histogram_frames_device(run, layout, f, bins, d, false, stream);
    },
    [&](std::vector<Count> part, layout_t const& layout) {
      for (std::size_t k = 0; k < slots; ++k) { sum[k] += part[k]; }
      for (unsigned long long c : layout.pairs) { total += c; }
    });
  return histogram_result<Count>::from_slots(std::move(sum), total);
}

/// count_per_frame returned to the host (frames.cuh).
template <class Points, class Pred>
std::vector<pair_count_t<Points>> count_per_frame_on(execution_policy const& exec, frame_pairs<Points> const& pairs, Pred const& pred,
                                                  frames_options const& opt)
{
  using C        = pair_count_t<Points>;
  using layout_t = frame_layout<Points>;
  if (!runs_on_gpu(exec, "count_per_frame")) {
    return on_cpu_backend(exec, [&] { return cpu::count_per_frame(pairs, pred); });
  }
  cudaStream_t const stream = exec.stream;
  std::vector<C> out;
  frame_runs_to_host<C>(
    pairs, opt, stream, [](layout_t const& run) { return run.pairs.size(); },
    [&](frame_pairs<Points> const& run, layout_t const& layout, C* d) {
      count_frames_device(run, layout, pred, d, true, stream);
    },
    [&](std::vector<C> counts, layout_t const&) { out.insert(out.end(), counts.begin(), counts.end()); });
  return out;
}

/// count_frames returned to the host (frames.cuh).
template <class Points, class Pred>
pair_count_t<Points> count_frames_on(execution_policy const& exec, frame_pairs<Points> const& pairs, Pred const& pred,
                                  frames_options const& opt)
{
  using C        = pair_count_t<Points>;
  using layout_t = frame_layout<Points>;
  if (!runs_on_gpu(exec, "count_frames")) {
    return on_cpu_backend(exec, [&] { return cpu::count_frames(pairs, pred); });
  }
  cudaStream_t const stream = exec.stream;
  C total{};
  frame_runs_to_host<C>(
    pairs, opt, stream, [](layout_t const&) { return std::size_t(1); },
    [&](frame_pairs<Points> const& run, layout_t const& layout, C* d) {
      count_frames_device(run, layout, pred, d, false, stream);
    },
    [&](std::vector<C> part, layout_t const&) { total += part[0]; });
  return total;
}

}  // namespace detail

}  // namespace twobody
