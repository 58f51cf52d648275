/// \file privatized_histogram.cuh
/// \brief Output policies for Type II statistics (histograms that fit in shared memory):
/// private copies of the histogram in shared memory, merged into the global result.
///
///  - `block_privatized`: one copy per block (Pitaksirianan et al., Algorithm 3).
///  - `warp_privatized{H}`: H copies per block, lane l updating copy l % H (Algorithm 4),
///    laid out *bin-major*: counter (bin, copy) sits at word bin * H + copy. With H a power
///    of two, copy c then lives only in the banks b with b % H == c, so lanes that use
///    different copies can never conflict in a bank, and with H = 32 every lane owns its
///    bank outright: conflict-free atomics for any bins (on the H100, atomics on random
///    bins run about 5x slower than bank-disjoint ones). The paper's copy-major layout
///    (copy * bins + bin) scatters every copy over all banks and gains little from copies.
///
/// Counters are 32-bit in shared memory for plain counts and are flushed into the 64-bit
/// result before any of them can wrap. Histograms with more slots than shared memory holds
/// keep working: the copies are reduced to what fits, and with one copy past the limit either
/// the bin range is covered in several passes (each pass counts the bins of one window), or one
/// pass counts the window where most values fall in shared memory and spills the other values
/// to the global result (one global atomic each).
#pragma once

#include <twobody/math/bin_slot.cuh>
#include <twobody/math/pass_windows.cuh>
#include <twobody/math/tile_forms.cuh>
#include <twobody/points.cuh>
#include <twobody/policy/kinds.cuh>
#include <twobody/util/last_block.cuh>
#include <twobody/util/split_grid_barrier.cuh>
#include <twobody/value_traits.cuh>

namespace twobody {
namespace output {

/// One shared-memory histogram per block.
struct block_privatized {
  static constexpr char const* name     = "block_privatized";
  static constexpr output_kind kind     = {name};  ///< its family, listed in model/registry.cuh
  static constexpr unsigned statistics  = serves(statistic_kind::histogram);
  static constexpr bool chosen_by_model = false;  ///< the paper's one copy per block: a baseline
};

/// `copies` lane-interleaved, bank-disjoint shared-memory histograms per block (1..32;
/// powers of two keep the copies bank-disjoint). Reduced automatically when they do not fit.
struct warp_privatized {
  int copies = 32;
  static constexpr char const* name     = "warp_privatized";
  static constexpr output_kind kind     = {name};  ///< its family, listed in model/registry.cuh
  static constexpr unsigned statistics  = serves(statistic_kind::histogram);
  static constexpr bool chosen_by_model = true;  ///< the cost model may choose it
};

}  // namespace output

namespace detail {

/// The statistic-agent side of a shared-memory histogram (CRTP): a pair's value becomes
/// Agent::add(slot, increment), with the slot from the agent's bin map p.bins. Padding pairs of
/// a partial row tile add zero: the same atomics as a full tile, no branch.
template <class Agent, class Counter>
struct slot_updates {
  static constexpr bool masked_accumulate = true;

  template <class V>
  __device__ void accumulate(V const& v)
  {
    self().add(slot_of(self().p.bins, v), Counter(1));
  }
  template <class V, class Wt>
  __device__ void accumulate(V const& v, Wt w)
  {
    self().add(slot_of(self().p.bins, v), static_cast<Counter>(w));
  }
  template <class V>
  __device__ void accumulate_masked(V const& v, bool keep)
  {
    self().add(slot_of(self().p.bins, v), Counter(keep ? 1 : 0));
  }
  template <class V, class Wt>
  __device__ void accumulate_masked(V const& v, Wt w, bool keep)
  {
    self().add(slot_of(self().p.bins, v), keep ? static_cast<Counter>(w) : Counter{});
  }
  // In a step (agents with step_hooks): r is the pair's thread slot.
  template <class V>
  __device__ void accumulate_masked_at(int r, V const& v, bool keep)
  {
    self().add_at(r, slot_of(self().p.bins, v), Counter(keep ? 1 : 0));
  }
  template <class V, class Wt>
  __device__ void accumulate_masked_at(int r, V const& v, Wt w, bool keep)
  {
    self().add_at(r, slot_of(self().p.bins, v), keep ? static_cast<Counter>(w) : Counter{});
  }

