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
#include <twobody/dispatch/frames.cuh>
#include <twobody/execution.cuh>
#include <twobody/frame_set.cuh>
#include <twobody/math/bin_slot.cuh>
#include <twobody/results.cuh>
#include <twobody/util/error.cuh>
#include <twobody/value_traits.cuh>

#include <cuda_runtime_api.h>

#include <vector>

namespace twobody {

// ---------------------------------------------------------------------------------------------
// Device outputs (asynchronous on `stream`; the offsets and boxes are read on the host first)

/// The histogram of every frame's pairs, summed over the frames: bins.size() + 1 counters
/// (the last: values outside the bins), in one launch.
template <class Points, class F, class Binning, class Count>
void histogram_frames(frame_pairs<Points> const& pairs, F f, Binning const& bins, Count* d_counts, cudaStream_t stream = 0)
{
  detail::histogram_frames_to_device(pairs, f, bins, d_counts, false, stream);
}

/// One histogram per frame: frame f's bins.size() + 1 counters at d_counts + f * (bins.size() + 1).
template <class Points, class F, class Binning, class Count>
void histogram_per_frame(frame_pairs<Points> const& pairs, F f, Binning const& bins, Count* d_counts, cudaStream_t stream = 0)
{
  detail::histogram_frames_to_device(pairs, f, bins, d_counts, true, stream);
}

/// Pairs with pred(a, b) true, summed over the frames (one counter).
template <class Points, class Pred>
void count_frames(frame_pairs<Points> const& pairs, Pred pred, pair_count_t<Points>* d_count, cudaStream_t stream = 0)
{
  detail::count_frames_to_device(pairs, pred, d_count, false, stream);
}

/// Pairs with pred(a, b) true in each frame: d_counts[f] for frame f.
template <class Points, class Pred>
void count_per_frame(frame_pairs<Points> const& pairs, Pred pred, pair_count_t<Points>* d_counts, cudaStream_t stream = 0)
{
  detail::count_frames_to_device(pairs, pred, d_counts, true, stream);
}

// ---------------------------------------------------------------------------------------------
// Host results, on the backend `exec` names

/// One histogram per frame, returned to the host.
template <class Points, class F, class Binning>
std::vector<histogram_result<pair_count_t<Points>>> histogram_per_frame(execution_policy const& exec,
                                                                        frame_pairs<Points> const& pairs, F f,
                                                                        Binning const& bins, frames_options const& opt = {})
{
  return detail::histogram_per_frame_on(exec, pairs, f, bins, opt);
}

/// The histogram summed over the frames, returned to the host.
template <class Points, class F, class Binning>
histogram_result<pair_count_t<Points>> histogram_frames(execution_policy const& exec, frame_pairs<Points> const& pairs, F f,
                                                        Binning const& bins, frames_options const& opt = {})
{
  return detail::histogram_frames_on(exec, pairs, f, bins, opt);
}

/// Counts per frame, returned to the host.
template <class Points, class Pred>
std::vector<pair_count_t<Points>> count_per_frame(execution_policy const& exec, frame_pairs<Points> const& pairs, Pred pred,
                                                  frames_options const& opt = {})
{
  return detail::count_per_frame_on(exec, pairs, pred, opt);
}

/// The count summed over the frames, returned to the host.
template <class Points, class Pred>
pair_count_t<Points> count_frames(execution_policy const& exec, frame_pairs<Points> const& pairs, Pred pred,
                                  frames_options const& opt = {})
{
  return detail::count_frames_on(exec, pairs, pred, opt);
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
