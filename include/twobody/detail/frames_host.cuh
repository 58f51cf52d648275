/// \file frames_host.cuh
/// \brief The host side of batched frames, shared by the GPU and CPU backends: offsets and
/// boxes read and checked on the host, the pairs of each frame, the boxes against the bins'
/// reach, the device arrays of one launch, and chunks of frames for host arrays.
#pragma once

#include <twobody/detail/frame_traversal.cuh>
#include <twobody/frame_set.cuh>
#include <twobody/functors.cuh>
#include <twobody/math/tile_schedule.cuh>
#include <twobody/util/device_array.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/gpu_status.cuh>
#include <twobody/util/pinned_array.cuh>
#include <twobody/util/staging.cuh>
#include <twobody/util/validate.cuh>
#include <twobody/value_traits.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace twobody::detail {

/// A host copy of n values at p, which may be host or device memory.
template <class T>
std::vector<T> read_to_host(T const* p, std::size_t n, cudaStream_t stream, char const* what)
{
  std::vector<T> h(n);
  if (n == 0) { return h; }
  TWOBODY_EXPECTS(p != nullptr, (std::string(what) + " is null").c_str());
  bool on_device = false;
  if (current_gpu_status().usable) {
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, p) == cudaSuccess) {
      on_device = attr.type == cudaMemoryTypeDevice;
    } else {
      (void)cudaGetLastError();  // unknown to CUDA: plain host memory
    }
  }
  if (on_device) {
    copy_to_host_sync(h.data(), p, n, stream);
  } else {
    std::memcpy(h.data(), p, n * sizeof(T));
  }
  return h;
}

/// Points [begin, begin + n) of a view.
template <class Points>
Points slice_of(Points p, size_type begin, size_type n)
{
  if (n <= 0) {
    p.size = 0;
    return p;
  }
  for (auto& c : p.coords) { c += begin; }
  if constexpr (Points::weighted) { p.weights += begin; }
  p.size = n;
  return p;
}

/// Offsets, boxes and pair counts of a batch, read to the host and checked.
template <class Points>
struct frame_layout {
  using T                = typename Points::value_type;
  static constexpr int D = Points::dims;

  pair_mode mode;
  size_type frames;
  std::vector<size_type> a_offsets, b_offsets;     ///< frames + 1 each (b == a unless cross)
  std::vector<T> boxes;                            ///< frames x D, or empty
  std::vector<unsigned long long> pairs;           ///< pairs of each frame

  frame_layout(frame_pairs<Points> const& fp, cudaStream_t stream) : mode(fp.mode), frames(fp.a.frames)
  {
    TWOBODY_EXPECTS(fp.mode == pair_mode::self || fp.mode == pair_mode::cross,
                    "frames: the pairs of a frame are self (self_frame_pairs) or cross (cross_frame_pairs)");
    TWOBODY_EXPECTS(frames >= 0, "frames: the number of frames must not be negative");
    TWOBODY_EXPECTS(fp.mode != pair_mode::cross || fp.b.frames == frames,
                    "cross_frame_pairs: both sides need the same number of frames");
    validate(fp.mode == pair_mode::cross ? cross_pairs(fp.a.points, fp.b.points) : self_pairs(fp.a.points));
    a_offsets = read_frame_offsets(fp.a, stream, "A");
    b_offsets = fp.mode == pair_mode::cross ? read_frame_offsets(fp.b, stream, "B") : a_offsets;
    if (fp.a.boxes != nullptr) {
      boxes = read_to_host(fp.a.boxes, static_cast<std::size_t>(frames) * D, stream, "the frame boxes");
      for (std::size_t k = 0; k < boxes.size(); ++k) {
        TWOBODY_EXPECTS(boxes[k] > T(0) && std::isfinite(static_cast<double>(boxes[k])),
                        ("frames: box side " + std::to_string(k % D) + " of frame " + std::to_string(k / D) +
                         " is not finite and > 0")
                          .c_str());
      }
    }
    pairs.resize(static_cast<std::size_t>(frames));
    for (size_type f = 0; f < frames; ++f) {
      auto const na = static_cast<unsigned long long>(a_offsets[f + 1] - a_offsets[f]);
      auto const nb = static_cast<unsigned long long>(b_offsets[f + 1] - b_offsets[f]);
      pairs[f]      = mode == pair_mode::self ? (na < 2 ? 0ull : na * (na - 1) / 2) : na * nb;
    }
  }