  /// Whole tile pairs into the outside slot (visitors.cuh, in_tile_pair), for agents that
  /// declare bulk_outside (bin maps with a threshold past which every value is outside,
  /// tile_forms.cuh): whether every value >= lower is outside, and adding `pairs` there.
  template <class V>
  __device__ bool all_outside(V lower)
  {
    return lower >= values_outside_from(self().p.bins);
  }
  /// `pairs` (at most a tile pair's, so within the flush limit's bound) to the outside slot.
  __device__ void add_outside(unsigned long long pairs)
  {
    self().add(self().p.bins.size(), static_cast<Counter>(pairs));
  }

  /// For agents that declare inside_slots (bin maps with a range proven per tile pair,
  /// tile_forms.cuh): whether every value in [0, upper] takes its slot without the clamp, and
  /// such a value's update (the windowed modes still test their window).
  template <class V>
  __device__ bool all_inside(V upper)
  {
    return upper <= values_inside_to(self().p.bins) && self().unit_in_window();
  }
  template <class V>
  __device__ void accumulate_inside_at(int r, V const& v, bool keep)
  {
    auto const& bins = self().p.bins;
    self().add_inside_at(r, inside_slot_biased(bins, v), inside_slot_bias(bins), Counter(keep ? 1 : 0));
  }
  template <class V, class Wt>
  __device__ void accumulate_inside_at(int r, V const& v, Wt w, bool keep)
  {
    auto const& bins = self().p.bins;
    self().add_inside_at(r, inside_slot_biased(bins, v), inside_slot_bias(bins), keep ? static_cast<Counter>(w) : Counter{});
  }

