#pragma once

/// The one traversal core: every pair kernel of the library is pair_engine_kernel with
///  - a *unit source*: which work units a block takes (equal contiguous ranges, or units drawn
///    from an atomic counter that a failed unit stops);
///  - a *traversal*: what pairs one unit holds and in what order the threads visit them (tile
///    pairs of a tile schedule, tile_traversal.cuh; chunks of the naive baseline; query batches
///    of a grid index, grid_kernels.cuh);
///  - a *visitor*: what becomes of each pair (a statistic agent's accumulate, or a join's
///    record), visitors.cuh.
/// The protocol, the same for all of them: begin_unit, the traversal's pair steps, end_unit with
/// a block-uniform bound on the increments the unit made to any one counter, and, for outputs
/// that can run out of space, a block-wide vote after each unit that rolls it back and hands it
/// back to the source (the host redoes it in the next round). That rollback exists here once.
///
/// Traversal concept: block_threads, min_blocks_per_sm, params, temp_storage, a constructor
/// (params, temp_storage&), and run(units, visitor): for each unit units.next() gives, called
/// by every thread: visitor.begin_unit(), the unit's pairs, then end_unit(visitor, units, unit,
/// bound) below (stop when it returns false).

#include <twobody/points.cuh>
#include <twobody/util/launch_control.cuh>

#include <cuda/std/type_traits>

namespace twobody::detail {

/// One thread's look at a control: counts a stretch of control_step units; whether to stop.
__device__ __forceinline__ bool control_says_stop(launch_control* control)
{
  atomicAdd(&control->units, control_step);
  return *reinterpret_cast<unsigned int volatile*>(&control->stop) != 0u;
}

/// Block-wide (a barrier; every thread calls it): whether the call goes on, as thread 0's look
/// at the control says (control_says_stop).
__device__ __forceinline__ bool controlled_go_on(launch_control* control)
{
  return __syncthreads_or(threadIdx.x == 0 && control_says_stop(control) ? 1 : 0) == 0;
}

/// The work units of one launch: first the listed units `redo` (rolled back in the round
/// before), then the flat range [range_begin, range_end).
struct unit_list {
  unsigned long long const* redo = nullptr;
  unsigned long long redo_count  = 0;
  unsigned long long range_begin = 0;
  unsigned long long range_end   = 0;

  __host__ __device__ unsigned long long count() const { return redo_count + (range_end - range_begin); }
  __device__ unsigned long long unit(unsigned long long w) const
  {
    return w < redo_count ? redo[w] : range_begin + (w - redo_count);
  }
};

/// Device-side state of a launch with units drawn at run time (zeroed before each launch).
struct work_state {
  unsigned long long next_unit;  ///< units handed out (may pass the count)
  unsigned int stop;             ///< set when a unit failed: hand out no more
  unsigned int failed;           ///< units rolled back, listed in failed_units
};

/// Equal contiguous ranges of the units, one per block (a persistent grid balanced to within
/// one unit); no atomics, and the same units for the same grid (both passes of a two-pass join).
/// With a control (a GPU call with a progress callback, util/gpu_progress.cuh) next() is
/// block-wide once every control_step units (every thread calls it, as every traversal does):
/// it counts them, and the block stops when told to.
struct static_units {
  static constexpr bool can_hand_back = false;
  static constexpr bool consecutive   = true;  ///< next() gives first(), first() + 1, ...
  struct params {
    unsigned long long count;           ///< units 0 .. count - 1
    launch_control* control = nullptr;  ///< null: next() takes no extra step
  };
  struct temp_storage {};

  params const& p;  ///< (the kernel's parameter: read where used, no register kept for it)
  unsigned long long w, end;

  __device__ static_units(params const& p_, temp_storage&) : p(p_)
  {
    unsigned long long const q = p.count / gridDim.x, r = p.count % gridDim.x;
    w   = q * blockIdx.x + (blockIdx.x < r ? blockIdx.x : r);
    end = w + q + (blockIdx.x < r ? 1 : 0);
  }
  __device__ bool any() const { return w < end; }
  __device__ unsigned long long first() const { return w; }
  __device__ bool next(unsigned long long& unit)
  {
    if (w >= end) { return false; }
    // Decided at every control_step-th unit: that unit is still the block's, and peek() already
    // says no more, so no traversal prefetches a unit it will not take.
    if (p.control != nullptr && w % control_step == control_step - 1 && !controlled_go_on(p.control)) { end = w + 1; }
    unit = w++;
    return true;
  }
  /// The unit that next() gives next, if any, without taking it.
  __device__ bool peek(unsigned long long& unit) const
  {
    if (w >= end) { return false; }
    unit = w;
    return true;
  }
  __device__ void hand_back(unsigned long long) {}
};

/// Every gridDim.x-th unit, from blockIdx.x: at any moment the blocks of a persistent grid work
/// on neighbouring units (the tensor-core traversals of rows, whose tile pairs read hundreds of
/// kilobytes each: neighbouring tile pairs share their row and column tiles in L2, where the
/// equal contiguous ranges of static_units walk far-apart ones). No atomics (but a control's).
struct strided_units {
  static constexpr bool can_hand_back = false;
  static constexpr bool consecutive   = false;
  using params                        = static_units::params;
  struct temp_storage {};