  /// The layout of frames [first, last), offsets counted from their first points.
  frame_layout runs(size_type first, size_type last) const
  {
    frame_layout r;  // filled from the run's slices only (a copy of the whole layout per run cost O(frames) each)
    r.mode   = mode;
    r.frames = last - first;
    auto cut = [&](std::vector<size_type> const& o) {
      std::vector<size_type> c(o.begin() + first, o.begin() + last + 1);
      for (auto& v : c) { v -= o[first]; }
      return c;
    };
    r.a_offsets = cut(a_offsets);
    r.b_offsets = cut(b_offsets);
    r.boxes.assign(boxes.empty() ? boxes.end() : boxes.begin() + first * D, boxes.empty() ? boxes.end() : boxes.begin() + last * D);
    r.pairs.assign(pairs.begin() + first, pairs.begin() + last);
    return r;
  }

  /// The pair set of frame f (over the views of `fp`).
  pair_set<Points> frame(frame_pairs<Points> const& fp, size_type f) const
  {
    Points const a = slice_of(fp.a.points, a_offsets[f], a_offsets[f + 1] - a_offsets[f]);
    if (mode == pair_mode::self) { return self_pairs(a); }
    return cross_pairs(a, slice_of(fp.b.points, b_offsets[f], b_offsets[f + 1] - b_offsets[f]));
  }

  /// f with frame f's box (when the batch has boxes).
  template <class F>
  F functor_of(F f, size_type frame) const
  {
    if constexpr (has_periodic_box<F>) {
      if (!boxes.empty()) { set_box<D>(f, boxes.data() + frame * D); }
    }
    return f;
  }

 private:
  frame_layout() = default;

  static std::vector<size_type> read_frame_offsets(frame_set<Points> const& s, cudaStream_t stream, char const* side)
  {
    TWOBODY_EXPECTS(s.frames == 0 || s.offsets != nullptr,
                    (std::string("frames: the offsets of side ") + side + " are null").c_str());
    if (s.frames == 0) { return {0}; }
    std::vector<size_type> o = read_to_host(s.offsets, static_cast<std::size_t>(s.frames) + 1, stream, "the frame offsets");
    TWOBODY_EXPECTS(o[0] >= 0, "frames: offsets[0] must not be negative");
    for (size_type f = 0; f < s.frames; ++f) {
      TWOBODY_EXPECTS(o[f + 1] >= o[f], ("frames: the offsets decrease at frame " + std::to_string(f) +
                                         " (offsets[f + 1] < offsets[f])")
                                          .c_str());
    }
    TWOBODY_EXPECTS(o.back() <= s.points.size, ("frames: the offsets of side " + std::string(side) + " end at " +
                                                std::to_string(o.back()) + ", past the " +
                                                std::to_string(s.points.size) + " points")
                                                 .c_str());
    return o;
  }
};

/// True for bin maps with edges (edge(k), k = 0 .. size()).
template <class Binning, class = void>
struct has_edges : cuda::std::false_type {};
template <class Binning>
struct has_edges<Binning, cuda::std::void_t<decltype(cuda::std::declval<Binning const&>().edge(0))>> : cuda::std::true_type {};

/// How far the bins reach, as a distance: their last edge (the square root of it when the
/// functor's values are squared distances and the bins take them as they are); -1 when the bin
/// map has no edges (nothing to check).
template <class F, class Binning>
double bin_reach(Binning const& bins)
{
  if constexpr (has_edges<Binning>::value) {
    double const e = static_cast<double>(bins.edge(bins.size()));
    if (expects_squared_distance<Binning>::value || !returns_squared_distance<F>::value) { return e; }
    return std::sqrt(e > 0.0 ? e : 0.0);
  } else {
    return -1.0;
  }
}

/// How far a predicate reaches, as a distance: a within{} counts pairs whose metric is below its
/// threshold, so its reach is the threshold (the square root of it when the metric's values are
/// squared distances); -1 for other predicates (nothing to check).
template <class Pred>
double predicate_reach(Pred const&)
{
  return -1.0;
}
template <class Metric, class T>
double predicate_reach(within<Metric, T> const& w)
{
  double const t = static_cast<double>(w.threshold);
  if (!returns_squared_distance<Metric>::value) { return t; }
  return std::sqrt(t > 0.0 ? t : 0.0);
}