 private:
  __device__ Agent& self() { return static_cast<Agent&>(*this); }
};

/// Slot s's copies (words s * copies .. s * copies + copies - 1 of the bin-major layout), summed
/// in Count and zeroed. Thread s starts at copy s % copies: with the copies in order, the lanes
/// of a warp (consecutive slots) hit one bank at a time, a 32-way conflict with 32 copies,
/// which made the flush cost as much as the pairs of a small set's block.
template <class Count, class Counter>
__device__ __forceinline__ Count take_slot_sum(Counter* h, int s, int copies)
{
  Count sum{};
  int c = s % copies;
  for (int k = 0; k < copies; ++k) {
    sum += static_cast<Count>(h[s * copies + c]);
    h[s * copies + c] = Counter{};
    c = c + 1 == copies ? 0 : c + 1;
  }
  return sum;
}

/// How a privatized histogram covers the slots: all of them in shared memory; a window per
/// pass (the others skipped); or a window in shared memory and the others spilled to the
/// global counts.
enum class window_mode { none, passes, spill };

template <class Binning, class Count, class Counter, int BlockThreads, window_mode Mode>
struct privatized_histogram_agent
  : slot_updates<privatized_histogram_agent<Binning, Count, Counter, BlockThreads, Mode>, Counter> {
  /// The windowed modes keep one spare counter per lane past the window (bank-distinct): a pass
  /// adds zero there for a value outside its window, so every pair takes one shared atomic and
  /// the hot loop has no branch; spill mode counts the outside slot there (values outside the
  /// bins: often many, all on one address in global memory).
  static constexpr int spare_words = Mode == window_mode::none ? 0 : 32;
  /// Spill mode defers a step's global atomics to its end (end_step): a branch per pair around
  /// them cost the spilling pass about twice the one-pass time.
  static constexpr bool step_hooks = Mode == window_mode::spill;
  static constexpr int max_step    = 16;  ///< the most pairs per thread in a step (shared_tile's points per thread)
  static constexpr bool bulk_outside = has_outside_threshold<Binning>::value;  ///< see slot_updates::all_outside
  static constexpr bool inside_slots = has_inside_threshold<Binning>::value;   ///< see slot_updates::all_inside
  /// Passes over spread windows (detail::pass_windows) visit a tile pair only where they count
  /// its slots: enter_tile_pair.
  static constexpr bool window_units = Mode == window_mode::passes && has_slot_bounds<Binning>::value;
  /// On points ordered into tiles, a functor's tile forms make tile pairs cost unevenly along the
  /// schedule (far ones counted at once, near ones in the general minimum image), so equal
  /// contiguous ranges of them leave SMs idle at the end: take every gridDim.x-th one instead.
  static constexpr bool strides_formed_units = true;
  /// One pass over all slots keeps two blocks of 256 threads per SM (tile_traversal's
  /// min_blocks_with): ptxas gave the 2048-point tile's formed SDH kernel 140 registers (one
  /// block per SM) once finish() moved the host result out; with 129 the planner took the
  /// 1024-point tile and the one-call SDH at 2^20 fell from 2.57 to 2.22 T pairs/s (H100).
  /// Capped at 128 it does not spill (the minimum image's would: not capped, see
  /// visitor_wants_two_blocks). The windowed modes would spill (20-48 bytes): not capped.
  static constexpr bool two_blocks_per_sm = Mode == window_mode::none;
  struct params {
    Binning bins;
    Count* counts;                   ///< bins.size() + 1 slots, the last one for outside values
    int copies;                      ///< private copies per block
    int window_begin;                ///< first slot counted in shared memory by this pass
    int window_size;                 ///< slots counted in shared memory (all of them in mode none)
    unsigned long long flush_limit;  ///< flush once this many increments may have reached one counter
    bool zero_counts = false;        ///< zero the window of `counts` first (needs a cooperative launch)
    Count* mirror    = nullptr;      ///< if set (with ticket), the window's result is copied here at the end
                                     ///< (mapped host memory)
    /// Passes mode: the windows of all passes (then window_begin, window_size are windows.begin(pass),
    /// windows.window) and this pass; each pair is counted in one pass. windows.passes == 1: the
    /// window is this pass's whole share of the slots.
    pass_windows windows{};
    int pass = 0;
    /// With mirror: `counts` is zeroed scratch (util/zeroed_scratch.cuh) and *ticket zero at the
    /// launch; the last block to finish copies the window to mirror and leaves both zero (no
    /// grid barrier, no cooperative launch).
    unsigned* ticket = nullptr;
  };
  struct temp_storage {
    split_grid_barrier zeroed;  ///< zero_counts: every block's share of `counts` is zero once all arrived
  };

  temp_storage& storage;
  params p;
  Counter* h;
  int stride_bytes;  ///< bytes between the counters of one copy
  int mine_bytes;    ///< byte offset of this lane's copy
  int spare_bytes;   ///< windowed modes: byte offset of this lane's spare counter
  // Windowed modes: the slots counted for the current pairs (the window, or in passes mode with
  // spread windows the pass's own share of the slots) and the byte offset of the first one's
  // counter (this lane's copy).
  int count_begin;
  int count_size;
  int count_bytes;
  bool unit_whole = false;  ///< passes mode: enter_tile_pair proved every slot of the current pairs counted
  unsigned long long pending = 0;
  // Spill mode: the step's updates that go to global memory (thread slot r: bit r, slot, value).
  unsigned spill_mask = 0;
  int spill_slot[step_hooks ? max_step : 1];
  Counter spill_value[step_hooks ? max_step : 1];

  __device__ privatized_histogram_agent(params const& p_, temp_storage& s, void* dyn)
    : storage(s),
      p(p_),
      h(static_cast<Counter*>(dyn)),
      stride_bytes(p_.copies * int(sizeof(Counter))),
      mine_bytes((threadIdx.x & 31) % p_.copies * int(sizeof(Counter))),
      spare_bytes(p_.window_size * stride_bytes + int(threadIdx.x & 31) * int(sizeof(Counter)))
  {
    count_window(p.windows.passes > 1 ? p.windows.own_begin(p.pass) : p.window_begin,
                 p.windows.passes > 1 ? p.windows.own_end(p.pass) : p.window_begin + p.window_size);

    int const words = p.window_size * p.copies + spare_words;
    for (int i = threadIdx.x; i < words; i += BlockThreads) { h[i] = Counter{}; }
    if (p.zero_counts) {
      // One kernel instead of a memset and a kernel: each block zeroes its share of the output,
      // and no flush starts before every share is zero. The blocks arrive at the grid barrier
      // now and wait at their first flush, so its latency passes while pairs are counted.
      for (int s = blockIdx.x * BlockThreads + threadIdx.x; s < p.window_size; s += gridDim.x * BlockThreads) {
        p.counts[p.window_begin + s] = Count{};
      }
      storage.zeroed.arrive(blockIdx.x * BlockThreads < p.window_size);
    }
    __syncthreads();
  }

  __device__ void add(int slot, Counter c)
  {
    if constexpr (Mode != window_mode::none) {
      // No branch around the shared update: every pair adds to its window slot, else to its
      // lane's spare counter (zero, except for spill mode's outside slot). A branch there put a
      // convergence barrier (BSSY/BSYNC) per pair in the hot loop and made each pass 2.7 times
      // slower than one pass of the same layout; predicated PTX reductions were slower still
      // (H100, 2^20-point SDH, 65536 bins in 2 passes: branch 1.36 s, PTX 1.90 s, spare counters
      // 0.745 s). Only the rare spill to global memory is a branch (predicated PTX took 1.7 times
      // as long: 65536 bins, 1.01 s against 0.59 s); in a step, add_at leaves it to end_step.
      if (!window_add(slot, c)) {
        if constexpr (Mode == window_mode::spill) { atomicAdd(p.counts + slot, static_cast<Count>(c)); }
      }
      return;
    }
    // Byte offsets keep the address one IMAD (slot * stride + mine) in the hot loop.
    atomicAdd(reinterpret_cast<Counter*>(reinterpret_cast<char*>(h) + (slot * stride_bytes + mine_bytes)), c);
  }

  /// add_at() of slot biased - bias (mod 2^32; tile_forms.cuh, inside_slot_biased): with all
  /// slots in shared memory the bias goes into the lane's offset, so the address stays one IMAD
  /// (biased - bias, then slot * stride + mine, is an add and an IMAD: the instruction the
  /// clamp-free slot saves).
  __device__ __forceinline__ void add_inside_at(int r, unsigned biased, unsigned bias, Counter c)
  {
    if constexpr (Mode == window_mode::none) {
      unsigned const stride = static_cast<unsigned>(stride_bytes);
      unsigned const offset = static_cast<unsigned>(mine_bytes) - bias * stride;
      atomicAdd(reinterpret_cast<Counter*>(reinterpret_cast<char*>(h) + (biased * stride + offset)), c);
    } else if constexpr (Mode == window_mode::passes) {
      // A tile pair whole in this pass's window (all_inside): slot - count_begin is in the window,
      // the address one IMAD as in one pass.
      unsigned const stride = static_cast<unsigned>(stride_bytes);
      unsigned const offset = static_cast<unsigned>(count_bytes) - (bias + static_cast<unsigned>(count_begin)) * stride;
      atomicAdd(reinterpret_cast<Counter*>(reinterpret_cast<char*>(h) + (biased * stride + offset)), c);
    } else {
      add_at(r, static_cast<int>(biased - bias), c);
    }
  }

  /// add() in a step, thread slot r: spill mode keeps the global update for end_step.
  __device__ void add_at(int r, int slot, Counter c)
  {
    if constexpr (step_hooks) {
      bool const kept = window_add(slot, c);
      spill_slot[r]   = slot;
      spill_value[r]  = c;
      spill_mask |= kept ? 0u : 1u << r;
    } else {
      add(slot, c);
    }
  }

  /// After a step of R pairs (all 32 lanes): its spilled updates, one vote and a branch that is
  /// taken only when a lane of the warp has one.
  template <int R>
  __device__ void end_step()
  {
    static_assert(R <= max_step, "a step of more pairs per thread than the spill keeps");
    if constexpr (step_hooks) {
      if (__any_sync(0xffffffffu, spill_mask != 0)) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
          if ((spill_mask >> r) & 1u) { atomicAdd(p.counts + spill_slot[r], static_cast<Count>(spill_value[r])); }
        }
      }
      spill_mask = 0;
    }
  }

