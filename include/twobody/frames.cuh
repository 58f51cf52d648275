/// \file frames.cuh
/// \brief Statistics over many frames in one launch: F point sets (the frames of a
/// trajectory) concatenated in one coordinate array with an offsets array, each with its own
/// periodic box, and one histogram or count per frame, or their sum.
///
///     // frame f: points [offsets[f], offsets[f + 1]) of x, y, z; boxes: F x 3 sides
///     auto frames = twobody::make_frames(twobody::make_points(n_total, x, y, z), offsets, F).with_boxes(boxes);
///     auto f      = twobody::make_periodic_squared_euclidean(L, L, L);   // the box is each frame's
///     twobody::distance_bins<float> bins(r_max, 128);
///     auto h   = twobody::histogram_frames(twobody::self_frame_pairs(frames), f, bins);     // sum over frames
///     auto per = twobody::histogram_per_frame(twobody::self_frame_pairs(frames), f, bins);  // one per frame
///
/// Pairs never cross frames: self_frame_pairs visits the unordered pairs of each frame,
/// cross_frame_pairs(a, b) the pairs of frame f of A with frame f of B (two species: each a frame
/// set of its own, the caller's subsets of every frame). Offsets (F + 1 values, non-
/// decreasing, the last at most the points' size), coordinates and boxes may be in host or
/// device memory; offsets and boxes are read on the host before the launch (device ones are
/// copied back: one synchronization). Frames with 0 or 1 point have no pairs.
///
/// Boxes: with `with_boxes(sides)` (F x D values, frame after frame) the functor's periodic
/// box (`box`, or `metric.box` of a `within` predicate) is replaced by each frame's. Every side
/// must be finite and > 0, and for histograms whose bins have edges every side must be at least
/// twice the largest edge (as a distance): past half a side the minimum image is ambiguous,
/// and such a box is refused with twobody::error. Coordinates must lie in one image of their
/// frame's box. A functor without a box and a batch with boxes is an error too.
///
/// Counts are `unsigned long long` (double sums of w_i w_j for weighted sets, added by
/// atomics in an unspecified order). Device outputs are overwritten (zeroed first).
#pragma once

#include <twobody/binning.cuh>
#include <twobody/cpu/frames.cuh>
#include <twobody/detail/device_buffer.cuh>
#include <twobody/detail/engine.cuh>
#include <twobody/detail/error.cuh>
#include <twobody/detail/frame_traversal.cuh>
#include <twobody/detail/frames_host.cuh>
#include <twobody/detail/histogram_launch.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/detail/pinned_array.cuh>
#include <twobody/detail/staging.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/execution.cuh>
#include <twobody/frame_set.cuh>
#include <twobody/input/shared_tile.cuh>
#include <twobody/model/device_info.cuh>
#include <twobody/results.cuh>
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

}  // namespace detail

/// Options of the host-result frame statistics.
struct frames_options {
  /// Frames of host arrays go to the GPU in runs of at most this many points (at least one
  /// frame each), so a trajectory larger than the GPU goes through; each run is copied (through
  /// pinned memory, on a stream of its own) while the run before it computes. Device arrays go
  /// in one launch.
  size_type chunk_points = size_type(1) << 24;
  /// Called after each run of frames with (frames done, frames in all), e.g. for a progress bar.
  std::function<void(size_type, size_type)> progress;
};

// ---------------------------------------------------------------------------------------------
// Device outputs (asynchronous on `stream`; the offsets and boxes are read on the host first)

/// The histogram of every frame's pairs, summed over the frames: bins.size() + 1 counters
/// (the last: values outside the bins), in one launch.
template <class Points, class F, class Binning, class Count>
void histogram_frames(frame_pairs<Points> const& pairs, F f, Binning const& bins, Count* d_counts, cudaStream_t stream = 0)
{
  detail::histogram_frames_device(pairs, detail::frame_layout<Points>(pairs, stream), f, bins, d_counts, false, stream);
}

/// One histogram per frame: frame f's bins.size() + 1 counters at d_counts + f * (bins.size() + 1).
template <class Points, class F, class Binning, class Count>
void histogram_per_frame(frame_pairs<Points> const& pairs, F f, Binning const& bins, Count* d_counts, cudaStream_t stream = 0)
{
  detail::histogram_frames_device(pairs, detail::frame_layout<Points>(pairs, stream), f, bins, d_counts, true, stream);
}

/// Pairs with pred(a, b) true, summed over the frames (one counter).
template <class Points, class Pred>
void count_frames(frame_pairs<Points> const& pairs, Pred pred, pair_count_t<Points>* d_count, cudaStream_t stream = 0)
{
  detail::count_frames_device(pairs, detail::frame_layout<Points>(pairs, stream), pred, d_count, false, stream);
}

/// Pairs with pred(a, b) true in each frame: d_counts[f] for frame f.
template <class Points, class Pred>
void count_per_frame(frame_pairs<Points> const& pairs, Pred pred, pair_count_t<Points>* d_counts, cudaStream_t stream = 0)
{
  detail::count_frames_device(pairs, detail::frame_layout<Points>(pairs, stream), pred, d_counts, true, stream);
}

// ---------------------------------------------------------------------------------------------
// Host results, on the backend `exec` names

namespace detail {
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
}  // namespace detail