  params const& p;
  unsigned long long w;

  __device__ strided_units(params const& p_, temp_storage&) : p(p_), w(blockIdx.x) {}
  __device__ bool next(unsigned long long& unit)
  {
    if (w >= p.count) { return false; }
    unit = w;
    w += gridDim.x;
    // As static_units: at every control_step-th unit of the block, before any peek past it.
    if (p.control != nullptr && (unit / gridDim.x) % control_step == control_step - 1 && !controlled_go_on(p.control)) {
      w = ~0ull;
    }
    return true;
  }
  /// The unit that next() gives next, if any, without taking it.
  __device__ bool peek(unsigned long long& unit) const
  {
    if (w >= p.count) { return false; }
    unit = w;
    return true;
  }
  __device__ void hand_back(unsigned long long) {}
};

/// Units drawn from an atomic counter, one at a time per block (uneven units, and outputs that
/// can fail: a failed unit is listed and stops the handing out).
struct dynamic_units {
  static constexpr bool can_hand_back = true;
  static constexpr bool consecutive   = false;
  struct params {
    unit_list units;
    work_state* state;
    unsigned long long* failed_units;   ///< one slot per block (a block stops at its first failure); null: units never fail
    launch_control* control = nullptr;  ///< counts the units taken, and stops the handing out (util/gpu_progress.cuh)
  };
  struct temp_storage {
    unsigned long long next;
  };

  params const& p;
  temp_storage& shared;
  unsigned int taken_units = 0;  ///< (thread 0's, with a control: units handed out)

  __device__ dynamic_units(params const& p_, temp_storage& s) : p(p_), shared(s) {}

  /// Block-wide (barriers): thread 0 takes the unit and broadcasts it.
  __device__ bool next(unsigned long long& unit)
  {
    if (threadIdx.x == 0) {
      unsigned long long u = ~0ull;
      // Without a failed list nothing can stop the handing out: skip the read of `stop`, which
      // shares a cache line with the counter (a second atomic there per unit cost the grid
      // statistics, whose batches are small, 10-23%).
      if (p.failed_units == nullptr || atomicAdd(&p.state->stop, 0u) == 0u) {
        unsigned long long const taken = atomicAdd(&p.state->next_unit, 1ull);
        if (taken < p.units.count()) { u = p.units.unit(taken); }
      }
      if (p.control != nullptr && u != ~0ull && taken_units++ % control_step == 0 && control_says_stop(p.control)) {
        u = ~0ull;
      }
      shared.next = u;
    }
    __syncthreads();
    unit = shared.next;
    __syncthreads();  // thread 0 rewrites it only after every thread has read it
    return unit != ~0ull;
  }