  /// The windowed modes' shared update: c to slot's counter where the window (or, in spill mode,
  /// the outside slot) keeps it, else zero to the lane's spare counter. Whether it was kept.
  __device__ __forceinline__ bool window_add(int slot, Counter c)
  {
    // (Spill mode counts its one window: from the parameters, which take no registers.)
    constexpr bool spill = Mode == window_mode::spill;
    int const local      = slot - (spill ? p.window_begin : count_begin);
    bool const inside    = static_cast<unsigned>(local) < static_cast<unsigned>(spill ? p.window_size : count_size);
    bool const kept      = inside || (spill && slot == p.bins.size());
    atomicAdd(reinterpret_cast<Counter*>(reinterpret_cast<char*>(h) +
                                         (inside ? local * stride_bytes + (spill ? mine_bytes : count_bytes) : spare_bytes)),
              kept ? c : Counter{});
    return kept;
  }

  /// Counts slots begin .. end - 1 (inside the window) from now on.
  __device__ __forceinline__ void count_window(int begin, int end)
  {
    count_begin = begin;
    count_size  = end - begin;
    count_bytes = (begin - p.window_begin) * stride_bytes + mine_bytes;
  }

  /// Whether the current pairs' slots all lie in the counted range (slot_updates::all_inside).
  __device__ __forceinline__ bool unit_in_window() const { return Mode != window_mode::passes || unit_whole; }

