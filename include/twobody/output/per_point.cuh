/// \file per_point.cuh
/// \brief Output policy for per-point reductions: out[i] = sum over partners j of f(a_i, b_j)
/// (kernel density estimates, Gaussian kernel sums, neighbour counts per point).
///
/// Each thread sums the pairs of each of its own points in registers; when its own points
/// change (and at the end) it adds the partial sums to the output with one global atomic
/// per point, so the atomics are few (one per point and row-tile visit), not one per pair.
/// For symmetric functors over one set (ColumnSums) each unordered pair is visited once and
/// its value also summed for the column point: in a register that moves between the lanes of a
/// warp after each step, so that after 32 steps each lane holds its warp's sum for one column
/// (one atomic per 32 x PointsPerThread pairs).
#pragma once

#include <twobody/points.cuh>
#include <twobody/policy/kinds.cuh>
#include <twobody/util/last_block.cuh>
#include <twobody/util/split_grid_barrier.cuh>

namespace twobody {
namespace output {

/// Sum per own point (the A side) in registers.
struct per_point_sum {
  static constexpr char const* name     = "per_point_sum";
  static constexpr output_kind kind     = {name};  ///< its family, listed in model/registry.cuh
  static constexpr unsigned statistics  = serves(statistic_kind::per_point);
  static constexpr bool chosen_by_model = true;  ///< the cost model may choose it
};

}  // namespace output

namespace detail {

/// RowThreads: the threads that hold a row tile's own points (the block's threads, or those of
/// one column group: every group adds its own partial sums). ColumnSums: also sum each pair
/// for its column point (visitors.cuh, has_column_sums; self mode with a symmetric functor).
template <class Out, int RowThreads, int PointsPerThread, bool ColumnSums = false>
struct per_point_sum_agent {
  static constexpr bool per_row     = true;
  static constexpr bool column_sums = ColumnSums;
  /// Whether the kernel can zero its output itself (params::zero_count): tiles of at most 128
  /// points, the small-set shapes. (The barrier's state cost the 2048-point tile's kernel 15
  /// registers, past two blocks per SM; at 16384 points a memset node was as fast.)
  static constexpr bool zeroes_in_kernel = RowThreads * PointsPerThread <= 128;
  struct params {
    Out* out;            ///< one slot per point of A, zeroed before the launch unless zero_count > 0
    size_type zero_count = 0;  ///< zero out[0, zero_count) first (needs a cooperative launch)
    /// If set, the last block to finish moves out[0, finish_count) here and leaves it zero, and
    /// leaves *ticket (zero at the launch) zero: out is then scratch that stays zero between calls.
    Out* finish_to         = nullptr;
    unsigned* ticket       = nullptr;
    size_type finish_count = 0;
  };
  struct temp_storage {
    warp_split_grid_barrier zeroed;  ///< zero_count > 0: every block's share of `out` is zero once all arrived
  };

  temp_storage& storage;
  params p;
  Out acc[PointsPerThread];
  Out column  = Out{};  ///< ColumnSums: this lane's share of the sum of its current column
  bool waited = false;  ///< zero_count > 0: this warp saw every block's share zeroed (warp-uniform)
  warp_split_grid_barrier::token zeroed_token;  ///< zero_count > 0: this thread's arrival (thread 0's counts)

  __device__ per_point_sum_agent(params const& p_, temp_storage& s, void*) : storage(s), p(p_)
  {
#pragma unroll
    for (int r = 0; r < PointsPerThread; ++r) { acc[r] = Out{}; }
    if (zeroing()) {
      // One kernel instead of a memset and a kernel (the small-set floor is launches): each
      // block zeroes its share and arrives at the grid barrier; each warp waits there only
      // before its first add (its first sums come from single warps, mid-traversal), so the
      // barrier's latency passes while the warps sum.
      size_type const stride = static_cast<size_type>(gridDim.x) * blockDim.x;
      for (size_type i = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.zero_count; i += stride) {
        p.out[i] = Out{};
      }
      zeroed_token = storage.zeroed.arrive(static_cast<size_type>(blockIdx.x) * blockDim.x < p.zero_count);
    }
  }

