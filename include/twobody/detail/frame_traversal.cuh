#pragma once

/// The engine's pieces for batches of frames (frames.cuh): a traversal whose units are the tile
/// pairs of every frame in turn, a visitor that rebinds the functor's periodic box when the
/// frame changes, and the two agents (a shared-memory histogram and a count) that move their
/// output to the frame's slot when the frame changes.

#include <twobody/detail/tile_traversal.cuh>
#include <twobody/engine/engine.cuh>
#include <twobody/engine/visitors.cuh>
#include <twobody/math/band_keys.cuh>
#include <twobody/math/periodic_box.cuh>
#include <twobody/math/tile_schedule.cuh>
#include <twobody/output/privatized_histogram.cuh>
#include <twobody/points.cuh>

#include <cub/block/block_reduce.cuh>
#include <cuda/std/type_traits>

namespace twobody::detail {

/// A batch of frames as the kernel reads it (every array in device memory).
template <class Points>
struct frame_inputs {
  using T = typename Points::value_type;
  pair_mode mode;                          ///< the pairs within each frame
  Points a;                                ///< every frame's points of A, frame after frame
  Points b;                                ///< of B (== a unless cross)
  size_type const* a_offsets;              ///< frame f: points [a_offsets[f], a_offsets[f + 1]) of a
  size_type const* b_offsets;              ///< of b (== a_offsets unless cross)
  unsigned long long const* unit_offsets;  ///< frame f: tile pairs [unit_offsets[f], unit_offsets[f + 1])
  size_type frames;
  T const* boxes;  ///< frame f's periodic box: boxes[f * D .. f * D + D - 1]; null: the functor's own
};

/// Units are the tile pairs of frame 0, then of frame 1, ...: frame f's are its own tile
/// schedule (tile_schedule) over its points. A block takes a contiguous range of units (the
/// static split), so it crosses few frame boundaries; at each it tells the visitor
/// (begin_frame), which moves the output and the box. Column tiles are staged with scalar
/// loads (frames start at any offset, so vector loads could be misaligned).
template <class Input, class Points>
struct frame_traversal {
  static constexpr int block_threads     = Input::block_threads;
  static constexpr int min_blocks_per_sm = min_blocks_per_sm_v<Input>;
  static constexpr int B                 = Input::block_threads;
  static constexpr int R                 = Input::points_per_thread;
  static constexpr int TS                = B * R;
  using T                                = typename Points::value_type;
  static constexpr int D                 = Points::dims;
  static constexpr bool W                = Points::weighted;
  using source                           = typename Input::template column_source<Points>;
  using stored                           = typename source::stored;

  struct params {
    frame_inputs<Points> in;
  };
  using temp_storage = typename source::temp_storage;
  static constexpr std::size_t dynamic_bytes = dynamic_bytes_v<source>;  ///< a large column tile's (engine.cuh)

  frame_inputs<Points> const& in;
  source columns;

  __device__ frame_traversal(params const& p, temp_storage& storage, unsigned char* dynamic = nullptr)
    : in(p.in), columns(storage, dynamic, p.in.b, false)
  {
  }

  /// The frame holding unit u: the last f with unit_offsets[f] <= u (frames without units skipped).
  __device__ size_type frame_of(unsigned long long u) const
  {
    auto const after = partition_point(in.unit_offsets, 1, static_cast<unsigned long long>(in.frames) + 1,
                                       [u](unsigned long long first) { return first <= u; });
    return static_cast<size_type>(after) - 1;
  }

  template <class Source, class Visitor>
  __device__ void run(Source& units, Visitor& out)
  {
    static_assert(Source::consecutive, "frames run on the static split");
    static_assert(column_groups_v<Input> == 1, "frames run input policies without column groups");
    static_assert(!is_per_row_agent<typename Visitor::agent_type>::value, "frames have no per-point statistics");
    if (!units.any()) { return; }
    point<T, D> own[R];
    T own_w[R] = {};
    auto weight = [&](int r, stored const& s) {
      if constexpr (W) {
        return own_w[r] * s.weight();
      } else {
        return unweighted{};
      }
    };

    size_type frame = frame_of(units.first());
    unsigned long long frame_end = in.unit_offsets[frame + 1];
    size_type base_a = 0, base_b = 0, n_a = 0, n_b = 0;
    tile_schedule sched;
    auto enter = [&](size_type f) {
      base_a = in.a_offsets[f];
      n_a    = in.a_offsets[f + 1] - base_a;
      base_b = in.b_offsets[f];
      n_b    = in.b_offsets[f + 1] - base_b;
      sched  = tile_schedule::make(in.mode, n_a, n_b, TS);
      out.template begin_frame<D>(f, in.boxes != nullptr ? in.boxes + f * D : nullptr);
    };
    enter(frame);
    size_type row = 0, col = 0;
    sched.locate(static_cast<size_type>(units.first() - in.unit_offsets[frame]), row, col);
    size_type loaded_row = -1;
    int row_count        = 0;

    for (unsigned long long unit = 0; units.next(unit);) {
      if (unit >= frame_end) {  // the next frame with units
        do {
          ++frame;
        } while (in.unit_offsets[frame + 1] <= unit);
        frame_end = in.unit_offsets[frame + 1];
        enter(frame);
        sched.locate(0, row, col);
        loaded_row = -1;
      }
      out.begin_unit();
      size_type const row_start = base_a + row * TS;
      if (row != loaded_row) {
        loaded_row = row;
        row_count  = static_cast<int>(n_a - row * TS < TS ? n_a - row * TS : TS);
        load_own_points<B, R>(in.a, row_start, row_count, own, own_w);
      }
      size_type const col_start = base_b + col * TS;
      int const col_count       = static_cast<int>(n_b - col * TS < TS ? n_b - col * TS : TS);
      visit_tile_pair<B, R>(columns, in.mode, sched.is_diagonal(row, col), own, weight, row_start, row_count, col_start,
                            col_count, out);
      unsigned long long const bound = static_cast<unsigned long long>(row_count) * static_cast<unsigned long long>(col_count);
      if (!end_unit(out, units, unit, bound)) { break; }
      sched.advance(row, col);
    }
  }
};

/// statistic_visitor with frames: at each new frame the functor takes the frame's box (when the
/// batch has boxes) and the agent moves its output to the frame.
template <class Agent, class F>
struct frame_statistic_visitor : statistic_visitor<Agent, F> {
  using agent_type = Agent;
  using base       = statistic_visitor<Agent, F>;
  using base::base;