/// One histogram per frame, returned to the host.
template <class Points, class F, class Binning>
std::vector<histogram_result<pair_count_t<Points>>> histogram_per_frame(execution_policy const& exec,
                                                                        frame_pairs<Points> const& pairs, F f,
                                                                        Binning const& bins, frames_options const& opt = {})
{
  using Count = pair_count_t<Points>;
  using layout_t = detail::frame_layout<Points>;
  detail::check_bins_accept<F, Binning>();
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram_per_frame: need at least one bin");
  if (!detail::runs_on_gpu(exec, "histogram_per_frame")) {
    return detail::on_cpu_backend(exec, [&] { return cpu::histogram_per_frame(pairs, f, bins); });
  }
  cudaStream_t const stream = exec.stream;
  std::size_t const slots   = static_cast<std::size_t>(bins.size()) + 1;
  std::vector<histogram_result<Count>> out;
  detail::frame_runs_to_host<Count>(
    pairs, opt, stream, [&](layout_t const& run) { return slots * run.pairs.size(); },
    [&](frame_pairs<Points> const& run, layout_t const& layout, Count* d) {
      detail::histogram_frames_device(run, layout, f, bins, d, true, stream);
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

/// The histogram summed over the frames, returned to the host.
template <class Points, class F, class Binning>
histogram_result<pair_count_t<Points>> histogram_frames(execution_policy const& exec, frame_pairs<Points> const& pairs, F f,
                                                        Binning const& bins, frames_options const& opt = {})
{
  using Count = pair_count_t<Points>;
  using layout_t = detail::frame_layout<Points>;
  detail::check_bins_accept<F, Binning>();
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram_frames: need at least one bin");
  if (!detail::runs_on_gpu(exec, "histogram_frames")) {
    return detail::on_cpu_backend(exec, [&] { return cpu::histogram_frames(pairs, f, bins); });
  }
  cudaStream_t const stream = exec.stream;
  std::size_t const slots   = static_cast<std::size_t>(bins.size()) + 1;
  std::vector<Count> sum(slots, Count{});
  unsigned long long total = 0;
  detail::frame_runs_to_host<Count>(
    pairs, opt, stream, [&](layout_t const&) { return slots; },
    [&](frame_pairs<Points> const& run, layout_t const& layout, Count* d) {
      detail::histogram_frames_device(run, layout, f, bins, d, false, stream);
    },
    [&](std::vector<Count> part, layout_t const& layout) {
      for (std::size_t k = 0; k < slots; ++k) { sum[k] += part[k]; }
      for (unsigned long long c : layout.pairs) { total += c; }
    });
  return histogram_result<Count>::from_slots(std::move(sum), total);
}

/// Counts per frame, returned to the host.
template <class Points, class Pred>
std::vector<pair_count_t<Points>> count_per_frame(execution_policy const& exec, frame_pairs<Points> const& pairs, Pred pred,
                                                  frames_options const& opt = {})
{
  using C        = pair_count_t<Points>;
  using layout_t = detail::frame_layout<Points>;
  if (!detail::runs_on_gpu(exec, "count_per_frame")) {
    return detail::on_cpu_backend(exec, [&] { return cpu::count_per_frame(pairs, pred); });
  }
  cudaStream_t const stream = exec.stream;
  std::vector<C> out;
  detail::frame_runs_to_host<C>(
    pairs, opt, stream, [](layout_t const& run) { return run.pairs.size(); },
    [&](frame_pairs<Points> const& run, layout_t const& layout, C* d) {
      detail::count_frames_device(run, layout, pred, d, true, stream);
    },
    [&](std::vector<C> counts, layout_t const&) { out.insert(out.end(), counts.begin(), counts.end()); });
  return out;
}

/// The count summed over the frames, returned to the host.
template <class Points, class Pred>
pair_count_t<Points> count_frames(execution_policy const& exec, frame_pairs<Points> const& pairs, Pred pred,
                                  frames_options const& opt = {})
{
  using C        = pair_count_t<Points>;
  using layout_t = detail::frame_layout<Points>;
  if (!detail::runs_on_gpu(exec, "count_frames")) {
    return detail::on_cpu_backend(exec, [&] { return cpu::count_frames(pairs, pred); });
  }
  cudaStream_t const stream = exec.stream;
  C total{};
  detail::frame_runs_to_host<C>(
    pairs, opt, stream, [](layout_t const&) { return std::size_t(1); },
    [&](frame_pairs<Points> const& run, layout_t const& layout, C* d) {
      detail::count_frames_device(run, layout, pred, d, false, stream);
    },
    [&](std::vector<C> part, layout_t const&) { total += part[0]; });
  return total;
}

/// The host-result forms under exec::automatic on `stream`.
template <class Points, class F, class Binning>
auto histogram_frames(frame_pairs<Points> const& pairs, F f, Binning const& bins, cudaStream_t stream = 0)
{
  return histogram_frames(exec::automatic.on(stream), pairs, f, bins);
}
template <class Points, class F, class Binning>
auto histogram_per_frame(frame_pairs<Points> const& pairs, F f, Binning const& bins, cudaStream_t stream = 0)
{
  return histogram_per_frame(exec::automatic.on(stream), pairs, f, bins);
}
template <class Points, class Pred>
auto count_frames(frame_pairs<Points> const& pairs, Pred pred, cudaStream_t stream = 0)
{
  return count_frames(exec::automatic.on(stream), pairs, pred);
}
template <class Points, class Pred>
auto count_per_frame(frame_pairs<Points> const& pairs, Pred pred, cudaStream_t stream = 0)
{
  return count_per_frame(exec::automatic.on(stream), pairs, pred);
}

}  // namespace twobody