  /// Warp 0 takes its wait right after the first staging, while the other warps count pairs, so
  /// that they find the barrier passed at their first add instead of each polling the grid's
  /// word (per-warp timestamps at 4096 points: the SMs' last warps ended 0.2 us earlier).
  __device__ void columns_staged()
  {
    if (zeroing() && threadIdx.x < 32) { storage.zeroed.wait_in_warp(waited, zeroed_token); }
  }

  template <class V>
  __device__ void accumulate_row(int r, V const& v)
  {
    acc[r] += static_cast<Out>(v);
  }

  /// v for own point r and for this lane's column (padding columns, keep false, add nothing).
  template <class V>
  __device__ __forceinline__ void accumulate_both(int r, V const& v, bool keep)
  {
    Out const x = keep ? static_cast<Out>(v) : Out{};  // (a select: a bool v becomes 0 or 1 either way)
    acc[r] += x;
    column += x;
  }

  /// The next step's column of this lane is the one lane ^ lane_mask had.
  __device__ __forceinline__ void pass_columns(int lane_mask) { column = __shfl_xor_sync(0xffffffffu, column, lane_mask); }

  /// The warp's sum for column j (this lane's after 32 passes) into the output. (Called by
  /// whole warps, as end_row is: with zero_count > 0 the warp may wait here for the zeroing.)
  __device__ __forceinline__ void end_columns(size_type j, bool valid)
  {
    if (zeroing()) { storage.zeroed.wait_in_warp(waited, zeroed_token); }
    if (valid && column != Out{}) { atomicAdd(p.out + j, column); }
    column = Out{};
  }

  /// Own point r of this thread is row_start + (threadIdx.x mod RowThreads) + r * RowThreads.
  __device__ void end_row(size_type row_start, int row_count)
  {
    if (zeroing()) { storage.zeroed.wait_in_warp(waited, zeroed_token); }
#pragma unroll
    for (int r = 0; r < PointsPerThread; ++r) {
      int const i = static_cast<int>(threadIdx.x) % RowThreads + r * RowThreads;
      if (i < row_count && acc[r] != Out{}) { atomicAdd(p.out + row_start + i, acc[r]); }
      acc[r] = Out{};
    }
  }

  /// (Thread 0 passes its arrival on here at the latest: no block barrier may come between a
  /// warp's wait and that, and the next unit's staging is one.)
  __device__ void end_unit(unsigned long long)
  {
    if (zeroing()) { storage.zeroed.publish(zeroed_token); }
  }

  __device__ void finish()
  {
    if (p.finish_to != nullptr) { move_out_in_last_block(p.finish_to, p.out, p.finish_count, p.ticket); }
  }

private:
  __device__ bool zeroing() const
  {
    if constexpr (zeroes_in_kernel) {
      return p.zero_count > 0;
    } else {
      return false;
    }
  }
};

/// The per-point output of traversals that sum a unit's terms per point themselves (the
/// tensor-core rows, rows/mma_sum_traversal.cuh): add(i, s) adds a partial sum to point i
/// with one global atomic, once per point and unit.
template <class Out>
struct per_point_adder {
  static constexpr bool can_fail                 = false;
  static constexpr bool compiler_register_budget = false;
  struct params {
    Out* out;  ///< one slot per point, zeroed before the launch
  };
  struct temp_storage {};

  Out* out;

  __device__ per_point_adder(params const& p, temp_storage&, unsigned char*) : out(p.out) {}
  __device__ void begin_unit() {}
  __device__ void add(size_type i, float s) { atomicAdd(out + i, static_cast<Out>(s)); }
  __device__ void end_unit(unsigned long long) {}
  __device__ void finish() {}
};

}  // namespace detail
}  // namespace twobody
