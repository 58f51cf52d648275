/// \file nearest_lists.cuh
/// \brief Output policy for k nearest neighbours: one sorted list of k (score, index) keys
/// per point of A (math/neighbor_keys.cuh), kept in device memory and updated in place.
///
/// A unit is a tile of rows of A against a segment of B's points, and has lists of its own: in
/// dynamic shared memory while they fit (written out at the unit's end), else in place in device
/// memory. The block keeps each row's current k-th score (the bound) in shared memory; a
/// traversal offers a partner only if its value may beat the bound, and an offer inserts it
/// under a per-row lock, so the lists are always the k nearest among the partners seen so far.
/// With segments > 1, each segment has its own lists (a row's lie side by side), merged after
/// the launch.
#pragma once

#include <twobody/math/neighbor_keys.cuh>
#include <twobody/points.cuh>
#include <twobody/policy/kinds.cuh>

namespace twobody {
namespace output {

/// k nearest neighbours per point: sorted lists in device memory, bounds in shared memory.
struct nearest_lists {
  static constexpr char const* name     = "nearest_lists";
  static constexpr output_kind kind     = {name};  ///< its family, listed in model/registry.cuh
  static constexpr unsigned statistics  = serves(statistic_kind::nearest);
  static constexpr bool chosen_by_model = true;  ///< the one policy of its statistic
};

}  // namespace output

namespace detail {

/// The selection visitor of the engine (the traversal calls it directly, not through
/// step/visit): begin_unit(row_start, segment), bound(r), offer(r, score, j) by a whole warp,
/// end_unit(). `Rows` is the traversal's rows per unit.
template <int Rows>
struct nearest_lists_visitor {
  static constexpr bool can_fail                 = false;
  static constexpr bool compiler_register_budget = false;
  static constexpr bool takes_intervals          = false;  ///< offers carry exact scores (not nearest_candidates_visitor)
  struct params {
    neighbor_key* lists;  ///< rows of A x segments x k keys, every one empty_neighbor before the launch
    int k;
    int segments;
    size_type rows;        ///< points of A
    bool in_shared;        ///< the unit's lists in dynamic shared memory (Rows x k keys)
  };
  struct temp_storage {
    float bound[Rows];  ///< the k-th score of each row's list (+inf while it has fewer than k)
    int lock[Rows];
  };

  params const& p;
  temp_storage& s;
  neighbor_key* shared_lists;
  neighbor_key* global_base = nullptr;  ///< the unit's first row's list in device memory
  size_type first_row       = 0;

  __device__ nearest_lists_visitor(params const& p_, temp_storage& storage, unsigned char* smem)
    : p(p_), s(storage), shared_lists(reinterpret_cast<neighbor_key*>(smem))
  {
  }

  /// Block-wide: rows row_start .. + Rows (those past the set take nothing), lists of `segment`
  /// (each unit's own, empty: no other unit has this row tile and segment).
  __device__ void begin_unit(size_type row_start, int segment)
  {
    first_row   = row_start;
    global_base = p.lists + (row_start * p.segments + segment) * p.k;
    if (p.in_shared) {
      for (int q = static_cast<int>(threadIdx.x); q < Rows * p.k; q += static_cast<int>(blockDim.x)) { shared_lists[q] = empty_neighbor; }
    }
    for (int r = static_cast<int>(threadIdx.x); r < Rows; r += static_cast<int>(blockDim.x)) {
      s.bound[r] = row_start + r < p.rows ? cuda::std::numeric_limits<float>::infinity() : -cuda::std::numeric_limits<float>::infinity();
      s.lock[r]  = 0;
    }
    __syncthreads();
  }

  __device__ neighbor_key* list(int r) const
  {
    return p.in_shared ? shared_lists + r * p.k : global_base + static_cast<size_type>(r) * p.segments * p.k;
  }

  /// Row r's bound now (it only falls, so a stale read lets more partners through, never fewer).
  /// Read and written with atomics: other warps update it without a barrier.
  __device__ float bound(int r) const { return __uint_as_float(atomicOr(reinterpret_cast<unsigned*>(&s.bound[r]), 0u)); }

  /// By all 32 lanes with the same arguments: partner j at `score` (not NaN) into row r's list
  /// if it beats the list's last entry.
  __device__ void offer(int r, float score, size_type j)
  {
    int const lane = static_cast<int>(threadIdx.x & 31u);
    // Above the bound (a stale one is only higher), it cannot beat the last entry: no lock. One
    // lane reads the bound, so that the whole warp takes the same way (another warp may lower it
    // between two lanes' reads).
    if (score > __shfl_sync(0xffffffffu, lane == 0 ? bound(r) : 0.0f, 0)) { return; }
    neighbor_key const key     = make_neighbor_key(score, static_cast<std::uint32_t>(j));
    neighbor_key volatile* lst = list(r);
    int const k                = p.k;
    if (lane == 0) {
      while (atomicCAS(&s.lock[r], 0, 1) != 0) {}
      __threadfence_block();
    }
    __syncwarp();
    if (key < lst[k - 1]) {
      // Its position: the entries below it (the list is sorted, keys are distinct), a ballot per
      // 32 entries.
      int below = 0;
      for (int c = 0; c < k; c += 32) { below += __popc(__ballot_sync(0xffffffffu, c + lane < k && lst[c + lane] < key)); }
      __syncwarp();  // every lane has read the list before any entry moves
      // Entries below .. k - 2 move up one, 32 at a time from the top, each chunk read before written.
      for (int c = (k - 1) / 32 * 32; c + 31 > below; c -= 32) {
        int const q       = c + lane;
        bool const moves  = q > below && q < k;
        neighbor_key prev = 0;
        if (moves) { prev = lst[q - 1]; }
        __syncwarp();
        if (moves) { lst[q] = prev; }
        __syncwarp();
      }
      if (lane == 0) {
        lst[below] = key;
        atomicExch(reinterpret_cast<unsigned*>(&s.bound[r]), __float_as_uint(neighbor_score(lst[k - 1])));
      }
    }
    if (lane == 0) {
      __threadfence_block();
      atomicExch(&s.lock[r], 0);
    }
    __syncwarp();
  }

  /// Block-wide: the lists in shared memory out to device memory.
  __device__ void end_unit()
  {
    __syncthreads();
    if (p.in_shared) {
      int const valid = static_cast<int>(p.rows - first_row < Rows ? p.rows - first_row : Rows);
      for (int q = static_cast<int>(threadIdx.x); q < valid * p.k; q += static_cast<int>(blockDim.x)) {
        int const r = q / p.k;
        global_base[static_cast<size_type>(r) * p.segments * p.k + (q - r * p.k)] = shared_lists[q];
      }
      __syncthreads();  // before the next unit clears them
    }
  }
  __device__ void finish() {}
};

}  // namespace detail
}  // namespace twobody