/// Boxes against the functor and the reach: a batch with boxes needs a functor with a box; and
/// every side (each frame's, or the functor's own) must be at least twice the reach, or the
/// minimum image is ambiguous within the bins (or the cutoff).
template <class F, class Points>
void check_frame_boxes(frame_layout<Points> const& layout, F const& f, double reach)
{
  constexpr int D = Points::dims;
  if (!layout.boxes.empty()) {
    TWOBODY_EXPECTS(has_periodic_box<F>,
                    "frames: the batch has boxes but the functor has no periodic box to take them (use "
                    "periodic_euclidean / periodic_squared_euclidean, or a within{} of one)");
  }
  if (reach < 0.0) { return; }
  auto check = [&](double side, size_type frame) {
    TWOBODY_EXPECTS(side >= 2.0 * reach,
                    ("frames: box side " + std::to_string(side) + (frame >= 0 ? " of frame " + std::to_string(frame) : "") +
                     " is smaller than twice the reach " + std::to_string(reach) +
                     " of the bins or the cutoff: the minimum image is ambiguous there; use bins (or a cutoff) that "
                     "end at or before half the shortest side")
                      .c_str());
  };
  if (!layout.boxes.empty()) {
    for (std::size_t k = 0; k < layout.boxes.size(); ++k) { check(static_cast<double>(layout.boxes[k]), static_cast<size_type>(k / D)); }
  } else if constexpr (has_box_member<F>::value) {
    for (int d = 0; d < D; ++d) { check(static_cast<double>(f.box[d]), -1); }
  } else if constexpr (has_metric_box<F>::value) {
    for (int d = 0; d < D; ++d) { check(static_cast<double>(f.metric.box[d]), -1); }
  }
}

/// One launch's device arrays: the offsets, each frame's first tile pair, the boxes, and the
/// points (staged when they are host arrays).
template <class Points>
class frame_batch {
 public:
  /// `layout`: the layout of `fp`, read already (frame_layout(fp, stream)); it must outlive the batch.
  frame_batch(frame_pairs<Points> const& fp, frame_layout<Points> const& layout, int tile, cudaStream_t stream)
    : layout_(layout), a_(fp.a.points, stream), b_(fp.mode == pair_mode::cross ? fp.b.points : Points{}, stream)
  {
    size_type const F = layout_.frames;
    std::vector<unsigned long long> units(static_cast<std::size_t>(F) + 1, 0ull);
    for (size_type f = 0; f < F; ++f) {
      tile_schedule const s = tile_schedule::make(layout_.mode, layout_.a_offsets[f + 1] - layout_.a_offsets[f],
                                                  layout_.b_offsets[f + 1] - layout_.b_offsets[f], tile);
      units[f + 1] = units[f] + static_cast<unsigned long long>(s.total);
    }
    units_ = units.back();
    if (units_ == 0) { return; }
    // One buffer, one copy: offsets of A and B, unit offsets, boxes.
    std::size_t const n1 = static_cast<std::size_t>(F) + 1, nd = layout_.boxes.size();
    std::size_t const bytes = 3 * n1 * 8 + nd * sizeof(T);
    std::vector<unsigned char> host(bytes);
    std::memcpy(host.data(), layout_.a_offsets.data(), n1 * 8);
    std::memcpy(host.data() + n1 * 8, layout_.b_offsets.data(), n1 * 8);
    std::memcpy(host.data() + 2 * n1 * 8, units.data(), n1 * 8);
    if (nd > 0) { std::memcpy(host.data() + 3 * n1 * 8, layout_.boxes.data(), nd * sizeof(T)); }
    arrays_ = device_buffer(bytes, stream);
    // From pageable memory: the call returns once the bytes are staged, so `host` may go.
    TWOBODY_CUDA_TRY(cudaMemcpyAsync(arrays_.data(), host.data(), bytes, cudaMemcpyHostToDevice, stream));
    auto* base = static_cast<unsigned char*>(arrays_.data());
    in_       = {layout_.mode,
                 a_.view(),
                 layout_.mode == pair_mode::cross ? b_.view() : a_.view(),
                 reinterpret_cast<size_type const*>(base),
                 reinterpret_cast<size_type const*>(base + n1 * 8),
                 reinterpret_cast<unsigned long long const*>(base + 2 * n1 * 8),
                 F,
                 nd > 0 ? reinterpret_cast<T const*>(base + 3 * n1 * 8) : nullptr};
  }

