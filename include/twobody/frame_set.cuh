/// \file frame_set.cuh
/// \brief Frames: F point sets in one structure-of-arrays view, cut by an offsets array, with
/// an optional periodic box per frame; and the pairs a batched statistic visits in each frame
/// (frames.cuh has the statistics).
#pragma once

#include <twobody/points.cuh>

#include <functional>

namespace twobody {

/// F frames over one point view: frame f is points [offsets[f], offsets[f + 1]) of `points`.
/// `offsets` holds F + 1 non-decreasing values (host or device memory); `boxes`, if set, F x D
/// box sides (frame f's at boxes[f * D + d]).
template <class Points>
struct frame_set {
  using points_type = Points;
  using value_type  = typename Points::value_type;

  Points points{};
  size_type const* offsets = nullptr;
  size_type frames         = 0;
  value_type const* boxes  = nullptr;

  /// The same frames with a periodic box per frame (F x D sides).
  frame_set with_boxes(value_type const* sides) const
  {
    frame_set f = *this;
    f.boxes     = sides;
    return f;
  }
};

/// Frames of `points` cut at `offsets` (frames + 1 values).
template <class Points>
frame_set<Points> make_frames(Points const& points, size_type const* offsets, size_type frames)
{
  frame_set<Points> f;
  f.points  = points;
  f.offsets = offsets;
  f.frames  = frames;
  return f;
}

/// The pairs of a batched statistic: within each frame (self), or frame f of A with frame f of
/// B (cross; the boxes are A's).
template <class Points>
struct frame_pairs {
  using points_type = Points;
  pair_mode mode = pair_mode::self;
  frame_set<Points> a{};
  frame_set<Points> b{};
};

/// The unordered pairs {i, j}, i < j, of each frame.
template <class Points>
frame_pairs<Points> self_frame_pairs(frame_set<Points> const& frames)
{
  return {pair_mode::self, frames, frames};
}

/// The pairs of frame f of `a` with frame f of `b`, for every f (a and b have as many frames).
template <class Points>
frame_pairs<Points> cross_frame_pairs(frame_set<Points> const& a, frame_set<Points> const& b)
{
  return {pair_mode::cross, a, b};
}

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

}  // namespace twobody