  /// Passes over spread windows (window_units): called with bounds of the values of the pairs of a
  /// tile pair (or of a warp's sub-tile pair: per thread, warp-uniform) before they are visited
  /// (the same in every pass): whether this pass counts any of them. A tile pair whose slots all lie in one window is counted whole in the first such
  /// window's pass only; any other in every pass, each counting its own share of the slots.
  template <class V>
  __device__ __forceinline__ bool enter_tile_pair(V lower, V upper, bool bounded)
  {
    if (p.windows.passes <= 1) { return true; }
    slot_bounds const b = slot_bounds_of(p.bins, lower, upper, bounded);
    int const whole_in  = p.windows.holding(b.lo, b.hi);
    unit_whole          = whole_in >= 0;
    if (unit_whole) {
      count_window(p.window_begin, p.window_begin + p.window_size);
      return whole_in == p.pass;
    }
    int const own_begin = p.windows.own_begin(p.pass), own_end = p.windows.own_end(p.pass);
    count_window(own_begin, own_end);
    return b.hi >= own_begin && b.lo < own_end;
  }

  /// Passes over spread windows, for a tile pair whose sub-tile pairs may each be decided on their
  /// own (enter_tile_pair on their bounds): 1 where the tile pair's slots lie whole in a window
  /// and this is the first such window's pass (counted whole here, as enter_tile_pair does; its
  /// sub-tile pairs are not decided again), 2 where they do not and this pass's window meets them
  /// (every sub-tile pair a pass counts lies in its window), else 0 (skipped).
  template <class V>
  __device__ __forceinline__ int enter_tile_pair_of_sub_tiles(V lower, V upper, bool bounded)
  {
    if (p.windows.passes <= 1) { return 1; }
    slot_bounds const b = slot_bounds_of(p.bins, lower, upper, bounded);
    int const whole_in  = p.windows.holding(b.lo, b.hi);
    if (whole_in >= 0) {
      unit_whole = true;
      count_window(p.window_begin, p.window_begin + p.window_size);
      return whole_in == p.pass ? 1 : 0;
    }
    return b.hi >= p.window_begin && b.lo < p.window_begin + p.window_size ? 2 : 0;
  }

  /// Block-uniform: called by every thread after each work unit with a bound on the
  /// increments that unit may have made to a single counter.
  __device__ void end_unit(unsigned long long bound)
  {
    pending += bound;
    if (pending > p.flush_limit) {
      flush();
      pending = 0;
    }
  }

  __device__ void flush()
  {
    if (p.zero_counts) { storage.zeroed.wait_once(); }  // (the constructor's and each flush's barriers order it)
    __syncthreads();
    for (int s = threadIdx.x; s < p.window_size; s += BlockThreads) {
      // Each copy is bounded by the flush limit, their sum is not: add in the 64-bit Count.
      Count const sum = take_slot_sum<Count>(h, s, p.copies);
      if (sum != Count{}) { atomicAdd(p.counts + p.window_begin + s, sum); }
    }
    if constexpr (Mode == window_mode::spill) {
      if (threadIdx.x < 32) {  // the lanes' outside counters (one copy each)
        Counter* const spare = h + p.window_size * p.copies;
        Count const sum      = static_cast<Count>(spare[threadIdx.x]);
        spare[threadIdx.x]   = Counter{};
        if (sum != Count{}) { atomicAdd(p.counts + p.bins.size(), sum); }
      }
    }
    __syncthreads();
  }

  __device__ void finish()
  {
    flush();
    // The host-synchronous one-call form: `counts` is zeroed scratch; the last block to flush
    // copies the result to mapped host memory and zeroes the scratch for the next call.
    if (p.mirror != nullptr) { move_out_in_last_block(p.mirror, p.counts + p.window_begin, p.window_size, p.ticket); }
  }
};

}  // namespace detail
}  // namespace twobody