  frame_layout<Points> const& layout() const { return layout_; }
  frame_inputs<Points> const& inputs() const { return in_; }
  unsigned long long units() const { return units_; }
  size_type frames() const { return layout_.frames; }
  unsigned long long total_pairs() const
  {
    unsigned long long t = 0;
    for (unsigned long long p : layout_.pairs) { t += p; }
    return t;
  }

 private:
  using T = typename Points::value_type;
  frame_layout<Points> const& layout_;
  staged_points<Points> a_, b_;
  device_buffer arrays_;
  frame_inputs<Points> in_{};
  unsigned long long units_ = 0;
};

/// Two device slots for runs of frames from host arrays, each with a `ready` event (its copy
/// done, recorded on the copy stream) and a `free` event (the last kernel reading it done).
/// While the kernels of one run read one slot, the next run is copied into the other on a
/// stream of its own. The copies go straight from the caller's (pageable) arrays: pinning
/// staging memory per call cost more than the overlap saved (H100: 6.6 ms against 1.6 ms for
/// 1000 frames of 1024 atoms in 4 runs).
template <class Points>
class frame_run_slots {
  using T = typename Points::value_type;
  static constexpr int columns = Points::dims + (Points::weighted ? 1 : 0);

 public:
  /// Slots for runs of at most `a_points` points of A and `b_points` of B (0: self mode).
  frame_run_slots(size_type a_points, size_type b_points)
    : a_stride_((a_points + 63) / 64 * 64), b_stride_((b_points + 63) / 64 * 64)
  {
    for (auto& s : slots_) {
      s.a = device_array<T>(static_cast<std::size_t>(a_stride_) * columns);
      s.b = device_array<T>(static_cast<std::size_t>(b_stride_) * columns);
      TWOBODY_CUDA_TRY(cudaEventCreateWithFlags(&s.ready, cudaEventDisableTiming));
      TWOBODY_CUDA_TRY(cudaEventCreateWithFlags(&s.free, cudaEventDisableTiming));
    }
  }
  frame_run_slots(frame_run_slots const&) = delete;
  ~frame_run_slots()
  {
    (void)cudaStreamSynchronize(copy_.s);
    for (auto& s : slots_) {
      if (s.free != nullptr) { (void)cudaEventSynchronize(s.free); }
      (void)cudaEventDestroy(s.ready);
      (void)cudaEventDestroy(s.free);
    }
  }

  /// Copies `a` (and `b`, cross mode) into slot k % 2 once its last reader is done; `compute`
  /// waits for the copy. Returns the device views.
  std::pair<Points, Points> stage(int k, Points const& a, Points const& b, cudaStream_t compute)
  {
    slot& s = slots_[k % 2];
    TWOBODY_CUDA_TRY(cudaEventSynchronize(s.free));
    Points const da = put(a, s.a, a_stride_);
    Points const db = b.size > 0 ? put(b, s.b, b_stride_) : b;
    TWOBODY_CUDA_TRY(cudaEventRecord(s.ready, copy_.s));
    TWOBODY_CUDA_TRY(cudaStreamWaitEvent(compute, s.ready, 0));
    return {da, db};
  }

  /// The work enqueued on `compute` so far is the last to read slot k % 2.
  void release(int k, cudaStream_t compute) { TWOBODY_CUDA_TRY(cudaEventRecord(slots_[k % 2].free, compute)); }

 private:
  struct slot {
    device_array<T> a, b;
    cudaEvent_t ready = nullptr, free = nullptr;
  };

  // Columns start on 256-byte boundaries (the kernels' vector loads need 16-byte alignment).
  Points put(Points const& p, device_array<T> const& device, size_type stride)
  {
    Points v = p;
    std::size_t const n = static_cast<std::size_t>(p.size);
    for (int c = 0; c < columns; ++c) {
      T const* src = c < Points::dims ? p.coords[c] : p.weights;
      T* const dev = device.data() + static_cast<std::size_t>(c) * stride;
      if (n > 0) { TWOBODY_CUDA_TRY(cudaMemcpyAsync(dev, src, n * sizeof(T), cudaMemcpyHostToDevice, copy_.s)); }
      if (c < Points::dims) {
        v.coords[c] = dev;
      } else {
        v.weights = dev;
      }
    }
    return v;
  }