  /// Block-uniform: frame `frame` starts; `box` is its D box sides (null: keep the functor's).
  template <int D, class T>
  __device__ void begin_frame(size_type frame, T const* box)
  {
    if constexpr (has_periodic_box<F>) {
      if (box != nullptr) { set_box<D>(this->f, box); }
    }
    this->out.begin_frame(frame);
  }
};

/// The privatized histogram over frames: one histogram for the whole batch (summed), or one per
/// frame (per_frame: counts + frame * stride), flushed to the frame's slot when the frame changes.
template <class Binning, class Count, class Counter, int BlockThreads>
struct frame_histogram_agent : privatized_histogram_agent<Binning, Count, Counter, BlockThreads, window_mode::none> {
  using base = privatized_histogram_agent<Binning, Count, Counter, BlockThreads, window_mode::none>;
  struct params {
    typename base::params hist;  ///< hist.counts: the batch's output
    bool per_frame;
    int stride;  ///< slots per frame's histogram
  };
  using temp_storage = typename base::temp_storage;

  Count* first;
  bool per_frame;
  int stride;
  size_type current = -1;

  __device__ frame_histogram_agent(params const& p, temp_storage& s, void* dyn)
    : base(p.hist, s, dyn), first(p.hist.counts), per_frame(p.per_frame), stride(p.stride)
  {
  }

  /// Block-uniform.
  __device__ void begin_frame(size_type frame)
  {
    if (!per_frame || frame == current) { return; }
    if (current >= 0) {
      this->flush();
      this->pending = 0;
    }
    this->p.counts = first + frame * stride;
    current        = frame;
  }
};

/// A count over frames: 32-bit per-thread counts between units, folded into Count; at a frame
/// change (per_frame) and at the end, the block's sum is added to the frame's (or the batch's)
/// counter with one atomic.
template <class Count, class Inner, int BlockThreads>
struct frame_count_agent {
  static constexpr bool narrow = !cuda::std::is_same_v<Count, Inner>;
  struct params {
    Count* out;
    bool per_frame;
  };
  using block_reduce = cub::BlockReduce<Count, BlockThreads>;
  using temp_storage = typename block_reduce::TempStorage;

  temp_storage& storage;
  params p;
  Count outer{};
  Inner inner{};
  size_type current = -1;

  __device__ frame_count_agent(params const& p_, temp_storage& s, void*) : storage(s), p(p_) {}

  template <class V>
  __device__ void accumulate(V const& v)
  {
    inner += static_cast<Inner>(v);
  }
  template <class V, class Wt>
  __device__ void accumulate(V const& v, Wt w)
  {
    static_assert(!narrow, "weighted counts accumulate in Count");
    inner += static_cast<Count>(v) * w;
  }
  __device__ void end_unit(unsigned long long)
  {
    if constexpr (narrow) {
      outer += static_cast<Count>(inner);
      inner = Inner{};
    }
  }

  /// Block-wide (a block reduction): the sum so far into the current frame's counter.
  __device__ void commit()
  {
    Count const mine  = narrow ? outer : inner;
    Count const total = block_reduce(storage).Sum(mine);
    if (threadIdx.x == 0 && total != Count{}) { atomicAdd(p.out + (p.per_frame ? current : 0), total); }
    outer = Count{};
    inner = Inner{};
    __syncthreads();  // the reduction's storage is reused by the next commit
  }

  __device__ void begin_frame(size_type frame)
  {
    if (frame == current) { return; }
    if (p.per_frame && current >= 0) { commit(); }
    current = frame;
  }

  __device__ void finish()
  {
    end_unit(0);
    if (current >= 0) { commit(); }
  }
};

}  // namespace twobody::detail