  /// Lists a rolled-back unit and stops the handing out (the host redoes it next round).
  __device__ void hand_back(unsigned long long unit)
  {
    if (threadIdx.x == 0) {
      unsigned const slot    = atomicAdd(&p.state->failed, 1u);
      p.failed_units[slot]   = unit;
      atomicExch(&p.state->stop, 1u);
    }
  }
};

/// Whether a unit source tells its next unit ahead (peek): static and strided units do; units
/// drawn from a counter at run time do not.
template <class Source, class = void>
struct has_peek : cuda::std::false_type {};
template <class Source>
struct has_peek<Source, cuda::std::void_t<decltype(static_cast<Source const*>(nullptr)->peek(*static_cast<unsigned long long*>(nullptr)))>>
  : cuda::std::true_type {};

/// Blocks per SM an input policy asks the compiler to fit (its min_blocks_per_sm, else 1).
template <class Policy, class = void>
inline constexpr int min_blocks_per_sm_v = 1;
template <class Policy>
inline constexpr int min_blocks_per_sm_v<Policy, cuda::std::void_t<decltype(Policy::min_blocks_per_sm)>> =
  Policy::min_blocks_per_sm;

/// Thread groups that share each tile pair's columns (an input policy's column_groups, else 1).
template <class Policy, class = void>
inline constexpr int column_groups_v = 1;
template <class Policy>
inline constexpr int column_groups_v<Policy, cuda::std::void_t<decltype(Policy::column_groups)>> = Policy::column_groups;

/// Threads of a tiled input policy that hold a tile's own points (one column group's).
template <class Policy>
inline constexpr int row_threads_v = Policy::block_threads / column_groups_v<Policy>;

/// Points per tile of a tiled input policy: row_threads_v threads hold points_per_thread each.
template <class Policy>
inline constexpr int tile_points_v = row_threads_v<Policy> * Policy::points_per_thread;

/// The second __launch_bounds__ argument of an engine kernel: the traversal's min_blocks_per_sm
/// (0: the compiler's own register budget), or 0 for visitors that ask for it. Join visitors
/// do: bounded to 1 block per SM, ptxas gives their record-building loop up to 120 registers
/// instead of 64-80, and fewer resident warps made self joins 15-20% slower.
/// A traversal may raise it for some visitors (min_blocks_with<Visitor>(), tile_traversal.cuh).
template <class Traversal, class Visitor, class = void>
inline constexpr int traversal_min_blocks_v = Traversal::min_blocks_per_sm;
template <class Traversal, class Visitor>
inline constexpr int traversal_min_blocks_v<Traversal, Visitor, cuda::std::void_t<decltype(Traversal::template min_blocks_with<Visitor>())>> =
  Traversal::template min_blocks_with<Visitor>();
template <class Traversal, class Visitor>
inline constexpr int engine_min_blocks_v = Visitor::compiler_register_budget ? 0 : traversal_min_blocks_v<Traversal, Visitor>;

/// The dynamic shared memory a part of a kernel takes (its dynamic_bytes, else 0).
template <class Part, class = void>
inline constexpr std::size_t dynamic_bytes_v = 0;
template <class Part>
inline constexpr std::size_t dynamic_bytes_v<Part, cuda::std::void_t<decltype(Part::dynamic_bytes)>> = Part::dynamic_bytes;

/// Dynamic shared memory a traversal takes before the visitor's (its dynamic_bytes, else 0):
/// room past the 48 KiB of static shared memory (the tensor-core traversals' stages, the large
/// column tiles). Such a traversal is constructed with (params, temp_storage&, unsigned char*
/// dynamic); every launch adds these bytes to the visitor's (traversal_launch_smem; launch_smem
/// in launch.cuh checks them).
template <class Traversal>
inline constexpr std::size_t traversal_dynamic_bytes_v = dynamic_bytes_v<Traversal>;

/// The static shared memory a kernel may declare on every GPU: ptxas refuses more for every
/// architecture but sm_90 (where more only works because that GPU has it), so a kernel past it
/// would build for an H100 and not for an A100, a T4 or a Blackwell GPU. Larger storage goes to
/// the launch's dynamic shared memory (traversal_dynamic_bytes_v).
inline constexpr std::size_t portable_static_smem = 48 * 1024;

/// The dynamic shared memory of a launch whose visitor needs `visitor_bytes`.
template <class Traversal>
constexpr std::size_t traversal_launch_smem(std::size_t visitor_bytes)
{
  return traversal_dynamic_bytes_v<Traversal> + visitor_bytes;
}

/// The end of a unit, the same for every traversal. Outputs that can run out of space vote
/// (one barrier): if any thread ran out, the whole unit is undone and handed back, and the
/// block stops (false); the host redoes the unit in the next round, so no record is lost or
/// doubled. Otherwise the agent gets the unit's bound (block-uniform) and the block goes on.
template <class Visitor, class Source>
__device__ __forceinline__ bool end_unit(Visitor& out, Source& units, unsigned long long unit, unsigned long long bound)
{
  if constexpr (Visitor::can_fail) {
    static_assert(Source::can_hand_back, "an output that can run out of space needs units drawn at run time (dynamic_units)");
    if (__syncthreads_or(out.failed() ? 1 : 0) != 0) {
      out.rollback();
      units.hand_back(unit);
      return false;
    }
  }
  out.end_unit(bound);
  return true;
}

/// The engine: units from Source, pairs from Traversal, results through Visitor. The traversal
/// runs the unit loop (its per-thread state stays in locals of that loop, where the compiler
/// keeps it in the fewest registers): for each unit, out.begin_unit(), its pairs, end_unit().
template <class Traversal, class Visitor, class Source>
__global__ void __launch_bounds__(Traversal::block_threads, (engine_min_blocks_v<Traversal, Visitor>))
  pair_engine_kernel(typename Traversal::params walk_params, typename Visitor::params out_params,
                     typename Source::params unit_params)
{
  static_assert(sizeof(typename Traversal::temp_storage) + sizeof(typename Visitor::temp_storage) +
                    sizeof(typename Source::temp_storage) <= portable_static_smem,
                "twobody: this kernel's static shared memory is past the 48 KiB every GPU allows: the input "
                "policy's tile or the output's storage is too large for these points (use fewer points per thread)");
  __shared__ typename Traversal::temp_storage walk_storage;
  __shared__ typename Visitor::temp_storage out_storage;
  __shared__ typename Source::temp_storage unit_storage;
  extern __shared__ __align__(128) unsigned char dynamic_smem[];

  constexpr std::size_t walk_bytes = traversal_dynamic_bytes_v<Traversal>;
  static_assert(walk_bytes % 128 == 0, "a traversal's dynamic shared memory keeps the visitor's 128-byte aligned");
  Traversal walk = [&] {
    if constexpr (walk_bytes > 0) {
      return Traversal(walk_params, walk_storage, dynamic_smem);
    } else {
      return Traversal(walk_params, walk_storage);
    }
  }();
  Visitor out(out_params, out_storage, dynamic_smem + walk_bytes);
  Source units(unit_params, unit_storage);
  walk.run(units, out);
  out.finish();
}

}  // namespace twobody::detail