  size_type a_stride_, b_stride_;
  owned_stream copy_;
  std::array<slot, 2> slots_{};
};

/// Runs fn over the frames of `layout` (the layout of fp). fn(run, its layout) enqueues the
/// run's work on `stream` and returns collect(), which waits for the run's results and reads
/// them. Device arrays go as one run. Host arrays go in runs of at most `max_points` points
/// (at least one frame each), so that a trajectory larger than the GPU goes through: with
/// several runs, each is copied while the one before it computes (frame_run_slots), then
/// collected.
template <class Points, class Fn>
void for_each_frame_chunk(frame_pairs<Points> const& fp, frame_layout<Points> const& layout, size_type max_points,
                          std::function<void(size_type, size_type)> const& progress, cudaStream_t stream, Fn&& fn)
{
  TWOBODY_EXPECTS(max_points >= 1, "frames_options: chunk_points must be at least 1");
  auto on_device = [](Points const& p) {
    if (p.size == 0) { return true; }
    for (auto const* c : p.coords) {
      if (!device_accessible(c)) { return false; }
    }
    return true;
  };
  bool const cross = fp.mode == pair_mode::cross;
  if (on_device(fp.a.points) && (!cross || on_device(fp.b.points))) {
    fn(fp, layout)();
    if (progress) { progress(layout.frames, layout.frames); }
    return;
  }
  // The runs, and the most points of each side one holds (the slots' size).
  size_type const F = layout.frames;
  std::vector<std::pair<size_type, size_type>> runs;
  size_type most_a = 0, most_b = 0;
  for (size_type first = 0; first < F;) {
    size_type last = first + 1;
    auto points_of = [&](size_type l) {
      return (layout.a_offsets[l] - layout.a_offsets[first]) + (cross ? layout.b_offsets[l] - layout.b_offsets[first] : 0);
    };
    while (last < F && points_of(last + 1) <= max_points) { ++last; }
    runs.emplace_back(first, last);
    most_a = std::max(most_a, layout.a_offsets[last] - layout.a_offsets[first]);
    if (cross) { most_b = std::max(most_b, layout.b_offsets[last] - layout.b_offsets[first]); }
    first = last;
  }
  if (runs.size() == 1) {  // nothing to overlap: the launch stages the host arrays itself
    fn(fp, layout)();
    if (progress) { progress(F, F); }
    return;
  }
  frame_run_slots<Points> slots(most_a, most_b);
  auto host_side = [&](std::size_t k) {
    auto const [first, last] = runs[k];
    Points const a = slice_of(fp.a.points, layout.a_offsets[first], layout.a_offsets[last] - layout.a_offsets[first]);
    Points const b = cross ? slice_of(fp.b.points, layout.b_offsets[first], layout.b_offsets[last] - layout.b_offsets[first])
                           : slice_of(fp.a.points, 0, 0);
    return std::make_pair(a, b);
  };
  auto staged = [&](std::size_t k) {
    auto const [a, b] = host_side(k);
    return slots.stage(static_cast<int>(k), a, b, stream);
  };
  std::pair<Points, Points> views = staged(0);
  for (std::size_t k = 0; k < runs.size(); ++k) {
    auto const [first, last] = runs[k];
    frame_layout<Points> const part = layout.runs(first, last);
    frame_pairs<Points> chunk       = fp;
    chunk.a.points  = views.first;
    chunk.a.offsets = part.a_offsets.data();
    chunk.a.frames  = part.frames;
    chunk.a.boxes   = part.boxes.empty() ? nullptr : part.boxes.data();
    chunk.b         = chunk.a;
    if (cross) {
      chunk.b.points  = views.second;
      chunk.b.offsets = part.b_offsets.data();
    }
    auto collect = fn(chunk, part);
    slots.release(static_cast<int>(k), stream);
    if (k + 1 < runs.size()) { views = staged(k + 1); }  // overlaps run k's kernels
    collect();
    if (progress) { progress(last, F); }
  }
}

}  // namespace twobody::detail
